"""The Java client's words about a connection's own state, not the broker's answer: an address that did not
resolve surfacing as ClusterConnectionStates' ``No entry found for connection N`` or as Selector's ``Can't resolve
address: h:p``, Selector's ``Connection with h/ip disconnected``, SslTransportLayer's ``EOF during handshake`` (the
broker hung up mid-TLS-handshake), and a SASL mechanism the client's own JVM cannot run (no SaslClient, no LoginModule), which is
no login the broker refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import LOOPBACK, classify_host
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, BOOTSTRAP_DISCONNECTED, CONNECT, COORDINATOR, HOST, JAVA,
                                     RESOLVE, TLS_ON_PLAINTEXT, UNKNOWN, Item, Pattern, ScanState, Sighting, registrar,
                                     with_connection)
from kdiag.explain.tls_readings import hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

COORDINATOR_IDS = 2**31 - 2**20
"""Java's group coordinator connections are named Integer.MAX_VALUE - broker id: ids above this are coordinators."""


def node_role(node_id: int) -> str:
    """The role of the address behind a Java connection id: -1, -2, ... the bootstrap's, Integer.MAX_VALUE - id a
    group coordinator's (an advertised broker reached through a group request), else the broker the metadata named."""
    if node_id < 0:
        return BOOTSTRAP
    return COORDINATOR if node_id >= COORDINATOR_IDS else ADVERTISED


def node_where(connection: int, *, bootstrap_index: bool = True) -> dict[str, object]:
    """A Java connection id as a sighting's node and role: a coordinator's connection names its broker,
    Integer.MAX_VALUE - id (the role_from says so); a bootstrap connection keeps its -N (the Nth bootstrap address)
    unless ``bootstrap_index`` is off (no node id then)."""
    role = node_role(connection)
    broker = 2**31 - 1 - connection if role == COORDINATOR else connection
    return {"node_id": broker if bootstrap_index or broker >= 0 else None, "role": role,
            "role_from": (f"connection {connection} is Integer.MAX_VALUE - {broker}: the coordinator of a group, "
                          f"broker {broker}") if role == COORDINATOR else None}


# kafka-clients 2.1 and 2.2 (KAFKA-7974, fixed in 2.2.1 and 2.3): NetworkClient.initiateConnect calls
# ClusterConnectionStates.connecting(), which resolves the node's host before it records the node; a name that does
# not resolve throws UnknownHostException there, and the catch's disconnected() then finds no entry for the node and
# throws IllegalStateException("No entry found for connection " + id) instead, out of poll() (a consumer, an admin
# client's thread, a framework's sampler). The bootstrap's names were resolved when the client was built, so the
# node is nearly always one the metadata gave: an advertised broker, or a group's coordinator.
@pattern("java.no_entry_for_connection", JAVA, "No entry found for connection",
         r"No entry found for connection (?P<id>-?\d+)",
         "java.lang.IllegalStateException: No entry found for connection 2147483646")
