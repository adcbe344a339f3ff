"""Benchmarks of the fleet job (``kdiag.fleet.job``) on generated reports, each with references measured
in the same run on the same input:

  1. Spark local mode on N generated reports (default 1 M and 4 M): wall time, reports per second, the
     JVM's peak RSS (in local mode the driver and the executor are one JVM), 1 M -> 4 M time ratio;
  2. on the largest input, the ``findings`` and ``reachability`` tables computed by a plain
     single-process Python implementation (json + dicts, streaming, de-duplicating by report_id) and by
     DuckDB's ``read_json`` with the same explicit columns (2 threads), vs Spark's whole job;
  3. Spark standalone: a master and 1 worker vs 2 workers (1 core, 2 GB each) on the smallest input.

Run: ``python -m bench.bench_fleet [--sizes 1000000 4000000] [--workdir /var/tmp/kdiag-fleet-bench]``.
The generated inputs stay in --workdir (re-used when the same size and seed are asked again).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import write_results
from kdiag.fleet.generate import GenerateOptions, generate
from kdiag.fleet.reference import broker_failure, classify_record, endpoint_text, percentile, records
from kdiag.fleet.standalone import StandaloneCluster

PAGE = os.sysconf("SC_PAGE_SIZE")
CLUSTERS, VANTAGES, SEED = 20, 50, 11
TITLE = "kdiag fleet: the Spark job vs plain Python and DuckDB"


def descendants(pid: int) -> list[int]:
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    children.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return children + [d for c in children for d in descendants(c)]


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * PAGE
    except OSError:
        return 0


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class PeakMemory:
    """Samples, every 0.5 s, the RSS of the processes whose command line contains one of ``marks``."""

    def __init__(self, marks: dict[str, str], root: int | None = None) -> None:
        self.marks, self.root, self.peak = marks, root, {name: 0 for name in marks}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = descendants(self.root) if self.root else [int(p) for p in os.listdir("/proc") if p.isdigit()]
            for pid in pids:
                line = _cmdline(pid)
                for name, mark in self.marks.items():
                    if mark in line:
                        self.peak[name] = max(self.peak[name], _rss(pid))
            self._stop.wait(0.5)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def inputs(workdir: Path, size: int) -> Path:
    out = workdir / f"fleet-{size}-{SEED}"
    if not (out / "reports").is_dir():
        started = time.perf_counter()
        generate(GenerateOptions(reports=size, clusters=CLUSTERS, vantages=VANTAGES, out=out, seed=SEED, truth=False,
                                 overwrite=True))
        print(f"generated {size} reports in {time.perf_counter() - started:.0f} s", flush=True)
    return out


def input_bytes(fleet: Path) -> int:
    return sum(p.stat().st_size for d in ("reports", "tickets") for p in (fleet / d).iterdir())


def spark_job(fleet: Path, out: Path, master: str | None = None) -> dict[str, Any]:
    argv = [sys.executable, "-m", "kdiag.fleet.job", str(fleet / "reports"), str(fleet / "tickets"), "--out", str(out),
            "--overwrite", "--no-html"]
    if master:
        argv += ["--master", master]
    env = {**os.environ, "KDIAG_SPARK_DRIVER_MEMORY": "4g"}
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    marks = {"driver": "org.apache.spark.deploy.SparkSubmit"}
    with PeakMemory(marks, root=process.pid) as memory, PeakMemory(
            {"executor": "CoarseGrainedExecutorBackend"}) as executors:
        stdout, stderr = process.communicate(timeout=7200)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"the fleet job failed: {stderr.decode(errors='replace')[-3000:]}")
    peak = {"driver_peak_rss_mb": round(memory.peak["driver"] / 2**20)}
    if master:
        peak["executor_peak_rss_mb"] = round(executors.peak["executor"] / 2**20)
    return {"seconds": round(seconds, 1), **peak}


def python_reference(fleet: Path) -> dict[str, Any]:
    """findings and reachability in one process: json + dicts, streaming, de-duplicated by report_id."""
    started = time.perf_counter()
    seen: set[str] = set()
    findings: dict[tuple[str, str], dict[str, Any]] = {}
    reach: dict[tuple[str, Any, str, str], dict[str, Any]] = {}
    for _source, text in records([str(fleet / "reports"), str(fleet / "tickets")]):
        reason, data = classify_record(text)
        if data is None or data["report_id"] in seen:
            continue
        seen.add(data["report_id"])
        cluster = ",".join(endpoint_text(e.get("host"), e.get("port")) for e in data["bootstrap"])
        vantage = (data.get("vantage") or {}).get("label") or (data.get("vantage") or {}).get("hostname")
        at = data["generated_at"]
        for finding in {f["id"]: f for f in reversed(data.get("findings") or ())}.values():
            entry = findings.setdefault((cluster, finding["id"]), {"reports": 0, "vantages": set(), "first": at,
                                                                   "last": at, "latest": None})
            entry["reports"] += 1
            entry["vantages"].add(vantage)
            entry["first"], entry["last"] = min(entry["first"], at), max(entry["last"], at)
            if at >= entry["last"]:
                entry["latest"] = finding
        for broker in ((data.get("cluster") or {}).get("brokers") or ()):
            key = (cluster, broker.get("node_id"), endpoint_text(broker.get("host"), broker.get("port")), vantage)
            entry = reach.setdefault(key, {"attempts": 0, "failures": Counter(), "connect": []})
            entry["attempts"] += 1
            failure = broker_failure(broker)
            if failure:
                entry["failures"][failure] += 1
            if (broker.get("tcp") or {}).get("status") == "ok":
                entry["connect"].append(broker["tcp"].get("duration_ms") or 0.0)
    table = [(k, e["attempts"], percentile(e["connect"], 0.5), percentile(e["connect"], 0.95),
              e["failures"].most_common(1)) for k, e in reach.items()]
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 1), "reports": len(seen), "findings_rows": len(findings),
            "reachability_rows": len(table)}


DUCKDB_SQL = """
CREATE TEMP TABLE reports AS
SELECT * FROM (
  SELECT *, row_number() OVER (PARTITION BY report_id) AS copy
  FROM read_json({files}, format = 'newline_delimited', ignore_errors = true, maximum_object_size = 16777216,
                 columns = {{schema: 'VARCHAR', report_id: 'VARCHAR', generated_at: 'TIMESTAMPTZ',
                            vantage: 'STRUCT(hostname VARCHAR, label VARCHAR)',
                            bootstrap: 'STRUCT(host VARCHAR, port BIGINT)[]',
                            cluster: 'STRUCT(cluster_id VARCHAR, brokers STRUCT(node_id BIGINT, host VARCHAR, port BIGINT, dns STRUCT(status VARCHAR), tcp STRUCT(status VARCHAR, duration_ms DOUBLE), kafka STRUCT(status VARCHAR))[])',
                            findings: 'STRUCT(id VARCHAR, severity VARCHAR, evidence JSON)[]'}})
  WHERE schema = 'kdiag.report/1' AND generated_at IS NOT NULL AND len(bootstrap) > 0
) WHERE copy = 1;
CREATE TEMP TABLE base AS
SELECT report_id, generated_at AS ts, array_to_string(list_transform(bootstrap, lambda e: e.host || ':' || e.port), ',') AS cluster,
       coalesce(vantage.label, vantage.hostname) AS vantage, findings, cluster.brokers AS brokers FROM reports;
