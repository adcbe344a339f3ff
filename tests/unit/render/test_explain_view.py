"""The three views of an explanation, rendered as text."""

from __future__ import annotations

import json

from kdiag.render.explain import render_explanation
from kdiag.render import Format
from tests.unit.explain.helpers import explained

REFUSED = "k.example.com:9092/bootstrap: Connect to ipv4#192.0.2.7:9092 failed: Connection refused (after 0ms in state CONNECT)"


def test_nothing_recognised_is_one_calm_line():
    assert render_explanation(explained("hello\nworld"), Format.TEXT) == (
        "No Kafka client error recognised in 2 lines: kdiag explain has nothing to say about it.\n")


def test_recognised_facts_without_an_error_say_so():
    text = render_explanation(explained("bootstrap.servers = [k:9092]\n"), Format.TEXT)
    assert text == "No problem found in 1 line: what kdiag recognised (1 line) is not an error.\n"


def test_text_view_draws_findings_like_a_report():
    text = render_explanation(explained(REFUSED), Format.TEXT, width=100)
    assert text.startswith("kdiag explain: 1 line read, 1 recognised, 1 finding.\n")
    assert "✗ ERROR BOOTSTRAP_REFUSED" in text and "Evidence" in text and "Fix" in text
    assert "kdiag bootstrap k.example.com:9092" in text


def test_markdown_view_is_ready_for_a_ticket():
    text = render_explanation(explained(REFUSED), Format.MARKDOWN)
    assert text.startswith("## kdiag explain\n\n")
    assert "### ❌ BOOTSTRAP_REFUSED" in text and "```" in text


def test_json_view_is_the_contract_shape():
    document = json.loads(render_explanation(explained(REFUSED + "\nnoise\n"), Format.JSON))
    assert document["schema"] == "kdiag.explain/1"
    assert document["unrecognised_lines"] == 1 and document["lines"] == 2
    [finding] = document["findings"]
    assert set(finding) == {"id", "severity", "title", "explanation", "evidence", "fix"}
    assert finding["evidence"]["lines"] == [REFUSED] and finding["evidence"]["count"] == 1
