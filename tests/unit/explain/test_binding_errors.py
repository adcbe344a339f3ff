"""librdkafka's error codes as its bindings raise them (confluent-kafka-dotnet, node-rdkafka, php-rdkafka,
rdkafka-ruby, rust-rdkafka), and the Streams and Connect wrappers' own words: lines written from their sources."""

from __future__ import annotations

import pytest

from kdiag.explain.engine import explain_text


def found(text: str) -> list[tuple[str, str]]:
    return [(f.id, f.severity) for f in explain_text(text).findings]


@pytest.mark.parametrize("line", ["Confluent.Kafka.KafkaException: Local: Host resolution failure",
                                  "Rdkafka::RdkafkaError: Local: Host resolution failure (resolve)"])
def test_a_bindings_host_resolution_failure_gives_both_roles_hedged(line):
    assert sorted(found(line)) == [("ADVERTISED_UNRESOLVABLE", "warning"), ("BOOTSTRAP_UNRESOLVABLE", "warning")]


@pytest.mark.parametrize("line", [
    "Confluent.Kafka.KafkaException: Local: Broker transport failure",
    "PHP Fatal error:  Uncaught RdKafka\\Exception: Local: Broker transport failure in /app/consumer.php:12",
    "{ Error: Local: Broker transport failure origin: 'local', message: 'broker transport failure', code: -195 }",
    "Error: KafkaError (Message consumption error: BrokerTransportFailure (Local: Broker transport failure))",
])  # rust-rdkafka's AllBrokersDown (_ALL_BROKERS_DOWN) is every connection down: test_gave_up_readings
def test_a_transport_failure_or_a_worker_that_reached_no_broker_is_the_client_giving_up_never_a_certainty(line):
    assert found(line) == [("ROUNDTRIP_FAILED", "warning")]


def test_a_connect_worker_that_reached_no_broker_is_each_connection_and_security_reading_never_a_certainty():
    # Connect's own words name both: "Check worker's broker connection and security properties."
    found_ = found("org.apache.kafka.connect.errors.ConnectException: Failed to connect to and describe Kafka cluster. "
                   "Check worker's broker connection and security properties.")
    assert {"BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT", "TLS_EXPECTED", "SASL_REQUIRED"} <= {i for i, _ in found_}
    assert {severity for _, severity in found_} == {"warning"}


def test_a_transport_failure_with_the_bootstrap_list_shown_gives_each_way_a_bootstrap_connection_fails():
    text = "bootstrap.servers=kafka.example.com:9092\nConfluent.Kafka.KafkaException: Local: Broker transport failure\n"
    assert {"BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT"} <= {i for i, _ in found(text)}
    assert all(severity == "warning" for _, severity in found(text))


def test_a_bindings_ssl_error_without_a_reason_is_a_tls_reading():
    readings = found("Confluent.Kafka.KafkaException: Local: SSL error")
    assert readings and all(severity == "warning" and i.startswith("TLS_") for i, severity in readings)


@pytest.mark.parametrize("line", ["Confluent.Kafka.KafkaException: Broker: SASL authentication failed",
                                  "KafkaError (Client creation error: SaslAuthenticationFailed)"])
def test_a_bindings_sasl_authentication_failure_is_sasl_auth_failed(line):
    assert found(line) == [("SASL_AUTH_FAILED", "error")]


def test_streams_missing_source_topic_is_topic_not_found():
    assert found("org.apache.kafka.streams.errors.MissingSourceTopicException: One or more source topics were missing "
                 "during rebalance") == [("TOPIC_NOT_FOUND", "error")]
