"""What a client log line can say, and what every client family's patterns share.

A line reports ``Sighting``s (a failure, with the endpoint, role, status and words the line holds) and
``Fact``s (a bootstrap address, an advertised broker, a topic the line reveals). A ``Pattern`` is one
recognised line: its client family, a literal ``needle`` every matching line contains, its regex and
the handler that turns a match into sightings and facts; ``registrar`` gives a family's module its
``@pattern`` decorator. Here too: the regex pieces and parsers several families use, and ``ScanState``,
the little a log's earlier lines leave for the next ones (the Java connection a stack trace belongs to).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from kdiag.diagnose.facts import parse_endpoint
from kdiag.diagnose.hosts import normalise_host

# --- what a line can say ------------------------------------------------------------------------

# Causes: each names why the client failed.
RESOLVE = "resolve"  # a host name does not resolve (status: nxdomain | no_answer | servfail | timeout | error)
CONNECT = "connect"  # a TCP connect failed (status: refused | timeout | unreachable)
PLAINTEXT_ON_TLS = "plaintext_on_tls"  # a plaintext client on a TLS listener
TLS_ON_PLAINTEXT = "tls_on_plaintext"  # a TLS client on a plaintext listener
CERT_UNTRUSTED = "cert_untrusted"  # the broker's chain does not verify (librdkafka: or its name does not match)
CERT_NAME = "cert_name"  # the name connected to is not in the broker's certificate
CLIENT_CERT_MISSING = "client_cert_missing"  # the listener wants a client certificate and got none (detail: alert)
CLIENT_CERT_REFUSED = "client_cert_refused"  # the listener does not accept the client's certificate (detail: alert)
TLS_FAILED = "tls_failed"  # a TLS handshake failed, reason not in the line
SASL_NEEDED = "sasl_needed"  # the listener wants SASL, the client sends none
SASL_MECHANISM = "sasl_mechanism"  # the client's mechanism is not enabled on the listener
SASL_CREDENTIALS = "sasl_credentials"  # the broker rejected the credentials
KERBEROS_PRINCIPAL = "kerberos_principal"  # the KDC does not know the service principal asked for (detail: it)
TOPIC_MISSING = "topic_missing"
TOPIC_DENIED = "topic_denied"
NO_LEADER = "no_leader"  # detail: LEADER_NOT_AVAILABLE | LISTENER_NOT_FOUND
NOT_KAFKA = "not_kafka"  # the port answered with something else (detail: what)
NONROUTABLE = "nonroutable"  # the broker refused to advertise 0.0.0.0
BROKER_CLOSED = "broker_closed"  # the broker says it turned a connection away (detail: its words)
REQUEST_TIMEOUT = "request_timeout"  # a request on a connection that was up got no answer (detail: the request)
VERSION_GAP = "version_gap"  # the client and the broker share no version of a request (detail: "API: the words")
TOO_LARGE = "too_large"  # a record, batch or fetch over a size limit, not the path (detail: which limit)

# Consequences: the client failed, and the line does not say why.
MESSAGE_TIMEOUT = "message_timeout"  # librdkafka: Local: Message timed out
EXPIRED_BATCH = "expired_batch"  # Java: Expiring N record(s) for T-P: N ms has passed since batch creation
NOT_IN_METADATA = "not_in_metadata"  # Java: Topic T not present in metadata after N ms.
ALL_DOWN = "all_down"  # librdkafka: N/N brokers are down; Sarama: run out of available brokers
NO_NODE = "no_node"  # Java admin: Timed out waiting for a node assignment
METADATA_FAILED = "metadata_failed"  # kcat: Failed to acquire metadata
BOOTSTRAP_DISCONNECTED = "bootstrap_disconnected"  # Java: Bootstrap broker h:p (id: -1 rack: null) disconnected
CONNECTION_CLOSED = "connection_closed"  # kafkajs: Closed connection; Sarama: EOF (the broker hung up, no reason)
ADVERTISED_DOWN = "advertised_down"  # Python clients: No connection to node with id 1001 (no reason given)
FLUSH_TIMEOUT = "flush_timeout"  # Kafka Connect: a source task's producer did not flush its records in time
HEAP_EXHAUSTED = "heap_exhausted"  # a JVM's OutOfMemoryError: Java heap space, no frame says where
SEND_FAILED = "send_failed"  # Java: Error when sending message to topic T; Spring Kafka: Failed to send (the cause below)

# Answers that the request belongs to another broker: transient while leaders move, and every time when a broker's
# address reaches another broker. Neither a cause nor a consequence alone (``misdirected`` reads them together).
NOT_LEADER = "not_leader"  # NOT_LEADER_OR_FOLLOWER (6): this broker does not lead the partition
NOT_COORDINATOR = "not_coordinator"  # NOT_COORDINATOR (16): this broker does not coordinate the group
ANSWERED_ELSEWHERE = frozenset({NOT_LEADER, NOT_COORDINATOR})

CONSEQUENCES = frozenset({MESSAGE_TIMEOUT, EXPIRED_BATCH, NOT_IN_METADATA, ALL_DOWN, NO_NODE, METADATA_FAILED,
                          BOOTSTRAP_DISCONNECTED, CONNECTION_CLOSED, ADVERTISED_DOWN, FLUSH_TIMEOUT, HEAP_EXHAUSTED,
                          SEND_FAILED})
HUNG_UP = frozenset({CONNECTION_CLOSED, BOOTSTRAP_DISCONNECTED})  # the consequences that say only the broker hung up

# Roles of the endpoint a line is about.
BOOTSTRAP = "bootstrap"
ADVERTISED = "advertised"
COORDINATOR = "coordinator"  # a consumer group's coordinator: an advertised broker the client reached through metadata
UNKNOWN = "unknown"
BROKER_ROLES = (ADVERTISED, COORDINATOR)  # the roles of an address the cluster's metadata gave the client

# Client families.
LIBRDKAFKA = "librdkafka"  # confluent-kafka (Python, Go, .NET), kcat, rdkafka-based clients
JAVA = "java"  # the Java client, the console tools, Kafka Connect, and the broker's own log
KAFKAJS = "kafkajs"
GO = "go"  # Sarama, franz-go, segmentio/kafka-go (Go's net and crypto/tls errors)
KAFKA_PYTHON = "kafka-python"
AIOKAFKA = "aiokafka"
BROKER = "broker"  # the broker's own log, about what a client sent it
ZOOKEEPER = "zookeeper"  # ZooKeeper's own log, about a client that spoke Kafka to it
ANY = "any"  # Kafka's own error text, the same in every client
OPENSSL = "openssl"  # openssl s_client's report of a broker's TLS (the chain it sent)
TOOL = "tool"  # telnet, netcat, curl: a user trying a broker's address by hand
OTHER = "other"  # a client of no family above (Erlang/Elixir, Ruby, Rust, Dart, .NET, kafka-node): its runtime's words


HEDGE = re.compile(r"\b(?:may|might|could|possibly|probably|likely|perhaps|maybe|seems?|suspect|make sure)\b|\?",
                   re.IGNORECASE)
"""A client's own hedge ("Broker may not be available", "might be caused by"): its words guess the cause; other words
a sighting keeps as ``guess`` (``No entry found for connection 2``) are where a cause surfaced, not a guess at it."""


@dataclass(frozen=True)
class Sighting:
    """One failure one line reports, with every fact the line holds about it."""

    symptom: str
    client: str
    host: str | None = None
    port: int | None = None
    address: str | None = None  # the IP the client tried, when the line shows it
    node_id: int | None = None
    role: str = UNKNOWN
    status: str | None = None  # RESOLVE: dns status; CONNECT: tcp status
    protocol: str | None = None  # the client's security.protocol, when the line shows it (ssl://...)
    topic: str | None = None
    partition: int | None = None
    mechanism: str | None = None
    mechanisms: tuple[str, ...] | None = None  # what the listener enables, when the line lists them
    detail: str | None = None  # the rest that matters: the client's own error words, a frame size, a count
    up_ms: int | None = None  # REQUEST_TIMEOUT: how long the connection had been up (librdkafka: "in state UP")
    related: tuple[str, ...] = ()  # further lines this sighting rests on (a stack frame)
    guess: str | None = None  # the line is itself a guess (the client's own "might be caused by ..."): its words
    role_from: str | None = None  # how the line shows the role when it does not name it (a produce, a group join)
    alternatives: tuple[str, ...] = ()  # with ``guess``: the other finding ids the same words fit (shown as "Or:")
    catch_all: bool = False  # read by a catch-all pattern: it goes when a family's own pattern read the line too


@dataclass(frozen=True)
class Fact:
    """Something a line reveals about the cluster or the client's configuration."""

    kind: str  # "bootstrap" (an address in bootstrap.servers) | "broker" (an advertised broker) | "topic" | "kerberos"
    host: str | None = None
    port: int | None = None
    node_id: int | None = None
    name: str | None = None  # a topic name