CREATE TEMP TABLE findings_t AS
SELECT cluster, f.id AS finding_id, arg_max(f.severity, ts) AS severity, count(*) AS reports,
       count(DISTINCT vantage) AS vantages, min(ts) AS first_seen, max(ts) AS last_seen,
       arg_max(f.evidence, ts) AS example
FROM (SELECT cluster, vantage, ts, unnest(list_distinct(findings)) AS f FROM base) GROUP BY ALL;
CREATE TEMP TABLE reach_t AS
WITH a AS (
  SELECT cluster, b.node_id AS node_id, b.host || ':' || b.port AS endpoint, vantage,
         CASE WHEN b.dns.status != 'ok' THEN b.dns.status WHEN b.tcp.status != 'ok' THEN b.tcp.status
              WHEN b.kafka.status != 'ok' THEN b.kafka.status END AS failure,
         CASE WHEN b.tcp.status = 'ok' THEN b.tcp.duration_ms END AS connect_ms
  FROM (SELECT cluster, vantage, unnest(brokers) AS b FROM base))
SELECT cluster, node_id, endpoint, vantage, count(*) AS attempts, count(*) FILTER (failure IS NULL) AS successes,
       quantile_cont(connect_ms, 0.5) AS p50, quantile_cont(connect_ms, 0.95) AS p95, mode(failure) AS dominant
