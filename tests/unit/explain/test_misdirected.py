"""A request answered by a broker that says it belongs to another (NOT_LEADER_OR_FOLLOWER, NOT_COORDINATOR), in each
client's words: Sarama's ErrNotLeaderForPartition and ErrNotCoordinatorForConsumer, the Java client's
NotLeaderOrFollowerException and NotCoordinatorException messages, librdkafka's rd_kafka_err2str, kafka-python's error
classes. Both together are a Maybe reading of an address that reaches another broker; either alone says nothing."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

BOTH = {
    "sarama": ("kafka server: Tried to send a message to a replica that is not the leader for some partition. Your "
               "metadata is out of date.",
               "kafka server: Request was for a consumer group that is not coordinated by this broker."),
    "java": ("org.apache.kafka.common.errors.NotLeaderOrFollowerException: For requests intended only for the leader, "
             "this error indicates that the broker is not the current leader. For requests intended for any replica, "
             "this error indicates that the broker is not a replica of the topic partition.",
             "org.apache.kafka.common.errors.NotCoordinatorException: This is not the correct coordinator."),
    "librdkafka": ("%4|1700000000.000|PRODUCE|rdkafka#producer-1| [thrd:b1:9092/1]: b1:9092/1: t [0]: Broker: Not "
                   "leader for partition",
                   "%4|1700000000.000|COMMITFAIL|rdkafka#consumer-1| [thrd:main]: Offset commit failed: Broker: Not "
                   "coordinator"),
    "kafka-python": ("kafka.errors.NotLeaderForPartitionError: [Error 6] NotLeaderForPartitionError",
                     "kafka.errors.NotCoordinatorForGroupError: [Error 16] NotCoordinatorForGroupError"),
}


@pytest.mark.parametrize("family", sorted(BOTH))
def test_a_broker_answering_that_both_partition_and_group_belong_elsewhere_is_maybe_the_wrong_broker(family):
    explanation = explained("\n".join(BOTH[family]))
    assert [(f.id, f.severity) for f in explanation.findings] == [("ADVERTISED_WRONG_BROKER", "warning")]
    assert "kdiag bootstrap" in explanation.findings[0].explanation


@pytest.mark.parametrize("family", sorted(BOTH))
@pytest.mark.parametrize("which", [0, 1], ids=["not-leader-alone", "not-coordinator-alone"])
def test_either_answer_alone_is_a_leader_moving_and_no_finding(family, which):
    assert ids(explained(BOTH[family][which])) == []


def test_the_answers_do_not_become_the_consequence_of_another_cause():
    explanation = explained("Failed to resolve 'kafka:9092': Name or service not known\n" + "\n".join(BOTH["sarama"]))
    others = [f for f in explanation.findings if f.id != "ADVERTISED_WRONG_BROKER"]
    assert others and all("not the leader" not in f.explanation for f in others)
