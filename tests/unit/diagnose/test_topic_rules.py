"""Topic and round-trip rules."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kdiag.diagnose import diagnose, run_rule
from probes.results import TopicInfo

from .builders import (SKIPPED_TCP, dns_fail, healthy, topics_for, with_broker, with_roundtrip_failure, with_topics)

TOPIC_RULES = ("NO_LEADER", "TOPIC_NOT_FOUND", "TOPIC_AUTHORIZATION_FAILED", "ROUNDTRIP_FAILED")


def with_partition(report, partition: int, **changes):  # type: ignore[no-untyped-def]
    orders, offsets = topics_for([1, 2, 3])
    parts = tuple(replace(p, **changes) if p.partition == partition else p for p in orders.partitions)
    return with_topics(report, replace(orders, partitions=parts), offsets)


@pytest.mark.parametrize("rule_id", TOPIC_RULES)
def test_topic_rules_are_silent_on_a_healthy_cluster(rule_id: str) -> None:
    assert run_rule(healthy(3), rule_id) == ()


# --- TOPIC_NOT_FOUND ------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["UNKNOWN_TOPIC_OR_PARTITION", "_UNKNOWN_TOPIC"])
def test_topic_not_found_fires_on_the_roundtrip_error_code_and_shows_how_to_create_it(code: str) -> None:
    report = with_roundtrip_failure(healthy(3), "Broker: Unknown topic or partition", code, topic="payments")
    assert [f.id for f in diagnose(report)] == ["TOPIC_NOT_FOUND"]
    (found,) = run_rule(report, "TOPIC_NOT_FOUND")
    assert found.title == "Topic payments does not exist, and this client could not create it"
    assert "Topic payments not present in metadata after 60000 ms." in found.explanation
    assert ("kafka-topics.sh --bootstrap-server kafka1.example.com:9092 --create --topic payments --partitions 3 "
            "--replication-factor 3") in found.fix


def test_topic_not_found_uses_replication_factor_one_on_a_single_broker() -> None:
    report = with_roundtrip_failure(healthy(1), "Broker: Unknown topic or partition", "UNKNOWN_TOPIC_OR_PARTITION")
    (found,) = run_rule(report, "TOPIC_NOT_FOUND")
    assert "--replication-factor 1" in found.fix


def test_topic_not_found_from_the_metadata_when_the_roundtrip_failed() -> None:
    report = with_roundtrip_failure(healthy(3), "timed out", None, topic="payments")
    report = with_topics(report, TopicInfo("payments", error="UNKNOWN_TOPIC_OR_PARTITION"))
    assert [f.id for f in run_rule(report, "TOPIC_NOT_FOUND")] == ["TOPIC_NOT_FOUND"]


def test_topic_not_found_is_silent_when_kdiag_created_the_topic() -> None:
    report = with_roundtrip_failure(healthy(3), "Broker: Unknown topic or partition", "UNKNOWN_TOPIC_OR_PARTITION",
                                    topic_created=True)
    assert run_rule(report, "TOPIC_NOT_FOUND") == ()


# --- TOPIC_AUTHORIZATION_FAILED -------------------------------------------------------------------


def test_topic_authorization_failed_gives_the_acl_commands_for_topic_and_group() -> None:
    report = with_roundtrip_failure(healthy(3), "Broker: Topic authorization failed", "TOPIC_AUTHORIZATION_FAILED")
    assert [f.id for f in diagnose(report)] == ["TOPIC_AUTHORIZATION_FAILED"]
    (found,) = run_rule(report, "TOPIC_AUTHORIZATION_FAILED")
    assert "Not authorized to access topics: [orders]" in found.explanation
    assert "--operation Write --operation Read --topic orders" in found.fix
    assert "--group kdiag-probe" in found.fix


def test_topic_authorization_failed_from_the_metadata_topic_error() -> None:
    report = with_topics(healthy(3), TopicInfo("secret-topic", error="TOPIC_AUTHORIZATION_FAILED"))
    (found,) = run_rule(report, "TOPIC_AUTHORIZATION_FAILED")
    assert found.evidence["topics"] == ["secret-topic"]


# --- NO_LEADER ------------------------------------------------------------------------------------


def test_no_leader_lists_leaderless_partitions_and_missing_replicas() -> None:
    report = with_partition(healthy(3), 1, leader_id=-1, error="LEADER_NOT_AVAILABLE", replica_nodes=(4, 5),
                            isr_nodes=())
    (found,) = run_rule(report, "NO_LEADER")
    assert found.title == "1 partition has no leader: orders [1]"
    assert found.evidence["missing_node_ids"] == [4, 5]
    assert "brokers 4 and 5" in found.explanation
    assert "--unavailable-partitions" in found.fix


def test_no_leader_listener_not_found_says_the_leader_lacks_this_listener() -> None:
    report = with_partition(healthy(3), 2, error="LISTENER_NOT_FOUND")
    (found,) = run_rule(report, "NO_LEADER")
    assert "LISTENER_NOT_FOUND" in found.title
    assert "There is no listener on the leader broker that matches the listener" in found.explanation
    assert "The leader (broker 3) has no listener with the name" in found.explanation
    assert found.evidence["error"] == "LISTENER_NOT_FOUND"


def test_no_leader_ignores_a_topic_kdiag_just_created() -> None:
    report = with_partition(healthy(3), 1, leader_id=-1, error="LEADER_NOT_AVAILABLE")
    report = with_roundtrip_failure(report, "Broker: Leader not available", "LEADER_NOT_AVAILABLE",
                                    topic_created=True)
    assert run_rule(report, "NO_LEADER") == ()


# --- ROUNDTRIP_FAILED -----------------------------------------------------------------------------


def test_roundtrip_failed_carries_the_clients_own_error_and_log() -> None:
    log = [f"%7|1700000000.{n:03d}|BROKER|rdkafka#producer-1| line {n}" for n in range(30)]
    report = with_roundtrip_failure(healthy(3), "Broker: Not enough in-sync replicas", "NOT_ENOUGH_REPLICAS",
                                    client_log=log)
    assert [f.id for f in diagnose(report)] == ["ROUNDTRIP_FAILED"]
    (found,) = run_rule(report, "ROUNDTRIP_FAILED")
    assert "Broker: Not enough in-sync replicas" in found.title
    assert found.evidence["error"] == "Broker: Not enough in-sync replicas"
    assert found.evidence["error_code"] == "NOT_ENOUGH_REPLICAS"
    assert found.evidence["client_log"] == log[-20:]
    assert "min.insync.replicas" in found.explanation
    assert "--under-min-isr-partitions" in found.fix


def test_roundtrip_failed_without_a_known_code_suggests_the_debug_log() -> None:
    report = with_roundtrip_failure(healthy(1), "Something odd happened")
    (found,) = run_rule(report, "ROUNDTRIP_FAILED")
    assert "-X debug=broker,topic,msg,protocol,cgrp" in found.fix


def test_roundtrip_failed_stays_quiet_when_a_broker_problem_explains_it() -> None:
    report = with_broker(healthy(3), 2, dns=dns_fail("kafka2.example.com"), tcp=SKIPPED_TCP)
    report = with_roundtrip_failure(report, "Local: Message timed out", "_MSG_TIMED_OUT")
    assert run_rule(report, "ROUNDTRIP_FAILED") == ()
    assert "ROUNDTRIP_FAILED" not in [f.id for f in diagnose(report)]


def test_roundtrip_failed_stays_quiet_when_the_topic_has_no_leader() -> None:
    report = with_partition(healthy(3), 0, leader_id=-1, error="LEADER_NOT_AVAILABLE")
    report = with_roundtrip_failure(report, "Local: Message timed out", "_MSG_TIMED_OUT")
    assert [f.id for f in diagnose(report)] == ["NO_LEADER"]