FROM a GROUP BY ALL;
"""


def duckdb_reference(fleet: Path) -> dict[str, Any]:
    import duckdb

    files = sorted(str(p) for p in (fleet / "reports").iterdir())
    started = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET threads = 2; SET memory_limit = '8GB'; SET preserve_insertion_order = false")
    con.execute(DUCKDB_SQL.format(files=json.dumps(files).replace('"', "'")))
    rows = (con.execute("SELECT count(*) FROM findings_t").fetchone()[0],
            con.execute("SELECT count(*) FROM reach_t").fetchone()[0])
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 1), "findings_rows": rows[0], "reachability_rows": rows[1],
            "note": "line files only (the 3 ticket *.json copies are duplicates anyway)"}


def summary_md(results: dict[str, Any]) -> str:
    """The BENCHMARKS.md section: what was measured, side by side, and what was not."""
    lines = ["| measurement | input | wall time | throughput | peak memory |", "|---|---|---|---|---|"]
    for size, run in results.get("local", {}).items():
        lines.append(f"| Spark local[*], whole job (6 tables, Parquet) | {int(size):,} reports, {run['input_mb']:,} MB "
                     f"| {run['seconds']} s | {run['reports_per_second']:,} reports/s | driver JVM "
                     f"{run['driver_peak_rss_mb']} MB (= executor in local mode) |")
    refs = results.get("references", {})
    for name, label in (("python_findings_reachability", "plain Python (json + dicts), findings + reachability"),
                        ("duckdb_findings_reachability", "DuckDB read_json, findings + reachability (2 threads)")):
        if name in refs:
            run = refs[name]
            lines.append(f"| {label} | {refs['reports']:,} reports | {run['seconds']} s | "
                         f"{round(refs['reports'] / run['seconds']):,} reports/s | - |")
    for workers in (1, 2):
        run = results.get("standalone", {}).get(f"{workers}_workers")
        if run:
            size = results["standalone"]["reports"]
            lines.append(f"| Spark standalone, {workers} worker(s) x 1 core | {size:,} reports | {run['seconds']} s | "
                         f"{round(size / run['seconds']):,} reports/s | driver {run['driver_peak_rss_mb']} MB, "
                         f"executor {run.get('executor_peak_rss_mb', 0)} MB |")
    if "scaling" in results:
        sc = results["scaling"]
        lines.append(f"\n{sc['sizes'][0]:,} -> {sc['sizes'][1]:,} reports: {sc['time_ratio']}x the time "
                     f"(target within {sc['target_ratio']}x).")
    lines.append(verdict(results))
    load = results.get("load_average_at_start")
    if load:
        lines.append(f"\nLoad average when the run started: {load[0]:.1f} on {results.get('cores')} cores "
                     "(the machine is shared; absolute times move with it).")
    return "\n".join(lines) + "\n"


def verdict(results: dict[str, Any]) -> str:
    """Where Spark wins and where it loses, in words, from this run's figures."""
    refs, local = results.get("references", {}), results.get("local", {})
    python, duck = refs.get("python_findings_reachability"), refs.get("duckdb_findings_reachability")
    if not (python and duck and local):
        return ""
    spark = refs["spark_local_whole_job_seconds"]
    text = [f"\nOn {refs['reports']:,} reports on this 2-core machine, Spark's whole job (six tables, the incidents' "
            f"window functions, Parquet, de-duplication by report_id) takes {spark} s; DuckDB computes the two "
            f"simplest tables in {duck['seconds']} s ({spark / duck['seconds']:.1f}x less) and plain Python in "
            f"{python['seconds']} s ({spark / python['seconds']:.1f}x {'less' if python['seconds'] < spark else 'more'})."]
    if duck["seconds"] < spark:
        text.append(" **Where Spark loses:** on one small machine DuckDB is the faster engine for the same question: "
                    "one process, a vectorised JSON reader, no JVM start (a few seconds per run) and no shuffle "
                    "between stages; at this size a user with one machine and files should reach for it.")
    if python["seconds"] > spark:
        text.append(" Spark beats plain Python here: it parses JSON in the JVM with the schema given up front and "
                    "uses both cores, where Python's json module parses every field of every report on one.")
    text.append(" **Where Spark wins:** it runs the same job unchanged on a cluster when the reports outgrow one "
                "machine's memory and disk (the driver here peaks at the JVM heap it is given, whatever the "
                "input), reads Kafka, HDFS and S3 through its own sources, and is what a platform team that "
                "already runs Spark schedules; plain Python keeps every key in memory and uses one core.")
    standalone = results.get("standalone", {})
    one, two = standalone.get("1_workers"), standalone.get("2_workers")
    if one and two:
        text.append(f"\n\nStandalone, 1 vs 2 workers of 1 core each on {standalone['reports']:,} reports: "
                    f"{one['seconds']} s vs {two['seconds']} s ({one['seconds'] / two['seconds']:.2f}x). On this "
                    "2-core machine the master, the driver and the workers share the two cores, so a second worker "
                    "adds little; the job there moves its shuffles between JVMs and runs Spark's own 200 shuffle "
                    "partitions (the local-mode sizing does not apply under a cluster manager), so per report it is "
                    "slower than local mode here (not measured apart: which of the two costs more). "
                    "The test suite's standalone run checks the results equal local mode's, not its speed.")
    return "".join(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 4_000_000])
    parser.add_argument("--workdir", type=Path, default=Path("/var/tmp/kdiag-fleet-bench"))
    parser.add_argument("--standalone-size", type=int, default=None,
                        help="reports for the 1 vs 2 workers comparison (default: the smallest size)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["python", "duckdb", "standalone"])
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"clusters": CLUSTERS, "vantages": VANTAGES, "seed": SEED, "cores": os.cpu_count(),
                               "load_average_at_start": os.getloadavg(), "local": {}}
    for size in args.sizes:
        fleet = inputs(args.workdir, size)
        run = spark_job(fleet, args.workdir / f"out-{size}")
        run.update(reports=size, input_mb=round(input_bytes(fleet) / 2**20),
                   reports_per_second=round(size / run["seconds"]))
        results["local"][str(size)] = run
        print(f"spark local {size}: {run}", flush=True)
        write_results("fleet", {**results, "partial": True, "title": TITLE, "summary_md": summary_md(results)})
    if len(args.sizes) > 1:
        small, large = results["local"][str(min(args.sizes))], results["local"][str(max(args.sizes))]
        results["scaling"] = {"sizes": [min(args.sizes), max(args.sizes)],
                              "time_ratio": round(large["seconds"] / small["seconds"], 2),
                              "target_ratio": round(4.5 * max(args.sizes) / min(args.sizes) / 4, 2)}
    largest = inputs(args.workdir, max(args.sizes))
    results["references"] = {"reports": max(args.sizes),
                             "spark_local_whole_job_seconds": results["local"][str(max(args.sizes))]["seconds"]}
    if "python" not in args.skip:
        results["references"]["python_findings_reachability"] = python_reference(largest)
        print(f"python: {results['references']['python_findings_reachability']}", flush=True)
        write_results("fleet", {**results, "partial": True, "title": TITLE, "summary_md": summary_md(results)})
    if "duckdb" not in args.skip:
        results["references"]["duckdb_findings_reachability"] = duckdb_reference(largest)
        print(f"duckdb: {results['references']['duckdb_findings_reachability']}", flush=True)
        write_results("fleet", {**results, "partial": True, "title": TITLE, "summary_md": summary_md(results)})
    if "standalone" not in args.skip:
        size = args.standalone_size or min(args.sizes)
        smallest = inputs(args.workdir, size)
        results["standalone"] = {"reports": size}
        for workers in (1, 2):
            work = args.workdir / f"standalone-{workers}"
            shutil.rmtree(work, ignore_errors=True)
            with StandaloneCluster.start(workers=workers, cores=1, memory="2g", workdir=work) as cluster:
                run = spark_job(smallest, args.workdir / f"out-standalone-{workers}", master=cluster.url)
            results["standalone"][f"{workers}_workers"] = run
            print(f"standalone {workers} workers: {run}", flush=True)
            write_results("fleet", {**results, "partial": True, "title": TITLE, "summary_md": summary_md(results)})
    results["load_average_at_end"] = os.getloadavg()
    write_results("fleet", {**results, "title": TITLE, "summary_md": summary_md(results)})


if __name__ == "__main__":
    main()
