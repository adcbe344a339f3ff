"""The benchmark's DuckDB reference (bench/fleet_duckdb.py) computes all six tables with the job's
semantics: on generated reports its tables equal the plain-Python reference's truth, rejected lines
included (the same work, so the benchmark's comparison is fair)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.fleet_duckdb import duckdb_tables
from kdiag.fleet.generate import TRUTH, GenerateOptions, generate
from kdiag.fleet.inputs import local_files
from kdiag.fleet.tables import TABLES
from tests.integration.fleet.support import differences


def test_duckdb_on_the_raw_files_gives_every_table_of_the_truth(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    generate(GenerateOptions(reports=2500, clusters=6, vantages=6, out=out, seed=5))
    truth = json.loads((out / TRUTH).read_text())["tables"]
    tables = duckdb_tables(json_files=local_files(str(out)))
    for name in TABLES:
        assert differences(name, tables[name], truth[name]) == [], name
    assert sum(row["count"] for row in tables["rejected"]) == 6


def test_duckdb_and_the_reference_both_count_a_broker_step_without_a_status_as_missing(tmp_path: Path) -> None:
    from kdiag.fleet.reference import analyze_records
    from tests.unit.fleet.test_reference import report

    unfinished = {"node_id": 1, "host": "b1", "port": 9092, "dns": {"status": "ok"},
                  "tcp": {"status": "ok", "duration_ms": 2.0}}
    records = [report(0, "a", brokers=[unfinished]), report(1, "a", brokers=[{**unfinished, "kafka": {"status": "ok"}}])]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(text + "\n" for _source, text in records))
    [duck] = duckdb_tables(json_files=[str(path)])["reachability"]
    [python] = analyze_records(records)["reachability"]
    assert (duck["successes"], duck["dominant_failure"]) == (python["successes"], python["dominant_failure"]) == (
        1, "missing")
