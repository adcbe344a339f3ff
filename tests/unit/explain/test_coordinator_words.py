"""COORDINATOR_NOT_AVAILABLE (15) in each client's spelling, from the sources that print it: the group's partition of
__consumer_offsets (a transactional id's of __transaction_state) has no leader, or the topic was never created --
NO_LEADER of that internal topic, never a round trip on it. Documentation hosts only."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

SPELLINGS = [
    # librdkafka rdkafka_cgrp.c: "Group \"%s\" GroupCoordinator response error: %s", rd_kafka_err2str's words
    '%7|1765101600.000|CGRPCOORD|rdkafka#consumer-1| [thrd:main]: kafka-1.example:9092/1: Group "orders" '
    "GroupCoordinator response error: Broker: Group coordinator not available",
    "%4|1765101600.000|CGRPCOORD|rdkafka#consumer-1| [thrd:main]: Group \"orders\" FindCoordinator response error: "
    "Broker: Coordinator not available",
    # librdkafka's enum name, as its bindings print the code (rdkafka.h: RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE)
    "FindCoordinator failed: RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE",
    # Errors.java: COORDINATOR_NOT_AVAILABLE(15, "The coordinator is not available.", ...)
    "org.apache.kafka.common.errors.CoordinatorNotAvailableException: The coordinator is not available.",
    # Sarama errors.go (ErrConsumerCoordinatorNotAvailable), new and old words, and its client.go log line
    "kafka: error while consuming orders/0: kafka server: The coordinator is not available",
    "kafka server: Offset's topic has not yet been created.",
    "[sarama] 2026/12/07 10:00:00 client/coordinator coordinator for consumer group orders is not available",
    # franz-go kerr, kafka-go's "[15] Group Coordinator Not Available", kafka-python's and brod's class names
    "[WARN] join group failed; group: orders, err: COORDINATOR_NOT_AVAILABLE: The coordinator is not available.",
    "[15] Group Coordinator Not Available: the broker returns this error code for group coordinator requests",
    "kafka.errors.GroupCoordinatorNotAvailableError: [Error 15] GroupCoordinatorNotAvailableError",
    "failed to join group reason::GroupCoordinatorNotAvailable",
]


@pytest.mark.parametrize("line", SPELLINGS)
def test_no_coordinator_is_the_offsets_partition_without_a_leader(line):
    finding = only(explained(line), "NO_LEADER")
    assert finding.severity == "info" and finding.evidence["topic"] == "__consumer_offsets"
    assert finding.evidence["error"] == "COORDINATOR_NOT_AVAILABLE"
    assert "offsets.topic.replication.factor" in finding.fix
    assert "--topic __consumer_offsets" not in finding.fix.split("Confirm it")[-1]  # no round trip on it


def test_a_lasting_answer_is_a_warning_and_a_transactional_id_names_its_own_topic():
    line = ("org.apache.kafka.common.errors.CoordinatorNotAvailableException: The coordinator is not available. "
            "(transactional.id orders-tx)")
    finding = only(explained("\n".join([line] * 3)), "NO_LEADER")
    assert finding.severity == "warning" and finding.evidence["topic"] == "__transaction_state"


@pytest.mark.parametrize("line", [
    "org.apache.kafka.common.errors.CoordinatorLoadInProgressException: The coordinator is loading and hence can't "
    "process requests.",
    "INFO [Consumer clientId=c-1, groupId=orders] Group coordinator kafka-1.example:9092 (id: 2147483646 rack: null) "
    "is unavailable or invalid due to cause: null.isDisconnected: true. Rediscovery will be attempted.",
    "kafka server: Request was for a consumer group that is not coordinated by this broker",
])
def test_other_coordinator_words_are_not_a_leaderless_offsets_partition(line):
    assert "NO_LEADER" not in ids(explained(line))
