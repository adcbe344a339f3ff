"""JVM frameworks' words for a topic that is not there, from their sources: Spring Kafka's missingTopicsFatal check
(any failed describeTopics counts, so a likely reading), Kafka Streams' source-topic errors with the topics named, and
the wrappers (Flink's Kafka source, Spring Cloud Stream's binder) that name the topic of the exception under them."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids


def topics_found(text: str) -> set[str]:
    return {f.evidence.get("topic") for f in explained(text).findings if f.id == "TOPIC_NOT_FOUND"}


def test_spring_kafkas_missing_topics_are_likely_absent_each_named():
    text = ("2026-12-07 10:01:12.330 ERROR 5120 --- [main] o.s.boot.SpringApplication : Application run failed\n"
            "Caused by: java.lang.IllegalStateException: Topic(s) [payments, payments.retry] is/are not present and "
            "missingTopicsFatal is true\n"
            "\tat org.springframework.kafka.listener.AbstractMessageListenerContainer.checkTopics("
            "AbstractMessageListenerContainer.java:512)")
    found = explained(text).findings
    assert topics_found(text) == {"payments", "payments.retry"}
    assert all(f.severity == "warning" for f in found)
    likely = [f for f in found if f.id == "TOPIC_NOT_FOUND"]
    assert all(f.title.startswith("Likely: ") and "no broker answered" in f.explanation for f in likely)
    assert "TOPIC_AUTHORIZATION_FAILED" in ids(explained(text))


def test_spring_missing_topics_after_a_refused_bootstrap_are_its_consequence():
    text = ("[2026-12-07 10:01:10,101] WARN [AdminClient clientId=adminclient-1] Connection to node -1 "
            "(localhost/127.0.0.1:9092) could not be established. Broker may not be available. "
            "(org.apache.kafka.clients.NetworkClient)\n"
            "java.lang.IllegalStateException: Topic(s) [payments] is/are not present and missingTopicsFatal is true")
    assert "TOPIC_NOT_FOUND" not in ids(explained(text))


@pytest.mark.parametrize("line, topics", [
    ("org.apache.kafka.streams.errors.MissingSourceTopicException: Missing source topics. [clicks, views]",
     {"clicks", "views"}),
    ("org.apache.kafka.streams.errors.StreamsException: org.apache.kafka.streams.errors.MissingSourceTopicException: "
     "Missing source topics [clicks] for subtopology 1 of topology analytics", {"clicks"}),
    ("ERROR stream-thread [analytics-6f1-StreamThread-1-consumer] The following source topics are missing/unknown: "
     "[clicks]. Please make sure all source topics have been pre-created before starting the Streams application.",
     {"clicks"}),
    ("org.apache.kafka.streams.errors.TopologyBuilderException: Invalid topology building: External source topic not "
     "found: clicks", {"clicks"}),
])
def test_kafka_streams_names_its_missing_source_topics(line, topics):
    assert topics_found(line) == topics
    assert all(f.severity == "error" for f in explained(line).findings if f.id == "TOPIC_NOT_FOUND")


@pytest.mark.parametrize("wrapper", [
    "Caused by: java.lang.RuntimeException: Failed to get metadata for topics [clicks].",
    "org.springframework.cloud.stream.binder.BinderException: Cannot initialize binder checking the topic (clicks):",
])
def test_a_wrapper_names_the_topic_of_the_unknown_topic_under_it(wrapper):
    text = (f"{wrapper}\nCaused by: java.util.concurrent.ExecutionException: org.apache.kafka.common.errors."
            "UnknownTopicOrPartitionException: This server does not host this topic-partition.")
    assert topics_found(text) == {"clicks"}


def test_a_wrapper_over_a_timeout_is_no_missing_topic():
    text = ("Caused by: java.lang.RuntimeException: Failed to get metadata for topics [clicks].\n"
            "Caused by: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. "
            "Call: describeTopics")
    assert "TOPIC_NOT_FOUND" not in ids(explained(text))
