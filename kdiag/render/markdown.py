"""The report as Markdown, ready to paste into a ticket (GitHub / GitLab flavoured)."""

from __future__ import annotations

import re

from kdiag.render import common
from kdiag.finding import Finding
from kdiag.report import Report

STAGE_ICON = {"ok": "✅", "warn": "⚠️", "fail": "❌", "skip": "⏭️"}
SEVERITY_ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}

_PROPERTIES_LINE = re.compile(r"^\s*[A-Za-z0-9_.-]+\s*=")
_YAML_LINE = re.compile(r"^\s*(?:- \S|[A-Za-z0-9_.-]+:(?:\s|$))")


def render_markdown(report: Report) -> str:
    blocks = [f"## kdiag report for {common.bootstrap_text(report)}", _run_line(report)]
    if report.stages:
        blocks.append(_stage_table(report))
    brokers = common.broker_rows(report)
    if brokers:
        blocks.append(_broker_table(brokers))
    coordinator = common.coordinator_line(report)
    if coordinator is not None:
        blocks.append(coordinator[:1].upper() + coordinator[1:] + ".")
    if report.capture is not None:
        from kdiag.render.pcap import render_markdown as render_capture

        blocks.append("### On the wire (--capture)\n\n" + render_capture(report.capture).split("\n", 1)[1].strip())
    blocks.extend(render_finding(f) for f in report.findings)
    closing = common.closing_line(report)
    if closing is not None:
        blocks.append(f"**{closing[1]}**")
    return "\n\n".join(blocks) + "\n"


def _run_line(report: Report) -> str:
    vantage = report.vantage
    where = f"`{vantage.hostname}`" + (f" ({', '.join(vantage.addresses)})" if vantage.addresses else "")
    line = f"From {where} at {report.generated_at}, kdiag {report.kdiag_version}."
    settings = common.client_settings(report)
    if settings:
        line += "\nClient settings: " + ", ".join(inline_code(setting) for setting in settings) + "."
    return line


def _stage_table(report: Report) -> str:
    lines = ["| | Stage | Time | Summary |", "|---|---|--:|---|"]
    for row in common.stage_rows(report):
        icon = STAGE_ICON.get(row.status, row.status)
        lines.append(f"| {icon} | {row.name} | {row.time} | {table_cell(row.summary)} |")
    return "\n".join(lines)


def _broker_table(rows: list[common.BrokerRow]) -> str:
    lines = ["| Node | Advertised | Rack | DNS | TCP | Kafka | Identity |", "|--:|---|---|---|---|---|---|"]
    for row in rows:
        checks = " | ".join(_check(word) for word in row.checks)
        lines.append(f"| {row.node_id} | {inline_code(row.advertised)} | {table_cell(row.rack)} | {checks} |")
    return "\n".join(lines)


def _check(word: str) -> str:
    return {"good": "✅ ", "bad": "❌ ", "doubt": "⚠️ "}.get(common.tone(word), "") + word


def render_finding(finding: Finding) -> str:
    """One finding as a report's Markdown block: heading, explanation, evidence, fenced fix."""
    icon = SEVERITY_ICON.get(finding.severity, finding.severity)
    parts = [f"### {icon} {finding.id} — {finding.title}"]
    if finding.explanation:
        parts.append(finding.explanation)
    evidence = common.evidence_lines(finding.evidence)
    if evidence:
        items = (f"- {inline_code(key)}: {inline_code(value)}" for key, value in evidence)
        parts.append("**Evidence**\n\n" + "\n".join(items))
    if finding.fix:
        parts.append("**Fix**\n\n" + _fences(finding.fix))
    return "\n\n".join(parts)


def _fences(text: str) -> str:
    """The fix as fenced blocks: each run of blank-line-separated chunks in one language (the
    server.properties lines, the Docker environment lines) in its own block, to copy separately."""
    groups: list[tuple[str, list[str]]] = []
    for chunk in re.split(r"\n\s*\n", text.strip("\n")):
        language = _language(chunk)
        if groups and groups[-1][0] == language:
            groups[-1][1].append(chunk)
        else:
            groups.append((language, [chunk]))
    return "\n\n".join(_fence("\n\n".join(chunks), language) for language, chunks in groups)


def _language(chunk: str) -> str:
    lines = [line for line in chunk.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    if lines and all(_PROPERTIES_LINE.match(line) for line in lines):
        return "properties"
    if lines and all(_YAML_LINE.match(line) for line in lines):
        return "yaml"
    return ""


def _fence(body: str, language: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def inline_code(text: str) -> str:
    """Inline code, with a backtick fence longer than any run of backticks inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{_one_line(text)}{pad}{ticks}"


def table_cell(text: str) -> str:
    """One line, with the pipes that would end a table cell escaped."""
    return _one_line(text).replace("|", "\\|")


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))
