"""A close instead of the SASL answer, a broker too old for a request, a failed stage no rule explains: each
gets a finding with its hypothesis and evidence, never "no diagnosis explains it"."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose import diagnose
from kdiag.report import SaslDetail, Stage
from probes.results import KafkaCheck, SaslResult, VersionGap
from tests.unit.diagnose.builders import bootstrap_failure, tcp_ok

SASL_CLIENT = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": "alice"}


def sasl_failed(result: SaslResult):
    """A run whose sasl stage failed with ``result`` (metadata skipped, as the orchestrator records it)."""
    report = bootstrap_failure("kafka.example.com:9092", attempts=[tcp_ok("192.0.2.10", 9092)], client=SASL_CLIENT)
    stages = [replace(s, status="skip") if s.name == "metadata" else s for s in report.stages]
    stages.insert(2, Stage("sasl", "fail", 3.0, result.error or "", SaslDetail((result,))))
    return replace(report, stages=tuple(stages))


def ids(report) -> list[str]:
    return [f.id for f in diagnose(report)]


def test_a_close_right_after_saslauthenticate_is_likely_rejected_credentials_with_its_evidence() -> None:
    closed = SaslResult("closed", "PLAIN", "alice", endpoint="kafka.example.com:9092", closed_after="SaslAuthenticate",
                        sent_bytes=52, closed_after_ms=1.5, error="the peer closed the connection")
    findings = diagnose(sasl_failed(closed))
    assert [f.id for f in findings] == ["SASL_CONNECTION_CLOSED"]
    (found,) = findings
    assert "likely rejected credentials" in found.title
    assert found.evidence["sent_bytes"] == 52 and found.evidence["closed_after_ms"] == 1.5
    assert "Most likely" in found.explanation and "KIP-152" in found.explanation
    assert "Failed authentication" in found.fix  # what makes it certain


def test_a_close_right_after_the_handshake_is_read_as_no_sasl_for_this_client() -> None:
    closed = SaslResult("closed", "PLAIN", "alice", endpoint="kafka.example.com:9092", closed_after="SaslHandshake",
                        sent_bytes=30, closed_after_ms=0.8)
    (found,) = diagnose(sasl_failed(closed))
    assert found.id == "SASL_CONNECTION_CLOSED" and "handshake" in found.title


def test_a_broker_with_saslhandshake_v0_only_is_too_old_with_both_ranges() -> None:
    gap = VersionGap("SaslHandshake", 0, 0, 1, 1)
    old = SaslResult("too_old", "PLAIN", "alice", endpoint="kafka.example.com:9092", version_gap=gap)
    (found,) = diagnose(sasl_failed(old))
    assert found.id == "BROKER_TOO_OLD"
    assert "SaslHandshake v0 to v0" in found.title
    assert (found.evidence["broker_max_version"], found.evidence["kdiag_min_version"]) == (0, 1)


def test_a_metadata_gap_is_too_old_not_a_generic_failure() -> None:
    gap = VersionGap("Metadata", 0, 0, 1, 13)
    kafka = KafkaCheck("error", 0, error="the broker supports no Metadata version kdiag speaks", version_gap=gap)
    report = bootstrap_failure("kafka.example.com:9092", attempts=[tcp_ok("192.0.2.10", 9092)], kafka=kafka)
    assert ids(report) == ["BROKER_TOO_OLD"]


def test_a_failed_stage_no_rule_explains_still_gets_a_hedged_hypothesis() -> None:
    odd = SaslResult("error", "PLAIN", "alice", endpoint="kafka.example.com:9092", error="SaslHandshake answered X")
    (found,) = diagnose(sasl_failed(odd))
    assert found.id == "STAGE_FAILED_UNEXPLAINED" and found.severity == "warning"
    assert found.title.startswith("Stage sasl failed") and "likely" in found.title
    assert "kcat -b kafka.example.com:9092" in found.fix


def test_no_hypothesis_when_a_rule_explains_the_failure() -> None:
    rejected = SaslResult("auth_failed", "PLAIN", "alice", endpoint="kafka.example.com:9092", error_code=58,
                          error_name="SASL_AUTHENTICATION_FAILED")
    assert ids(sasl_failed(rejected)) == ["SASL_AUTH_FAILED"]


def test_a_listener_with_no_metadata_at_all_is_read_as_a_controller_not_an_old_broker() -> None:
    gap = VersionGap("Metadata", None, None, 0, 13)
    kafka = KafkaCheck("error", 4, error="the broker supports no Metadata version kdiag speaks", version_gap=gap)
    report = bootstrap_failure("kafka.example.com:9093", attempts=[tcp_ok("192.0.2.10", 9093)], kafka=kafka)
    (found,) = diagnose(report)
    assert found.id == "STAGE_FAILED_UNEXPLAINED"
    assert "KRaft controller" in found.title and "controller.listener.names" in found.fix
