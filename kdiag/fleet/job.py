"""The fleet job on Spark: reports in, the tables of ``kdiag.fleet.tables`` out, as Parquet under ``--out``.

Runs as it is under ``spark-submit`` (``spark-submit kdiag/fleet/job.py INPUT... --out DIR``), with
``python -m kdiag.fleet.job``, or from ``kdiag fleet analyze``; under ``spark-submit`` (``run_submitted``,
the ingest's boundary too) ``--kafka-credentials`` reads its sets from the driver's environment. Spark is imported here and in
``kdiag.fleet.spark_tables`` only.

One pass over the input: the text is read once (line files, whole ``*.json`` files, or a Kafka topic),
or the reports table ``kdiag fleet ingest`` wrote (``--table``: only the days asked for), parsed with an
explicit schema (``report_schema``: the fields the tables use; unknown fields are ignored), each
record classified (accepted, or rejected with a reason, counted and sampled). The tables are computed
in ``kdiag.fleet.spark_tables``: copies removed by key (``reports_once``: only the rows of repeated keys
are moved), the aggregations read the de-duplicated reports' columns, and one windowed pass over
narrow rows per (cluster, vantage) in time order (``stream_frame``, cached) serves the episodes,
incidents and vantages; the six tables' jobs run at once, with built-in functions and window functions
only (no Python UDF, nothing collected to the driver but the rejected samples, which are scrubbed of
secrets in Python, and the small tables the views draw).
Adaptive query execution sizes every shuffle, under any master; a small input's shuffles have one
partition per core from the start, planned once (``SMALL_SETTINGS``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kdiag.fleet.inputs import FileInputs, KafkaInput, KafkaLogin, classify, is_remote, with_logins
from kdiag.fleet.spark_tables import (ENDPOINT, findings_table, incidents_table, reachability_table, rejected_frame,
                                      rejected_rows, reports_once, stage_latency_table, vantages_table)
from kdiag.fleet.tables import KEYS, TABLES
from kdiag.report import SCHEMA

FLEET_SCHEMA = "kdiag.fleet/1"
"""The version of the Spark schema below and of the tables; it reads reports of ``kdiag.report/1``."""

_MASTER = re.compile(r"^(local(\[(\*|\d+)(,\d+)?\])?|spark://[^/\s]+|yarn|k8s://\S+)$")
KAFKA_JARS_ENV = "KDIAG_SPARK_KAFKA_JARS"
ADVISORY_PARTITION_BYTES = "64m"
ADAPTIVE = {
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.parallelismFirst": "false",
    "spark.sql.adaptive.advisoryPartitionSizeInBytes": ADVISORY_PARTITION_BYTES,
    "spark.sql.adaptive.skewJoin.enabled": "true",
}
"""Adaptive query execution under every master: each shuffle starts with ``shuffle_partitions`` and
is coalesced to partitions of about 64 MB once its map side has run (``parallelismFirst`` off: the
advisory size rules, not the core count), instead of Spark's fixed 200 (2 reports per task of a small
input on a cluster) or a count fitted to one machine."""


OBJECT_AGGREGATE_GROUPS = 65536
AGGREGATION = {"spark.sql.objectHashAggregate.sortBased.fallbackThreshold": str(OBJECT_AGGREGATE_GROUPS)}
"""The tables' percentiles gather each group's values (``spark_tables.sorted_values``) in Spark's object
hash aggregate, which by default falls back to sorting its input once a task holds 128 groups (the
reachability table has a group per cluster x broker x vantage: thousands); a task's groups together
hold at most its input's values, so up to 65,536 groups stay hashed (measured: the reachability
table's CPU 4.5 s -> 2.6 s at 200,000 reports)."""
SETTINGS = {**ADAPTIVE, **AGGREGATION}


def shuffle_partitions(input_splits: int, parallelism: int) -> int:
    """The shuffles' partitions before adaptive coalescing: enough for the input (one per input split:
    a few hundred thousand reports each) and for every core twice; AQE merges the small ones."""
    return max(2 * parallelism, input_splits)


