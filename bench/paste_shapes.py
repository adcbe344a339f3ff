"""The same paste in the shapes users bring it in: does ``kdiag explain`` still say the same?

    python -m bench.paste_shapes [--corpus DIR] [--cases]

Each case of the real-output corpus (tests/corpus/explain) is rewritten into every shape below, built only
from its own lines: as structured JSON log records (zap, logrus, Logstash/ECS with the stack trace escaped
into one field), behind a docker-compose or Kubernetes (CRI) prefix, coloured with ANSI codes, HTML-escaped
as a GitHub page or mail shows it, with CRLF line ends, with the stack trace folded onto one line, hard-wrapped
at 80 and 120 columns as a terminal copies it, and behind log4j/logback, Python logging and Go log prefixes
with localized timestamps. A shape passes on a case when explain's findings (id and severity) are the same as
on the original. ``tests/unit/explain/test_paste_shapes.py`` holds every shape to every case.
"""

from __future__ import annotations

import argparse
import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.explain_corpus import CORPUS, Case, load_corpus
from kdiag.explain.engine import explain_text


def _lines(text: str) -> list[str]:
    return [line for line in text.strip("\n").split("\n")]


def _continuation(line: str) -> bool:
    """A line of a Java stack trace that follows its exception (``\\tat ...``, ``Caused by: ...``, ``... 12 more``)."""
    stripped = line.lstrip()
    return line[:1] in (" ", "\t") and (stripped.startswith(("at ", "... ")) or stripped.startswith("Caused by")) \
        or line.startswith("Caused by:")


def _records(text: str) -> list[list[str]]:
    """The paste as log records: a line and the stack-trace lines that follow it."""
    records: list[list[str]] = []
    for line in _lines(text):
        if records and _continuation(line):
            records[-1].append(line)
        else:
            records.append([line])
    return records


def zap(text: str) -> str:
    return "\n".join(json.dumps({"level": "error", "ts": 1732665600.123, "caller": "app/main.go:42",
                                 "msg": "kafka error", "error": line}) for line in _lines(text) if line.strip())


def logrus(text: str) -> str:  # logrus sorts its keys: error before msg
    return "\n".join(json.dumps({"error": line, "level": "error", "msg": "client failed",
                                 "time": "2024-05-01T10:00:00Z"}, sort_keys=True) for line in _lines(text) if line.strip())


def logstash(text: str) -> str:  # logstash-logback-encoder: the first line the message, the trace one field
    out = []
    for record in _records(text):
        doc: dict[str, object] = {"@timestamp": "2024-05-01T10:00:00.123+02:00", "@version": "1",
                                  "message": record[0], "logger_name": "org.apache.kafka.clients.NetworkClient",
                                  "thread_name": "kafka-producer-network-thread | producer-1", "level": "WARN"}
        if len(record) > 1:
            doc["stack_trace"] = "\n".join(record[1:]) + "\n"
        out.append(json.dumps(doc))
    return "\n".join(out)


def ecs(text: str) -> str:  # ECS: the whole record, trace included, nested under error
    return "\n".join(json.dumps({"@timestamp": "2024-05-01T08:00:00.123Z", "log.level": "ERROR",
                                 "message": "Kafka client error", "ecs.version": "1.2.0",
                                 "error": {"type": "KafkaException", "stack_trace": "\n".join(record)}},
                                separators=(",", ":")) for record in _records(text))


def docker_json(text: str) -> str:  # docker's json-file driver: each line a record, its break kept in "log"
    return "\n".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": "2024-05-01T10:00:00.123456789Z"})
                     for line in _lines(text))


def quoted(text: str) -> str:  # a mail or GitHub reply quoting the paste
    return "\n".join("> " + line for line in _lines(text))


def cri_partial(text: str) -> str:  # the kubelet cuts a long line into partial records (P) ended by one F
    out = []
    for line in _lines(text):
        parts = [line[i:i + 50] for i in range(0, len(line), 50)] or [""]
        out += [f"2024-05-01T10:00:00.123456789Z stderr P {part}" for part in parts[:-1]]
        out.append(f"2024-05-01T10:00:00.123456789Z stderr F {parts[-1]}")
    return "\n".join(out)


def compose(text: str) -> str:
    return "\n".join(f"kafka-client-1  | {line}" for line in _lines(text))


