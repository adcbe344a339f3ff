"""NOT_LEADER_OR_FOLLOWER answers and a send that failed on them (the Java Sender's ``Received invalid metadata error in
produce request on partition {} due to {}. Going to request metadata update now``; the producer's ErrorLoggingCallback,
Spring Kafka's KafkaProducerException ``Failed to send``, records that expired): a leader change's answer is gone after
a metadata refresh, so a send that failed on it reads as an address that reaches another broker, or several brokers
behind one address, both hedged. The answer alone, retried, stays no finding."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

SENDER = ("[2026-12-07 10:12:39,870] WARN [Producer clientId=orders-producer] Received invalid metadata error in produce "
          "request on partition orders-3 due to org.apache.kafka.common.errors.NotLeaderOrFollowerException: For "
          "requests intended only for the leader, this error indicates that the broker is not the current leader. For "
          "requests intended for any replica, this error indicates that the broker is not a replica of the topic "
          "partition.. Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)")


def test_the_answer_alone_is_a_leader_change_not_a_finding():
    assert explained(SENDER).findings == ()


@pytest.mark.parametrize("failed", [
    "org.springframework.kafka.core.KafkaProducerException: Failed to send; nested exception is "
    "org.apache.kafka.common.errors.NotLeaderOrFollowerException: For requests intended only for the leader",
    "org.springframework.kafka.core.KafkaProducerException: Failed to send",
    "[2026-12-07 10:14:40,117] ERROR Error when sending message to topic orders with key: null, value: 12 bytes with "
    "error: (org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)",
    "2026-12-07 10:14:40.117 ERROR 881 --- [ad | producer-1] o.s.k.support.LoggingProducerListener : Exception thrown "
    "when sending a message with key='null' and payload='{\"id\":7}' to topic orders:",
    "org.apache.kafka.common.errors.TimeoutException: Expiring 3 record(s) for orders-3:120001 ms has passed since "
    "batch creation",
])
def test_a_send_that_failed_on_it_reads_as_an_address_reaching_another_broker(failed):
    found = explained(f"{SENDER}\n{failed}").findings
    assert [f.id for f in found] == ["ADVERTISED_WRONG_BROKER", "LOAD_BALANCED_BOOTSTRAP"]
    assert all(f.severity == "warning" and f.title.startswith("Maybe: ") for f in found)
    assert "group's coordination" not in found[0].explanation


def test_a_failed_send_alone_says_the_client_gave_up_without_a_cause():
    found = explained("org.springframework.kafka.core.KafkaProducerException: Failed to send").findings
    assert [f.id for f in found] == ["ROUNDTRIP_FAILED"] and found[0].severity == "warning"


def test_a_failed_send_after_its_cause_is_that_causes_consequence():
    text = ("[2026-12-07 10:14:38,001] WARN [Producer clientId=p] Error connecting to node kafka-1:9092 (id: 1 rack: "
            "null)\njava.net.UnknownHostException: kafka-1: Name or service not known\n"
            "org.springframework.kafka.core.KafkaProducerException: Failed to send")
    assert ids(explained(text)) == ["ADVERTISED_UNRESOLVABLE"]


def test_librdkafkas_message_timed_out_after_the_answer_reads_the_same():
    text = ("%4|1765100000.123|PRODUCE|rdkafka#producer-1| [thrd:kafka-1:9092/1]: kafka-1:9092/1: orders [3]: Produce "
            "failed: Broker: Not leader for partition\nDelivery failed: Local: Message timed out")
    assert ids(explained(text)) == ["ADVERTISED_WRONG_BROKER", "LOAD_BALANCED_BOOTSTRAP"]
