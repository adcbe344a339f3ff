"""A connection the broker closed with no reason given: each cause that ends so is a reading (a warning), and what the
client's words say it was doing (asking for the broker's versions, writing on a connection already closed) or its
settings (a SASL login) decide which. The lines are the clients' own words, from their sources: rskafka's
connection.rs, librdkafka's broker states, Go's io and syscall errors as segmentio/kafka-go returns them, node's EPIPE
as kafkajs wraps it, Sarama's ErrNotConnected."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids


@pytest.mark.parametrize("line", [
    # rskafka, client/connection.rs: Error::SyncVersions "cannot sync versions: {0}" over the messenger's read error
    "Failed to connect to broker: cannot sync versions: Request error: Connection is poisoned: Cannot read framed "
    "message: Cannot read data: early eof",
    # librdkafka's broker state while its ApiVersion request is in flight
    "%3|1614780000.123|FAIL|rdkafka#producer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Disconnected "
    "(after 0ms in state APIVERSION_QUERY)",
    # Go's io.ErrUnexpectedEOF: the answer ended before the client read all it expected (segmentio/kafka-go's reader)
    "failed to read: unexpected EOF",
    "unexpected EOF",
], ids=["rskafka-sync-versions", "librdkafka-apiversion-state", "go-unexpected-eof", "bare-unexpected-eof"])
def test_a_hang_up_at_the_version_exchange_adds_an_older_brokers_reading(line):
    explanation = explained(line)
    assert {"TLS_EXPECTED", "BROKER_TOO_OLD", "BROKER_CLOSED_CONNECTION"} <= set(ids(explanation))
    assert {f.severity for f in explanation.findings} == {"warning"}
    older = next(f for f in explanation.findings if f.id == "BROKER_TOO_OLD")
    assert "before 0.10 does not know ApiVersions" in older.explanation


@pytest.mark.parametrize("line", ["failed to write messages: EOF", "2026/11/26 10:00:00 EOF",
                                  "read tcp 10.0.0.5:53412->10.0.0.9:9092: read: connection reset by peer"])
def test_a_hang_up_that_does_not_say_what_the_client_was_doing_has_no_version_reading(line):
    assert "BROKER_TOO_OLD" not in ids(explained(line))


def test_a_client_that_logs_in_reads_a_hang_up_as_refused_credentials_or_a_mechanism_not_enabled():
    found = ids(explained("sasl.mechanism=SCRAM-SHA-512\nfailed to write messages: EOF"))
    assert found[:2] == ["SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"] and "SASL_REQUIRED" not in found


@pytest.mark.parametrize("line", [
    # Go's syscall.EPIPE through net.OpError, as segmentio/kafka-go's Writer returns it
    "error writing messages to t (partition 3): write tcp 10.0.0.5:55555->10.0.0.9:9092: write: broken pipe",
    # node's EPIPE, as kafkajs wraps it
    "KafkaJSConnectionError: Connection error: write EPIPE",
])
def test_a_write_on_a_connection_already_closed_puts_a_connection_closed_while_idle_first(line):
    explanation = explained(line)
    assert ids(explanation)[0] == "IDLE_CONNECTION_DROPPED"
    assert "BROKER_CLOSED_CONNECTION" in ids(explanation)
    assert {f.severity for f in explanation.findings} == {"warning"}
    idle = explanation.findings[0]
    assert "connections.max.idle.ms" in idle.explanation and "closed while it sat idle" in idle.title


def test_saramas_not_connected_is_a_connection_that_had_worked_closed_since_never_a_security_reading():
    # Sarama errors.go: ErrNotConnected = errors.New("kafka: broker not connected"), "returned when trying to send or
    # call Close() on a Broker that is not connected"; its producer logs the state change with it.
    explanation = explained("[sarama] producer/broker/1005 state change to [closing] because kafka: broker not "
                            "connected")
    assert ids(explanation) == ["IDLE_CONNECTION_DROPPED", "BROKER_CLOSED_CONNECTION"]
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_a_hang_up_at_the_first_request_has_no_idle_reading():
    assert "IDLE_CONNECTION_DROPPED" not in ids(explained("failed to dial: failed to open connection to kafka:9092: "
                                                          "EOF"))


def test_a_host_name_at_the_start_of_a_title_is_written_as_the_log_wrote_it():
    line = ("%3|1614780000.123|FAIL|rdkafka#producer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Disconnected "
            "(after 0ms in state APIVERSION_QUERY)")
    closed = next(f for f in explained(line).findings if f.id == "BROKER_CLOSED_CONNECTION")
    assert "kafka:9092 closed the connection" in closed.title and "Kafka:9092" not in closed.title


@pytest.mark.parametrize("line", [
    "kafka: client has run out of available brokers to talk to: write tcp 10.0.0.5:51234->10.0.0.9:9092: write: "
    "broken pipe",
    "read tcp 10.0.0.5:53412->10.0.0.9:9092: read: connection reset by peer",
])
def test_go_names_the_end_that_hung_up_and_the_readings_name_it_too(line):
    readings = explained(line).findings
    assert readings and all("the log does not name" not in f.title for f in readings)
    assert any("10.0.0.9:9092" in f.title for f in readings)
    assert all("10.0.0.5" not in f.title for f in readings)


def test_two_go_peers_on_one_line_leave_the_address_unnamed():
    line = ("write tcp 10.0.0.5:1->10.0.0.9:9092: write: broken pipe; read tcp 10.0.0.5:2->10.0.0.8:9092: read: "
            "connection reset by peer")
    assert all("10.0.0.9" not in f.title and "10.0.0.8" not in f.title for f in explained(line).findings)
