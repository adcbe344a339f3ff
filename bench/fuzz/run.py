"""Coverage-guided fuzzing of kdiag's decoders with atheris (libFuzzer): ``bench/fuzz/run.py``.

    python3 -m bench.fuzz.run codec --runs 1000000        # one target, in a child process
    python3 -m bench.fuzz.run all --runs 1000000          # every target, one after the other
    python3 -m bench.fuzz.run codec --seconds 10          # throughput first: how many per second

Each target (``bench/fuzz/targets.py``) runs in its own child process under atheris, its modules
instrumented for coverage, starting from the seeds the target builds. An input that raises anything but
the target's documented error is a *finding*: the child records it (exception, message, the input in
hex) and goes on, so one run gives the full count and every finding rather than stopping at the
first. The parent reads libFuzzer's "Done N runs in S second(s)" and merges everything into
``bench/results/fuzz.json`` (per target: runs, seconds, inputs per second, coverage, findings).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "fuzz.json"
MAX_LEN = 4096
# What atheris instruments for coverage: the decoders, not the whole interpreter.
INSTRUMENTED = {
    "codec": ("probes.codec",),
    "pcap": ("kdiag.capture",),
    "flows": ("kdiag.capture",),
    "explain": ("kdiag.explain",),
    "report": ("kdiag.jsonform", "kdiag.report", "kdiag.diff"),
    "report_loader": ("kdiag.jsonform", "kdiag.report"),
    "client_settings": ("kdiag.clientconfig",),
}


def child(name: str, findings_path: str, libfuzzer_args: list[str]) -> None:
    """Runs inside the child: instrument, wrap the target so findings are recorded, hand over to libFuzzer."""
    import atheris

    with atheris.instrument_imports(include=list(INSTRUMENTED[name])):
        from bench.fuzz.targets import TARGETS
        target, seeds = TARGETS[name]
        target(b"")  # import everything the target lazily imports, inside the instrumentation
    seen: set[tuple[str, str]] = set()

    def one_input(data: bytes) -> None:
        try:
            target(data)
        except Exception as exc:  # the point of the exercise: anything not allowed is a finding
            _record(findings_path, seen, data, exc)

    corpus = tempfile.mkdtemp(prefix=f"kdiag-fuzz-{name}-")
    for index, seed in enumerate(seeds()):
        Path(corpus, f"seed{index}").write_bytes(seed[:MAX_LEN])
    atheris.Setup([sys.argv[0], *libfuzzer_args, corpus], one_input)
    atheris.Fuzz()


def _record(findings_path: str, seen: set, data: bytes, exc: BaseException) -> None:
    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    location = f"{where.tb_frame.f_code.co_filename}:{where.tb_lineno}" if where else "?"
    key = (type(exc).__name__, location)
    if key not in seen:
        seen.add(key)
        with open(findings_path, "a") as out:
            out.write(json.dumps({"exception": type(exc).__name__, "message": str(exc)[:300],
                                  "where": location.replace(str(ROOT) + "/", ""),
                                  "input_hex": data[:2048].hex()}) + "\n")


def mutate_child(name: str, findings_path: str, runs: int, seconds: float, seed: int = 11) -> None:
    """The high-volume engine for targets too slow under atheris's instrumentation: seeded random
    mutation of the seeds (bytes set, cut, inserted, length fields at their extremes), no coverage
    feedback, the same findings file. Prints "Done N runs in S second(s)" as libFuzzer does."""
    import random

    from bench.fuzz.targets import TARGETS

    target, seeds = TARGETS[name]
    corpus = [seed[:MAX_LEN] for seed in seeds()]
    rng = random.Random(seed)
    extremes = (b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00", b"\x00\x00\x00\x00")
    seen: set = set()
    started = time.monotonic()
    done = 0
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stopped early: still say how far it got
    try:
        while done < runs and time.monotonic() - started < seconds:
            done += _mutate_once(target, corpus, rng, extremes, findings_path, seen)
    except KeyboardInterrupt:
        pass
    print(f"Done {done} runs in {int(time.monotonic() - started)} second(s)", file=sys.stderr)


def _mutate_once(target, corpus: list[bytes], rng, extremes: tuple[bytes, ...], findings_path: str,
                 seen: set) -> int:
    """One mutated input through the target; returns 1, the count of inputs run."""
    data = bytearray(rng.choice(corpus))
    for _ in range(rng.randint(1, 6)):
        if not data:
            data += rng.randbytes(rng.randint(1, 64))
            continue
        at, action = rng.randrange(len(data)), rng.randrange(5)
        if action == 0:
            data[at] = rng.randrange(256)
        elif action == 1:
            del data[at:]
        elif action == 2:
            data[at:at] = rng.randbytes(rng.randint(1, 16))
        elif action == 3:
            data[at:at + 4] = rng.choice(extremes)
        else:
            data[at] ^= 1 << rng.randrange(8)
    data = bytes(data[:MAX_LEN])
    try:
        target(data)
    except Exception as exc:  # a finding
        _record(findings_path, seen, data, exc)
    return 1


def run_target(name: str, *, runs: int | None, seconds: int | None, engine: str = "atheris", seed: int = 11) -> dict:
    findings_path = tempfile.mktemp(prefix=f"kdiag-fuzz-{name}-", suffix=".jsonl")
    if engine == "mutate":
        return _collect(name, findings_path, [sys.executable, "-m", "bench.fuzz.run", "--mutate-child", name,
                                              findings_path, str(runs or 10**12), str(seconds or 10**9), str(seed)],
                        "seeded random mutation (no coverage feedback), max_len 4096")
    args = [f"-max_len={MAX_LEN}", "-print_final_stats=1", f"-seed={seed}"]
    if runs:
        args.append(f"-runs={runs}")
    if seconds:
        args.append(f"-max_total_time={seconds}")
    return _collect(name, findings_path, [sys.executable, "-m", "bench.fuzz.run", "--child", name, findings_path,
                                          *args], "atheris (libFuzzer), coverage-guided, max_len 4096")


def _collect(name: str, findings_path: str, command: list[str], engine: str) -> dict:
    started = time.monotonic()
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    log = process.stderr
    done = re.findall(r"Done (\d+) runs in (\d+) second", log)
    units = re.findall(r"stat::number_of_executed_units: (\d+)", log)
    executed = (int(done[-1][0]) if done else int(units[-1]) if units
                else max((int(n) for n in re.findall(r"#(\d+)\s", log)), default=0))
    coverage = re.findall(r"cov: (\d+) ft: (\d+)", log)
    findings = []
    if os.path.exists(findings_path):
        findings = [json.loads(line) for line in Path(findings_path).read_text().splitlines() if line]
        os.unlink(findings_path)
    result = {
        "runs": executed,
        "seconds": round(elapsed, 1),
        "inputs_per_second": round(executed / elapsed) if elapsed else None,
        "coverage_edges": int(coverage[-1][0]) if coverage else None,
        "coverage_features": int(coverage[-1][1]) if coverage else None,
        "exit_status": process.returncode,
        "findings": findings,
        "engine": engine,
    }
    if process.returncode not in (0,) and not done:
        result["log_tail"] = log[-2000:]
    return result


TITLE = "Fuzzing: a million inputs per decoder"
NOTES = """
Each decoder's runs add up over engines and seeds (`python3 -m bench.fuzz.run TARGET --seed S` continues a
target with new inputs). *atheris* is coverage-guided (libFuzzer) and instruments the decoder's modules;
*mutation* is plain seeded mutation of the same seeds (bytes set, cut, inserted, length fields at their
extremes) without coverage feedback, several times faster for the targets whose every input runs a lot of
Python. A finding is any exception other than the decoder's one documented error (`bench/fuzz/targets.py`);
the normal test suite runs the same targets a few hundred times each (`tests/unit/fuzz`).
"""


# Targets that are not decoders themselves: what they run on top of one, and which.
NOT_DECODERS = {"report": "report_loader"}


def _million(name: str, runs: int) -> str:
    if runs >= 1_000_000:
        return "yes"
    if name in NOT_DECODERS:
        return f"n/a (the diff and its views; the decoder is {NOT_DECODERS[name]})"
    return "**no**"


def markdown(saved: dict) -> str:
    """The BENCHMARKS.md table of bench/results/fuzz.json: one row per decoder, its runs added up."""
    decoders: dict[str, dict] = {}
    for key, result in saved["targets"].items():
        row = decoders.setdefault(key.split(" ")[0], {"engines": set(), "runs": 0, "seconds": 0.0, "coverage": None,
                                                     "findings": [], "seeds": 0})
        row["engines"].add("atheris" if result["engine"].startswith("atheris") else "mutation")
        row["runs"] += result["runs"]
        row["seconds"] += result["seconds"]
        row["seeds"] += 1
        row["findings"] += result["findings"]
        if result.get("coverage_edges") is not None:
            row["coverage"] = f"{result['coverage_edges']} / {result['coverage_features']}"
    lines = ["| decoder | engine | inputs | runs | seconds | inputs/s | coverage (edges / features) | ≥ 1 M | findings |",
             "|---|---|---:|---:|---:|---:|---|---|---|"]
    for name, row in decoders.items():
        found = ", ".join(sorted({f"{f['exception']} at {f['where']}" for f in row["findings"]})) or "none"
        lines.append(f"| {name} | {' + '.join(sorted(row['engines']))} | {row['runs']:,} | {row['seeds']} | "
                     f"{row['seconds']:,.0f} | {round(row['runs'] / row['seconds']) if row['seconds'] else 0:,} | "
                     f"{row['coverage'] or 'n/a'} | {_million(name, row['runs'])} | {found} |")
    return "\n".join(lines) + "\n" + NOTES + saved.get("history_md", "")


def _save(saved: dict) -> None:
    """Merged results, with what bench/report.py needs to put them in BENCHMARKS.md."""
    from bench.common import machine

    saved.update(benchmark="fuzz", title=TITLE, measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 machine=machine())
    saved["summary_md"] = markdown(saved)
    RESULTS.write_text(json.dumps(saved, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--child":
        child(argv[1], argv[2], argv[3:])
        return 0
    if argv and argv[0] == "--markdown":
        print(markdown(json.loads(RESULTS.read_text())))
        return 0
    if argv and argv[0] == "--mutate-child":
        mutate_child(argv[1], argv[2], int(argv[3]), float(argv[4]), int(argv[5]) if len(argv) > 5 else 11)
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="a target of bench/fuzz/targets.py, or 'all'")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--seconds", type=int, default=None, help="stop after this long (libFuzzer max_total_time)")
    parser.add_argument("--no-save", action="store_true", help="print, do not merge into bench/results/fuzz.json")
    parser.add_argument("--seed", type=int, default=11, help="another seed continues a run with new inputs")
    parser.add_argument("--engine", choices=("atheris", "mutate"), default="atheris",
                        help="atheris: coverage-guided (default); mutate: plain seeded mutation, several times faster "
                             "for the targets whose every input runs a lot of Python (explain, report)")
    options = parser.parse_args(argv)
    from bench.fuzz.targets import TARGETS

    names = list(TARGETS) if options.target == "all" else [options.target]
    for name in names:
        result = run_target(name, runs=options.runs, seconds=options.seconds, engine=options.engine,
                            seed=options.seed)
        print(json.dumps({name: {k: v for k, v in result.items() if k != "findings"},
                          "findings": len(result["findings"])}), flush=True)
        if not options.no_save:
            saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"targets": {}}
            result["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            result["seed"] = options.seed
            saved["targets"][f"{name} ({options.engine}, seed {options.seed})"] = result
            _save(saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
