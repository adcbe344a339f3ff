"""``kdiag fleet ingest``: reports from Kafka topics and report directories into a reports table, each
record exactly once across runs, crashes and restarts (Spark Structured Streaming).

The table (``--table DIR``) is plain Parquet that any engine reads (Spark, DuckDB, Trino, pandas)::

    DIR/reports/day=YYYY-MM-DD/batch=N/part-*.parquet   accepted reports: REPORT_COLUMNS, source, report (JSON)
    DIR/rejected/batch=N/part-*.parquet                 rejected records: source, reason, value
    DIR/_checkpoint/                                    Spark's offsets and commits (hidden from readers)
    DIR/_kdiag_table.json                               the table's format and its sources

How each record lands once: the stream runs ``foreachBatch``; batch N (its input fixed by the offset
log before it runs: the same Kafka offsets, the same files when it is run again) is read, parsed and
written once, into the hidden ``DIR/_batch/`` partitioned by day (the rejected by reason), and its
directories are then moved into place as the partitions ``batch=N`` only, replacing what an earlier run
of batch N left there, so running batch N again after a crash replaces what its first run wrote instead
of adding to it; Spark records N in ``commits/`` after the function returns, and the next run starts at
N + 1 (or re-runs N). The plain Parquet file sink (its ``_spark_metadata`` log) would give the same
guarantee for one output, but not for two (the reports and the rejected) from one read of the source,
and every reader would have to honour its log.

No watermark: a report that arrives days late is written into its own day's partition like any other
(the tables are recomputed over the whole table by ``analyze``, so nothing is ever finalized early).
Duplicates (a sidecar's at-least-once re-delivery, a ticket's copy) are kept in the table as records,
and ``analyze`` removes them by ``report_id``, exactly, over the whole table.

Compaction: a batch writes a few files per day it touches. When a day holds ``COMPACT_AT`` batch
directories or more (and at the end of every run), its committed small batches (under
``SMALL_BATCH_BYTES``; never one a crash or a stop left half-written: it runs again) are rewritten into
one directory ``batch=cA-B`` (the batches A to B), then the covered directories are deleted; a full
batch's directory is left as written, and directories compacted before are left alone until a day has
``COMPACT_AT`` of them (an incremental run rewrites what it added, not the day). The rule
"``batch=cA-B`` covers every other batch directory within A..B of its day" is applied at the start of
every run, so a crash between the rename and the deletes leaves nothing counted twice for long
(``analyze`` de-duplicates by ``report_id`` meanwhile), and a crash before the rename leaves only a
hidden ``_compacting`` directory, deleted then.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kdiag.fleet.inputs import InputError, KafkaInput, KafkaLogin, parse_kafka, with_logins
from kdiag.fleet.table import CHECKPOINT, TABLE_FORMAT, Table

COMPACTING = "_compacting"
COMPACT_AT = 16
"""A day's batch directories that make it due for compaction while a continuous ingest runs."""
ROWS_PER_FILE = 500_000
"""Compacted files hold about this many reports (about 100 MB of Parquet)."""
CONCURRENT_WRITERS = 32
"""Parquet files a task writes at once (a day each; more days than this: the rest sorted first)."""
UNIQUE_COLUMNS = ("key", "ts", "report", "stages.list.element.duration_ms",
                  "brokers.list.element.tcp.duration_ms")