Item = Sighting | Fact
Handler = Callable[[re.Match[str], "ScanState"], Iterable[Item]]


@dataclass(frozen=True)
class Pattern:
    name: str
    client: str
    needle: str  # a literal every matching line contains
    regex: re.Pattern[str]
    handler: Handler
    example: str  # a real line it recognises (tested)


def registrar(patterns: list[Pattern]) -> Callable[..., Callable[[Handler], Handler]]:
    """A family module's ``@pattern(name, client, needle, regex, example)`` decorator: each use appends one
    ``Pattern`` to that module's ``patterns``, in declaration order."""

    def pattern(name: str, client: str, needle: str, regex: str, example: str, *,
                flags: int = 0) -> Callable[[Handler], Handler]:
        compiled = re.compile(regex, flags)

        def register(handler: Handler) -> Handler:
            patterns.append(Pattern(name, client, needle, compiled, handler, example))
            return handler

        return register

    return pattern


# --- shared pieces of the regexes ----------------------------------------------------------------

HOST = r"(?:\[[0-9A-Fa-f:.%]+\]|[A-Za-z0-9_][A-Za-z0-9_.%-]*)"
HOSTPORT = rf"{HOST}:\d{{1,5}}"
REDACTED = r"<[\w .-]{1,40}>|\*{3,}|x{1,3}(?:\.x{1,3}){3}"  # a hidden address: <ip-address-1>, ***, xxx.xxx.xxx.xxx

