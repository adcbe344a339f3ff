"""Reports built from the dataclasses, no network: a healthy cluster, then one fact changed per test.

``healthy(brokers=3)`` is a cluster every rule should be silent about; ``with_broker(report, 2,
dns=dns_fail("kafka2.example.com"))`` breaks one broker; the seed scenarios (EC2 internal name, the
Docker BOB/FRED listeners) are built the way the orchestrator would record them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kdiag.report import (AdvertisedDetail, BrokerReport, Cluster, CoordinatorReport, DnsDetail, Endpoint,
                          MetadataDetail, Report, RoundtripDetail, Stage, TcpDetail, Vantage)
from probes.results import (DnsResult, ForeignBytes, IdentityCheck, KafkaBroker, KafkaCheck, PartitionInfo,
                            TcpResult, TopicInfo)

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
GROUP = "kdiag-probe"
ROUNDTRIP_TOPIC = "orders"


# --- single facts -------------------------------------------------------------------------------


def dns_ok(host: str, *addresses: str) -> DnsResult:
    return DnsResult(host=host, status="ok", addresses=tuple(addresses), source="system", dns_status="ok",
                     dns_addresses=tuple(addresses), nameserver="192.0.2.53")


def dns_fail(host: str, status: str = "nxdomain") -> DnsResult:
    return DnsResult(host=host, status=status, source="system", dns_status=status, nameserver="192.0.2.53")


def tcp_ok(address: str, port: int) -> TcpResult:
    return TcpResult(status="ok", address=address, port=port, duration_ms=0.4)


def tcp_fail(status: str, address: str, port: int) -> TcpResult:
    errors = {"refused": "[Errno 111] Connection refused", "timeout": "timed out",
              "unreachable": "[Errno 113] No route to host"}
    return TcpResult(status=status, address=address, port=port, error=errors.get(status, "error"),
                     duration_ms=3000.0 if status == "timeout" else 0.3)


SKIPPED_DNS = DnsResult(host="", status="skip")
SKIPPED_TCP = TcpResult(status="skip")
SKIPPED_KAFKA = KafkaCheck(status="skip")
SKIPPED_IDENTITY = IdentityCheck(status="skip")


def kafka_ok(brokers: Sequence[BrokerReport] = ()) -> KafkaCheck:
    return KafkaCheck(status="ok", api_versions_version=3, metadata_version=12, cluster_id=CLUSTER_ID,
                      controller_id=brokers[0].node_id if brokers else None,
                      brokers=tuple(KafkaBroker(b.node_id, b.host, b.port, b.rack) for b in brokers))


def foreign(kind: str, description: str, preview: str) -> KafkaCheck:
    return KafkaCheck(status="not_kafka", foreign=ForeignBytes(kind, description, preview))


def broker(node_id: int, host: str, port: int = 9092, *, address: str | None = None) -> BrokerReport:
    """A broker this machine resolves, connects to and verifies."""
    address = address or f"203.0.113.{10 + node_id}"
    return BrokerReport(node_id=node_id, host=host, port=port, dns=dns_ok(host, address),
                        tcp=tcp_ok(address, port), kafka=KafkaCheck(status="ok", cluster_id=CLUSTER_ID),
                        identity=IdentityCheck(status="ok", topic=ROUNDTRIP_TOPIC, cluster_id=CLUSTER_ID))


def unresolvable(node_id: int, host: str, port: int = 9092, status: str = "nxdomain") -> BrokerReport:
    return BrokerReport(node_id=node_id, host=host, port=port, dns=dns_fail(host, status))


def topics_for(node_ids: Sequence[int], *, name: str = ROUNDTRIP_TOPIC, partitions: int = 6,
               offsets_partitions: int = 6) -> tuple[TopicInfo, ...]:
    """One user topic and __consumer_offsets, leaders round-robin over ``node_ids``."""
    ids = list(node_ids)

    def spread(count: int) -> tuple[PartitionInfo, ...]:
        out = []
        for p in range(count):
            leader = ids[p % len(ids)]
            replicas = tuple(ids[(p + i) % len(ids)] for i in range(min(3, len(ids))))
            out.append(PartitionInfo(partition=p, leader_id=leader, replica_nodes=replicas, isr_nodes=replicas))
        return tuple(out)

    return (TopicInfo(name=name, partitions=spread(partitions)),
            TopicInfo(name="__consumer_offsets", partitions=spread(offsets_partitions), is_internal=True))


# --- whole reports ------------------------------------------------------------------------------


def cluster_report(bootstrap: str, bootstrap_addresses: Sequence[str], brokers: Sequence[BrokerReport], *,
                   topics: Sequence[TopicInfo] | None = None, coordinator: CoordinatorReport | None = None,
                   client: dict[str, str] | None = None, vantage: Vantage | None = None,
                   roundtrip: RoundtripDetail | None = None) -> Report:
    """A report whose bootstrap worked and returned ``brokers``, with stages consistent with them."""
    host, _, port_text = bootstrap.rpartition(":")
    endpoint = Endpoint(host, int(port_text))
    node_ids = [b.node_id for b in brokers]
    reachable = sum(1 for b in brokers if b.reachable and b.identity.status != "wrong_broker")
    all_good = reachable == len(brokers)
    if roundtrip is None:
        roundtrip = (RoundtripDetail(topic=ROUNDTRIP_TOPIC, partition=0, offset=42, produce_ms=4.0, consume_ms=6.0)
                     if all_good else RoundtripDetail(reason="blocked by advertised"))
    stages = (
        Stage("dns", "ok", 2.0, f"{host} resolves", DnsDetail((dns_ok(host, *bootstrap_addresses),))),
        Stage("tcp", "ok", 0.5, f"{endpoint} accepts connections",
              TcpDetail(tuple(tcp_ok(a, endpoint.port) for a in bootstrap_addresses))),
        Stage("metadata", "ok", 6.0, f"{len(brokers)} brokers",
              MetadataDetail(endpoint=str(endpoint), kafka=kafka_ok(brokers))),
        Stage("advertised", "ok" if all_good else "fail", 12.0, f"{reachable}/{len(brokers)} brokers usable",
              AdvertisedDetail(checked=len(brokers), reachable=reachable)),
        Stage("roundtrip", "ok" if all_good else "skip", 10.0, "", roundtrip),
    )
    if coordinator is None and brokers:
        first = brokers[0]
        coordinator = CoordinatorReport(group=GROUP, node_id=first.node_id, host=first.host, port=first.port,
                                        dns=first.dns, tcp=first.tcp if first.tcp.status != "skip" else None)
    cluster = Cluster(cluster_id=CLUSTER_ID, controller_id=node_ids[0] if node_ids else None, brokers=tuple(brokers),
                      topics=tuple(topics if topics is not None else topics_for(node_ids)), coordinator=coordinator)
    return Report(bootstrap=(endpoint,), stages=stages, cluster=cluster, vantage=vantage or
                  Vantage("laptop", ("192.0.2.10",)), generated_at="2026-11-21T14:00:00Z", client=client or {})


def healthy(brokers: int = 1, *, client: dict[str, str] | None = None) -> Report:
    """1 broker at kafka.example.com:9092, or brokers 1..n at kafkaN.example.com:9092."""
    if brokers == 1:
        return cluster_report("kafka.example.com:9092", ["203.0.113.11"],
                              [broker(1, "kafka.example.com", address="203.0.113.11")], client=client)
    members = [broker(n, f"kafka{n}.example.com") for n in range(1, brokers + 1)]
    return cluster_report("kafka1.example.com:9092", ["203.0.113.11"], members, client=client)


def bootstrap_failure(bootstrap: str = "kafka.example.com:9092", *, dns: DnsResult | None = None,
                      attempts: Sequence[TcpResult] = (), kafka: KafkaCheck | None = None,
                      client: dict[str, str] | None = None) -> Report:
    """A run that stopped at the bootstrap: no metadata, so no cluster."""
    host, _, port_text = bootstrap.rpartition(":")
    endpoint = Endpoint(host, int(port_text))
    dns = dns or dns_ok(host, "203.0.113.11")
    tcp_status = "skip" if not dns.ok else ("ok" if any(a.ok for a in attempts) else "fail")
    metadata_status = "skip" if tcp_status != "ok" else "fail"
    stages = (
        Stage("dns", "ok" if dns.ok else "fail", 2.0, "", DnsDetail((dns,))),
        Stage("tcp", tcp_status, 0.0, "", TcpDetail(tuple(attempts))),
        Stage("metadata", metadata_status, 0.0, "", MetadataDetail(endpoint=str(endpoint) if kafka else None,
                                                                   kafka=kafka, reason=None if kafka else "blocked")),
        Stage("advertised", "skip", 0.0, "blocked", AdvertisedDetail(reason="blocked")),
        Stage("roundtrip", "skip", 0.0, "blocked", RoundtripDetail(reason="blocked")),
    )
    return Report(bootstrap=(endpoint,), stages=stages, cluster=None, vantage=Vantage("laptop", ("192.0.2.10",)),
                  generated_at="2026-11-21T14:00:00Z", client=client or {})


# --- tweaks -------------------------------------------------------------------------------------


def with_broker(report: Report, node_id: int, **changes: object) -> Report:
    """Replace fields of one broker (dns=, tcp=, kafka=, identity=, host=, port=...)."""
    assert report.cluster is not None
    brokers = tuple(replace(b, **changes) if b.node_id == node_id else b  # type: ignore[arg-type]
                    for b in report.cluster.brokers)
    return replace(report, cluster=replace(report.cluster, brokers=brokers))


def with_coordinator(report: Report, **changes: object) -> Report:
    assert report.cluster is not None and report.cluster.coordinator is not None
    coordinator = replace(report.cluster.coordinator, **changes)  # type: ignore[arg-type]
    return replace(report, cluster=replace(report.cluster, coordinator=coordinator))


def with_topics(report: Report, *topics: TopicInfo) -> Report:
    assert report.cluster is not None
    return replace(report, cluster=replace(report.cluster, topics=tuple(topics)))


def with_stage(report: Report, name: str, status: str, detail: object | None = None, summary: str = "") -> Report:
    stages = tuple(replace(s, status=status, summary=summary or s.summary, detail=detail if detail is not None
                           else s.detail) if s.name == name else s for s in report.stages)
    return replace(report, stages=stages)


def with_roundtrip_failure(report: Report, error: str, error_code: str | None = None, *,
                           client_log: Sequence[str] = (), topic: str = ROUNDTRIP_TOPIC,
                           topic_created: bool = False) -> Report:
    detail = RoundtripDetail(topic=topic, partition=0, error=error, error_code=error_code,
                             client_log=tuple(client_log), topic_created=topic_created)
    return with_stage(report, "roundtrip", "fail", detail, summary=error)


# --- the seed's scenarios -----------------------------------------------------------------------

EC2_PUBLIC = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"
EC2_INTERNAL = "ip-172-31-18-160.us-west-2.compute.internal"


def ec2_seed() -> Report:
    """Laptop -> EC2 public name:9092 works; broker 0 advertises its VPC-internal name (NXDOMAIN here)."""
    broker0 = unresolvable(0, EC2_INTERNAL, 9092)
    coordinator = CoordinatorReport(group=GROUP, node_id=0, host=EC2_INTERNAL, port=9092,
                                    dns=dns_fail(EC2_INTERNAL), tcp=None)
    return cluster_report(f"{EC2_PUBLIC}:9092", ["54.191.84.122"], [broker0],
                          topics=topics_for([0], name="test", partitions=1), coordinator=coordinator,
                          vantage=Vantage("laptop", ("172.27.230.23",)))


def docker_fred_from_elsewhere() -> Report:
    """Another machine bootstraps kafka0:9092 (the Docker host's published port) and is told localhost:9092."""
    broker0 = BrokerReport(node_id=0, host="localhost", port=9092, dns=dns_ok("localhost", "127.0.0.1"),
                           tcp=tcp_fail("refused", "127.0.0.1", 9092))
    return cluster_report("kafka0:9092", ["192.168.1.50"], [broker0], topics=topics_for([0], name="test"),
                          vantage=Vantage("workstation", ("192.168.1.77",)))


def docker_bob_from_host() -> Report:
    """On the Docker host, the client bootstraps localhost:29092 (LISTENER_BOB) and is told kafka0:29092."""
    broker0 = unresolvable(0, "kafka0", 29092)
    return cluster_report("localhost:29092", ["127.0.0.1"], [broker0], topics=topics_for([0], name="test"),
                          vantage=Vantage("docker-host", ("192.168.1.50",)))
