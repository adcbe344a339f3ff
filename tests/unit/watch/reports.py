"""Small synthetic reports for the watch unit tests."""

from __future__ import annotations

from kdiag.finding import make_finding
from kdiag.report import BrokerReport, Cluster, Endpoint, Report, Stage
from probes.results import DnsResult, KafkaCheck, TcpResult


def broker(node_id: int = 1, *, up: bool = True) -> BrokerReport:
    return BrokerReport(node_id, f"kafka-{node_id}", 9092, dns=DnsResult(f"kafka-{node_id}", "ok", ("10.0.0.1",)),
                        tcp=TcpResult("ok" if up else "refused", "10.0.0.1", 9092, duration_ms=2.5),
                        kafka=KafkaCheck("ok" if up else "skip"))


def healthy(brokers: int = 2) -> Report:
    stages = tuple(Stage(name, "ok", 1.0) for name in ("dns", "tcp", "metadata", "advertised", "roundtrip"))
    return Report(bootstrap=(Endpoint("kafka-1", 9092),), stages=stages,
                  cluster=Cluster("cid", 1, tuple(broker(n) for n in range(1, brokers + 1))))


def refused() -> Report:
    stages = (Stage("dns", "ok", 1.0), Stage("tcp", "fail", 1.0), Stage("metadata", "skip", 0.0, "blocked by tcp"))
    finding = make_finding("BOOTSTRAP_REFUSED", "error", "refused", "nothing listens", {"port": 9092})
    return Report(bootstrap=(Endpoint("kafka-1", 9092),), stages=stages, findings=(finding,))


def one_broker_down() -> Report:
    report = healthy()
    cluster = Cluster("cid", 1, (broker(1), broker(2, up=False)))
    finding = make_finding("ADVERTISED_UNREACHABLE", "error", "broker 2", "refused", {"node_id": 2})
    stages = tuple(Stage(s.name, "fail" if s.name == "advertised" else s.status, 1.0) for s in report.stages)
    return Report(bootstrap=report.bootstrap, stages=stages, cluster=cluster, findings=(finding,))