_DNS_WORDS = (("No address associated", "no_answer"), ("not known", "nxdomain"), ("no such host", "nxdomain"),
              ("No such host", "nxdomain"), ("ENOTFOUND", "nxdomain"), ("NXDOMAIN", "nxdomain"),
              ("Temporary failure", "servfail"), ("EAI_AGAIN", "servfail"), ("server misbehaving", "servfail"),
              ("SERVFAIL", "servfail"), ("timed out", "timeout"), ("i/o timeout", "timeout"))
_TCP_WORDS = (("refused", "refused"), ("ECONNREFUSED", "refused"), ("timed out", "timeout"),
              ("ETIMEDOUT", "timeout"), ("i/o timeout", "timeout"), ("No route", "unreachable"),
              ("no route", "unreachable"), ("unreachable", "unreachable"), ("EHOSTUNREACH", "unreachable"),
              ("ENETUNREACH", "unreachable"), ("did not properly respond", "timeout"))  # Windows' WSAETIMEDOUT


def dns_status(words: str | None, default: str = "error") -> str:
    for needle, status in _DNS_WORDS:
        if words and needle in words:
            return status
    return default


def tcp_status(words: str) -> str:
    lowered = words.lower()
    for needle, status in _TCP_WORDS:
        if needle.lower() in lowered:
            return status
    return "error"


def role_of(node_id: int | None) -> str:
    if node_id is None:
        return UNKNOWN
    return BOOTSTRAP if node_id < 0 else ADVERTISED


def split_endpoint(text: str | None) -> tuple[str | None, int | None]:
    endpoint = parse_endpoint(text) if text else None
    if endpoint is None:
        return None, None
    return endpoint.host.strip("[]"), endpoint.port


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def parse_mechanisms(text: str) -> tuple[str, ...]:
    return tuple(m for m in re.split(r"[\s,\[\]]+", text.strip()) if m)


@dataclass
class JavaConnection:
    """The endpoint the last Java connection line named, for the exception lines that follow it."""

    host: str | None
    port: int | None
    node_id: int | None
    address: str | None
    line: int


# What the listener says about the client's certificate, as an alert it sends: the same alerts in every
# client's words. Captured from a Java 4.4.0 listener with ssl.client.auth=required: bad_certificate when the
# client sends none (TLS 1.2 and 1.3), certificate_unknown when it does not trust the one sent. A Java client
# only sends a certificate issued by a CA the listener names, so it meets bad_certificate in both cases.
_NO_CERTIFICATE_ALERTS = ("certificate_required",)
_REFUSED_ALERTS = ("certificate_unknown", "unknown_ca", "certificate_expired", "certificate_revoked",
                   "unsupported_certificate", "access_denied")


def client_certificate_symptom(alert: str, scan: ScanState) -> str:
    """bad_certificate means "none" unless the log shows the client configured one."""
    if alert in _REFUSED_ALERTS or (alert == "bad_certificate" and scan.client_certificate):
        return CLIENT_CERT_REFUSED
    return CLIENT_CERT_MISSING


# --- helpers the handlers share ------------------------------------------------------------------------

CONTEXT_LINES = 40
"""How far below a Java connection line its exception lines may come and still be about it."""


