"""The fleet's tables in Spark, from the accepted reports (``REPORT_COLUMNS`` of ``kdiag.fleet.job``):
built-in functions and window functions only (no Python UDF); nothing is collected to the driver but
the rejected samples, which are scrubbed of secrets in Python. Spark is imported inside the functions."""

from __future__ import annotations

from typing import Any

from kdiag.fleet.tables import SAMPLES, STALE_INTERVALS, TABLES

ENDPOINT = "CASE WHEN {h} LIKE '%:%' THEN concat('[', {h}, ']:', {p}) ELSE concat({h}, ':', {p}) END"


# --- the tables ---------------------------------------------------------------------------------


def stream_frame(reports: Any) -> Any:
    """The reports, once each, in one windowed pass over each (cluster, vantage)'s reports in time
    order: each with its finding ids and the previous report's time, and the previous and next reports'
    finding ids and the next one's time. Every table is computed from this one frame (cached): the
    vantages' gaps and the episodes need no other sort, and the episodes' own window (per cluster x
    vantage x finding) runs on the same partitioning, without a shuffle.

    Copies of a report (a re-delivery, a ticket's attachment) share their key, cluster, vantage and
    time, so they sit next to each other in this order and all but the first are dropped here, in the
    same pass; ``unique_keys`` checks that this left one row per key, and ``reports_once`` falls back
    to de-duplicating by key first when it did not (one report_id on different reports)."""
    from pyspark.sql import functions as F

    stream = _stream_window()
    once = (reports.withColumn("prev_key", F.lag("key").over(stream))
            .where(F.col("prev_key").isNull() | (F.col("prev_key") != F.col("key"))).drop("prev_key"))
    return (once.withColumn("ids", F.expr("transform(findings, f -> f.id)"))
            .withColumn("prev_ts", F.lag("ts").over(stream))
            .withColumn("prev_ids", F.lag("ids").over(stream))
            .withColumn("next_ids", F.lead("ids").over(stream))
            .withColumn("next_ts", F.lead("ts").over(stream)))


def unique_keys(stream: Any) -> bool:
    """No key on two rows (a shuffle of the keys alone, far smaller than the reports')."""
    from pyspark.sql import functions as F

    return not stream.groupBy("key").count().where(F.col("count") > 1).limit(1).collect()


def reports_once(raw: Any) -> Any:
    """``stream_frame`` of the reports with their copies, cached: one row per key, exactly."""
    from pyspark import StorageLevel

    stream = stream_frame(raw).persist(StorageLevel.MEMORY_AND_DISK)
    if unique_keys(stream):
        return stream
    stream.unpersist()
    return stream_frame(raw.dropDuplicates(["key"])).persist(StorageLevel.MEMORY_AND_DISK)


def findings_table(reports: Any) -> Any:
    from pyspark.sql import functions as F

    latest = F.struct("ts", "key")
    cluster_ids = (reports.where(F.col("cluster_id").isNotNull()).groupBy("cluster")
                   .agg(F.max_by("cluster_id", latest).alias("cluster_id")))
    exploded = reports.select("cluster", "vantage", "ts", "key", F.explode("findings").alias("f"))
    table = exploded.groupBy("cluster", F.col("f.id").alias("finding_id")).agg(
        F.max_by("f.severity", latest).alias("severity"), F.count(F.lit(1)).alias("reports"),
        F.size(F.collect_set("vantage")).alias("vantages"), F.min("ts").alias("first_seen"),
        F.max("ts").alias("last_seen"), F.max_by("f.evidence", latest).alias("example"))
    return table.join(F.broadcast(cluster_ids), "cluster", "left").select(*TABLES["findings"])


