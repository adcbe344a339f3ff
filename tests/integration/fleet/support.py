"""Reading the fleet job's Parquet tables and comparing them with the generator's _truth.json."""

from __future__ import annotations

import datetime as _dt
import json
import math
from pathlib import Path
from typing import Any

from kdiag.fleet.reference import iso
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
