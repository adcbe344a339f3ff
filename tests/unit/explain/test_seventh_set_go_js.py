"""The classes behind the seventh blind set's Go, kafkajs, Sarama and librdkafka-debug misses, from the libraries' own
words (their format strings), not only the cases' lines; documentation addresses only.

- Go's net dials an address without a host (``:9092``, an unset variable) on the local machine; no broker advertises
  one, so it is the client's own bootstrap setting.
- A client that names one address of a name (Node's net.connect tries the first, Go reports the first error) refused
  on ::1 says nothing of 127.0.0.1: the refusal is likely, the IPv4-only listener a reading beside it.
- librdkafka's "(after Nms in state CONNECT)" on a reason that is not the connect's own (the application destroying the
  client): the connect got no answer for seconds.
- Sarama's per-request EOF after the connection served others: a request version the server does not speak.
- kafka-go's DialLeader at its context's deadline: the topic's partition never came.
"""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only


# --- Go: an address without a host ---------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # franz-go broker.go: fmt.Errorf("unable to dial: %w", err), and its logger's "unable to open connection to broker"
    "Unable to ping the streams: unable to dial: dial tcp :9092: connect: connection refused",
    "[WARN] unable to open connection to broker; addr: :9092, broker: seed_0, err: dial tcp :9092: connect: "
    "connection refused",
    # kafka-go dialer.go: "failed to dial: %w" around "failed to open connection to %s: %w"
    "failed to dial: failed to open connection to :9092: dial tcp :9092: connect: connection refused",
    # Sarama: "Failed to connect to broker %s: %s"
    "[sarama] 2024/05/01 10:00:00 Failed to connect to broker :9092: dial tcp :9092: connect: connection refused",
])
def test_a_go_dial_without_a_host_is_the_bootstrap_refused(line):
    refused = only(explained(line), "BOOTSTRAP_REFUSED")
    assert refused.severity == "error"
    assert refused.evidence["role"] == "bootstrap"
    assert "host left out" in str(refused.evidence.get("role_from", "")) or "Sarama" in line


def test_a_go_dial_without_a_host_that_times_out_is_the_bootstrap_timing_out():
    assert ids(explained("unable to dial: dial tcp :9093: i/o timeout")) == ["BOOTSTRAP_TIMEOUT"]


def test_the_meta_address_is_still_a_broker_advertising_it():
    assert ids(explained("unable to dial: dial tcp 0.0.0.0:9092: connect: connection refused")) == \
        ["ADVERTISED_NONROUTABLE"]


# --- one address of a name refused on IPv6 ------------------------------------------------------------------

KAFKAJS_REFUSED_V6 = [
    '{"level":"ERROR","timestamp":"2024-03-27T14:08:00.064Z","logger":"kafkajs","message":"[Connection] Connection '
    'error: connect ECONNREFUSED ::1:9092","broker":"localhost:9092","clientId":"app","stack":"Error: connect '
    'ECONNREFUSED ::1:9092\\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1494:16)"}',
    '{"level":"ERROR","timestamp":"2024-03-27T14:08:00.065Z","logger":"kafkajs","message":"[BrokerPool] Failed to '
    'connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED ::1:9092",'
    '"retryCount":0,"retryTime":311}',
]


def test_kafkajs_refused_on_ipv6_reads_the_refusal_first_and_the_family_split_beside_it():
    explanation = explained("\n".join(KAFKAJS_REFUSED_V6))
    assert ids(explanation) == ["BOOTSTRAP_REFUSED", "ADVERTISED_ADDRESS_FAMILY_SPLIT"]
    refused, split = explanation.findings
    assert refused.title.startswith("Likely: ") and "localhost:9092" in refused.title
    assert split.title.startswith("Or: ")
    assert {f.severity for f in explanation.findings} == {"warning"}


def test_kafkajs_brokerpool_line_joins_the_connection_line_it_repeats():
    # the [BrokerPool] line names no broker: it is the [Connection] line's endpoint, not a finding about [::1]
    explanation = explained("\n".join(KAFKAJS_REFUSED_V6))
    assert all("[::1]" not in f.title for f in explanation.findings)
    assert only(explanation, "BOOTSTRAP_REFUSED").evidence["role"] == "bootstrap"


def test_go_refused_on_ipv6_of_localhost_is_no_certain_family_split():
    line = ("[WARN] unable to open connection to broker; addr: localhost:9092, broker: seed_0, err: dial tcp "
            "[::1]:9092: connect: connection refused")
    explanation = explained(line)
    assert "BOOTSTRAP_REFUSED" in ids(explanation)
    assert all(f.title.startswith("Or: ") for f in explanation.findings if f.id == "ADVERTISED_ADDRESS_FAMILY_SPLIT")


def test_librdkafka_refused_on_ipv6_only_stays_the_family_split():
    # librdkafka logs each address it tries: ::1 refused alone means 127.0.0.1 answered
    line = ("%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: "
            "Connect to ipv6#[::1]:9092 failed: Connection refused (after 0ms in state CONNECT)")
    assert ids(explained(line))[0] == "ADVERTISED_ADDRESS_FAMILY_SPLIT"


