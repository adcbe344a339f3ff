"""The fleet's tables in Spark, from the accepted reports (``REPORT_COLUMNS`` of ``kdiag.fleet.job``):
built-in functions and window functions only (no Python UDF); nothing is collected to the driver but
the rejected samples, which are scrubbed of secrets in Python. Spark is imported inside the functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kdiag.fleet.tables import SAMPLES, STALE_INTERVALS, TABLES

ENDPOINT = "CASE WHEN {h} LIKE '%:%' THEN concat('[', {h}, ']:', {p}) ELSE concat({h}, ':', {p}) END"


# --- the tables ---------------------------------------------------------------------------------


REPEATED_KEYS_BROADCAST = 1_000_000
"""At most this many keys on more than one row: the rows of those keys are de-duplicated on their own
(their keys broadcast to every task); more, and every row goes through one shuffle by key."""


@dataclass(frozen=True)
class Once:
    """The accepted reports with their copies removed (``reports``: one row per key, exactly; not
    cached, but for the first rows of repeated keys: each table's plan reads only the columns it
    needs), the ``stream`` of ``stream_frame`` (cached), and the cached frames to release at the end."""

    reports: Any
    stream: Any
    cached: tuple[Any, ...]

    def unpersist(self) -> None:
        for frame in self.cached:
            frame.unpersist()


def repeated_keys(raw: Any) -> Any:
    """The 64-bit hashes of the keys on more than one row (``key_hash``), cached: an aggregation of
    hashes alone, of fixed width (Spark's fast hash map and a shuffle of 8 bytes a report, never of the
    reports' arrays). Two keys that share a hash only send their rows through the exact path too."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    return (raw.select(F.xxhash64("key").alias("key_hash")).groupBy("key_hash").agg(F.count(F.lit(1)).alias("rows"))
            .where(F.col("rows") > 1).select("key_hash").persist(StorageLevel.MEMORY_AND_DISK))


def without_copies(raw: Any, repeated: Any, count: int) -> tuple[Any, tuple[Any, ...]]:
    """``raw`` one row per key, and the frames cached for it: the rows whose key's hash is not
    ``repeated`` as they are; of the rest, per key, the first by (time, cluster, vantage): copies of a
    report are equal, and one report_id on two different reports (a sidecar's bug) counts once, as the
    reference counts it. Those first rows are chosen once and cached (a row per repeated key), so a
    table's plan reads the reports once, not a second time for the rows of repeated keys, and runs
    no window of its own (profiled: those second scans were an eighth of the tables' executor CPU).
    No repeated hash: ``raw`` itself; more than REPEATED_KEYS_BROADCAST: every row shuffled by key."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    first = Window.partitionBy("key").orderBy("ts", "cluster", "vantage")
    if count == 0:
        return raw, ()
    if count > REPEATED_KEYS_BROADCAST:
        return raw.withColumn("copy", F.row_number().over(first)).where(F.col("copy") == 1).drop("copy"), ()
    hashes = F.broadcast(repeated)
    tagged = raw.withColumn("key_hash", F.xxhash64("key"))
    single = tagged.join(hashes, "key_hash", "left_anti").drop("key_hash")
    firsts = (tagged.join(hashes, "key_hash", "left_semi").drop("key_hash")
              .withColumn("copy", F.row_number().over(first)).where(F.col("copy") == 1).drop("copy")
              .persist(StorageLevel.MEMORY_AND_DISK))
    return single.unionByName(firsts), (firsts,)


def stream_frame(reports: Any) -> Any:
    """The reports (once each) as narrow rows in one windowed pass over each (cluster, vantage)'s reports
    in time order: (cluster, vantage, ts), the report's rank in that order (``seq``), the previous
    report's time, the next report's time, and the report's episode ``edges``: each finding that starts
    an episode here (the previous report did not carry it) or closes one (the next report does not),
    as (finding_id, is_start, closes); on the pair's first row, its newest report that carries a
    cluster id, as (ts, key, cluster_id) (``newest_id``: the findings table's cluster ids, without a
    scan and a sort of every report of their own). The vantages' gaps, the episodes and the cluster
    ids are computed from it (cached): only the edges, not every finding of every report, are
    exploded, shuffled and sorted for the episodes, and the cache holds no keys or arrays of ids.
    Only these narrow columns are sorted and shuffled, never the brokers, stages or evidence. The
    pair's 64-bit hash (``slot``) leads the partitioning and the sort: the sort compares a number where
    cluster names share long prefixes."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    stream = _stream_window()
    narrow = reports.select(F.xxhash64("cluster", "vantage").alias("slot"), "cluster", "vantage", "ts", "key",
                            "cluster_id", F.col("findings.id").alias("ids"))
    whole = stream.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    newest_id = F.last(F.when(F.col("cluster_id").isNotNull(), F.struct("ts", "key", "cluster_id")),
                       ignorenulls=True).over(whole)
    windowed = (narrow.withColumn("seq", F.row_number().over(stream))
                .withColumn("newest_id", F.when(F.col("seq") == 1, newest_id))
                .withColumn("prev_ts", F.lag("ts").over(stream))
                .withColumn("prev_ids", F.lag("ids").over(stream))
                .withColumn("next_ids", F.lead("ids").over(stream))
                .withColumn("next_ts", F.lead("ts").over(stream)))
    edges = F.expr("filter(transform(ids, f -> named_struct("
                   "'finding_id', f, 'is_start', NOT coalesce(array_contains(prev_ids, f), false), "
                   "'closes', NOT coalesce(array_contains(next_ids, f), false))), e -> e.is_start OR e.closes)")
    return windowed.select("slot", "cluster", "vantage", "ts", "seq", "prev_ts", "next_ts", edges.alias("edges"),
                           "newest_id")


