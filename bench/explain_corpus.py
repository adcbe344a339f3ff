"""``kdiag explain`` on what users really paste: the corpus of real cases (tests/corpus/explain), scored.

    python -m bench.explain_corpus [--corpus DIR] [--cases] [--json] [--write [--held-out TEXT]]

Each case is one real paste with the finding ids its thread established (the format and the scoring are in
tests/corpus/explain/README.md). Every case goes through kdiag's real entry point (``kdiag explain --json
-``, the paste on stdin, in this process: ``kdiag.cli.main`` with its own error boundary) and is scored:

- right: every expected id is among the findings, and no error-severity finding outside expected + also_ok
  (for ``expected = []``: no error-severity finding at all);
- wrong: an error-severity finding outside expected + also_ok (it contradicts the thread);
- missed: not wrong, but an expected id is absent;
- crashed: an exit status other than 0 or 1, an internal error, or output that is not the JSON document.

It prints right / wrong / missed / crashed per family, per cause (the expected ids) and in all; ``--cases``
adds a line per case that is not right, ``--json`` prints the same as one document.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "corpus" / "explain"
VERDICTS = ("right", "wrong", "missed", "crashed")
FIELDS = {"url": str, "family": str, "client": str, "client_version": str, "side": str, "cause": str,
          "expected": list, "also_ok": list, "decided": str, "output": str}
SIDES = ("client", "broker", "operator")
NONE_FITS = "(no catalog id)"
STRENGTHS = ("certain", "likely", "or", "maybe")  # a finding's title says which reading it is: "Likely: ", ...


class MalformedCase(ValueError):
    """A case file that does not follow the format (README.md): its path and what is wrong."""


@dataclass(frozen=True)
class Case:
    path: Path
    family: str
    url: str
    cause: str
    expected: tuple[str, ...]
    also_ok: tuple[str, ...]
    output: str
    side: str

    @property
    def cause_key(self) -> str:
        return " + ".join(self.expected) or NONE_FITS


@dataclass(frozen=True)
class Scored:
    case: Case
    verdict: str
    found: tuple[tuple[str, str], ...]  # (id, severity) of every finding, in explain's order
    note: str = ""  # what made it wrong, missed or crashed
    strengths: tuple[str, ...] = ()  # per finding of ``found``: certain, likely, or (an alternative), maybe

    def expected_strength(self) -> str:
        """How firmly a right answer named the thread's cause: the weakest of its expected ids' strongest
        reading (certain > likely > or > maybe); "" when nothing was expected or the case is not right."""
        if self.verdict != "right" or not self.case.expected:
            return ""
        best = {}
        for (finding_id, _), strength in zip(self.found, self.strengths):
            if finding_id not in best or STRENGTHS.index(strength) < STRENGTHS.index(best[finding_id]):
                best[finding_id] = strength
        return max((best.get(i, "maybe") for i in self.case.expected), key=STRENGTHS.index)

    @property
    def readings(self) -> int:
        """The findings that point at a cause (warnings and errors), certain or offered as readings."""
        return sum(1 for _, severity in self.found if severity in ("warning", "error"))


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))

    def add(self, verdict: str) -> None:
        self.counts[verdict] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def right_share(self) -> float:
        return self.counts["right"] / self.total if self.total else 0.0


def load_case(path: Path) -> Case:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MalformedCase(f"{path}: {exc}") from None
    for name, kind in FIELDS.items():
        if not isinstance(data.get(name), kind):
            raise MalformedCase(f"{path}: {name} missing or not a {kind.__name__}")
    if data["family"] != path.parent.name:
        raise MalformedCase(f"{path}: family {data['family']!r} is not its directory {path.parent.name!r}")
    if data["side"] not in SIDES:
        raise MalformedCase(f"{path}: side {data['side']!r} is not one of {', '.join(SIDES)}")
    ids = [*data["expected"], *data["also_ok"]]
    if not all(isinstance(i, str) and i for i in ids):
        raise MalformedCase(f"{path}: expected and also_ok hold finding ids")
    if not data["output"].strip():
        raise MalformedCase(f"{path}: output is empty")
    return Case(path, data["family"], data["url"], data["cause"], tuple(data["expected"]), tuple(data["also_ok"]),
                data["output"], data["side"])


def load_corpus(root: Path = CORPUS) -> list[Case]:
    return [load_case(path) for path in sorted(root.glob("*/*.toml"))]


def score(case: Case, found: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The verdict on one case from explain's findings (id, severity), and what decided it."""
    ids = {finding_id for finding_id, _ in found}
    allowed = set(case.expected) | set(case.also_ok)
    contradicting = sorted({i for i, severity in found if severity == "error" and i not in allowed})
    if contradicting:
        return "wrong", "error: " + ", ".join(contradicting)
    absent = [i for i in case.expected if i not in ids]
    if absent:
        return "missed", "absent: " + ", ".join(absent)
    return "right", ""


