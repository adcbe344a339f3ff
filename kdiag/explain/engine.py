"""``explain(lines)``: read a client log once, line by line, and gather what its lines say.

Memory stays bounded whatever the input: one line at a time (``reader``), at most ``MAX_GROUPS``
distinct things said, ``MAX_EXAMPLES`` example lines each, ``MAX_FACTS`` facts. Lines that say the
same thing (the same failure for the same endpoint, differing only in timestamps and counters)
collapse into one group with a count. The groups and facts then become findings (``findings``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import IO

from kdiag.explain.findings import findings_from
from kdiag.explain.observations import Observations
from kdiag.explain.patterns import NEEDLES, Scanner
from kdiag.explain.reader import Block, LogLine, read_blocks, text_blocks
from kdiag.secrets import SECRET_HINTS, Secrets
from kdiag.finding import Finding, by_severity

SCHEMA = "kdiag.explain/1"

# Each secret hint as written in practice (lower-casing the block could shift offsets: "İ".lower() is two
# characters); a line the hints find is then checked properly by Secrets.learn.
_HINT_CASES = tuple(dict.fromkeys(v for hint in SECRET_HINTS for v in (hint, hint.capitalize(), hint.upper())))


@dataclass(frozen=True)
class Explanation:
    """What ``kdiag explain`` answers: the findings, and how much of the input it understood."""

    findings: tuple[Finding, ...]
    lines: int = 0
    recognised_lines: int = 0
    truncated_lines: int = 0
    binary_lines: int = 0

    @property
    def unrecognised_lines(self) -> int:
        return self.lines - self.recognised_lines

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity in ("error", "warning"))


def observe(blocks: Iterable[Block]) -> Observations:
    """One pass over the blocks: what each line says, gathered, with secrets learned on the way."""
    scanner = Scanner()
    seen = Observations()
    for block in blocks:
        _observe_block(block, scanner, seen)
    return seen


def _observe_block(block: Block, scanner: Scanner, seen: Observations) -> None:
    """Finds each needle (and each secret hint) in the whole block with ``str.find``, then runs the
    patterns on the lines a needle hit, in line order. A line no needle hits cannot match a pattern,
    nor change the scanner's state, so skipping it changes nothing but the time taken."""
    lines = block.lines
    seen.lines += sum(1 for line in lines if line and not line.isspace())
    seen.truncated_lines += len(block.truncated)
    seen.binary_lines += len(block.binary)
    joined = "\n".join(lines)
    starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    hits = _lines_holding(joined, starts, NEEDLES)
    hinted = _lines_holding(joined, starts, _HINT_CASES)
    for index in sorted(hits.keys() | hinted.keys()):
        if index in block.binary:
            continue
        text = lines[index]
        if index in hinted:
            seen.secrets.learn(text)
        if index in hits:
            items = scanner.scan(block.first + index, text, hits[index])
            if items:
                seen.recognised_lines += 1
                seen.add(LogLine(block.first + index, text), items)


def _lines_holding(text: str, starts: list[int], needles: Iterable[str]) -> dict[int, set[str]]:
    """line index -> the needles found in that line."""
    found: dict[int, set[str]] = {}
    for needle in needles:
        position = text.find(needle)
        while position != -1:
            index = bisect_right(starts, position) - 1
            found.setdefault(index, set()).add(needle)
            position = text.find(needle, starts[index + 1])
    return found


def explain(blocks: Iterable[Block]) -> Explanation:
    """The findings a client log supports, errors first."""

    seen = observe(blocks)
    findings = by_severity(findings_from(seen))
    if seen.secrets.values:  # a secret learned late in the log may sit in a line gathered earlier
        findings = [_scrubbed(f, seen.secrets) for f in findings]
    return Explanation(tuple(findings), seen.lines, seen.recognised_lines, seen.truncated_lines, seen.binary_lines)


def explain_text(text: str) -> Explanation:
    return explain(text_blocks(text))


def explain_stream(stream: IO[bytes] | IO[str]) -> Explanation:
    return explain(read_blocks(stream))


def _scrubbed(finding: Finding, secrets: Secrets) -> Finding:
    def clean(value: object) -> object:
        if isinstance(value, str):
            return secrets.replace_known(value)
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return Finding(finding.id, finding.severity, secrets.replace_known(finding.title),
                   secrets.replace_known(finding.explanation), clean(dict(finding.evidence)),  # type: ignore[arg-type]
                   secrets.replace_known(finding.fix))


def explanation_to_dict(explanation: Explanation) -> dict[str, object]:
    """The ``kdiag.explain/1`` document (CONTRACT.md), with the line counts added."""
    from kdiag import __version__
    from kdiag.jsonform import to_json

    return {
        "schema": SCHEMA,
        "kdiag_version": __version__,
        "findings": [to_json(f) for f in explanation.findings],
        "unrecognised_lines": explanation.unrecognised_lines,
        "lines": explanation.lines,
        "recognised_lines": explanation.recognised_lines,
        "truncated_lines": explanation.truncated_lines,
        "binary_lines": explanation.binary_lines,
    }
