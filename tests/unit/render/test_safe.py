"""The one sanitizer (``printable``/``displayable``) and the one scrubber (``Scrubber``), rule by rule."""

from __future__ import annotations

import pytest

from kdiag.finding import Finding
from kdiag.render.finding_layout import evidence_lines
from kdiag.render.safe import MAX_NAME, MAX_TEXT, displayable, printable
from kdiag.secrets import NO_SECRETS, REDACTED, Scrubber
from kdiag.report import Endpoint, Stage


@pytest.mark.parametrize(("char", "shown"), [
    ("\x1b", "\\x1b"), ("\x07", "\\x07"), ("\r", "\\x0d"), ("\n", "\\x0a"), ("\t", "\\x09"), ("\x00", "\\x00"),
    ("\x7f", "\\x7f"), ("\x9b", "\\x9b"),                       # DEL, and C1's single-byte CSI
    ("\u202e", "\\u202e"), ("\u202a", "\\u202a"), ("\u2066", "\\u2066"), ("\u2069", "\\u2069"),  # bidi
    ("\u200e", "\\u200e"), ("\u200f", "\\u200f"),             # LRM, RLM
    ("\u200b", "\\u200b"), ("\u200d", "\\u200d"), ("\u2060", "\\u2060"), ("\ufeff", "\\ufeff"),  # zero width
    ("\u2028", "\\u2028"), ("\u2029", "\\u2029"),             # line and paragraph separators
    ("\u00a0", "\\xa0"), ("\udcff", "\\udcff"), ("\U000e0001", "\\U000e0001"),  # NBSP, lone surrogate, tag
])
def test_every_control_bidi_and_invisible_character_is_shown_escaped(char: str, shown: str) -> None:
    assert printable(f"a{char}b") == f"a{shown}b"


def test_ordinary_text_in_any_script_passes_untouched() -> None:
    for text in ("kafka-1.example.com:9092", "Zürich-AZ1", "東京-rack", "topic.with_dots-and-dashes", "a\\nb"):
        assert printable(text) is text


def test_a_field_longer_than_any_legal_value_is_cut_visibly_with_a_count() -> None:
    assert printable("h" * 300, limit=MAX_NAME) == "h" * MAX_NAME + f"…[{300 - MAX_NAME} more characters]"
    assert printable("x" * MAX_TEXT) == "x" * MAX_TEXT


def test_displayable_escapes_every_string_of_a_model_and_scrubs_first() -> None:
    stage = Stage("tcp", "fail", 1.0, "refused by evil\x1b[2J host; password pa|ss-word")
    shown = displayable(stage, Scrubber(("pa|ss-word",)))
    assert shown.summary == "refused by evil\\x1b[2J host; password ***"
    assert displayable(Stage("dns", "ok", 1.0, "fine")) == Stage("dns", "ok", 1.0, "fine")


def test_a_name_field_is_cut_at_the_longest_legal_name() -> None:
    endpoint = displayable(Endpoint("a" * 1000, 9092))
    assert endpoint.host.startswith("a" * MAX_NAME + "…[745 more")


def test_a_findings_prose_shows_the_outside_strings_it_quotes_as_everywhere_else() -> None:
    host = "evil\nrm -rf ~"
    finding = Finding("X", "error", f"Broker advertises {host}", f"It said {host}.\n\nSecond paragraph.",
                      {"host": host}, f"advertised.listeners=PLAINTEXT://{host}:9092\nnext=line")
    shown = displayable(finding)
    assert shown.title == "Broker advertises evil\\x0arm -rf ~"
    assert shown.explanation == "It said evil\\x0arm -rf ~.\n\nSecond paragraph."  # kdiag's own breaks kept
    assert shown.fix.split("\n") == ["advertised.listeners=PLAINTEXT://evil\\x0arm -rf ~:9092", "next=line"]
    assert shown.evidence == {"host": "evil\\x0arm -rf ~"}


def test_the_scrubber_masks_every_form_a_secret_takes_in_output() -> None:
    secret = 'pa|ss"w\x1bord'
    scrub = Scrubber((secret,))
    # as it is, in JSON, as the sanitizer shows it, in a Markdown table cell, both
    for form in (secret, 'pa|ss\\"w\\u001bord', "pa|ss\"w\\x1bord", 'pa\\|ss"w\x1bord', 'pa\\|ss"w\\x1bord'):
        assert scrub(f"<{form}>") == f"<{REDACTED}>", form


def test_the_scrubber_masks_a_longer_secret_whole_and_skips_short_values() -> None:
    scrub = Scrubber(("hunter2", "hunter2-and-more", "abc"))
    assert scrub("hunter2-and-more / hunter2 / abc") == "*** / *** / abc"
    assert NO_SECRETS("hunter2") == "hunter2" and not NO_SECRETS
    assert scrub.adding(["abcdef"])("abcdef hunter2") == "*** ***"


def test_evidence_is_shown_once_a_lone_brokers_fields_not_twice() -> None:
    broker = {"node_id": 1, "host": "k", "port": 9092, "tcp_error": None}
    evidence = {"bootstrap": "b:9092", "brokers": [broker], "node_id": 1, "host": "k", "port": 9092}
    assert [str(line) for line in evidence_lines(evidence)] == [
        "bootstrap: b:9092", "node_id: 1", "host: k", "port: 9092"]


def test_nested_evidence_is_indented_key_value_lines_not_json() -> None:
    evidence = {"brokers": [{"node_id": 1, "host": "a"}, {"node_id": 2, "host": "b", "addresses": ["10.0.0.2", "::2"]}],
                "capture": {"client": "c:1", "packet": 10}, "ok": True, "rack": None, "ids": []}
    assert [str(line) for line in evidence_lines(evidence)] == [
        "brokers:",
        "  - node_id: 1",
        "    host: a",
        "  - node_id: 2",
        "    host: b",
        "    addresses: 10.0.0.2, ::2",
        "capture:",
        "  client: c:1",
        "  packet: 10",
        "ok: true",
        "ids: –",
    ]