def reachability_table(reports: Any) -> Any:
    from pyspark.sql import functions as F

    keys = ["cluster", "node_id", "endpoint", "vantage"]
    attempts = reports.select("cluster", "vantage", F.explode("brokers").alias("b")).select(
        "cluster", F.col("b.node_id").alias("node_id"), F.expr(ENDPOINT.format(h="b.host", p="b.port")).alias("endpoint"),
        "vantage",
        F.expr("""CASE WHEN coalesce(b.dns.status, 'missing') != 'ok' THEN coalesce(b.dns.status, 'missing')
                       WHEN coalesce(b.tcp.status, 'missing') != 'ok' THEN coalesce(b.tcp.status, 'missing')
                       WHEN coalesce(b.kafka.status, 'missing') != 'ok' THEN coalesce(b.kafka.status, 'missing')
                  END""").alias("failure"),
        F.expr("CASE WHEN b.tcp.status = 'ok' THEN coalesce(b.tcp.duration_ms, 0D) END").alias("connect_ms"))
    totals = attempts.groupBy(*keys).agg(
        F.count(F.lit(1)).alias("attempts"), F.count_if(F.col("failure").isNull()).alias("successes"),
        F.expr("percentile(connect_ms, array(0.5D, 0.95D))").alias("connect"))
    dominant = (attempts.where(F.col("failure").isNotNull()).groupBy(*keys, "failure").count()
                .groupBy(*keys).agg(F.expr("min_by(failure, struct(-count, failure))").alias("dominant_failure")))
    return (totals.join(dominant, keys, "left").select(
        *keys, "attempts", "successes", (F.col("successes") / F.col("attempts")).alias("success_rate"),
        F.col("connect")[0].alias("connect_p50_ms"), F.col("connect")[1].alias("connect_p95_ms"), "dominant_failure"))


def stage_latency_table(reports: Any) -> Any:
    from pyspark.sql import functions as F

    return (reports.select("cluster", F.explode("stages").alias("s")).where(F.col("s.status") == "ok")
            .groupBy("cluster", F.col("s.name").alias("stage"))
            .agg(F.count(F.lit(1)).alias("runs"),
                 F.expr("percentile(s.duration_ms, array(0.5D, 0.95D, 0.99D))").alias("p"))
            .select("cluster", "stage", "runs", F.col("p")[0].alias("p50_ms"), F.col("p")[1].alias("p95_ms"),
                    F.col("p")[2].alias("p99_ms")))


def _stream_window() -> Any:
    from pyspark.sql import Window

    return Window.partitionBy("cluster", "vantage").orderBy("ts", "key")


def vantages_table(stream: Any) -> Any:
    """From ``stream_frame``: a vantage's gaps are those between consecutive reports of each cluster."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    gaps = stream.select("vantage", "ts", ((F.unix_micros("ts") - F.unix_micros("prev_ts")) / F.lit(1e6)).alias("gap"))
    table = gaps.groupBy("vantage").agg(
        F.count(F.lit(1)).alias("reports"), F.min("ts").alias("first_seen"), F.max("ts").alias("last_seen"),
        F.expr("percentile(gap, 0.5D)").alias("interval_s"))
    newest = F.max("last_seen").over(Window.partitionBy())  # one window over the small table: a row per vantage
    stale = F.expr(f"interval_s IS NOT NULL AND (unix_micros(newest) - unix_micros(last_seen)) / 1e6D "
                   f"> {STALE_INTERVALS} * interval_s")
    return table.withColumn("newest", newest).select(*TABLES["vantages"][:-1], stale.alias("stale"))


def episodes_frame(stream: Any) -> Any:
    """From ``stream_frame``, per cluster x vantage x finding, gaps and islands: an episode starts at a
    report carrying the finding whose previous report (of that vantage and cluster) did not, and
    closes at its last report carrying it; it ends at the next report (``end``; null while ongoing,
    when no report follows). One row per episode, at its closing report, with the running start."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    running = (Window.partitionBy("cluster", "vantage", "finding_id").orderBy("ts", "key")
               .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    ordered = Window.partitionBy("cluster", "vantage", "finding_id").orderBy("ts", "key")
    marked = (stream.select("cluster", "vantage", "ts", "key", "prev_ids", "next_ids", "next_ts",
                            F.explode("ids").alias("finding_id"))
              .withColumn("is_start", F.expr("NOT coalesce(array_contains(prev_ids, finding_id), false)"))
              .withColumn("closes", F.expr("NOT coalesce(array_contains(next_ids, finding_id), false)"))
              .withColumn("n", F.row_number().over(ordered)))
    started = (marked.withColumn("start", F.last(F.when(F.col("is_start"), F.col("ts")), ignorenulls=True).over(running))
               .withColumn("start_n", F.last(F.when(F.col("is_start"), F.col("n")), ignorenulls=True).over(running)))
    return started.where("closes").select(
        "cluster", "vantage", "finding_id", "start", F.col("next_ts").alias("end"),
        (F.col("n") - F.col("start_n") + 1).alias("reports"))


