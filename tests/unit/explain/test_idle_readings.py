"""A connection that had worked and was closed while it sat idle (the broker's connections.max.idle.ms, a load
balancer's or a NAT's idle timeout): read from what the client was doing when it broke, never certain, beside the
other readings a disconnect fits. The lines are the libraries' own words, from their sources: Go's net.OpError
(``write tcp a->b: write: broken pipe``), segmentio/kafka-go's writer.go (``error writing messages to %s (partition
%d)``), Sarama's errors.go ErrNotConnected (``kafka: broker not connected``) in its async producer's ``producer/broker/%d
state change to [closing] because %s``, Node's ``write EPIPE``, kafka-python's conn.py ``socket disconnected``, kafkajs's
retrier (``KafkaJSNumberOfRetriesExceeded``)."""

from __future__ import annotations

import pytest

from kdiag.explain.connection_age import FIRST, USED, WROTE, after_use
from kdiag.explain.engine import observe
from kdiag.explain.normalize import normalised
from kdiag.explain.reader import text_blocks
from tests.unit.explain.helpers import explained, ids


def _titles(text: str) -> dict[str, str]:
    return {f.id: f.title for f in explained(text).findings}


def _age(text: str) -> str | None:
    seen = observe(normalised(text_blocks(text)))
    return after_use(seen.groups.values(), seen.facts.retried)


@pytest.mark.parametrize("paste", [
    # segmentio/kafka-go writer.go: a produce to a partition's leader, on the connection the writer kept
    "error writing messages to orders (partition 3): write tcp 10.0.0.5:55555->10.0.0.9:9092: write: broken pipe",
    # Sarama async_producer.go, 1.x: the partition producer's broker connection had been closed under it
    "[sarama] 2016/10/05 16:45:36 producer/broker/1005 state change to [closing] because kafka: broker not connected",
])
def test_a_connection_that_carried_requests_is_an_idle_close_or_a_broker_gone_and_nothing_else(paste):
    assert _age(paste) == USED
    titles = _titles(paste)
    assert list(titles) == ["IDLE_CONNECTION_DROPPED", "BROKER_CLOSED_CONNECTION"]
    assert titles["IDLE_CONNECTION_DROPPED"].startswith("Likely: ")
    assert all(f.severity == "warning" for f in explained(paste).findings)
    assert "connections.max.idle.ms" in explained(paste).findings[0].explanation


def test_sarama_names_the_broker_whose_connection_was_closed():
    paste = "[sarama] producer/broker/1005 state change to [closing] because kafka: broker not connected"
    assert "broker 1005" in _titles(paste)["IDLE_CONNECTION_DROPPED"]


@pytest.mark.parametrize("paste", [
    "10.1.2.13:42642->10.2.3.4:9092: write: broken pipe",  # Go's net.OpError, the caller's prefix cut off
    "KafkaJSConnectionError: Connection error: write EPIPE",  # Node's errno name for a write into a closed socket
])
def test_a_write_into_a_closed_socket_is_likely_an_idle_close_beside_the_first_requests_readings(paste):
    assert _age(paste) == WROTE
    titles = _titles(paste)
    assert titles["IDLE_CONNECTION_DROPPED"].startswith("Likely: ")
    assert {"SASL_REQUIRED", "TLS_EXPECTED", "BROKER_CLOSED_CONNECTION"} <= set(titles)


@pytest.mark.parametrize("paste", [
    "<BrokerConnection host=kafka-1.example/10.0.0.9 port=9092>: socket disconnected",  # kafka-python 1.3
    "2026/11/26 10:00:00 failed to write messages: EOF",  # kafka-go's writer, io.EOF on the produce's answer
])
def test_a_close_that_does_not_say_when_adds_the_idle_reading_as_a_maybe(paste):
    assert _age(paste) is None
    titles = _titles(paste)
    assert titles["IDLE_CONNECTION_DROPPED"].startswith("Maybe: ")
    assert "TLS_EXPECTED" in titles and list(titles)[-1] == "BROKER_CLOSED_CONNECTION"


@pytest.mark.parametrize("paste", [
    # segmentio/kafka-go dialer.go: the connection's first exchange
    "failed to dial: failed to open connection to kafka:9092: EOF",
    # kafkajs: each retry, on a new connection, closed too (an idle close is followed by a reconnect that works)
    "KafkaJSNonRetriableError\n  Caused by: KafkaJSNumberOfRetriesExceeded: Closed connection",
    '{"level":"ERROR","logger":"kafkajs","message":"[BrokerPool] Closed connection","retryCount":1,"retryTime":614}',
    # Sarama client.go ErrOutOfBrokers: every broker tried was closed
    "kafka: client has run out of available brokers to talk to: EOF",
    # the same close over and over: each new connection closed at once
    "read: connection reset by peer\nread: connection reset by peer\nread: connection reset by peer",
    # librdkafka names the state: the ApiVersion exchange, or up for milliseconds
    "%3|1614780000.123|FAIL|rdkafka#producer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Disconnected "
    "(after 2ms in state UP)",
])
def test_a_close_at_the_first_exchange_has_no_idle_reading(paste):
    assert _age(paste) == FIRST
    assert "IDLE_CONNECTION_DROPPED" not in ids(explained(paste))