class FleetError(Exception):
    """The job cannot run as asked (one line: bad input, no Java, an unreachable master)."""


@dataclass(frozen=True)
class AnalyzeOptions:
    inputs: tuple[str, ...]
    out: str
    master: str | None = None  # None: spark-submit's, else local[*]
    since: str | None = None
    until: str | None = None
    min_vantages: int = 1
    overwrite: bool = False
    verbose: bool = False
    html: bool = True
    shuffle_partitions: int | None = None
    table: str | None = None  # a reports table (kdiag fleet ingest) instead of, or beside, the inputs
    kafka_logins: tuple[tuple[str, KafkaLogin], ...] = field(default=(), repr=False)  # kafka://... -> its set


@dataclass
class AnalyzeResult:
    out: str
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


# --- the schema ---------------------------------------------------------------------------------


def report_schema() -> Any:
    """The fields of a ``kdiag.report/1`` report the tables read, typed; everything else is ignored.
    ``evidence`` is read as its JSON text; ``_corrupt_record`` catches what does not parse."""
    from pyspark.sql.types import (ArrayType, DoubleType, LongType, StringType, StructField, StructType)

    def struct(*fields: tuple[str, Any]) -> StructType:
        return StructType([StructField(name, kind) for name, kind in fields])

    status = struct(("status", StringType()))
    broker = struct(("node_id", LongType()), ("host", StringType()), ("port", LongType()), ("dns", status),
                    ("tcp", struct(("status", StringType()), ("duration_ms", DoubleType()))), ("kafka", status))
    return struct(
        ("schema", StringType()), ("report_id", StringType()), ("generated_at", StringType()),
        ("vantage", struct(("hostname", StringType()), ("label", StringType()))),
        ("bootstrap", ArrayType(struct(("host", StringType()), ("port", LongType())))),
        ("stages", ArrayType(struct(("name", StringType()), ("status", StringType()), ("duration_ms", DoubleType())))),
        ("cluster", struct(("cluster_id", StringType()), ("brokers", ArrayType(broker)))),
        ("findings", ArrayType(struct(("id", StringType()), ("severity", StringType()), ("evidence", StringType())))),
        ("_corrupt_record", StringType()),
    )


# --- the session --------------------------------------------------------------------------------


def check_master(master: str | None) -> None:
    """An unknown master URL, or a standalone master nobody answers at: FleetError."""
    if master is None:
        return
    if not _MASTER.match(master):
        raise FleetError(f"--master {master}: not a Spark master URL (local[N], spark://HOST:PORT, yarn, k8s://...)")
    if master.startswith("spark://"):
        for hostport in master[len("spark://"):].split(","):
            host, _, port = hostport.rpartition(":")
            try:
                socket.create_connection((host, int(port)), timeout=3).close()
                return
            except (OSError, ValueError):
                continue
        raise FleetError(f"--master {master}: no Spark master answers there")


def check_java() -> None:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return
    if shutil.which("java") is None:
        raise FleetError("no Java runtime: Spark needs Java 17 or later (apt-get install openjdk-17-jre-headless, "
                         "or set JAVA_HOME)")


def _loopback(master: str | None) -> bool:
    if master is None or master.startswith("local"):
        return True
    host = master[len("spark://"):].split(",")[0].rpartition(":")[0] if master.startswith("spark://") else ""
    return host in ("127.0.0.1", "localhost", "::1")


def kafka_jars() -> list[str]:
    """The pre-resolved jars of Spark's Kafka source (scripts/setup), if any, for this Spark version."""
    import pyspark

    root = os.environ.get(KAFKA_JARS_ENV) or os.path.expanduser(f"~/.cache/kdiag/spark-kafka/{pyspark.__version__}")
    if not os.path.isdir(root):
        return []
    own = {_artifact(name) for name in os.listdir(os.path.join(os.path.dirname(pyspark.__file__), "jars"))}
    return sorted(os.path.join(root, name) for name in os.listdir(root)  # Spark's own jars stay Spark's
                  if name.endswith(".jar") and _artifact(name) not in own)


