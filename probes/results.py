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
    """Bytes of another protocol seen where Kafka was expected."""

    kind: str
    description: str
    preview: str


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
