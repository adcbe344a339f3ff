"""JVM frameworks' words for a topic that is not there, each read from the framework's source:

- Spring Kafka's listener container (AbstractMessageListenerContainer.checkTopics, missingTopicsFatal): ``Topic(s)
  [a, b] is/are not present and missingTopicsFatal is true``. It counts a topic missing when its describeTopics future
  failed for any reason within topicCheckTimeout: no such topic most often, but also no broker answering in time or the
  topic not authorized. A likely reading, each topic named.
- Kafka Streams' assignor, the topics named: ``Missing source topics. [a]`` and ``Missing source topics [a] for
  subtopology 0 of topology t`` (MissingSourceTopicException), ``The following source topics are missing/unknown:
  [a]. Please make sure ...`` (its ERROR before), ``External source topic not found: a`` (0.10's
  TopologyBuilderException).
- Wrappers that name the topic of the exception under them, which says what failed (an UnknownTopicOrPartition, or a
  timeout): Flink's Kafka source (KafkaSubscriberUtils) ``Failed to get metadata for topics [a].`` and Spring Cloud
  Stream's binder (KafkaTopicProvisioner) ``Cannot initialize binder checking the topic (a)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import JAVA, TOPIC_MISSING, Fact, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_TOPIC = r"[A-Za-z0-9._-]{1,249}"
MAX_TOPICS = 8
"""At most this many topics read from one list."""


def topics_in(text: str) -> list[str]:
    """The topics of a Java List's or Set's ``[a, b]``, each a valid topic name."""
    return [t for t in (t.strip() for t in text.split(",")) if re.fullmatch(_TOPIC, t)][:MAX_TOPICS]


@pattern("spring.missing_topics_fatal", JAVA, "missingTopicsFatal is true",
         r"Topic\(s\) \[(?P<topics>[^\]]*)\] is/are not present and missingTopicsFatal is true",
         "Caused by: java.lang.IllegalStateException: Topic(s) [payments, refunds] is/are not present and "
         "missingTopicsFatal is true")
def _spring_missing_topics(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for topic in topics_in(m.group("topics")):
        yield Sighting(TOPIC_MISSING, JAVA, topic=topic, detail=m.group(0), guess=m.group(0),
                       alternatives=("TOPIC_AUTHORIZATION_FAILED",))


@pattern("streams.missing_source_topics", JAVA, "Missing source topics",
         r"Missing source topics[.:]? \[(?P<topics>[^\]]*)\]",
         "org.apache.kafka.streams.errors.MissingSourceTopicException: Missing source topics. [clicks]")
@pattern("streams.source_topics_missing", JAVA, "source topics are missing/unknown",
         r"source topics are missing/unknown: \[(?P<topics>[^\]]*)\]",
         "ERROR stream-thread [app-1-StreamThread-1-consumer] The following source topics are missing/unknown: "
         "[clicks]. Please make sure all source topics have been pre-created before starting the Streams application.")
@pattern("streams.external_source_topic", JAVA, "External source topic not found",
         rf"External source topic not found: (?P<topics>{_TOPIC})",
         "org.apache.kafka.streams.errors.TopologyBuilderException: Invalid topology building: External source topic "
         "not found: clicks")
def _streams_missing_source_topics(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for topic in topics_in(m.group("topics")):
        yield Sighting(TOPIC_MISSING, JAVA, topic=topic, detail=m.group(0))


@pattern("flink.topic_metadata", JAVA, "Failed to get metadata for topics",
         r"Failed to get metadata for topics \[(?P<topics>[^\]]*)\]",
         "Caused by: java.lang.RuntimeException: Failed to get metadata for topics [clicks].")
@pattern("scs.binder_topic", JAVA, "Cannot initialize binder checking the topic",
         rf"Cannot initialize binder checking the topic \((?P<topics>{_TOPIC})\)",
         "org.springframework.cloud.stream.binder.BinderException: Cannot initialize binder checking the topic "
         "(clicks):")
def _topic_of_the_cause_below(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    topics = topics_in(m.group("topics"))
    if topics:
        scan.topic = topics[0]  # the UnknownTopicOrPartitionException under it names none
    for topic in topics:
        yield Fact("topic", name=topic)
