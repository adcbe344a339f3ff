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
