"""The Python clients' lines: kafka-python (its logger ``kafka.conn``, its ``kafka.errors``) and aiokafka, and the
socket errors both pass on from Python (``[Errno 111] Connection refused``, ``[Errno -2] Name or service not
known``). Written from the clients' sources and the lines users paste; no lab situation produces them yet.

kafka-python names a connection ``<BrokerConnection node_id=bootstrap-0 host=h:9092 ...>``: ``bootstrap-N`` is a
bootstrap address, a number an advertised broker. aiokafka says ``Unable connect to "h:9092"`` while it
bootstraps and ``Unable connect to node with id 1`` for a broker from the metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (ADVERTISED, ADVERTISED_DOWN, AIOKAFKA, ALL_DOWN, BOOTSTRAP,
                                     BOOTSTRAP_DISCONNECTED, CONNECT, CONNECTION_CLOSED, COORDINATOR, HOST, HOSTPORT,
                                     KAFKA_PYTHON, NOT_IN_METADATA, NO_LEADER, REQUEST_TIMEOUT, RESOLVE,
                                     SASL_CREDENTIALS, SASL_MECHANISM, TLS_ON_PLAINTEXT, TOPIC_MISSING, UNKNOWN, Fact,
                                     Item, Pattern, ScanState, Sighting, dns_status, registrar, split_endpoint,
                                     tcp_status)
from kdiag.explain.tls_readings import hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# errno as Python prints it (Linux, macOS, Windows), for a connect that failed.
ERRNO_TCP = {"111": "refused", "61": "refused", "10061": "refused", "110": "timeout", "60": "timeout",
              "10060": "timeout", "113": "unreachable", "65": "unreachable", "101": "unreachable",
              "51": "unreachable"}
ERRNO_NAMES = {"ECONNREFUSED": "refused", "ETIMEDOUT": "timeout", "EHOSTUNREACH": "unreachable",
               "ENETUNREACH": "unreachable"}  # the same, by the errno's name (kafka-python 2.x and 3 print both)
# kafka-python's BrokerConnection.__repr__: "node_id=%s host=%s:%d" since 1.4, "node_id=%s host=%s/%s port=%d" (the
# name given, the address it resolved to, the port) in 1.3.
_CONNECTION = re.compile(rf"<BrokerConnection (?:client_id=[^,]*, )?node_id=(?P<id>[\w-]+) "
                         rf"host=(?:(?P<hp>{HOSTPORT}|:\d{{1,5}})|(?P<name>{HOST})/\S+ port=(?P<port>\d{{1,5}}))")


def _host_port(text: str) -> tuple[str | None, int | None]:
    """``h:9092``, or ``:9092``: a broker the metadata gave with no host (``("", 9092)``), which no lookup resolves."""
    if text.startswith(":") and text[1:].isdigit():
        return "", int(text[1:])
    return split_endpoint(text)


def kafka_python_connection(line: str) -> tuple[str | None, int | None, int | None, str]:
    """host, port, node id and role of the kafka-python connection a line names."""
    m = _CONNECTION.search(line)
    if m is None:
        return None, None, None, UNKNOWN
    host, port = _host_port(m.group("hp")) if m.group("hp") else (m.group("name"), int(m.group("port")))
    ident = m.group("id")
    if ident.isdigit():
        return host, port, int(ident), ADVERTISED
    if ident.startswith("coordinator-") and ident[12:].isdigit():  # 2.x cluster.py: a group coordinator's connection
        return host, port, int(ident[12:]), COORDINATOR
    return host, port, None, BOOTSTRAP if ident.startswith("bootstrap") else UNKNOWN


# --- kafka-python ----------------------------------------------------------------------------------


@pattern("kafka_python.no_brokers", KAFKA_PYTHON, "NoBrokersAvailable", r"NoBrokersAvailable",
         "kafka.errors.NoBrokersAvailable: NoBrokersAvailable")
def _kafka_python_no_brokers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, KAFKA_PYTHON, detail="NoBrokersAvailable")


@pattern("kafka_python.dns_lookup", KAFKA_PYTHON, "DNS lookup failed for ",
         rf"DNS lookup failed for (?P<hp>{HOSTPORT}|:\d{{1,5}})(?:.*?exception was (?P<why>.*?)(?:\. Is your|$))?",
         "ERROR:kafka.conn:DNS lookup failed for kafka:9092, exception was [Errno -2] Name or service not known. "
         "Is your advertised.listeners (called advertised.host.name before Kafka 9) correct and resolvable?")
def _kafka_python_dns_lookup(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """kafka-python says this for a bootstrap address and an advertised one alike; its hint is its guess."""
    host, port = _host_port(m.group("hp"))
    _, _, node_id, role = kafka_python_connection(m.string)
    yield Sighting(RESOLVE, KAFKA_PYTHON, host, port, node_id=node_id, role=role,
                   status=dns_status(m.group("why"), "nxdomain"), detail=m.group(0)[:200])


@pattern("kafka_python.connect_attempt", KAFKA_PYTHON, "returned error",
         r"(?:[Cc]onnect attempt (?:to .*?)?returned error (?P<errno>\d+))",
         "ERROR:kafka.conn:Connect attempt to <BrokerConnection node_id=bootstrap-0 host=localhost:9092 <connecting> "
         "[IPv4 ('127.0.0.1', 9092)]> returned error 111. Disconnecting.")
def _kafka_python_connect_attempt(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    address = re.search(r"\[IPv[46] \('(?P<addr>[^']+)'", m.string)
    ip = address.group("addr") if address else None
    status = ERRNO_TCP.get(m.group("errno"))
    if status is None:  # another errno (Windows' WSAEWOULDBLOCK 10035: a kafka-python bug, not the network)
        return
    if host is None:  # kafka-python before 1.0: <BrokerConnection host=h port=9092>, host=h/address once resolved
        old = re.search(rf"<BrokerConnection host=(?P<host>{HOST})(?:/(?P<ip>[0-9A-Fa-f:.]+))? port=(?P<port>\d{{1,5}})>",
                        m.string)
        host, port, ip = (old.group("host"), int(old.group("port")), old.group("ip")) if old else (None, None, ip)
    yield Sighting(CONNECT, KAFKA_PYTHON, host, port, ip, node_id, role, status=status,
                   detail=f"connect attempt returned error {m.group('errno')}")


@pattern("kafka_python.connection_fact", KAFKA_PYTHON, "<BrokerConnection ", _CONNECTION.pattern,
         "INFO:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=10.8.0.3:9092 <connecting> "
         "[IPv4 ('10.8.0.3', 9092)]>: connecting to 10.8.0.3:9092 [('10.8.0.3', 9092) IPv4]")
def _kafka_python_connection_fact(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    if role == BOOTSTRAP:
        yield Fact(BOOTSTRAP, host, port)
    elif node_id is not None:
        yield Fact("broker", host, port, node_id)


@pattern("kafka_python.metadata_timeout", KAFKA_PYTHON, "Failed to update metadata after",
         # (an IPython or a Python 3.11+ traceback stops at the raising source line: "... after %.1f secs." % max_wait)
         r"Failed to update metadata after (?P<s>[\d.]+|%\.?\d*[fds]) secs",
         "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Failed to update metadata after 60.0 secs.")
def _kafka_python_metadata_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NOT_IN_METADATA, KAFKA_PYTHON, detail=m.group(0))


@pattern("python.sasl_mechanism", KAFKA_PYTHON, "UnsupportedSaslMechanismError",
         r"UnsupportedSaslMechanismError(?:.*?does not support (?P<mech>\S+) sasl mechanism)?"
         r"(?:.*?Enabled mechanisms are: \[(?P<enabled>[^\]]*)\])?",
         "kafka.errors.UnsupportedSaslMechanismError: [Error 33] UnsupportedSaslMechanismError: Kafka broker does "
         "not support PLAIN sasl mechanism. Enabled mechanisms are: ['SCRAM-SHA-512']")
def _python_sasl_mechanism(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    enabled = m.group("enabled")
    yield Sighting(SASL_MECHANISM, KAFKA_PYTHON, mechanism=m.group("mech").upper() if m.group("mech") else None,
                   mechanisms=tuple(x.strip(" '\"") for x in enabled.split(",") if x.strip()) if enabled else None,
                   detail="UnsupportedSaslMechanismError")


@pattern("python.sasl_failed", KAFKA_PYTHON, "AuthenticationFailedError",
         r"\b(?:Sasl)?AuthenticationFailedError\b", "kafka.errors.AuthenticationFailedError: AuthenticationFailedError: "
         "Authentication failed for user alice")
def _python_sasl_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, KAFKA_PYTHON, detail=m.group(0))


# --- aiokafka --------------------------------------------------------------------------------------


@pattern("aiokafka.unable_connect", AIOKAFKA, "Unable connect to ",
         rf"Unable connect to (?:\"(?P<hp>{HOSTPORT})\"|node with id (?P<id>-?\d+)): (?P<why>.*)",
         "Unable connect to \"localhost:9092\": [Errno 111] Connect call failed ('127.0.0.1', 9092)")
def _aiokafka_unable_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    why = m.group("why")
    tried = re.search(r"Connect call failed \('(?P<addr>[^']+)', (?P<port>\d+)", why)
    if m.group("hp"):
        host, port = split_endpoint(m.group("hp"))
        node_id, role = None, BOOTSTRAP
        yield Fact(BOOTSTRAP, host, port)
    else:
        node_id, role = int(m.group("id")), ADVERTISED
        host = tried.group("addr") if tried else None
        port = int(tried.group("port")) if tried else None
    if not why.strip():  # an error without words (asyncio's TimeoutError, a handshake cut off): no refusal, no DNS
        symptom = BOOTSTRAP_DISCONNECTED if role == BOOTSTRAP else ADVERTISED_DOWN
        yield Sighting(symptom, AIOKAFKA, host, port, node_id=node_id, role=role, detail=m.group(0).strip()[:200])
        return
    yield from _python_socket_error(AIOKAFKA, why, host, port, node_id, role, tried.group("addr") if tried else None)


@pattern("aiokafka.bootstrap", AIOKAFKA, "Unable to bootstrap from",
         r"Unable to bootstrap from \[(?P<list>.*?)\]",
         "aiokafka.errors.KafkaConnectionError: KafkaConnectionError: Unable to bootstrap from "
         "[('localhost', 9092, <AddressFamily.AF_UNSPEC: 0>)]")
def _aiokafka_bootstrap(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for host, port in re.findall(rf"\('({HOST})', (\d+)", m.group("list")):
        yield Fact(BOOTSTRAP, host, int(port))
    yield Sighting(ALL_DOWN, AIOKAFKA, detail="Unable to bootstrap")


def _python_socket_error(client: str, why: str, host: str | None, port: int | None, node_id: int | None,
                         role: str, address: str | None) -> Iterator[Item]:
    """A Python socket error about one connection: a name that does not resolve, or a connect that failed."""
    errno = re.search(r"\[Errno (?P<n>-?\d+)\]", why)
    number = errno.group("n") if errno else ""
    if number in ("-2", "-3", "-5", "8", "11001", "11004") or "Name or service not known" in why:
        yield Sighting(RESOLVE, client, host, port, node_id=node_id, role=role, status=dns_status(why, "nxdomain"),
                       detail=why[:200])
    elif number in ERRNO_TCP or "Connect call failed" in why:
        status = ERRNO_TCP.get(number) or tcp_status(why)
        yield Sighting(CONNECT, client, host, port, address, node_id, role,
                       status=status if status != "error" else "refused", detail=why[:200])


# --- both: a broker from the metadata, and the client never reached it ------------------------------


@pattern("python.no_connection_to_node", KAFKA_PYTHON, "o connection to node with id",
         r"[Nn]o connection to node with id (?P<id>-?\d+)", "ConnectionError: No connection to node with id 1001")
def _python_no_connection_to_node(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ADVERTISED_DOWN, KAFKA_PYTHON, node_id=int(m.group("id")), role=ADVERTISED,
                   detail=m.group(0))


@pattern("aiokafka.initiating", AIOKAFKA, "Initiating connection to node ",
         rf"Initiating connection to node (?P<id>-?\d+) at (?P<hp>{HOSTPORT})",
         "DEBUG [aiokafka] Initiating connection to node 1001 at 127.0.0.1:9092")
def _aiokafka_initiating(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


@pattern("python.connection_closed", KAFKA_PYTHON, "Connection at ", rf"Connection at (?P<hp>{HOSTPORT}) (?:closed|broken)",
         "aiokafka.errors.KafkaConnectionError: Connection at localhost:9092 closed")
def _python_connection_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, host, port, detail=m.group(0))


@pattern("kafka_python.socket_disconnected", KAFKA_PYTHON, "socket disconnected", r">: socket disconnected",
         "ERROR: <BrokerConnection node_id=bootstrap-1 host=b-1.example:9094 <connected> [IPv4 ('172.16.39.169', "
         "9094)]>: socket disconnected")
def _kafka_python_socket_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, host, port, node_id=node_id, role=role,
                   detail="socket disconnected")


# kafka-python's request timeout (2.x kafka/conn.py: "%s timed out after %s ms. Closing connection."; 3.x
# kafka/net/connection.py: "%s: Request timed out after %d ms. Closing connection."): the connection was up and a
# request got no answer, so the client closed it. On a bootstrap connection nothing was answered yet: the
# listener took the connection and never answered a Kafka request (a TLS listener, a process that does not
# read): the closed connection's readings. On a broker's connection it is a request lost on an established
# connection, as librdkafka's request timeouts are.
@pattern("kafka_python.request_timeout", KAFKA_PYTHON, "ms. Closing connection",
         r"(?:Request )?timed out after (?P<ms>[\d.]+) ms\. Closing connection",
         "WARNING:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=10.0.0.5:9093 <connected> [IPv4 "
         "('10.0.0.5', 9093)]> timed out after 30000 ms. Closing connection.")
def _kafka_python_request_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    if host is None:
        node_id, role = kafka_net_role(m.string)
    detail = f"a request unanswered for {float(m.group('ms')):.0f} ms; the client closed the connection"
    kind = CONNECTION_CLOSED if role == BOOTSTRAP else REQUEST_TIMEOUT
    yield Sighting(kind, KAFKA_PYTHON, host, port, node_id=node_id, role=role, detail=detail)


@pattern("kafka_python.node_failed", KAFKA_PYTHON, "connection failed -- refreshing metadata",
         r"Node (?P<id>-?\d+) connection failed -- refreshing metadata",
         "WARNING:kafka.client:Node 1 connection failed -- refreshing metadata")
def _kafka_python_node_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ADVERTISED_DOWN, KAFKA_PYTHON, node_id=int(m.group("id")), role=ADVERTISED, detail=m.group(0))


@pattern("python.node_not_ready", KAFKA_PYTHON, "NodeNotReadyError",
         r"NodeNotReadyError.*?\(node id (?P<id>-?\d+)\)", "NodeNotReadyError: Attempt to send a request to node "
         "which is not ready (node id 1001).")
def _python_node_not_ready(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ADVERTISED_DOWN, KAFKA_PYTHON, node_id=int(m.group("id")), role=ADVERTISED, detail=m.group(0)[:120])


# --- kafka-python 3 (kafka.net): "<KafkaConnection node_id=bootstrap-0 ...>: Connection lost: KafkaConnectionError:
# 111 ECONNREFUSED", "Bootstrap connection to bootstrap-0 failed: KafkaConnectionError: socket disconnected" ----------

_KAFKA_NET = re.compile(r"(?:<KafkaConnection node_id=(?P<id>[\w-]+)|Bootstrap connection to (?P<boot>bootstrap-\d+))")


def kafka_net_role(line: str) -> tuple[int | None, str]:
    m = _KAFKA_NET.search(line)
    if m is None:
        return None, UNKNOWN
    ident = m.group("boot") or m.group("id")
    return (int(ident), ADVERTISED) if ident.isdigit() else (None, BOOTSTRAP if ident.startswith("bootstrap") else UNKNOWN)


@pattern("kafka_python.connection_error", KAFKA_PYTHON, "KafkaConnectionError: ",
         r"KafkaConnectionError: (?:(?P<errno>\d+) (?P<name>E[A-Z]+)|(?P<closed>socket disconnected|Connection reset)|"
         r"Handshake failed: \[SSL: (?P<ssl>[A-Z_]+)\])",
         "ERROR:kafka.net.connection:<KafkaConnection node_id=bootstrap-0 broker_version=unknown (disconnected)>: "
         "Connection lost: KafkaConnectionError: 111 ECONNREFUSED")
def _kafka_python_connection_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    node_id, role = kafka_net_role(m.string)
    if m.group("name"):
        status = ERRNO_NAMES.get(m.group("name"))
        if status is not None:
            yield Sighting(CONNECT, KAFKA_PYTHON, node_id=node_id, role=role, status=status, detail=m.group(0))
    elif m.group("closed"):
        yield Sighting(CONNECTION_CLOSED, KAFKA_PYTHON, node_id=node_id, role=role, detail=m.group("closed"))
    elif m.group("ssl") in _SSL_NOT_TLS:  # the TLS handshake met a peer that does not speak TLS
        sighting = Sighting(TLS_ON_PLAINTEXT, KAFKA_PYTHON, node_id=node_id, role=role, detail=m.group(0))
        yield hung_up_in_handshake(sighting, m.group(0)) if m.group("ssl") == SSL_HANG_UP else sighting


# Python's ssl module when the other side is not TLS: bytes that are not TLS, or (UNEXPECTED_EOF_WHILE_READING) a
# hang-up on the ClientHello, which a plaintext listener does and a proxy or broker turning connections away too.
_SSL_NOT_TLS = ("UNEXPECTED_EOF_WHILE_READING", "WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "HTTP_REQUEST")
SSL_HANG_UP = "UNEXPECTED_EOF_WHILE_READING"
"""Python's ssl reason when the other side closed during the handshake and sent nothing (python_connecting too)."""


