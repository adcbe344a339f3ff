"""``kdiag fleet``: the fleet pipeline on Spark (``analyze``) and a realistic fleet's reports (``generate``).

Spark (the ``fleet`` extra) is imported only inside ``kdiag.fleet.job``, and only when ``analyze`` runs.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer

from kdiag.environment import DebugOption, Environment, environment
from kdiag.exitstatus import ExitStatus, UsageError

FLEET_HELP = """\
The fleet pipeline: from millions of kdiag reports (kdiag bootstrap --output/--json, kdiag watch)
to which clients fail where, since when, and why. 'analyze' runs a Spark job (local mode by default,
or --master URL); 'generate' writes a realistic fleet's reports with the incidents it planted.
"""

ANALYZE_HELP = """\
Read reports from files (directories or globs of *.jsonl, *.jsonl.gz and *.json, any path Spark
reads: local, hdfs://, s3a://) or a Kafka topic (kafka://BOOTSTRAP/TOPIC), de-duplicate them by
report_id, and write the tables findings, reachability, incidents, stage_latency, vantages and
rejected as Parquet under --out/<table>/, with a self-contained --out/report.html. Prints a summary.
"""

ANALYZE_EPILOG = """\
\b
Examples:
  kdiag fleet analyze /var/log/kdiag/ tickets/*.json --out fleet-out
  kdiag fleet analyze kafka://broker:9092/kdiag-reports --out fleet-out --min-vantages 3
  kdiag fleet analyze 's3a://bucket/kdiag/*.jsonl.gz' --out fleet-out --master spark://host:7077
  spark-submit kdiag/fleet/job.py INPUT... --out DIR     # the same job on an existing cluster

\b
Exit status:
  0    the tables were written
  2    bad input: a missing input, a topic that does not exist, --out exists (without
       --overwrite), no Java, an unknown or unreachable --master; nothing is written then
"""

GENERATE_HELP = """\
Write N realistic reports (built with kdiag's report model and diagnosed by its rules) of C clusters
probed by V vantages every 30 s: healthy periods, the seed scenarios' onsets and recoveries,
duplicates, out-of-order files, a few lines that are not reports; and _truth.json, the incidents
planted and every table as the plain-Python reference computes it. Deterministic by --seed.
"""

InputsArgument = Annotated[list[str], typer.Argument(metavar="INPUT...", show_default=False,
                                                     help="Report files, directories, globs or kafka://BOOTSTRAP/TOPIC.")]
OutOption = Annotated[str, typer.Option("--out", metavar="DIR", show_default=False, help="Where to write.")]
OverwriteOption = Annotated[bool, typer.Option("--overwrite", help="Replace --out if it exists.")]

fleet_app = typer.Typer(name="fleet", help=FLEET_HELP, short_help="Analyze a fleet's reports on Spark.",
                        no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                        pretty_exceptions_enable=False)


@fleet_app.command("analyze", help=ANALYZE_HELP, epilog=ANALYZE_EPILOG,
                   short_help="Build the fleet tables and report.html from reports, on Spark.")
def analyze_command(
    ctx: typer.Context,
    inputs: InputsArgument,
    out: OutOption,
    master: Annotated[Optional[str], typer.Option("--master", metavar="URL", show_default=False,
                                                  help="Spark master (default local[*]).")] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="T", show_default=False,
                                                 help="Only reports generated at or after T (ISO 8601, UTC).")] = None,
    until: Annotated[Optional[str], typer.Option("--until", metavar="T", show_default=False,
                                                 help="Only reports generated before T.")] = None,
    min_vantages: Annotated[int, typer.Option("--min-vantages", metavar="K",
                                              help="Keep incidents that affected K vantages at once.")] = 1,
    overwrite: OverwriteOption = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Show Spark's own log and progress.")] = False,
    debug: DebugOption = False,
) -> ExitStatus:
    return run_analyze(inputs, out=out, master=master, since=since, until=until, min_vantages=min_vantages,
                       overwrite=overwrite, verbose=verbose, env=environment(ctx))


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
                verbose: bool = False) -> ExitStatus:
    _check_time("--since", since)
    _check_time("--until", until)
    if min_vantages < 1:
        raise UsageError("--min-vantages must be at least 1")
    try:
        from kdiag.fleet.job import AnalyzeOptions, FleetError, analyze
    except ImportError as exc:  # pragma: no cover - the fleet extra is not installed
        raise UsageError(f"kdiag fleet needs the fleet extra (pip install 'kdiag[fleet]'): {exc}") from None
    from kdiag.fleet.inputs import InputError
    from kdiag.render.fleet import render_summary

    def progress(step: str) -> None:
        if verbose or env.stderr_isatty:
            env.note(step)

    options = AnalyzeOptions(tuple(inputs), out, master, since, until, min_vantages, overwrite, verbose)
    try:
        result = analyze(options, progress=progress)
    except (FleetError, InputError) as exc:
        raise UsageError(str(exc)) from None
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


def register(app: typer.Typer) -> None:
    app.add_typer(fleet_app, name="fleet")
