"""One finding layout for every command: what (the id and title), why (the explanation), the
evidence, the fix — drawn the same in the report, explain, diff and pcap views, as text and as
Markdown.

The evidence is shown once and readably: one ``key: value`` line per fact, a nested structure
indented under its key (a list of structures YAML-style, ``- `` before each item's first line), a
list of plain values on one line, comma-separated, absent (None) values left out. A structure whose
every field is also given at the top level (a lone broker's fields beside ``brokers: [...]``) is not
shown a second time. The JSON forms keep the evidence exactly as the finding holds it.

The finding is expected as ``kdiag.render.safe.displayable`` leaves it: scrubbed and printable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from kdiag.finding import Finding
from kdiag.render.console import INDENT, SEVERITY_STYLE, SEVERITY_SYMBOL
from kdiag.render.markup import fence, fences

SEVERITY_ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}
NONE = "–"


@dataclass(frozen=True)
class EvidenceLine:
    """One line of evidence: ``key: value`` at ``depth``; ``value`` empty when the lines below hold
    it, ``key`` empty for a plain item of a list; ``item`` when it starts an item of a list."""

    depth: int
    key: str
    value: str
    item: bool = False

    def __str__(self) -> str:
        label, value = self.parts()
        return label + value

    def parts(self) -> tuple[str, str]:
        """(the indent and ``key:``, the value after it): the text view dims the first."""
        indent = "  " * self.depth
        if self.item:
            indent = indent[:-2] + "- "
        if not self.key:
            return indent, self.value
        return f"{indent}{self.key}:", (f" {self.value}" if self.value else "")


def evidence_lines(evidence: Mapping[str, Any]) -> list[EvidenceLine]:
    """The evidence as lines, each fact once (see the module's docstring)."""
    lines: list[EvidenceLine] = []
    for key, value in evidence.items():
        if value is None or _repeated(value, evidence):
            continue
        lines.extend(_lines(str(key), value, 0))
    return lines


def _repeated(value: Any, top: Mapping[str, Any]) -> bool:
    """A structure (or a list of one) all of whose fields the top level gives with the same values."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, Mapping) or not value:
        return False
    return all(v is None or (k in top and top[k] == v) for k, v in value.items())


def _lines(key: str, value: Any, depth: int, *, item: bool = False) -> list[EvidenceLine]:
    if isinstance(value, Mapping) and value:
        return [EvidenceLine(depth, key, "", item), *_fields(value, depth + 1)]
    if isinstance(value, (list, tuple)) and any(isinstance(v, (Mapping, list, tuple)) for v in value):
        lines = [EvidenceLine(depth, key, "", item)]
        for entry in value:
            if isinstance(entry, Mapping) and entry:
                fields = _fields(entry, depth + 2)
                lines.append(EvidenceLine(fields[0].depth, fields[0].key, fields[0].value, True))
                lines.extend(fields[1:])
            else:
                lines.append(EvidenceLine(depth + 2, "", evidence_value(entry), True))
        return lines
    return [EvidenceLine(depth, key, evidence_value(value), item)]


def _fields(mapping: Mapping[Any, Any], depth: int) -> list[EvidenceLine]:
    lines = [line for k, v in mapping.items() if v is not None for line in _lines(str(k), v, depth)]
    return lines or [EvidenceLine(depth, "", NONE)]


def evidence_value(value: Any) -> str:
    """A plain value as one line: true/false, a list comma-separated, – for nothing."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(evidence_value(item) for item in value) or NONE
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {evidence_value(v)}" for k, v in value.items()) or NONE
    return " ".join(str(value).split("\n"))


# --- text ---------------------------------------------------------------------------------------------


def draw_finding(console: Console, finding: Finding) -> None:
    """One finding on a text console: heading, title and explanation, evidence, the fix to copy."""
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
    evidence = evidence_lines(finding.evidence)
    if evidence:
        console.print()
        console.print(Padding(Text("Evidence", style="bold"), (0, 0, 0, INDENT)))
        lines = Text("\n").join(_evidence_text(line) for line in evidence)
        console.print(Padding(lines, (0, 0, 0, INDENT * 2)))
    if finding.fix:
        console.print()
        console.print(Padding(Text("Fix", style="bold"), (0, 0, 0, INDENT)))
        # Not wrapped and not boxed: the lines must survive copy and paste.
        for line in finding.fix.rstrip("\n").split("\n"):
            console.print(Text(" " * INDENT * 2 + line, style="cyan"), no_wrap=True, crop=False, overflow="ignore")
    console.print()


def draw_readings(console: Console, severity: str, heading: str, findings: Sequence[Finding],
                  evidence: Mapping[str, Any], fix: str) -> None:
    """Readings of the same lines drawn once (``kdiag.render.explain.Readings``): the heading, each reading's
    id and title, the explanation they share, the evidence they share, the command that decides."""
    style = SEVERITY_STYLE.get(severity, "bold")
    top = Text()
    top.append(f"{SEVERITY_SYMBOL.get(severity, '?')} {severity.upper()} ", style=style)
    top.append(heading, style="bold")
    console.print(top)
    listed = Table.grid(padding=(0, 2))
    listed.add_column(no_wrap=True)
    listed.add_column()
    for finding in findings:
        listed.add_row(Text(finding.id, style="bold"), Text(finding.title))
    console.print(Padding(listed, (0, 0, 0, INDENT)))
    console.print()
    console.print(Padding(Text(findings[0].explanation), (0, 0, 0, INDENT)))
    lines = evidence_lines(evidence)
    if lines:
        console.print()
        console.print(Padding(Text("Evidence", style="bold"), (0, 0, 0, INDENT)))
        console.print(Padding(Text("\n").join(_evidence_text(line) for line in lines), (0, 0, 0, INDENT * 2)))
    console.print()
    console.print(Padding(Text("Fix", style="bold"), (0, 0, 0, INDENT)))
    for line in fix.split("\n"):
        console.print(Text(" " * INDENT * 2 + line, style="cyan"), no_wrap=True, crop=False, overflow="ignore")
    console.print()


def _evidence_text(line: EvidenceLine) -> Text:
    label, value = line.parts()
    return Text.assemble((label, "dim" if line.key else ""), value)


# --- Markdown -----------------------------------------------------------------------------------------


def finding_markdown(finding: Finding, *, level: int = 3) -> str:
    """One finding as a Markdown block: heading, explanation, evidence (the text view's lines, fenced),
    and the fix in fenced blocks, one per kind of config."""
    icon = SEVERITY_ICON.get(finding.severity, finding.severity)
    parts = [f"{'#' * level} {icon} {finding.id} — {finding.title}"]
    if finding.explanation:
        parts.append(finding.explanation)
    evidence = evidence_lines(finding.evidence)
    if evidence:
        parts.append("**Evidence**\n\n" + fence("\n".join(str(line) for line in evidence)))
    if finding.fix:
        parts.append("**Fix**\n\n" + fences(finding.fix))
    return "\n\n".join(parts)


def readings_markdown(severity: str, heading: str, findings: Sequence[Finding], evidence: Mapping[str, Any],
                      fix: str, *, level: int = 3) -> str:
    """``draw_readings`` as a Markdown block."""
    icon = SEVERITY_ICON.get(severity, severity)
    parts = [f"{'#' * level} {icon} {heading}", "\n".join(f"- **{f.id}** — {f.title}" for f in findings),
             findings[0].explanation]
    lines = evidence_lines(evidence)
    if lines:
        parts.append("**Evidence**\n\n" + fence("\n".join(str(line) for line in lines)))
    parts.append("**Fix**\n\n" + fences(fix))
    return "\n\n".join(parts)
