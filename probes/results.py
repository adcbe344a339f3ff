"""What the probes found, as frozen dataclasses with upstream Kafka field names.

These are the facts of a report: the orchestrator assembles them, the diagnosis rules read them,
the renderers print them, and ``kdiag.report`` gives them their JSON form (schema kdiag.report/1).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DnsResult:
    """How one host name resolved from here.

    ``status`` is what a client will experience (the system resolver, which honours /etc/hosts):
    ok | nxdomain | no_answer | servfail | timeout | error. ``dns_status`` is what a direct DNS
    query (dnspython) said, so "resolves only through /etc/hosts" and its opposite can be told.
    """

    host: str
    status: str
    addresses: tuple[str, ...] = ()
    source: str = "system"  # literal | system | dns
    dns_status: str | None = None
    dns_addresses: tuple[str, ...] = ()
    cname_chain: tuple[str, ...] = ()
    ttl: int | None = None
    nameserver: str | None = None
    error: str | None = None
    note: str | None = None
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class TcpResult:
    """One TCP connect: ok | refused | timeout | unreachable | error | skip."""

    status: str
    address: str | None = None
    port: int | None = None
    error: str | None = None
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class ForeignBytes:
    """Bytes of another protocol seen where Kafka was expected, and what they looked like: ``kind`` is a
    stable identifier, ``description`` prose. The codec recognises them (``identify_foreign``); the probe
    and the capture report them as they are."""

    # tls_alert | tls_handshake | http | ssh | zookeeper | text | binary | silent; a peer misbehaving in time or
    # size (probes.kafka): stalled | hung | closed | too_large
    kind: str
    description: str
    preview: str  # the first bytes, printable ASCII kept, the rest as \\xNN
    # The Kafka request whose answer misbehaved (ApiVersions, Metadata, ...), for the kinds about one answer
    # (stalled, hung, closed, too_large); None for another protocol's bytes, which answer no request.
    request: str | None = None

    @property
    def is_tls(self) -> bool:
        return self.kind in ("tls_alert", "tls_handshake")


@dataclass(frozen=True)
class KafkaBroker:
    node_id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True)
class PartitionInfo:
    partition: int
    leader_id: int
    replica_nodes: tuple[int, ...] = ()
    isr_nodes: tuple[int, ...] = ()
    error: str = "NONE"


@dataclass(frozen=True)
class TopicInfo:
    name: str
    partitions: tuple[PartitionInfo, ...] = ()
    is_internal: bool = False
    error: str = "NONE"


@dataclass(frozen=True)
class VersionGap:
    """A request kdiag needed whose versions the broker and kdiag do not share (ApiVersions said so).

    ``broker_min``/``broker_max`` are None when the broker does not offer the API at all; the broker is
    too old for it when its newest version is below the oldest kdiag speaks (or it has none)."""

    api: str  # the upstream request name: Metadata, SaslHandshake, FindCoordinator, ...
    broker_min: int | None
    broker_max: int | None
    kdiag_min: int
    kdiag_max: int

    @property
    def broker_too_old(self) -> bool:
        return self.broker_max is None or self.broker_max < self.kdiag_min

    def __str__(self) -> str:
        offered = "none" if self.broker_max is None else f"v{self.broker_min}-v{self.broker_max}"
        return f"{self.api}: the broker speaks {offered}, kdiag v{self.kdiag_min}-v{self.kdiag_max}"


@dataclass(frozen=True)
class KafkaCheck:
    """The Kafka conversation over one connection.

    ``status``: ok | not_kafka | tls_expected | auth_required | wrong_broker | error | skip.
    """

    status: str
    api_versions_version: int | None = None
    metadata_version: int | None = None
    cluster_id: str | None = None
    controller_id: int | None = None
    brokers: tuple[KafkaBroker, ...] = ()
    topics: tuple[TopicInfo, ...] = ()
    foreign: ForeignBytes | None = None
    sasl_mechanisms: tuple[str, ...] | None = None
    error: str | None = None
    duration_ms: float = 0.0
    brokers_omitted: int = 0  # advertised brokers beyond probes.limits.MAX_BROKERS: counted, not kept
    topics_omitted: int = 0  # topics beyond MAX_TOPICS (or MAX_PARTITIONS): counted, not kept
    version_gap: VersionGap | None = None  # the request that failed because no version is shared

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class IdentityCheck:
    """Does the advertised endpoint lead to the broker that claims it?

    ``status``: ok | wrong_broker | unverified (the broker leads no partition, or the check failed)
    | skip. Proven by a ListOffsets for a partition the broker leads (NOT_LEADER_OR_FOLLOWER from
    anyone else) and by the cluster id the endpoint reports.
    """

    status: str
    topic: str | None = None
    partition: int | None = None
    error: str | None = None
    cluster_id: str | None = None


@dataclass(frozen=True)
class CertificateInfo:
    """The facts of one X.509 certificate that a connectivity problem turns on (no key material)."""

    subject: str | None = None  # RFC 4514 order: "CN=kafka-1.example.com,O=Example"
    issuer: str | None = None
    dns_names: tuple[str, ...] = ()  # subjectAltName dNSName entries
    ip_addresses: tuple[str, ...] = ()  # subjectAltName iPAddress entries
    not_before: str | None = None  # ISO 8601, UTC
    not_after: str | None = None
    serial_number: str | None = None  # hex
    sha256: str | None = None  # fingerprint of the DER, hex with colons

    @property
    def self_signed(self) -> bool:
        return self.subject is not None and self.subject == self.issuer


@dataclass(frozen=True)
class TlsResult:
    """One TLS handshake, done the way librdkafka does it.

    ``status``: ok | untrusted (the chain does not verify against the trust anchors in ``trust``) |
    hostname_mismatch (``host`` is not in the certificate) | not_tls (the port speaks plaintext:
    ``plaintext_kafka`` True when a plaintext ApiVersions on a new connection was answered, or
    ``received`` shows the non-TLS bytes) | closed (the peer hung up during the handshake, nothing
    else known) | alert (the server refused the handshake with a TLS alert, e.g. a client certificate
    is required; under TLS 1.3 it comes on the first read after the handshake,
    ``alert_after_handshake``) | timeout | error | skip. ``version`` is known for a refused handshake
    too, from the server's ServerHello.
    """

    status: str
    host: str | None = None  # the name connected to: SNI and hostname verification use it
    address: str | None = None
    port: int | None = None
    sni: str | None = None  # None when no SNI is sent (an IP address, as librdkafka does)
    version: str | None = None  # TLSv1.3
    cipher: str | None = None
    certificate: CertificateInfo | None = None
    trust: str | None = None  # what the chain was verified against, e.g. "ssl.ca.location=/etc/ca.pem"
    hostname_verification: bool = True
    verify_code: int | None = None  # OpenSSL's X509_V_ERR_* code
    verify_error: str | None = None  # and its message
    name_in_certificate: bool | None = None  # kdiag's own check of host against the SANs
    alert: str | None = None  # the TLS alert the server sent, e.g. "certificate_required"
    alert_after_handshake: bool = False  # the alert came on the first read after the handshake (TLS 1.3)
    client_certificate: CertificateInfo | None = None  # the certificate the client presents (None: none)
    client_certificate_requested: bool | None = None  # the server asked for one (None: not known, TLS 1.3)
    received: str | None = None  # preview of what came back instead of TLS
    plaintext_kafka: bool | None = None
    client_hello_size: int | None = None  # the "size" a plaintext Kafka listener reads from our ClientHello
    error: str | None = None
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class SaslResult:
    """SASL authentication on one connection: SaslHandshake v1, then SaslAuthenticate.

    ``status``: ok | unsupported_mechanism (``enabled_mechanisms`` lists the listener's) |
    auth_failed (``error_message`` is the broker's) | not_sasl (the listener has no SASL: the
    handshake answered ILLEGAL_SASL_STATE) | not_probed (the mechanism is enabled, but kdiag does not
    authenticate with it: GSSAPI, OAUTHBEARER) | closed (the peer closed the connection instead of
    answering ``closed_after``: ``sent_bytes`` of that request, the close ``closed_after_ms`` after them) |
    too_old (``version_gap``: the broker speaks no SASL version kdiag does) | error | skip.
    """

    status: str
    mechanism: str | None = None
    username: str | None = None
    enabled_mechanisms: tuple[str, ...] | None = None
    handshake_version: int | None = None
    authenticate_version: int | None = None
    error_code: int | None = None
    error_name: str | None = None
    error_message: str | None = None  # the broker's own words
    session_lifetime_ms: int | None = None
    endpoint: str | None = None
    error: str | None = None  # kdiag's account of what went wrong
    duration_ms: float = 0.0
    closed_after: str | None = None  # status closed: the request the peer closed the connection on
    sent_bytes: int | None = None  # its size on the wire, as kdiag sent it
    closed_after_ms: float | None = None  # how long after sending it the connection was closed
    version_gap: VersionGap | None = None  # status too_old

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class RoundtripResult:
    """One produce + consume round trip (or why it did not run): the ``roundtrip`` stage's detail."""

    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    produce_ms: float | None = None
    consume_ms: float | None = None
    error: str | None = None
    error_code: str | None = None
    topic_created: bool = False
    client_log: tuple[str, ...] = ()
    reason: str | None = None  # set when the stage was skipped

    @property
    def ok(self) -> bool:
        return self.error is None and self.reason is None and self.consume_ms is not None


# --- the bootstrap host's other listeners (probes.listeners) ---------------------------------------


@dataclass(frozen=True)
class AdvertisedAddress:
    """One broker that another listener advertises, and whether it resolves and connects from here."""

    node_id: int
    host: str
    port: int
    dns: str  # DnsResult.status
    tcp: str  # TcpResult.status ("skip" when the name did not resolve)

    @property
    def usable(self) -> bool:
        return self.dns == "ok" and self.tcp == "ok"


@dataclass(frozen=True)
class ListenerProbe:
    """One other port that accepted a connection.

    ``status``: ok (a listener of the same cluster answered the metadata request) | other_cluster
    | the :class:`KafkaCheck` status otherwise (not_kafka, tls_expected, auth_required, error), or
    ``tls_failed`` when the client's TLS settings did not get through the handshake.
    """

    port: int
    status: str
    cluster_id: str | None = None
    brokers: tuple[AdvertisedAddress, ...] = ()
    error: str | None = None

    @property
    def usable(self) -> bool:
        """A listener of this cluster whose every advertised broker resolves and connects from here."""
        return self.status == "ok" and bool(self.brokers) and all(b.usable for b in self.brokers)


@dataclass(frozen=True)
class ListenerScan:
    """The other ports tried on the bootstrap host (``address`` is the address of ``host`` used)."""

    host: str
    address: str
    ports: tuple[int, ...] = ()  # every port tried
    listeners: tuple[ListenerProbe, ...] = ()  # the ports that accepted a connection, by port
    reason: str | None = None  # why the scan did not finish, if it did not

    @property
    def usable(self) -> tuple[ListenerProbe, ...]:
        return tuple(listener for listener in self.listeners if listener.usable)

    @property
    def open_ports(self) -> frozenset[int]:
        return frozenset(listener.port for listener in self.listeners)


@dataclass(frozen=True)
class Landing:
    """One fresh connection to the address the bootstrap used, and which broker answered on it.

    ``node_id`` is proven, not claimed: the broker answered ListOffsets without NOT_LEADER_OR_FOLLOWER
    for a partition that node leads (``topic``/``partition``); None when no partition proved it.
    ``cluster_id`` is what its Metadata said. Several connections landing on different node ids (or
    cluster ids) mean something in front of the brokers spreads connections over them.
    """

    node_id: int | None = None
    cluster_id: str | None = None
    topic: str | None = None
    partition: int | None = None
    error: str | None = None


@dataclass(frozen=True)
class IdleCheck:
    """The bootstrap connection held idle for ``idle_s`` seconds, then asked for Metadata (``--idle-check``).

    ``status``: ok (answered in ``answer_ms``) | timeout (no answer: the flow was dropped silently) |
    closed (reset or closed by the peer or something in the path) | error.
    """

    status: str
    idle_s: float
    answer_ms: float = 0.0
    error: str | None = None
