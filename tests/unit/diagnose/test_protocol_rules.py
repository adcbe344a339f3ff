"""What the port speaks: Kafka or not, TLS or not, SASL or not."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kdiag.diagnose import diagnose, run_rule
from kdiag.report import SaslDetail, Stage
from probes.results import ForeignBytes, KafkaCheck, SaslResult

from .builders import bootstrap_failure, foreign, healthy, tcp_ok, with_broker, with_roundtrip_failure

PROTOCOL_RULES = ("NOT_KAFKA", "TLS_EXPECTED", "TLS_UNEXPECTED", "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH",
                  "SASL_REQUIRED", "SASL_MECHANISM_MISMATCH", "SASL_AUTH_FAILED")
TLS_ALERT = KafkaCheck("tls_expected", foreign=ForeignBytes(
    "tls_alert", "a TLS alert record (0x15 0x03, protocol_version): this port speaks TLS",
    "\\x15\\x03\\x03\\x00\\x02\\x02F"))


def reached(port: int, kafka: KafkaCheck, client: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """The bootstrap connected on ``port`` and the Kafka conversation went as ``kafka`` says."""
    return bootstrap_failure(f"kafka.example.com:{port}", attempts=[tcp_ok("203.0.113.11", port)], kafka=kafka,
                             client=client)


@pytest.mark.parametrize("rule_id", PROTOCOL_RULES)
def test_protocol_rules_are_silent_on_a_healthy_cluster(rule_id: str) -> None:
    assert run_rule(healthy(3), rule_id) == ()


# --- NOT_KAFKA ------------------------------------------------------------------------------------


def test_not_kafka_says_the_port_speaks_http_and_what_usually_lives_there() -> None:
    report = reached(8081, foreign("http", "an HTTP response ('HTTP/1.1 400 Bad Request')", "HTTP/1.1 400 Bad Request"))
    (found,) = run_rule(report, "NOT_KAFKA")
    assert found.title == "Bootstrap address kafka.example.com:8081 speaks HTTP, not Kafka"
    assert "Schema Registry" in found.explanation
    assert "1,213,486,160 bytes" in found.explanation  # "HTTP" read as a frame size
    assert found.evidence["speaks"] == "http"
    assert [f.id for f in diagnose(report)] == ["NOT_KAFKA"]


def test_not_kafka_zookeeper_says_bootstrap_servers_is_not_zookeeper_connect() -> None:
    (found,) = run_rule(reached(2181, foreign("zookeeper", "a ZooKeeper four-letter-word reply", "imok")), "NOT_KAFKA")
    assert "speaks ZooKeeper" in found.title
    assert "zookeeper.connect" in found.explanation


def test_not_kafka_on_an_advertised_broker_fixes_its_advertised_port() -> None:
    ssh = foreign("ssh", "an SSH banner ('SSH-2.0-OpenSSH_9.6')", "SSH-2.0-OpenSSH_9.6")
    report = with_broker(healthy(3), 2, kafka=ssh)
    (found,) = run_rule(report, "NOT_KAFKA")
    assert found.evidence["node_id"] == 2
    assert "advertised.listeners=PLAINTEXT://kafka2.example.com:<port>" in found.fix


def test_a_tls_reply_is_tls_expected_not_not_kafka() -> None:
    report = reached(9093, KafkaCheck("not_kafka", foreign=TLS_ALERT.foreign))
    assert [f.id for f in diagnose(report)] == ["TLS_EXPECTED"]


# --- TLS_EXPECTED ---------------------------------------------------------------------------------


def test_tls_expected_quotes_the_misleading_client_errors_and_sets_ssl() -> None:
    (found,) = run_rule(reached(9094, TLS_ALERT), "TLS_EXPECTED")
    assert "is a TLS listener, but the client connects without TLS (security.protocol=PLAINTEXT)" in found.title
    assert "connecting to a SSL listener?" in found.explanation
    assert "java.lang.OutOfMemoryError: Java heap space" in found.explanation
    assert "MSK's TLS port" in found.explanation
    assert "security.protocol=SSL" in found.fix
    assert "-X security.protocol=SSL" in found.fix


def test_tls_expected_keeps_sasl_when_the_client_already_uses_it() -> None:
    (found,) = run_rule(reached(9096, TLS_ALERT, {"security.protocol": "SASL_PLAINTEXT",
                                                  "sasl.mechanisms": "SCRAM-SHA-512"}), "TLS_EXPECTED")
    assert "security.protocol=SASL_SSL" in found.fix


def test_tls_expected_is_silent_for_a_client_that_already_uses_tls() -> None:
    assert run_rule(reached(9094, TLS_ALERT, {"security.protocol": "SSL"}), "TLS_EXPECTED") == ()


# --- SASL -----------------------------------------------------------------------------------------


def test_sasl_required_lists_the_mechanisms_and_gives_both_client_forms() -> None:
    report = reached(9092, KafkaCheck("auth_required", sasl_mechanisms=("PLAIN", "SCRAM-SHA-512")))
    (found,) = run_rule(report, "SASL_REQUIRED")
    assert "PLAIN and SCRAM-SHA-512" in found.explanation
    assert "broker might require SASL authentication" in found.explanation
    assert found.evidence["sasl_mechanisms"] == ["PLAIN", "SCRAM-SHA-512"]
    assert "security.protocol=SASL_PLAINTEXT" in found.fix
    assert "sasl.mechanisms=SCRAM-SHA-512" in found.fix
    assert "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required" in found.fix


def test_sasl_required_is_silent_when_the_client_is_configured_for_sasl() -> None:
    report = reached(9092, KafkaCheck("auth_required", sasl_mechanisms=("PLAIN",)),
                     {"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN"})
    assert run_rule(report, "SASL_REQUIRED") == ()


def test_mechanism_mismatch_points_out_the_gssapi_default() -> None:
    report = reached(9092, KafkaCheck("auth_required", sasl_mechanisms=("PLAIN", "SCRAM-SHA-512"),
                                      error="UNSUPPORTED_SASL_MECHANISM"), {"security.protocol": "SASL_SSL"})
    (found,) = run_rule(report, "SASL_MECHANISM_MISMATCH")
    assert found.title.startswith("The client's SASL mechanism GSSAPI is not enabled on kafka.example.com:9092")
    assert "defaults to GSSAPI" in found.explanation
    assert "Client SASL mechanism 'GSSAPI' not enabled in the server, enabled mechanisms are [PLAIN, SCRAM-SHA-512]" \
        in found.explanation
    assert found.evidence["client_mechanism_explicit"] is False


def test_mechanism_mismatch_is_silent_when_the_mechanism_is_enabled() -> None:
    report = reached(9092, KafkaCheck("ok", sasl_mechanisms=("SCRAM-SHA-512",)),
                     {"security.protocol": "SASL_SSL", "sasl.mechanisms": "scram-sha-512"})
    assert run_rule(report, "SASL_MECHANISM_MISMATCH") == ()


def sasl_refused(result: SaslResult, client: dict[str, str]):  # type: ignore[no-untyped-def]
    """The bootstrap connected; its SASL exchange ended as ``result``, so no metadata."""
    report = bootstrap_failure("kafka.example.com:9092", attempts=[tcp_ok("203.0.113.11", 9092)], client=client)
    stages = list(report.stages)
    stages.insert(2, Stage("sasl", "fail", 3.0, result.error or "", SaslDetail((result,))))
    return replace(report, stages=tuple(stages))


AUTH_FAILED = SaslResult("auth_failed", "SCRAM-SHA-256", "alice", endpoint="kafka.example.com:9092", error_code=58,
                         error_name="SASL_AUTHENTICATION_FAILED",
                         error_message="Authentication failed during authentication due to invalid credentials with "
                                       "SASL mechanism SCRAM-SHA-256")


def test_auth_failed_from_the_probe_suggests_checking_the_scram_user() -> None:
    report = sasl_refused(AUTH_FAILED, {"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-256"})
    (found,) = run_rule(report, "SASL_AUTH_FAILED")
    assert found.title == "The broker rejected the client's SASL credentials (SCRAM-SHA-256)"
    assert "--add-config 'SCRAM-SHA-256=[password=<password>]'" in found.fix


def test_auth_failed_from_the_roundtrip_error_code() -> None:
    report = with_roundtrip_failure(healthy(1, client={"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN"}),
                                    "Local: Authentication failure", "_AUTHENTICATION")
    assert [f.id for f in diagnose(report)] == ["SASL_AUTH_FAILED"]


def test_no_finding_carries_a_secret_from_the_client_settings() -> None:
    secret_settings = {"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "alice",
                       "sasl.password": "hunter2-very-secret", "ssl.key.password": "keypass-secret"}
    reports = [
        reached(9092, KafkaCheck("auth_required", sasl_mechanisms=("PLAIN",), error="UNSUPPORTED_SASL_MECHANISM"),
                secret_settings),
        sasl_refused(AUTH_FAILED, secret_settings),
        reached(9094, TLS_ALERT, {**secret_settings, "security.protocol": "SASL_PLAINTEXT"}),
    ]
    for report in reports:
        findings = diagnose(report)
        assert findings
        for found in findings:
            text = " ".join([found.title, found.explanation, found.fix, repr(dict(found.evidence))])
            assert "hunter2" not in text and "keypass" not in text