PARQUET = {f"parquet.enable.dictionary#{column}": "false" for column in UNIQUE_COLUMNS}
"""The Parquet writer's settings of both tables: no dictionary for the columns whose values are nearly
all different (each report's id, time, JSON, and the measured durations): the writer hashed and compared
every value into a dictionary it then abandoned for plain encoding."""
SMALL_BATCH_BYTES = 64 << 20
"""A day's batch directory smaller than this is compacted; a larger one (a batch of 2 GiB of JSON writes
about 300 MB a day in files of tens of MB) is not rewritten: that would cost what writing it did, for
files no fewer (an incremental run of 200,000 reports' table rewrote the full batch with its 5 %)."""
SMALL_INGEST_BYTES = 896 << 20
"""A run whose new report files (``new_input_bytes``) are known and under this (0.94 GB, about 150,000
reports) starts its driver JVM for start-up (C1 only, the serial collector: ``job.SMALL_JVM_OPTIONS``),
a larger or unknown one with the default JVM (C2, the parallel collector). Measured for ingest itself by
bench/bench_fleet_ingest_jit.py (bench/results/fleet_ingest_jit.json): N new reports ingested into the
4,000,000 reports' table, each JVM forced, interleaved, CPU of the whole process, mean of 2-3 runs at
load 0.4-5.8: C1 13.2 against C2 22.3 CPU-s at 20,000 new reports (0.13 GB), 28.0 against 34.1 at
100,000 (0.62 GB), 41.1 against 41.4 at 150,000 (0.93 GB: the crossover), 56.7 against 50.5 at
200,000 (1.26 GB, a day of that table), 254.1 against 133.1 at 1,000,000 (6.2 GB). ``analyze``'s
threshold (job.SMALL_INPUT_BYTES, 1 GiB) was measured on tables, not on ingest's work; under it, a
run of 0.94-1.07 GB of new files would have got the JVM that costs more."""
LINE_GLOB = "*.{jsonl,jsonl.gz}"
WHOLE_GLOB = "*.json"
BINARY_FILE = "path string, modificationTime timestamp, length long, content binary"
BATCH_BYTES = 2 << 30
"""A batch reads at most about this many bytes of a directory's files (unless --max-files-per-batch is
given): what a batch writes (into ``STAGED``) before its directories move into place; a run stopped
mid-batch reads that batch again."""
NEVER_TOO_OLD = "36500d"
"""The file source's maxFileAge: Spark's default (7 days) silently skips a new file whose modification
time is more than 7 days older than the newest file it has seen: a spool copying files with their
times kept (rsync -t, cp -p, tar) would lose reports."""
_TRIGGER = re.compile(r"^(\d+)\s*(s|sec|seconds?|m|min|minutes?|h|hours?)$")


@dataclass(frozen=True)
class IngestOptions:
    sources: tuple[str, ...]
    table: str
    once: bool = False
    trigger: str = "30s"
    master: str | None = None
    verbose: bool = False
    max_files_per_batch: int | None = None
    max_records_per_batch: int | None = None
    shuffle_partitions: int | None = None
    kafka_logins: tuple[tuple[str, KafkaLogin], ...] = field(default=(), repr=False)  # kafka://... -> its set


@dataclass(frozen=True)
class IngestResult:
    batches: int
    reports: int
    rejected: int
    compacted_days: int


def trigger_interval(text: str) -> str:
    """``30s``, ``5m``, ``1h`` -> Spark's ``30 seconds``; anything else an InputError."""
    match = _TRIGGER.match(text.strip())
    if not match or int(match.group(1)) < 1:
        raise InputError(f"--trigger {text}: an interval such as 30s, 5m or 1h")
    unit = {"s": "seconds", "m": "minutes", "h": "hours"}[match.group(2)[0]]
    return f"{match.group(1)} {unit}"


def parse_sources(sources: Sequence[str]) -> tuple[tuple[str, ...], tuple[KafkaInput, ...]]:
    """(directories, topics): a source is kafka://BOOTSTRAP/TOPIC or a directory (local or any Hadoop
    URL) that new report files are written into."""
    import os

    directories: list[str] = []
    topics: list[KafkaInput] = []
    for source in sources:
        if source.startswith("kafka://"):
            topics.append(parse_kafka(source))
            continue
        if "://" in source and not source.startswith("file://"):
            directories.append(source)
            continue
        local = source.removeprefix("file://")
        if not os.path.isdir(local):
            raise InputError(f"{source}: not a directory (ingest reads directories that report files are "
                             "written into, and kafka://BOOTSTRAP/TOPIC)")
        directories.append("file://" + os.path.abspath(local))
    return tuple(directories), tuple(topics)


# --- what a run has to read ----------------------------------------------------------------------

SEEN_LOG_BYTES = 64 << 20
"""The file sources' logs in the checkpoint read to learn what is new, at most (larger: unknown)."""


def seen_files(checkpoint: str) -> set[str] | None:
    """The local paths the checkpoint's file sources have taken into a batch (their logs,
    ``sources/N/M[.compact]``: a line ``v1``, then one JSON object per file); None when the logs are
    larger than SEEN_LOG_BYTES or unreadable."""
    import json
    import os
    from urllib.parse import unquote, urlsplit

    root = os.path.join(checkpoint, "sources")
    logs = [os.path.join(base, name) for base, _, names in os.walk(root) for name in names
            if not name.startswith(".")]
    try:
        if sum(os.path.getsize(path) for path in logs) > SEEN_LOG_BYTES:
            return None
        seen: set[str] = set()
        for path in logs:
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("{") and '"path"' in line:
                        uri = json.loads(line).get("path")
                        if isinstance(uri, str) and uri.startswith("file:"):
                            seen.add(unquote(urlsplit(uri).path))
        return seen
    except (OSError, ValueError):
        return None


