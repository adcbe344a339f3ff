"""kafkajs's lines: its JSON console logger and the errors it throws.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, CERT_NAME, CERT_UNTRUSTED, CONNECT, CONNECTION_CLOSED, HOST,
                                     KAFKAJS, RESOLVE, SASL_CREDENTIALS, TLS_ON_PLAINTEXT, UNKNOWN, Item, Pattern,
                                     ScanState, Sighting, dns_status, registrar, split_endpoint, tcp_status)
PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# --- kafkajs ----------------------------------------------------------------------------------------
# Captured from kafkajs 2.2.4's default JSON console logger and a console.error of the thrown error
# (tests/clients/kafkajs, tests/fixtures/client_logs/*.kafkajs.log). A "[Connection]" line names the
# endpoint in its "broker" field and not its role; the "[BrokerPool] Failed to connect to seed broker"
# line that follows says it was a bootstrap address, "[Producer] Failed to send messages" a leader the
# metadata named.


@pattern("kafkajs.getaddrinfo", KAFKAJS, "getaddrinfo", rf"getaddrinfo (?P<code>ENOTFOUND|EAI_AGAIN) (?P<host>{HOST})",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.664Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: getaddrinfo ENOTFOUND ip-172-31-18-160.us-west-2.compute.internal","broker":'
         '"ip-172-31-18-160.us-west-2.compute.internal:53395","clientId":"app","stack":"Error: getaddrinfo ENOTFOUND '
         'ip-172-31-18-160.us-west-2.compute.internal\\n    at GetAddrInfoReqWrap.onlookupall [as oncomplete] '
         '(node:dns:122:26)"}')
def _kafkajs_getaddrinfo(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host = m.group("host")
    port = _kafkajs_port(m.string, host) or scan.port_of(host)
    yield Sighting(RESOLVE, KAFKAJS, host, port, role=_kafkajs_role(m.string), status=dns_status(m.group("code")),
                   detail=f"getaddrinfo {m.group('code')} {host}")


@pattern("kafkajs.connect", KAFKAJS, "connect E",
         rf"connect (?P<code>ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH) (?P<addr>{HOST}|[0-9a-fA-F:]+):"
         r"(?P<port>\d{1,5})",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.535Z","logger":"kafkajs","message":"[BrokerPool] Failed '
         'to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED '
         '127.0.0.1:58109","retryCount":0,"retryTime":326}')
def _kafkajs_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    address, port = m.group("addr"), int(m.group("port"))
    named = _kafkajs_broker(m.string)
    if named is not None:
        scan.kafkajs_broker = named
    elif split_endpoint(scan.kafkajs_broker)[1] == port:  # the BrokerPool line repeats the [Connection] line's error
        named = scan.kafkajs_broker
    host, broker_port = split_endpoint(named)
    yield Sighting(CONNECT, KAFKAJS, host or address, broker_port or port, address, role=_kafkajs_role(m.string),
                   status=tcp_status(m.group("code")), detail=m.group(0))


@pattern("kafkajs.connection_timeout", KAFKAJS, "Connection timeout", r"KafkaJSConnectionError: Connection timeout|"
         r"\[(?:Connection|BrokerPool)\] (?:Failed to connect to seed broker[^\"]*: )?Connection timeout(?:\"|$| )",
         '{"level":"ERROR","timestamp":"2026-11-21T17:38:06.991Z","logger":"kafkajs","message":"[Connection] Connection '
         'timeout","broker":"127.0.0.1:50237","clientId":"app"}')
def _kafkajs_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CONNECT, KAFKAJS, host, port, role=_kafkajs_role(m.string), status="timeout",
                   detail="Connection timeout")


# Node's TLS socket when the other side hangs up during the handshake (node's _tls_wrap onConnectEnd, an error
# with code ECONNRESET): most often a plaintext listener that reads the ClientHello as a bogus Kafka request and
# closes (librdkafka: "SSL handshake failed: Disconnected"), but a proxy or a firewall in between that cuts TLS
# ends the same way, so it is a likely reading, not a certainty.
@pattern("kafkajs.tls_disconnected", KAFKAJS, "before secure TLS connection was established",
         r"Client network socket disconnected before secure TLS connection was established",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.981Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: Client network socket disconnected before secure TLS connection was established",'
         '"broker":"127.0.0.1:50033","clientId":"app","stack":"Error: Client network socket disconnected before '
         'secure TLS connection was established\\n    at TLSSocket.onConnectEnd (node:_tls_wrap:1752:19)"}')
def _kafkajs_tls_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(TLS_ON_PLAINTEXT, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group(0),
                   guess="Client network socket disconnected before secure TLS connection was established")


# Node's words for OpenSSL's verify errors (Node 20 writes "self-signed", older ones "self signed").
@pattern("kafkajs.certificate", KAFKAJS, "certificate",
         r"Connection error: (?P<why>self[- ]signed certificate(?: in certificate chain)?|unable to verify the first "
         r"certificate|unable to get local issuer certificate|certificate has expired)",
         '{"level":"ERROR","timestamp":"2026-11-21T17:38:06.067Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: self-signed certificate","broker":"127.0.0.1:38567","clientId":"app","stack":"Error: '
         'self-signed certificate\n    at TLSSocket.onConnectSecure (node:_tls_wrap:1699:34)"}')
def _kafkajs_certificate(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CERT_UNTRUSTED, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group("why"))


# Node's tls.checkServerIdentity; not captured here (the lab's certificate fails as self-signed first).
@pattern("kafkajs.certificate_name", KAFKAJS, "match certificate's altnames",
         r"Hostname/IP (?:does not|doesn't) match certificate's altnames"
         r"(?:: (?:IP|Host): (?P<name>[^\s\"<]+?)\.? is not in the cert)?",
         "KafkaJSConnectionError: Connection error: Hostname/IP does not match certificate's altnames: Host: "
         "b-1.example.kafka.us-east-1.amazonaws.com. is not in the cert's altnames: DNS:*.internal.example")
def _kafkajs_certificate_name(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CERT_NAME, KAFKAJS, m.group("name") or host, port if host == (m.group("name") or host) else None,
                   role=_kafkajs_role(m.string), detail=m.group(0))


# A listener that wants TLS (plaintext bytes end its handshake) and one that wants SASL (a Kafka request
# before authentication) both just close; kafkajs says only this, for either.
@pattern("kafkajs.connection_closed", KAFKAJS, "Closed connection",
         r"KafkaJS\w*: Closed connection|\[BrokerPool\] Closed connection",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.663Z","logger":"kafkajs","message":"[BrokerPool] Closed '
         'connection","retryCount":0,"retryTime":354}')
def _kafkajs_connection_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, KAFKAJS, detail="Closed connection")


@pattern("kafkajs.sasl", KAFKAJS, "authentication failed", r"SASL (?P<mech>[\w-]+) authentication failed: (?P<why>.*?)"
         r"(?:\"|$)",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.872Z","logger":"kafkajs","message":"[SaslAuthenticator-'
         'PLAIN] SASL PLAIN authentication failed: Authentication failed: Invalid username or password","broker":'
         '"127.0.0.1:40341"}')
def _kafkajs_sasl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(_kafkajs_broker(m.string))
    yield Sighting(SASL_CREDENTIALS, KAFKAJS, host, port, mechanism=m.group("mech").upper(), detail=m.group("why"))


_KAFKAJS_BROKER = re.compile(r"\"broker\":\"(?P<hp>[^\"]+)\"|\bbroker=(?P<field>\S+)")  # its JSON, or a logger's
_KAFKAJS_ROLES = (("Failed to connect to seed broker", BOOTSTRAP), ("[Producer] Failed to send messages", ADVERTISED))


def _kafkajs_endpoint(line: str, scan: ScanState) -> tuple[str | None, int | None]:
    """The line's "broker" field; without one (the BrokerPool and Producer lines, the thrown error), that of the
    kafkajs line that named one last: kafkajs logs the connection's own error line just before them."""
    named = _kafkajs_broker(line)
    if named is not None:
        scan.kafkajs_broker = named
    return split_endpoint(named or scan.kafkajs_broker)


def _kafkajs_role(line: str) -> str:
    return next((role for words, role in _KAFKAJS_ROLES if words in line), UNKNOWN)


def _kafkajs_broker(line: str) -> str | None:
    m = _KAFKAJS_BROKER.search(line)
    return (m.group("hp") or m.group("field")) if m else None


def _kafkajs_port(line: str, host: str) -> int | None:
    broker_host, port = split_endpoint(_kafkajs_broker(line))
    return port if broker_host is not None and normalise_host(broker_host) == normalise_host(host) else None
