"""One root cause, one finding: later rules stay quiet about what an earlier one already explains."""

from __future__ import annotations

from kdiag.diagnose import diagnose
from kdiag.report import BrokerReport
from probes.results import IdentityCheck, KafkaCheck

from .builders import (SKIPPED_IDENTITY, SKIPPED_KAFKA, SKIPPED_TCP, bootstrap_failure, cluster_report, dns_fail,
                       dns_ok, ec2_seed, healthy, tcp_fail, tcp_ok, unresolvable, with_broker, with_coordinator,
                       with_roundtrip_failure)


def ids(report) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.id for f in diagnose(report)]


def test_bootstrap_dns_failure_yields_only_bootstrap_unresolvable() -> None:
    assert ids(bootstrap_failure(dns=dns_fail("kafka.example.com"))) == ["BOOTSTRAP_UNRESOLVABLE"]


def test_bootstrap_refused_yields_no_metadata_or_roundtrip_findings() -> None:
    assert ids(bootstrap_failure(attempts=[tcp_fail("refused", "203.0.113.11", 9092)])) == ["BOOTSTRAP_REFUSED"]


def test_sasl_required_at_the_bootstrap_yields_only_sasl_required() -> None:
    report = bootstrap_failure(attempts=[tcp_ok("203.0.113.11", 9092)],
                               kafka=KafkaCheck("auth_required", sasl_mechanisms=("PLAIN",)))
    assert ids(report) == ["SASL_REQUIRED"]


def test_ec2_single_broker_does_not_add_partial_cluster_or_coordinator_findings() -> None:
    report = with_roundtrip_failure(ec2_seed(), "Local: Message timed out", "_MSG_TIMED_OUT")
    assert ids(report) == ["ADVERTISED_UNRESOLVABLE"]


def test_every_broker_unresolvable_yields_one_finding_and_no_partial_cluster() -> None:
    brokers = [unresolvable(n, f"ip-10-0-1-{10 + n}.ec2.internal") for n in (1, 2, 3)]
    report = cluster_report("kafka.example.com:9092", ["203.0.113.11"], brokers)
    assert ids(report) == ["ADVERTISED_UNRESOLVABLE"]


def test_one_unresolvable_broker_among_working_ones_adds_partial_cluster() -> None:
    report = with_broker(healthy(3), 2, dns=dns_fail("kafka2.example.com"), tcp=SKIPPED_TCP, kafka=SKIPPED_KAFKA,
                         identity=SKIPPED_IDENTITY)
    assert ids(report) == ["ADVERTISED_UNRESOLVABLE", "PARTIAL_CLUSTER"]


def test_loopback_broker_is_not_also_reported_unreachable() -> None:
    report = with_broker(healthy(3), 2, host="localhost", dns=dns_ok("localhost", "127.0.0.1"),
                         tcp=tcp_fail("refused", "127.0.0.1", 9092), kafka=SKIPPED_KAFKA, identity=SKIPPED_IDENTITY)
    assert ids(report) == ["ADVERTISED_LOOPBACK", "PARTIAL_CLUSTER"]


def test_coordinator_on_a_blamed_broker_among_working_ones_adds_coordinator_unreachable() -> None:
    """The cause (broker 1's name), what fails for producers (its partitions) and for consumers (the group)."""
    report = with_broker(healthy(3), 1, dns=dns_fail("kafka1.example.com"), tcp=SKIPPED_TCP, kafka=SKIPPED_KAFKA,
                         identity=SKIPPED_IDENTITY)
    report = with_coordinator(report, dns=dns_fail("kafka1.example.com"), tcp=None)
    assert ids(report) == ["ADVERTISED_UNRESOLVABLE", "PARTIAL_CLUSTER", "COORDINATOR_UNREACHABLE"]


def test_unreachable_broker_with_failed_roundtrip_yields_no_roundtrip_failed() -> None:
    report = with_broker(healthy(3), 3, tcp=tcp_fail("timeout", "203.0.113.13", 9092), kafka=SKIPPED_KAFKA,
                         identity=SKIPPED_IDENTITY)
    report = with_roundtrip_failure(report, "Local: Message timed out", "_MSG_TIMED_OUT")
    assert ids(report) == ["ADVERTISED_UNREACHABLE", "PARTIAL_CLUSTER"]


def test_healthy_clusters_yield_no_findings_at_all() -> None:
    assert diagnose(healthy(1)) == ()
    assert diagnose(healthy(3)) == ()


def test_healthy_local_development_broker_on_localhost_yields_no_findings() -> None:
    local = BrokerReport(1, "localhost", 9092, dns=dns_ok("localhost", "127.0.0.1", "::1"),
                         tcp=tcp_ok("127.0.0.1", 9092), kafka=KafkaCheck("ok"), identity=IdentityCheck("ok"))
    assert diagnose(cluster_report("localhost:9092", ["127.0.0.1", "::1"], [local])) == ()
