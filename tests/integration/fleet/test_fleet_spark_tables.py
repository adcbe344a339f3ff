"""The Spark tables' own paths, in one local Spark session in this process: copies removed by key
exactly on both paths (the repeated keys broadcast, or every row shuffled by key when they are many),
and the percentiles computed from sorted values equal to Spark's ``percentile``."""

from __future__ import annotations

import datetime as _dt
import os
import random
from pathlib import Path
from typing import Any

import pytest

from kdiag.fleet import spark_tables
from kdiag.fleet.job import REPORT_COLUMNS, AnalyzeOptions, analyze, spark_session
from tests.integration.fleet.support import differences, read_table

pytestmark = pytest.mark.timeout(1800)

T0 = _dt.datetime(2026, 11, 20, tzinfo=_dt.timezone.utc)
ROW = ("key string, ts timestamp, cluster string, cluster_id string, vantage string, "
       "findings array<struct<id:string,severity:string,evidence:string>>, "
       "brokers array<struct<node_id:bigint,host:string,port:bigint,dns:struct<status:string>,"
       "tcp:struct<status:string,duration_ms:double>,kafka:struct<status:string>>>, "
       "stages array<struct<name:string,status:string,duration_ms:double>>")


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Any:
    saved = dict(os.environ)  # the session's start-up settings stay out of the other tests' kdiag runs
    try:
        session = spark_session(AnalyzeOptions((), str(tmp_path_factory.mktemp("spark") / "out"), master="local[2]"),
                                kafka=False, small=True)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    session.conf.set("spark.sql.shuffle.partitions", "4")
    return session


def row(key: str, second: int, vantage: str, finding: str | None = None) -> tuple[Any, ...]:
    findings = [(finding, "error", "{}")] if finding else []
    return (key, T0 + _dt.timedelta(seconds=second), "k1:9092", "abc", vantage, findings, [],
            [("dns", "ok", float(second))])


def once(spark: Any, rows: list[tuple[Any, ...]]) -> list[tuple[str, str, int]]:
    """(key, vantage, second) of each row left by ``reports_once``, and its stream's rows the same."""
    from pyspark.sql import functions as F

    raw = spark.createDataFrame(rows, ROW).select(*REPORT_COLUMNS)
    result = spark_tables.reports_once(raw)
    try:
        second = F.unix_seconds("ts") - int(T0.timestamp())
        left = sorted((r["key"], r["vantage"], r["second"])
                      for r in result.reports.select("key", "vantage", second.alias("second")).collect())
        streamed = result.stream.select("vantage", second.alias("second")).collect()
        assert sorted((r["vantage"], r["second"]) for r in streamed) == sorted((v, s) for _, v, s in left)
    finally:
        result.unpersist()
    return left


COPIES = [row("a", 0, "v1", "X"), row("a", 0, "v1", "X"), row("b", 10, "v1"), row("c", 20, "v2", "X"),
          row("c", 20, "v2", "X"), row("c", 20, "v2", "X")]
REUSED = [row("same", 30, "v2"), row("same", 5, "v1"), row("d", 7, "v1")]  # one report_id, two reports


def test_without_copies_each_row_stays(spark: Any) -> None:
    rows = [row("a", 0, "v1"), row("b", 10, "v1"), row("c", 20, "v2", "X")]
    assert once(spark, rows) == [("a", "v1", 0), ("b", "v1", 10), ("c", "v2", 20)]


@pytest.mark.parametrize("broadcast", [True, False], ids=["repeated-keys-broadcast", "every-row-by-key"])
def test_copies_and_a_reused_report_id_count_once_on_both_paths(spark: Any, broadcast: bool,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if not broadcast:
        monkeypatch.setattr(spark_tables, "REPEATED_KEYS_BROADCAST", 0)
    assert once(spark, COPIES + REUSED) == [("a", "v1", 0), ("b", "v1", 10), ("c", "v2", 20), ("d", "v1", 7),
                                            ("same", "v1", 5)]  # the earliest of the reused id's reports


def test_the_general_path_gives_every_table_of_the_ground_truth(fleet: Path, truth: dict[str, Any], spark: Any,
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The generated fleet (re-deliveries and ticket copies) with every row shuffled by key."""
    monkeypatch.setattr(spark_tables, "REPEATED_KEYS_BROADCAST", 0)
    out = tmp_path / "out"
    analyze(AnalyzeOptions((str(fleet / "reports"), str(fleet / "tickets")), str(out), master="local[2]",
                           html=False))
    for name in truth["tables"]:
        assert differences(name, read_table(out, name), truth["tables"][name]) == []


def test_percentiles_from_sorted_values_equal_sparks_percentile(spark: Any) -> None:
    from pyspark.sql import functions as F

    draw = random.Random(5)
    rows = [("none", None)]  # a group with no value at all: null
    for group, size in (("one", 1), ("two", 2), ("same", 7), ("many", 501), ("ties", 40)):
        for _ in range(size):
            value = 3.25 if group == "same" else float(draw.randint(0, 9)) if group == "ties" else draw.uniform(0, 80)
            rows.append((group, value))
    rows += [("many", None), ("two", None)]
    frame = spark.createDataFrame(rows, "g string, ms double")
    fractions = (0.0, 0.5, 0.95, 0.99, 1.0)
    ours = frame.groupBy("g").agg(spark_tables.sorted_values("ms").alias("v")).select(
        "g", *[spark_tables.percentile("v", f).alias(f"p{i}") for i, f in enumerate(fractions)])
    theirs = frame.groupBy("g").agg(F.expr(f"percentile(ms, array({', '.join(f'{f}D' for f in fractions)}))")
                                    .alias("p"))
    expected = {r["g"]: r["p"] for r in theirs.collect()}
    for r in ours.collect():
        got = [r[f"p{i}"] for i in range(len(fractions))]
        assert got == (expected[r["g"]] or [None] * len(fractions)), r["g"]