def _java_no_entry(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(RESOLVE, JAVA, status="error", detail=m.group(0), guess=m.group(0),
                   **node_where(int(m.group("id")), bootstrap_index=False))  # type: ignore[arg-type]


# Selector.connect: socketChannel.connect(address) throws UnresolvedAddressException for an InetSocketAddress whose
# name did not resolve, rethrown as IOException("Can't resolve address: " + address); the address prints as
# host:port before Java 14 and host/<unresolved>:port since. The node is the connection being opened: the one a
# NetworkClient line just above named (its id gives the role), else the role is open (both readings).
@pattern("java.cant_resolve_address", JAVA, "Can't resolve address: ",
         rf"Can't resolve address: (?P<host>{HOST})(?:/<unresolved>)?:(?P<port>\d{{1,5}})",
         "java.io.IOException: Can't resolve address: kafka-1.example/<unresolved>:9092")
def _java_cant_resolve(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    connection = scan.recent_connection(host)
    where = node_where(connection.node_id, bootstrap_index=False) if connection is not None and \
        connection.node_id is not None else {"role": UNKNOWN}
    yield Sighting(RESOLVE, JAVA, host, port, status="nxdomain", detail=m.group(0), **where)  # type: ignore[arg-type]


# Selector.pollSelectionKeys: an IOException on a connection, its connect refused most often, is logged as
# "Connection with {socketDescription} disconnected" (the host and the address it resolved to, host/ip). Only a
# loopback address says which broker it was: the client's own machine, where no broker runs when the metadata named
# localhost; any other address's line says only that a connection ended (the exception under it says why).
@pattern("java.selector_disconnected", JAVA, "Connection with ",
         rf"(?:Selector\b.*?)?Connection with (?P<host>{HOST})?/(?P<addr>[0-9a-fA-F.:]+) disconnected",
         "DEBUG org.apache.kafka.common.network.Selector - Connection with localhost/127.0.0.1 disconnected")
def _java_selector_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, address = m.group("host"), m.group("addr")
    if classify_host(address).kind != LOOPBACK:
        return
    port = scan.port_of(host) if host else None
    yield Sighting(CONNECT, JAVA, host or address, port, address, detail="Connection with "
                   f"{host or ''}/{address} disconnected", guess=m.group(0))


# SslTransportLayer.doHandshake / handshakeUnwrap (2.0 to 4.x): the socket reached end-of-stream while the client's
# TLS handshake was under way: the broker closed it without a TLS alert. A plaintext listener does that to a ClientHello
# (its first bytes read as a request size over socket.request.max.bytes); a JDK TLS listener that refuses answers with an
# alert instead. A firewall or proxy that cuts TLS, or a broker at its connection limit, close the same way: a reading.
@pattern("java.eof_during_handshake", JAVA, "EOF during handshake",
         r"EOF during handshake, handshake status is [A-Z_]+",
         "Caused by: java.io.EOFException: EOF during handshake, handshake status is NEED_UNWRAP")
def _java_eof_during_handshake(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    sighting = Sighting(TLS_ON_PLAINTEXT, JAVA, detail="EOF during TLS handshake")
    yield with_connection(scan, hung_up_in_handshake(sighting, m.group(0)))


# SaslClientAuthenticator.createSaslClient: javax.security.sasl.Sasl found no SaslClientFactory for the mechanism
# (a FIPS JVM without SunSASL has none for PLAIN), or the JAAS login module named in sasl.jaas.config is not on the
# client's class path (a shaded client's kafkashaded.* names, a framework's class loader): the client fails before any
# byte reaches a broker, so no broker refused anything. GSSAPI's own (SaslClientAuthenticator.createSaslToken's "An
# error: (...) occurred when evaluating SASL token"): a JVM with no Kerberos ticket to start from (no kinit, no keytab
# in the JAAS entry) or a clock the KDC does not accept: the client's login, before a credential went to the broker.
CLIENT_SIDE_SASL = re.compile(
    r"Failed to create SaslClient with mechanism|Failed to configure SaslClientAuthenticator"
    r"|No LoginModule found for|Unable to find LoginModule class|ClassNotFoundException"
    r"|No (?:SaslClient|SaslClientFactory|provider)|Failed to find any Kerberos tgt|Clock skew too great")


def client_side_sasl(words: str) -> bool:
    """The SASL error is the client's own JVM failing to set up its mechanism, not the broker's answer."""
    return CLIENT_SIDE_SASL.search(words) is not None


# NetworkClient's DEBUG words for a bootstrap hang-up (every version; java.py's WARN "Bootstrap broker" line came with
# 2.x): a negative node id is a bootstrap address. A positive one is a broker the metadata named, closed for any reason
# (idle connections are closed every connections.max.idle.ms): not read.
@pattern("java.bootstrap_node_disconnected", JAVA, " disconnected.", r"\bNode (?P<id>-\d+) disconnected\.",
         "[2020-08-11 14:51:20,699] DEBUG [Producer clientId=reporter] Node -2 disconnected. "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_bootstrap_node_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(BOOTSTRAP_DISCONNECTED, JAVA, node_id=int(m.group("id")), role=BOOTSTRAP)
