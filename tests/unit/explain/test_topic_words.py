"""explain: a topic whose metadata never came, and a missing topic, in each family's own words (issue 16).

ROUNDTRIP_FAILED and TOPIC_NOT_FOUND spoke of the Java producer's max.block.ms for every client: each now names its
family's own setting (kafka-python's max_block_ms, librdkafka's topic.metadata.propagation.max.ms, kafka-go's context,
Sarama's Metadata.Retry.Max) and none for a family it does not know. And TOPIC_NOT_FOUND said "The cluster answered
UNKNOWN_TOPIC_OR_PARTITION" when it was only a reading: a reading says the answer is inferred, not shown."""

from __future__ import annotations

from kdiag.explain.builders.topics import unexplained
from kdiag.explain.observations import Facts, Group
from kdiag.explain.sightings import ANY, NOT_IN_METADATA, Sighting
from kdiag.explain.subject import Context
from tests.unit.explain.helpers import explained

JAVA_WAIT = "org.apache.kafka.common.errors.TimeoutException: Topic orders not present in metadata after 60000 ms.\n"
PYTHON_WAIT = "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Failed to update metadata after 60.0 secs.\n"
KAFKA_GO_WAIT = "2024/06/05 14:20:40 failed to dial leader: context deadline exceeded\n"
LIBRDKAFKA_MISSING = "% ERROR: Topic missing-topic error: Broker: Unknown topic or partition\n"
SARAMA_MISSING = ("2026/11/21 17:27:09 missing-topic: kafka server: Request was for a topic or partition that does not "
                  "exist on this broker\n")
RUBY_MISSING = "Kafka::UnknownTopicOrPartition: unknown topic payments\n"


def words(paste: str, finding_id: str) -> str:
    return next(f for f in explained(paste).findings if f.id == finding_id).explanation


def test_java_gave_up_on_metadata_names_max_block_ms():
    assert "max.block.ms" in words(JAVA_WAIT, "ROUNDTRIP_FAILED")


def test_kafka_python_gave_up_on_metadata_names_max_block_ms_in_its_spelling_not_javas():
    for finding_id in ("ROUNDTRIP_FAILED", "TOPIC_NOT_FOUND"):
        said = words(PYTHON_WAIT, finding_id)
        assert "max_block_ms" in said and "max.block.ms" not in said, finding_id


def test_kafka_go_gave_up_on_metadata_speaks_of_its_context_not_max_block_ms():
    said = words(KAFKA_GO_WAIT, "ROUNDTRIP_FAILED")
    assert "context's deadline" in said and "max.block.ms" not in said
    assert "max.block.ms" not in words(KAFKA_GO_WAIT, "TOPIC_NOT_FOUND")


def test_metadata_wait_of_an_unknown_family_names_no_setting():
    group = Group(Sighting(NOT_IN_METADATA, ANY, topic="orders"), 1, [(1, "metadata for orders never came")],
                  clients=[ANY])
    said = unexplained(Context(Facts(), (group,), None)).explanation
    assert "The client waited for the metadata of orders" in said and "max.block.ms" not in said


def test_librdkafka_missing_topic_names_its_propagation_setting_not_max_block_ms():
    said = words(LIBRDKAFKA_MISSING, "TOPIC_NOT_FOUND")
    assert "topic.metadata.propagation.max.ms" in said and "max.block.ms" not in said


def test_sarama_missing_topic_names_metadata_retry_not_max_block_ms():
    said = words(SARAMA_MISSING, "TOPIC_NOT_FOUND")
    assert "Metadata.Retry.Max" in said and "max.block.ms" not in said


def test_a_missing_topic_the_cluster_answered_says_so():
    found = explained(SARAMA_MISSING).findings[0]
    assert found.evidence.get("certain") is not False
    assert "The cluster answered UNKNOWN_TOPIC_OR_PARTITION" in found.explanation


def test_a_missing_topic_read_from_a_metadata_wait_does_not_assert_the_clusters_answer():
    found = next(f for f in explained(JAVA_WAIT).findings if f.id == "TOPIC_NOT_FOUND")
    assert found.evidence["certain"] is False
    assert "The cluster answered" not in found.explanation and "is inferred" in found.explanation


def test_a_missing_topic_read_from_a_clients_guess_does_not_assert_the_clusters_answer():
    found = next(f for f in explained(RUBY_MISSING).findings if f.id == "TOPIC_NOT_FOUND")
    assert found.evidence["certain"] is False
    assert "The cluster answered" not in found.explanation and "is inferred" in found.explanation
    assert "max.block.ms" not in found.explanation
