"""The paste in the shape users bring it, turned back into the plain lines the recognisers read.

``normalised(blocks)`` rewrites each ``Block`` before anything reads it:

- terminal colour (ANSI CSI and OSC sequences) and other control characters go;
- text a web page or a mail escaped (``&quot;``, ``&gt;``, ``&#39;``) is unescaped;
- a mail or GitHub quote (``> ``), a docker-compose service (``kafka-1  | ``) and a Kubernetes CRI record head
  (``2024-05-01T10:00:00.1Z stderr F ``) are taken off the front; CRI's partial records (``P``) are joined to
  the record they belong to;
- a structured log record (one JSON object per line: zap, logrus, Logstash/ECS, docker's json-file ``log``)
  becomes the line a text logger prints (message, ``: error``, then its other fields as ``key=value``) and the
  lines of its stack-trace fields, their ``\\n`` and ``\\t`` read back; when, how loud and which thread are
  left out, and kafkajs's own JSON logger, which its recognisers read as it is, stays as it is;
  a plain line whose stack trace a shipper escaped (``...\\n\\tat org...``) is split at the escaped breaks;
- lines a terminal or a mailer wrapped at a fixed width (every long line cut at the same column, 60 or more)
  are joined again, and so is a YAML quoted scalar folded across lines (a Kubernetes status's ``message: '...``).

Every rewrite is bounded: a line is at most the reader's ``MAX_LINE`` characters already, a JSON record yields
at most ``MAX_RECORD_LINES`` lines, and a joined line is cut at ``MAX_LINE`` again. Line numbers stay those of
the paste: a line that came out of several (joined) or one of several out of one (a record's fields) carries
the number of the first line it came from (``Block.numbers``), while ``Block.first`` counts the lines as
normalised (the recognisers measure their distances, a stack trace's frames from its connection line, in those).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kdiag.explain.reader import MAX_LINE, Block

MAX_RECORD_LINES = 200
"""Lines one structured record (or one escaped stack trace) may become."""

MIN_WRAP = 60
"""The narrowest width read as a wrap: a shorter line of the most common length is only a short line."""

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|[\x00-\x08\x0b-\x1f\x7f]")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});")
_QUOTE = re.compile(r"^(?:>+ ?)*>+ ")  # "> ", "> > ", ">> ": a wrapped line's own ">" (Python's reprs) stays
_COMPOSE = re.compile(r"^[A-Za-z0-9][\w.-]{0,62}\s+\| ")
_CRI = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d) (?:stdout|stderr) (?P<tag>[FP]) ")
_ESCAPED_TRACE = re.compile(r"(?:\\r)?\\n(?=\\t|\s*at |Caused by|\s*\.\.\. \d+ more)")
# a line that starts a new record, never the rest of a wrapped one
_RECORD_START = re.compile(r"\d{4}[-/.]\d\d[-/.]\d\d|\d\d:\d\d:\d\d|\d{10}\.\d|%\d\||\{\"|\$ |>>> |"  # time, %3|, JSON
                           r"\[(?:\d|[A-Z]{3,8}\]|(?:Producer|Consumer|AdminClient|SocketServer)\b)|"  # [2024, [WARN]
                           r"(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|SEVERE)\b|"  # a level
                           r"\s{2,}|\t|Caused by:|Traceback|panic:|goroutine |Exception in thread|"  # an indented item, a trace
                           r"(?:[a-z]\w*\.)+[A-Z]\w*(?:Exception|Error)\b|[A-Z]\w*(?:Exception|Error):")  # an exception's name
_WHOLE_FRAME = re.compile(r"\s+at [\w$.<>/-]+\([\w$.<> -]*(?::\d+)?\)\s*$")  # "\tat a.b.C.m(C.java:12)", complete
# fields of a structured record that say when, where and how loud, never what failed
_META = frozenset({"time", "ts", "timestamp", "@timestamp", "date", "level", "log.level", "severity", "lvl",
                   "levelname", "@version", "ecs.version", "caller", "thread", "thread_name", "threadname",
                   "process.thread.name", "logger", "logger_name", "log.logger", "name", "pid", "hostname", "host.name",
                   "stream", "service", "service.name", "source", "file", "line", "func", "function", "module"})
_WIDTHS = frozenset({72, 76, 78, 79, 80, 100, 120, 132, 160, 200})
"""Widths terminals, mailers and log viewers wrap at: one line that long may be the head of a wrapped one."""
_MESSAGE = ("msg", "message", "log", "event", "text")
_YAML_OPEN = re.compile(r"(?P<head>.{0,120}?)(?P<indent> *)(?:- )?[a-z][\w.-]{0,40}: (?P<quote>['\"])(?P<rest>.*)$")
_YAML_FOLD = 20
"""Lines one folded YAML scalar may span."""


def normalised(blocks: Iterable[Block]) -> Iterator[Block]:
    """The blocks rewritten; a line that may go on in the next block (a wrapped line, a CRI partial record)
    waits for it."""
    width: int | None = None
    soft = False
    held: list[_Line] = []
    position = 1  # the normalised line's place: the distances the recognisers measure between lines are in these
    for block in blocks:
        lines = held + _rewritten(block)
        width = _wrap_width(lines) or width
        soft = _word_wrapped(lines) or (soft if held else False)
        lines = _yaml_unfolded(_unwrapped(lines, width, soft))
        held = lines[-1:] if lines and (lines[-1].partial or _goes_on(lines[-1], width, soft)) else []
        if len(lines) > len(held):
            yield _block(position, lines[:len(lines) - len(held)])
            position += len(lines) - len(held)
    if held:
        yield _block(position, held)


@dataclass(frozen=True)
class _Line:
    text: str
    number: int
    truncated: bool = False
    binary: bool = False
    partial: bool = False  # a CRI partial record: its line goes on in the next record
    raw: int = 0  # the length of the last input line it holds, as pasted (the wrap cut that length)


def normalise_block(block: Block) -> Block:
    """One block on its own (a test, a caller with every line in one block)."""
    blocks = list(normalised([block]))
    return Block(block.first, [line for b in blocks for line in b.lines],
                 numbers=tuple(b.number(i) for b in blocks for i in range(len(b.lines))))


def _rewritten(block: Block) -> list[_Line]:
    out: list[_Line] = []
    for index, text in enumerate(block.lines):
        number = block.number(index)
        if index in block.binary:  # never rewritten, still never read
            out.append(_Line(text, number, index in block.truncated, True))
            continue
        raw = len(text)
        text, cri = _plain(text)
        truncated = index in block.truncated
        if cri == "P":
            out.append(_Line(text, number, truncated, partial=True))
            continue
        pieces = _pieces(text)
        out += [_Line(piece, number, truncated, raw=raw if len(pieces) == 1 and not cri else 0) for piece in pieces]
    return out


def _yaml_unfolded(lines: list[_Line]) -> list[_Line]:
    """A YAML quoted scalar folded across lines (``kubectl get -o yaml``'s ``message: 'Unable to ... failed``, then
    deeper-indented lines up to the one that closes the quote) joined back into one line, as YAML reads it: each break
    a space. Only a quote the key opens and a later line closes, within ``_YAML_FOLD`` lines, each under the same head
    as the key's line (a logger's prefix, or none) and deeper than the key: a log's ``ERROR: ...`` with an indented
    trace under it is no scalar; a head line a logger repeats between them (a record a line) is skipped."""
    out: list[_Line] = []
    index = 0
    while index < len(lines):
        line, opened = lines[index], _YAML_OPEN.match(lines[index].text)
        parts = _yaml_parts(lines, index, opened) if opened and not line.binary else None
        if parts is None:
            out.append(line)
            index += 1
            continue
        head = len(opened["head"])
        text = " ".join([line.text.rstrip(), *(lines[i].text[head:].strip() for i in parts)])
        out.append(_Line(text[:MAX_LINE], line.number, any(lines[i].truncated for i in (index, *parts))))
        index = parts[-1] + 1
    return out


def _yaml_parts(lines: list[_Line], index: int, opened: re.Match[str]) -> list[int] | None:
    """The indexes of the lines that go on the scalar ``opened`` opened, the last one closing its quote, or None."""
    head, quote, depth = opened["head"], opened["quote"], len(opened["indent"])
    if _closes(opened["rest"], quote):
        return None
    between = lines[index - 1].text if index and not lines[index - 1].text[:1].isspace() else None
    parts: list[int] = []
    for end in range(index + 1, min(index + 1 + 2 * _YAML_FOLD, len(lines))):
        text = lines[end].text
        if text == between:
            continue
        if lines[end].binary or not text.startswith(head) or not text[len(head):].strip() or len(parts) == _YAML_FOLD:
            return None
        text = text[len(head):]
        if len(text) - len(text.lstrip(" ")) <= depth:
            return None
        parts.append(end)
        if _closes(text.strip(), quote):
            return parts
    return None


def _closes(text: str, quote: str) -> bool:
    """Whether a quoted scalar's text holds its closing quote (``''`` is a quote inside single quotes, ``\\"``
    inside double)."""
    bare = text.replace("''", "") if quote == "'" else re.sub(r'\\.', "", text)
    return quote in bare


def _block(position: int, lines: list[_Line]) -> Block:
    """``first`` is the place of the first line once normalised, ``numbers`` the input's line numbers."""
    numbers = tuple(line.number for line in lines)
    return Block(position, [line.text for line in lines], frozenset(i for i, line in enumerate(lines) if line.truncated),
                 frozenset(i for i, line in enumerate(lines) if line.binary), numbers)


