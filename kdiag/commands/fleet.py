"""``kdiag fleet``: the fleet pipeline on Spark (``analyze``) and a realistic fleet's reports (``generate``).

Spark (the ``fleet`` extra) is imported only inside ``kdiag.fleet`` (the job and the ingest), and only when
``analyze`` or ``ingest`` runs.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from kdiag.environment import DebugOption, Environment, environment
from kdiag.exitstatus import ExitStatus, UsageError
from kdiag.fleet.inputs import KAFKA_CREDENTIALS_HELP

if TYPE_CHECKING:
    from kdiag.fleet.inputs import KafkaLogin

FLEET_HELP = """\
The fleet pipeline: from millions of kdiag reports (kdiag bootstrap --output/--json, kdiag watch)
to which clients fail where, since when, and why. 'analyze' runs a Spark job (local mode by default,
or --master URL); 'ingest' streams reports from Kafka topics and directories into a reports table,
each once, for 'analyze --table'; 'generate' writes a realistic fleet's reports with the incidents it
planted.
"""

ANALYZE_HELP = """\
Read reports from files (directories or globs of *.jsonl, *.jsonl.gz and *.json, any path Spark
reads: local, hdfs://, s3a://), a Kafka topic (kafka://BOOTSTRAP/TOPIC) or a reports table written
by 'kdiag fleet ingest' (--table DIR: only the days in --since/--until are read), de-duplicate them by
report_id, and write the tables findings, reachability, incidents, stage_latency, vantages and
rejected as Parquet under --out/<table>/, with a self-contained --out/report.html. Prints a summary.
"""

ANALYZE_EPILOG = """\
\b
Examples:
  kdiag fleet analyze /var/log/kdiag/ tickets/*.json --out fleet-out
  kdiag fleet analyze --table /data/kdiag-table --since 2026-11-01 --out fleet-out
  kdiag fleet analyze kafka://broker:9092/kdiag-reports --out fleet-out --min-vantages 3
  KDIAG_CRED_REPORTS_SECURITY_PROTOCOL=SASL_SSL KDIAG_CRED_REPORTS_SASL_MECHANISMS=SCRAM-SHA-512 \\
  KDIAG_CRED_REPORTS_SASL_USERNAME=kdiag-fleet KDIAG_CRED_REPORTS_SASL_PASSWORD_FILE=/run/secrets/reports \\
  KDIAG_CRED_REPORTS_SSL_CA_LOCATION=/etc/kafka/ca.pem \\
    kdiag fleet analyze kafka://kafka:9093/kdiag-reports --kafka-credentials reports --out fleet-out
  kdiag fleet analyze 's3a://bucket/kdiag/*.jsonl.gz' --out fleet-out --master spark://host:7077
  spark-submit kdiag/fleet/job.py INPUT... --out DIR     # the same job on an existing cluster

\b
Exit status:
  0    the tables were written
  2    bad input: a missing input, a topic that does not exist, a refused login (SASL
       authentication, TLS), --out exists (without --overwrite), no Java, an unknown or
       unreachable --master; nothing is written then
"""

GENERATE_HELP = """\
Write N realistic reports (built with kdiag's report model and diagnosed by its rules) of C clusters
probed by V vantages every 30 s: healthy periods, the seed scenarios' onsets and recoveries,
duplicates, out-of-order files, a few lines that are not reports; and _truth.json, the incidents
planted and every table as the plain-Python reference computes it. Deterministic by --seed.
"""

InputsArgument = Annotated[Optional[list[str]], typer.Argument(
    metavar="[INPUT]...", show_default=False, help="Report files, directories, globs or kafka://BOOTSTRAP/TOPIC.")]
TableOption = Annotated[Optional[str], typer.Option("--table", metavar="DIR", show_default=False,
                                                    help="A reports table written by 'kdiag fleet ingest'.")]
MasterOption = Annotated[Optional[str], typer.Option("--master", metavar="URL", show_default=False,
                                                     help="Spark master (default local[*]).")]
VerboseOption = Annotated[bool, typer.Option("--verbose", help="Show Spark's own log and progress.")]
OutOption = Annotated[str, typer.Option("--out", metavar="DIR", show_default=False, help="Where to write.")]
OverwriteOption = Annotated[bool, typer.Option("--overwrite", help="Replace --out if it exists.")]
KafkaCredentialsOption = Annotated[Optional[list[str]], typer.Option(
    "--kafka-credentials", metavar="NAME[=PATTERN,...]", show_default=False, help=KAFKA_CREDENTIALS_HELP)]

fleet_app = typer.Typer(name="fleet", help=FLEET_HELP, short_help="Analyze a fleet's reports on Spark.",
                        no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                        pretty_exceptions_enable=False)


@fleet_app.command("analyze", help=ANALYZE_HELP, epilog=ANALYZE_EPILOG,
                   short_help="Build the fleet tables and report.html from reports, on Spark.")
def analyze_command(
    ctx: typer.Context,
    out: OutOption,
    inputs: InputsArgument = None,
    table: TableOption = None,
    master: MasterOption = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="T", show_default=False,
                                                 help="Only reports generated at or after T (ISO 8601, UTC).")] = None,
    until: Annotated[Optional[str], typer.Option("--until", metavar="T", show_default=False,
                                                 help="Only reports generated before T.")] = None,
    min_vantages: Annotated[int, typer.Option("--min-vantages", metavar="K",
                                              help="Keep incidents that affected K vantages at once.")] = 1,
    overwrite: OverwriteOption = False,
    kafka_credentials: KafkaCredentialsOption = None,
    verbose: VerboseOption = False,
    debug: DebugOption = False,
) -> ExitStatus:
    return run_analyze(inputs or [], out=out, master=master, since=since, until=until, min_vantages=min_vantages,
                       overwrite=overwrite, verbose=verbose, env=environment(ctx), table=table,
                       kafka_credentials=kafka_credentials or [])


def _progress(env: Environment, verbose: bool) -> Callable[[str], None]:
    """A step of a Spark run as a note, when stderr is a terminal or --verbose."""
    def progress(step: str) -> None:
        if verbose or env.stderr_isatty:
            env.note(step)

    return progress


def _on_spark(run: Callable[[], Any]) -> Any:
    """Runs a fleet command's Spark work: the fleet extra missing, or bad input, is one line (exit 2)."""
    try:
        from kdiag.fleet.job import FleetError
    except ImportError as exc:  # pragma: no cover - the fleet extra is not installed
        raise UsageError(f"kdiag fleet needs the fleet extra (pip install 'kdiag[fleet]'): {exc}") from None
    from kdiag.fleet.inputs import InputError

    try:
        return run()
    except (FleetError, InputError) as exc:
        raise UsageError(str(exc)) from None


def _check_time(option: str, value: str | None) -> None:
    import datetime as _dt

    if value is None:
        return
    try:
        _dt.datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value}: not an ISO 8601 time (2026-11-20T14:00:00Z)") from None


def run_analyze(inputs: list[str], *, out: str, env: Environment, master: str | None = None,
                since: str | None = None, until: str | None = None, min_vantages: int = 1, overwrite: bool = False,
                verbose: bool = False, table: str | None = None, kafka_credentials: Sequence[str] = (),
                environ: Mapping[str, str] | None = None) -> ExitStatus:
    if not inputs and table is None:
        raise UsageError("give the reports to analyze: INPUT... or --table DIR")
    _check_time("--since", since)
    _check_time("--until", until)
    if min_vantages < 1:
        raise UsageError("--min-vantages must be at least 1")
    from kdiag.render.fleet import render_summary

    def run() -> Any:
        from kdiag.fleet.job import AnalyzeOptions, analyze

        logins = kafka_logins(kafka_credentials, inputs, env=env, environ=environ)
        options = AnalyzeOptions(tuple(inputs), out, master, since, until, min_vantages, overwrite, verbose,
                                 table=table, kafka_logins=logins)
        return analyze(options, progress=_progress(env, verbose))

    result = _on_spark(run)
    env.write(render_summary(result.tables, width=env.width, color=env.color))
    env.write(f"Tables and report.html written to {out}\n")
    return ExitStatus.OK


@fleet_app.command("generate", help=GENERATE_HELP, short_help="Write a realistic fleet's reports, with the truth.")
def generate_command(
    ctx: typer.Context,
    out: OutOption,
    reports: Annotated[int, typer.Option("--reports", metavar="N", help="How many reports.")] = 10_000,
    clusters: Annotated[int, typer.Option("--clusters", metavar="C", help="How many clusters.")] = 6,
    vantages: Annotated[int, typer.Option("--vantages", metavar="V", help="How many vantages.")] = 12,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="The random seed.")] = 0,
    truth: Annotated[bool, typer.Option("--truth/--no-truth", help="Write _truth.json (reads the output back).")] = True,
    overwrite: OverwriteOption = False,
    debug: DebugOption = False,
) -> ExitStatus:
    from kdiag.fleet.generate import GenerateError, GenerateOptions, generate

    env = environment(ctx)
    options = GenerateOptions(reports, clusters, vantages, Path(out), seed, truth, overwrite)
    try:
        result = generate(options, progress=(lambda n: env.note(f"{n} reports written")) if env.stderr_isatty
                          else None)
    except GenerateError as exc:
        raise UsageError(str(exc)) from None
    env.write(f"{result.reports} reports ({result.lines} records with duplicates and junk) in {result.files} files "
              f"under {out}; {len(result.planted)} planted episodes\n")
    env.write(f"Analyze them with: kdiag fleet analyze {shlex.quote(out)} --out {shlex.quote(out + '-analyzed')}\n")
    return ExitStatus.OK


INGEST_HELP = """\
Stream reports from Kafka topics (kafka://BOOTSTRAP/TOPIC) and directories that report files are
written into (*.jsonl, *.jsonl.gz, *.json below them) into a reports table: Parquet under --table DIR,
partitioned by day, with the rejected records beside it. A checkpoint in the table makes every record
land exactly once across runs, crashes and restarts; late reports are never dropped. --once reads what
is there and stops (for cron or Airflow); without it, it ingests every --trigger interval until
stopped. Small files are compacted. Read the table with 'kdiag fleet analyze --table DIR'.
"""

INGEST_EPILOG = """\
\b
Examples:
  kdiag fleet ingest kafka://broker:9092/kdiag-reports --table /data/kdiag-table --once
  kdiag fleet ingest /var/log/kdiag/ --table /data/kdiag-table --trigger 5m
  kdiag fleet ingest kafka://kafka:9093/kdiag-reports --kafka-credentials reports --table /data/t --once
  kdiag fleet analyze --table /data/kdiag-table --since 2026-11-01 --out fleet-out

\b
Exit status:
  0    the sources were ingested (--once), or the ingest was stopped
  2    bad input: a missing directory, a topic that does not exist, a refused login (SASL
       authentication, TLS), a table of other sources, no Java, an unknown or unreachable --master
"""


@fleet_app.command("ingest", help=INGEST_HELP, epilog=INGEST_EPILOG,
                   short_help="Stream reports into a reports table, each once, on Spark.")
def ingest_command(
    ctx: typer.Context,
    sources: Annotated[list[str], typer.Argument(metavar="SOURCE...", show_default=False,
                                                 help="kafka://BOOTSTRAP/TOPIC or a directory of report files.")],
    table: Annotated[str, typer.Option("--table", metavar="DIR", show_default=False,
                                       help="The reports table (created if missing).")],
    once: Annotated[bool, typer.Option("--once", help="Ingest what is there now, then stop.")] = False,
    trigger: Annotated[str, typer.Option("--trigger", metavar="INTERVAL",
                                         help="Without --once: how often to ingest (30s, 5m, 1h).")] = "30s",
    max_files: Annotated[Optional[int], typer.Option("--max-files-per-batch", metavar="N", show_default=False,
                                                     help="Bound each batch to N new files.")] = None,
    max_records: Annotated[Optional[int], typer.Option("--max-records-per-batch", metavar="N", show_default=False,
                                                       help="Bound each batch to N Kafka records.")] = None,
    master: MasterOption = None,
    kafka_credentials: KafkaCredentialsOption = None,
    verbose: VerboseOption = False,
    debug: DebugOption = False,
) -> ExitStatus:
    env = environment(ctx)
    for name, value in (("--max-files-per-batch", max_files), ("--max-records-per-batch", max_records)):
        if value is not None and value < 1:
            raise UsageError(f"{name} must be at least 1")

    def run() -> Any:
        from kdiag.fleet.ingest import IngestOptions, ingest

        logins = kafka_logins(kafka_credentials or (), sources, env=env)
        options = IngestOptions(tuple(sources), table, once, trigger, master, verbose, max_files, max_records,
                                kafka_logins=logins)
        return ingest(options, progress=_progress(env, verbose))

    result = _on_spark(run)
    env.write(f"{result.reports} reports and {result.rejected} rejected records ingested in {result.batches} "
              f"batches into {table}; {result.compacted_days} partitions compacted\n")
    return ExitStatus.OK


def kafka_logins(bindings: Sequence[str], sources: Sequence[str], *, env: Environment,
                 environ: Mapping[str, str] | None = None) -> tuple[tuple[str, KafkaLogin], ...]:
    """Each ``kafka://`` source's credential set from ``--kafka-credentials``
    (``kdiag.fleet.inputs.bind_kafka_logins``, which the spark-submit entry points share), the sets'
    secrets scrubbed from everything the run prints."""
    from kdiag.fleet.inputs import bind_kafka_logins

    logins = bind_kafka_logins(bindings, sources, os.environ if environ is None else environ)
    env.scrub = env.scrub.adding(secret for _, login in logins for secret in login.secrets)
    return logins


def register(app: typer.Typer) -> None:
    app.add_typer(fleet_app, name="fleet")