# --- librdkafka: a connection still in state CONNECT -------------------------------------------------------

def _terminating(name: str, ms: int) -> str:
    # rd_kafka_broker_fail's "(after %dms in state %s)" on rd_kafka_destroy's reason
    return (f"%7|1666628232.807|FAIL|rdkafka#producer-1| [thrd:{name}]: {name}: Client is terminating (after {ms}ms "
            "in state CONNECT) (_DESTROY)")


def test_librdkafka_terminated_seconds_into_its_bootstrap_connect_is_likely_a_timeout():
    timeout = only(explained(_terminating("ssl://b-1.example.com:9194/bootstrap", 10701)), "BOOTSTRAP_TIMEOUT")
    assert timeout.severity == "warning" and timeout.title.startswith("Likely: ")
    assert "b-1.example.com:9194" in timeout.title and "socket.connection.setup.timeout.ms" in timeout.explanation


def test_librdkafka_terminated_seconds_into_a_brokers_connect_is_that_broker_unreachable():
    assert "ADVERTISED_UNREACHABLE" in ids(explained(_terminating("b-2.example.com:9092/2", 8000)))


def test_librdkafka_terminated_right_after_connecting_says_nothing():
    assert ids(explained(_terminating("b-1.example.com:9092/bootstrap", 12))) == []


def test_librdkafka_connect_failures_keep_their_own_words():
    line = ("%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:b-1.example.com:9092/bootstrap]: "
            "b-1.example.com:9092/bootstrap: Connect to ipv4#192.0.2.10:9092 failed: Operation timed out (after "
            "75012ms in state CONNECT)")
    explanation = explained(line)
    assert ids(explanation) == ["BOOTSTRAP_TIMEOUT"] and explanation.findings[0].severity == "error"


# --- Sarama: a request the server hung up on, after the connection served others ----------------------------

@pytest.mark.parametrize("line, api", [
    # consumer.go: "consumer/broker/%d disconnecting due to error processing FetchRequest: %s\n"
    ("[sarama] 2023/05/30 16:50:14 consumer/broker/0 disconnecting due to error processing FetchRequest: EOF", "Fetch"),
    # the same through logrus's text formatter (Dapr): msg="...: EOF\n"
    ('time="2023-05-30T16:50:14Z" level=debug msg="consumer/broker/0 disconnecting due to error processing '
     'FetchRequest: EOF\\n" app_id=listener scope=dapr.contrib', "Fetch"),
    # async_producer.go: "producer/broker/%d state change to [closing] because %s\n"
    ("[sarama] 2024/05/01 10:00:00 producer/broker/1 state change to [closing] because EOF", "Produce"),
    # consumer.go ConsumerError: "kafka: error while consuming %s/%d: %s"
    ("2024/05/01 10:00:00 kafka: error while consuming orders/0: EOF", "Fetch"),
])
def test_sarama_eof_on_a_request_after_use_is_likely_a_version_the_server_does_not_speak(line, api):
    explanation = explained(line)
    assert ids(explanation) == ["BROKER_TOO_OLD", "BROKER_CLOSED_CONNECTION"]
    too_old, closed = explanation.findings
    assert too_old.title.startswith("Likely: ") and too_old.evidence["api"] == api
    assert "config.Version" in too_old.explanation
    assert closed.title.startswith("Or: ")


def test_sarama_fetch_failing_with_a_kafka_error_is_no_version_gap():
    line = ("[sarama] consumer/broker/0 disconnecting due to error processing FetchRequest: kafka server: Request was "
            "for a topic or partition that does not exist on this broker")
    assert "BROKER_TOO_OLD" not in ids(explained(line))


# --- kafka-go: DialLeader at its deadline ------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # kafka-go's README: log.Fatal("failed to dial leader:", err)
    "2024/06/05 14:20:40 failed to dial leader:context deadline exceeded",
    "2024/06/05 14:20:40 failed to dial to kafka: context deadline exceeded",
    "panic: kafka.DialLeader: context deadline exceeded",
])
def test_kafka_go_dial_leader_at_its_deadline_is_likely_the_topic_missing(line):
    explanation = explained(line)
    missing = only(explanation, "TOPIC_NOT_FOUND")
    assert missing.title.startswith("Likely: ") and missing.severity == "warning"
    assert all(f.severity == "warning" for f in explanation.findings)


@pytest.mark.parametrize("line", [
    "failed to dial: context deadline exceeded",  # kafka-go's wrapper around the connect itself (a TLS handshake)
    "failed to dial leader: failed to dial: context deadline exceeded",
    "failed to dial leader: dial tcp 192.0.2.10:9092: i/o timeout",
    "[2022-12-08 18:52:58] ERROR kafka.(*Client).Metadata: context deadline exceeded",  # a request, not a topic's wait
    "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
])
def test_other_deadlines_are_not_a_topic_wait(line):
    assert "TOPIC_NOT_FOUND" not in ids(explained(line))