def new_input_bytes(table: str, directories: Sequence[str], topics: Sequence[KafkaInput]) -> int | None:
    """Bytes of the report files below ``directories`` that the table's checkpoint has not read yet:
    what this run will read. None when unknown (a topic, a remote directory or table)."""
    import os

    from kdiag.fleet.inputs import below

    if topics or not table.startswith("file://") or any(not d.startswith("file://") for d in directories):
        return None
    seen = seen_files(os.path.join(table.removeprefix("file://"), CHECKPOINT))
    if seen is None:
        return None
    total = 0
    for directory in directories:
        for path in below(directory.removeprefix("file://")):
            if path not in seen:
                try:
                    total += os.path.getsize(path)
                except OSError:
                    continue
    return total


def small_ingest(new_bytes: int | None) -> bool:
    """Whether a run that reads ``new_bytes`` of new report files (None: unknown) starts the start-up
    JVM (SMALL_INGEST_BYTES)."""
    return new_bytes is not None and new_bytes < SMALL_INGEST_BYTES


# --- the stream ---------------------------------------------------------------------------------


def stream_text(spark: Any, directories: Sequence[str], topics: Sequence[KafkaInput],
                options: IngestOptions) -> Any:
    """(source, value) as a stream: each line of the ``*.jsonl``/``*.jsonl.gz`` files below each
    directory, each whole ``*.json`` file (binaryFile: the text source has no whole-file mode when
    streaming), each Kafka record. The union's order is part of the checkpoint: it follows the sources."""
    from pyspark.sql import functions as F

    from kdiag.fleet.job import not_blank
    from kdiag.fleet.kafka_security import spark_options

    frames = []
    for directory in directories:
        lines = spark.readStream.option("recursiveFileLookup", "true").option("pathGlobFilter", LINE_GLOB)
        whole = (spark.readStream.format("binaryFile").schema(BINARY_FILE)
                 .option("recursiveFileLookup", "true")
                 .option("pathGlobFilter", WHOLE_GLOB))
        lines, whole = lines.option("maxFileAge", NEVER_TOO_OLD), whole.option("maxFileAge", NEVER_TOO_OLD)
        limit = (("maxFilesPerTrigger", options.max_files_per_batch) if options.max_files_per_batch
                 else ("maxBytesPerTrigger", BATCH_BYTES))
        lines, whole = lines.option(*limit), whole.option(*limit)
        frames.append(lines.text(directory).select(F.col("_metadata.file_path").alias("source"), "value"))
        frames.append(whole.load(directory).select(F.col("path").alias("source"),
                                                   F.expr("decode(content, 'UTF-8')").alias("value")))
    for topic in topics:
        reader = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", topic.bootstrap)
                  .options(**spark_options(topic.login)).option("subscribe", topic.topic)
                  .option("startingOffsets", "earliest").option("failOnDataLoss", "false"))
        if options.max_records_per_batch:
            reader = reader.option("maxOffsetsPerTrigger", options.max_records_per_batch)
        frames.append(reader.load().select(F.lit(str(topic)).alias("source"),
                                           F.col("value").cast("string").alias("value")))
    text = frames[0]
    for frame in frames[1:]:
        text = text.unionByName(frame)
    return text.where(not_blank())


def check_table(table: Table, sources: Sequence[str]) -> None:  # sources as parse_sources gives them
    """A new table is described; an existing one must be a kdiag table of the same sources (its
    checkpoint's offsets belong to them: other sources need another table, or a new one)."""
    meta = table.read_meta()
    if meta is None:
        if table.children(table.root) and not set(table.children(table.root)) <= {"reports", "rejected", CHECKPOINT}:
            raise InputError(f"--table {table.root}: exists and is not a kdiag reports table")
        table.write_meta({"format": TABLE_FORMAT, "sources": list(sources)})
        return
    if meta.get("format") != TABLE_FORMAT:
        raise InputError(f"--table {table.root}: a table of format {meta.get('format')!r}, not {TABLE_FORMAT}")
    if list(meta.get("sources") or []) != list(sources):
        raise InputError(f"--table {table.root}: ingests {', '.join(meta.get('sources') or [])}; give the same "
                         "sources in the same order (the checkpoint holds their offsets), or another --table")


