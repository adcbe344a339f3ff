"""kafkajs's lines: its JSON console logger and the errors it throws.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.clients.versions import gap
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, CERT_NAME, CERT_UNTRUSTED, CONNECT, CONNECTION_CLOSED,
                                     HOST, KAFKAJS, REQUEST_TIMEOUT, RESOLVE, SASL_CREDENTIALS, SASL_MECHANISM,
                                     TLS_ON_PLAINTEXT, UNKNOWN, Item, Pattern, ScanState, Sighting,
                                     client_certificate_symptom, dns_status, registrar, split_endpoint, tcp_status)
from kdiag.explain.tls_readings import handshake_failure_alert, hung_up_in_handshake
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
    if _BROKERS_THREW.search(m.string):
        return
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
    if _BROKERS_THREW.search(m.string):
        return
    address, port = m.group("addr"), int(m.group("port"))
    named = _kafkajs_broker(m.string)
    if named is not None:
        scan.kafkajs_broker = named
    elif split_endpoint(scan.kafkajs_broker)[1] == port:  # the BrokerPool line repeats the [Connection] line's error
        named = scan.kafkajs_broker
    host, broker_port = split_endpoint(named)
    yield Sighting(CONNECT, KAFKAJS, host or address, broker_port or port, address, role=_kafkajs_role(m.string),
                   status=tcp_status(m.group("code")), detail=m.group(0))


# The thrown error carries the same words (KafkaJSConnectionError, or the retrier's KafkaJSNumberOfRetriesExceeded
# and a consumer's "Crash:" around it): the role is then the line's, most often none.
@pattern("kafkajs.connection_timeout", KAFKAJS, "Connection timeout", r"KafkaJS\w+: Connection timeout|"
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
    yield hung_up_in_handshake(Sighting(TLS_ON_PLAINTEXT, KAFKAJS, host, port, role=_kafkajs_role(m.string),
                                        detail=m.group(0)), m.group(0))


# Node's words for OpenSSL's verify errors (Node 20 writes "self-signed", older ones "self signed"; node's
# crypto_common.cc X509_ERROR_CODES, the strings OpenSSL's X509_verify_cert_error_string gives).
@pattern("kafkajs.certificate", KAFKAJS, "certificate",
         r"Connection error: (?P<why>self[- ]signed certificate(?: in certificate chain)?|unable to verify the first "
         r"certificate|unable to get (?:local )?issuer certificate|certificate has expired|certificate is not yet "
         r"valid|certificate signature failure|certificate revoked|invalid CA certificate|unsupported certificate "
         r"purpose|certificate not trusted|certificate rejected)",
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


# Node's socket errors on a connection that was made (connection.js onError): the broker's side reset it, or a write
# met a socket the other side had already closed. The line's "broker" field names the connection, the seed broker
# line its role.
@pattern("kafkajs.reset", KAFKAJS, "Connection error: ", r"Connection error: (?P<what>read ECONNRESET|write EPIPE)\b",
         '{"level":"ERROR","timestamp":"2026-12-07T21:00:00.000Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: read ECONNRESET","broker":"b1.example:9092","clientId":"app"}')
def _kafkajs_reset(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CONNECTION_CLOSED, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group("what"))


# src/broker/saslAuthenticator/{plain,oauthBearer,awsIam}.js: "SASL <MECHANISM> authentication failed: <the broker's
# words>"; scram.js: "SASL SCRAM SHA256 authentication failed: ..." (the digest's name, not the mechanism's).
@pattern("kafkajs.sasl", KAFKAJS, "authentication failed", r"SASL (?P<mech>SCRAM SHA(?:256|512)|[\w-]+) authentication "
         r"failed: (?P<why>.*?)(?:\"|$)",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.872Z","logger":"kafkajs","message":"[SaslAuthenticator-'
         'PLAIN] SASL PLAIN authentication failed: Authentication failed: Invalid username or password","broker":'
         '"127.0.0.1:40341"}')
def _kafkajs_sasl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(_kafkajs_broker(m.string))
    mechanism = m.group("mech").upper().replace("SCRAM SHA", "SCRAM-SHA-")
    if m.group("why").startswith(_SCRAM_CLIENT_CHECKS):
        return  # the client's own check of the server's SCRAM answer failed: not the broker refusing the credentials
    yield Sighting(SASL_CREDENTIALS, KAFKAJS, host, port, mechanism=mechanism, detail=m.group("why"))


# saslAuthenticator/index.js: the SaslHandshake answer's enabled mechanisms lack the client's. Before 2.0 kafkajs also
# said "... is not supported by the client" for a mechanism it has no authenticator for: the client's own settings.
@pattern("kafkajs.sasl_mechanism", KAFKAJS, "mechanism is not supported by the server",
         r"SASL (?P<mech>[\w-]+) mechanism is not supported by the server",
         "KafkaJSSASLAuthenticationError: SASL SCRAM-SHA-256 mechanism is not supported by the server")
def _kafkajs_sasl_mechanism(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(SASL_MECHANISM, KAFKAJS, host, port, role=_kafkajs_role(m.string), mechanism=m.group("mech").upper(),
                   detail=m.group(0))


# network/connection.js raises "Connection closed by the server" only from sendAuthRequest's onError: the broker
# hung up in the middle of a SASL exchange kafkajs sends without SaslAuthenticate (brokers before Kafka 1.0, which
# close the connection on a failed login instead of answering). Likely the credentials, not certainly.
@pattern("kafkajs.closed_during_sasl", KAFKAJS, "Connection closed by the server",
         r"Connection closed by the server",
         "KafkaJSConnectionError: Connection closed by the server")
def _kafkajs_closed_during_sasl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(SASL_CREDENTIALS, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group(0),
                   guess="Connection closed by the server (kafkajs says so only while it authenticates)")


# Node's TLS socket with OpenSSL's own words (connection.js onError: "Connection error: " + e.message): the other side
# answered the ClientHello with bytes that are not TLS, or hung up on it.
@pattern("kafkajs.not_tls", KAFKAJS, "SSL routines",
         r"Connection error: [^\"]*?SSL routines:\w*:(?P<why>wrong version number|packet length too long|unexpected "
         r"eof while reading|record layer failure|http request)",
         "KafkaJSConnectionError: Connection error: C0E7A8D5E57F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong "
         "version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:355:")
def _kafkajs_not_tls(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(TLS_ON_PLAINTEXT, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group("why"))


# OpenSSL's words through Node when the listener answered the handshake with an alert: about the client's
# certificate, as librdkafka's (the same OpenSSL words); "handshake failure" likely one it wants (no shared cipher or
# version says the same).
@pattern("kafkajs.tls_alert", KAFKAJS, "SSL alert number",
         r"Connection error: [^\"]*?SSL routines:\w*:(?:sslv3|tlsv1|tlsv13) alert (?P<alert>bad certificate|"
         r"certificate required|unknown ca|certificate unknown|certificate expired|certificate revoked|unsupported "
         r"certificate|access denied|handshake failure)",
         "KafkaJSConnectionError: Connection error: C0D7:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert "
         "certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 116")
def _kafkajs_tls_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    alert = m.group("alert").replace(" ", "_")
    sighting = Sighting(client_certificate_symptom(alert, scan), KAFKAJS, host, port, role=_kafkajs_role(m.string),
                        detail=alert)
    yield handshake_failure_alert(sighting, scan, m.group(0)) if alert == "handshake_failure" else sighting


# network/requestQueue/socketRequest.js: KafkaJSRequestTimeoutError "Request <Api>(key: N, version: V) timed out". The
# connection was up. Its first request (ApiVersions; SaslHandshake) unanswered is a listener that took the connection
# and does not speak the client's Kafka (a closed connection's readings); a later one most often a request lost on a
# connection that had worked, but a broker slow to answer within kafkajs's requestTimeout (30 s) says the same: likely.
@pattern("kafkajs.request_timeout", KAFKAJS, ") timed out", r"Request (?P<api>\w+)\(key: \d+, version: \d+\) timed out",
         '{"level":"ERROR","timestamp":"2026-12-07T21:00:00.000Z","logger":"kafkajs","message":"[RequestQueue] Request '
         'Metadata(key: 3, version: 6) timed out","broker":"b1.example:9092","clientId":"app","correlationId":3}')
def _kafkajs_request_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    first = m.group("api") in ("ApiVersions", "SaslHandshake")
    detail = f"{m.group('api')} request unanswered; kafkajs gave up on it"
    yield Sighting(CONNECTION_CLOSED if first else REQUEST_TIMEOUT, KAFKAJS, host, port, role=_kafkajs_role(m.string),
                   detail=detail, guess=None if first else m.group(0))


# protocol/requests/index.js lookup(): the broker's ApiVersions answer lacks the request
# (KafkaJSServerDoesNotSupportApiKey); broker/index.js: every ApiVersions version answered UNSUPPORTED_VERSION.
@pattern("kafkajs.api_key", KAFKAJS, "not support", r"The Kafka server does not support the requested API version|"
         r"KafkaJS\w+: API Versions not supported",
         "KafkaJSServerDoesNotSupportApiKey: The Kafka server does not support the requested API version")
def _kafkajs_api_key(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    api = re.search(r"apiName[\"']?\s*[:=]\s*[\"']?(?P<api>\w+)", m.string)
    yield gap(KAFKAJS, api.group("api") if api else "ApiVersions" if "API Versions" in m.group(0) else None,
              m.group(0))


# connectionPoolBuilder.js: 'Failed to connect: "config.brokers" threw: ' + the error of the application's own
# function that lists the brokers (an HTTP call to a discovery service): its address is no Kafka listener's.
_BROKERS_THREW = re.compile(r'config\.brokers\\?" threw')
# scram.js's own checks of the server's messages (a proxy, or a server that is not what it claims to be).
_SCRAM_CLIENT_CHECKS = ("Invalid server signature", "Invalid server nonce", "Requested iterations")
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
