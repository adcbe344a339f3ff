"""The rules' API: diagnose, RULES, rule_ids, run_rule, and findings as stable JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kdiag.diagnose import RULES, UnknownRule, diagnose, rule_ids, run_rule
from kdiag.finding import SEVERITIES
from kdiag.report import report_from_dict, report_to_dict, report_to_json
from probes.results import IdentityCheck, KafkaCheck

from .builders import (SKIPPED_IDENTITY, SKIPPED_KAFKA, SKIPPED_TCP, dns_fail, dns_ok, docker_bob_from_host,
                       docker_fred_from_elsewhere, ec2_seed, healthy, tcp_fail, tcp_ok, with_broker)

# The contract's ids (../shared/CONTRACT.md): the catalog implements all of them.
CONTRACT_IDS = {
    "BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT", "BOOTSTRAP_UNREACHABLE", "NOT_KAFKA",
    "TLS_EXPECTED", "TLS_UNEXPECTED", "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH", "SASL_REQUIRED",
    "SASL_MECHANISM_MISMATCH", "SASL_AUTH_FAILED", "ADVERTISED_UNRESOLVABLE",
    "ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE", "ADVERTISED_NONROUTABLE", "ADVERTISED_DUPLICATE",
    "ADVERTISED_WRONG_BROKER", "PARTIAL_CLUSTER", "COORDINATOR_UNREACHABLE", "TOPIC_NOT_FOUND",
    "TOPIC_AUTHORIZATION_FAILED", "NO_LEADER", "ROUNDTRIP_FAILED",
}


def several_problems():  # type: ignore[no-untyped-def]
    """Broker 2 of 3 advertises a name this machine cannot resolve."""
    return with_broker(healthy(3), 2, dns=dns_fail("kafka2.example.com"), tcp=SKIPPED_TCP, kafka=SKIPPED_KAFKA,
                       identity=SKIPPED_IDENTITY)


def test_catalog_holds_every_contract_id_this_model_can_support() -> None:
    assert CONTRACT_IDS <= set(rule_ids())
    assert rule_ids() == tuple(rule.id for rule in RULES)


def test_every_id_beyond_the_contract_is_documented_in_docs_report_md() -> None:
    report_md = (Path(__file__).parents[3] / "docs" / "report.md").read_text()
    table = report_md.split("## Finding ids added to the contract", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.MULTILINE))
    assert set(rule_ids()) - CONTRACT_IDS == documented


def test_every_rule_has_a_title_and_a_known_severity() -> None:
    for rule in RULES:
        assert rule.title and rule.title[0].isupper()
        assert rule.severity in SEVERITIES


def test_run_rule_runs_one_check_by_id() -> None:
    (found,) = run_rule(ec2_seed(), "ADVERTISED_UNRESOLVABLE")
    assert found.id == "ADVERTISED_UNRESOLVABLE"
    assert run_rule(ec2_seed(), "advertised_loopback") == ()


def test_run_rule_rejects_an_unknown_id_with_the_known_ones() -> None:
    with pytest.raises(UnknownRule, match="ADVERTISED_UNRESOLVABLE"):
        run_rule(healthy(), "NO_SUCH_RULE")


def test_findings_come_errors_first_then_warnings_each_in_catalog_order() -> None:
    report = several_problems()  # broker 2 unresolvable: an error; broker 3 loopback that works here: a warning
    report = with_broker(report, 3, host="localhost", dns=dns_ok("localhost", "127.0.0.1"),
                         tcp=tcp_ok("127.0.0.1", 9092), kafka=KafkaCheck("ok"), identity=IdentityCheck("ok"))
    findings = diagnose(report)
    severities = [f.severity for f in findings]
    assert "warning" in severities and "error" in severities
    assert severities == sorted(severities, key=SEVERITIES.index)
    assert [f.id for f in findings] == ["ADVERTISED_UNRESOLVABLE", "PARTIAL_CLUSTER", "ADVERTISED_LOOPBACK"]


def test_every_finding_id_is_a_catalog_id_and_every_finding_is_complete() -> None:
    reports = [ec2_seed(), docker_fred_from_elsewhere(), docker_bob_from_host(), several_problems(),
               with_broker(healthy(3), 3, tcp=tcp_fail("timeout", "203.0.113.13", 9092))]
    for report in reports:
        for found in diagnose(report):
            assert found.id in rule_ids()
            assert found.severity in SEVERITIES
            assert found.title and found.explanation and found.fix and found.evidence
            assert "\n" not in found.title


@pytest.mark.parametrize("make", [ec2_seed, docker_fred_from_elsewhere, docker_bob_from_host, several_problems,
                                  healthy])
def test_diagnosing_a_report_loaded_from_json_gives_the_same_findings(make) -> None:  # type: ignore[no-untyped-def]
    report = make()
    loaded = report_from_dict(json.loads(json.dumps(report_to_dict(report))))
    assert diagnose(loaded) == diagnose(report)


@pytest.mark.parametrize("make", [ec2_seed, docker_fred_from_elsewhere, several_problems])
def test_findings_survive_the_json_round_trip_unchanged(make) -> None:  # type: ignore[no-untyped-def]
    report = make()
    report = report.with_findings(diagnose(report))
    assert report_from_dict(json.loads(report_to_json(report))).findings == report.findings


def test_rules_do_not_mutate_or_depend_on_call_order() -> None:
    report = several_problems()
    first = diagnose(report)
    for rule in reversed(RULES):
        rule.run(report)
    assert diagnose(report) == first