STAGED = "_batch"
"""The hidden directory a batch is written into, once, before its parts move into the two tables."""
REJECTED_DAY = "rejected-"
"""The staged partition of the records rejected for a reason: ``day=rejected-REASON``."""


def write_batch(table: Table, batch: Any, batch_id: int) -> tuple[int, int]:
    """Batch ``batch_id`` into its own partitions ``batch=N`` of both tables; (accepted, rejected)
    counts. The records are read, parsed and written once, into ``STAGED`` partitioned by day, the
    rejected into ``day=rejected-REASON``; then each day's directory is moved into the reports as
    ``day=D/batch=N`` (replacing what a crashed run of the batch left there), and the rejected, usually
    few, are rewritten as the rejected table's ``batch=N``. Holding the batch instead (a cache read by
    both writes) copied every report's text twice more (in, out) and spilled it to disk."""
    from pyspark.sql import functions as F

    from kdiag.fleet.job import classified, report_rows

    spark, staged = table.spark, f"{table.root}/{STAGED}"
    day = F.when(F.col("reason").isNull(), F.date_format("ts", "yyyy-MM-dd")).otherwise(
        F.concat(F.lit(REJECTED_DAY), "reason"))
    rows = report_rows(classified(batch, keep_text=True), "source", F.col("value").alias("report"), day.alias("day"),
                       accepted_only=False)
    table.delete(staged)
    rows.write.options(**PARQUET).mode("overwrite").partitionBy("day").parquet(staged)
    parts = [name for name in table.children(staged) if name.startswith("day=")]
    rejected_parts = [name for name in parts if name.startswith(f"day={REJECTED_DAY}")]
    counts = {True: 0, False: 0}
    if parts:
        for row in (spark.read.option("basePath", staged).parquet(*[f"{staged}/{name}" for name in parts])
                    .groupBy(F.col("day").startswith(REJECTED_DAY).alias("rejected")).count().collect()):
            counts[row["rejected"]] = row["count"]
    if rejected_parts:
        rejected = (spark.read.option("basePath", staged).parquet(*[f"{staged}/{name}" for name in rejected_parts])
                    .select("source", F.expr(f"substring(day, {len(REJECTED_DAY) + 1})").alias("reason"),
                            F.col("report").alias("value"), F.lit(str(batch_id)).alias("batch")))
        rejected.write.mode("overwrite").partitionBy("batch").parquet(table.rejected)
    for name in parts:
        if name in rejected_parts:
            continue
        target = f"{table.reports}/{name}/batch={batch_id}"
        table.delete(target)
        table.mkdirs(f"{table.reports}/{name}")
        if not table.rename(f"{staged}/{name}", target):
            raise InputError(f"cannot move batch {batch_id}'s reports into {table.reports}/{name}")
    table.delete(staged)
    return counts[False], counts[True]


# --- compaction ---------------------------------------------------------------------------------


def _batch_range(name: str) -> tuple[bool, int, int] | None:
    """``batch=12`` -> (False, 12, 12); ``batch=c3-12`` (batches 3 to 12 compacted) -> (True, 3, 12)."""
    if match := re.fullmatch(r"batch=(\d+)", name):
        return False, int(match.group(1)), int(match.group(1))
    if match := re.fullmatch(r"batch=c(\d+)-(\d+)", name):
        return True, int(match.group(1)), int(match.group(2))
    return None


def _partition_dirs(table: Table) -> list[str]:
    """The directories that hold batch directories: each day of the reports, and the rejected."""
    days = [f"{table.reports}/{name}" for name in table.children(table.reports) if name.startswith("day=")]
    return days + ([table.rejected] if table.children(table.rejected) else [])


def settle(table: Table) -> None:
    """Applies the compaction rule after a crash: in each directory, a ``batch=cA-B`` covers every
    other batch directory whose batches lie within A..B, which is deleted; leftover ``_compacting``
    work is deleted."""
    table.delete(f"{table.root}/{COMPACTING}")
    table.delete(f"{table.root}/{STAGED}")
    for directory in _partition_dirs(table):
        batches = [(name, parsed) for name in table.children(directory) if (parsed := _batch_range(name))]
        ranges = [(first, last, name) for name, (is_compacted, first, last) in batches if is_compacted]
        for name, (_, first, last) in batches:
            if any(low <= first and last <= high and name != covering for low, high, covering in ranges):
                table.delete(f"{directory}/{name}")