def _plain(text: str) -> tuple[str, str]:
    """One line without colour, entities and the heads that containers and quoting put in front; its CRI tag
    ("F" a whole record, "P" a partial one whose line goes on in the next record, "" not a CRI record)."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)
    if text[:1] == ">":
        text = _QUOTE.sub("", text, count=1)
    tag = ""
    if text[:1].isdigit():
        cri = _CRI.match(text)
        if cri is not None:
            text, tag = text[cri.end():], cri["tag"]
    if " | " in text[:70]:
        text = _COMPOSE.sub("", text, count=1)
    return text, tag


def _pieces(text: str) -> list[str]:
    """A structured record's lines, an escaped stack trace's lines, or the line itself."""
    stripped = text.strip()
    if stripped[:1] == "{" and stripped[-1:] == "}":  # a record, or a JSON line its family's recognisers read
        said = _record(stripped)
        if said is None:
            return [text]
        # a record's message may itself be a line with an escaped trace (a container's JSON line, cut, that a
        # shipper's record holds as its message): split as the same line pasted bare is
        return [piece for line in said for piece in _escaped_trace(line)][:MAX_RECORD_LINES]
    return _escaped_trace(text)


def _escaped_trace(text: str) -> list[str]:
    """An escaped stack trace's lines (``\\n`` and ``\\t`` as two characters each), or the line itself."""
    if "\\n" in text and _ESCAPED_TRACE.search(text):
        parts = _ESCAPED_TRACE.split(text)[:MAX_RECORD_LINES]
        return [part.replace("\\t", "\t") for part in parts]
    return [text]