def size_sighting(sighting: Sighting, size: int, limit: int | None = None) -> Sighting | None:
    """What a bogus "response size" says about the bytes the port sent first; None when they are a Kafka frame's.

    A TLS record's or a text protocol's first four bytes read as a length are huge; a real broker's response
    just over the client's limit (``limit``: librdkafka's receive.message.max.bytes, ``(0..N)`` in its line) is
    a size setting, not a foreign peer: its first byte is small and its size within a few times the limit."""
    raw = (size & 0xFFFFFFFF).to_bytes(4, "big")
    if raw[0] in (0x15, 0x16) and raw[1] == 0x03:
        return replace(sighting, symptom=PLAINTEXT_ON_TLS, detail=f"response size {size}: a TLS record")
    text = raw.decode("latin-1")
    words = text.isascii() and text.isprintable()  # another protocol's text (HTTP/1.1, SSH-2.0, a banner)
    if limit and 0 < limit < size <= KAFKA_FRAME_SLACK * limit and not words:
        return None
    speaks = {"HTTP": "HTTP", "SSH-": "SSH"}.get(text)
    said = f": {speaks}" if speaks else f": the text {text!r}" if words else ""
    return replace(sighting, detail=f"response size {size}{said}")


KAFKA_FRAME_SLACK = 2
"""How many times the client's size limit a response may be and still be read as a real broker's (a Fetch answer
that overshoots the limit by its framing, librdkafka before 1.0 when fetch.max.bytes did not exist)."""


def with_connection(scan: ScanState, sighting: Sighting) -> Sighting:
    """A host-less Java exception line takes the endpoint of the connection line just above it."""
    connection = scan.java
    if sighting.host is not None or connection is None or scan.line - connection.line > CONTEXT_LINES:
        return sighting
    return replace(sighting, host=connection.host, port=connection.port, address=connection.address,
                   node_id=connection.node_id, role=role_of(connection.node_id))


def bootstrap_facts(text: str) -> Iterator[Fact]:
    for element in text.split(","):
        host, port = split_endpoint(element.strip())
        if host and not host.startswith("-"):
            yield Fact(BOOTSTRAP, host, port)



@dataclass
class ScanState:
    """The few facts a log's earlier lines leave for the next ones (the handlers read and set them)."""

    line: int = 0
    text: str = ""
    java: JavaConnection | None = None
    topic: str | None = None  # the topic the last Java timeout named, for the exception below it
    pending_oom: tuple[int, str] | None = None
    go_answered: tuple[int, str] | None = None  # Sarama's last completed ApiVersions: (line, host:port)
    kafkajs_broker: str | None = None  # the "broker" field of the last kafkajs connection error
    ports: dict[str, int] = field(default_factory=dict)  # the port each host was last named with
    client_certificate: bool = False  # the log shows the client configured a certificate or keystore
    recent: tuple[int, str, int | None] | None = None  # (line, host, port) an unfamiliar client last tried to reach
    brod_payload: int | None = None  # the line of brod's last payload connect: its reason on the next (clients.erlang)
    config_id: int | None = None  # a broker configuration's id waiting for its listeners (clients.broker_configs)
    config_listeners: tuple[tuple[str, int], ...] | None = None  # its listeners waiting for its id
    config_paired: int | None = None  # the id last paired: the same dump's node.id after its broker.id
    env_pending: tuple[str, int] | None = None  # a manifest's env name (KAFKA_..._ID or _LISTENERS) and its line
    netty_side: tuple[int, str] | None = None  # (line, "server" | "client"): the last ZooKeeper connection logger named
    cut_principal: tuple[int, str] | None = None  # (line, principal) of MIT's words cut after "(Server <principal> not"
    chain: list[str | int] | None = None  # openssl s_client's "Certificate chain": [deepest depth, subject 0, issuer 0]
    rd_cut: tuple[int, object] | None = None  # (line, its RdBroker): a librdkafka line cut after its broker's name

    def port_of(self, host: str) -> int | None:
        """The port ``host`` was last named with, for a line that names the host alone (Go's ``lookup host``,
        kafkajs's ``getaddrinfo ENOTFOUND host``)."""
        return self.ports.get(normalise_host(host))

    def recent_endpoint(self, within: int) -> tuple[str, int | None] | None:
        """The (host, port) an unfamiliar client's line named (``recent``) at most ``within`` lines above this one."""
        if self.recent is None or self.line - self.recent[0] > within:
            return None
        return self.recent[1], self.recent[2]

    def java_connection(self, m: re.Match[str]) -> JavaConnection:
        host = m.group("host") or None  # Java prints "/1.2.3.4:9092" for an address given as a literal
        address = m.group("addr")
        self.java = JavaConnection(host or address, int(m.group("port")), int(m.group("id")), address, self.line)
        return self.java

    def recent_connection(self, host: str) -> JavaConnection | None:
        connection = self.java
        if connection is None or self.line - connection.line > CONTEXT_LINES or connection.host is None:
            return None
        return connection if normalise_host(connection.host) == normalise_host(host) else None