def committed(table: Table) -> int:
    """The newest batch the checkpoint records as committed (-1: none)."""
    numbers = [int(name) for name in table.children(f"{table.checkpoint}/commits") if name.isdigit()]
    return max(numbers, default=-1)


def compaction_runs(batches: Sequence[tuple[str, bool, int, int, int]], *, below: int,
                    at_least: int) -> list[list[tuple[str, int, int]]]:
    """Which of a directory's batch directories ``(name, compacted, first, last, bytes)`` to merge, as
    runs of neighbours, each run into one ``batch=cA-B``. Due: the committed small ones (under
    SMALL_BATCH_BYTES, numbered below ``below``) when there are ``at_least`` of them, and the compacted
    ones when there are ``COMPACT_AT``. A large batch directory (a full batch's files, tens of MB each)
    is left as it is: rewriting it would cost what writing it did and make its files no fewer; a run
    never spans one (nor a batch not yet committed), since ``batch=cA-B`` covers every batch within A..B."""
    fresh = {name for name, compacted, _, last, size in batches
             if not compacted and last < below and size < SMALL_BATCH_BYTES}
    done = {name for name, compacted, _, _, _ in batches if compacted}
    due = (fresh if len(fresh) >= max(at_least, 2) else set()) | (done if len(done) >= COMPACT_AT else set())
    runs: list[list[tuple[str, int, int]]] = [[]]
    for name, _, first, last, _ in sorted(batches, key=lambda batch: (batch[2], batch[3])):
        if name in due:
            runs[-1].append((name, first, last))
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if len(run) >= 2]


