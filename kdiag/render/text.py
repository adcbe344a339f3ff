"""The terminal view, drawn with rich into a string of fixed width."""

from __future__ import annotations

import io

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from kdiag.render import common
from kdiag.finding import Finding
from kdiag.report import Report

STAGE_SYMBOL = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "–"}
SEVERITY_SYMBOL = {"error": "✗", "warning": "!", "info": "i"}
TONE_STYLE = {"good": "green", "doubt": "yellow", "bad": "red", "off": "dim"}
SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}
INDENT = 2


def render_text(report: Report, *, width: int = 100, color: bool = False) -> str:
    console = text_console(width=width, color=color)
    draw_report(console, report)
    return console_text(console)


def text_console(*, width: int = 100, color: bool = False) -> Console:
    """A rich console of fixed width that draws into a string (read it back with :func:`console_text`)."""
    return Console(
        file=io.StringIO(), width=width, color_system="truecolor" if color else None,
        force_terminal=color, record=False, highlight=False, emoji=False, markup=False,
    )


def console_text(console: Console) -> str:
    """What a :func:`text_console` drew: trailing spaces cut, one newline at the end."""
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n") + "\n"


def draw_report(console: Console, report: Report) -> None:
    console.print(_header(report))
    console.print()
    if report.stages:
        console.print(_stage_table(report))
        console.print()
    brokers = common.broker_rows(report)
    if brokers:
        console.print(_broker_table(brokers))
        console.print()
    coordinator = common.coordinator_line(report)
    if coordinator is not None:
        console.print(Text(coordinator[:1].upper() + coordinator[1:]))
        console.print()
    if report.capture is not None:
        from kdiag.render.pcap import render_text as render_capture

        console.print(Text("On the wire (--capture)"))
        console.print(Text(render_capture(report.capture).rstrip("\n")))
        console.print()
    for finding in report.findings:
        draw_finding(console, finding)
    closing = common.closing_line(report)
    if closing is not None:
        tone, sentence = closing
        console.print(Text(sentence, style=TONE_STYLE[tone]))


def _header(report: Report) -> Text:
    header = Text()
    header.append(f"kdiag {report.kdiag_version}", style="bold")
    header.append(f" · bootstrap {common.bootstrap_text(report)}\n")
    header.append(f"from {common.vantage_text(report)} at {report.generated_at}", style="dim")
    settings = common.client_settings(report)
    if settings:
        header.append(f"\nclient settings: {', '.join(settings)}", style="dim")
    return header


def _stage_table(report: Report) -> Table:
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold", expand=False)
    table.add_column("", no_wrap=True)
    table.add_column("stage", no_wrap=True)
    table.add_column("time", justify="right", no_wrap=True)
    table.add_column("summary", overflow="fold")
    for row in common.stage_rows(report):
        style = TONE_STYLE[common.tone(row.status)]
        table.add_row(Text(STAGE_SYMBOL.get(row.status, "?"), style=style), row.name, row.time, row.summary)
    return table


def _broker_table(rows: list[common.BrokerRow]) -> Table:
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold", expand=False)
    table.add_column("node", justify="right", no_wrap=True)
    table.add_column("advertised", overflow="fold")
    table.add_column("rack", overflow="fold")
    for name in ("dns", "tcp", "kafka", "identity"):
        table.add_column(name, no_wrap=True)
    for row in rows:
        checks = [Text(word, style=TONE_STYLE[common.tone(word)]) for word in row.checks]
        table.add_row(row.node_id, row.advertised, row.rack, *checks)
    return table


def draw_finding(console: Console, finding: Finding) -> None:
    """One finding as a report shows it: heading, explanation, evidence, the fix to copy."""
    style = SEVERITY_STYLE.get(finding.severity, "bold")
    heading = Text()
    heading.append(f"{SEVERITY_SYMBOL.get(finding.severity, '?')} {finding.severity.upper()} ", style=style)
    heading.append(finding.id, style="bold")
    console.print(heading)
    body = Text()
    body.append(finding.title, style="bold")
    if finding.explanation:
        body.append("\n\n" + finding.explanation)
    console.print(Padding(body, (0, 0, 0, INDENT)))
    evidence = common.evidence_lines(finding.evidence)
    if evidence:
        console.print()
        console.print(Padding(Text("Evidence", style="bold"), (0, 0, 0, INDENT)))
        lines = Text("\n").join(Text.assemble((f"{key}: ", "dim"), value) for key, value in evidence)
        console.print(Padding(lines, (0, 0, 0, INDENT * 2)))
    if finding.fix:
        console.print()
        console.print(Padding(Text("Fix", style="bold"), (0, 0, 0, INDENT)))
        # Not wrapped and not boxed: the lines must survive copy and paste.
        for line in finding.fix.rstrip("\n").split("\n"):
            console.print(Text(" " * INDENT * 2 + line, style="cyan"), no_wrap=True, crop=False, overflow="ignore")
    console.print()
