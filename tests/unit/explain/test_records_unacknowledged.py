"""Records a producer sent and never got acknowledged, in the words of the libraries that say only that: Kafka Connect's
WorkerSourceTask (``{task} Failed to flush, timed out while waiting for producer to flush outstanding {n} messages``;
before 2.0 ``Failed to flush {task}, timed out while waiting for producer to flush outstanding messages, {n} left``),
and segmentio/kafka-go's WriteErrors (error.go: ``kafka write errors (%d/%d)``), which its Writer returns only after
the metadata answered with the topic's partitions. Each is read as the causes that end so, each a Maybe reading."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

CONNECT_FLUSH = [
    "2020-05-19 08:49:01,555 ERROR WorkerSourceTask{id=my-cluster->eventhub.MirrorSourceConnector-0} Failed to flush, "
    "timed out while waiting for producer to flush outstanding 1 messages "
    "(org.apache.kafka.connect.runtime.WorkerSourceTask) [SourceTaskOffsetCommitter-1]",
    "ERROR Failed to flush WorkerSourceTask{id=jdbc-source-0}, timed out while waiting for producer to flush outstanding "
    "messages, 1 left ({ProducerRecord(topic=t, partition=null, key=null, value=[B@6232c19}) "
    "(org.apache.kafka.connect.runtime.WorkerSourceTask:237)",
]


@pytest.mark.parametrize("paste", CONNECT_FLUSH, ids=["since-2.0", "before-2.0"])
def test_a_connect_flush_timeout_is_an_idle_drop_the_tasks_producer_settings_or_the_leader_each_a_maybe(paste):
    found = explained(paste).findings
    assert ids(explained(paste)) == ["ROUNDTRIP_FAILED", "IDLE_CONNECTION_DROPPED", "TLS_EXPECTED",
                                     "ADVERTISED_UNREACHABLE"]
    assert all(f.severity == "warning" for f in found)
    assert all(f.title.startswith("Maybe: ") for f in found[1:])
    assert "producer.security.protocol" in found[1].explanation
    assert found[0].title == "The source task's producer never got its records acknowledged"


def test_a_connect_flush_timeout_beside_its_cause_is_that_causes_consequence():
    paste = ("Connection to node -1 (kafka-1.example/10.0.0.9:9093) failed authentication due to: SSL handshake failed\n"
             + CONNECT_FLUSH[0])
    assert "IDLE_CONNECTION_DROPPED" not in ids(explained(paste))


@pytest.mark.parametrize("paste", ["pusher.go:47 kafka write errors (1/1)", "kafka write errors (3/10)"])
def test_kafka_go_write_errors_alone_are_an_advertised_broker_not_reached(paste):
    found = explained(paste).findings
    assert [f.id for f in found] == ["ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE"]
    assert all(f.severity == "warning" and f.title.startswith("Maybe: ") for f in found)


def test_kafka_go_write_errors_that_list_their_errors_are_read_by_those():
    paste = ("Kafka write errors (1/1), errors: [dial tcp: lookup kafka-0.kafka-headless.default.svc.cluster.local on "
             "127.0.0.11:53: no such host]")
    assert ids(explained(paste))[:1] == ["ADVERTISED_UNRESOLVABLE"]
    assert explained(paste).findings[0].severity == "error"
