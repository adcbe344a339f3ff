"""The client error lines kdiag recognises, and what each one says.

One declaration per pattern: the client family it comes from, a literal ``needle`` that every
matching line contains (checked first, so the regex runs only on lines that can match), the
precompiled regex, and a handler that turns the match into ``Sighting``s (a failure the line
reports) and ``Fact``s (a bootstrap address or an advertised broker the line reveals).

The strings are the real ones: captured from kcat, confluent-kafka, the Java console producer, kafkajs,
Sarama and franz-go against real brokers (tests/fixtures/client_logs). The few that no lab situation
produces (Go's "first record does not look like a TLS handshake", x509 expiry, Node's altnames error,
kafka-python) come from the clients' sources and the reference (landscape §2), and say so.

``Scanner`` keeps the little state a Java log needs: the connection a stack trace belongs to
(``Connection to node -1 (localhost/127.0.0.1:9093) failed authentication`` followed by ``Caused
by: ... No subject alternative DNS name matching localhost found.``) and an ``OutOfMemoryError``
waiting for the ``NetworkReceive.readFrom`` frame that makes it a TLS listener read as plaintext.
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
TOPIC_MISSING = "topic_missing"
TOPIC_DENIED = "topic_denied"
NO_LEADER = "no_leader"  # detail: LEADER_NOT_AVAILABLE | LISTENER_NOT_FOUND
NOT_KAFKA = "not_kafka"  # the port answered with something else (detail: what)
NONROUTABLE = "nonroutable"  # the broker refused to advertise 0.0.0.0

# Consequences: the client failed, and the line does not say why.
MESSAGE_TIMEOUT = "message_timeout"  # librdkafka: Local: Message timed out
EXPIRED_BATCH = "expired_batch"  # Java: Expiring N record(s) for T-P: N ms has passed since batch creation
NOT_IN_METADATA = "not_in_metadata"  # Java: Topic T not present in metadata after N ms.
ALL_DOWN = "all_down"  # librdkafka: N/N brokers are down; Sarama: run out of available brokers
NO_NODE = "no_node"  # Java admin: Timed out waiting for a node assignment
METADATA_FAILED = "metadata_failed"  # kcat: Failed to acquire metadata
BOOTSTRAP_DISCONNECTED = "bootstrap_disconnected"  # Java: Bootstrap broker h:p (id: -1 rack: null) disconnected
CONNECTION_CLOSED = "connection_closed"  # kafkajs: Closed connection; Sarama: EOF (the broker hung up, no reason)

CONSEQUENCES = frozenset({MESSAGE_TIMEOUT, EXPIRED_BATCH, NOT_IN_METADATA, ALL_DOWN, NO_NODE, METADATA_FAILED,
                          BOOTSTRAP_DISCONNECTED, CONNECTION_CLOSED})

# Roles of the endpoint a line is about.
BOOTSTRAP = "bootstrap"
ADVERTISED = "advertised"
UNKNOWN = "unknown"

# Client families.
LIBRDKAFKA = "librdkafka"  # confluent-kafka (Python, Go, .NET), kcat, rdkafka-based clients
JAVA = "java"  # the Java client, the console tools, Kafka Connect, and the broker's own log
KAFKAJS = "kafkajs"
GO = "go"  # Sarama, franz-go, segmentio/kafka-go (Go's net and crypto/tls errors)
KAFKA_PYTHON = "kafka-python"
ANY = "any"  # Kafka's own error text, the same in every client


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
    related: tuple[str, ...] = ()  # further lines this sighting rests on (a stack frame)


@dataclass(frozen=True)
class Fact:
    """Something a line reveals about the cluster or the client's configuration."""

    kind: str  # "bootstrap" (an address in bootstrap.servers) | "broker" (an advertised broker) | "topic"
    host: str | None = None
    port: int | None = None
    node_id: int | None = None
    name: str | None = None  # a topic name


Item = Sighting | Fact
Handler = Callable[[re.Match[str], "Scanner"], Iterable[Item]]


@dataclass(frozen=True)
class Pattern:
    name: str
    client: str
    needle: str  # a literal every matching line contains
    regex: re.Pattern[str]
    handler: Handler
    example: str  # a real line it recognises (tested)


PATTERNS: list[Pattern] = []


def pattern(name: str, client: str, needle: str, regex: str, example: str, *,
            flags: int = 0) -> Callable[[Handler], Handler]:
    compiled = re.compile(regex, flags)

    def register(handler: Handler) -> Handler:
        PATTERNS.append(Pattern(name, client, needle, compiled, handler, example))
        return handler

    return register


# --- shared pieces of the regexes ----------------------------------------------------------------

_HOST = r"(?:\[[0-9A-Fa-f:.%]+\]|[A-Za-z0-9_][A-Za-z0-9_.%-]*)"
_HOSTPORT = rf"{_HOST}:\d{{1,5}}"
# librdkafka's name for a broker connection: [proto://]host:port/(bootstrap|node id)
_RD_BROKER = re.compile(rf"(?:(?P<proto>[a-z_]+)://)?(?P<host>{_HOST}):(?P<port>\d{{1,5}})/(?P<id>bootstrap|-?\d+)\b")
_JAVA_NODE = re.compile(r"\bnode (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\)")
_AFTER = re.compile(r"\s*\(after \d+ms in state [A-Z_]+(?:, \d+ identical error\(s\) suppressed)?\)\s*$")

_DNS_WORDS = (("No address associated", "no_answer"), ("not known", "nxdomain"), ("no such host", "nxdomain"),
              ("No such host", "nxdomain"), ("ENOTFOUND", "nxdomain"), ("NXDOMAIN", "nxdomain"),
              ("Temporary failure", "servfail"), ("EAI_AGAIN", "servfail"), ("server misbehaving", "servfail"),
              ("SERVFAIL", "servfail"), ("timed out", "timeout"), ("i/o timeout", "timeout"))
_TCP_WORDS = (("refused", "refused"), ("ECONNREFUSED", "refused"), ("timed out", "timeout"),
              ("ETIMEDOUT", "timeout"), ("i/o timeout", "timeout"), ("No route", "unreachable"),
              ("no route", "unreachable"), ("unreachable", "unreachable"), ("EHOSTUNREACH", "unreachable"),
              ("ENETUNREACH", "unreachable"))
_PROTOCOLS = {"plaintext": "PLAINTEXT", "ssl": "SSL", "sasl_plaintext": "SASL_PLAINTEXT", "sasl_ssl": "SASL_SSL"}


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


def _mechanisms(text: str) -> tuple[str, ...]:
    return tuple(m for m in re.split(r"[\s,\[\]]+", text.strip()) if m)


@dataclass(frozen=True)
class RdBroker:
    """The librdkafka broker name at the head of a line: what endpoint, which role, which protocol."""

    host: str | None = None
    port: int | None = None
    node_id: int | None = None
    role: str = UNKNOWN
    protocol: str | None = None

    @classmethod
    def find(cls, line: str) -> RdBroker:
        m = _RD_BROKER.search(line)
        if m is None:
            return cls()
        ident = m.group("id")
        node_id = None if ident == "bootstrap" else int(ident)
        role = BOOTSTRAP if ident == "bootstrap" or (node_id is not None and node_id < 0) else ADVERTISED
        protocol = _PROTOCOLS.get(m.group("proto") or "", None)
        return cls(m.group("host").strip("[]"), int(m.group("port")), node_id, role, protocol)

    def sighting(self, symptom: str, **extra: object) -> Sighting:
        values: dict[str, object] = {"host": self.host, "port": self.port, "node_id": self.node_id,
                                     "role": self.role, "protocol": self.protocol}
        values.update({k: v for k, v in extra.items() if v is not None})
        return Sighting(symptom, LIBRDKAFKA, **values)  # type: ignore[arg-type]


@dataclass
class JavaConnection:
    """The endpoint the last Java connection line named, for the exception lines that follow it."""

    host: str | None
    port: int | None
    node_id: int | None
    address: str | None
    line: int


# --- librdkafka (confluent-kafka, kcat) ----------------------------------------------------------


