"""What kafka-python and aiokafka say while a connection is being made, read from their sources (kafka-python
2.x ``kafka/conn.py`` and ``kafka/client_async.py``, and 1.4's wording; aiokafka ``client.py`` and ``conn.py``):

- kafka-python's connect attempt that timed out, in the state its connection's name shows (``<connecting>``: the TCP
  connect; ``<handshake>``: a TLS handshake that got no answer, which no finding names; authenticating or the version
  check: a listener that took the connection and answered no Kafka request), and its ``Closing connection. <error>``
  line, which names the connection and repeats the error (``KafkaConnectionError: 111 ECONNREFUSED``, ``Unable to
  determine broker version.``);
- kafka-python 3's (kafka/net) connect errors, with the connection they name: a name that did not resolve, a connect
  timed out or refused, an ApiVersions exchange that got no answer;
- the broker hanging up in the middle of a SASL exchange (``Connection failure during Sasl Authenticate``);
- Python's ssl module meeting a peer that does not speak TLS, or a listener's alert about the client's certificate,
  in either client's connect; asyncio's WinError words for a connect on Windows;
- aiokafka's Metadata request on a bootstrap connection that got no answer, and the brokers it could not update the
  metadata from; kafka-python's ``NodeNotReadyError: Connection failed to 1``;
- and when a connection that was up breaks: kafka-python's ``Error sending request data``, ``Error receiving network
  data closing socket``, and its ``Protocol out of sync`` (bytes it had not asked for: a server that speaks first).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.kafka_python import (ERRNO_NAMES, ERRNO_TCP, SSL_HANG_UP, kafka_net_role,
                                                kafka_python_connection)
from kdiag.explain.sightings import (ADVERTISED, ADVERTISED_DOWN, AIOKAFKA, BOOTSTRAP, CONNECT, CONNECTION_CLOSED,
                                     HOSTPORT, KAFKA_PYTHON, NOT_KAFKA, RESOLVE, SASL_CREDENTIALS, TLS_ON_PLAINTEXT,
                                     UNKNOWN, Fact, Item, Pattern, ScanState, Sighting, client_certificate_symptom,
                                     dns_status, registrar, split_endpoint)
from kdiag.explain.tls_readings import handshake_failure_alert, hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# kafka-python's ConnectionStates, as its connection's name prints them (2.x; 1.4 has no API_VERSIONS states).
_STATE = re.compile(r"<BrokerConnection [^<>]*<(?P<state>connecting|handshake|authenticating|connected|"
                    r"checking_api_versions_\w+)>")
_ADDRESS = re.compile(r"\[IPv[46] \('(?P<addr>[^']+)'")


def _state(line: str) -> str | None:
    m = _STATE.search(line)
    return m.group("state") if m else None


def _address(line: str) -> str | None:
    m = _ADDRESS.search(line)
    return m.group("addr") if m else None


def _timed_out(line: str, words: str) -> Iterator[Item]:
    """kafka-python's connect attempt past request_timeout_ms, by the state it was in."""
    host, port, node_id, role = kafka_python_connection(line)
    state = _state(line)
    if state in (None, "connecting"):
        yield Sighting(CONNECT, KAFKA_PYTHON, host, port, _address(line), node_id, role, status="timeout",
                       detail=words)
    elif state == "handshake":  # the ClientHello got no answer: not a refusal, not a certificate; no finding says it
        return
    else:  # authenticating, or the version check: the listener took the connection and answered no Kafka request
        yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, host, port, node_id=node_id, role=role,
                       detail=f"{words} in state {state}: no answer to the client's first requests")


# 2.x: log.error('%s: Connection attempt timed out', self); 1.4: log.error('Connection attempt to %s timed out', self).
@pattern("kafka_python.connect_timed_out", KAFKA_PYTHON, "Connection attempt ",
         r">: Connection attempt timed out|Connection attempt to <BrokerConnection .*?> timed out",
         "ERROR:kafka.conn:<BrokerConnection client_id=kafka-python-producer-1, node_id=bootstrap-0 "
         "host=b1.example:9092 <connecting> [IPv4 ('192.0.2.10', 9092)]>: Connection attempt timed out")
