"""The probe topic's replication factor follows the CreateTopics versions the broker offers (KIP-464)."""

from __future__ import annotations

from probes.codec import ApiVersionRange
from probes.roundtrip import CREATE_TOPICS, probe_replication_factor


def test_createtopics_v4_and_later_take_the_brokers_default() -> None:
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 4), brokers=5) == -1
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 2, 7), brokers=1) == -1


def test_before_v4_an_explicit_factor_of_at_most_three_and_the_brokers_there_are() -> None:
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 3), brokers=5) == 3
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 2), brokers=2) == 2
    assert probe_replication_factor(ApiVersionRange(CREATE_TOPICS, 0, 0), brokers=0) == 1


def test_no_createtopics_at_all_leaves_the_topic_to_the_brokers_auto_create() -> None:
    assert probe_replication_factor(None, brokers=3) is None
