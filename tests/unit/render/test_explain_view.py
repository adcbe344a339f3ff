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


GAVE_UP = "kafka.errors.NoBrokersAvailable: NoBrokersAvailable"


def test_readings_of_the_same_lines_are_drawn_once_with_the_commands_that_decide():
    explanation = explained(GAVE_UP)
    assert len(explanation.findings) >= 5  # a bare give-up: every way to reach no broker is a reading
    text = render_explanation(explanation, Format.TEXT, width=100)
    shared = explanation.findings[0].explanation.split(";")[0]
    assert text.count(shared) == 1 and text.count("Evidence") == 1 and text.count("Fix") == 1
    assert f"{len(explanation.findings)} readings of the same lines" in text
    for finding in explanation.findings:
        assert finding.id in text and finding.fix.split("\n")[0] not in text
    assert "kdiag bootstrap <bootstrap host>:9092" in text and "kdiag findings ID" in text
    # of two commands where one only adds settings, the fuller one
    assert "-X sasl.mechanisms=<mechanism>\n" not in text and "-X sasl.password=<password>" in text
    assert len(text.splitlines()) < 60


def test_markdown_draws_the_readings_once_and_json_keeps_every_finding_whole():
    explanation = explained(GAVE_UP)
    markdown = render_explanation(explanation, Format.MARKDOWN)
    assert markdown.count("**Evidence**") == 1 and markdown.count("### ") == 1
    document = json.loads(render_explanation(explanation, Format.JSON))
    assert [f["id"] for f in document["findings"]] == [f.id for f in explanation.findings]
    assert all(f["fix"] for f in document["findings"])


def test_a_certain_finding_beside_readings_is_drawn_whole():
    text = render_explanation(explained(REFUSED + "\n" + GAVE_UP), Format.TEXT, width=100)
    assert "✗ ERROR BOOTSTRAP_REFUSED" in text and "nc -vz" in text