@pattern("librdkafka.resolve", LIBRDKAFKA, "Failed to resolve",
         r"Failed to resolve '(?P<hp>[^']+)'(?::\s*(?P<why>.*))?",
         "%3|1795271143.024|FAIL|rdkafka#producer-1| [thrd:ip-172-31-18-160.us-west-2.compute.internal:9092/1]: "
         "ip-172-31-18-160.us-west-2.compute.internal:9092/1: Failed to resolve "
         "'ip-172-31-18-160.us-west-2.compute.internal:9092': Name or service not known (after 0ms in state CONNECT)")
def _rd_resolve(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    host, port = split_endpoint(m.group("hp"))
    why = _AFTER.sub("", m.group("why") or "")
    yield broker.sighting(RESOLVE, host=host or broker.host, port=port or broker.port,
                          status=dns_status(why, "nxdomain"), detail=why or None)


@pattern("librdkafka.connect", LIBRDKAFKA, "Connect to ipv",
         rf"Connect to ipv[46]#(?P<addr>{_HOST}):(?P<port>\d{{1,5}}) failed: (?P<why>[^(]*)",
         "%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: "
         "Connect to ipv4#127.0.0.1:9092 failed: Connection refused (after 0ms in state CONNECT)")
def _rd_connect(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    address = m.group("addr").strip("[]")
    yield broker.sighting(CONNECT, address=address, port=broker.port or int(m.group("port")),
                          host=broker.host or address, status=tcp_status(m.group("why")),
                          detail=m.group("why").strip())


@pattern("librdkafka.connect_timeout", LIBRDKAFKA, "Connection setup timed out",
         r"Connection setup timed out in state (?P<state>[A-Z_]+)",
         "%4|1795271434.720|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: "
         "Connection setup timed out in state CONNECT (after 1001ms in state CONNECT)")
def _rd_connect_timeout(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    state = m.group("state")
    if state in ("CONNECT", "TRY_CONNECT"):
        yield broker.sighting(CONNECT, status="timeout", detail="Connection setup timed out in state CONNECT")
    elif state == "SSL_HANDSHAKE":  # connected, then the TLS handshake never finished
        yield broker.sighting(TLS_FAILED, detail="Connection setup timed out in state SSL_HANDSHAKE")


@pattern("librdkafka.ssl_listener", LIBRDKAFKA, "connecting to a SSL listener",
         r"Disconnected while requesting ApiVersion: might be caused by incorrect security\.protocol",
         "%6|1795271460.076|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9093/bootstrap]: 127.0.0.1:9093/bootstrap: "
         "Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol configuration "
         "(connecting to a SSL listener?) or broker version is < 0.10 (see api.version.request) "
         "(after 26ms in state APIVERSION_QUERY)")
def _rd_ssl_listener(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(PLAINTEXT_ON_TLS)


# What OpenSSL says when the other side of a handshake does not speak TLS (a plaintext listener hangs up).
_NOT_TLS = (r"(?:unexpected eof while reading|wrong version number|packet length too long|record layer failure"
            r"|http request)")


@pattern("librdkafka.plaintext_listener", LIBRDKAFKA, "SSL handshake failed",
         rf"SSL handshake failed: (?P<why>.*?(?:connecting to a PLAINTEXT broker listener|{_NOT_TLS}).*)",
         "%3|1795271483.966|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:9092/bootstrap]: "
         "ssl://127.0.0.1:9092/bootstrap: SSL handshake failed: error:0A000126:SSL routines::unexpected eof while "
         "reading (after 3ms in state SSL_HANDSHAKE)")
def _rd_plaintext_listener(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(TLS_ON_PLAINTEXT, detail=_AFTER.sub("", m.group("why")))


# The same failure without the "SSL handshake failed:" prefix: librdkafka words it this way when the
# broker's close reaches it as a socket event rather than from inside SSL_do_handshake (which of the two
# depends on timing; both were seen from kcat against the same plaintext listener).
@pattern("librdkafka.plaintext_listener_eof", LIBRDKAFKA, "in state SSL_HANDSHAKE",
         rf"^(?!.*SSL handshake failed)(?=.*in state SSL_HANDSHAKE).*?SSL routines:[^:]*:(?P<why>{_NOT_TLS}[^(]*)",
         "%3|1795281179.385|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:56719/bootstrap]: "
         "ssl://127.0.0.1:56719/bootstrap: error:0A000126:SSL routines::unexpected eof while reading "
         "(after 2ms in state SSL_HANDSHAKE)")
def _rd_plaintext_listener_eof(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(TLS_ON_PLAINTEXT, detail=f"SSL handshake: {m.group('why').strip()}")


@pattern("librdkafka.certificate_verify", LIBRDKAFKA, "certificate verify failed",
         r"certificate verify failed(?::\s*(?P<why>.*))?",
         "%3|1795271469.162|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:9093/bootstrap]: "
         "ssl://127.0.0.1:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::certificate verify "
         "failed: broker certificate could not be verified, verify that ssl.ca.location is correctly configured or "
         "root CA certificates are installed (install ca-certificates package) (after 66ms in state SSL_HANDSHAKE)")
def _rd_certificate(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    why = _AFTER.sub("", m.group("why") or "")
    symptom = CERT_NAME if "hostname mismatch" in m.string.lower() else CERT_UNTRUSTED
    yield RdBroker.find(m.string).sighting(symptom, detail=why or None)


# What the listener says about the client's certificate, as an alert it sends: the same alerts in every
# client's words. Captured from a Java 4.4.0 listener with ssl.client.auth=required: bad_certificate when the
# client sends none (TLS 1.2 and 1.3), certificate_unknown when it does not trust the one sent. A Java client
# only sends a certificate issued by a CA the listener names, so it meets bad_certificate in both cases.
_NO_CERTIFICATE_ALERTS = ("certificate_required",)
_REFUSED_ALERTS = ("certificate_unknown", "unknown_ca", "certificate_expired", "certificate_revoked",
                   "unsupported_certificate", "access_denied")


def client_certificate_symptom(alert: str, scan: Scanner) -> str:
    """bad_certificate means "none" unless the log shows the client configured one."""
    if alert in _REFUSED_ALERTS or (alert == "bad_certificate" and scan.client_certificate):
        return CLIENT_CERT_REFUSED
    return CLIENT_CERT_MISSING


@pattern("librdkafka.client_certificate_alert", LIBRDKAFKA, "SSL alert number",
         r"alert (?P<alert>bad certificate|certificate unknown|certificate required|unknown ca|certificate expired"
         r"|certificate revoked|unsupported certificate|access denied): SSL alert number \d+",
         "%3|1795282952.464|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:38609/bootstrap]: "
         "ssl://127.0.0.1:38609/bootstrap: Receive failed: error:0A000412:SSL routines::sslv3 alert bad certificate: "
         "SSL alert number 42 (after 1ms in state APIVERSION_QUERY)")
def _rd_client_certificate_alert(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    alert = m.group("alert").replace(" ", "_")
    yield RdBroker.find(m.string).sighting(client_certificate_symptom(alert, scan), detail=alert)


@pattern("any.client_certificate_setting", ANY, ".location",
         r"ssl\.(?:keystore|certificate)\.location\s*=\s*(?P<value>[^\s,]*)",
         "--producer-property ssl.keystore.location=/etc/kafka/client.p12")
def _client_certificate_setting(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    """A command line or a client's config dump that gives the client a keystore or a certificate file
    (librdkafka's ``ssl.certificate.location``, a Java ``ssl.keystore.location``; Java prints ``= null``)."""
    if m.group("value") not in ("", "null"):
        scan.client_certificate = True
    return ()


@pattern("librdkafka.sasl_required", LIBRDKAFKA, "broker might require SASL authentication",
         r"verify that security\.protocol is correctly configured, broker might require SASL authentication",
         "%4|1795271500.500|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9094/bootstrap]: 127.0.0.1:9094/bootstrap: "
         "Disconnected: verify that security.protocol is correctly configured, broker might require SASL "
         "authentication (after 2ms in state UP)")
def _rd_sasl_required(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_NEEDED)


@pattern("librdkafka.sasl_mechanism", LIBRDKAFKA, "mechanism handshake failed",
         r"SASL (?P<mech>\S+) mechanism handshake failed: Broker: (?P<why>[^:]+): broker's supported mechanisms:"
         r"(?P<enabled>[^(]*)",
         "%3|1795271515.960|FAIL|rdkafka#producer-1| [thrd:sasl_plaintext://127.0.0.1:9094/bootstrap]: "
         "sasl_plaintext://127.0.0.1:9094/bootstrap: SASL SCRAM-SHA-512 mechanism handshake failed: Broker: "
         "Unsupported SASL mechanism: broker's supported mechanisms: PLAIN (after 301ms in state AUTH_HANDSHAKE)")
def _rd_sasl_mechanism(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_MECHANISM, mechanism=m.group("mech").upper(),
                                           mechanisms=_mechanisms(m.group("enabled")), detail=m.group("why"))


@pattern("librdkafka.sasl_authentication", LIBRDKAFKA, "SASL authentication error",
         r"SASL authentication error: (?P<why>.*)",
         "%3|1795271509.801|FAIL|rdkafka#producer-1| [thrd:sasl_plaintext://127.0.0.1:9094/bootstrap]: "
         "sasl_plaintext://127.0.0.1:9094/bootstrap: SASL authentication error: Authentication failed: Invalid "
         "username or password (after 311ms in state AUTH_REQ)")
def _rd_sasl_authentication(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_CREDENTIALS, detail=_AFTER.sub("", m.group("why")))


@pattern("librdkafka.authentication_failure", LIBRDKAFKA, "Local: Authentication failure",
         r"Local: Authentication failure",
         "% ERROR: Local: Authentication failure: sasl_ssl://b-1.example.kafka.us-east-1.amazonaws.com:9096/"
         "bootstrap: SASL authentication error: Authentication failed during authentication due to invalid "
         "credentials with SASL mechanism SCRAM-SHA-512")
def _rd_authentication_failure(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_CREDENTIALS)


@pattern("librdkafka.invalid_response_size", LIBRDKAFKA, "Invalid response size",
         r"Invalid response size (?P<size>-?\d+)",
         "%3|1795270000.100|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:8080/bootstrap]: 127.0.0.1:8080/bootstrap: "
         "Receive failed: Invalid response size 1213486160 (0..100000000): increase receive.message.max.bytes "
         "(after 3ms in state APIVERSION_QUERY)")
def _rd_invalid_size(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _size_sighting(RdBroker.find(m.string).sighting(NOT_KAFKA), int(m.group("size")))


@pattern("librdkafka.message_timeout", LIBRDKAFKA, "Message timed out", r"Local: Message timed out|_MSG_TIMED_OUT",
         'delivery: KafkaError{code=_MSG_TIMED_OUT,val=-192,str="Local: Message timed out"}')
def _rd_message_timeout(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(MESSAGE_TIMEOUT, LIBRDKAFKA)


@pattern("librdkafka.brokers_down", LIBRDKAFKA, "brokers are down", r"(?P<down>\d+)/(?P<all>\d+) brokers are down",
         "% ERROR: Local: All broker connections are down: 1/1 brokers are down: terminating")
def _rd_brokers_down(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, LIBRDKAFKA, detail=f"{m.group('down')}/{m.group('all')}")


@pattern("librdkafka.metadata", LIBRDKAFKA, "Failed to", r"Failed to (?:acquire metadata|query metadata for topic "
         r"(?P<topic>\S+?)):\s*(?P<why>Local: [^(]*)",
         "% ERROR: Failed to acquire metadata: Local: Broker transport failure (Are the brokers reachable? Also try "
         "increasing the metadata timeout with -m <timeout>?)")
def _rd_metadata(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(METADATA_FAILED, LIBRDKAFKA, topic=m.group("topic"), detail=m.group("why").strip())


@pattern("librdkafka.unknown_topic", LIBRDKAFKA, "nknown topic",
         r"(?:Broker: Unknown topic or partition|Local: Unknown topic)",
         "% ERROR: Topic missing-topic error: Broker: Unknown topic or partition")
def _rd_unknown_topic(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    topic = re.search(r"Topic (\S+?)(?: \[\d+\])? error", m.string)
    yield Sighting(TOPIC_MISSING, LIBRDKAFKA, topic=topic.group(1) if topic else None)


@pattern("librdkafka.topic_authorization", LIBRDKAFKA, "Topic authorization failed",
         r"Broker: Topic authorization failed",
         "% ERROR: Topic orders error: Broker: Topic authorization failed")
def _rd_topic_authorization(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    topic = re.search(r"Topic (\S+?)(?: \[\d+\])? error", m.string)
    yield Sighting(TOPIC_DENIED, LIBRDKAFKA, topic=topic.group(1) if topic else None)


@pattern("librdkafka.leader_not_available", LIBRDKAFKA, "Leader not available", r"Broker: Leader not available",
         "% ERROR: Topic orders [2] error: Broker: Leader not available")
def _rd_leader(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    topic = re.search(r"Topic (\S+?)(?: \[\d+\])? error", m.string)
    yield Sighting(NO_LEADER, LIBRDKAFKA, topic=topic.group(1) if topic else None, detail="LEADER_NOT_AVAILABLE")


@pattern("kcat.metadata_header", LIBRDKAFKA, "Metadata for",
         rf"Metadata for (?:all topics|[^(]*)\(from broker (?P<id>-?\d+): (?:[a-z_]+://)?(?P<hp>{_HOSTPORT})/"
         r"(?P<name>bootstrap|-?\d+)\)",
         "Metadata for all topics (from broker -1: ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092/bootstrap):")
def _kcat_header(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    if m.group("name") == "bootstrap" or int(m.group("id")) < 0:
        yield Fact(BOOTSTRAP, host, port)
    else:
        yield Fact("broker", host, port, int(m.group("id")))


@pattern("kcat.broker", LIBRDKAFKA, "broker ", rf"^\s*broker (?P<id>-?\d+) at (?P<hp>{_HOSTPORT})\b",
         "  broker 0 at ip-172-31-18-160.us-west-2.compute.internal:9092 (controller)")
def _kcat_broker(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


@pattern("librdkafka.metadata_broker", LIBRDKAFKA, "NodeId", rf"Broker #\d+/\d+: (?P<hp>{_HOSTPORT}) NodeId (?P<id>-?\d+)",
         "%7|1795270000.100|METADATA|rdkafka#producer-1| [thrd:main]: 127.0.0.1:9092/bootstrap: Broker #0/1: "
         "kafka-1.internal:9092 NodeId 1")
def _rd_metadata_broker(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


# --- the Java client, the console tools, and the broker's own log ------------------------------------


@pattern("java.connection_failed", JAVA, "could not be established",
         r"Connection to node (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\) could not "
         r"be established\.(?: (?:Broker|Node) may not be available\.)?",
         "[2026-11-21 14:25:11,623] WARN [Producer clientId=console-producer] Connection to node -1 "
         "(localhost/127.0.0.1:9092) could not be established. Node may not be available. "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_connection_failed(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    connection = scan.java_connection(m)
    # Java logs this for every refused or unroutable connect (a ConnectException); it does not say which.
    yield Sighting(CONNECT, JAVA, connection.host, connection.port, connection.address, connection.node_id,
                   role_of(connection.node_id), status="refused", detail="could not be established")


@pattern("java.terminated_during_authentication", JAVA, "terminated during authentication",
         r"Connection to node (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\) "
         r"terminated during authentication",
         "[2026-11-21 14:31:30,966] WARN [Producer clientId=console-producer] Connection to node -1 "
         "(/127.0.0.1:9092) terminated during authentication. This may happen due to any of the following reasons: "
         "(1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue. "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_terminated(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    connection = scan.java_connection(m)
    yield Sighting(TLS_ON_PLAINTEXT, JAVA, connection.host, connection.port, connection.address,
                   connection.node_id, role_of(connection.node_id), detail="terminated during authentication")


@pattern("java.failed_authentication", JAVA, "failed authentication due to",
         r"Connection to node (?P<id>-?\d+) \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\) failed "
         r"authentication due to: (?P<why>.*?)(?: \(org\.apache[^)]*\))?$",
         "[2026-11-21 14:31:55,573] ERROR [Producer clientId=console-producer] Connection to node -1 "
         "(localhost/127.0.0.1:9094) failed authentication due to: Authentication failed: Invalid username or "
         "password (org.apache.kafka.clients.NetworkClient)")
def _java_failed_authentication(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    connection = scan.java_connection(m)
    why = m.group("why")
    where = {"host": connection.host, "port": connection.port, "address": connection.address,
             "node_id": connection.node_id, "role": role_of(connection.node_id)}
    if "SSL handshake failed" in why or "post-handshake" in why:  # the Caused by: lines below say why; if none
        # does, this line says it. "Failed to process post-handshake messages": a TLS 1.3 alert after the handshake
        yield Sighting(TLS_FAILED, JAVA, detail=why, **where)  # type: ignore[arg-type]
    elif "not enabled in the server" in why:
        pass  # the mechanism pattern below reads this same line
    else:
        yield Sighting(SASL_CREDENTIALS, JAVA, detail=why, **where)  # type: ignore[arg-type]


@pattern("java.error_connecting", JAVA, "Error connecting to node",
         rf"Error connecting to node (?P<hp>{_HOSTPORT}) \(id: (?P<id>-?\d+) rack: [^)]*\)",
         "[2026-11-21 14:27:00,444] WARN [Producer clientId=console-producer] Error connecting to node "
         "ip-172-31-18-160.us-west-2.compute.internal:9092 (id: 1 rack: null) (org.apache.kafka.clients.NetworkClient)")
def _java_error_connecting(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    node_id = int(m.group("id"))
    scan.java = JavaConnection(host, port, node_id, None, scan.line)
    yield Fact(BOOTSTRAP if node_id < 0 else "broker", host, port, node_id if node_id >= 0 else None)


@pattern("java.unknown_host", JAVA, "UnknownHostException", rf"UnknownHostException: (?P<host>{_HOST})(?::\s*(?P<why>.*))?",
         "java.net.UnknownHostException: ip-172-31-18-160.us-west-2.compute.internal: Name or service not known")
def _java_unknown_host(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host = m.group("host")
    connection = scan.recent_connection(host)
    port = connection.port if connection else None
    node_id = connection.node_id if connection else None
    yield Sighting(RESOLVE, JAVA, host, port, None, node_id, role_of(node_id),
                   status=dns_status(m.group("why"), "nxdomain"), detail=m.group("why"))


@pattern("java.bootstrap_unresolvable", JAVA, "from bootstrap.servers as DNS resolution failed",
         rf"Couldn't resolve server (?P<hp>{_HOSTPORT}) from bootstrap\.servers as DNS resolution failed",
         "[2026-11-21 14:25:30,159] WARN Couldn't resolve server kafka-broker.invalid:9092 from bootstrap.servers "
         "as DNS resolution failed for kafka-broker.invalid (org.apache.kafka.clients.ClientUtils)")
def _java_bootstrap_unresolvable(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact(BOOTSTRAP, host, port)
    yield Sighting(RESOLVE, JAVA, host, port, role=BOOTSTRAP, status="nxdomain",
                   detail="DNS resolution failed")


@pattern("java.no_resolvable_bootstrap", JAVA, "No resolvable bootstrap urls",
         r"No resolvable bootstrap urls given in bootstrap\.servers",
         "Caused by: org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in "
         "bootstrap.servers")
def _java_no_resolvable(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(RESOLVE, JAVA, role=BOOTSTRAP, status="nxdomain", detail="No resolvable bootstrap urls")


@pattern("java.bootstrap_disconnected", JAVA, "Bootstrap broker",
         rf"Bootstrap broker (?P<hp>{_HOSTPORT}) \(id: (?P<id>-?\d+) rack: [^)]*\) disconnected",
         "[2026-11-21 14:30:41,075] WARN [Producer clientId=console-producer] Bootstrap broker 127.0.0.1:9092 "
         "(id: -1 rack: null) disconnected (org.apache.kafka.clients.NetworkClient)")
def _java_bootstrap_disconnected(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact(BOOTSTRAP, host, port)
    yield Sighting(BOOTSTRAP_DISCONNECTED, JAVA, host, port, node_id=int(m.group("id")), role=BOOTSTRAP)


@pattern("java.expiring", JAVA, "Expiring",
         r"Expiring (?P<n>\d+) record\(s\) for (?P<topic>\S+)-(?P<partition>\d+):\s*(?P<ms>\d+) ms has passed since "
         r"(?P<since>batch creation(?: plus linger time)?|last append)",
         "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for test-0: 1547 ms has passed since "
         "batch creation plus linger time")
def _java_expiring(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    scan.topic = m.group("topic")
    yield Sighting(EXPIRED_BATCH, JAVA, topic=m.group("topic"), partition=int(m.group("partition")),
                   detail=f"{m.group('n')} record(s), {m.group('ms')} ms")


@pattern("java.not_in_metadata", JAVA, "not present in metadata",
         r"Topic (?P<topic>\S+) not present in metadata after (?P<ms>\d+) ms",
         "org.apache.kafka.common.errors.TimeoutException: Topic t not present in metadata after 60000 ms.")
def _java_not_in_metadata(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    scan.topic = m.group("topic")
    yield Sighting(NOT_IN_METADATA, JAVA, topic=m.group("topic"), detail=f"{m.group('ms')} ms")


@pattern("java.metadata_errors", JAVA, "correlation id",
         r"(?:Error while fetching metadata|reported a recoverable issue) with correlation id \d+ : \{(?P<errors>[^}]*)\}",
         "[2026-11-21 14:28:38,421] WARN [Producer clientId=console-producer] The metadata response from the cluster "
         "reported a recoverable issue with correlation id 1 : {missing-topic=UNKNOWN_TOPIC_OR_PARTITION} "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_metadata_errors(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    for pair in m.group("errors").split(","):
        topic, _, error = pair.strip().rpartition("=")
        symptom = {"UNKNOWN_TOPIC_OR_PARTITION": TOPIC_MISSING, "TOPIC_AUTHORIZATION_FAILED": TOPIC_DENIED,
                   "LEADER_NOT_AVAILABLE": NO_LEADER, "LISTENER_NOT_FOUND": NO_LEADER}.get(error)
        if symptom is not None and topic:
            yield Sighting(symptom, JAVA, topic=topic, detail=error)


@pattern("any.unknown_topic", ANY, "does not host this topic-partition",
         r"(?:UnknownTopicOrPartitionException: )?This server does not host this topic-partition",
         "Caused by: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host "
         "this topic-partition.")
def _unknown_topic(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    client = JAVA if "Exception" in m.string else ANY
    yield Sighting(TOPIC_MISSING, client, topic=scan.topic)


@pattern("any.topic_authorization", ANY, "Not authorized to access topics",
         r"Not authorized to access topics: \[(?P<topics>[^\]]*)\]",
         "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [orders]")
def _topic_authorization(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    for topic in filter(None, (t.strip() for t in m.group("topics").split(","))):
        yield Sighting(TOPIC_DENIED, JAVA if "Exception" in m.string else ANY, topic=topic)


@pattern("any.no_listener_on_leader", ANY, "no listener on the leader broker",
         r"There is no listener on the leader broker that matches the listener on which metadata request was processed",
         "org.apache.kafka.common.errors.ListenerNotFoundException: There is no listener on the leader broker that "
         "matches the listener on which metadata request was processed.")
def _no_listener(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(NO_LEADER, ANY, topic=scan.topic, detail="LISTENER_NOT_FOUND")


@pattern("java.out_of_memory", JAVA, "OutOfMemoryError", r"java\.lang\.OutOfMemoryError: Java heap space",
         "java.lang.OutOfMemoryError: Java heap space")
def _java_oom(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    scan.pending_oom = (scan.line, scan.text)  # a Kafka client's only if NetworkReceive.readFrom follows
    return ()


@pattern("java.network_receive", JAVA, "NetworkReceive.readFrom", r"at org\.apache\.kafka\.common\.network\."
         r"NetworkReceive\.readFrom", "\tat org.apache.kafka.common.network.NetworkReceive.readFrom(NetworkReceive.java:103)")
def _java_network_receive(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    pending, scan.pending_oom = scan.pending_oom, None
    if pending is not None and scan.line - pending[0] <= OOM_FRAMES:
        where = scan.java if scan.java is not None and scan.line - scan.java.line <= CONTEXT_LINES else None
        yield Sighting(PLAINTEXT_ON_TLS, JAVA, where.host if where else None, where.port if where else None,
                       node_id=where.node_id if where else None,
                       role=role_of(where.node_id) if where else UNKNOWN,
                       detail="OutOfMemoryError in NetworkReceive.readFrom", related=(pending[1],))


@pattern("java.invalid_receive", JAVA, "Invalid receive", r"Invalid receive \(size = (?P<size>-?\d+)",
         "org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 1213486160 larger than "
         "104857600)")
def _java_invalid_receive(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _size_sighting(Sighting(NOT_KAFKA, JAVA), int(m.group("size")))


@pattern("java.node_assignment", JAVA, "Timed out waiting for a node assignment",
         r"Timed out waiting for a node assignment(?:\. Call: (?P<call>\w+))?",
         "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listTopics")
def _java_node_assignment(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(NO_NODE, JAVA, detail=m.group("call"))


@pattern("java.sasl_authentication", JAVA, "SaslAuthenticationException",
         r"SaslAuthenticationException: (?P<why>.*)",
         "org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during authentication due "
         "to invalid credentials with SASL mechanism SCRAM-SHA-256")
def _java_sasl_authentication(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    mech = re.search(r"with SASL mechanism (\S+)", m.group("why"))
    yield _with_connection(scan, Sighting(SASL_CREDENTIALS, JAVA, mechanism=mech.group(1) if mech else None,
                                          detail=m.group("why")))


@pattern("any.sasl_mechanism", JAVA, "not enabled in the server",
         r"Client SASL mechanism '(?P<mech>[^']+)' not enabled in the server, enabled mechanisms are \[(?P<enabled>[^\]]*)\]",
         "org.apache.kafka.common.errors.UnsupportedSaslMechanismException: Client SASL mechanism 'SCRAM-SHA-512' "
         "not enabled in the server, enabled mechanisms are [PLAIN]")
def _java_sasl_mechanism(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    connection = _JAVA_NODE.search(m.string)
    sighting = Sighting(SASL_MECHANISM, JAVA, mechanism=m.group("mech").upper(),
                        mechanisms=_mechanisms(m.group("enabled")))
    if connection is not None:
        scan.java_connection(connection)
    yield _with_connection(scan, sighting)


@pattern("java.subject_alternative_name", JAVA, "No subject alternative",
         r"No subject alternative (?:DNS name matching (?P<dns>\S+) found|names matching IP address (?P<ip>\S+) found"
         r"|names present)",
         "Caused by: java.security.cert.CertificateException: No subject alternative DNS name matching localhost found.")
def _java_san(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    name = (m.group("dns") or m.group("ip") or "").rstrip(".") or None
    sighting = _with_connection(scan, Sighting(CERT_NAME, JAVA, detail=m.group(0)))
    yield replace(sighting, host=name or sighting.host)


@pattern("java.pkix", JAVA, "PKIX path", r"PKIX path (?:building|validation) failed",
         "Caused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
         "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to "
         "requested target")
def _java_pkix(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _with_connection(scan, Sighting(CERT_UNTRUSTED, JAVA, detail="PKIX path building failed"))


@pattern("java.client_certificate_alert", JAVA, "Received fatal alert: ",
         r"Received fatal alert: (?P<alert>bad_certificate|certificate_required|certificate_unknown|unknown_ca"
         r"|certificate_expired|certificate_revoked|unsupported_certificate|access_denied)",
         "Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: bad_certificate")
def _java_client_certificate_alert(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    alert = m.group("alert")
    yield _with_connection(scan, Sighting(client_certificate_symptom(alert, scan), JAVA, detail=alert))


@pattern("broker.unrecognized_ssl", JAVA, "Unrecognized SSL message", r"Unrecognized SSL message, plaintext connection\?",
         "javax.net.ssl.SSLException: Unrecognized SSL message, plaintext connection?")
def _broker_unrecognized_ssl(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    # The side that expects TLS got plaintext: a broker's TLS listener, in a broker log (most often).
    yield _with_connection(scan, Sighting(PLAINTEXT_ON_TLS, JAVA, detail="Unrecognized SSL message"))


@pattern("broker.unexpected_request", JAVA, "during SASL handshake",
         r"Unexpected Kafka request of type (?P<api>\w+) during SASL handshake",
         "[2026-11-21 14:31:46,729] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
         "/127.0.0.1 (channelId=127.0.0.1:9094-127.0.0.1:51234-0) (Unexpected Kafka request of type METADATA during "
         "SASL handshake.) (org.apache.kafka.common.network.Selector)")
def _broker_unexpected_request(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(SASL_NEEDED, JAVA, detail=f"broker: Unexpected Kafka request of type {m.group('api')} during SASL "
                   "handshake")


@pattern("broker.unexpected_handshake", JAVA, "Unexpected handshake request",
         r"Unexpected handshake request with client mechanism (?P<mech>\S+), enabled mechanisms are \[(?P<enabled>[^\]]*)\]",
         "Unexpected handshake request with client mechanism PLAIN, enabled mechanisms are []")
def _broker_unexpected_handshake(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(SASL_MECHANISM, JAVA, mechanism=m.group("mech").rstrip(",").upper(),
                   mechanisms=_mechanisms(m.group("enabled")))


@pattern("broker.nonroutable", JAVA, "nonroutable meta-address",
         r"advertised\.listeners cannot use the nonroutable meta-address (?P<address>\S+?)\.?(?:\s|$)",
         "java.lang.IllegalArgumentException: requirement failed: advertised.listeners cannot use the nonroutable "
         "meta-address 0.0.0.0. Use a routable IP address.")
def _broker_nonroutable(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(NONROUTABLE, JAVA, host=m.group("address").rstrip("."), role=ADVERTISED)


@pattern("config.bootstrap_servers", ANY, "bootstrap.servers",
         r"\bbootstrap\.servers['\"]?\s*[=:]\s*['\"]?\[?(?P<list>[^\]\s'\",]+(?:,\s*[^\]\s'\",]+)*)",
         "\tbootstrap.servers = [ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092]")
def _config_bootstrap(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    """The client's configuration: a Java ``ProducerConfig values:`` dump, a properties file, a Python dict."""
    yield from _bootstrap_list(m.group("list"))


@pattern("cli.broker_list", ANY, "--broker-list", r"--broker-list[ =](?P<list>\S+)",
         "echo \"test\"|kafka-console-producer --broker-list ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 "
         "--topic test")
def _cli_broker_list(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield from _command_line(m)


@pattern("cli.bootstrap_server", ANY, "--bootstrap-server", r"--bootstrap-servers?[ =](?P<list>\S+)",
         "kafka-console-consumer --bootstrap-server ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 "
         "--topic test --from-beginning")
def _cli_bootstrap_server(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield from _command_line(m)


@pattern("cli.kcat", ANY, "kcat ", r"\bkcat\b.*?\s-b\s*(?P<list>\S+)",
         "kcat -b ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 -C -t test")
def _cli_kcat(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield from _command_line(m)


@pattern("cli.kafkacat", ANY, "kafkacat ", r"\bkafkacat\b.*?\s-b\s*(?P<list>\S+)",
         "kafkacat -b ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 -L")
def _cli_kafkacat(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield from _command_line(m)


def _command_line(m: re.Match[str]) -> Iterator[Fact]:
    yield from _bootstrap_list(m.group("list").strip("'\""))
    topic = re.search(r"(?:--topic|\s-t)[ =]?\s*([A-Za-z0-9._-]+)", m.string)
    if topic is not None:
        yield Fact("topic", name=topic.group(1))


# --- kafkajs ----------------------------------------------------------------------------------------
# Captured from kafkajs 2.2.4's default JSON console logger and a console.error of the thrown error
# (tests/clients/kafkajs, tests/fixtures/client_logs/*.kafkajs.log). A "[Connection]" line names the
# endpoint in its "broker" field and not its role; the "[BrokerPool] Failed to connect to seed broker"
# line that follows says it was a bootstrap address, "[Producer] Failed to send messages" a leader the
# metadata named.


@pattern("kafkajs.getaddrinfo", KAFKAJS, "getaddrinfo", rf"getaddrinfo (?P<code>ENOTFOUND|EAI_AGAIN) (?P<host>{_HOST})",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.664Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: getaddrinfo ENOTFOUND ip-172-31-18-160.us-west-2.compute.internal","broker":'
         '"ip-172-31-18-160.us-west-2.compute.internal:53395","clientId":"app","stack":"Error: getaddrinfo ENOTFOUND '
         'ip-172-31-18-160.us-west-2.compute.internal\\n    at GetAddrInfoReqWrap.onlookupall [as oncomplete] '
         '(node:dns:122:26)"}')
def _kafkajs_getaddrinfo(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host = m.group("host")
    port = _kafkajs_port(m.string, host) or scan.port_of(host)
    yield Sighting(RESOLVE, KAFKAJS, host, port, role=_kafkajs_role(m.string), status=dns_status(m.group("code")),
                   detail=f"getaddrinfo {m.group('code')} {host}")


@pattern("kafkajs.connect", KAFKAJS, "connect E",
         rf"connect (?P<code>ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH) (?P<addr>{_HOST}|[0-9a-fA-F:]+):"
         r"(?P<port>\d{1,5})",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.535Z","logger":"kafkajs","message":"[BrokerPool] Failed '
         'to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED '
         '127.0.0.1:58109","retryCount":0,"retryTime":326}')
def _kafkajs_connect(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    address, port = m.group("addr"), int(m.group("port"))
    host, broker_port = split_endpoint(_kafkajs_broker(m.string))
    yield Sighting(CONNECT, KAFKAJS, host or address, broker_port or port, address, role=_kafkajs_role(m.string),
                   status=tcp_status(m.group("code")), detail=m.group(0))


@pattern("kafkajs.connection_timeout", KAFKAJS, "Connection timeout", r"KafkaJSConnectionError: Connection timeout|"
         r"\"message\":\"\[(?:Connection|BrokerPool)\] (?:Failed to connect to seed broker[^\"]*: )?Connection timeout\"",
         '{"level":"ERROR","timestamp":"2026-11-21T17:38:06.991Z","logger":"kafkajs","message":"[Connection] Connection '
         'timeout","broker":"127.0.0.1:50237","clientId":"app"}')
def _kafkajs_timeout(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CONNECT, KAFKAJS, host, port, role=_kafkajs_role(m.string), status="timeout",
                   detail="Connection timeout")


# Node's TLS socket when the other side hangs up during the handshake: a plaintext listener reads the
# ClientHello as a bogus Kafka request and closes (librdkafka: "SSL handshake failed: Disconnected").
@pattern("kafkajs.tls_disconnected", KAFKAJS, "before secure TLS connection was established",
         r"Client network socket disconnected before secure TLS connection was established",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.981Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: Client network socket disconnected before secure TLS connection was established",'
         '"broker":"127.0.0.1:50033","clientId":"app","stack":"Error: Client network socket disconnected before '
         'secure TLS connection was established\\n    at TLSSocket.onConnectEnd (node:_tls_wrap:1752:19)"}')
def _kafkajs_tls_disconnected(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(TLS_ON_PLAINTEXT, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group(0))


# Node's words for OpenSSL's verify errors (Node 20 writes "self-signed", older ones "self signed").
@pattern("kafkajs.certificate", KAFKAJS, "certificate",
         r"Connection error: (?P<why>self[- ]signed certificate(?: in certificate chain)?|unable to verify the first "
         r"certificate|unable to get local issuer certificate|certificate has expired)",
         '{"level":"ERROR","timestamp":"2026-11-21T17:38:06.067Z","logger":"kafkajs","message":"[Connection] '
         'Connection error: self-signed certificate","broker":"127.0.0.1:38567","clientId":"app","stack":"Error: '
         'self-signed certificate\n    at TLSSocket.onConnectSecure (node:_tls_wrap:1699:34)"}')
def _kafkajs_certificate(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CERT_UNTRUSTED, KAFKAJS, host, port, role=_kafkajs_role(m.string), detail=m.group("why"))


# Node's tls.checkServerIdentity; not captured here (the lab's certificate fails as self-signed first).
@pattern("kafkajs.certificate_name", KAFKAJS, "does not match certificate's altnames",
         r"Hostname/IP does not match certificate's altnames: (?:IP|Host): (?P<name>[^\s\"]+?)\.? is not in the cert",
         "KafkaJSConnectionError: Connection error: Hostname/IP does not match certificate's altnames: Host: "
         "b-1.example.kafka.us-east-1.amazonaws.com. is not in the cert's altnames: DNS:*.internal.example")
def _kafkajs_certificate_name(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = _kafkajs_endpoint(m.string, scan)
    yield Sighting(CERT_NAME, KAFKAJS, m.group("name"), port if host == m.group("name") else None,
                   role=_kafkajs_role(m.string), detail=m.group(0))


# A listener that wants TLS (plaintext bytes end its handshake) and one that wants SASL (a Kafka request
# before authentication) both just close; kafkajs says only this, for either.
@pattern("kafkajs.connection_closed", KAFKAJS, "Closed connection",
         r"KafkaJSConnectionClosedError: Closed connection|\[BrokerPool\] Closed connection",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.663Z","logger":"kafkajs","message":"[BrokerPool] Closed '
         'connection","retryCount":0,"retryTime":354}')
def _kafkajs_connection_closed(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, KAFKAJS, detail="Closed connection")


@pattern("kafkajs.sasl", KAFKAJS, "authentication failed", r"SASL (?P<mech>[\w-]+) authentication failed: (?P<why>.*?)"
         r"(?:\"|$)",
         '{"level":"ERROR","timestamp":"2026-11-21T17:27:09.872Z","logger":"kafkajs","message":"[SaslAuthenticator-'
         'PLAIN] SASL PLAIN authentication failed: Authentication failed: Invalid username or password","broker":'
         '"127.0.0.1:40341"}')
def _kafkajs_sasl(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(_kafkajs_broker(m.string))
    yield Sighting(SASL_CREDENTIALS, KAFKAJS, host, port, mechanism=m.group("mech").upper(), detail=m.group("why"))


# --- Go: Sarama, franz-go, segmentio/kafka-go ----------------------------------------------------------
# Captured from Sarama v1.61.1 with sarama.Logger on stderr and franz-go v1.22.2 with kgo.BasicLogger at
# INFO, each ending with log.Fatal(err) (tests/clients/go, tests/fixtures/client_logs/*.sarama.log and
# *.franz.log). Sarama names an endpoint "broker host:port" and its role "broker -1" (a seed) or
# "broker N"; franz-go "addr: host:port, broker: seed_N | N".


@pattern("go.dial", GO, "dial tcp ",
         r"dial tcp (?P<addr>\[[0-9a-fA-F:.%]+\]|[^\s:]+):(?P<port>\d{1,5}): (?:connect: )?(?P<why>connection refused|"
         r"no route to host|network is unreachable|connection timed out|i/o timeout)",
         "[sarama] 2026/11/21 17:27:08 client/metadata got error from broker -1 while fetching metadata: dial tcp "
         "127.0.0.1:58109: connect: connection refused")
def _go_dial(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    address, port = m.group("addr").strip("[]"), int(m.group("port"))
    host, node_id, role = _go_broker(m.string)
    yield Sighting(CONNECT, GO, host or address, port, address, node_id, role, status=tcp_status(m.group("why")),
                   detail=m.group(0))


@pattern("go.lookup", GO, "lookup ",
         rf"lookup (?P<host>{_HOST})(?: on (?P<resolver>\S+?))?: (?P<why>no such host|i/o timeout|server misbehaving|"
         r"Temporary failure in name resolution)",
         "[WARN] unable to open connection to broker; addr: ip-172-31-18-160.us-west-2.compute.internal:53395, "
         "broker: 1, err: dial tcp: lookup ip-172-31-18-160.us-west-2.compute.internal on 127.0.0.1:53: no such host")
def _go_lookup(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host = m.group("host")
    _, node_id, role = _go_broker(m.string)
    port = _go_port(m.string, host) or scan.port_of(host)
    yield Sighting(RESOLVE, GO, host, port, node_id=node_id, role=role, status=dns_status(m.group("why")),
                   detail=m.group(0))


@pattern("go.sarama_broker", GO, "registered new broker", rf"registered new broker #(?P<id>-?\d+) at (?P<hp>{_HOSTPORT})",
         "[sarama] 2026/11/21 17:27:08 client/brokers registered new broker #1 at "
         "ip-172-31-18-160.us-west-2.compute.internal:53395")
def _go_sarama_broker(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


@pattern("go.out_of_brokers", GO, "run out of available brokers", r"client has run out of available brokers",
         "2026/11/21 17:27:09 kafka: client has run out of available brokers to talk to: EOF")
def _go_out_of_brokers(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, GO, detail="client has run out of available brokers")


# Go's crypto/tls when the other side answers the ClientHello with non-TLS bytes; a Kafka listener sends
# nothing back (see go.sarama_send_eof, go.franz_tls_eof), so this is from Go's source, not captured.
@pattern("go.tls_record", GO, "does not look like a TLS handshake", r"first record does not look like a TLS handshake",
         "unable to dial: tls: first record does not look like a TLS handshake")
def _go_tls_record(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(TLS_ON_PLAINTEXT, GO, detail="first record does not look like a TLS handshake")


@pattern("go.franz_tls_eof", GO, "using TLS when the broker is not expecting it",
         r"using TLS when the broker is not expecting it",
         "[WARN] unable to open connection to broker due to an immediate EOF, which often means the client is using "
         "TLS when the broker is not expecting it (is TLS misconfigured?); addr: 127.0.0.1:50033, broker: seed_0, "
         "err: EOF")
def _go_franz_tls_eof(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _go_sighting(TLS_ON_PLAINTEXT, m.string, scan, detail="immediate EOF after the TLS ClientHello")


# Go's TLS handshake runs on the first write: a listener that closes on the ClientHello makes Sarama's
# first request fail with EOF, which a plain TCP write never returns.
@pattern("go.sarama_send_eof", GO, "Failed to send ",
         rf"Failed to send (?P<request>\w+Request)(?: V\d+)? to (?P<hp>{_HOSTPORT}): EOF\s*$",
         "[sarama] 2026/11/21 17:27:08 Failed to send ApiVersionsRequest V3 to 127.0.0.1:50033: EOF")
def _go_sarama_send_eof(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _go_sighting(TLS_ON_PLAINTEXT, m.string, scan, hostport=m.group("hp"),
                       detail=f"EOF sending {m.group('request')}: the TLS handshake was cut off")


# A TLS listener answers plaintext with a 7-byte TLS alert (0x15 0x03 0x03 ...) and closes: one byte short
# of the 8-byte response header Sarama reads, hence "unexpected EOF" (a plain close gives "EOF").
@pattern("go.sarama_header_eof", GO, "header from ",
         rf"Failed to read (?P<response>\w+Response)(?: V\d+)? header from (?P<hp>{_HOSTPORT}): unexpected EOF",
         "[sarama] 2026/11/21 17:27:08 Failed to read ApiVersionsResponse V3 header from 127.0.0.1:38533: "
         "unexpected EOF")
def _go_sarama_header_eof(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _go_sighting(PLAINTEXT_ON_TLS, m.string, scan, hostport=m.group("hp"),
                       detail=f"{m.group('response')}: 7 bytes (a TLS alert record) where an 8-byte header was due")


@pattern("go.franz_tls_alert", GO, "tls alert record",
         r"invalid large response size (?P<size>\d+).*?appear to be a tls alert record",
         "[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 352518912 > limit "
         "104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a "
         "plaintext connection speaking to a tls endpoint?")
def _go_franz_tls_alert(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _go_sighting(PLAINTEXT_ON_TLS, m.string, scan, detail=f"response size {m.group('size')}: a TLS record")


@pattern("go.x509", GO, "x509: ", r"x509: (?P<why>certificate signed by unknown authority|certificate has expired[^\"]*"
         r"|certificate is valid for (?P<valid>.*?), not (?P<name>[^\s\"]+)|cannot validate certificate for "
         r"(?P<ip>\S+) because it doesn't contain any IP SANs)",
         "[WARN] unable to open connection to broker; addr: 127.0.0.1:38567, broker: seed_0, err: tls: failed to "
         "verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs")
def _go_x509(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    """Go checks the name before the chain: a self-signed certificate without the name connected to is reported
    for the name (captured); ``signed by unknown authority`` once the name is in it."""
    name = m.group("name") or m.group("ip")
    symptom = CERT_NAME if name else CERT_UNTRUSTED
    yield Sighting(symptom, GO, host=name, detail=m.group("why"))


@pattern("go.franz_sasl_missing", GO, "is SASL missing?", r"\(is SASL missing\?\)",
         "[WARN] read from broker errored, killing connection after 0 successful responses (is SASL missing?); req: "
         "Metadata, addr: 127.0.0.1:40341, broker: seed_0, err: EOF")
def _go_franz_sasl_missing(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield _go_sighting(SASL_NEEDED, m.string, scan, detail="connection closed after 0 successful responses")


@pattern("go.sarama_api_versions", GO, "Completed ApiVersionsRequest",
         rf"Completed ApiVersionsRequest(?: V\d+)? to (?P<hp>{_HOSTPORT})",
         "[sarama] 2026/11/21 17:27:08 Completed ApiVersionsRequest V3 to 127.0.0.1:40341. Broker supports 77 APIs")
def _go_sarama_api_versions(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    scan.go_answered = (scan.line, m.group("hp"))  # the next lines may say the broker hung up after this
    return ()


# A SASL listener answers ApiVersions before authentication and closes the connection at any other
# request: Sarama logs the ApiVersions it completed, then an EOF for the Metadata request.
@pattern("go.sarama_metadata_eof", GO, "while fetching metadata: EOF",
         r"got error from broker (?P<id>-?\d+) while fetching metadata: EOF\s*$",
         "[sarama] 2026/11/21 17:27:08 client/metadata got error from broker -1 while fetching metadata: EOF")
def _go_sarama_metadata_eof(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    answered = scan.go_answered
    if answered is not None and scan.line - answered[0] <= SARAMA_EOF_LINES:
        yield _go_sighting(SASL_NEEDED, m.string, scan, hostport=answered[1],
                           detail="the broker answered ApiVersions, then closed the connection at Metadata")
    else:
        yield _go_sighting(CONNECTION_CLOSED, m.string, scan, detail="EOF fetching metadata")


@pattern("go.sasl_failed", GO, "SASL Authentication failed",
         r"SASL Authentication failed\.?(?::\s*(?P<why>[^;]*))?",
         "[sarama] 2026/11/21 17:27:09 Closed connection to broker 127.0.0.1:40341 due to SASL v1 auth error: kafka "
         "server: SASL Authentication failed: Authentication failed: Invalid username or password")
def _go_sasl_failed(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    """Sarama's ``kafka server: SASL Authentication failed: ...`` and franz-go's ``SASL_AUTHENTICATION_FAILED: SASL
    Authentication failed.: ...``."""
    yield _go_sighting(SASL_CREDENTIALS, m.string, scan, detail=(m.group("why") or "").strip() or None)


@pattern("go.sarama_unknown_topic", GO, "topic or partition that does not exist",
         r"(?:(?P<topic>[A-Za-z0-9._-]+): )?kafka server: Request was for a topic or partition that does not exist",
         "2026/11/21 17:27:09 missing-topic: kafka server: Request was for a topic or partition that does not exist "
         "on this broker")
def _go_sarama_unknown_topic(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(TOPIC_MISSING, GO, topic=m.group("topic") or scan.topic, detail="UNKNOWN_TOPIC_OR_PARTITION")


@pattern("go.franz_topic", GO, "topic: ", r"\btopic: (?P<topic>[A-Za-z0-9._-]+), err: UNKNOWN_TOPIC_OR_PARTITION",
         "[INFO] new topic metadata wait failed, retrying wait; topic: missing-topic, err: UNKNOWN_TOPIC_OR_PARTITION: "
         "This server does not host this topic-partition.")
def _go_franz_topic(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    scan.topic = m.group("topic")  # for the log.Fatal(err) line below, which names no topic
    yield Sighting(TOPIC_MISSING, GO, topic=m.group("topic"), detail="UNKNOWN_TOPIC_OR_PARTITION")


# Sarama's own command-line tools (kafka-console-producer -brokers ...) and many Go and Node apps take the
# bootstrap list as -brokers / --brokers.
@pattern("cli.brokers", ANY, "-brokers", r"(?:^|\s)--?brokers[ =](?P<list>\S+)",
         "$ ./produce -lib sarama -brokers 127.0.0.1:53395 -topic t")
def _cli_brokers(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield from _bootstrap_list(m.group("list").strip("'\""))
    topic = re.search(r"\s--?topic[ =]([A-Za-z0-9._-]+)", m.string)
    if topic is not None:
        yield Fact("topic", name=topic.group(1))


# --- kafka-python ----------------------------------------------------------------------------------


@pattern("kafka_python.no_brokers", KAFKA_PYTHON, "NoBrokersAvailable", r"NoBrokersAvailable",
         "kafka.errors.NoBrokersAvailable: NoBrokersAvailable")
def _kafka_python_no_brokers(m: re.Match[str], scan: Scanner) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, KAFKA_PYTHON, detail="NoBrokersAvailable")


# --- helpers the handlers share ------------------------------------------------------------------------

CONTEXT_LINES = 40
"""How far below a Java connection line its exception lines may come and still be about it."""

OOM_FRAMES = 8
"""How many stack frames below an OutOfMemoryError NetworkReceive.readFrom may appear."""

SARAMA_EOF_LINES = 6
"""How far below Sarama's ``Completed ApiVersionsRequest`` its Metadata EOF may come and still follow it."""

REMEMBERED_HOSTS = 256
"""How many hosts the scanner remembers the port of (for lines that name a host without its port)."""


def _size_sighting(sighting: Sighting, size: int) -> Sighting:
    """What a bogus "response size" says about the bytes the port sent first."""
    raw = (size & 0xFFFFFFFF).to_bytes(4, "big")
    if raw[0] in (0x15, 0x16) and raw[1] == 0x03:
        return replace(sighting, symptom=PLAINTEXT_ON_TLS, detail=f"response size {size}: a TLS record")
    text = raw.decode("latin-1")
    speaks = {"HTTP": "HTTP", "SSH-": "SSH"}.get(text)
    return replace(sighting, detail=f"response size {size}" + (f": {speaks}" if speaks else ""))


def _with_connection(scan: Scanner, sighting: Sighting) -> Sighting:
    """A host-less Java exception line takes the endpoint of the connection line just above it."""
    connection = scan.java
    if sighting.host is not None or connection is None or scan.line - connection.line > CONTEXT_LINES:
        return sighting
    return replace(sighting, host=connection.host, port=connection.port, address=connection.address,
                   node_id=connection.node_id, role=role_of(connection.node_id))


def _bootstrap_list(text: str) -> Iterator[Fact]:
    for element in text.split(","):
        host, port = split_endpoint(element.strip())
        if host and not host.startswith("-"):
            yield Fact(BOOTSTRAP, host, port)


_KAFKAJS_BROKER = re.compile(r"\"broker\":\"(?P<hp>[^\"]+)\"")
_KAFKAJS_ROLES = (("Failed to connect to seed broker", BOOTSTRAP), ("[Producer] Failed to send messages", ADVERTISED))


def _kafkajs_endpoint(line: str, scan: Scanner) -> tuple[str | None, int | None]:
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
    return m.group("hp") if m else None


def _kafkajs_port(line: str, host: str) -> int | None:
    broker_host, port = split_endpoint(_kafkajs_broker(line))
    return port if broker_host is not None and normalise_host(broker_host) == normalise_host(host) else None


# franz-go: broker: seed_0 | broker: 1; Sarama: got error from broker -1 while ..., producer/broker/1 ...
_GO_BROKER = re.compile(r"(?:\"broker\":\"?|broker: ?|\bbroker=|from broker |producer/broker/)(?P<id>seed_\d+|-?\d+)"
                        r"(?![\w.:])")
_GO_ADDR = re.compile(rf"(?:to broker |\"addr\":\"|addr: ?|\baddr=)(?P<hp>{_HOSTPORT})")


def _go_broker(line: str) -> tuple[str | None, int | None, str]:
    """franz-go names a bootstrap connection seed_N and a broker by its node id; Sarama names host:port."""
    m = _GO_BROKER.search(line)
    if m is None:
        named = _GO_ADDR.search(line)
        return (split_endpoint(named.group("hp"))[0] if named else None), None, UNKNOWN
    ident = m.group("id")
    if ident.startswith("seed_"):
        return None, None, BOOTSTRAP
    node_id = int(ident)
    return None, node_id, role_of(node_id)


def _go_sighting(symptom: str, line: str, scan: Scanner, *, hostport: str | None = None,
                 detail: str | None = None) -> Sighting:
    """A failure on the connection a Go line names: its address (``hostport``, else franz-go's ``addr:`` or
    Sarama's ``broker host:port``) and its role (franz-go's ``seed_N``, Sarama's ``broker -1``)."""
    if hostport is None:
        named = _GO_ADDR.search(line)
        hostport = named.group("hp") if named else None
    host, port = split_endpoint(hostport)
    _, node_id, role = _go_broker(line)
    return Sighting(symptom, GO, host, port, node_id=node_id, role=role, detail=detail)


def _go_port(line: str, host: str) -> int | None:
    m = _GO_ADDR.search(line)
    if m is None:
        return None
    named, port = split_endpoint(m.group("hp"))
    return port if named is not None and normalise_host(named) == normalise_host(host) else None


# --- the scanner -----------------------------------------------------------------------------------------


@dataclass
class Scanner:
    """Runs every pattern whose needle is in a line; keeps the few facts the next lines need."""

    line: int = 0
    text: str = ""
    java: JavaConnection | None = None
    topic: str | None = None  # the topic the last Java timeout named, for the exception below it
    pending_oom: tuple[int, str] | None = None
    go_answered: tuple[int, str] | None = None  # Sarama's last completed ApiVersions: (line, host:port)
    kafkajs_broker: str | None = None  # the "broker" field of the last kafkajs connection error
    ports: dict[str, int] = field(default_factory=dict)  # the port each host was last named with
    client_certificate: bool = False  # the log shows the client configured a certificate or keystore
    patterns: tuple[Pattern, ...] = field(default_factory=lambda: tuple(PATTERNS))

    def scan(self, number: int, text: str, needles: set[str] | None = None) -> list[Item]:
        """What line ``number`` says; ``needles``: those known to be in it (else each is looked for)."""
        self.line, self.text = number, text
        found: list[Item] = []
        if needles is None:
            candidates: Iterable[Pattern] = (p for p in self.patterns if p.needle in text)
        elif len(needles) == 1:
            candidates = _BY_NEEDLE.get(next(iter(needles)), ())
        else:
            candidates = sorted((p for n in needles for p in _BY_NEEDLE.get(n, ())), key=_ORDER.__getitem__)
        for candidate in candidates:
            m = candidate.regex.search(text)
            if m is not None:
                found.extend(candidate.handler(m, self))
        for item in found:
            if item.host and item.port and (item.host in self.ports or len(self.ports) < REMEMBERED_HOSTS):
                self.ports[normalise_host(item.host)] = item.port
        return _unique(found)

    def port_of(self, host: str) -> int | None:
        """The port ``host`` was last named with, for a line that names the host alone (Go's ``lookup host``,
        kafkajs's ``getaddrinfo ENOTFOUND host``)."""
        return self.ports.get(normalise_host(host))

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



NEEDLES: tuple[str, ...] = tuple(dict.fromkeys(p.needle for p in PATTERNS))
"""Every pattern's needle, once: a line holding none of them matches no pattern."""

_BY_NEEDLE: dict[str, tuple[Pattern, ...]] = {n: tuple(p for p in PATTERNS if p.needle == n) for n in NEEDLES}
_ORDER: dict[Pattern, int] = {p: i for i, p in enumerate(PATTERNS)}


def _unique(items: list[Item]) -> list[Item]:
    """What one line says, each thing once: two patterns may read the same failure in one line (kcat's
    ``% ERROR: Local: Authentication failure: ...: SASL authentication error: ...``); the first wins."""
    seen: set[tuple[object, ...]] = set()
    unique = []
    # A topic failure read without its topic, beside the same failure read with it, says less: it goes.
    topical = {item.symptom for item in items if isinstance(item, Sighting) and item.topic is not None}
    items = [item for item in items
             if not (isinstance(item, Sighting) and item.topic is None and item.host is None and item.symptom in topical)]
    for item in items:
        key = ((item.symptom, item.host, item.port, item.node_id, item.topic) if isinstance(item, Sighting)
               else (item.kind, item.host, item.port, item.node_id, item.name))
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique
