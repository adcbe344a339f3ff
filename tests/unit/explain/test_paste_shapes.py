"""The paste's shape never changes explain's answer: every real case of the corpus and every lab capture, rewritten
into each shape users bring (bench/paste_shapes.py: structured JSON records, container prefixes, colour, HTML
escapes, CRLF, folded and escaped stack traces, wrapped lines, other log prefixes), gives the same findings as
the original. Then the normaliser's own rules, one by one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.explain_corpus import load_corpus
from bench.paste_shapes import SHAPES, Shape, findings
from kdiag.explain.engine import explain_text
from kdiag.explain.normalize import MAX_RECORD_LINES, normalise_block, normalised
from kdiag.explain.reader import MAX_LINE, Block, text_blocks

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"


def _originals() -> list[tuple[str, str]]:
    corpus = [(f"{c.path.parent.name}/{c.path.name}", c.output) for c in load_corpus()]
    lab = [(path.name, path.read_text(encoding="utf-8", errors="replace")) for path in sorted(FIXTURES.glob("*.log"))]
    return corpus + lab


ORIGINALS = _originals()
EXPECTED = {name: findings(text) for name, text in ORIGINALS}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_every_real_case_in_every_shape_gives_the_original_findings(shape: Shape):
    assert len(ORIGINALS) > 300
    differ = {name: (EXPECTED[name], found) for name, text in ORIGINALS
              if (found := findings(shape.make(text))) != EXPECTED[name]}
    assert differ == {}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_each_shape_does_change_the_text_of_many_cases(shape: Shape):
    changed = sum(shape.make(text) != text.strip("\n") for _, text in ORIGINALS)
    assert changed >= len(ORIGINALS) // 12  # folded: the fewest, 51 of 514 (one-line pastes stay as they are)


def _lines(*lines: str) -> list[str]:
    return normalise_block(Block(1, list(lines))).lines


def test_a_structured_record_becomes_its_message_and_error_as_a_logger_prints_them():
    record = json.dumps({"level": "error", "ts": 1.5, "caller": "main.go:1", "msg": "failed to dial",
                         "error": "dial tcp: lookup kafka on 10.96.0.10:53: no such host", "broker": "kafka:9092"})
    assert _lines(record) == ["failed to dial: dial tcp: lookup kafka on 10.96.0.10:53: no such host broker=kafka:9092"]


def test_a_records_stack_trace_becomes_lines_and_is_read_across_them():
    record = json.dumps({"message": "[Producer clientId=p] Connection to node -1 (localhost/127.0.0.1:9093) "
                                    "failed authentication due to: SSL handshake failed",
                         "stack_trace": "org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake "
                                        "failed\nCaused by: javax.net.ssl.SSLHandshakeException: No subject alternative "
                                        "DNS name matching localhost found.\n\tat sun.security.ssl.Alert.createSSLException"})
    assert len(_lines(record)) == 4
    assert [f.id for f in explain_text(record).findings] == ["TLS_HOSTNAME_MISMATCH"]


def test_a_secret_in_a_structured_record_is_scrubbed_like_a_plain_settings_line():
    record = json.dumps({"level": "error", "msg": "config", "sasl.password": "hunter2-secret"})
    assert _lines(record) == ["config sasl.password=hunter2-secret"]
    failing = record + "\nConnection error: hunter2-secret failed\n"
    assert "hunter2-secret" not in repr(explain_text(failing))


def test_colour_entities_quotes_and_container_heads_go():
    assert _lines("\x1b[31;1mERROR\x1b[0m Connection &quot;refused&quot; &gt; x") == ['ERROR Connection "refused" > x']
    assert _lines("> > kafka-1  | hello", "2024-05-01T10:00:00.123Z stderr F world") == ["hello", "world"]


def test_cri_partial_records_are_joined_even_across_blocks():
    head = "2024-05-01T10:00:00.1Z stderr P Connect to ipv4#10.0.0.1:9092 "
    tail = "2024-05-01T10:00:00.1Z stderr F failed: Connection refused"
    blocks = list(normalised([Block(1, [head]), Block(2, [tail])]))
    assert [line for b in blocks for line in b.lines] == ["Connect to ipv4#10.0.0.1:9092 failed: Connection refused"]
    assert blocks[0].number(0) == 1


def test_wrapped_lines_are_joined_at_their_width_and_keep_the_first_ones_number():
    line = " ".join(f"word{i}" for i in range(30)) + " Connection refused"
    wrapped = "\n".join(line[i:i + 80] for i in range(0, len(line), 80)) + "\nnext line\n"
    blocks = list(normalised(text_blocks(wrapped)))
    assert [(b.number(i), text) for b in blocks for i, text in enumerate(b.lines)] == [(1, line), (4, "next line")]


def test_a_repeated_line_is_not_read_as_a_wrap_nor_a_new_record():
    same = "KafkaJSConnectionError: Connection error: connect ECONNREFUSED 127.0.0.1:9094 (x)"
    assert _lines(same, same, "2024-05-01 10:00:00 another record") == [same, same, "2024-05-01 10:00:00 another record"]


def test_an_escaped_stack_trace_in_a_plain_line_is_split_at_its_breaks():
    assert _lines(r"Error: x\n\tat org.a.B.c(B.java:1)\nCaused by: y: z") == ["Error: x", "\tat org.a.B.c(B.java:1)",
                                                                             "Caused by: y: z"]


def test_normalising_is_bounded():
    huge = json.dumps({"stack_trace": "\n".join(["\tat x"] * 5000)})[:MAX_LINE - 2] + '"}'
    assert len(_lines(huge)) <= MAX_RECORD_LINES
    wrapped = ["y" * 100] * 2 + ["z" * 100 for _ in range(200)]
    assert all(len(line) <= MAX_LINE for line in _lines(*wrapped))
    assert _lines("{" * 2000 + "}" * 2000) == ["{" * 2000 + "}" * 2000]  # deep nesting: left as it is


def test_lines_of_one_length_that_each_start_a_record_are_not_read_as_a_wrap():
    lines = ["[WARN] unable to open connection to broker; addr: 127.0.0.1:47519, broker: seed_0, err: refused",
             "[INFO] new topic metadata wait failed, retrying wait; topic: t, err: unable to dial: refused!!!",
             "[WARN] unable to open connection to broker; addr: 127.0.0.1:47519, broker: seed_0, err: refused",
             "[2026-11-26 22:38:56,952] WARN [SocketServer listenerType=BROKER, nodeId=1] Unexpected error",
             "org.apache.kafka.common.errors.InvalidRequestException: Unexpected Kafka request of type METADA"]
    assert len({len(line) for line in lines[:3]}) == 1
    assert _lines(*lines) == lines


def test_the_corpus_and_the_lab_captures_are_not_rewritten_beyond_their_shape():
    """Only the originals that carry a shape themselves (an escaped stack trace, a JSON record with its stack) change
    their line count, and the few whose one line of a terminal's width (80, 120) is taken for the head of a wrapped
    one (a command line followed by its answer), and pastes soft-wrapped at words (joined back): 23 of the 934 when last
    measured (the thirteenth set brought a kafkajs JSON record with its escaped stack and a Java trace whose elided
    frames (" ...") are joined; before it 21 of 867; the eleventh set brought a Java trace a shipper escaped, a ruby-kafka line wrapped at a word, and a
    Kubernetes condition whose YAML message is folded across lines, each joined back; before it 18 of 804; the tenth brought a Sarama container line whose JSON holds an escaped break, and a terminal box's
    lines wrapped at its width, joined back; before it 16 of 709) (the fifth blind set brought a kafkajs JSON record with its stack, and a lua-resty metadata dump and a
    segmentio line whose first line is taken for the head of a wrapped one; the sixth a kcat listing whose first
    line is taken so, and a Kerberos error wrapped at words, which the join reads; the join
    also takes an old console producer's long lines; the seventh a kafkajs and a Sarama paste whose first line is taken
    for a wrapped one's head; each is still read as before)."""
    changed = [name for name, text in ORIGINALS
               if len([line for b in normalised(text_blocks(text)) for line in b.lines])
               != len([line for b in text_blocks(text) for line in b.lines])]
    assert len(changed) <= 23, changed
