"""SASL lines that fit more than one cause, and lines that are no SASL failure at all, from the clients' sources:
franz-go's ErrFirstReadEOF, the Java client's IllegalSaslStateException, librdkafka's RD_KAFKA_RESP_ERR__DESTROY,
MSK's connection-rate quota, a Rust client's early EOF. Documentation hosts only."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only


@pytest.mark.parametrize("line", [
    # franz-go pkg/kgo/errors.go ErrFirstReadEOF.Error(), firstReadSASL.
    "unable to request metadata: broker closed the connection immediately after a request was issued, which happens "
    "when SASL is required but not provided: is SASL missing?",
    # the wording of older franz-go releases, as rpk printed it.
    "unable to initialize kafka client: brokers keep immediately closing connections, which happens when SASL is "
    "required but not provided: is SASL expected?",
])
def test_franz_gos_first_read_eof_is_likely_sasl_with_tls_and_versions_beside_it(line):
    explanation = explained(line)
    first = explanation.findings[0]
    assert first.id == "SASL_REQUIRED" and first.title.startswith("Likely: ")
    assert {"TLS_UNEXPECTED", "BROKER_TOO_OLD"} <= set(ids(explanation))
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_the_java_clients_own_guess_on_the_handshake_answer_is_a_reading():
    # clients/src/main/java/org/apache/kafka/common/security/authenticator/SaslClientAuthenticator.java
    line = ("org.apache.kafka.common.errors.IllegalSaslStateException: Invalid SASL mechanism response, server may be "
            "expecting a different protocol")
    explanation = explained(line)
    assert ids(explanation) == ["SASL_MECHANISM_MISMATCH", "SASL_AUTH_FAILED", "BROKER_TOO_OLD"]
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_a_handle_destroyed_under_a_sasl_login_is_the_client_shutting_down():
    # librdkafka: RD_KAFKA_RESP_ERR__DESTROY ("Local: Broker handle destroyed") fails what was in flight at close.
    line = ("%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://b1.example:9096/1]: sasl_ssl://b1.example:9096/1: "
            "SASL authentication error: SaslAuthenticateRequest failed: Local: Broker handle destroyed (after 0ms in "
            "state DOWN)")
    assert "SASL_AUTH_FAILED" not in ids(explained(line))


def test_a_connection_rate_quota_is_no_rejected_login():
    # aws-msk-iam-auth through the Java client's NetworkClient: the broker's "Too many connects" throttle.
    line = ("ERROR [Producer clientId=producer-1] Connection to node -1 (b1.example/192.0.2.10:9098) failed "
            "authentication due to: [1a2b]: Too many connects (org.apache.kafka.clients.NetworkClient)")
    assert "SASL_AUTH_FAILED" not in ids(explained(line))


def test_a_rejected_login_in_the_same_java_line_stays_certain():
    line = ("ERROR [Producer clientId=producer-1] Connection to node -1 (b1.example/192.0.2.10:9096) failed "
            "authentication due to: Authentication failed during authentication due to invalid credentials with SASL "
            "mechanism SCRAM-SHA-512 (org.apache.kafka.clients.NetworkClient)")
    assert only(explained(line), "SASL_AUTH_FAILED").severity == "error"


def test_a_rust_clients_early_eof_is_the_broker_hanging_up():
    # tokio's io::ErrorKind::UnexpectedEof, "early eof", as rskafka wraps it.
    explanation = explained("Failed to connect to broker: cannot sync versions: Request error: Connection is "
                            "poisoned: Cannot read framed message: Cannot read data: early eof")
    assert "BROKER_CLOSED_CONNECTION" in ids(explanation)
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_the_brokers_plain_refusal_is_certain_whichever_client_passes_it_on():
    # PlainServerCallbackHandler's words, inside kafka_protocol's {sasl_auth_error, Reason} (brod).
    line = ('{failed_to_connect,[{{"b1.example",9096},{{sasl_auth_error,<<"Authentication failed: Invalid username or '
            'password">>},[]}}]}')
    finding = only(explained(line), "SASL_AUTH_FAILED")
    assert finding.severity == "error" and finding.evidence["host"] == "b1.example"


def test_a_sasl_auth_error_without_the_brokers_words_is_a_reading():
    explanation = explained('{failed_to_connect,[{{"b1.example",9096},{{sasl_auth_error,closed},[]}}]}')
    assert ids(explanation) == ["SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"]
    assert {f.severity for f in explanation.findings} == {"warning"}


@pytest.mark.parametrize("settings", ["sasl.mechanism=SCRAM-SHA-256", "connecting with authType=SASL/SCRAM"])
def test_a_client_that_logs_in_and_reached_no_broker_may_have_been_refused_the_login(settings):
    # Sarama's ErrOutOfBrokers after every seed refused the SASL handshake, with the SASL settings in the paste.
    explanation = explained(f"{settings}\nkafka: client has run out of available brokers to talk to")
    assert {"SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"} <= set(ids(explanation))
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_with_a_protocol_without_sasl_in_the_paste_no_login_reading_is_given():
    explanation = explained("security.protocol=SSL\nkafka: client has run out of available brokers to talk to")
    assert not {"SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"} & set(ids(explanation))
