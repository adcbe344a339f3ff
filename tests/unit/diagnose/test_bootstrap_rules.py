"""Bootstrap rules: resolving and connecting to the addresses the user gave."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kdiag.diagnose import diagnose, run_rule
from kdiag.report import DnsDetail, Endpoint, Stage, TcpDetail

from .builders import bootstrap_failure, dns_fail, dns_ok, healthy, tcp_fail, tcp_ok

BOOTSTRAP_RULES = ("BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT", "BOOTSTRAP_UNREACHABLE")


@pytest.mark.parametrize("rule_id", BOOTSTRAP_RULES)
def test_bootstrap_rules_are_silent_when_the_bootstrap_works(rule_id: str) -> None:
    assert run_rule(healthy(3), rule_id) == ()


@pytest.mark.parametrize(("status", "title", "words"), [
    ("nxdomain", "does not exist in DNS", "no such name"),
    ("no_answer", "has no address record", "no address record"),
    ("servfail", "(SERVFAIL)", "could not get an answer"),
    ("timeout", "(timed out)", "resolver itself is unreachable"),
])
def test_unresolvable_bootstrap_tells_no_such_name_from_resolver_unreachable(status: str, title: str,
                                                                              words: str) -> None:
    (found,) = run_rule(bootstrap_failure(dns=dns_fail("kafka.example.com", status)), "BOOTSTRAP_UNRESOLVABLE")
    assert found.severity == "error"
    assert title in found.title and "kafka.example.com" in found.title
    assert words in found.explanation
    assert found.evidence["dns_status"] == status


def test_unresolvable_bootstrap_quotes_both_clients() -> None:
    (found,) = run_rule(bootstrap_failure(dns=dns_fail("kafka.example.com")), "BOOTSTRAP_UNRESOLVABLE")
    assert "Failed to resolve 'kafka.example.com:9092': Name or service not known" in found.explanation
    assert "No resolvable bootstrap urls given in bootstrap.servers" in found.explanation
    assert "dig +short kafka.example.com" in found.fix


def test_resolver_timeout_fix_checks_the_resolver_not_the_name() -> None:
    (found,) = run_rule(bootstrap_failure(dns=dns_fail("kafka.example.com", "timeout")), "BOOTSTRAP_UNRESOLVABLE")
    assert "/etc/resolv.conf" in found.fix and "@192.0.2.53" in found.fix


def test_system_resolver_failing_where_direct_dns_works_is_pointed_out() -> None:
    dns = replace(dns_fail("kafka.example.com"), dns_status="ok", dns_addresses=("203.0.113.11",))
    (found,) = run_rule(bootstrap_failure(dns=dns), "BOOTSTRAP_UNRESOLVABLE")
    assert "direct DNS query" in found.explanation and "203.0.113.11" in found.explanation


def test_one_dead_bootstrap_among_working_ones_is_only_a_warning() -> None:
    report = healthy(3)
    dead = Endpoint("old-kafka.example.com", 9092)
    dns = report.stages[0].detail
    stages = (Stage("dns", "warn", 2.0, "", DnsDetail(dns.results + (dns_fail("old-kafka.example.com"),))),
              *report.stages[1:])
    report = replace(report, bootstrap=report.bootstrap + (dead,), stages=stages)
    (found,) = run_rule(report, "BOOTSTRAP_UNRESOLVABLE")
    assert found.severity == "warning"
    assert not [f for f in diagnose(report) if f.severity == "error"]


@pytest.mark.parametrize(("status", "rule_id", "title"), [
    ("refused", "BOOTSTRAP_REFUSED", "Connection refused on bootstrap address kafka.example.com:9092 (203.0.113.11)"),
    ("timeout", "BOOTSTRAP_TIMEOUT", "timed out: the port is filtered"),
    ("unreachable", "BOOTSTRAP_UNREACHABLE", "No route from this machine"),
])
def test_connect_failures_map_to_their_own_rule(status: str, rule_id: str, title: str) -> None:
    report = bootstrap_failure(attempts=[tcp_fail(status, "203.0.113.11", 9092)])
    assert [f.id for f in diagnose(report)] == [rule_id]
    (found,) = run_rule(report, rule_id)
    assert title in found.title
    assert found.evidence["attempts"][0]["status"] == status


def test_refused_says_it_is_ambiguous_between_nothing_listening_and_a_reject() -> None:
    (found,) = run_rule(bootstrap_failure(attempts=[tcp_fail("refused", "203.0.113.11", 9092)]), "BOOTSTRAP_REFUSED")
    assert "ambiguous" in found.explanation
    assert "nothing listens on port 9092" in found.explanation and "REJECT" in found.explanation
    assert "ss -ltnp 'sport = :9092'" in found.fix
    assert "Connection to node -1 (kafka.example.com/203.0.113.11:9092) could not be established." in found.explanation


def test_timeout_says_filtered_and_opens_the_port_for_this_machine() -> None:
    (found,) = run_rule(bootstrap_failure(attempts=[tcp_fail("timeout", "203.0.113.11", 9092)]), "BOOTSTRAP_TIMEOUT")
    assert "security group" in found.explanation
    assert "authorize-security-group-ingress" in found.fix and "192.0.2.10/32" in found.fix


def test_one_good_address_of_a_dual_stack_name_means_no_connect_finding() -> None:
    report = bootstrap_failure(dns=dns_ok("kafka.example.com", "2001:db8::11", "203.0.113.11"),
                               attempts=[tcp_fail("unreachable", "2001:db8::11", 9092), tcp_ok("203.0.113.11", 9092)])
    for rule_id in BOOTSTRAP_RULES:
        assert run_rule(report, rule_id) == ()


def test_refused_wins_over_ipv6_no_route_for_the_same_name() -> None:
    report = bootstrap_failure(dns=dns_ok("kafka.example.com", "2001:db8::11", "203.0.113.11"),
                               attempts=[tcp_fail("unreachable", "2001:db8::11", 9092),
                                         tcp_fail("refused", "203.0.113.11", 9092)])
    assert [f.id for f in diagnose(report)] == ["BOOTSTRAP_REFUSED"]


def test_connect_rules_ignore_a_bootstrap_that_did_not_resolve() -> None:
    report = bootstrap_failure(dns=dns_fail("kafka.example.com"))
    report = replace(report, stages=tuple(replace(s, detail=TcpDetail((tcp_fail("error", None, 9092),)))
                                          if s.name == "tcp" else s for s in report.stages))
    assert [f.id for f in diagnose(report)] == ["BOOTSTRAP_UNRESOLVABLE"]


def test_an_ip_literal_bootstrap_is_never_unresolvable() -> None:
    report = bootstrap_failure("203.0.113.11:9092", dns=dns_fail("203.0.113.11"),
                               attempts=[tcp_fail("timeout", "203.0.113.11", 9092)])
    assert run_rule(report, "BOOTSTRAP_UNRESOLVABLE") == ()
    (found,) = run_rule(report, "BOOTSTRAP_TIMEOUT")
    assert found.title == "Connecting to bootstrap address 203.0.113.11:9092 timed out: the port is filtered"
