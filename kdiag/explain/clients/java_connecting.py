"""The Java client's ``Error connecting to node HOST:PORT (id: N rack: R)``: NetworkClient.initiateConnect's WARN for
an IOException raised before any byte went out. initiateConnect resolves the node's host there (ClusterConnectionStates
.connecting, since 2.1; Selector.connect's ``Can't resolve address`` before) and starts a non-blocking connect, whose
own failure (refused, timed out) comes later, as ``Connection to node N (...) could not be established``. So the
exception under this line is nearly always the name not resolving (UnknownHostException), or a connect that failed at
once (no route). A paste that cut the exception off keeps what the host's kind decides: a name brokers advertise by
default (a container id, an EC2 private DNS name, a Kubernetes service name, a bare container name) resolves only
inside its own network, so it is likely the name; an address needs no lookup, so it is the connect (loopback: the
client's own machine). Any other name leaves the cause open: an advertised broker never reached, its readings hedged.

Two more of the client's connect words: NetworkClient's ``Disconnecting from node N due to socket connection setup
timeout`` (since 2.7: a TCP connect still not made after socket.connection.setup.timeout.ms), and ClientUtils'
bootstrap name whose canonical (reverse-DNS) name does not resolve (client.dns.lookup=
resolve_canonical_bootstrap_servers_only).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import CONTAINER_ID, EC2_INTERNAL, KUBERNETES, LOOPBACK, SINGLE_LABEL, classify_host
from kdiag.explain.clients.java_states import node_role, node_where
from kdiag.explain.sightings import (ADVERTISED_DOWN, BOOTSTRAP, BROKER_ROLES, CONNECT, COORDINATOR, HOST, HOSTPORT, JAVA,
                                     RESOLVE, Fact, Item, JavaConnection, Pattern, ScanState, Sighting, registrar,
                                     split_endpoint)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

NAMES_RESOLVED_INSIDE = (CONTAINER_ID, EC2_INTERNAL, KUBERNETES, SINGLE_LABEL)
"""The kinds of name a broker advertises by default, which the client's machine usually cannot resolve."""


@pattern("java.error_connecting", JAVA, "Error connecting to node",
         rf"Error connecting to node (?:(?P<hp>{HOSTPORT})|(?P<v6>[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*):(?P<v6port>\d{{1,5}})) "
         r"\(id: (?P<id>-?\d+) rack: [^)]*\)",
         "[2026-11-21 14:27:00,444] WARN [Producer clientId=console-producer] Error connecting to node "
         "ip-172-31-18-160.us-west-2.compute.internal:9092 (id: 1 rack: null) (org.apache.kafka.clients.NetworkClient)")
def _java_error_connecting(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # Node.toString: host:port, an IPv6 address unbracketed; "(id: 1 rack: null isFenced: false)" since 4.0
    host, port = split_endpoint(m.group("hp")) if m.group("hp") else (m.group("v6"), int(m.group("v6port")))
    connection = int(m.group("id"))
    scan.java = JavaConnection(host, port, connection, None, scan.line)
    role = node_role(connection)
    node_id = 2**31 - 1 - connection if role == COORDINATOR else connection  # a coordinator's: its broker's id
    yield Fact(BOOTSTRAP if role == BOOTSTRAP else "broker", host, port, node_id if node_id >= 0 else None)
    if host is None:
        return
    words = m.group(0)
    where = {"host": host, "port": port, "node_id": node_id if node_id >= 0 else None, "role": role,
             "role_from": (f"connection {connection} is Integer.MAX_VALUE - {node_id}: the coordinator of a group, "
                           f"broker {node_id}") if role == COORDINATOR else None}
    kind = classify_host(host)
    if kind.kind in NAMES_RESOLVED_INSIDE:  # the exception below, when a paste keeps it, is UnknownHostException
        yield Sighting(RESOLVE, JAVA, status="error", detail=words, guess=words, **where)  # type: ignore[arg-type]
    elif kind.is_ip or kind.kind == LOOPBACK:  # nothing to resolve (localhost neither): the connect failed at once
        status = "refused" if kind.kind == LOOPBACK else "error"  # loopback: nothing listens on this machine
        yield Sighting(CONNECT, JAVA, status=status, detail=words, guess=words, **where)  # type: ignore[arg-type]
    elif role in BROKER_ROLES:  # a name of no telling kind: an advertised broker never reached, the cause open
        yield Sighting(ADVERTISED_DOWN, JAVA, detail=words, **where)  # type: ignore[arg-type]


# NetworkClient.handleTimedOutConnections: ClusterConnectionStates counts only nodes still CONNECTING (the TCP connect
# not finished; a connected node moves on to CHECKING_API_VERSIONS or READY), so the connect itself timed out: a port
# filtered, or an address that drops the SYN. The line names the node's id only: the host is the connection line's
# above it for the same node, if any.
@pattern("java.connection_setup_timeout", JAVA, "due to socket connection setup timeout",
         r"Disconnecting from node (?P<id>-?\d+) due to socket connection setup timeout",
         "[2026-12-07 10:00:11,100] INFO [Producer clientId=producer-1] Disconnecting from node -1 due to socket "
         "connection setup timeout. The timeout value is 10000 ms. (org.apache.kafka.clients.NetworkClient)")
def _java_connection_setup_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    connection = int(m.group("id"))
    above = scan.java if scan.java is not None and scan.java.node_id == connection else None
    yield Sighting(CONNECT, JAVA, above.host if above else None, above.port if above else None,
                   above.address if above else None, status="timeout", detail="socket connection setup timeout",
                   **node_where(connection))  # type: ignore[arg-type]


# ClientUtils.parseAndValidateAddresses: the bootstrap name resolved, but the canonical name of its address (reverse
# DNS: InetAddress.getCanonicalHostName) does not resolve forward. The bootstrap is unusable as configured; the
# reverse DNS record, or the setting that asks for it, is the likely cause, hence a reading.
@pattern("java.bootstrap_canonical_unresolvable", JAVA, "as DNS resolution of the canonical hostname",
         rf"Couldn't resolve server (?:[A-Za-z_]+://)?(?P<hp>{HOSTPORT}) from bootstrap\.servers as DNS resolution "
         rf"of the canonical hostname (?P<canonical>{HOST}) failed",
         "WARN Couldn't resolve server b1.example:9092 from bootstrap.servers as DNS resolution of the canonical "
         "hostname ip-192-0-2-10.internal.example failed for b1.example (org.apache.kafka.clients.ClientUtils)")
def _java_bootstrap_canonical(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact(BOOTSTRAP, host, port)
    canonical = m.group("canonical")  # the name the client would connect to
    words = f"{host}'s canonical name {canonical} does not resolve (client.dns.lookup)"
    yield Sighting(RESOLVE, JAVA, canonical, port, role=BOOTSTRAP, status="nxdomain", detail=words, guess=words)
