"""The report as Markdown, ready to paste into a ticket (GitHub / GitLab flavoured)."""

from __future__ import annotations

from kdiag.render import common
from kdiag.render.finding_layout import finding_markdown
from kdiag.render.markup import inline_code, table_cell
from kdiag.report import Report

STAGE_ICON = {"ok": "✅", "warn": "⚠️", "fail": "❌", "skip": "⏭️"}


def render_markdown(report: Report) -> str:
    """The report (as ``kdiag.render.safe.displayable`` leaves it) as Markdown."""
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
        from kdiag.render.pcap import capture_markdown

        blocks.append("### On the wire (--capture)\n\n" + capture_markdown(report.capture).split("\n", 1)[1].strip())
    blocks.extend(finding_markdown(f) for f in report.findings)
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
