"""The renderers are pure: a fixed report renders to exactly the text in golden/ at width 100.

Regenerate the golden files after an intended change with ``KDIAG_UPDATE_GOLDEN=1 pytest
tests/unit/render`` and review the diff.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from kdiag.render import Format, render
from kdiag.finding import Finding
from kdiag.report import Stage, report_from_dict, report_to_json

from render_samples import CLIENT, PASSWORD, failing_report, healthy_report

GOLDEN = Path(__file__).parent / "golden"
REPORTS = {"healthy": healthy_report, "failing": failing_report}
SUFFIX = {Format.TEXT: "txt", Format.MARKDOWN: "md"}  # JSON is report_to_json's: tested below


def _golden(name: str, text: str) -> str:
    path = GOLDEN / name
    if os.environ.get("KDIAG_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", sorted(SUFFIX), ids=str)
@pytest.mark.parametrize("which", sorted(REPORTS))
def test_report_renders_exactly_as_golden_text(which: str, fmt: Format) -> None:
    text = render(REPORTS[which](), fmt, width=100)
    assert text == _golden(f"{which}.{SUFFIX[fmt]}", text)


def test_healthy_text_ends_with_one_calm_line() -> None:
    text = render(healthy_report(), Format.TEXT)
    assert text.rstrip("\n").split("\n")[-1] == (
        "No problems found: every advertised broker resolves and answers from here."
    )


def test_failing_text_shows_the_finding_and_no_calm_line() -> None:
    text = render(failing_report(), Format.TEXT)
    assert "✗ ERROR ADVERTISED_UNRESOLVABLE" in text
    assert "No problems found" not in text


def test_fix_lines_are_never_wrapped_so_they_survive_copy_and_paste() -> None:
    report = failing_report()
    text = render(report, Format.TEXT, width=60)
    for line in report.findings[0].fix.split("\n"):
        if line:
            assert f"    {line}\n" in text


@pytest.mark.parametrize("fmt", list(Format), ids=str)
@pytest.mark.parametrize("which", sorted(REPORTS))
def test_secret_client_settings_never_appear_in_any_format(which: str, fmt: Format) -> None:
    report = replace(REPORTS[which](), client=CLIENT)
    text = render(report, fmt, width=100, color=True)
    assert PASSWORD not in text
    assert "alice" in text  # the user name is not a secret, and helps


@pytest.mark.parametrize("fmt", [Format.MARKDOWN, Format.JSON], ids=str)
def test_markdown_and_json_never_carry_terminal_escapes(fmt: Format) -> None:
    assert "\x1b" not in render(failing_report(), fmt, color=True)


def test_text_is_coloured_only_when_asked() -> None:
    assert "\x1b[" not in render(failing_report(), Format.TEXT, color=False)
    coloured = render(failing_report(), Format.TEXT, color=True)
    assert "\x1b[" in coloured
    assert "\x1b[31m" in coloured or "\x1b[1;31m" in coloured  # the failure is red


def test_json_is_the_report_schema_and_loads_back() -> None:
    report = failing_report()
    data = json.loads(render(report, Format.JSON))
    assert data["schema"] == "kdiag.report/1"
    assert data["client"]["sasl.password"] == "***"
    assert [f["id"] for f in data["findings"]] == ["ADVERTISED_UNRESOLVABLE"]
    assert report_from_dict(data).findings == report.findings
    masked = replace(report, client={**CLIENT, "sasl.password": "***"})
    assert render(report, Format.JSON) == report_to_json(masked) + "\n"


def test_markdown_puts_each_kind_of_fix_in_its_own_fence() -> None:
    text = render(failing_report(), Format.MARKDOWN)
    assert "```properties\n# server.properties on broker 1\nlisteners=" in text
    assert "```yaml\n# docker-compose environment\nKAFKA_ADVERTISED_LISTENERS: " in text


def test_markdown_escapes_pipes_in_table_cells() -> None:
    report = replace(healthy_report(), stages=(Stage("dns", "ok", 1.0, "a | b"),))
    assert "| ✅ | dns | 1.0 ms | a \\| b |" in render(report, Format.MARKDOWN)


def test_markdown_fence_outlasts_backticks_in_the_fix() -> None:
    finding = Finding("NOT_KAFKA", "error", "t", "e", fix="run:\n```\nnc -v host 9092\n```")
    text = render(replace(healthy_report(), findings=(finding,)), Format.MARKDOWN)
    assert "````\nrun:\n```\nnc -v host 9092\n```\n````" in text


def test_failed_stage_without_a_finding_is_not_called_healthy() -> None:
    report = replace(healthy_report(), stages=(Stage("tcp", "fail", 3000.0, "timed out"),))
    for fmt in (Format.TEXT, Format.MARKDOWN):
        text = render(report, fmt)
        assert "No problems found" not in text
        assert "Stage tcp failed and no diagnosis explains it" in text


def test_info_findings_still_end_with_the_calm_line() -> None:
    info = Finding("CLUSTER_NOTE", "info", "Broker 3 leads no partition", "Nothing to fix.")
    text = render(replace(healthy_report(), findings=(info,)), Format.TEXT)
    assert "i INFO CLUSTER_NOTE" in text
    assert text.rstrip("\n").endswith("No problems found: every advertised broker resolves and answers from here.")