def _record(text: str) -> list[str] | None:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # not JSON after all; nesting is bounded by MAX_LINE anyway
        return None
    if not isinstance(document, dict) or document.get("logger") == "kafkajs":  # kafkajs's own: read as it is
        return None
    fields: list[tuple[str, str]] = []
    _strings(document, "", fields)
    message = next((value for key, value in fields if key in _MESSAGE and "\n" not in value), None)
    error = next((value for key, value in fields if key in ("error", "err", "error.message", "exception")
                  and "\n" not in value and value != message), None)
    said: list[str] = []  # what the record says: its message (with its error), then each multi-line field's lines
    named: list[str] = []  # its other fields, key=value after the message, as a text logger prints them
    for key, value in fields:
        if key in _META or not value.strip() or (value is error and message is not None):
            continue
        if value is message and error is not None:
            value = f"{message}: {error}"  # how the Go and Python loggers print the pair as text
        if _bare(key):
            said += value.rstrip("\n").split("\n")
        else:
            named.append(f"{key}={value}".split("\n", 1)[0])
        if len(said) + len(named) >= MAX_RECORD_LINES:
            break
    head = " ".join([*said[:1], *named])[:MAX_LINE]
    return [head, *said[1:MAX_RECORD_LINES]] if head else None


def _bare(key: str) -> bool:
    """A field that holds what the line says (message, error, trace) rather than one named value."""
    last = key.rsplit(".", 1)[-1].lower()
    return last in _MESSAGE or last in ("error", "err", "exception", "cause", "reason", "detail") or \
        any(word in last for word in ("stack", "trace", "message"))