def incidents_table(stream: Any, *, min_vantages: int = 1) -> Any:
    """Unions of a cluster's overlapping or touching episodes of one finding, with how many vantages
    were affected at once at the peak; kept when that peak reached ``min_vantages``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    far = F.lit("9999-12-31 00:00:00").cast("timestamp")
    order = Window.partitionBy("cluster", "finding_id").orderBy("start", "vantage")
    before = order.rowsBetween(Window.unboundedPreceding, -1)
    upto = order.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    episodes = (episodes_frame(stream)
                .withColumn("reach", F.max(F.coalesce("end", far)).over(before))
                .withColumn("new", (F.col("reach").isNull() | (F.col("start") > F.col("reach"))).cast("int"))
                .withColumn("incident", F.sum("new").over(upto))).persist()
    keys = ["cluster", "finding_id", "incident"]
    events = (episodes.select(*keys, F.col("start").alias("at"), F.lit(1).alias("step"))
              .unionByName(episodes.where(F.col("end").isNotNull()).select(*keys, F.col("end").alias("at"),
                                                                            F.lit(-1).alias("step"))))
    sweep = Window.partitionBy(*keys).orderBy("at", "step").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    peaks = (events.withColumn("active", F.sum("step").over(sweep)).groupBy(*keys)
             .agg(F.max("active").alias("peak_vantages")))
    incidents = episodes.groupBy(*keys).agg(
        F.min("start").alias("onset"),
        F.expr("CASE WHEN count_if(end IS NULL) > 0 THEN NULL ELSE max(end) END").alias("resolved"),
        F.size(F.collect_set("vantage")).alias("vantages"), F.sum("reports").alias("reports"))
    return (incidents.join(peaks, keys).where(F.col("peak_vantages") >= min_vantages)
            .select(*TABLES["incidents"]))


def rejected_rows(bad: Any) -> list[dict[str, Any]]:
    """(source, reason, count, up to five samples) of the rejected records (source, reason, value):
    counted in Spark, the samples scrubbed here."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from kdiag.fleet.reference import scrub_sample

    counts = {(r["source"], r["reason"]): r["count"] for r in bad.groupBy("source", "reason").count().collect()}
    first = Window.partitionBy("source", "reason").orderBy("value")
    samples: dict[tuple[str, str], list[str]] = {}
    for row in (bad.withColumn("n", F.row_number().over(first)).where(F.col("n") <= SAMPLES)
                .orderBy("source", "reason", "n").collect()):
        samples.setdefault((row["source"], row["reason"]), []).append(scrub_sample(row["value"]))
    return [{"source": source, "reason": reason, "count": count, "sample": samples.get((source, reason), [])}
            for (source, reason), count in sorted(counts.items())]


def rejected_frame(spark: Any, rows: list[dict[str, Any]]) -> Any:
    from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

    schema = StructType([StructField("source", StringType()), StructField("reason", StringType()),
                         StructField("count", LongType()), StructField("sample", ArrayType(StringType()))])
    return spark.createDataFrame([(r["source"], r["reason"], r["count"], r["sample"]) for r in rows], schema)