def reports_once(raw: Any) -> Once:
    """The reports once each, exactly by key (``without_copies``), and their ``stream_frame``, cached."""
    from pyspark import StorageLevel

    repeated = repeated_keys(raw)
    reports, firsts = without_copies(raw, repeated, repeated.count())
    stream = stream_frame(reports).persist(StorageLevel.MEMORY_AND_DISK)
    return Once(reports, stream, (repeated, *firsts, stream))


def findings_table(reports: Any, stream: Any) -> Any:
    """Per cluster and finding, from the reports; each cluster's id, that of its newest report that
    carries one, from ``stream_frame``'s ``newest_id`` (a row per cluster and vantage)."""
    from pyspark.sql import functions as F

    latest = F.struct("ts", "key")
    cluster_ids = (stream.where(F.col("newest_id").isNotNull()).groupBy("cluster")
                   .agg(F.max_by("newest_id.cluster_id", F.struct("newest_id.ts", "newest_id.key")).alias("cluster_id")))
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
    # one pass: per key and failure, the attempts and their connect times; per key, the totals and the
    # dominant failure from those few rows (the reports are read and exploded once, not once per aggregate)
    by_failure = attempts.groupBy(*keys, "failure").agg(F.count(F.lit(1)).alias("n"),
                                                        F.collect_list(F.col("connect_ms").cast("double")).alias("ms"))
    return by_failure.groupBy(*keys).agg(
        F.sum("n").alias("attempts"), F.sum(F.when(F.col("failure").isNull(), F.col("n")).otherwise(0)).alias("successes"),
        F.sort_array(F.flatten(F.collect_list("ms"))).alias("connect"),
        F.expr("min_by(failure, CASE WHEN failure IS NOT NULL THEN struct(-n, failure) END)").alias("dominant_failure"),
    ).select(
        *keys, "attempts", "successes", (F.col("successes") / F.col("attempts")).alias("success_rate"),
        percentile("connect", 0.5).alias("connect_p50_ms"), percentile("connect", 0.95).alias("connect_p95_ms"),
        "dominant_failure")


def stage_latency_table(reports: Any) -> Any:
    from pyspark.sql import functions as F

    return (reports.select("cluster", F.explode("stages").alias("s")).where(F.col("s.status") == "ok")
            .groupBy("cluster", F.col("s.name").alias("stage"))
            .agg(F.count(F.lit(1)).alias("runs"), sorted_values("s.duration_ms").alias("ms"))
            .select("cluster", "stage", "runs", percentile("ms", 0.5).alias("p50_ms"),
                    percentile("ms", 0.95).alias("p95_ms"), percentile("ms", 0.99).alias("p99_ms")))


def sorted_values(column: str) -> Any:
    """An aggregate: the group's values of ``column`` as doubles, nulls left out, sorted (for
    ``percentile``). Gathered as arrays of doubles, combined map-side: measured 2.5x less CPU than
    Spark's ``percentile``, whose buffers are per-group hash maps of value counts."""
    from pyspark.sql import functions as F

    return F.sort_array(F.collect_list(F.col(column).cast("double")))


