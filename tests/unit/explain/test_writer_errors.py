"""segmentio/kafka-go's WriteErrors (error.go: ``kafka write errors (%d/%d)``; since 0.4.x with ``, errors: [...]``),
which its Writer returns only after the metadata answered with the topic's partitions (writer.go WriteMessages): the
produce to a leader the metadata named failed. Alone, it is an advertised broker not reached, each way a Maybe
reading; the errors it lists are read with that role."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids


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
