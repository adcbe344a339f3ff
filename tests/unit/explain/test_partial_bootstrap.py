"""One bootstrap address of several refusing while a metadata answer came through another (the Java client's
connection -N is its Nth bootstrap address): the refusal is certain, a broker down while others answer
(PARTIAL_CLUSTER) a reading beside it. And the Java client's ``{} partitions have leader brokers without a matching
listener, including {}`` (LISTENER_NOT_FOUND in the metadata answer): no usable leader for those partitions."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids

HEAD = "[2026-12-07 10:30:01,{ms}] WARN [Consumer clientId=lag-1, groupId=lag] "
TAIL = " (org.apache.kafka.clients.NetworkClient)"
REFUSED = (HEAD.format(ms="114") + "Connection to node -2 (kafka-b.streaming.example.net/10.20.0.12:9092) could not be "
           "established. Broker may not be available." + TAIL)
WITHOUT_LISTENER = (HEAD.format(ms="871") + "3 partitions have leader brokers without a matching listener, including "
                    "[orders-1, orders-4, orders-7]" + TAIL)
METADATA_ERRORS = (HEAD.format(ms="902") + "The metadata response from the cluster reported a recoverable issue with "
                   "correlation id 7 : {orders=LEADER_NOT_AVAILABLE}" + TAIL)


def test_one_of_several_bootstrap_addresses_refused_after_metadata_came_is_partly_down():
    found = explained(f"{REFUSED}\n{WITHOUT_LISTENER}").findings
    assert [f.id for f in found if f.severity == "error"] == ["BOOTSTRAP_REFUSED", "NO_LEADER"]
    partial = [f for f in found if f.id == "PARTIAL_CLUSTER"]
    assert len(partial) == 1 and partial[0].title.startswith("Or: ") and partial[0].severity == "warning"
    assert "the second address in bootstrap.servers" in partial[0].explanation
    assert partial[0].title == "Or: The broker at bootstrap address kafka-b.streaming.example.net:9092 is down or " \
        "restarting: other brokers answer"


def test_any_metadata_answer_shows_another_broker_answered():
    assert "PARTIAL_CLUSTER" in ids(explained(f"{REFUSED}\n{METADATA_ERRORS}"))


def test_a_refused_bootstrap_with_no_metadata_answer_is_the_refusal_alone():
    assert ids(explained(REFUSED)) == ["BOOTSTRAP_REFUSED"]


def test_the_first_bootstrap_address_refused_says_nothing_of_others():
    refused = REFUSED.replace("node -2", "node -1")
    assert "PARTIAL_CLUSTER" not in ids(explained(f"{refused}\n{WITHOUT_LISTENER}"))


def test_leaders_without_a_matching_listener_name_their_partitions():
    found = [f for f in explained(WITHOUT_LISTENER).findings if f.id == "NO_LEADER"]
    assert len(found) == 1 and found[0].evidence["topic"] == "orders"
    assert "restarts" in found[0].explanation


def test_leaders_without_a_matching_listener_cut_before_the_list():
    found = explained(HEAD.format(ms="871") + "4 partitions have leader brokers without a matching listener, including [")
    assert ids(found) == ["NO_LEADER"] and found.findings[0].title.startswith("Partition leaders have no listener")