def _artifact(jar: str) -> str:
    """``kafka-clients-3.9.0.jar`` -> ``kafka-clients``."""
    return re.sub(r"-\d[^-]*(-[A-Za-z0-9.]+)?\.jar$", "", jar)


def _quietly(start: Callable[[], Any]) -> Any:
    """Starts the JVM with its standard error (the JVM's and Spark's start-up chatter) in a temporary
    file; replayed on stderr only when the start fails."""
    import tempfile

    with tempfile.TemporaryFile(mode="w+b") as log:
        saved = os.dup(2)
        sys.stderr.flush()
        os.dup2(log.fileno(), 2)
        try:
            return start()
        except BaseException:
            os.dup2(saved, 2)
            log.seek(0)
            sys.stderr.write(log.read()[-4000:].decode("utf-8", "replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)


SMALL_INPUT_BYTES = 1 << 30
SMALL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""For a small input (under 1 GiB on local disk), the driver JVM compiles with C1 only and collects
with one thread: a run of a few thousand reports spends more CPU compiling than computing (measured:
31 instead of 51 CPU seconds for 2,000 reports); a large one keeps C2's faster code. ``kdiag fleet
ingest`` decides by its new files' bytes against its own threshold (ingest.SMALL_INGEST_BYTES)."""
SMALL_SETTINGS = {
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
}
"""A small input's analysis (not under spark-submit, whose settings rule): every shuffle has one
partition per core from the start, which is what adaptive coalescing to 64 MB partitions ends with at
this size, so the plans are made once instead of re-optimized after every stage (each stage its own
job); and the cached frames are kept uncompressed (compressing them hashes every value to choose an
encoding, for frames that are read a few times and dropped)."""


def small_input(files: FileInputs, table: str | None) -> bool:
    """The input is local and under SMALL_INPUT_BYTES (False when any part is remote: unknown)."""
    paths = [*files.lines, *files.whole]
    if any(is_remote(path) for path in paths) or (table is not None and is_remote(table)):
        return False
    total = sum(os.path.getsize(path) for path in paths if os.path.isfile(path))
    if table is not None:
        for root, _, names in os.walk(table.removeprefix("file://")):
            total += sum(os.path.getsize(os.path.join(root, name)) for name in names)
    return total < SMALL_INPUT_BYTES


def executor_settings(master: str) -> dict[str, str]:
    """A small input's executors on a cluster: JVMs of their own, as short-lived as the driver, tuned
    for start-up the same way (SMALL_JVM_OPTIONS); in local mode the executor is the driver's JVM."""
    return {} if master.startswith("local") else {"spark.executor.extraJavaOptions": SMALL_JVM_OPTIONS}


def submitted() -> bool:
    """Launched by spark-submit (``spark-submit kdiag/fleet/job.py``): its settings rule."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def driver_java_options(*, small: bool, directives: bool, verbose: bool) -> list[str]:
    """The driver JVM's options when kdiag starts it (not under spark-submit, whose JVM runs already):
    Spark's log quiet unless ``verbose``; a ``small`` input's start-up JVM (SMALL_JVM_OPTIONS), else
    the JIT's directives when asked (``jvm.DIRECTIVES``); Spark's classes mapped from an archive."""
    from kdiag.fleet.jvm import class_data_sharing, compiler_directives

    java = [] if verbose else [f"-Dlog4j2.configurationFile=file:{Path(__file__).with_name('log4j2-quiet.properties')}"]
    if small:
        java.append(SMALL_JVM_OPTIONS)
    elif directives:
        java += compiler_directives()
    return java + class_data_sharing()


def spark_session(options: AnalyzeOptions, *, kafka: bool, small: bool = False, directives: bool = False) -> Any:
    """A session: spark-submit's when launched by it, else one on ``options.master`` (local[*] by
    default), bound to loopback when the driver and executors are on this machine; a ``small`` input's
    driver JVM, and a cluster's executor JVMs, tuned for start-up (SMALL_JVM_OPTIONS); a large one's
    driver JVM given the JIT's ``directives`` when asked (``jvm.DIRECTIVES``: analyze's, measured)."""
    import pyspark
    from pyspark.sql import SparkSession

    launched = submitted()
    master = options.master or (None if launched else "local[*]")
    builder = SparkSession.builder.appName("kdiag fleet")
    if master is not None:
        builder = builder.master(master)
    if not launched and _loopback(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    builder = (builder.config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "true" if options.verbose else "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.memory", os.environ.get("KDIAG_SPARK_DRIVER_MEMORY", "2g")))
    if not launched:  # under spark-submit, its --conf settings win (_adaptive fills in the ones not given)
        for key, value in SETTINGS.items():
            builder = builder.config(key, value)
    if options.shuffle_partitions:  # else sized by the input (_run) and coalesced adaptively
        builder = builder.config("spark.sql.shuffle.partitions", str(options.shuffle_partitions))
    if kafka:
        jars = kafka_jars()
        if jars:  # resolved by scripts/setup: no Maven Central at run time (the tests' sandbox has none)
            builder = builder.config("spark.jars", ",".join(jars))
        else:
            builder = builder.config("spark.jars.packages",
                                     f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark.__version__}")
    if small and not launched:
        for key, value in executor_settings(master).items():
            builder = builder.config(key, value)
    java = [] if launched else driver_java_options(small=small, directives=directives, verbose=options.verbose)
    if java:
        os.environ.setdefault("PYSPARK_SUBMIT_ARGS", f'--driver-java-options "{" ".join(java)}" pyspark-shell')
    if options.verbose or launched:
        spark = builder.getOrCreate()
    else:
        spark = _quietly(builder.getOrCreate)
    spark.sparkContext.setLogLevel("INFO" if options.verbose else "ERROR")
    if options.verbose:  # PySpark is a shell to Spark 4.0: its console filter keeps dropping INFO after setLogLevel,
        spark_info_shown(spark)  # except from loggers configured by name
    if launched:
        given = dict(spark.sparkContext.getConf().getAll())
        for key, value in SETTINGS.items():
            if key not in given:
                spark.conf.set(key, value)
    return spark


def spark_info_shown(spark: Any) -> None:
    """Spark's own INFO log on the console (``--verbose``): Spark 4.0 installs SparkShellLoggingFilter on the console
    of a shell, PySpark's included, and it drops events under the shell's WARN from every logger that has no level of
    its own, root level INFO or not; a level set by name (Spark's, and the Kafka source's clients') passes it."""
    jvm = spark.sparkContext._jvm
    for name in ("org.apache.spark", "org.apache.kafka"):  # Kafka's clients print their settings, secrets [hidden]
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, jvm.org.apache.logging.log4j.Level.INFO)


