"""The fleet on its reports table (``kdiag fleet ingest`` + ``kdiag fleet analyze --table``) against
the job on raw JSON, before and after this change, and against DuckDB and plain Python computing the
same six tables, all measured in one run on the same generated reports, each as a whole process:

  1. N reports (default 200,000): ``analyze`` of the raw JSON with the code of ``--baseline`` (the
     branch's starting point: "today's analyze") and with this code; ``ingest --once`` of all of them;
     ``analyze --table``; a day's new reports (5 % more, in new files) ingested incrementally;
     DuckDB (2 threads) on the raw JSON and on the table's Parquet; the plain-Python reference.
  2. 20,000 reports: ``analyze`` of the raw JSON and ``analyze --table``, whole process.
  3. Spark standalone, a master and 1 worker of 2 cores vs ``local[2]`` on the same input.

Run: ``python -m bench.bench_fleet_table [--size 200000] [--small 20000] [--baseline /tmp/kdiag-main]``
(``--baseline`` is a directory holding the baseline's ``kdiag`` package: ``git archive main kdiag probes
| tar -x -C DIR``). Inputs stay in --workdir and are re-used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any

from bench.bench_fleet import descendants
from bench.common import write_results
from kdiag.fleet.generate import GenerateOptions, generate
from kdiag.fleet.standalone import StandaloneCluster

CLUSTERS, VANTAGES, SEED, NEW_SEED = 20, 50, 11, 12
TITLE = "kdiag fleet on its reports table: ingest once, analyze from Parquet"
ROOT = Path(__file__).resolve().parent.parent


def fleet_input(workdir: Path, size: int, seed: int = SEED) -> Path:
    out = workdir / f"fleet-{size}-{seed}"
    if not (out / "reports").is_dir():
        generate(GenerateOptions(reports=size, clusters=CLUSTERS, vantages=VANTAGES, out=out, seed=seed, truth=False,
                                 overwrite=True))
    return out


TICK = os.sysconf("SC_CLK_TCK")
DRIVER_MEMORY = ["3g"]
"""KDIAG_SPARK_DRIVER_MEMORY of every Spark run (--driver-memory)."""


def _cpu_ticks(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0


def timed(argv: list[str], *, pythonpath: Path = ROOT, executors_of: tuple[int, ...] = ()) -> dict[str, float]:
    """Wall time and CPU time of a whole process tree (the Python process, spark-submit, the JVM),
    sampled from /proc every 0.2 s (the last 0.2 s of a process may be missed): on a machine shared
    with other work, CPU seconds move far less with the load than wall seconds do."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "KDIAG_SPARK_DRIVER_MEMORY": DRIVER_MEMORY[0]}
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    # run from ``pythonpath``: ``python -m``/``-c`` put the working directory first on sys.path, so run
    # from a checkout the baseline's run would import the checkout's kdiag, not the baseline's
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=pythonpath)
    ticks: dict[int, int] = {}
    errors = bytearray()
    import threading

    reader = threading.Thread(target=lambda: errors.extend(process.stderr.read() if process.stderr else b""),
                              daemon=True)
    reader.start()
    while process.poll() is None:
        for pid in [process.pid, *descendants(process.pid), *(d for w in executors_of for d in descendants(w))]:
            ticks[pid] = max(ticks.get(pid, 0), _cpu_ticks(pid))
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    reader.join(10)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:6])}... failed: {errors.decode(errors='replace')[-3000:]}")
    return {"wall_s": round(seconds, 1), "cpu_s": round(sum(ticks.values()) / TICK, 1),
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds))}


def analyze_raw(fleet: Path, out: Path, *, pythonpath: Path = ROOT, master: str | None = None,
                executors_of: tuple[int, ...] = ()) -> dict[str, float]:
    """``executors_of``: a standalone cluster's worker processes, whose executors' CPU (they run under the
    worker, not the measured process) is counted too."""
    argv = [sys.executable, "-m", "kdiag.fleet.job", str(fleet / "reports"), str(fleet / "tickets"),
            "--out", str(out), "--overwrite", "--no-html"]
    return timed(argv + (["--master", master] if master else []), pythonpath=pythonpath, executors_of=executors_of)


def analyze_table(table: Path, out: Path) -> dict[str, float]:
    return timed([sys.executable, "-m", "kdiag.fleet.job", "--table", str(table), "--out", str(out), "--overwrite",
                  "--no-html"])


def ingest(source: Path, table: Path) -> dict[str, float]:
    return timed([sys.executable, "-m", "kdiag", "fleet", "ingest", str(source), "--table", str(table), "--once"])


