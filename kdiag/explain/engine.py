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
from kdiag.explain.normalize import normalised
from kdiag.explain.observations import Observations
from kdiag.explain.patterns import NEEDLES, Scanner
from kdiag.explain.reader import Block, LogLine, read_blocks, text_blocks
from kdiag.secrets import SECRET_HINTS, Secrets
from kdiag.finding import Finding, by_severity

SCHEMA = "kdiag.explain/1"

# Words of a line that reports an error in any client's language; the first unrecognised lines holding one are
# named when nothing is recognised (at most MAX_ERROR_LINES, and at most that many looked at per word and block).
ERROR_WORDS = ("ERROR", "Error", "error", "Exception", "FAIL", "Failed", "failed", "refused", "timed out", "panic:")
MAX_ERROR_LINES = 5

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
    error_lines: tuple[tuple[int, str], ...] = ()  # with no finding: unrecognised lines that look like errors

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
    read: set[int] = set()
    for index in sorted(hits.keys() | hinted.keys()):
        if index in block.binary:
            continue
        text = lines[index]
        if index in hinted:
            seen.secrets.learn(text)
        if index in hits:
            items = scanner.scan(block.first + index, text, hits[index])  # distances: in lines as read
            if items:
                seen.recognised_lines += 1
                seen.add(LogLine(block.number(index), text), items)
                read.add(index)
    if len(seen.error_lines) < MAX_ERROR_LINES:
        _note_error_lines(block, joined, starts, read, seen)


def _note_error_lines(block: Block, joined: str, starts: list[int], recognised: set[int], seen: Observations) -> None:
    """The first lines of the block that look like errors and that no pattern read (bounded: a few finds)."""
    found: set[int] = set()
    for word in ERROR_WORDS:
        position, looked = joined.find(word), 0
        while position != -1 and looked < MAX_ERROR_LINES:
            index = bisect_right(starts, position) - 1
            looked += 1
            if index not in recognised and index not in block.binary:
                found.add(index)
            position = joined.find(word, starts[index + 1]) if index + 1 < len(starts) else -1
    for index in sorted(found)[:MAX_ERROR_LINES - len(seen.error_lines)]:
        seen.error_lines.append((block.number(index), seen.secrets.scrub(block.lines[index])))


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

    seen = observe(normalised(blocks))
    findings = by_severity(findings_from(seen))
    if seen.secrets.values:  # a secret learned late in the log may sit in a line gathered earlier
        findings = [_scrubbed(f, seen.secrets) for f in findings]
    error_lines = () if findings else tuple((n, seen.secrets.replace_known(text)) for n, text in seen.error_lines)
    return Explanation(tuple(findings), seen.lines, seen.recognised_lines, seen.truncated_lines, seen.binary_lines,
                       error_lines)


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
        "error_lines": [{"line_number": n, "line": text} for n, text in explanation.error_lines],
    }