# --- reading and classifying --------------------------------------------------------------------


def read_text(spark: Any, files: FileInputs, topics: Sequence[KafkaInput]) -> Any:
    """(source, value): one row per line of the line files, per whole ``*.json`` file, per Kafka record
    (each topic read with its own login only)."""
    from pyspark.sql import functions as F

    from kdiag.fleet.kafka_security import spark_options

    frames = []
    if files.lines:
        frames.append(spark.read.text(list(files.lines)).select(F.col("_metadata.file_path").alias("source"), "value"))
    if files.whole:
        frames.append(spark.read.text(list(files.whole), wholetext=True)
                      .select(F.col("_metadata.file_path").alias("source"), "value"))
    for topic in topics:
        frames.append(spark.read.format("kafka").option("kafka.bootstrap.servers", topic.bootstrap)
                      .options(**spark_options(topic.login)).option("subscribe", topic.topic)
                      .option("startingOffsets", "earliest").option("endingOffsets", "latest")
                      .option("failOnDataLoss", "false").load()
                      .select(F.lit(str(topic)).alias("source"), F.col("value").cast("string").alias("value")))
    text = frames[0]
    for frame in frames[1:]:
        text = text.unionByName(frame)
    return text.where(not_blank())


BLANK = " \t\r\n"


def not_blank() -> Any:
    """A record that is not blank (only spaces, tabs and line ends). Its first byte decides for almost
    every record (startswith compares bytes); Spark's trim with a set of characters builds two arrays
    the size of the text on every call (a quarter of an incremental ingest's CPU, profiled), and
    substring counts the text's characters first, so the trim runs only on a record that starts with
    a blank character, or is empty."""
    from pyspark.sql import functions as F

    value = F.col("value")
    starts_blank = value.startswith(BLANK[0])
    for character in BLANK[1:]:
        starts_blank = starts_blank | value.startswith(character)
    return F.when((value != "") & ~starts_blank, F.lit(True)).otherwise(F.trim(value, F.lit(BLANK)) != "")


