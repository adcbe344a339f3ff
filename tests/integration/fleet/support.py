"""Reading the fleet job's Parquet tables and comparing them with the generator's _truth.json."""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from kdiag.fleet.reference import classify_record, iso
from kdiag.fleet.tables import KEYS, TABLES

FLOAT_TOLERANCE = 1e-9


def read_table(out: Path, name: str) -> list[dict[str, Any]]:
    """A table's rows as the reference writes them: times as ISO strings (UTC, microseconds)."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    cursor = con.execute(f"SELECT * FROM read_parquet('{out / name}/*.parquet')")
    columns = [d[0] for d in cursor.description]
    rows = []
    for values in cursor.fetchall():
        row = {}
        for column, value in zip(columns, values):
            if isinstance(value, _dt.datetime):
                value = iso(value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc))
            row[column] = value
        rows.append(row)
    assert tuple(columns) == TABLES[name], f"{name} has columns {columns}"
    return rows


def read_tables(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {name: read_table(out, name) for name in TABLES}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=FLOAT_TOLERANCE, abs_tol=1e-9)
    return a == b


def keyed(name: str, rows: list[dict[str, Any]], *, source_suffix: bool = False) -> dict[tuple[Any, ...], dict]:
    out = {}
    for row in rows:
        row = dict(row)
        if name == "rejected" and source_suffix:  # the job's sources are file URIs; the truth's relative paths
            row["source"] = "/".join(row["source"].split("/")[-2:])
        if name == "findings":
            row["example"] = json.loads(row["example"]) if row["example"] is not None else None
        key = tuple(row[k] for k in KEYS[name])
        assert key not in out, f"{name}: two rows for {key}"
        out[key] = row
    return out


def differences(name: str, actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> list[str]:
    """What differs between the job's rows and the truth's, row by row (empty: equal)."""
    got = keyed(name, actual, source_suffix=True)
    want = keyed(name, expected, source_suffix=True)
    problems = [f"{name}: missing {k}" for k in want.keys() - got.keys()]
    problems += [f"{name}: unexpected {k}" for k in got.keys() - want.keys()]
    for key in want.keys() & got.keys():
        for column in TABLES[name]:
            if not _same(got[key][column], want[key][column]):
                problems.append(f"{name} {key} {column}: {got[key][column]!r} != {want[key][column]!r}")
    return problems


# --- the reports table (kdiag fleet ingest) --------------------------------------------------------


def expected_records(records: list[str]) -> tuple[Counter[str], int]:
    """(report_id -> how many records carry it, how many records are rejected)."""
    keys: Counter[str] = Counter()
    rejected = 0
    for text in records:
        reason, data = classify_record(text)
        if reason is None:
            assert data is not None
            keys[data["report_id"]] += 1
        else:
            rejected += 1
    return keys, rejected


def table_contents(table: Path) -> tuple[Counter[str], int, set[str]]:
    """(report_id -> rows in the reports table, rows in the rejected table, the days' batch directories)."""
    import duckdb

    con = duckdb.connect()
    keys = Counter({key: count for key, count in con.execute(
        f"SELECT key, count(*) FROM read_parquet('{table}/reports/**/*.parquet', hive_partitioning = false) "
        "GROUP BY key").fetchall()})
    files = list((table / "rejected").glob("**/*.parquet"))
    rejected = con.execute(f"SELECT count(*) FROM read_parquet('{table}/rejected/**/*.parquet')").fetchone()[0] \
        if files else 0
    batches = {f"{day.name}/{batch.name}" for day in (table / "reports").glob("day=*") for batch in day.iterdir()
               if not batch.name.startswith((".", "_"))}
    return keys, rejected, batches


def source_records(source: Path) -> list[str]:
    records = []
    for path in sorted(source.glob("**/*")):
        if path.name.endswith((".jsonl", ".jsonl.gz")):
            opener = gzip.open if path.name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as handle:
                records.extend(line for line in handle.read().split("\n") if line.strip())
        elif path.name.endswith(".json"):
            records.append(path.read_text(encoding="utf-8"))
    return records
