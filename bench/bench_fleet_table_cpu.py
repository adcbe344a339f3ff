"""``kdiag fleet analyze --table`` with two versions of the code, side by side on the same reports table:
whole process each (the CPU of the process tree, as bench_fleet_table measures it), the versions
alternated round after round so that both see the same load.

Run: ``python -m bench.bench_fleet_table_cpu --table DIR --before DIR --after DIR [--rounds 2]
[--force-large] [--results NAME]`` (``--before``/``--after``: directories holding a version's ``kdiag``
and ``probes`` packages, ``git archive COMMIT kdiag probes | tar -x -C DIR``; ``--force-large``: the
large input's JVM and settings whatever the table's size, as a 4 M table gets them; the runs are
appended to the results file ``bench/results/NAME.json`` under the table's report count).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.bench_fleet_table import DRIVER_MEMORY, timed
from bench.common import RESULTS, write_results


def analyze_table(code: Path, table: Path, out: Path, *, force_large: bool) -> dict[str, Any]:
    prelude = "import sys, kdiag.fleet.job as job; " + ("job.SMALL_INPUT_BYTES = 0; " if force_large else "")
    return timed([sys.executable, "-c", prelude + "sys.exit(job.main(sys.argv[1:]))", "--table", str(table),
                  "--out", str(out), "--overwrite", "--no-html"], pythonpath=code)


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per version: each run's CPU and wall seconds, and their means."""
    out: dict[str, Any] = {}
    for version in ("before", "after"):
        mine = [run for run in runs if run["version"] == version]
        if mine:
            out[version] = {"cpu_s": [run["cpu_s"] for run in mine], "wall_s": [run["wall_s"] for run in mine],
                            "load_before": [run["load_before"] for run in mine],
                            "mean_cpu_s": round(sum(run["cpu_s"] for run in mine) / len(mine), 1),
                            "mean_wall_s": round(sum(run["wall_s"] for run in mine) / len(mine), 1)}
    if "before" in out and "after" in out:
        out["after_over_before_cpu"] = round(out["after"]["mean_cpu_s"] / out["before"]["mean_cpu_s"], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--reports", type=int, required=True, help="the reports in the table (the results' key)")
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--force-large", action="store_true")
    parser.add_argument("--driver-memory", default="3g")
    parser.add_argument("--results", default="fleet_table_cpu")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    DRIVER_MEMORY[0] = args.driver_memory
    path = RESULTS / f"{args.results}.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results = {k: v for k, v in results.items() if k not in ("benchmark", "measured_at", "machine")}
    key = f"{args.reports}{'-forced-large' if args.force_large else ''}"
    entry = results.setdefault("sizes", {}).setdefault(key, {"runs": []})
    for round_ in range(args.rounds):
        for version, code in (("before", args.before), ("after", args.after)):
            run = analyze_table(code, args.table, args.table.parent / f"out-{version}", force_large=args.force_large)
            run.update(version=version, round=round_ + 1, driver_memory=args.driver_memory, note=args.note)
            print(json.dumps(run), file=sys.stderr, flush=True)
            entry["runs"].append(run)
            entry["summary"] = summary(entry["runs"])
            write_results(args.results, results)


if __name__ == "__main__":
    main()
