"""The terminal view, drawn with rich into a string of fixed width."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kdiag.render import common
from kdiag.render.console import STAGE_SYMBOL, TONE_STYLE, console_text, text_console
from kdiag.render.finding_layout import draw_finding
from kdiag.report import Report


def render_text(report: Report, *, width: int = 100, color: bool = False) -> str:
    """The report (as ``kdiag.render.safe.displayable`` leaves it) drawn at ``width`` columns."""
    console = text_console(width=width, color=color)
    draw_report(console, report)
    return console_text(console)


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
        from kdiag.render.pcap import draw_capture

        console.print(Text("On the wire (--capture)"))
        draw_capture(console, report.capture)
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