def compact(table: Table, *, below: int, at_least: int) -> int:
    """In each directory, rewrites the small batches numbered below ``below`` (committed: never the one
    a crash or a stop left half-written, which runs again) into one ``batch=cA-B`` when there are
    ``at_least`` of them, leaving the directories compacted before alone (a run that adds 5 % to a day
    rewrites that 5 %, not the day) until there are ``COMPACT_AT`` of those, which are merged too
    (``compaction_runs``). Returns how many directories were compacted."""
    spark = table.spark
    due: list[tuple[str, list[tuple[str, int, int]]]] = []
    for directory in _partition_dirs(table):
        batches = [(name, *parsed, table.size(f"{directory}/{name}"))
                   for name in table.children(directory) if (parsed := _batch_range(name))]
        due += [(directory, run) for run in compaction_runs(batches, below=below, at_least=at_least)]
    for directory, chosen in due:
        first, last = min(c[1] for c in chosen), max(c[2] for c in chosen)
        work = f"{table.root}/{COMPACTING}/{first}-{last}"
        frame = spark.read.parquet(*[f"{directory}/{name}" for name, _, _ in chosen])
        frame = frame.drop(*[column for column in ("day", "batch") if column in frame.columns])
        files = max(1, -(-frame.count() // ROWS_PER_FILE))
        frame.coalesce(files).write.options(**PARQUET).mode("overwrite").parquet(work)
        if not table.rename(work, f"{directory}/batch=c{first}-{last}"):
            raise InputError(f"cannot move the compacted batches into {directory}")
        for name, _, _ in chosen:  # from here on batch=c{first}-{last} covers them (settle finishes this after a crash)
            table.delete(f"{directory}/{name}")
        table.delete(f"{table.root}/{COMPACTING}")
    return len({directory for directory, _ in due})


# --- the run ------------------------------------------------------------------------------------


def ingest(options: IngestOptions, progress: Callable[[str], None] | None = None) -> IngestResult:
    from kdiag.fleet.job import FleetError, check_java, check_master, spark_session

    check_java()
    check_master(options.master)
    interval = trigger_interval(options.trigger)
    directories, topics = parse_sources(options.sources)
    topics = with_logins(topics, dict(options.kafka_logins))
    if topics:
        from kdiag.fleet.kafka_input import check_topics

        check_topics(topics)
    say = progress or (lambda step: None)
    say("starting Spark")
    table_root = options.table if "://" in options.table else _absolute(options.table)
    new_bytes = new_input_bytes(table_root, directories, topics)
    # a run that reads little (an incremental run of a large table, too) starts a JVM tuned for start-up
    spark = spark_session(options, kafka=bool(topics), small=small_ingest(new_bytes))
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    # a batch is written by day with a writer open per day a task meets, instead of sorting its rows
    # (each with its report's text) by day first: the sort needs the write planned by Spark's optimizer
    spark.conf.set("spark.sql.optimizer.plannedWrite.enabled", "false")
    spark.conf.set("spark.sql.maxConcurrentOutputFileWriters", str(CONCURRENT_WRITERS))
    table = Table(spark, table_root)
    check_table(table, [*directories, *map(str, topics)])
    settle(table)
    totals = {"batches": 0, "reports": 0, "rejected": 0}

    def each_batch(batch: Any, batch_id: int) -> None:
        if not options.once:  # a continuous ingest compacts as it goes; --once at the end
            compact(table, below=batch_id, at_least=COMPACT_AT)
        accepted, rejected = write_batch(table, batch, batch_id)
        totals["batches"] += 1
        totals["reports"] += accepted
        totals["rejected"] += rejected
        say(f"batch {batch_id}: {accepted} reports, {rejected} rejected")

    writer = (stream_text(spark, directories, topics, options).writeStream.foreachBatch(each_batch)
              .option("checkpointLocation", table.checkpoint).queryName("kdiag-fleet-ingest"))
    writer = writer.trigger(availableNow=True) if options.once else writer.trigger(processingTime=interval)
    say("reading the sources" if options.once else f"ingesting every {interval} (Ctrl-C or SIGTERM stops)")
    from pyspark.errors import StreamingQueryException

    query = writer.start()
    try:
        run_until_stopped(query)
    except StreamingQueryException as exc:
        raise FleetError(f"the ingest stopped: {str(exc).strip().splitlines()[0][:500]}") from None
    say("compacting small files")
    compacted = compact(table, below=committed(table) + 1, at_least=2)  # a batch stopped half-way stays apart
    return IngestResult(totals["batches"], totals["reports"], totals["rejected"], compacted)


STOP_POLL = 1.0
"""Seconds between two looks at whether SIGTERM or SIGINT asked the ingest to stop."""


def run_until_stopped(query: Any) -> None:
    """Waits for ``query`` to end (``--once``: when the sources are read), or stops it on SIGTERM or
    SIGINT. The signal only sets a flag: stopping the query from the handler would call into Spark's
    JVM on the thread that is already waiting on it there, which breaks Py4J's connection (the run
    then ends in a Py4JError instead of compacting and exiting 0), and a KeyboardInterrupt raised
    inside that wait does the same; so the wait is in short slices and the stop comes between them."""
    import threading

    asked = threading.Event()
    handlers = {number: signal.signal(number, lambda *_: asked.set()) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not query.awaitTermination(STOP_POLL):
            if asked.is_set():
                query.stop()
                return
    finally:
        for number, previous in handlers.items():
            signal.signal(number, previous)


def _absolute(path: str) -> str:
    import os

    return "file://" + os.path.abspath(path.removeprefix("file://"))


# --- spark-submit entry point -------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, *, environ: Mapping[str, str] | None = None) -> int:
    """``spark-submit kdiag/fleet/ingest.py SOURCE... --table DIR [--once] [--kafka-credentials
    NAME[=PATTERN,...]]``: the same ingest (``environ``: where the sets are read, ``os.environ``)."""
    import argparse
    import sys

    from kdiag.fleet.job import Logins, add_kafka_credentials, run_submitted

    parser = argparse.ArgumentParser(prog="kdiag.fleet.ingest", description="kdiag's fleet ingest.")
    parser.add_argument("sources", nargs="+", metavar="SOURCE")
    parser.add_argument("--table", required=True)
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--trigger", default="30s")
    parser.add_argument("--master")
    parser.add_argument("--max-files-per-batch", type=int)
    parser.add_argument("--max-records-per-batch", type=int)
    parser.add_argument("--verbose", action="store_true")
    add_kafka_credentials(parser)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)

    def work(logins: Logins, progress: Callable[[str], None]) -> str:
        options = IngestOptions(tuple(args.sources), args.table, args.once, args.trigger, args.master, args.verbose,
                                args.max_files_per_batch, args.max_records_per_batch, kafka_logins=logins)
        result = ingest(options, progress=progress)
        return f"{result.reports} reports and {result.rejected} rejected records ingested in {result.batches} batches"

    return run_submitted(args.kafka_credentials, args.sources, work, environ=environ)


if __name__ == "__main__":
    raise SystemExit(main())