def linked_source(fleet: Path, source: Path) -> Path:
    """The generated files hard-linked into a fresh directory the ingest watches."""
    shutil.rmtree(source, ignore_errors=True)
    for sub in ("reports", "tickets"):
        (source / sub).mkdir(parents=True)
        for path in (fleet / sub).iterdir():
            os.link(path, source / sub / path.name)
    return source


def parse_classify(fleet: Path, out: Path, *, pythonpath: Path) -> dict[str, float]:
    """Today's parse-and-classify (the job's read, JSON parse and classification of every record, written
    as Parquet: the issue's profile's first part), with the code at ``pythonpath``: what ingest is held to."""
    code = ("import sys; from kdiag.fleet.inputs import classify; "
            "from kdiag.fleet.job import AnalyzeOptions, classified, read_text, spark_session; "
            "files, _ = classify([sys.argv[1] + '/reports', sys.argv[1] + '/tickets']); "
            "spark = spark_session(AnalyzeOptions(inputs=(), out=sys.argv[2]), kafka=False); "
            "classified(read_text(spark, files, ())).write.mode('overwrite').parquet(sys.argv[2])")
    return timed([sys.executable, "-c", code, str(fleet), str(out)], pythonpath=pythonpath)


def python_six(fleet: Path) -> dict[str, float]:
    code = ("import sys; from kdiag.fleet.reference import analyze_paths; "
            "analyze_paths([sys.argv[1] + '/reports', sys.argv[1] + '/tickets'])")
    return timed([sys.executable, "-c", code, str(fleet)])


def duckdb_six(*, fleet: Path | None = None, table: Path | None = None) -> dict[str, float]:
    code = ("import sys; from bench.fleet_duckdb import duckdb_tables; from kdiag.fleet.inputs import local_files; "
            "duckdb_tables(table=sys.argv[2]) if sys.argv[1] == 'table' else "
            "duckdb_tables(json_files=local_files(sys.argv[2]))")
    return timed([sys.executable, "-c", code, "table" if table else "json", str(table or fleet)])


def _ratio(a: dict[str, float] | None, b: dict[str, float] | None) -> tuple[float, float] | None:
    """(wall ratio, CPU ratio) of two runs, a / b."""
    if not a or not b:
        return None
    return a["wall_s"] / b["wall_s"], a["cpu_s"] / b["cpu_s"]