def cri(text: str) -> str:
    return "\n".join(f"2024-05-01T10:00:00.123456789Z stderr F {line}" for line in _lines(text))


def ansi(text: str) -> str:
    out = []
    for line in _lines(text):
        head, _, rest = line.partition(" ")
        out.append(f"\x1b[31;1m{head}\x1b[0m {rest}\x1b[39m" if rest else f"\x1b[33m{line}\x1b[0m")
    return "\n".join(out)


def html_escaped(text: str) -> str:
    return html.escape(text, quote=True).replace("&#x27;", "&#39;")


def crlf(text: str) -> str:
    return "\r\n".join(_lines(text)) + "\r\n"


def folded(text: str) -> str:  # a stack trace copied out of a one-line view: each record on one line
    return "\n".join(" ".join([record[0], *(part.strip() for part in record[1:])]) for record in _records(text))


def escaped(text: str) -> str:  # a record whose breaks a log shipper escaped: \n and \t as two characters
    return "\n".join("\\n".join(part.replace("\t", "\\t") for part in record) for record in _records(text))


def _wrapped(width: int) -> Callable[[str], str]:
    def wrap(text: str) -> str:
        out = []
        for line in _lines(text):
            out += [line[i:i + width] for i in range(0, len(line), width)] or [""]
        return "\n".join(out)
    wrap.__name__ = f"wrapped_{width}"
    return wrap


def _prefixed(name: str, prefix: str) -> Callable[[str], str]:
    def add(text: str) -> str:
        return "\n".join(prefix + line if line.strip() else line for line in _lines(text))
    add.__name__ = name
    return add


@dataclass(frozen=True)
class Shape:
    name: str
    make: Callable[[str], str]


SHAPES: tuple[Shape, ...] = tuple(Shape(f.__name__, f) for f in (
    zap, logrus, logstash, ecs, docker_json, compose, cri, cri_partial, quoted, ansi, html_escaped, crlf, folded, escaped, _wrapped(80), _wrapped(120),
    _prefixed("logback", "10:00:00.123 [kafka-producer-network-thread | producer-1] WARN  o.a.k.c.NetworkClient - "),
    _prefixed("python_logging", "WARNING:kafka.client:"),
    _prefixed("go_log", "2024/05/01 10:00:00 "),
    _prefixed("localized", "27.11.2026 01:02:03,456 FEHLER "),
    _prefixed("localized_cjk", "2026年11月27日 01:02:03 错误 "),
))


@dataclass(frozen=True)
class Difference:
    case: str
    shape: str
    original: tuple[tuple[str, str], ...]
    shaped: tuple[tuple[str, str], ...]


def findings(text: str) -> tuple[tuple[str, str], ...]:
    """What explain finds in ``text``: (id, severity) of each finding, sorted (the engine, not the CLI: the
    corpus runner already drives the CLI on every original, and the engine is forty times faster)."""
    return tuple(sorted((f.id, f.severity) for f in explain_text(text).findings))


def differences(cases: Sequence[Case], shapes: Sequence[Shape] = SHAPES) -> list[Difference]:
    """Every (case, shape) whose findings differ from the original's."""
    found = []
    for case in cases:
        original = findings(case.output)
        for shape in shapes:
            shaped = findings(shape.make(case.output))
            if shaped != original:
                found.append(Difference(f"{case.path.parent.name}/{case.path.name}", shape.name, original, shaped))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.paste_shapes", description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus directory (<family>/<case>.toml)")
    parser.add_argument("--cases", action="store_true", help="list every case and shape that differs")
    parser.add_argument("--shape", action="append", choices=[s.name for s in SHAPES], help="only these shapes")
    args = parser.parse_args(argv)
    cases = load_corpus(args.corpus)
    shapes = [s for s in SHAPES if not args.shape or s.name in args.shape]
    diffs = differences(cases, shapes)
    print(f"{len(cases)} cases x {len(shapes)} shapes: {len(diffs)} differ from the original")
    for shape in shapes:
        print(f"  {shape.name:<15} {sum(d.shape == shape.name for d in diffs):>4} differ")
    if args.cases:
        for d in diffs:
            print(f"{d.shape:<15} {d.case}: {d.original} -> {d.shaped}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
