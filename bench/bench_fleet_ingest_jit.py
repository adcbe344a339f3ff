"""Which driver JVM an incremental ``kdiag fleet ingest --once`` should start: the C1-only, serial-GC JVM
(``SMALL_JVM_OPTIONS``) or the default (C2, the parallel collector), by the size of its new input.

Each run ingests N new report files (``kdiag fleet generate``, seed 12, linked into the watched directory
as ``day2-*``, as bench_fleet_table's ``incremental`` step does) into the table the full ingest of
bench_fleet_table left (its ``table-after-full-ingest`` copy in the same --workdir, restored before every
run), once with each JVM forced, whatever the threshold says; the pairs are interleaved (round 1 C1 then
C2, round 2 C2 then C1). Measured: the whole process tree's CPU time (user + system, from /proc: Python,
the JVM), the wall time and the load average at the start of each run (compare only runs at one load).

Run: ``python -m bench.bench_fleet_ingest_jit --workdir /var/tmp/kdiag-4m --size 4000000 --new 200000
500000 1000000`` after ``python -m bench.bench_fleet_table --size 4000000 --workdir /var/tmp/kdiag-4m
--only ingest``. Results: ``bench/results/fleet_ingest_jit.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench import bench_fleet_table as fleet_table
from bench.common import write_results

NAME = "fleet_ingest_jit"
TITLE = "kdiag fleet ingest --once: the C1-only JVM against C2, by the size of the new input"
FORCED = ("import os, sys; import kdiag.fleet.job as job; real = job.spark_session; c1 = sys.argv[1] == 'c1'; "
          "job.spark_session = lambda options, *, kafka, small=False: real(options, kafka=kafka, small=c1); "
          "from kdiag.cli import main; code = main(sys.argv[2:]); "
          "open(os.environ['KDIAG_BENCH_JVM_FILE'], 'w').write(os.environ.get('PYSPARK_SUBMIT_ARGS', '')); "
          "sys.exit(code)")
"""``kdiag ...`` with the ingest's driver JVM forced to C1-only (``c1``) or the default (``c2``); the
options the driver JVM was given are written to KDIAG_BENCH_JVM_FILE, kept with the figures."""


def forced_ingest(jvm: str, source: Path, table: Path, workdir: Path) -> dict[str, Any]:
    options = workdir / "jvm-options.txt"
    options.unlink(missing_ok=True)
    os.environ["KDIAG_BENCH_JVM_FILE"] = str(options)
    run: dict[str, Any] = fleet_table.timed([sys.executable, "-c", FORCED, jvm, "fleet", "ingest", str(source),
                                             "--table", str(table), "--once"])
    given = options.read_text() if options.exists() else ""
    run["c1_only"] = "TieredStopAtLevel=1" in given
    if run["c1_only"] != (jvm == "c1"):
        raise RuntimeError(f"asked for {jvm}, the driver JVM got: {given!r}")
    return run


def new_reports(workdir: Path, reports: int, source: Path) -> int:
    """Links ``reports`` new reports' files into the source (the previous run's gone); their bytes."""
    fleet_table._unlink_new(source)
    new = fleet_table.fleet_input(workdir, reports, fleet_table.NEW_SEED)
    total = 0
    for path in (new / "reports").iterdir():
        os.link(path, source / "reports" / f"day2-{path.name}")
        total += path.stat().st_size
    return total


def summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for reports in sorted({run["new_reports"] for run in runs}):
        mine = [run for run in runs if run["new_reports"] == reports]
        row: dict[str, Any] = {"new_reports": reports, "new_bytes": mine[0]["new_bytes"]}
        for jvm in ("c1", "c2"):
            cpu = [run["cpu_s"] for run in mine if run["jvm"] == jvm]
            wall = [run["wall_s"] for run in mine if run["jvm"] == jvm]
            loads = [run["load_before"] for run in mine if run["jvm"] == jvm]
            if cpu:
                row[jvm] = {"cpu_s": cpu, "mean_cpu_s": round(statistics.mean(cpu), 1), "wall_s": wall,
                            "mean_wall_s": round(statistics.mean(wall), 1), "load_before": loads}
        if "c1" in row and "c2" in row:
            row["c1_over_c2_cpu"] = round(row["c1"]["mean_cpu_s"] / row["c2"]["mean_cpu_s"], 3)
        rows.append(row)
    return rows


def summary_md(rows: list[dict[str, Any]]) -> str:
    lines = ["| new reports | new JSON | C1-only: CPU-s (each run) | C2: CPU-s (each run) | C1 / C2 by CPU | "
             "C1-only: wall s | C2: wall s | load at start (C1; C2) |", "|---:|---:|---|---|---:|---|---|---|"]
    for row in rows:
        c1, c2 = row.get("c1", {}), row.get("c2", {})
        lines.append(f"| {row['new_reports']:,} | {row['new_bytes'] / 1e9:.2f} GB | "
                     f"{c1.get('mean_cpu_s', '')} ({', '.join(map(str, c1.get('cpu_s', [])))}) | "
                     f"{c2.get('mean_cpu_s', '')} ({', '.join(map(str, c2.get('cpu_s', [])))}) | "
                     f"{row.get('c1_over_c2_cpu', '')} | {', '.join(map(str, c1.get('wall_s', [])))} | "
                     f"{', '.join(map(str, c2.get('wall_s', [])))} | "
                     f"{', '.join(map(str, c1.get('load_before', [])))}; "
                     f"{', '.join(map(str, c2.get('load_before', [])))} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    from bench.common import RESULTS

    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, default=Path("/var/tmp/kdiag-4m"))
    parser.add_argument("--size", type=int, default=4_000_000, help="the full ingest's reports (the table's)")
    parser.add_argument("--new", type=int, nargs="+", default=[200_000, 500_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--driver-memory", default="4g", help="KDIAG_SPARK_DRIVER_MEMORY of every run")
    parser.add_argument("--append", action="store_true", help="add to the runs already in the results")
    args = parser.parse_args()
    fleet_table.DRIVER_MEMORY[0] = args.driver_memory
    work = args.workdir
    source, table, kept = work / "source", work / "table", work / "table-after-full-ingest"
    if not kept.is_dir():
        raise SystemExit(f"{kept} is missing: run bench.bench_fleet_table --only ingest with this --workdir first")
    path = RESULTS / f"{NAME}.json"
    runs: list[dict[str, Any]] = []
    if args.append and path.exists():
        runs = json.loads(path.read_text()).get("runs", [])

    def save(partial: bool) -> None:
        rows = summary(runs)
        write_results(NAME, {"title": TITLE, "table_reports": args.size, "driver_memory": args.driver_memory,
                             "cores": os.cpu_count(), "partial": partial, "runs": runs, "summary": rows,
                             "summary_md": summary_md(rows)})

    for round_ in range(args.rounds):
        for reports in args.new:
            new_bytes = new_reports(work, reports, source)
            for jvm in ("c1", "c2") if round_ % 2 == 0 else ("c2", "c1"):
                fleet_table._restore_table(kept, table)
                print(f"bench_fleet_ingest_jit: round {round_ + 1}, {reports:,} new, {jvm} "
                      f"({time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
                run = forced_ingest(jvm, source, table, work)
                runs.append({"round": round_ + 1, "new_reports": reports, "new_bytes": new_bytes, "jvm": jvm, **run})
                print(f"  {run}", file=sys.stderr, flush=True)
                save(partial=True)
    fleet_table._unlink_new(source)
    fleet_table._restore_table(kept, table)
    save(partial=False)
    print(summary_md(summary(runs)))


if __name__ == "__main__":
    main()
