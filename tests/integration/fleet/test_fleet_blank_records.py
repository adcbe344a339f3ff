"""Blank records (only spaces, tabs and line ends) are dropped before classification by the job and
the ingest alike; the cheap test on a record's first character keeps exactly the records Spark's trim
with that set keeps, every edge included."""

from __future__ import annotations

import pytest

from kdiag.fleet.job import BLANK, AnalyzeOptions, not_blank, spark_session

pytestmark = pytest.mark.timeout(600)

RECORDS = ["", " ", "\t\r\n ", "\n", "\r", "{}", " {}", "\n{}\n", "\t{}", "x", "x ", "é", " é ", "\u00a0", None]


def test_not_blank_keeps_exactly_what_trimming_the_blank_characters_keeps(tmp_path) -> None:
    from pyspark.sql import functions as F

    spark = spark_session(AnalyzeOptions(inputs=(), out=str(tmp_path), master="local[1]"), kafka=False)
    frame = spark.createDataFrame([(r,) for r in RECORDS], "value string")
    kept = [row.value for row in frame.where(not_blank()).collect()]
    assert kept == [row.value for row in frame.where(F.trim("value", F.lit(BLANK)) != "").collect()]
    assert kept == ["{}", " {}", "\n{}\n", "\t{}", "x", "x ", "é", " é ", "\u00a0"]
