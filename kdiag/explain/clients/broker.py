"""The broker's own log: what a listener says about a client that speaks the wrong protocol to it, and
what the broker refuses to advertise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (ADVERTISED, BROKER, BROKER_CLOSED, JAVA, NONROUTABLE, PLAINTEXT_ON_TLS, REDACTED,
                                     SASL_CREDENTIALS, SASL_MECHANISM, SASL_NEEDED, TLS_ON_PLAINTEXT, Item, Pattern,
                                     ScanState, Sighting, parse_mechanisms, registrar, with_connection)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("broker.unrecognized_ssl", JAVA, "Unrecognized SSL message", r"Unrecognized SSL message, plaintext connection\?",
         "javax.net.ssl.SSLException: Unrecognized SSL message, plaintext connection?")
def _broker_unrecognized_ssl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # The side that expects TLS got plaintext: a broker's TLS listener, in a broker log (most often).
    yield with_connection(scan, Sighting(PLAINTEXT_ON_TLS, JAVA, detail="Unrecognized SSL message"))


@pattern("broker.unexpected_request", JAVA, "during SASL handshake",
         r"Unexpected Kafka request of type (?P<api>\w+) during SASL handshake",
         "[2026-11-21 14:31:46,729] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
         "/127.0.0.1 (channelId=127.0.0.1:9094-127.0.0.1:51234-0) (Unexpected Kafka request of type METADATA during "
         "SASL handshake.) (org.apache.kafka.common.network.Selector)")
def _broker_unexpected_request(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_NEEDED, JAVA, detail=f"broker: Unexpected Kafka request of type {m.group('api')} during SASL "
                   "handshake")


def broker_context(line: str) -> bool:
    """A line a broker's network layer wrote: its Selector logs in the ``[SocketServer brokerId=0]`` (2.x) or
    ``[SocketServer listenerType=BROKER, nodeId=1]`` (3.x, KRaft's controller too) context."""
    return "[SocketServer " in line


# The client's address as a paste hides it: <ip-address>, ***, xxx.xxx.xxx.xxx, or a word in capitals (INTERNAL_IP)
HIDDEN_PEER = rf"{REDACTED}|[A-Z][A-Z0-9_]{{1,30}}"


@pattern("broker.failed_authentication", JAVA, "Failed authentication with",
         rf"Failed authentication with (?:(?P<name>[^\s/()]+)/|/)?(?P<peer>[0-9A-Fa-f:.]+|{HIDDEN_PEER}) "
         r"\((?:channelId=[^)]*\) \()?"
         r"(?P<why>.*?)\)"
         r"(?:\s+\(org\.apache[\w.$]*\)(?: \[.*)?)?\s*$",
         "[2026-11-25 11:40:02,118] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
         "/192.0.2.10 (channelId=198.51.100.10:9094-192.0.2.10:40112-3) (Unsupported SASL mechanism SCRAM-SHA-256) "
         "(org.apache.kafka.common.network.Selector)")
def _broker_failed_authentication(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """The broker's word on a client's SASL login: an unsupported mechanism, or rejected credentials. A broker's
    Selector names the client "/ip", or "name/ip" when the JVM knows a name for it (``localhost/127.0.0.1``); a
    "name/ip" outside a broker's ``[SocketServer ...]`` context is a client naming its broker (``sasl_answers``)."""
    if m.group("name") and not broker_context(m.string):
        return
    why = m.group("why").strip()
    detail = f"broker: Failed authentication with /{m.group('peer')} ({why})"
    mechanism = re.match(r"Unsupported SASL mechanism (\S+)", why)
    if mechanism is not None:
        yield Sighting(SASL_MECHANISM, JAVA, mechanism=mechanism.group(1).upper(), detail=detail)
    elif why.startswith("Authentication failed"):
        yield Sighting(SASL_CREDENTIALS, JAVA, detail=detail)
    elif why.startswith("SSL handshake failed"):  # the listener's side says no more: most often plaintext bytes
        yield Sighting(PLAINTEXT_ON_TLS, BROKER, detail=detail, guess="SSL handshake failed",  # or the client gave up
                       alternatives=("TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH"))  # on the broker's certificate


# The listener's own words on bytes a client sent that do not frame as a Kafka request: the first four bytes read
# as a request size over socket.request.max.bytes (104857600) or sasl.server.max.receive.size (524288). This is
# the broker's side: the opposite of a client reading a foreign answer (librdkafka's "Invalid response size").
# A TLS ClientHello (0x16 0x03 ...) means a client speaks TLS to this plaintext listener; "GET " or "POST" an HTTP
# client (a browser, a health check) at the Kafka port, which says nothing about Kafka clients.
@pattern("broker.invalid_receive", JAVA, "Invalid receive", r"Invalid receive \(size = (?P<size>-?\d+)",
         "org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 369295617 larger than "
         "104857600)")
def _broker_invalid_receive(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    raw = (int(m.group("size")) & 0xFFFFFFFF).to_bytes(4, "big")
    if raw[0] == 0x16 and raw[1] == 0x03:
        yield Sighting(TLS_ON_PLAINTEXT, BROKER, detail=f"broker: Invalid receive (size = {m.group('size')}): the "
                       "first bytes of a TLS ClientHello at a plaintext listener")


@pattern("broker.rejected_connection", JAVA, "Rejected connection from",
         r"Rejected connection from /?(?P<peer>[0-9A-Fa-f:.]+), address already has the configured maximum of "
         r"(?P<n>\d+) connections",
         "[2026-11-25 10:02:11,410] INFO Rejected connection from /10.0.0.7, address already has the configured maximum "
         "of 100 connections. (kafka.network.ConnectionQuotas)")
def _broker_rejected_connection(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(BROKER_CLOSED, BROKER, detail=f"Rejected connection from /{m.group('peer')}: at the maximum of "
                   f"{m.group('n')} connections")


@pattern("broker.unexpected_handshake", JAVA, "Unexpected handshake request",
         r"Unexpected handshake request with client mechanism (?P<mech>[\w-]+)(?:, enabled mechanisms are "
         r"\[(?P<enabled>[^\]]*)\])?",
         "Unexpected handshake request with client mechanism PLAIN, enabled mechanisms are []")
def _broker_unexpected_handshake(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """ILLEGAL_SASL_STATE to a SaslHandshake: the broker's request handler, not its SASL authenticator, answered it, so
    the listener has no SASL, whether or not the paste kept the (always empty) list after the mechanism."""
    yield Sighting(SASL_MECHANISM, JAVA, mechanism=m.group("mech").upper(),
                   mechanisms=parse_mechanisms(m.group("enabled") or ""))


@pattern("broker.nonroutable", JAVA, "nonroutable meta-address",
         r"advertised\.listeners cannot use the nonroutable meta-address (?P<address>\S+?)\.?(?:\s|$)",
         "java.lang.IllegalArgumentException: requirement failed: advertised.listeners cannot use the nonroutable "
         "meta-address 0.0.0.0. Use a routable IP address.")
def _broker_nonroutable(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NONROUTABLE, JAVA, host=m.group("address").rstrip("."), role=ADVERTISED)