_REASON = f"""
CASE
  WHEN p._corrupt_record IS NOT NULL THEN
    CASE WHEN get_json_object(value, '$') IS NULL THEN 'not_json'
         WHEN NOT startswith(ltrim(value), '{{') OR get_json_object(value, '$.schema') IS NULL THEN 'not_a_report'
         WHEN get_json_object(value, '$.schema') != '{SCHEMA}' THEN 'schema_version'
         ELSE 'bad_field' END
  WHEN p.schema IS NULL THEN 'not_a_report'
  WHEN p.schema != '{SCHEMA}' THEN 'schema_version'
  WHEN ts IS NULL OR p.bootstrap IS NULL OR size(p.bootstrap) < 1 THEN 'bad_field'
END"""



def classified(text: Any, *, keep_text: bool = False) -> Any:
    """Every record with its ``reason`` (null: accepted); the accepted with their ``key`` (report_id,
    or the text's SHA-256) and parsed fields ``p``, the rejected with their text (``value``) for samples
    (and the accepted with theirs too when ``keep_text``: the reports table keeps each report's JSON)."""
    from pyspark.sql import functions as F

    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": "_corrupt_record"}
    parsed = text.select("source", "value", F.from_json("value", report_schema(), options).alias("p"))
    parsed = parsed.withColumn("ts", F.expr("try_to_timestamp(p.generated_at)"))
    parsed = parsed.withColumn("reason", F.expr(_REASON))
    return parsed.select(
        "source", "reason", "ts",
        F.expr("CASE WHEN reason IS NULL THEN coalesce(nullif(p.report_id, ''), concat('sha256:', sha2(value, 256))) "
               "END").alias("key"),
        F.expr("CASE WHEN reason IS NULL THEN p END").alias("p"),
        F.col("value") if keep_text else F.expr("CASE WHEN reason IS NOT NULL THEN value END").alias("value"))


REPORT_COLUMNS = ("key", "ts", "cluster", "cluster_id", "vantage", "findings", "brokers", "stages")
"""The typed columns of an accepted report that every table reads (and the reports table stores)."""


def report_rows(records: Any, *extra: Any, accepted_only: bool = True) -> Any:
    """The accepted records as ``REPORT_COLUMNS`` (and ``extra`` columns), duplicates still in (with
    ``accepted_only`` False the rejected too, their report columns null or empty)."""
    from pyspark.sql import functions as F

    endpoint = ENDPOINT.format(h="e.host", p="e.port")
    return (records.where(F.col("reason").isNull()) if accepted_only else records).select(
        "key", "ts",
        F.expr(f"array_join(transform(p.bootstrap, e -> {endpoint}), ',')").alias("cluster"),
        F.col("p.cluster.cluster_id").alias("cluster_id"),
        F.expr("coalesce(nullif(p.vantage.label, ''), nullif(p.vantage.hostname, ''), 'unknown')").alias("vantage"),
        # each finding id once per report (its first occurrence)
        F.expr("filter(coalesce(p.findings, array()), (f, i) -> "
               "array_position(transform(p.findings, g -> g.id), f.id) = i + 1)").alias("findings"),
        F.expr("coalesce(p.cluster.brokers, array())").alias("brokers"),
        F.expr("coalesce(p.stages, array())").alias("stages"),
        *extra)