def _strings(value: object, key: str, out: list[tuple[str, str]], depth: int = 0) -> None:
    """The scalar values of a JSON document in document order, each with its dotted key, as text (a number and a
    switch matter too: franz-go's seed broker is "broker":-2147483647, a tool's "tls":true)."""
    if len(out) >= MAX_RECORD_LINES or depth > 8:
        return
    if isinstance(value, str):
        out.append((key, value.replace("\r", "")))
    elif isinstance(value, (bool, int, float)):
        out.append((key, json.dumps(value)))
    elif isinstance(value, dict):
        for name, inner in value.items():
            _strings(inner, f"{key}.{name}" if key and key not in ("error", "err") else str(name), out, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            _strings(inner, key, out, depth + 1)


def _unwrapped(lines: list[_Line], width: int | None, soft: bool = False) -> list[_Line]:
    """CRI partial records joined to the rest of their line, and lines cut at a fixed width (or, ``soft``, at words)
    joined again: such a line is continued by the next unless that one starts a record of its own."""
    out: list[_Line] = []
    carrying = False
    for line in lines:
        if out and out[-1].partial and not line.binary:
            head = out.pop()
            line = _Line((head.text + line.text)[:MAX_LINE], head.number, line.truncated, partial=line.partial,
                         raw=line.raw)
        elif carrying and not line.binary and not _new_record(line, out[-1]):
            last = out.pop()
            line = _Line((last.text + line.text)[:MAX_LINE], last.number, last.truncated or line.truncated,
                         raw=line.raw)
        out.append(line)
        carrying = _goes_on(line, width, soft)
    return out


def _new_record(line: _Line, before: _Line) -> bool:
    """Whether ``line`` starts a record of its own rather than continuing ``before``: it is empty, opens the way
    records do, or starts as ``before`` did (the same line again, another of its template)."""
    return not line.text or bool(_RECORD_START.match(line.text)) or line.text[:12] == before.text[:12]


def _goes_on(line: _Line, width: int | None, soft: bool = False) -> bool:
    """Whether ``line`` was cut at the wrap width, or at a word in a paste wrapped so (or is several such cuts
    joined already)."""
    cut = line.raw == width or (soft and line.raw >= MIN_WRAP and line.text.endswith(" "))
    return (width is not None or soft) and cut and not line.partial and not line.binary and len(line.text) < MAX_LINE


def _word_wrapped(lines: list[_Line]) -> bool:
    """A paste wrapped at words, at no fixed width (a mailer's or an editor's soft wrap keeps the space it cut at):
    two lines or more, each at least ``MIN_WRAP`` long, end in that space and go on in lines that open no record of
    their own, and no line ending so is followed by a new record."""
    continued = 0
    for line, after in zip(lines, lines[1:]):
        if line.raw >= MIN_WRAP and line.text.endswith(" ") and not line.binary:
            if _new_record(after, line):
                return False
            continued += 1
    return continued >= 2


def _wrap_width(lines: list[_Line]) -> int | None:
    """The width the paste was wrapped at: the longest line's length, when lines that long are continued by lines
    that start no record of their own: at a width terminals and mailers use, at least as often as a new record
    follows them; at any other width, three times and never followed by a new record. Lines of one template (a
    log's repeated line with other timestamps) are as long as each other too, but a new record follows them."""
    longest = max((line.raw for line in lines), default=0)
    if longest < MIN_WRAP:
        return None
    continued = ended = 0
    for line, after in zip(lines, [*lines[1:], None]):  # the block's last line may go on in the next block
        if line.raw == longest:
            if after is not None and _new_record(after, line):
                # a whole stack frame ends at its ")" whatever the width: one as long as the wrap says nothing
                # (the frames of one method, one template, are all as long as each other)
                ended += not _WHOLE_FRAME.match(line.text)
            else:
                continued += 1
    if (longest in _WIDTHS and continued >= max(ended, 1)) or (continued >= 3 and ended == 0
                                                                and not _wrapped_between_words(lines, longest)):
        return longest
    return None


def _wrapped_between_words(lines: list[_Line], width: int) -> bool:
    """Whether a line shorter than ``width`` goes on in the next, which starts no record and whose first word would
    not have fit after it: a mailer or a comment box wrapping between words, whose lines as long as the words allowed
    are no column's cut (a librdkafka line broken after its head ``...|rdkafka#producer-1|``)."""
    visible = max((len(line.text) for line in lines if line.raw), default=width)  # colour codes are no width
    for line, after in zip(lines, lines[1:]):
        if line.raw and len(line.text) < visible and not line.binary and not after.binary \
                and not _new_record(after, line) and len(line.text) + 1 + len(after.text.split(" ", 1)[0]) > visible:
            return True
    return False
