"""Text that came from outside, made safe to print: the one sanitizer every text and Markdown view uses.

An advertised host name, a rack, a topic, a cluster id, a pasted log line, a string in a pcap, a
``--command-config`` value: none of them is kdiag's, and any of them may hold an escape sequence, a
carriage return, a newline or a bidi override. Printed as they are, they move the cursor, retitle
the terminal, hide text, reorder a line, or split a copy-paste fix into two shell lines.

``printable(text)`` is the rule for one string: every character ``str.isprintable`` refuses — the C0
and C1 controls and DEL (ESC, BEL, CR, LF, TAB, …), format characters (the bidi embeddings and
overrides U+202A–U+202E and isolates U+2066–U+2069, U+200E/U+200F, the zero-width U+200B–U+200D,
U+2060, U+FEFF), the line and paragraph separators U+2028/U+2029, spaces other than U+0020,
surrogates, private-use and unassigned code points — is shown as its escape (``\\x1b``,
``\\u202e``, ``\\U000e0001``); a string longer than any legal value of its kind is cut, and says so
with the count of what was cut. The backslash itself is left alone, so a log line's own ``\\n``
reads as it did.

``displayable(model, scrub)`` applies that rule, after scrubbing secrets, to every string in a
model (a report, a capture summary, a diff, an explanation) before a text or Markdown view draws
it, so no view can forget a field. A finding's title, explanation and fix are kdiag's own text with
outside strings inside: each outside string found there is replaced by its display form first, so a
newline in a host name never becomes a second line of the fix. JSON never goes through this: it
stays exact (its encoder escapes controls itself).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass, replace
from typing import Any, TypeVar

from kdiag.finding import Finding

MAX_NAME = 255
"""A host name (253), a topic (249), a rack, a cluster, group or client id: longer is not a legal value."""
MAX_TEXT = 4096
"""Anything else from outside: a log line (``kdiag explain`` cuts at 4096), a stage summary, a pcap string."""
MAX_PROSE_LINE = 16384
"""A line of kdiag's own prose, whose outside parts were cut already."""

NAME_FIELDS = frozenset({"host", "hostname", "rack", "cluster_id", "answered_cluster_id", "topic", "group",
                         "client_id", "client_ids", "label", "sni", "name_in_certificate", "key"})
"""Fields (and evidence keys) that hold names, cut at ``MAX_NAME``; every other string at ``MAX_TEXT``."""

Scrub = Callable[[str], str]
T = TypeVar("T")


def _unscrubbed(text: str) -> str:
    return text


def printable(text: str, *, limit: int | None = MAX_TEXT) -> str:
    """``text`` with every character that is not printable escaped, cut after ``limit`` characters."""
    cut = ""
    if limit is not None and len(text) > limit:
        cut = f"…[{len(text) - limit} more characters]"
        text = text[:limit]
    if not text.isprintable():
        text = "".join(char if char.isprintable() else escape(char) for char in text)
    return text + cut


def escape(char: str) -> str:
    """One character as Python writes it in a string literal: ``\\x1b``, ``\\u202e``, ``\\U000e0001``."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable_lines(text: str, *, limit: int | None = MAX_TEXT) -> list[str]:
    """Multi-line outside text (a client's stderr) as printable lines: its own line breaks kept."""
    return [printable(line, limit=limit) for line in text.splitlines()]


def displayable(model: T, scrub: Scrub | None = None) -> T:
    """A copy of ``model`` as a text or Markdown view may draw it: every string scrubbed of secrets,
    then made ``printable``; findings' prose rewritten around the outside strings it quotes."""
    display = _Display(scrub or _unscrubbed)
    shown = display.walk(model, None)
    display.finish_findings()
    return shown


class _Display:
    """The two steps of :func:`displayable`: every string but findings' prose (remembering each one
    that had to change, and each finding copied), then the copied findings' prose, with those strings
    replaced where it quotes them."""

    def __init__(self, scrub: Scrub) -> None:
        self.scrub = scrub
        self.changed: dict[str, str] = {}
        self.findings: list[Finding] = []
        self._quoted: re.Pattern[str] | None = None

    def text(self, text: str, key: str | None) -> str:
        limit = MAX_NAME if key in NAME_FIELDS else MAX_TEXT
        shown = printable(self.scrub(text), limit=limit)
        if shown is not text and shown != text:
            self.changed[text] = shown
            lowered = text.lower()  # a rule may quote a host name lower-cased
            if lowered != text and lowered not in self.changed:
                self.changed[lowered] = printable(self.scrub(lowered), limit=limit)
        return shown

    def walk(self, value: Any, key: str | None) -> Any:
        if type(value) in _ATOMS:
            return value
        if isinstance(value, str):
            return self.text(value, key)
        if isinstance(value, Finding):
            copy = replace(value, id=self.text(value.id, None), evidence=self.walk(dict(value.evidence), None))
            self.findings.append(copy)
            return copy
        return _rebuild(value, lambda item, name: self.walk(item, name if name is not None else key))

    def finish_findings(self) -> None:
        """The prose of every finding copied by :meth:`walk`, now that every outside string is known.
        The copies are this walk's own, seen by no one yet: set in place (frozen only to the world)."""
        for finding in self.findings:
            object.__setattr__(finding, "title", self.prose(finding.title, one_line=True))
            object.__setattr__(finding, "explanation", self.prose(finding.explanation))
            object.__setattr__(finding, "fix", self.prose(finding.fix))

    def prose(self, text: str, *, one_line: bool = False) -> str:
        """kdiag's own text with outside strings inside: those shown as everywhere else, its own line
        breaks kept (none in a title), anything else unprintable escaped."""
        if self.changed:
            if self._quoted is None:
                self._quoted = re.compile("|".join(re.escape(raw) for raw in sorted(self.changed, key=len, reverse=True)))
            text = self._quoted.sub(lambda m: self.changed[m.group(0)], text)
        text = self.scrub(text)
        if one_line:
            return printable(text, limit=MAX_PROSE_LINE)
        return "\n".join(printable(line, limit=MAX_PROSE_LINE) for line in text.split("\n"))


def _rebuild(value: Any, walk: Callable[[Any, str | None], Any]) -> Any:
    """``value`` with ``walk`` applied to each part (a dataclass's fields by name, a mapping's keys
    and values, a sequence's items); the same object when nothing changed."""
    names = _init_fields(type(value))
    if names is not None:
        changes = {}
        for name in names:
            old = getattr(value, name)
            new = walk(old, name)
            if new is not old:
                changes[name] = new
        return replace(value, **changes) if changes else value
    if isinstance(value, Mapping):
        items = [(walk(k, None), walk(v, k if isinstance(k, str) else None)) for k, v in value.items()]
        if all(k is old_k and v is old_v for (k, v), (old_k, old_v) in zip(items, value.items())):
            return value
        return dict(items)
    if isinstance(value, (tuple, list)):
        items = [walk(item, None) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


_ATOMS = frozenset({int, float, bool, type(None)})


@functools.cache
def _init_fields(cls: type) -> tuple[str, ...] | None:
    """The fields a dataclass's constructor takes; None for anything else."""
    return tuple(f.name for f in fields(cls) if f.init) if is_dataclass(cls) else None