def percentile(values: str, fraction: float) -> Any:
    """The exact percentile of a ``sorted_values`` column, the figure of Spark's ``percentile``: linear
    interpolation between the closest ranks (none when the two ranks hold the same value); null for
    no values."""
    from pyspark.sql import functions as F

    position = f"(size({values}) - 1) * {fraction!r}D"
    low, high = f"{values}[CAST(floor({position}) AS INT)]", f"{values}[CAST(ceil({position}) AS INT)]"
    return F.expr(f"CASE WHEN size({values}) = 0 THEN CAST(NULL AS DOUBLE) "
                  f"WHEN floor({position}) = ceil({position}) OR {low} = {high} THEN {low} "
                  f"ELSE (ceil({position}) - {position}) * {low} + ({position} - floor({position})) * {high} END")


def _stream_window() -> Any:
    from pyspark.sql import Window

    return Window.partitionBy("slot", "cluster", "vantage").orderBy("ts", "key")


def vantages_table(stream: Any) -> Any:
    """From ``stream_frame``: a vantage's gaps are those between consecutive reports of each cluster."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    gaps = stream.select("vantage", "ts", ((F.unix_micros("ts") - F.unix_micros("prev_ts")) / F.lit(1e6)).alias("gap"))
    table = gaps.groupBy("vantage").agg(
        F.count(F.lit(1)).alias("reports"), F.min("ts").alias("first_seen"), F.max("ts").alias("last_seen"),
        sorted_values("gap").alias("gaps")).select("vantage", "reports", "first_seen", "last_seen",
                                                    percentile("gaps", 0.5).alias("interval_s"))
    newest = F.max("last_seen").over(Window.partitionBy())  # one window over the small table: a row per vantage
    stale = F.expr(f"interval_s IS NOT NULL AND (unix_micros(newest) - unix_micros(last_seen)) / 1e6D "
                   f"> {STALE_INTERVALS} * interval_s")
    return table.withColumn("newest", newest).select(*TABLES["vantages"][:-1], stale.alias("stale"))


def episodes_frame(stream: Any) -> Any:
    """From ``stream_frame``'s edges, per cluster x vantage x finding, gaps and islands: an episode starts
    at a report carrying the finding whose previous report (of that vantage and cluster) did not, and
    closes at its last report carrying it (the same report, or the finding's next edge, a start's
    next edge being its close); it ends at the next report (``end``; null while ongoing, when no report
    follows). One row per episode, at its closing report: its reports are the consecutive reports
    from its start to its close (``seq``)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    ordered = Window.partitionBy("slot", "cluster", "vantage", "finding_id").orderBy("seq")
    edges = stream.select("slot", "cluster", "vantage", "ts", "seq", "next_ts", F.explode("edges").alias("e")).select(
        "slot", "cluster", "vantage", "ts", "seq", "next_ts", "e.finding_id", "e.is_start", "e.closes")
    started = (edges.withColumn("start", F.when(F.col("is_start"), F.col("ts")).otherwise(F.lag("ts").over(ordered)))
               .withColumn("start_seq", F.when(F.col("is_start"), F.col("seq")).otherwise(F.lag("seq").over(ordered))))
    return started.where("closes").select(
        "cluster", "vantage", "finding_id", "start", F.col("next_ts").alias("end"),
        (F.col("seq") - F.col("start_seq") + 1).alias("reports"))


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

    first = Window.partitionBy("source", "reason").orderBy("value")
    counts: dict[tuple[str, str], int] = {}
    samples: dict[tuple[str, str], list[tuple[int, str]]] = {}
    # one job: each group's count beside its first rows (one shuffle, both windows on its sort)
    for row in (bad.withColumn("n", F.row_number().over(first))
                .withColumn("count", F.count(F.lit(1)).over(Window.partitionBy("source", "reason")))
                .where(F.col("n") <= SAMPLES).collect()):
        counts[(row["source"], row["reason"])] = row["count"]
        samples.setdefault((row["source"], row["reason"]), []).append((row["n"], scrub_sample(row["value"])))
    return [{"source": source, "reason": reason, "count": count,
             "sample": [value for _, value in sorted(samples[(source, reason)])]}
            for (source, reason), count in sorted(counts.items())]


def rejected_frame(spark: Any, rows: list[dict[str, Any]]) -> Any:
    from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

    schema = StructType([StructField("source", StringType()), StructField("reason", StringType()),
                         StructField("count", LongType()), StructField("sample", ArrayType(StringType()))])
    return spark.createDataFrame([(r["source"], r["reason"], r["count"], r["sample"]) for r in rows], schema)