def summary_md(r: dict[str, Any]) -> str:
    size, small = r.get("size"), r.get("small")
    rows = ["| measurement | input | wall time | CPU time | CPU per report | load at start | target | verdict |",
            "|---|---|---|---|---|---|---|---|"]

    def row(label: str, reports: int, run: dict[str, float] | None, target: str = "", verdict: str = "") -> None:
        if run:
            rows.append(f"| {label} | {reports:,} reports | {run['wall_s']} s | {run['cpu_s']} s | "
                        f"{run['cpu_s'] / reports * 1e6:,.0f} µs | {run.get('load_before', '')} | {target} | "
                        f"{verdict} |")

    def compare(label: str, ratio: tuple[float, float] | None, target: str, met: Callable[[float], bool],
                unit: str = "x", cpu_known: bool = True) -> None:
        if ratio:
            wall, cpu = ratio
            shown = (lambda v: f"{v:.0%}") if unit == "%" else (lambda v: f"{v:.2f}x")
            by_wall = f"{'met' if met(wall) else 'not met'} (by wall)"
            if not cpu_known:
                rows.append(f"| {label} | | {shown(wall)} | n/a | | | {target} | {by_wall} |")
                return
            rows.append(f"| {label} | | {shown(wall)} | {shown(cpu)} | | | {target} | "
                        f"{'met' if met(cpu) else 'not met'} (by CPU), {by_wall} |")

    big = r.get("big", {})
    row("analyze raw JSON, baseline code (today's analyze)", size, big.get("analyze_raw_baseline"))
    row("analyze raw JSON, this code", size, big.get("analyze_raw"))
    row("today's parse and classify (baseline code: read, parse, classify, write as Parquet)", size,
        big.get("parse_classify_baseline"))
    row("ingest --once, all reports (files -> table)", size, big.get("ingest_full"))
    compare("ingest's rate per core / today's parse and classify's",
            _ratio(big.get("parse_classify_baseline"), big.get("ingest_full")), ">= 1.5x", lambda v: v >= 1.5)
    row("analyze --table", size, big.get("analyze_table"))
    compare("today's analyze of the JSON / analyze --table (how many times faster)",
            _ratio(big.get("analyze_raw_baseline"), big.get("analyze_table")), ">= 6x", lambda v: v >= 6)
    row("ingest --once, 5 % new reports", size // 20, big.get("ingest_incremental"))
    compare("incremental / full ingest", _ratio(big.get("ingest_incremental"), big.get("ingest_full")), "<= 10 %",
            lambda v: v <= 0.10, unit="%")
    nothing = big.get("ingest_nothing_new")
    if nothing:
        rows.append(f"| ingest --once, nothing new (a run's fixed cost) | 0 reports | {nothing['wall_s']} s | "
                    f"{nothing['cpu_s']} s | | {nothing.get('load_before', '')} | | |")
    row("DuckDB, six tables, raw JSON (2 threads)", size, big.get("duckdb_json"))
    row("DuckDB, six tables, the table's Parquet (2 threads)", size, big.get("duckdb_table"))
    compare("analyze --table / DuckDB on the same Parquet", _ratio(big.get("analyze_table"), big.get("duckdb_table")),
            "within 3x", lambda v: v <= 3)
    row("plain Python reference, six tables", (big.get("python") or {}).get("reports", size), big.get("python"))
    little = r.get("small_runs", {})
    for name, label in (("analyze_raw", "analyze raw JSON, whole process"),
                        ("analyze_table", "analyze --table, whole process")):
        run = little.get(name)
        if run:
            row(label, small, run, "<= 15 s wall", "met" if run["wall_s"] <= 15 else "not met")
    cluster = r.get("standalone", {})
    row("analyze raw JSON, local[2]", cluster.get("reports", 0) or 1, cluster.get("local2"))
    row("analyze raw JSON, standalone master + 1 worker x 2 cores (CPU: the driver's and the executor's)",
        cluster.get("reports", 0) or 1, cluster.get("standalone"))
    compare("standalone / local[2]", _ratio(cluster.get("standalone"), cluster.get("local2")), "<= 1.5x",
            lambda v: v <= 1.5)
    load = r.get("load_average_at_start")
    text = "\n".join(rows) + "\n"
    if load:
        text += (f"\nLoad average at the start: {load[0]:.1f}, at the end: {r.get('load_average_at_end', [0])[0]:.1f}, "
                 f"on {r.get('cores')} cores shared with other work. Wall time is that of a whole process on this "
                 "busy machine; CPU time (the process tree's user + system, from /proc) moves far less with the "
                 "load, so the verdicts are given by CPU first.\n")
    return text


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.name.endswith(".crc"))


SIDECARS = (100, 1_000, 10_000, 100_000)
INTERVAL_S = 30
ANALYZE_CORES = 16