# --- the run ------------------------------------------------------------------------------------


def _out_fs(spark: Any, out: str) -> tuple[Any, Any]:
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(out)
    return path.getFileSystem(spark._jsc.hadoopConfiguration()), path


def check_out(out: str, overwrite: bool) -> None:
    """A local ``--out`` that exists is refused unless ``overwrite``; its parent must exist."""
    if "://" in out and not out.startswith("file://"):
        return  # checked through Hadoop's file system once Spark runs
    local = Path(out.removeprefix("file://"))
    if local.exists() and not overwrite:
        raise FleetError(f"--out {out} exists; give --overwrite to replace it")
    if not local.parent.is_dir():
        raise FleetError(f"--out {out}: {local.parent} is not a directory")


def to_python(rows: list[Any], name: str | None = None) -> list[dict[str, Any]]:
    """Rows as dicts, sorted by the table's key when ``name`` is given (the views show them in this
    order, the same whatever the input and the partitioning)."""
    out = [row.asDict(recursive=True) for row in rows]
    if name is not None:
        out.sort(key=lambda row: tuple((row[k] is None, "" if row[k] is None else row[k]) for k in KEYS[name]))
    return out


def analyze(options: AnalyzeOptions, progress: Callable[[str], None] | None = None) -> AnalyzeResult:
    """Runs the job; writes every table (and report.html) into a temporary sibling of ``--out`` and
    renames it into place at the end, so a failure leaves nothing half-written."""
    check_java()
    check_master(options.master)
    check_out(options.out, options.overwrite)
    files, topics = classify(options.inputs) if options.inputs else (FileInputs(), ())
    topics = with_logins(topics, dict(options.kafka_logins))
    if topics:
        from kdiag.fleet.kafka_input import check_topics

        check_topics(topics)
    say = progress or (lambda step: None)
    say("starting Spark")
    small = not topics and not submitted() and small_input(files, options.table)
    spark = spark_session(options, kafka=bool(topics), small=small, directives=True)
    fs, final = _out_fs(spark, options.out)
    if fs.exists(final) and not options.overwrite:
        raise FleetError(f"--out {options.out} exists; give --overwrite to replace it")
    work = spark._jvm.org.apache.hadoop.fs.Path(final.getParent(), f".{final.getName()}.kdiag-{uuid.uuid4().hex[:8]}")
    try:
        result = _run(spark, options, files, topics, work.toString(), say, small=small)
        if options.html:
            say("drawing report.html")
            from kdiag.render.fleet_html import render_html

            html = render_html(result.tables)
            stream = fs.create(spark._jvm.org.apache.hadoop.fs.Path(work, "report.html"), True)
            stream.write(bytearray(html.encode("utf-8")))
            stream.close()
        if fs.exists(final):
            fs.delete(final, True)
        if not fs.rename(work, final):
            raise FleetError(f"cannot move the results into {options.out}")
    except BaseException:
        fs.delete(work, True)
        raise
    result.out = options.out
    return result


def _day(value: str) -> str:
    """The UTC day (``YYYY-MM-DD``, the table's partition value) of an ISO 8601 time."""
    import datetime as _dt

    moment = _dt.datetime.fromisoformat(value)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=_dt.timezone.utc)
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d")


