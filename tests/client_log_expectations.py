"""What the real clients' captured output (tests/fixtures/client_logs) must be taken for by kdiag explain.

Read by the integration test that captures it live and by the unit test that explains the captured
files without a broker. Today: the clients of ``tests/integration/test_explain_more_clients.py``.
"""

from __future__ import annotations

import pytest

# The fixtures' <library> part: kafka-python 3.0.12 and 2.0.2, aiokafka 0.14.0, segmentio/kafka-go v0.4.51,
# confluent-kafka 1.9.2 (librdkafka 1.9.2) and 0.11.6 (librdkafka 0.11.6).
MORE_CLIENTS_LIBRARIES = ("kafka_python", "kafka_python_2", "aiokafka", "segmentio", "librdkafka_1_9",
                          "librdkafka_0_11")

# Decided from the situation each listener sets up and from what the client's own words can show,
# before kdiag explain was run on any of it. A tuple: the output cannot tell those causes apart (a
# connection closed with no more said: a listener wanting TLS or SASL), and either reading, hedged, is
# right. None: the library said nothing of the cause before it was stopped (25 s), and no error finding is
# right.

CLOSED = ("ROUNDTRIP_FAILED", "TLS_EXPECTED", "SASL_REQUIRED")  # "closed", "disconnected", "EOF" alone
MORE_CLIENTS: dict[str, str | dict[str, str | tuple[str, ...] | None]] = {
    "ec2_internal_advertised": "ADVERTISED_UNRESOLVABLE",
    "advertised_dead_port": "ADVERTISED_UNREACHABLE",
    "bootstrap.refused": "BOOTSTRAP_REFUSED",
    "bootstrap.unresolvable": "BOOTSTRAP_UNRESOLVABLE",
    "sasl.wrong_password": "SASL_AUTH_FAILED",
    # kafka-python 3 reads the TLS alert as a frame length (352518912 = 0x15030300); segmentio says so.
    "tls.plaintext_on_tls": {"kafka_python": "TLS_EXPECTED", "kafka_python_2": CLOSED, "aiokafka": CLOSED,
                             "segmentio": "TLS_EXPECTED", "librdkafka_1_9": "TLS_EXPECTED",
                             "librdkafka_0_11": CLOSED + ("BROKER_STALLED",)},  # only request timeouts
    "tls.tls_on_plaintext": {"kafka_python": "TLS_UNEXPECTED", "kafka_python_2": "TLS_UNEXPECTED",
                             "aiokafka": ("TLS_UNEXPECTED", "ROUNDTRIP_FAILED"),  # "Unable connect to ...: "
                             "segmentio": ("TLS_UNEXPECTED", "ROUNDTRIP_FAILED"),  # "EOF" with -tls
                             "librdkafka_1_9": "TLS_UNEXPECTED", "librdkafka_0_11": "TLS_UNEXPECTED"},
    "sasl.required": {"kafka_python": CLOSED, "kafka_python_2": CLOSED, "aiokafka": CLOSED, "segmentio": CLOSED,
                      "librdkafka_1_9": "SASL_REQUIRED", "librdkafka_0_11": CLOSED},
    # librdkafka 1.9 waits message.timeout.ms (5 min) for a missing topic, kafka-python 2.0.2 max.block.ms.
    "topic_missing": {"kafka_python": "TOPIC_NOT_FOUND", "kafka_python_2": None, "aiokafka": "TOPIC_NOT_FOUND",
                      "segmentio": "TOPIC_NOT_FOUND", "librdkafka_1_9": None, "librdkafka_0_11": "TOPIC_NOT_FOUND"},
}
MORE_CLIENTS_CASES = [(situation, library, ids if isinstance(ids, str) else ids[library])
         for situation, ids in MORE_CLIENTS.items() for library in MORE_CLIENTS_LIBRARIES]

# What kdiag explain does not read right yet (issue 16: these families' recognisers). Each is an xfail with
# strict=True in both tests, so the day one is read right it fails until taken off this list; CI counts
# an xfail as skipped, and fails on it.
NOT_READ_YET = frozenset({
    "tls.tls_on_plaintext.aiokafka",  # "Unable connect to \"h:p\": " with no reason at all
    "tls.tls_on_plaintext.segmentio",  # "EOF" alone: read as a closed connection, not as a TLS client
})

# What the broker's own server.log says of four of those situations (<situation>.broker.log): read from
# the broker's side, the same words mean the client's mistake (a TLS record read as a frame size is a TLS
# client at a plaintext listener, the opposite of the same size in a client's log).
BROKER_SIDE = {
    "tls.tls_on_plaintext": "TLS_UNEXPECTED",
    "tls.plaintext_on_tls": "TLS_EXPECTED",
    "sasl.required": "SASL_REQUIRED",
    "sasl.wrong_password": "SASL_AUTH_FAILED",
}
NOT_READ_YET_BROKER: frozenset[str] = frozenset()  # each is read from the broker's side


def not_read_yet(case: tuple, *, strict: bool = True) -> tuple:
    """The xfail mark of a case on NOT_READ_YET, for pytest.param(marks=...): strict on the captured files,
    not strict on a live capture, whose words may differ from run to run."""
    name = f"{case[0]}.{case[1]}"
    mark = pytest.mark.xfail(reason="explain does not read this yet (issue 16)", strict=strict)
    return (mark,) if name in NOT_READ_YET else ()
