"""The Java client's lines that say it gave up, not why: records that expired, a topic's metadata that never came,
no node assigned to an admin call. ``findings`` attaches them to the cause another line names, or reads what they
can mean when none does (``readings``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (EXPIRED_BATCH, FLUSH_TIMEOUT, JAVA, NO_NODE, NOT_IN_METADATA, SEND_FAILED, Item,
                                     Pattern, ScanState, Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("java.expiring", JAVA, "Expiring",
         r"Expiring (?P<n>\d+) record\(s\) for (?P<topic>\S+)-(?P<partition>\d+):\s*(?P<ms>\d+) ms has passed since "
         r"(?P<since>batch creation(?: plus linger time)?|last append)",
         "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for test-0: 1547 ms has passed since "
         "batch creation plus linger time")
def _java_expiring(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.topic = m.group("topic")
    yield Sighting(EXPIRED_BATCH, JAVA, topic=m.group("topic"), partition=int(m.group("partition")),
                   detail=f"{m.group('n')} record(s), {m.group('ms')} ms")


@pattern("java.not_in_metadata", JAVA, "not present in metadata",
         r"Topic (?P<topic>\S+) not present in metadata after (?P<ms>\d+) ms",
         "org.apache.kafka.common.errors.TimeoutException: Topic t not present in metadata after 60000 ms.")
def _java_not_in_metadata(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.topic = m.group("topic")
    yield Sighting(NOT_IN_METADATA, JAVA, topic=m.group("topic"), detail=f"{m.group('ms')} ms")


@pattern("java.node_assignment", JAVA, "Timed out waiting for a node assignment",
         r"Timed out waiting for a node assignment(?:\. Call: (?P<call>\w+))?",
         "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listTopics")
def _java_node_assignment(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_NODE, JAVA, detail=m.group("call"))


# The consumer's (and admin's) word for metadata no broker gave in time: no broker answered at all.
@pattern("java.fetching_topic_metadata", JAVA, "Timeout expired while fetching topic metadata",
         r"Timeout expired while fetching topic metadata", "org.apache.kafka.common.errors.TimeoutException: Timeout "
         "expired while fetching topic metadata")
def _java_fetching_topic_metadata(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_NODE, JAVA, detail=m.group(0))


# The Java producer before 2.x said this where later ones say "Topic t not present in metadata after N ms", and the
# proxies and frameworks around it pass it on (the REST Proxy's error 50003).
@pattern("java.metadata_update_timeout", JAVA, "Failed to update metadata after",
         r"Failed to update metadata after (?P<ms>\d+) ms", "org.apache.kafka.common.errors.TimeoutException: "
         "Failed to update metadata after 60000 ms.")
def _java_metadata_update_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NOT_IN_METADATA, JAVA, detail=m.group(0))


# Kafka Connect's WorkerSourceTask: "{} Failed to flush, timed out while waiting for producer to flush outstanding {}
# messages" (before 2.x: "Failed to flush {}, timed out while waiting for producer to flush outstanding messages, {}
# left"): the task's own producer delivered nothing within offset.flush.timeout.ms.
@pattern("connect.flush_timeout", JAVA, "waiting for producer to flush outstanding",
         r"timed out while waiting for producer to flush outstanding (?:(?P<n>\d+) )?messages",
         "ERROR WorkerSourceTask{id=mirror-0} Failed to flush, timed out while waiting for producer to flush "
         "outstanding 1 messages (org.apache.kafka.connect.runtime.WorkerSourceTask)")
def _connect_flush_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(FLUSH_TIMEOUT, JAVA, detail=m.group(0))


# The admin client since 2.x: a call no broker answered in time.
@pattern("java.admin_call_timed_out", JAVA, "timed out at", r"Call\(callName=(?P<call>\w+), deadlineMs=\d+.*?\) timed out at",
         "org.apache.kafka.common.errors.TimeoutException: Call(callName=listNodes, deadlineMs=1700000000000, tries=1, "
         "nextAllowedTryMs=1700000000100) timed out at 1700000000000 after 1 attempt(s)")
def _java_admin_call_timed_out(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_NODE, JAVA, detail=m.group("call"))


# Spring Kafka's KafkaAdmin at start-up (spring-kafka KafkaAdmin.checkPartitions): describeTopics' future not done
# within its operationTimeout, "Timed out waiting to get existing topics" (a KafkaException over
# java.util.concurrent.TimeoutException): the admin client it wraps reached no broker in time, as the admin's own
# "Timed out waiting for a node assignment" says.
@pattern("spring.admin_existing_topics", JAVA, "Timed out waiting to get existing topics",
         r"Timed out waiting to get existing topics", "org.springframework.kafka.KafkaException: Timed out waiting to "
         "get existing topics")
def _spring_admin_existing_topics(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_NODE, JAVA, detail="KafkaAdmin: describeTopics")


# A record the producer gave up on, the exception under the line saying why: the producer's own ErrorLoggingCallback
# ("Error when sending message to topic {} with key: {}, value: {} bytes with error:"), and Spring Kafka's, whose
# KafkaTemplate wraps it in KafkaProducerException("Failed to send", cause) ("Failed to send; nested exception is
# ..." before Spring 6) and whose LoggingProducerListener logs "Exception thrown when sending a message with key='k'
# and payload='p' to topic t:".
@pattern("java.error_when_sending", JAVA, "Error when sending message to topic",
         r"Error when sending message to topic (?P<topic>[A-Za-z0-9._-]{1,249}) with key",
         "[2026-12-07 10:12:40,117] ERROR Error when sending message to topic orders with key: null, value: 12 bytes "
         "with error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)")
@pattern("spring.failed_to_send", JAVA, "Failed to send", r"(?:KafkaProducerException: )?\bFailed to send(?:;|\s*$)",
         "org.springframework.kafka.core.KafkaProducerException: Failed to send; nested exception is "
         "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for orders-0: 120000 ms has passed")
@pattern("spring.exception_when_sending", JAVA, "Exception thrown when sending a message",
         r"Exception thrown when sending a message with key='.{0,200}?' and payload='.{0,200}?' to topic "
         r"(?P<topic>[A-Za-z0-9._-]{1,249})", "ERROR o.s.k.support.LoggingProducerListener : Exception thrown when "
         "sending a message with key='null' and payload='hello' to topic orders:")
def _send_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    topic = m.groupdict().get("topic")
    yield Sighting(SEND_FAILED, JAVA, topic=topic or scan.topic, detail=m.group(0)[:200])