# The Python clients' DEBUG dump of a Metadata answer: the brokers it lists, a topic's error (3: it does not
# exist) and a partition's (5: no leader), as the protocol's numbers.
@pattern("python.metadata_response", KAFKA_PYTHON, "MetadataResponse", r"MetadataResponse\w*\((?P<body>.*)",
         "DEBUG [aiokafka.conn]: <AIOKafkaConnection host=kafka port=9092> Response 39: MetadataResponse(brokers="
         "[(node_id=1002, host='kafka', port=9092)], topics=[(error_code=0, topic='t', partitions=[(error_code=5, "
         "partition=0, leader=-1, replicas=[1002], isr=[])])])")
def _python_metadata_response(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    body = m.group("body")
    for node_id, host, port in re.findall(r"\(node_id=(-?\d+), host='([^']+)', port=(\d+)", body):
        yield Fact("broker", host, int(port), int(node_id))
    for error, topic, partitions in re.findall(r"\(error_code=(\d+), topic='([^']+)', (?:is_internal=\w+, )?"
                                               r"partitions=\[(.*?)\]\)", body):
        if error == "3":
            yield Sighting(TOPIC_MISSING, KAFKA_PYTHON, topic=topic, detail="UNKNOWN_TOPIC_OR_PARTITION (error_code=3)")
        elif "error_code=5" in partitions:
            yield Sighting(NO_LEADER, KAFKA_PYTHON, topic=topic, detail="LEADER_NOT_AVAILABLE")


@pattern("python.topic_not_in_metadata", KAFKA_PYTHON, "not found in cluster metadata",
         r"Topic (?P<topic>[A-Za-z0-9._-]+) not found in cluster metadata",
         "ERROR:kafka.cluster:Topic missing-topic not found in cluster metadata")
def _python_topic_not_in_metadata(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TOPIC_MISSING, KAFKA_PYTHON, topic=m.group("topic"), detail=m.group(0))


@pattern("python.sasl_plain", KAFKA_PYTHON, "Sending username and password in the clear",
         r"Sending username and password in the clear", "WARNING:aiokafka.conn:Sending username and password in the clear")
def _python_sasl_plain(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("sasl")


# kafka-python 2: the broker hangs up while the client authenticates (SASL PLAIN, the credentials refused).
@pattern("kafka_python.authenticating_reset", KAFKA_PYTHON, "<authenticating>",
         r"<authenticating>.*>: Error receiving reply from server",
         "ERROR:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=127.0.0.1:59855 <authenticating> [IPv4 "
         "('127.0.0.1', 59855)]>: Error receiving reply from server")
def _kafka_python_authenticating_reset(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port, node_id, role = kafka_python_connection(m.string)
    yield Sighting(SASL_CREDENTIALS, KAFKA_PYTHON, host, port, node_id=node_id, role=role, detail=m.group(0)[-60:],
                   guess="the broker hung up while the client authenticated")


# Python's resolver error as a traceback ends it (kafka-python before 1.4 let getaddrinfo's error out of
# kafka/conn.py; a wrapper that re-raises it): socket.gaierror with the resolver's errno (-2 NXDOMAIN, -3 a
# temporary failure, -5 no address, 8 macOS, 11001/11004 Windows). It names no host: the name is the bootstrap's
# or one the metadata gave, which the bootstrap list decides (an IP literal never fails to resolve).
@pattern("python.gaierror", KAFKA_PYTHON, "gaierror", r"\bgaierror: \[Errno (?P<n>-?\d+)\] (?P<why>.+)",
         "socket.gaierror: [Errno -2] Name or service not known")
def _python_gaierror(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _python_socket_error(KAFKA_PYTHON, m.group(0), None, None, None, UNKNOWN, None)


# The same resolver error without its exception's name: asyncio and aiokafka re-raise it as OSError, a wrapper logs
# only str(exc), Windows says "getaddrinfo failed". A host named in the same line (a family's own pattern) wins.
@pattern("python.resolver_errno", KAFKA_PYTHON, "[Errno ",
         r"\[Errno (?P<n>-2|-3|-5|8|11001|11004)\] (?:Name or service not known|Temporary failure in name resolution|"
         r"No address associated with hostname|nodename nor servname provided, or not known|getaddrinfo failed|"
         r"No such host is known)", "OSError: [Errno -2] Name or service not known")
def _python_resolver_errno(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _python_socket_error(KAFKA_PYTHON, m.group(0), None, None, None, UNKNOWN, None)