def table_frames(spark: Any, table: str, options: AnalyzeOptions) -> tuple[Any, Any]:
    """(reports with duplicates, rejected records) of a reports table; only the days in
    ``--since``/``--until`` are read (partition pruning)."""
    from pyspark.sql import functions as F

    from kdiag.fleet.table import Table

    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    handle = Table(spark, table)
    if not handle.children(handle.reports):
        raise FleetError(f"--table {table}: no reports ingested there (kdiag fleet ingest SOURCE... --table DIR)")
    reports = spark.read.parquet(handle.reports)
    if options.since:
        reports = reports.where(F.col("day") >= _day(options.since))
    if options.until:
        reports = reports.where(F.col("day") <= _day(options.until))
    reports = reports.select(*REPORT_COLUMNS)
    if handle.children(handle.rejected):
        rejected = spark.read.parquet(handle.rejected).select("source", "reason", "value")
    else:
        rejected = spark.createDataFrame([], "source string, reason string, value string")
    return reports, rejected


def _run(spark: Any, options: AnalyzeOptions, files: FileInputs, topics: Sequence[KafkaInput], work: str,
         say: Callable[[str], None], *, small: bool = False) -> AnalyzeResult:
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    say("reading and parsing the reports")
    if small:
        for key, value in SMALL_SETTINGS.items():
            spark.conf.set(key, value)
    cached = []
    all_reports, all_rejected = [], []
    splits = 1
    if files.lines or files.whole or topics:
        text = read_text(spark, files, topics)
        splits = text.rdd.getNumPartitions()
        # parsed once, cached as the narrow typed columns (not the parsed struct, nor the accepted text)
        records = report_rows(classified(text), "source", "reason", "value", accepted_only=False)
        records = records.persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(records)
        all_reports.append(records.where(F.col("reason").isNull()).select(*REPORT_COLUMNS))
        all_rejected.append(records.where(F.col("reason").isNotNull()).select("source", "reason", "value"))
    if options.table:
        table_reports, table_rejected = table_frames(spark, options.table, options)
        splits = max(splits, table_reports.rdd.getNumPartitions())
        all_reports.append(table_reports)
        all_rejected.append(table_rejected)
    if options.shuffle_partitions is None:
        parallelism = spark.sparkContext.defaultParallelism
        spark.conf.set("spark.sql.shuffle.partitions",
                       str(parallelism if small else shuffle_partitions(splits, parallelism)))
    raw = all_reports[0]
    for frame in all_reports[1:]:
        raw = raw.unionByName(frame)
    bad = all_rejected[0]
    for frame in all_rejected[1:]:
        bad = bad.unionByName(frame)
    try:
        if options.since:
            raw = raw.where(F.col("ts") >= F.lit(options.since).cast("timestamp"))
        if options.until:
            raw = raw.where(F.col("ts") < F.lit(options.until).cast("timestamp"))
        once = reports_once(raw)
        cached.extend(once.cached)
        result = AnalyzeResult(out=options.out)
        frames = {
            "findings": findings_table(once.reports, once.stream), "reachability": reachability_table(once.reports),
            "incidents": incidents_table(once.stream, min_vantages=options.min_vantages),
            "stage_latency": stage_latency_table(once.reports), "vantages": vantages_table(once.stream),
        }

        def write(name: str, frame: Any) -> list[dict[str, Any]]:
            table = frame.select(*TABLES[name]).coalesce(1).persist(StorageLevel.MEMORY_AND_DISK)
            try:  # written, then its rows taken from the cache (not read back from the files)
                table.write.parquet(f"{work}/{name}")
                return to_python(table.collect(), name)
            finally:
                table.unpersist()

        def write_rejected() -> list[dict[str, Any]]:
            rows = rejected_rows(bad)
            rejected_frame(spark, rows).coalesce(1).write.parquet(f"{work}/rejected")
            return rows

        say("computing the tables")
        # The reports are cached (reports_once ran a job over all of them); the six tables' jobs run at
        # once, so one table's small stages and the driver's scheduling fill the cores another leaves idle.
        with ThreadPoolExecutor(max_workers=len(TABLES), thread_name_prefix="kdiag-fleet-table") as pool:
            futures = {name: pool.submit(write, name, frame) for name, frame in frames.items()}
            futures["rejected"] = pool.submit(write_rejected)
            for name in TABLES:
                result.tables[name] = futures[name].result()
    finally:
        for frame in cached:
            frame.unpersist()
    return result


