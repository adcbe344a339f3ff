"""ruby-kafka's and Poseidon's error classes, one per Kafka error code (lib/kafka.rb, Poseidon::Errors), and
kafka-python's metadata timeout as a traceback that stops at its raising source line (kafka/producer/kafka.py
_wait_on_metadata)."""

from __future__ import annotations

from tests.unit.explain.helpers import explained


def _found(paste: str) -> list[tuple[str, str]]:
    return [(f.id, f.severity) for f in explained(paste).findings]


def test_ruby_kafkas_own_unknown_topic_is_a_likely_missing_topic_it_may_have_looked_up_in_stale_metadata():
    # lib/kafka/cluster.rb: raise UnknownTopicOrPartition, "unknown topic #{topic}"
    found = explained("Kafka::UnknownTopicOrPartition: unknown topic payments").findings
    assert [(f.id, f.severity) for f in found] == [("TOPIC_NOT_FOUND", "warning")]
    assert found[0].title.startswith("Likely: ") and "payments" in found[0].title
    # lib/kafka/protocol/metadata_response.rb: raise UnknownTopicOrPartition, "no topic #{topic_name}"
    assert _found('Kafka::UnknownTopicOrPartition: no topic "payments"') == [("TOPIC_NOT_FOUND", "warning")]


def test_the_brokers_codes_as_ruby_classes():
    assert _found("Kafka::TopicAuthorizationFailed: Kafka::TopicAuthorizationFailed") == [
        ("TOPIC_AUTHORIZATION_FAILED", "error")]
    assert [i for i, _ in _found("Poseidon::Errors::LeaderNotAvailable")] == ["NO_LEADER"]


def test_a_class_that_is_not_a_kafka_code_is_not_read():
    assert _found("Kafka::ProcessingError: Kafka::ProcessingError") == []


def test_kafka_pythons_metadata_timeout_at_its_raising_source_line():
    paste = ("KafkaTimeoutError                         Traceback (most recent call last)\n"
             "--> 664                     \"Failed to update metadata after %.1f secs.\" % max_wait)\n")
    assert _found(paste) == _found("kafka.errors.KafkaTimeoutError: Failed to update metadata after 60.0 secs.")
    assert _found(paste)


# ruby-kafka lib/kafka/connection.rb, connect's rescues: Errno::ETIMEDOUT -> "Timed out while trying to connect to
# #{self}: #{e}" (self: "host:port"); lib/kafka/cluster.rb names each seed broker it tries first.
def test_ruby_kafkas_connect_timeout_at_a_seed_broker_is_the_bootstrap_timing_out():
    paste = ("I, [2026-12-07T10:00:00.000000 #1]  INFO -- : Fetching cluster metadata from kafka://192.0.2.10:9092\n"
             "E, [2026-12-07T10:00:10.000000 #1] ERROR -- : Timed out while trying to connect to 192.0.2.10:9092: "
             "Connection timed out\n")
    found = explained(paste).findings
    assert [(f.id, f.severity) for f in found] == [("BOOTSTRAP_TIMEOUT", "error")]
    assert found[0].evidence["host"] == "192.0.2.10" and found[0].evidence["port"] == 9092


def test_ruby_kafkas_connect_timeout_alone_leaves_the_role_open():
    # the words say "timed out" whatever Errno::ETIMEDOUT's message is on the platform
    found = _found("ERROR -- : Timed out while trying to connect to kafka-1.example:9092: Operation timed out")
    assert sorted(found) == [("ADVERTISED_UNREACHABLE", "warning"), ("BOOTSTRAP_TIMEOUT", "warning")]


def test_ruby_kafkas_timeout_waiting_for_an_answer_is_no_connect_timeout():
    # connection.rb's read_response: "Timed out while waiting for response #{@correlation_id}", on a connection up
    found = [i for i, _ in _found("ERROR -- : Timed out while waiting for response 3")]
    assert "BOOTSTRAP_TIMEOUT" not in found and "ADVERTISED_UNREACHABLE" not in found
