"""A connection the broker closed with no reason given: each cause that ends so is a reading (a warning), and what the
client's words say it was doing (asking for the broker's versions) or its settings (a SASL login) decide which. The
lines are the clients' own words, from their sources: rskafka's connection.rs, librdkafka's broker states, Go's io
errors as segmentio/kafka-go returns them."""

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