def run_case(case: Case) -> Scored:
    """``kdiag explain --json -`` with the case's output on stdin, through kdiag's real entry point."""
    from kdiag.cli import Environment, main

    stdin = io.TextIOWrapper(io.BytesIO(case.output.encode("utf-8")), encoding="utf-8")
    env = Environment(stdin=stdin, stdout=io.StringIO(), stderr=io.StringIO(), stdin_isatty=False)
    status = main(["explain", "--json", "-"], env=env)
    stdout, stderr = env.stdout.getvalue(), env.stderr.getvalue()
    # kdiag's own traceback or internal error goes to stderr; stdout may quote a traceback the user pasted
    if status not in (0, 1) or "Traceback" in stderr or "internal error" in stderr:
        return Scored(case, "crashed", (), f"exit {status}: {stderr.strip()[:200]}")
    try:
        document = json.loads(stdout)
        found = tuple((f["id"], f["severity"]) for f in document["findings"])
        strengths = tuple(strength(f["title"]) for f in document["findings"])
    except (ValueError, KeyError, TypeError) as exc:
        return Scored(case, "crashed", (), f"not the JSON document: {exc}")
    verdict, note = score(case, found)
    return Scored(case, verdict, found, note, strengths)


def strength(title: str) -> str:
    """certain, likely, or, maybe: the reading a finding's title announces (kdiag.explain.readings' prefixes)."""
    for name, prefix in (("likely", "Likely: "), ("or", "Or: "), ("maybe", "Maybe: ")):
        if title.startswith(prefix):
            return name
    return "certain"


def firmness(results: Sequence[Scored]) -> dict[str, object]:
    """How the right answers with an expected id named it, and how many readings explain offers a case: a
    right answer that is one reading among many is worth less to a support engineer than a certain one."""
    named = [r.expected_strength() for r in results if r.expected_strength()]
    readings = sorted(r.readings for r in results if r.verdict != "crashed")
    return {"right_with_an_id": len(named), **{f"right_{name}": named.count(name) for name in STRENGTHS},
            "readings_mean": round(sum(readings) / max(len(readings), 1), 2),
            "readings_max": readings[-1] if readings else 0}


def firmness_line(results: Sequence[Scored]) -> str:
    f = firmness(results)
    return (f"Of the {f['right_with_an_id']} right answers that name an id, the expected id was certain in "
            f"{f['right_certain']}, the Likely reading in {f['right_likely']}, and only an Or/Maybe reading among "
            f"others in {f['right_or'] + f['right_maybe']}; explain offers {f['readings_mean']} readings (warnings and "
            f"errors) a case on average, {f['readings_max']} at most.")


def run_corpus(cases: Iterable[Case]) -> list[Scored]:
    return [run_case(case) for case in cases]


def tallies(results: Iterable[Scored], key: str) -> dict[str, Tally]:
    table: dict[str, Tally] = {}
    for result in results:
        name = result.case.family if key == "family" else result.case.cause_key
        table.setdefault(name, Tally()).add(result.verdict)
    return dict(sorted(table.items()))


def total(results: Iterable[Scored]) -> Tally:
    tally = Tally()
    for result in results:
        tally.add(result.verdict)
    return tally


def _table(title: str, table: dict[str, Tally]) -> list[str]:
    width = max([len(title), *(len(name) for name in table)])
    lines = [f"{title:<{width}}  cases  right  wrong  missed  crashed  right %"]
    for name, tally in table.items():
        c = tally.counts
        lines.append(f"{name:<{width}}  {tally.total:>5}  {c['right']:>5}  {c['wrong']:>5}  {c['missed']:>6}  "
                     f"{c['crashed']:>7}  {100 * tally.right_share:>6.1f}")
    return lines


