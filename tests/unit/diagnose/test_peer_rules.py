"""Peers that speak Kafka's framing, or hold Kafka's port, and misbehave in time: a broker whose process
is not reading (BROKER_STALLED) and one that turns the connection away unanswered (BROKER_CLOSED_CONNECTION).
What a real broker does to produce these is in tests/integration/test_unresponsive_broker.py."""

from __future__ import annotations

from kdiag.diagnose import diagnose, run_rule
from probes.results import ForeignBytes, KafkaCheck

from .builders import bootstrap_failure, healthy, tcp_ok, with_broker

NOT_READING = ForeignBytes("hung", "no answer to ApiVersions within 2.5s, and no reaction within 0.5s when kdiag then "
                           "closed its side of the connection: the kernel accepted the connection, but the process "
                           "behind the port is not reading it (frozen or hung)", "")
TURNED_AWAY = ForeignBytes("closed", "the connection failed while waiting for ApiVersions: Connection reset by peer "
                           "(kdiag connected from 192.0.2.10)", "")


def reached(kafka: KafkaCheck):  # type: ignore[no-untyped-def]
    return bootstrap_failure("kafka.example.com:9092", attempts=[tcp_ok("203.0.113.11", 9092)], kafka=kafka)


def test_a_bootstrap_whose_process_is_not_reading_is_broker_stalled_not_a_foreign_protocol() -> None:
    report = reached(KafkaCheck("error", foreign=NOT_READING, error="no answer to ApiVersions"))
    (found,) = run_rule(report, "BROKER_STALLED")
    assert found.title == ("Bootstrap address kafka.example.com:9092 accepted the connection, but the process behind "
                           "it is not reading")
    assert "stop-the-world GC pause" in found.explanation and "SIGSTOP" in found.explanation
    assert found.evidence["what"] == NOT_READING.description
    assert "kill -CONT <pid>" in found.fix and "jstack <pid>" in found.fix
    # a listener at its connection limit stops accepting: the same silence from a running broker
    assert "listener.name.<listener>.max.connections" in found.explanation and "max.connections" in found.fix
    assert [f.id for f in diagnose(report)] == ["BROKER_STALLED"]


def test_an_advertised_broker_that_is_not_reading_is_broker_stalled_with_its_node_id() -> None:
    report = with_broker(healthy(3), 2, kafka=KafkaCheck("error", foreign=NOT_READING))
    (found,) = run_rule(report, "BROKER_STALLED")
    assert found.title.startswith("Broker 2's advertised address kafka2.example.com:9092 accepted the connection")
    assert found.evidence["node_id"] == 2


def test_a_silent_port_that_closed_when_kdiag_did_is_not_kafka_not_stalled() -> None:
    silent = ForeignBytes("silent", "no answer at all within 2.5s: the port accepted the connection but sent nothing "
                          "back, and closed it when kdiag closed its side", "")
    report = reached(KafkaCheck("not_kafka", foreign=silent))
    assert [f.id for f in diagnose(report)] == ["NOT_KAFKA"]


def test_a_connection_closed_before_api_versions_was_answered_names_the_per_ip_connection_limit() -> None:
    report = reached(KafkaCheck("error", foreign=TURNED_AWAY, error="connection failed: Connection reset by peer"))
    (found,) = run_rule(report, "BROKER_CLOSED_CONNECTION")
    assert found.title == ("Bootstrap address kafka.example.com:9092 accepted the connection, then closed it without "
                           "answering")
    assert "max.connections.per.ip" in found.explanation and "Rejected connection from" in found.explanation
    assert "--add-config 'max.connections.per.ip.overrides=[<address>:<N>]'" in found.fix
    assert "KAFKA_MAX_CONNECTIONS_PER_IP" in found.fix
    assert found.evidence["what"].endswith("(kdiag connected from 192.0.2.10)")
    assert [f.id for f in diagnose(report)] == ["BROKER_CLOSED_CONNECTION"]


def test_a_connection_closed_after_api_versions_keeps_the_mid_conversation_finding() -> None:
    closed = ForeignBytes("closed", "the peer closed the connection after 0 bytes of its answer to Metadata "
                          "(and 312 bytes before it)", "")
    (found,) = run_rule(reached(KafkaCheck("error", api_versions_version=3, foreign=closed)),
                        "BROKER_CLOSED_CONNECTION")
    assert found.title.endswith("closed the connection in the middle of the conversation")
    assert "max.connections.per.ip" not in found.fix


def test_a_metadata_answer_over_the_cap_names_a_very_large_cluster_not_only_a_hostile_peer() -> None:
    # kdiag asks for every topic's metadata: a real cluster with some hundreds of thousands of partitions
    # passes the 16 MiB cap, and calling it "a broken or hostile peer" would send the user the wrong way.
    said = "an answer to Metadata declared 20971520 bytes, above the 16777216-byte cap kdiag sets for an answer to Metadata"
    foreign = ForeignBytes("too_large", said, "", request="Metadata")
    report = reached(KafkaCheck("error", foreign=foreign, error="Metadata: too large"))
    (found,) = run_rule(report, "RESPONSE_TOO_LARGE")
    assert "hundreds of thousands of partitions" in found.explanation
    assert "hostile" not in found.explanation
    assert found.evidence["what"] == said


def test_which_answer_was_too_large_is_read_from_the_request_not_from_the_wording() -> None:
    # The same words about an ApiVersions answer: no real broker sends one that size, whatever the text says.
    said = "an answer to Metadata declared 20971520 bytes (so the description reads)"
    foreign = ForeignBytes("too_large", said, "", request="ApiVersions")
    (found,) = run_rule(reached(KafkaCheck("error", foreign=foreign)), "RESPONSE_TOO_LARGE")
    assert found.title.endswith("answered with a response larger than any real one")
    assert "hostile" in found.explanation
