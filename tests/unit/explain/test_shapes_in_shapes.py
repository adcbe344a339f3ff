"""Two paste shapes met inside each other: a Java trace hard-wrapped at a terminal's width whose whole frames happen to
be exactly that wide (the frames of one method all are), and a structured record whose message is a container's JSON
line, cut, that still holds its escaped line breaks. Invented hosts and frames."""

from __future__ import annotations

import json

from kdiag.explain.normalize import normalise_block
from kdiag.explain.reader import Block
from tests.unit.explain.helpers import explained, ids

WIDTH = 80


def _frame(method: str, line: int) -> str:
    """A whole stack frame exactly WIDTH long."""
    head = f"\tat org.example.net.Handshake.{method}"
    tail = f"(Handshake.java:{line})"
    return head + "x" * (WIDTH - len(head) - len(tail)) + tail


CAUSE = "Caused by: javax.net.ssl.SSLHandshakeException: No subject alternative DNS name matching kafka-1.example found."
TRACE = ["org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed", CAUSE,
         _frame("fatal", 371), _frame("fatal", 314), _frame("fatal", 309),
         "\tat org.example.net.Handshake.checkServerCertificatesOfTheBrokerSheSentUs(Handshake.java:1351)"]


def _wrapped(lines: list[str]) -> list[str]:
    return [line[i:i + WIDTH] for line in lines for i in range(0, len(line), WIDTH)]


def test_whole_frames_as_wide_as_the_wrap_do_not_hide_it():
    assert all(len(line) == WIDTH for line in TRACE[2:5])
    lines = normalise_block(Block(1, _wrapped(TRACE))).lines
    assert CAUSE in lines and lines[-1] == TRACE[-1]
    assert ids(explained("\n".join(_wrapped(TRACE)))) == ids(explained("\n".join(TRACE))) == ["TLS_HOSTNAME_MISMATCH"]


def test_whole_frames_as_wide_as_the_longest_line_are_no_wrap_on_their_own():
    lines = [TRACE[0], "Caused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed", *TRACE[2:5]]
    assert normalise_block(Block(1, lines)).lines == lines


INNER = ('app_1  | {"level":"fatal","msg":"Failed to init storage","error":"kafka: client has run out of available '
         'brokers to talk to: 2 errors occurred:\\n\\t* EOF')


def test_a_records_message_with_escaped_breaks_is_split_as_the_bare_line_is():
    record = json.dumps({"level": "error", "ts": 1765101600.0, "msg": "kafka error", "error": INNER})
    split = normalise_block(Block(1, [record])).lines
    assert split[-1] == "\t* EOF" and split[0].endswith("2 errors occurred:")
    assert ids(explained(record)) == ids(explained(INNER))


def test_a_records_message_without_a_trace_stays_one_line():
    record = json.dumps({"level": "error", "msg": "kafka error", "error": "path C:\\new\\topics is missing"})
    assert len(normalise_block(Block(1, [record])).lines) == 1