def capacity_md(r: dict[str, Any]) -> str:
    """What N sidecars (one report each every 30 s) need, from this run's per-core rates."""
    big, size, cores = r["big"], r["size"], r.get("cores") or 2
    ingest_rate = size / big["ingest_full"]["cpu_s"]  # reports per CPU second, whole process
    analyze_rate = size / big["analyze_table"]["cpu_s"]
    json_bytes, table_bytes = r["json_bytes_per_report"], r["table_bytes_per_report"]
    lines = [f"Per-core rates measured here (reports per CPU second of the whole process tree, {size:,} reports, on "
             f"{cores} shared cores): ingest "
             f"{ingest_rate:,.0f} reports/s/core, analyze --table {analyze_rate:,.0f} reports/s/core; a report is "
             f"{json_bytes / 1024:.1f} KiB of JSON and {table_bytes / 1024:.2f} KiB in the table (Parquet, snappy, "
             "with the report's JSON kept for drill-down). The rates include Spark's start-up and are those of a "
             "busy 2-core machine; a cluster's cores are usually faster and the per-core rate of a larger run "
             "is higher (start-up amortised), so read these as upper bounds on the cores needed.", "",
             f"| sidecars (1 report / {INTERVAL_S} s) | reports/s | reports/day | JSON GB/day | table GB/day | "
             f"ingest cores (continuous, 2x headroom) | analyze 30 days: reports | analyze 30 days on "
             f"{ANALYZE_CORES} cores | core-hours |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for sidecars in SIDECARS:
        per_s = sidecars / INTERVAL_S
        per_day = per_s * 86_400
        month = per_day * 30
        ingest_cores = max(1, -(-2 * per_s // ingest_rate))
        seconds = month / analyze_rate / ANALYZE_CORES
        lines.append(f"| {sidecars:,} | {per_s:,.1f} | {per_day:,.0f} | {per_day * json_bytes / 1e9:,.1f} | "
                     f"{per_day * table_bytes / 1e9:,.1f} | {int(ingest_cores)} | {month:,.0f} | "
                     f"{_duration(seconds)} | {month / analyze_rate / 3600:,.1f} |")
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


STEPS = ("baseline", "parse", "raw", "ingest", "table", "duckdb", "duckdb-table", "python", "incremental", "nothing-new", "small",
         "standalone")
"""The measurements, in the order a full run takes them; ``--only`` runs some of them into the existing
results (``incremental`` and ``nothing-new`` start from the table as ``ingest`` left it, a copy kept in
the work directory, so each can be re-run alone)."""


def _keep_table(table: Path, kept: Path) -> None:
    """A copy of the table as the full ingest left it: its Parquet files hard-linked (never rewritten
    in place: compaction writes new files and deletes the old), the checkpoint and description copied."""
    shutil.rmtree(kept, ignore_errors=True)
    shutil.copytree(table, kept, copy_function=os.link, ignore=shutil.ignore_patterns("_checkpoint", "_kdiag_table.json"))
    shutil.copytree(table / "_checkpoint", kept / "_checkpoint")
    shutil.copy2(table / "_kdiag_table.json", kept / "_kdiag_table.json")


def _restore_table(kept: Path, table: Path) -> None:
    shutil.rmtree(table, ignore_errors=True)
    _keep_table(kept, table)


def _unlink_new(source: Path) -> None:
    for path in (source / "reports").glob("day2-*"):
        path.unlink()


def run_steps(args: argparse.Namespace, steps: list[str], r: dict[str, Any], save: Callable[[], None]) -> None:
    work, size = args.workdir, args.size
    fleet = fleet_input(work, size)
    big = r.setdefault("big", {})
    source, table, kept = work / "source", work / "table", work / "table-after-full-ingest"
    for step in steps:
        print(f"bench_fleet_table: {step} ({time.strftime('%H:%M:%S')})", file=sys.stderr, flush=True)
        if step == "baseline":
            if not args.baseline:
                raise SystemExit("--baseline DIR is needed for the baseline step")
            big["analyze_raw_baseline"] = analyze_raw(fleet, work / "out-baseline", pythonpath=args.baseline)
        elif step == "parse":
            if not args.baseline:
                raise SystemExit("--baseline DIR is needed for the parse step")
            big["parse_classify_baseline"] = parse_classify(fleet, work / "parsed-baseline", pythonpath=args.baseline)
            shutil.rmtree(work / "parsed-baseline", ignore_errors=True)
        elif step == "raw":
            big["analyze_raw"] = analyze_raw(fleet, work / "out-raw")
        elif step == "ingest":
            linked_source(fleet, source)
            shutil.rmtree(table, ignore_errors=True)
            big["ingest_full"] = ingest(source, table)
            r["json_bytes_per_report"] = round(sum(directory_bytes(fleet / d) for d in ("reports", "tickets")) / size)
            r["table_bytes_per_report"] = round(directory_bytes(table / "reports") / size)
            _keep_table(table, kept)
        elif step == "table":
            if kept.exists():  # the table as the full ingest left it (an incremental run may have added to it)
                _restore_table(kept, table)
            big["analyze_table"] = analyze_table(table, work / "out-table")
        elif step in ("duckdb", "duckdb-table"):
            r["duckdb_memory_limit"] = os.environ.get("KDIAG_BENCH_DUCKDB_MEMORY")
            if kept.exists():
                _restore_table(kept, table)
            big["duckdb_table"] = duckdb_six(table=table)
            if step == "duckdb":
                save()
                big["duckdb_json"] = duckdb_six(fleet=fleet)
        elif step == "python":  # its parsed reports are all in memory: ~30 KB each (4 M: far more than 23 GB)
            reports = args.python_size or size
            big["python"] = {**python_six(fleet_input(work, reports)), "reports": reports}
        elif step in ("incremental", "nothing-new"):
            _unlink_new(source)
            _restore_table(kept, table)
            if step == "nothing-new":  # the fixed cost of a run: the same sources, nothing new in them
                big["ingest_nothing_new"] = ingest(source, table)
                _restore_table(kept, table)
                continue
            new = fleet_input(work, size // 20, NEW_SEED)
            for path in (new / "reports").iterdir():
                os.link(path, source / "reports" / f"day2-{path.name}")
            big["ingest_incremental"] = ingest(source, table)
        elif step == "small":
            small = fleet_input(work, args.small)
            small_table = work / "table-small"
            shutil.rmtree(small_table, ignore_errors=True)
            ingest(linked_source(small, work / "source-small"), small_table)
            r["small_runs"] = {"analyze_raw": analyze_raw(small, work / "out-small"),
                               "analyze_table": analyze_table(small_table, work / "out-small-table")}
        elif step == "standalone":
            cluster_input = fleet_input(work, args.small)
            r["standalone"] = {"reports": args.small,
                               "local2": analyze_raw(cluster_input, work / "out-local2", master="local[2]")}
            shutil.rmtree(work / "standalone", ignore_errors=True)
            with StandaloneCluster.start(workers=1, cores=2, memory="2g", workdir=work / "standalone") as spark:
                workers = tuple(process.pid for process in spark.processes[1:])  # [0] is the master
                r["standalone"]["standalone"] = analyze_raw(cluster_input, work / "out-standalone", master=spark.url,
                                                            executors_of=workers)
        save()


def main() -> None:
    from bench.common import RESULTS

    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=200_000)
    parser.add_argument("--small", type=int, default=20_000)
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--workdir", type=Path, default=Path("/var/tmp/kdiag-fleet-table-bench"))
    parser.add_argument("--driver-memory", default="3g", help="KDIAG_SPARK_DRIVER_MEMORY of every Spark run")
    parser.add_argument("--duckdb-memory", default=None,
                        help="DuckDB's memory_limit (e.g. 8GB); it then spills into WORKDIR/duckdb-temp")
    parser.add_argument("--python-size", type=int, default=None,
                        help="the plain-Python reference's input, if not --size (it holds every report in memory)")
    parser.add_argument("--only", nargs="+", default=None, choices=STEPS,
                        help="run only these measurements, into the existing results of the same --size")
    parser.add_argument("--ingest-only", action="store_true", help="the same as --only incremental")
    parser.add_argument("--capacity", action="store_true",
                        help="only print the capacity table from bench/results/fleet_table.json")
    parser.add_argument("--skip", nargs="*", default=[], choices=STEPS)
    args = parser.parse_args()
    if args.capacity:
        print(capacity_md(json.loads((RESULTS / "fleet_table.json").read_text())))
        return
    DRIVER_MEMORY[0] = args.driver_memory
    if args.duckdb_memory:
        os.environ["KDIAG_BENCH_DUCKDB_MEMORY"] = args.duckdb_memory
        os.environ["KDIAG_BENCH_DUCKDB_TEMP"] = str(args.workdir / "duckdb-temp")
    args.workdir.mkdir(parents=True, exist_ok=True)
    only = ["incremental"] if args.ingest_only else args.only
    fresh: dict[str, Any] = {"size": args.size, "small": args.small, "cores": os.cpu_count(), "big": {},
                             "small_runs": {}, "driver_memory": args.driver_memory}
    r = fresh
    if only:
        previous = RESULTS / "fleet_table.json"
        kept = json.loads(previous.read_text()) if previous.exists() else {}
        if kept.get("size") == args.size:
            r = {**fresh, **{k: v for k, v in kept.items() if k not in ("benchmark", "measured_at", "machine")}}
    r.setdefault("load_average_at_start", os.getloadavg())

    start = json.loads(json.dumps(r))

    def save(partial: bool = True) -> None:
        """Writes what this process measured into the results as they are now: another process may be
        measuring other steps of the same size at the same time (CPU time is the verdict's measure)."""
        import fcntl

        with open(args.workdir / "results.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            path = RESULTS / "fleet_table.json"
            current = json.loads(path.read_text()) if path.exists() else {}
            if current.get("size") != args.size:
                current = {}
            for key, value in r.items():
                if key == "big":
                    current["big"] = {**current.get("big", {}),
                                      **{k: v for k, v in value.items() if start.get("big", {}).get(k) != v}}
                elif start.get(key) != value or key not in current:
                    current[key] = value
            _write(current, partial)

    def _write(current: dict[str, Any], partial: bool) -> None:
        current = {k: v for k, v in current.items() if k not in ("benchmark", "measured_at", "machine")}
        complete = {k: v for k, v in current.items() if k not in ("summary_md", "capacity_md", "partial", "title")}
        if complete.get("big", {}).get("ingest_full") and complete["big"].get("analyze_table"):
            complete["capacity_md"] = capacity_md(complete)
        write_results("fleet_table", {**complete, "partial": partial, "title": TITLE,
                                      "summary_md": summary_md(complete)})

    run_steps(args, only or [step for step in STEPS if step not in args.skip], r, save)
    r["load_average_at_end"] = os.getloadavg()
    save(partial=False)
    print(summary_md(r))
    if r.get("big", {}).get("ingest_full") and r["big"].get("analyze_table"):
        print(capacity_md(r))


if __name__ == "__main__":
    main()
