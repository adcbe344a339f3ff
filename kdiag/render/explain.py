"""``kdiag explain``'s answer as text, Markdown or JSON: pure functions of an ``Explanation``.

Findings are drawn exactly as in a report (``kdiag.render.finding_layout``), so a support engineer reads one
format whichever command produced it. One exception, in the text and Markdown views only: readings that rest on
the same lines and share one explanation (a client that says only that it gave up has up to ten) are drawn once
as a block (``Readings``): the explanation and the evidence they share once, each reading as its id and title,
and the command that decides between them; each reading's own fix is one ``kdiag findings ID`` away. The JSON
keeps every finding whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kdiag.explain.engine import Explanation, explanation_to_dict
from kdiag.finding import Finding
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


# --- readings of the same lines, drawn once ---------------------------------------------------------

SEVERITY_ORDER = ("error", "warning", "info")
SHARED_ONLY = ("certain", "readings")  # said by the block's own layout


@dataclass(frozen=True)
class Readings:
    """Findings that are not certain, rest on the same lines and share one explanation: drawn once."""

    findings: tuple[Finding, ...]

    @property
    def severity(self) -> str:
        return min((f.severity for f in self.findings), key=lambda s: SEVERITY_ORDER.index(s)
                   if s in SEVERITY_ORDER else len(SEVERITY_ORDER))

    @property
    def heading(self) -> str:
        return f"{len(self.findings)} readings of the same lines: no line says which is the cause"

    def evidence(self) -> dict[str, object]:
        """The evidence every reading gives with the same value (the lines, the client, the command that
        decides), without what the block's layout says itself."""
        first = self.findings[0].evidence
        return {k: v for k, v in first.items()
                if k not in SHARED_ONLY and all(f.evidence.get(k, _ABSENT) == v for f in self.findings[1:])}

    def fix(self) -> str:
        """The ``kdiag bootstrap`` commands that decide (each reading's once; of two where one is the other with
        more settings, the fuller), then where each reading's fix is."""
        given = list(dict.fromkeys(c for f in self.findings if isinstance(c := f.evidence.get("confirm"), str) and c))
        confirms = [c for c in given if not any(o != c and o.startswith(c + " ") for o in given)]  # the fuller one
        decide = ["Find out which, on the client's machine:", *(f"  {c}" for c in confirms)] if confirms else []
        return "\n".join([*decide, "Each reading's usual fix (ID: one of the readings above):",
                          f"  kdiag findings ID        e.g. kdiag findings {self.findings[0].id}"])


_ABSENT = object()


def blocks(findings: Sequence[Finding]) -> list[Finding | Readings]:
    """The findings in their order, those that are readings of the same lines with one explanation gathered
    into one ``Readings`` where the first of them stood."""
    order: list[Finding | tuple[str, str]] = []
    groups: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        key = _reading_key(finding)
        if key is None:
            order.append(finding)
            continue
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(finding)
    return [item if isinstance(item, Finding)
            else (Readings(tuple(groups[item])) if len(groups[item]) > 1 else groups[item][0]) for item in order]


def _reading_key(finding: Finding) -> tuple[str, str] | None:
    if finding.evidence.get("certain") is not False or not finding.explanation:
        return None
    return finding.explanation, repr(finding.evidence.get("line_numbers", finding.evidence.get("lines")))


def render_text(explanation: Explanation, *, width: int = 100, color: bool = False) -> str:
    if not explanation.findings:
        return "\n".join([summary_line(explanation), *unread_errors(explanation)]) + "\n"
    from rich.text import Text

    from kdiag.render.console import console_text, text_console
    from kdiag.render.finding_layout import draw_finding, draw_readings

    console = text_console(width=width, color=color)
    console.print(Text(summary_line(explanation), style="bold"))
    console.print()
    for block in blocks(explanation.findings):
        if isinstance(block, Readings):
            draw_readings(console, block.severity, block.heading, block.findings, block.evidence(), block.fix())
        else:
            draw_finding(console, block)
    return console_text(console)


def render_markdown(explanation: Explanation) -> str:
    from kdiag.render.finding_layout import finding_markdown, readings_markdown

    parts = ["## kdiag explain", summary_line(explanation)]
    unread = unread_errors(explanation)
    if unread:
        parts.append("\n".join([unread[0], "", *(f"- `{line.strip()}`" for line in unread[1:-1]), "", unread[-1]]))
    for block in blocks(explanation.findings):
        parts.append(readings_markdown(block.severity, block.heading, block.findings, block.evidence(), block.fix())
                     if isinstance(block, Readings) else finding_markdown(block))
    return "\n\n".join(parts) + "\n"