def report_text(results: Sequence[Scored], *, cases: bool = False) -> str:
    every = total(results)
    c = every.counts
    lines = [f"kdiag explain on {every.total} real cases: {c['right']} right ({100 * every.right_share:.1f} %), "
             f"{c['wrong']} wrong ({100 * c['wrong'] / max(every.total, 1):.1f} %: an error finding the thread "
             f"contradicts), {c['missed']} missed, {c['crashed']} crashed", firmness_line(results), ""]
    lines += _table("family", tallies(results, "family")) + [""] + _table("cause", tallies(results, "cause"))
    if cases:
        lines += ["", "not right:"]
        lines += [f"  {r.verdict:<7} {r.case.path.parent.name}/{r.case.path.name}: {r.note}; found "
                  f"{', '.join(f'{i}({s})' for i, s in r.found) or 'nothing'}"
                  for r in results if r.verdict != "right"]
    return "\n".join(lines) + "\n"


def report_json(results: Sequence[Scored]) -> dict[str, object]:
    def counts(table: dict[str, Tally]) -> dict[str, dict[str, int]]:
        return {name: {"cases": t.total, **t.counts} for name, t in table.items()}

    every = total(results)
    return {"cases": every.total, **every.counts, "right_share": round(every.right_share, 4),
            "firmness": firmness(results),
            "families": counts(tallies(results, "family")), "causes": counts(tallies(results, "cause")),
            "not_right": [{"case": f"{r.case.path.parent.name}/{r.case.path.name}", "verdict": r.verdict,
                           "note": r.note, "found": [list(f) for f in r.found]}
                          for r in results if r.verdict != "right"]}


def summary_md(results: Sequence[Scored], *, held_out: str = "") -> str:
    """The BENCHMARKS.md section: the totals against the issue's targets, then per family and per cause."""
    every = total(results)
    c = every.counts
    wrong = c["wrong"] / max(every.total, 1)
    families = tallies(results, "family")
    lowest = min(families.items(), key=lambda kv: kv[1].right_share) if families else ("-", Tally())
    lines = [f"`python -m bench.explain_corpus` on the {every.total} cases of `tests/corpus/explain/` (real output "
             "users pasted into public threads, each with the cause its thread establishes; README.md there says how a "
             "case is scored). Issue 16's targets: at least 92 % right, at most 2 % error findings that contradict "
             "the thread, no crash, every family at least 80 %.", "",
             "| measure | kdiag explain | target |", "|---|---|---|",
             f"| right | {c['right']} of {every.total} ({100 * every.right_share:.1f} %) | >= 92 % |",
             f"| wrong (an error finding the thread contradicts) | {c['wrong']} ({100 * wrong:.1f} %) | <= 2 % |",
             f"| missed (no contradiction, an expected id absent) | {c['missed']} | - |",
             f"| crashed | {c['crashed']} | 0 |",
             f"| lowest family | {lowest[0]} {100 * lowest[1].right_share:.1f} % | >= 80 % |", "",
             firmness_line(results)]
    if held_out:
        lines += ["", held_out]
    for title, table in (("family", families), ("cause (expected ids)", tallies(results, "cause"))):
        lines += ["", f"| {title} | cases | right | wrong | missed | crashed | right % |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {name} | {t.total} | {t.counts['right']} | {t.counts['wrong']} | {t.counts['missed']} | "
                  f"{t.counts['crashed']} | {100 * t.right_share:.1f} |" for name, t in table.items()]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.explain_corpus", description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus directory (<family>/<case>.toml)")
    parser.add_argument("--cases", action="store_true", help="also list every case that is not right")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--write", action="store_true",
                        help="also write bench/results/explain-corpus.json (BENCHMARKS.md's section: python -m bench.report)")
    parser.add_argument("--held-out", default="", metavar="TEXT",
                        help="with --write: a paragraph on the figure measured on cases held out while generalising")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"explain_corpus: {args.corpus} is not a directory", file=sys.stderr)
        return 2
    try:
        cases = load_corpus(args.corpus)
    except MalformedCase as exc:
        print(f"explain_corpus: malformed case: {exc}", file=sys.stderr)
        return 2
    results = run_corpus(cases)
    if args.write:
        from bench.common import write_results

        write_results("explain-corpus", {"title": "kdiag explain on what users really paste: the real-output corpus",
                                         **report_json(results), "summary_md": summary_md(results, held_out=args.held_out)})
    sys.stdout.write(json.dumps(report_json(results), indent=2) + "\n" if args.json
                     else report_text(results, cases=args.cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