def _kafka_python_connect_timed_out(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _timed_out(m.string, "Connection attempt timed out")


# 2.x close(): log.log(ERROR, '%s: Closing connection. %s', self, error): the connection's name, then the error.
@pattern("kafka_python.closing_connection", KAFKA_PYTHON, ">: Closing connection. ",
         r">: Closing connection\. KafkaConnectionError: (?:(?P<errno>\d+) (?P<name>E[A-Z]+)|(?P<timeout>timeout)$|"
         r"(?P<version>Unable to determine broker version\.)|(?P<dns>DNS failure)$)",
         "ERROR:kafka.conn:<BrokerConnection client_id=kafka-python-producer-1, node_id=bootstrap-0 "
         "host=b1.example:9092 <connecting> [IPv4 ('192.0.2.10', 9092)]>: Closing connection. KafkaConnectionError: "
         "111 ECONNREFUSED")
def _kafka_python_closing_connection(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    if m.group("timeout"):
        yield from _timed_out(m.string, "Closing connection. KafkaConnectionError: timeout")
    elif m.group("dns"):  # connect(): the name gave no address (the lookup's own line says why)
        yield Sighting(RESOLVE, KAFKA_PYTHON, host, port, node_id=node_id, role=role, status="nxdomain",
                       detail="DNS failure")
    elif m.group("version"):  # every version probe failed or went unanswered (UnrecognizedBrokerVersion follows)
        yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, host, port, node_id=node_id, role=role,
                       detail="no answer to the version check (ApiVersions and the older probes)")
    else:
        status = ERRNO_NAMES.get(m.group("name")) or ERRNO_TCP.get(m.group("errno"))
        if status is not None:
            yield Sighting(CONNECT, KAFKA_PYTHON, host, port, _address(m.string), node_id, role, status=status,
                           detail=m.group(0)[3:])


# 2.x _sasl_authenticate: the connection could not send or got no token back (the broker hung up); its
# _recv_sasl_authenticate/_send_sasl_authenticate log.exception. Brokers before Kafka 1.0 hang up on a failed login.
@pattern("kafka_python.sasl_hung_up", KAFKA_PYTHON, "Connection failure during Sasl Authenticate",
         r"Connection failure during Sasl Authenticate",
         "kafka.errors.KafkaConnectionError: KafkaConnectionError: <BrokerConnection "
         "client_id=kafka-python-producer-1, node_id=bootstrap-0 host=b1.example:9094 <authenticating> "
         "[IPv4 ('192.0.2.10', 9094)]>: Connection failure during Sasl Authenticate")
@pattern("kafka_python.sasl_bytes", KAFKA_PYTHON, "sasl auth bytes",
         r"Error (?:receiving|sending) sasl auth bytes (?:from|to) server",
         "ERROR:kafka.conn:<BrokerConnection client_id=kafka-python-producer-1, node_id=bootstrap-0 "
         "host=b1.example:9094 <authenticating> [IPv4 ('192.0.2.10', 9094)]>: Error receiving sasl auth bytes from "
         "server")
def _kafka_python_sasl_hung_up(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    yield Sighting(SASL_CREDENTIALS, KAFKA_PYTHON, host, port, node_id=node_id, role=role, detail=m.group(0),
                   guess="the broker hung up while the client authenticated")


# client_async.py: check_version's NodeNotReadyError("Connection failed to %s"), _wait_for_ready's
# KafkaConnectionError("Connection to %s failed."): a broker the metadata named, never connected, reason elsewhere.
@pattern("kafka_python.connection_failed_to", KAFKA_PYTHON, "Connection failed to ",
         r"Connection failed to (?P<id>\d+)\b",
         "kafka.errors.NodeNotReadyError: NodeNotReadyError: Connection failed to 1")
@pattern("kafka_python.connection_to_failed", KAFKA_PYTHON, " failed.", r"Connection to (?P<id>\d+) failed\.",
         "kafka.errors.KafkaConnectionError: KafkaConnectionError: Connection to 1 failed.")
def _kafka_python_connection_failed_to(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ADVERTISED_DOWN, KAFKA_PYTHON, node_id=int(m.group("id")), role=ADVERTISED, detail=m.group(0))


# kafka-python 3 (kafka/net/backend/selector.py connect_host, kafka/net/connection.py): the errors its connect raises,
# as "<KafkaConnection node_id=...>: Connection lost: <error>" and "Bootstrap connection to bootstrap-0 failed:
# <error>" (manager.py) print them; "Bootstrap failed: <error>" once the bootstrap gave up.
_NET_ERRORS = re.compile(rf"(?:KafkaConnectionError|KafkaTimeoutError): (?:DNS lookup failed for (?P<hp>{HOSTPORT})|"
                         r"(?P<timeout>Connection timed out)|unable to connect: \[Errno (?P<errno>\d+)\]|"
                         r"(?P<versions>Timeout during ApiVersions check))")


@pattern("kafka_python.net_errors", KAFKA_PYTHON, "Error: ", _NET_ERRORS.pattern,
         "WARNING:kafka.net.manager:Bootstrap connection to bootstrap-0 failed: KafkaConnectionError: Connection timed "
         "out (backoff 0.05 secs)")
def _kafka_python_net_errors(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    node_id, role = kafka_net_role(m.string)
    if role == UNKNOWN and "Bootstrap failed: " in m.string:
        role = BOOTSTRAP
    if role == UNKNOWN:  # not kafka-python 3's words about one of its connections
        return
    if m.group("hp"):
        host, port = split_endpoint(m.group("hp"))
        yield Sighting(RESOLVE, KAFKA_PYTHON, host, port, node_id=node_id, role=role,
                       status=dns_status(m.string, "nxdomain"), detail=m.group(0)[:200])
    elif m.group("versions"):  # connected, and its first request went unanswered
        yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, node_id=node_id, role=role, detail=m.group(0))
    else:
        status = "timeout" if m.group("timeout") else ERRNO_TCP.get(m.group("errno"))
        if status is not None:
            yield Sighting(CONNECT, KAFKA_PYTHON, node_id=node_id, role=role, status=status, detail=m.group(0))


# Python's ssl module when the answer to its ClientHello is not TLS (a plaintext listener hanging up on it, a server
# that speaks something else): its reason codes. kafka-python 2.x raises them to the user as they are (conn.py
# _try_handshake: "Other SSLErrors will be raised to user"), so the bare traceback line is its. Python before 3.10
# words the hang-up "EOF occurred in violation of protocol", which a connection can meet later too: read only in a
# connect's words.
_NOT_TLS = re.compile(r"\[SSL: (?P<code>WRONG_VERSION_NUMBER|RECORD_LAYER_FAILURE|HTTP_REQUEST|PACKET_LENGTH_TOO_LONG|"
                      r"UNEXPECTED_EOF_WHILE_READING)\]|(?P<eof>EOF occurred in violation of protocol)")
_CONNECTING = re.compile(rf"Unable connect to (?:\"(?P<hp>{HOSTPORT})\"|node with id (?P<id>-?\d+))|<handshake>")


@pattern("python.not_tls", KAFKA_PYTHON, "SSL", _NOT_TLS.pattern,
         "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: WRONG_VERSION_NUMBER] wrong version number "
         "(_ssl.c:1006)")
def _python_not_tls(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    hang_up = m.group("eof") or m.group("code") == SSL_HANG_UP  # no byte came back: likely
    if _CONNECTING.search(m.string) is None and hang_up:
        return
    client, host, port, node_id, role = _python_connection(m.string)
    sighting = Sighting(TLS_ON_PLAINTEXT, client, host, port, node_id=node_id, role=role, detail=m.group(0))
    yield hung_up_in_handshake(sighting, m.group(0)) if hang_up else sighting


def _python_connection(line: str) -> tuple[str, str | None, int | None, int | None, str]:
    """The client, host, port, node id and role of the connection a Python client's line is about."""
    connecting = _CONNECTING.search(line)
    if connecting is not None and connecting.group(0) != "<handshake>":
        host, port = split_endpoint(connecting.group("hp")) if connecting.group("hp") else (None, None)
        node_id = int(connecting.group("id")) if connecting.group("id") else None
        return AIOKAFKA, host, port, node_id, BOOTSTRAP if host else ADVERTISED
    return (KAFKA_PYTHON, *kafka_python_connection(line))


# Python's ssl when the listener answered the handshake with an alert (OpenSSL's reason codes): about the client's
# certificate, as librdkafka's and Go's alerts; "handshake failure" likely one it wants (no shared cipher or version
# says the same).
_ALERT = re.compile(r"\[SSL: (?:SSLV3|TLSV1|TLSV13)_ALERT_(?P<alert>BAD_CERTIFICATE|CERTIFICATE_REQUIRED|UNKNOWN_CA|"
                    r"CERTIFICATE_UNKNOWN|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|UNSUPPORTED_CERTIFICATE|"
                    r"ACCESS_DENIED|HANDSHAKE_FAILURE)\]")


@pattern("python.tls_alert", KAFKA_PYTHON, "_ALERT_", _ALERT.pattern,
         "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert "
         "certificate required (_ssl.c:2633)")
def _python_tls_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    client, host, port, node_id, role = _python_connection(m.string)
    alert = m.group("alert").lower()
    sighting = Sighting(client_certificate_symptom(alert, scan), client, host, port, node_id=node_id, role=role,
                        detail=alert)
    yield handshake_failure_alert(sighting, scan, m.group(0)) if alert == "handshake_failure" else sighting


# kafka-python 2: the TLS handshake's other side hung up at once, as a plaintext listener does with a ClientHello.
@pattern("kafka_python.ssl_closed_during_handshake", KAFKA_PYTHON, "SSL connection closed by server during handshake",
         r"SSL connection closed by server during handshake", "WARNING:kafka.conn:SSL connection closed by server "
         "during handshake.")
def _kafka_python_ssl_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield hung_up_in_handshake(Sighting(TLS_ON_PLAINTEXT, KAFKA_PYTHON, detail=m.group(0)), m.group(0))


# conn.py send/recv: log.exception("%s: Error sending request data" (1.4: "Error sending request data to %s"),
# '%s: Error receiving network data closing socket': the socket broke under a connection that was up (the error
# is on the traceback's last line; a broken pipe there says the other side had closed first).
@pattern("kafka_python.sending_data", KAFKA_PYTHON, "Error sending request data", r"Error sending request data",
         "ERROR:kafka.conn:<BrokerConnection client_id=kafka-python-producer-1, node_id=1 host=b1.example:9092 "
         "<connected> [IPv4 ('192.0.2.10', 9092)]>: Error sending request data")
@pattern("kafka_python.receiving_data", KAFKA_PYTHON, "Error receiving network data",
         r"Error receiving network data closing socket",
         "ERROR:kafka.conn:<BrokerConnection client_id=kafka-python-producer-1, node_id=1 host=b1.example:9092 "
         "<connected> [IPv4 ('192.0.2.10', 9092)]>: Error receiving network data closing socket")
def _kafka_python_network_data(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, host, port, node_id=node_id, role=role, detail=m.group(0))


# client_async.py: bytes arrived on a connection with no request in flight (a 1-byte read found data): Kafka never
# speaks first, a server that greets its clients does (SSH, SMTP, a database, a proxy's error page).
@pattern("kafka_python.out_of_sync", KAFKA_PYTHON, "Protocol out of sync on", r"Protocol out of sync on .*?, closing",
         "WARNING:kafka.client:Protocol out of sync on <kafka.conn.BrokerConnection object at 0x7f3a2c1b5d30>, closing")
def _kafka_python_out_of_sync(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NOT_KAFKA, KAFKA_PYTHON, detail="data arrived that the client had not asked for",
                   guess="Protocol out of sync (the other side spoke first, which a Kafka broker never does)")


# asyncio's connect on Windows (the Proactor loop) words its errors as WinError: aiokafka passes them on.
_WINERROR_TCP = {"1225": "refused", "10061": "refused", "121": "timeout", "10060": "timeout", "1231": "unreachable",
                 "10065": "unreachable", "10051": "unreachable"}


@pattern("aiokafka.winerror", AIOKAFKA, "[WinError ",
         rf"Unable connect to (?:\"(?P<hp>{HOSTPORT})\"|node with id (?P<id>\d+)): \[WinError (?P<n>\d+)\]",
         "ERROR:aiokafka:Unable connect to \"b1.example:9092\": [WinError 1225] The remote computer refused the "
         "network connection")
def _aiokafka_winerror(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    status = _WINERROR_TCP.get(m.group("n"))
    if status is None:
        return
    if m.group("hp"):
        host, port = split_endpoint(m.group("hp"))
        yield Sighting(CONNECT, AIOKAFKA, host, port, role=BOOTSTRAP, status=status, detail=m.group(0))
    else:
        yield Sighting(CONNECT, AIOKAFKA, node_id=int(m.group("id")), role=ADVERTISED, status=status,
                       detail=m.group(0))


# aiokafka client.bootstrap(): the connection was made, its Metadata request failed: a timeout (RequestTimedOutError,
# or asyncio's TimeoutError, whose words are empty) or the broker closing it: the bootstrap listener answered no
# Kafka request (a TLS or SASL listener met in plaintext, a port that is not Kafka's). Not an idle close: it is
# the connection's first request.
@pattern("aiokafka.bootstrap_metadata", AIOKAFKA, "Unable to request metadata from",
         rf"Unable to request metadata from \"(?P<hp>{HOSTPORT})\": ?(?P<why>.*)",
         "WARNING:aiokafka:Unable to request metadata from \"b1.example:9093\": RequestTimedOutError")
def _aiokafka_bootstrap_metadata(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact(BOOTSTRAP, host, port)
    why = m.group("why").strip()
    if not why or "RequestTimedOutError" in why or re.search(r"Connection at \S+ (?:closed|broken)", why):
        yield Sighting(CONNECTION_CLOSED, AIOKAFKA, host, port, role=BOOTSTRAP,
                       detail=f"the bootstrap connection's first Metadata request: {why or 'timed out'}"[:200])


# aiokafka client._metadata_update: no broker of those the metadata named answered its Metadata request.
@pattern("aiokafka.metadata_update", AIOKAFKA, "Unable to update metadata from",
         r"Unable to update metadata from \[(?P<ids>[\d, ]+)\]", "ERROR:aiokafka:Unable to update metadata from [1, 2]")
def _aiokafka_metadata_update(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for node_id in re.findall(r"\d+", m.group("ids")):
        yield Sighting(ADVERTISED_DOWN, AIOKAFKA, node_id=int(node_id), role=ADVERTISED, detail=m.group(0))
