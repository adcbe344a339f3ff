"""BROKER_TOO_OLD from a log: each client's words for a request the broker does not speak, from the sources that print
them (certain from an old broker's own log, likely from a client's), with documentation hosts only."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

# Each line as the client's source writes it (the source in the comment).
CLIENT_WORDS = [
    # Java clients, NodeApiVersions.latestUsableVersion: "The broker does not support " + apiKey + " with version in
    # range [" + min + "," + max + "]. The supported range is [" + ... + "]."
    ("org.apache.kafka.common.errors.UnsupportedVersionException: The broker does not support FIND_COORDINATOR with "
     "version in range [3,4]. The supported range is [0,2].", "FIND_COORDINATOR"),
    # Java clients, an API the broker's ApiVersions does not list at all.
    ("Caused by: org.apache.kafka.common.errors.UnsupportedVersionException: The broker does not support "
     "DESCRIBE_PRODUCERS", "DESCRIBE_PRODUCERS"),
    # Sarama errors.go, ErrUnsupportedVersion's Error(): "kafka server: The version of API is not supported".
    ("2026/11/26 10:00:00 kafka server: The version of API is not supported", "a request"),
    # franz-go broker.go, errBrokerTooOld.
    ("unable to init producer id: broker is too old; the broker has already indicated it will not know how to handle "
     "the request", "a request"),
    # librdkafka rd_kafka_err2str(RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE).
    ("%3|1700000000.000|ERROR|rdkafka#producer-1| Local: Required feature not supported by broker", "a request"),
    # kafka-python / aiokafka admin client, _matching_api_version.
    ("aiokafka.errors.IncompatibleBrokerVersion: IncompatibleBrokerVersion: Kafka broker does not support the "
     "'DeleteRecordsRequest_v0' Kafka protocol.", "DeleteRecords"),
    # klife lib/klife/connection/message_versions.ex.
    ("** (RuntimeError) Could not agree on API version for KlifeProtocol.Messages.Fetch api_key 1 for client "
     "Elixir.App.Client.", "Fetch"),
]


@pytest.mark.parametrize("line, api", CLIENT_WORDS, ids=lambda v: v[:30] if isinstance(v, str) else v)
def test_a_clients_words_for_a_version_gap_are_a_likely_broker_too_old(line, api):
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert finding.evidence["api"] == api and finding.evidence["certain"] is False
    assert "Kafka-compatible" in finding.explanation  # the other reading: a server that does not implement it


def test_the_java_ranges_are_kept_in_the_evidence():
    finding = only(explained(CLIENT_WORDS[0][0]), "BROKER_TOO_OLD")
    assert (finding.evidence["client_min_version"], finding.evidence["client_max_version"]) == (3, 4)
    assert (finding.evidence["broker_min_version"], finding.evidence["broker_max_version"]) == (0, 2)


# An old broker's own log (kafka.api.RequestKeys 0.8; RequestChannel.Request 0.9-0.10) is certain.
@pytest.mark.parametrize("line, api", [
    ("[2026-11-26 10:00:00,000] ERROR Closing socket for /192.0.2.7 because of error (kafka.network.Processor)\n"
     "kafka.common.KafkaException: Wrong request type 11", "JoinGroup"),
    ("kafka.network.InvalidRequestException: Error getting request for apiKey: 3 and apiVersion: 5", "Metadata"),
])
def test_an_old_brokers_own_words_are_certain(line, api):
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "error" and finding.evidence["api"] == api
    assert "broker's side" in finding.explanation


def test_a_request_the_broker_cannot_parse_is_likely():
    finding = only(explained("org.apache.kafka.common.protocol.types.SchemaException: Error reading field "
                             "'group_protocols': java.nio.BufferUnderflowException"), "BROKER_TOO_OLD")
    assert finding.severity == "warning"


def test_librdkafkas_protocol_parse_failure_is_likely():
    # librdkafka rdkafka_buf.h, rd_kafka_buf_parse_fail: "Protocol parse failure for %s v%hd ... (incorrect
    # broker.version.fallback?)"
    line = ("%4|1700000000.000|PROTOERR|rdkafka#consumer-1| [thrd:b1.example:9092/0]: b1.example:9092/0: Protocol "
            "parse failure for Fetch v11 at 40/52 (rd_kafka_fetch_reply_handle:1234) (incorrect "
            "broker.version.fallback?)")
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and finding.evidence["api"] == "Fetch"


def test_an_api_versions_request_retried_at_an_older_version_is_the_negotiation_not_a_gap():
    line = ("%7|1700000000.000|PROTOERR|rdkafka#producer-1| [thrd:b1.example:9092/bootstrap]: ApiVersionRequest v3 "
            "failed due to UNSUPPORTED_VERSION: retrying with v0")
    assert "BROKER_TOO_OLD" not in ids(explained(line))


def test_a_listener_without_metadata_is_likely_not_an_old_broker():
    finding = only(explained("UnsupportedVersionException: The node does not support METADATA"), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and "controller" in finding.explanation


def test_a_modern_broker_names_the_request_version_it_does_not_enable():
    # Kafka's RequestContext: InvalidRequestException("Received request api key %s with version %d which is not enabled")
    line = ("org.apache.kafka.common.errors.InvalidRequestException: Received request api key FETCH with version 17 "
            "which is not enabled")
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "error" and finding.evidence["api"] == "FETCH"


@pytest.mark.parametrize("line, likely", [
    # librdkafka before 1.0, rd_kafka_broker_handle_ApiVersion: its own guess about an old broker.
    ("%3|1480000000.000|FAIL|rdkafka#producer-1| b1.example:9092/bootstrap: ApiVersionRequest failed: Local: Broker "
     "transport failure: probably due to broker version < 0.10 (see api.version.request configuration)",
     "BROKER_TOO_OLD"),
    # librdkafka 1.x+: the same disconnect, TLS first in its words.
    ("%6|1700000000.000|FAIL|rdkafka#producer-1| [thrd:b1.example:9093/bootstrap]: b1.example:9093/bootstrap: "
     "Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol configuration "
     "(connecting to a SSL listener?) or broker version is < 0.10 (see api.version.request) (after 26ms in state "
     "APIVERSION_QUERY)", "TLS_EXPECTED"),
    # Sarama's ErrInsufficientData: a TLS alert, or an answer in an older version than config.Version promised.
    ("kafka: insufficient data to decode packet, more bytes expected", "TLS_EXPECTED"),
])
def test_a_disconnect_at_version_negotiation_reads_an_old_broker_and_tls_both(line, likely):
    explanation = explained(line)
    assert ids(explanation)[0] == likely and {"BROKER_TOO_OLD", "TLS_EXPECTED"} <= set(ids(explanation))
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_erlang_and_ruby_spell_error_35_their_way():
    for line in ('{error,{unsupported_version,<<"The version of API is not supported.">>}}',  # kafka_protocol
                 "Kafka::UnsupportedVersion: Kafka::UnsupportedVersion"):  # ruby-kafka lib/kafka.rb
        assert ids(explained(line)) == ["BROKER_TOO_OLD"]


@pytest.mark.parametrize("line, api", [
    ("Error: Cannot find matching version for: Produce", "Produce"),  # rskafka RequestError::NoVersionMatch
    ("cannot sync versions: Did not found a version for ApiVersion that works with that broker", "ApiVersions"),
])
def test_rskafkas_version_errors_are_a_likely_gap(line, api):
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and finding.evidence["api"] == api


@pytest.mark.parametrize("line", [
    # ArrayOf.read: "Error reading array of size " + size + ", only " + remaining + " bytes available", wrapped by
    # Schema.read: "Error reading field '" + name + "': " + its message
    "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'topic_metadata': Error reading "
    "array of size 3027513, only 100 bytes available",
    "org.apache.kafka.common.protocol.types.SchemaException: Error reading array of size 1918988389, only 42 bytes "
    "available",
])
def test_javas_reader_running_out_of_bytes_in_a_message_is_likely_a_version_gap(line):
    findings = explained(line).findings
    assert [(f.id, f.severity) for f in findings] == [("BROKER_TOO_OLD", "warning")]
    assert "another version than its reader expected" in findings[0].explanation


# kafka.server.AbstractFetcherThread (0.8 to 0.10): warn("Error in fetch %s. Possible cause: %s".format(fetchRequest,
# t.toString)) -- the Scala consumer's ConsumerFetcherThread, and a broker's ReplicaFetcherThread alike.
def test_the_scala_consumers_fetch_read_past_its_end_is_a_likely_broker_too_old():
    line = ("2026-12-07 10:00:00,000 WARN  [ConsumerFetcherThread-orders_host-1-0] Error in fetch "
            "kafka.consumer.ConsumerFetcherThread$FetchRequest@5e1f2a3b. Possible cause: java.nio.BufferUnderflowException")
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert finding.evidence["api"] == "Fetch"


def test_a_replica_fetchers_same_words_are_no_clients_version_gap():
    line = ("[2026-12-07 10:00:00,000] WARN [ReplicaFetcherThread-0-2]: Error in fetch "
            "kafka.server.ReplicaFetcherThread$FetchRequest@5e1f2a3b. Possible cause: java.nio.BufferUnderflowException "
            "(kafka.server.ReplicaFetcherThread)")
    assert "BROKER_TOO_OLD" not in ids(explained(line))


def test_the_scala_consumers_fetch_failing_otherwise_is_no_version_gap():
    line = ("WARN  [ConsumerFetcherThread-orders_host-1-0] Error in fetch kafka.consumer.ConsumerFetcherThread"
            "$FetchRequest@5e1f2a3b. Possible cause: java.nio.channels.ClosedChannelException")
    assert "BROKER_TOO_OLD" not in ids(explained(line))
