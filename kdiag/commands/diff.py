"""``kdiag diff``: two reports of one cluster from two vantage points, and what differs."""

from __future__ import annotations

from typing import Annotated

import typer

from kdiag.environment import DebugOption, Environment, JsonOption, choose_format, environment, format_option
from kdiag.exitstatus import ExitStatus, UsageError
from kdiag.render import Format

HELP = """\
Compare two kdiag bootstrap --json reports of one cluster taken from two places (the broker
machine and a laptop, inside and outside the VPC, inside and outside Docker) and explain what
differs: a name that resolves in one place only, a port open from one side only, a different
listener reached (other advertised addresses for the same brokers), the stages, the round trip,
and the findings each report has alone.
"""

EPILOG = """\
\b
Examples:
  kdiag bootstrap broker:9092 --json > inside.json      # on the broker machine
  kdiag bootstrap broker:9092 --json > laptop.json      # on the laptop
  kdiag diff inside.json laptop.json
  kdiag diff inside.json laptop.json --format markdown

\b
--json prints a kdiag.diff/1 document: {"schema", "a", "b", "same_cluster",
"differences": [{"kind", "subject", "a", "b", "explanation"}], "findings"}.

\b
Exit status:
  0    no differences
  1    differences found
  2    bad input: a file that cannot be read or is not a kdiag.report/1 report
"""

SHORT_HELP = "Compare two reports from two places: what differs, and why."
FormatOption = format_option(
    "text (the comparison, default), json (the kdiag.diff/1 document) or markdown (for a ticket).")

ReportArgument = Annotated[str, typer.Argument(metavar="REPORT", show_default=False,
                                               help="A kdiag bootstrap --json report.")]


def diff_command(ctx: typer.Context, a: ReportArgument, b: ReportArgument, fmt: FormatOption = None,
                 json_flag: JsonOption = False, debug: DebugOption = False) -> ExitStatus:
    return run_diff_command(a, b, env=environment(ctx), fmt=choose_format(fmt, json_flag))


def run_diff_command(a_path: str, b_path: str, *, env: Environment, fmt: Format = Format.TEXT) -> ExitStatus:
    """Loads both reports (a bad file is a UsageError), diffs them, prints the diff; exit 1 if they differ."""
    from kdiag.diff import diff_reports
    from kdiag.jsonform import ReportFormatError
    from kdiag.render.diff import render_diff
    from kdiag.inputfile import load_report

    reports = []
    for path in (a_path, b_path):
        try:
            reports.append(load_report(path))
        except ReportFormatError as exc:
            message = str(exc)
            raise UsageError(message if path in message else f"{path}: {message}") from None
    diff = diff_reports(reports[0], reports[1], a_file=a_path, b_file=b_path)
    if diff.same_cluster is False:
        env.warn(f"{a_path} and {b_path} are reports of different clusters ({diff.a.cluster_id} and "
                 f"{diff.b.cluster_id}); their differences may mean nothing")
    env.write(render_diff(diff, fmt, width=env.width, color=env.color and fmt is Format.TEXT, scrub=env.scrub))
    return ExitStatus.PROBLEMS if diff.differ else ExitStatus.OK


def register(app: typer.Typer) -> None:
    app.command("diff", help=HELP, epilog=EPILOG, short_help=SHORT_HELP)(diff_command)
"""The keyword arguments ``app.command("diff", ...)`` registers it with."""
