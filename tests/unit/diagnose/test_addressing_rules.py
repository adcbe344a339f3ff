"""ADVERTISED_ADDRESS_FAMILY_SPLIT: a name whose addresses connect only in part (localhost ::1 vs 127.0.0.1)."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose import diagnose, run_rule
from kdiag.report import TcpDetail

from .builders import broker, cluster_report, dns_ok, healthy, tcp_fail, tcp_ok, with_broker, with_stage

SPLIT = (tcp_fail("refused", "::1", 9092), tcp_ok("127.0.0.1", 9092))


def localhost_broker_bound_to_ipv4():
    """A laptop bootstraps localhost:9092; the broker advertises localhost:9092 and listens on 127.0.0.1 only."""
    local = replace(broker(1, "localhost", address="127.0.0.1"), dns=dns_ok("localhost", "::1", "127.0.0.1"),
                    tcp=tcp_ok("127.0.0.1", 9092), tcp_attempts=SPLIT)
    report = cluster_report("localhost:9092", ["::1", "127.0.0.1"], [local])
    return with_stage(report, "tcp", "ok", TcpDetail(SPLIT))


def test_a_broker_refused_on_ipv6_and_accepted_on_ipv4_is_a_family_split_warning():
    (found,) = run_rule(localhost_broker_bound_to_ipv4(), "ADVERTISED_ADDRESS_FAMILY_SPLIT")
    assert found.severity == "warning"
    assert found.title.startswith("localhost:9092 accepts connections only on IPv4")
    assert "Connect to ipv6#[::1]:9092 failed: Connection refused" in found.explanation
    assert "listeners=PLAINTEXT://:9092" in found.fix and "broker.address.family=v4" in found.fix
    assert "advertised.listeners=PLAINTEXT://127.0.0.1:9092" in found.fix
    assert found.evidence["failing_families"] == ["IPv6"]
    assert [e["of"] for e in found.evidence["endpoints"]] == ["the bootstrap address", "broker 1"]


def test_it_is_the_only_finding_of_an_otherwise_healthy_run():
    assert [f.id for f in diagnose(localhost_broker_bound_to_ipv4()) if f.is_problem] == [
        "ADVERTISED_ADDRESS_FAMILY_SPLIT"]


def test_every_address_working_is_silent():
    both = (tcp_ok("::1", 9092), tcp_ok("127.0.0.1", 9092))
    report = with_broker(healthy(), 1, tcp_attempts=both)
    assert run_rule(report, "ADVERTISED_ADDRESS_FAMILY_SPLIT") == ()


def test_a_broker_failing_on_every_address_is_left_to_the_unreachable_rule():
    dead = (tcp_fail("refused", "::1", 9092), tcp_fail("refused", "127.0.0.1", 9092))
    report = with_broker(healthy(), 1, tcp=dead[0], tcp_attempts=dead)
    assert run_rule(report, "ADVERTISED_ADDRESS_FAMILY_SPLIT") == ()


def test_a_stale_record_of_the_same_family_is_a_split_without_the_family_setting():
    stale = (tcp_ok("203.0.113.11", 9092), tcp_fail("timeout", "203.0.113.99", 9092))
    report = with_broker(healthy(), 1, tcp_attempts=stale)
    (found,) = run_rule(report, "ADVERTISED_ADDRESS_FAMILY_SPLIT")
    assert "on some of its addresses only" in found.title
    assert "broker.address.family" not in found.fix