def test_an_idle_close_fix_names_the_clients_idle_limit_and_the_check_that_shows_it():
    found = explained("error writing messages to t (partition 0): write tcp 10.0.0.5:1->10.0.0.9:9092: write: "
                      "broken pipe").findings[0]
    assert "connections.max.idle.ms" in found.fix and "--idle-check" in found.fix
    assert "--idle-check 660" in found.explanation


RESETS = ("{t1} ERROR kafka: read tcp 10.0.0.5:41000->10.0.0.9:9092: read: connection reset by peer\n"
          "{t2} ERROR kafka: read tcp 10.0.0.5:41002->10.0.0.9:9092: read: connection reset by peer\n"
          "{t3} ERROR kafka: read tcp 10.0.0.5:41004->10.0.0.9:9092: read: connection reset by peer\n")


def test_the_same_close_every_ten_minutes_is_the_idle_limit_not_a_listener_refusing_each_connection():
    every_ten = RESETS.format(t1="2026-11-26 10:00:01,000", t2="2026-11-26 10:10:01,200", t3="2026-11-26 10:20:02,000")
    assert _age(every_ten) == USED
    assert list(_titles(every_ten)) == ["IDLE_CONNECTION_DROPPED", "BROKER_CLOSED_CONNECTION"]
    at_once = RESETS.format(t1="2026-11-26 10:00:01,000", t2="2026-11-26 10:00:01,200", t3="2026-11-26 10:00:02,000")
    assert _age(at_once) == FIRST and "IDLE_CONNECTION_DROPPED" not in _titles(at_once)


@pytest.mark.parametrize("first, second, apart", [
    ("2020-05-19 08:49:06,555 ERROR x", "2020-05-19 08:59:06,555 ERROR x", 600),  # log4j, Python's logging
    ('{"level":"ERROR","timestamp":"2026-11-21T17:27:09.664Z","message":"x"}',
     '{"level":"ERROR","timestamp":"2026-11-21T17:37:09.664Z","message":"x"}', 600),  # kafkajs's JSON
    ("2026/11/26 10:00:00 x", "2026/11/26 10:04:00 x", 240),  # Go's log
    ("May  7 09:30:41 host app[1]: x", "May  7 09:40:41 host app[1]: x", 600),  # syslog
    ("%3|1557221441.432|FAIL|rdkafka#producer-1| x", "%3|1557222041.604|FAIL|rdkafka#producer-1| x", 600.172),
])
def test_a_lines_own_timestamp_is_read_in_each_loggers_form(first, second, apart):
    from kdiag.explain.timestamps import time_of
    assert time_of(second) - time_of(first) == pytest.approx(apart, abs=0.01)
    assert time_of("ERROR " + "y" * 80 + " happened at 2020-05-19 08:49:06") is None  # in the message, not its head


JAVA_CANCELLED = ("[2026-11-26 10:00:00,000] INFO [Producer clientId=producer-1] Cancelled in-flight {api} request with "
                  "correlation id 12 due to node {node} being disconnected (elapsed time since creation: 3ms, elapsed "
                  "time since send: 3ms, throttle time: 0ms, request timeout: 30000ms) "
                  "(org.apache.kafka.clients.NetworkClient)")


def test_a_java_produce_cancelled_by_its_brokers_disconnect_is_a_connection_in_use():
    # NetworkClient.cancelInFlightRequests, at INFO: a quiet producer's PRODUCE on the connection to broker 1
    paste = JAVA_CANCELLED.format(api="PRODUCE", node=1)
    assert _age(paste) == USED
    assert list(_titles(paste)) == ["IDLE_CONNECTION_DROPPED", "BROKER_CLOSED_CONNECTION"]


@pytest.mark.parametrize("api, node", [("API_VERSIONS", -2), ("API_VERSIONS", 1), ("FETCH", 1)])
def test_a_java_first_exchange_or_a_busy_fetch_cancelled_is_not_read_as_an_idle_connection(api, node):
    assert "IDLE_CONNECTION_DROPPED" not in ids(explained(JAVA_CANCELLED.format(api=api, node=node)))
