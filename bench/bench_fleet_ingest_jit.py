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
--only ingest``. Results: ``bench/results/fleet_ingest_jit.json``. ``--jvms c2-serial c2 --results
fleet_ingest_gc``: C2 with the serial collector against the default C2 (the collector's share of the
difference), into ``bench/results/fleet_ingest_gc.json``.
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
FORCED = ("import os, sys; import kdiag.fleet.job as job; real = job.spark_session; jvm = sys.argv[1]; "
          "job.SMALL_JVM_OPTIONS = '-XX:+UseSerialGC' if jvm == 'c2-serial' else job.SMALL_JVM_OPTIONS; "
          "job.spark_session = lambda options, *, kafka, small=False: real(options, kafka=kafka, small=jvm != 'c2'); "
          "from kdiag.cli import main; code = main(sys.argv[2:]); "
          "open(os.environ['KDIAG_BENCH_JVM_FILE'], 'w').write(os.environ.get('PYSPARK_SUBMIT_ARGS', '')); "
          "sys.exit(code)")
"""``kdiag ...`` with the ingest's driver JVM forced to C1-only (``c1``: SMALL_JVM_OPTIONS), the default
(``c2``) or C2 with the serial collector (``c2-serial``: the collector SMALL_JVM_OPTIONS also changes); the
options the driver JVM was given are written to KDIAG_BENCH_JVM_FILE and checked."""
JVMS = ("c1", "c2", "c2-serial")


def forced_ingest(jvm: str, source: Path, table: Path, workdir: Path) -> dict[str, Any]:
    options = workdir / "jvm-options.txt"
    options.unlink(missing_ok=True)
    os.environ["KDIAG_BENCH_JVM_FILE"] = str(options)
    run: dict[str, Any] = fleet_table.timed([sys.executable, "-c", FORCED, jvm, "fleet", "ingest", str(source),
                                             "--table", str(table), "--once"])
    given = options.read_text() if options.exists() else ""
    run["c1_only"] = "TieredStopAtLevel=1" in given
    run["serial_gc"] = "UseSerialGC" in given
    if run["c1_only"] != (jvm == "c1") or run["serial_gc"] != (jvm != "c2"):
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
        for jvm in JVMS:
            cpu = [run["cpu_s"] for run in mine if run["jvm"] == jvm]
            wall = [run["wall_s"] for run in mine if run["jvm"] == jvm]
            loads = [run["load_before"] for run in mine if run["jvm"] == jvm]
            if cpu:
                row[jvm] = {"cpu_s": cpu, "mean_cpu_s": round(statistics.mean(cpu), 1), "wall_s": wall,
                            "mean_wall_s": round(statistics.mean(wall), 1), "load_before": loads}
        for jvm in ("c1", "c2-serial"):
            if jvm in row and "c2" in row:
                row[f"{jvm.replace('-', '_')}_over_c2_cpu"] = round(row[jvm]["mean_cpu_s"] / row["c2"]["mean_cpu_s"], 3)
        rows.append(row)
    return rows


LABELS = {"c1": "C1-only", "c2": "C2", "c2-serial": "C2, serial GC"}


def summary_md(rows: list[dict[str, Any]]) -> str:
    jvms = [jvm for jvm in JVMS if any(jvm in row for row in rows)]

    def listed(run: dict[str, Any], key: str) -> str:
        return ", ".join(map(str, run.get(key, [])))

    against = [jvm for jvm in jvms if jvm != "c2" and "c2" in jvms]
    lines = ["| new reports | new JSON | " + " | ".join(f"{LABELS[j]}: CPU-s (each run)" for j in jvms) + " | "
             + "".join(f"{LABELS[j]} / C2 by CPU | " for j in against)
             + " | ".join(f"{LABELS[j]}: wall s" for j in jvms) + f" | load at start ({'; '.join(LABELS[j] for j in jvms)}) |",
             "|---:|---:|" + "---|" * len(jvms) + "---:|" * len(against) + "---|" * (len(jvms) + 1)]
    for row in rows:
        runs = [row.get(jvm, {}) for jvm in jvms]
        lines.append(f"| {row['new_reports']:,} | {row['new_bytes'] / 1e9:.2f} GB | "
                     + " | ".join(f"{run.get('mean_cpu_s', '')} ({listed(run, 'cpu_s')})" for run in runs) + " | "
                     + "".join(f"{row.get(j.replace('-', '_') + '_over_c2_cpu', '')} | " for j in against)
                     + " | ".join(listed(run, "wall_s") for run in runs) + " | "
                     + "; ".join(listed(run, "load_before") for run in runs) + " |")
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
    parser.add_argument("--jvms", nargs="+", default=["c1", "c2"], choices=JVMS)
    parser.add_argument("--results", default=NAME, help="the results' name (bench/results/NAME.json)")
    args = parser.parse_args()
    fleet_table.DRIVER_MEMORY[0] = args.driver_memory
    work = args.workdir
    source, table, kept = work / "source", work / "table", work / "table-after-full-ingest"
    if not kept.is_dir():
        raise SystemExit(f"{kept} is missing: run bench.bench_fleet_table --only ingest with this --workdir first")
    path = RESULTS / f"{args.results}.json"
    runs: list[dict[str, Any]] = []
    if args.append and path.exists():
        runs = json.loads(path.read_text()).get("runs", [])

    def save(partial: bool) -> None:
        rows = summary(runs)
        write_results(args.results, {"title": TITLE, "table_reports": args.size, "driver_memory": args.driver_memory,
                             "cores": os.cpu_count(), "partial": partial, "runs": runs, "summary": rows,
                             "summary_md": summary_md(rows)})

    for round_ in range(args.rounds):
        for reports in args.new:
            new_bytes = new_reports(work, reports, source)
            for jvm in args.jvms if round_ % 2 == 0 else args.jvms[::-1]:
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
