"""The broker's answer to a SASL login, in librdkafka's and Sarama's words (their sources: rdkafka_request.c's
rd_kafka_handle_SaslAuthenticate, Sarama's broker.go): the code it carries is the login's, and only words about the
credentials make SASL_AUTH_FAILED certain."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

RD = "%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://b:9093/bootstrap]: sasl_ssl://b:9093/bootstrap: "


@pytest.mark.parametrize("code", ["TOPIC_AUTHORIZATION_FAILED", "GROUP_AUTHORIZATION_FAILED",
                                  "CLUSTER_AUTHORIZATION_FAILED"])
def test_a_code_a_binding_prints_beside_librdkafkas_sasl_error_is_the_logins_not_a_topics(code):
    # librdkafka passes the SaslAuthenticate answer's code on as the error; a binding prints its name beside the line
    line = f"{RD}SASL authentication error: The request was rejected by firewall checks. (after 3ms in state AUTH_REQ) ({code})"
    assert ids(explained(line)) == ["SASL_AUTH_FAILED"]


def test_pythons_kafkaerror_around_a_sasl_error_names_no_topic_denial():
    line = ('KafkaError{code=TOPIC_AUTHORIZATION_FAILED,val=29,str="sasl_ssl://b:9093/bootstrap: SASL authentication '
            'error: The request was rejected by firewall checks. (after 1ms in state AUTH_REQ)"}')
    assert ids(explained(line)) == ["SASL_AUTH_FAILED"]


@pytest.mark.parametrize("words", ["Authentication failed: Invalid username or password",
                                   "Authentication failed during authentication due to invalid credentials with SASL "
                                   "mechanism SCRAM-SHA-512",
                                   "Decrypt message failed: Invalid token (0x80090308)"])
def test_a_refusal_whose_words_speak_of_the_credentials_stays_certain(words):
    finding = only(explained(f"{RD}SASL authentication error: {words} (after 300ms in state AUTH_REQ)"),
                   "SASL_AUTH_FAILED")
    assert finding.severity == "error" and not finding.title.startswith("Likely")


@pytest.mark.parametrize("words", ["The request was rejected by firewall checks.",
                                   "SaslAuthenticateRequest failed: Local: Timed out"])
def test_a_refusal_in_the_brokers_own_words_of_no_credentials_is_the_likely_reading(words):
    finding = only(explained(f"{RD}SASL authentication error: {words} (after 3ms in state AUTH_REQ)"),
                   "SASL_AUTH_FAILED")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert "do not speak of the credentials" in finding.explanation
    assert "user name or password is wrong" not in finding.explanation


@pytest.mark.parametrize("line", [
    # Sarama before 1.33 (the paste cut short), and since
    "[sarama] 2021/01/23 10:18:38 Error returned from broker during SASL flow kafka-0:9092: kafka server: SASL Authentic",
    "[sarama] 2024/01/23 10:18:38 Error returned from broker kafka-0:9092 during SASL authentication: kafka server: SASL "
    "Authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism "
    "SCRAM-SHA-512",
])
def test_saramas_sasl_flow_error_is_the_credentials(line):
    finding = only(explained(line), "SASL_AUTH_FAILED")
    assert finding.severity == "error" and finding.evidence["host"] == "kafka-0"


def test_saramas_sasl_flow_error_with_another_code_is_the_login_refused_not_the_topic():
    line = ("[sarama] Error returned from broker during SASL flow kafka-0:9092: kafka server: The client is not "
            "authorized to access this topic.")
    finding = only(explained(line), "SASL_AUTH_FAILED")
    assert ids(explained(line)) == ["SASL_AUTH_FAILED"] and finding.title.startswith("Likely: ")


def test_saramas_sasl_flow_read_error_is_no_credential_refusal():
    line = "[sarama] Error returned from broker during SASL flow kafka-0:9092: EOF"
    assert "SASL_AUTH_FAILED" not in ids(explained(line))
