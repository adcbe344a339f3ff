"""``kdiag explain``'s answer as text, Markdown or JSON: pure functions of an ``Explanation``.

Findings are drawn exactly as in a report (``kdiag.render.finding_layout``), so a support engineer reads one
format whichever command produced it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from kdiag.explain.engine import Explanation, explanation_to_dict
from kdiag.render.formats import Format, draw

NOTHING_RECOGNISED = "No Kafka client error recognised in {lines}: kdiag explain has nothing to say about it."
NO_PROBLEM = "No problem found in {lines}: what kdiag recognised ({recognised}) is not an error."
LOOKED_LIKE_ERRORS = "These lines look like errors, in words kdiag does not know:"
RUN_NEXT = ("Run kdiag bootstrap <bootstrap.servers> on the client's machine, with its security settings (-X "
            "security.protocol=... -X sasl.mechanisms=...): it checks DNS, the connection, TLS, SASL and every "
            "advertised broker itself.")


def render_explanation(explanation: Explanation, fmt: Format, *, width: int = 100, color: bool = False,
                       scrub: Callable[[str], str] | None = None) -> str:
    """The explanation as ``fmt``: TEXT and MARKDOWN show the log lines quoted in the evidence scrubbed
    and printable (``kdiag.render.safe``); JSON is exact."""
    return draw(explanation, fmt,
                as_json=lambda e: json.dumps(explanation_to_dict(e), indent=2, ensure_ascii=False) + "\n",
                as_text=lambda e, w, c: render_text(e, width=w, color=c), as_markdown=render_markdown,
                width=width, color=color, scrub=scrub)


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def summary_line(explanation: Explanation) -> str:
    """One line on what was read; for no findings, the one calm line that is the whole answer."""
    if not explanation.findings:
        if explanation.recognised_lines:
            return NO_PROBLEM.format(lines=_lines(explanation.lines), recognised=_lines(explanation.recognised_lines))
        return NOTHING_RECOGNISED.format(lines=_lines(explanation.lines) if explanation.lines else "the input")
    count = len(explanation.findings)
    parts = [f"{_lines(explanation.lines)} read", f"{explanation.recognised_lines} recognised",
             f"{count} finding{'s' if count != 1 else ''}"]
    if explanation.truncated_lines:
        parts.append(f"{explanation.truncated_lines} cut at 4096 characters")
    if explanation.binary_lines:
        parts.append(f"{explanation.binary_lines} binary")
    return "kdiag explain: " + ", ".join(parts) + "."


def unread_errors(explanation: Explanation) -> list[str]:
    """With no finding: the lines that looked like errors, and what to run next ([] when none looked so)."""
    if explanation.findings or not explanation.error_lines:
        return []
    return [LOOKED_LIKE_ERRORS, *(f"  line {n}: {text}" for n, text in explanation.error_lines), RUN_NEXT]


def render_text(explanation: Explanation, *, width: int = 100, color: bool = False) -> str:
    if not explanation.findings:
        return "\n".join([summary_line(explanation), *unread_errors(explanation)]) + "\n"
    from rich.text import Text

    from kdiag.render.console import console_text, text_console
    from kdiag.render.finding_layout import draw_finding

    console = text_console(width=width, color=color)
    console.print(Text(summary_line(explanation), style="bold"))
    console.print()
    for finding in explanation.findings:
        draw_finding(console, finding)
    return console_text(console)


def render_markdown(explanation: Explanation) -> str:
    from kdiag.render.finding_layout import finding_markdown

    blocks = ["## kdiag explain", summary_line(explanation)]
    unread = unread_errors(explanation)
    if unread:
        blocks.append("\n".join([unread[0], "", *(f"- `{line.strip()}`" for line in unread[1:-1]), "", unread[-1]]))
    blocks.extend(finding_markdown(f) for f in explanation.findings)
    return "\n\n".join(blocks) + "\n"