# --- spark-submit entry point -------------------------------------------------------------------


def add_kafka_credentials(parser: argparse.ArgumentParser) -> None:
    """``--kafka-credentials NAME[=PATTERN,...]`` (repeatable), as ``kdiag fleet`` takes it."""
    from kdiag.fleet.inputs import KAFKA_CREDENTIALS_HELP

    parser.add_argument("--kafka-credentials", action="append", default=[], metavar="NAME[=PATTERN,...]",
                        help=KAFKA_CREDENTIALS_HELP.replace("%", "%%"))


Logins = tuple[tuple[str, KafkaLogin], ...]


def run_submitted(bindings: Sequence[str], sources: Sequence[str],
                  work: Callable[[Logins, Callable[[str], None]], str], *,
                  environ: Mapping[str, str] | None = None) -> int:
    """The boundary of a spark-submit entry point (``ingest.main``, ``main``): binds the
    ``--kafka-credentials`` sets to the ``kafka://`` sources, read from the driver's environment
    (``environ``: ``os.environ``) as ``kdiag fleet`` reads them, runs ``work(logins, progress)`` and
    prints the text it returns. Bad input is one line on stderr and exit 2; everything printed is
    scrubbed of the sets' secrets."""
    from kdiag.exitstatus import UsageError
    from kdiag.fleet.inputs import InputError, bind_kafka_logins
    from kdiag.secrets import Scrubber

    scrub = Scrubber()

    def say(text: str, stream: Any = sys.stderr) -> None:
        print(scrub(text), file=stream, flush=True)

    try:
        logins = bind_kafka_logins(bindings, sources, os.environ if environ is None else environ)
        scrub = scrub.adding(secret for _, login in logins for secret in login.secrets)
        text = work(logins, lambda step: say(f"kdiag fleet: {step}"))
    except (FleetError, InputError, UsageError) as exc:
        say(f"kdiag fleet: error: {exc}")
        return 2
    say(text, sys.stdout)
    return 0


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kdiag.fleet.job", description="kdiag's fleet job (kdiag fleet analyze).")
    parser.add_argument("inputs", nargs="*", metavar="INPUT")
    parser.add_argument("--table", help="a reports table written by kdiag fleet ingest")
    parser.add_argument("--out", required=True)
    parser.add_argument("--master")
    parser.add_argument("--since")
    parser.add_argument("--until")
    parser.add_argument("--min-vantages", type=int, default=1)
    parser.add_argument("--overwrite", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--no-html", dest="html", action="store_false")
    add_kafka_credentials(parser)
    args = parser.parse_args(argv)
    if not args.inputs and not args.table:
        parser.error("give INPUT... or --table DIR")
    return args


def main(argv: Sequence[str] | None = None, *, environ: Mapping[str, str] | None = None) -> int:
    """``spark-submit kdiag/fleet/job.py INPUT... --out DIR [--kafka-credentials NAME[=PATTERN,...]]``."""
    args = parse_args(sys.argv[1:] if argv is None else argv)

    def work(logins: Logins, progress: Callable[[str], None]) -> str:
        from kdiag.render.fleet import render_summary

        options = AnalyzeOptions(tuple(args.inputs), args.out, args.master, args.since, args.until,
                                 args.min_vantages, args.overwrite, args.verbose, args.html, table=args.table,
                                 kafka_logins=logins)
        return render_summary(analyze(options, progress=progress).tables, width=100, color=False)

    return run_submitted(args.kafka_credentials, args.inputs, work, environ=environ)


if __name__ == "__main__":
    sys.exit(main())
