"""The view of ``kdiag diff``: a ReportDiff as text or Markdown (its JSON is ``kdiag.diff.diff_to_dict``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from kdiag.diff import ReportDiff, Side, diff_to_dict
from kdiag.render.formats import Format, draw


def _heading(side: Side) -> str:
    from kdiag.render.common import bootstrap_text, vantage_text

    return f"{side.label}: {vantage_text(side.report)} · bootstrap {bootstrap_text(side.report)} · " \
           f"{side.report.generated_at}" + (f" · {side.file}" if side.file else "")


def _verdict(diff: ReportDiff) -> str:
    if diff.same_cluster is None:
        cluster = "One side never reached the cluster, so kdiag cannot tell whether both are the same one."
    elif diff.same_cluster:
        cluster = f"Same cluster ({diff.a.cluster_id})."
    else:
        cluster = f"Different clusters ({diff.a.cluster_id} and {diff.b.cluster_id})."
    count = len(diff.differences)
    if not count:
        return f"{cluster} No differences: both places see the cluster the same way."
    return f"{cluster} {count} difference{'s' if count != 1 else ''}:"


def render_diff(diff: ReportDiff, fmt: Format, *, width: int = 100, color: bool = False,
                scrub: Callable[[str], str] | None = None) -> str:
    """The diff as ``fmt``: TEXT and MARKDOWN scrubbed and printable (``kdiag.render.safe``), JSON exact."""
    return draw(diff, fmt, as_json=lambda d: json.dumps(diff_to_dict(d), indent=2, ensure_ascii=False) + "\n",
                as_text=lambda d, w, c: _text(d, width=w, color=c), as_markdown=_markdown,
                width=width, color=color, scrub=scrub)


def _text(diff: ReportDiff, *, width: int, color: bool) -> str:
    from rich.padding import Padding
    from rich.text import Text

    from kdiag.render.console import console_text, text_console
    from kdiag.render.finding_layout import draw_finding

    console = text_console(width=width, color=color)
    console.print(Text("kdiag diff", style="bold"))
    for side in (diff.a, diff.b):
        console.print(Text(_heading(side), style="dim"))
    console.print()
    console.print(Text(_verdict(diff), style="bold" if diff.differ else "green"))
    for difference in diff.differences:
        console.print()
        head = Text()
        head.append(f"{difference.kind}", style="bold yellow")
        head.append(f"  {difference.subject}", style="bold")
        console.print(head)
        sides = Text.assemble(("A: ", "dim"), difference.a or "–", ("   B: ", "dim"), difference.b or "–")
        console.print(Padding(sides, (0, 0, 0, 2)))
        console.print(Padding(Text(difference.explanation), (0, 0, 0, 2)))
    for seen_from, finding in diff.findings:
        side = diff.a if seen_from == "a" else diff.b
        console.print()
        console.print(Text(f"Only from {side.name}:", style="bold"))
        draw_finding(console, finding)
    return console_text(console)


def _markdown(diff: ReportDiff) -> str:
    from kdiag.render.finding_layout import finding_markdown
    from kdiag.render.markup import inline_code, table_cell

    blocks = ["## kdiag diff", "\n".join(f"- {_heading(side)}" for side in (diff.a, diff.b)), f"**{_verdict(diff)}**"]
    if diff.differences:
        rows = ["| Kind | Subject | A | B |", "|---|---|---|---|"]
        rows += [f"| {d.kind} | {inline_code(d.subject)} | {table_cell(d.a or '–')} | "
                 f"{table_cell(d.b or '–')} |" for d in diff.differences]
        blocks.append("\n".join(rows))
        blocks.append("\n".join(f"{i}. **{d.kind}** {inline_code(d.subject)}: {d.explanation}"
                                for i, d in enumerate(diff.differences, start=1)))
    for seen_from, finding in diff.findings:
        side = diff.a if seen_from == "a" else diff.b
        blocks.append(f"Only from {side.name}:\n\n" + finding_markdown(finding))
    return "\n\n".join(blocks) + "\n"

