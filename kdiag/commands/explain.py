"""``kdiag explain``: a client's error output in, findings out. Cheap to import (``kdiag --help``
imports it): the reading and the patterns are imported when the command runs."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated

import typer

from kdiag.environment import DebugOption, Environment, JsonOption, choose_format, environment, format_option
from kdiag.exitstatus import ExitStatus, UsageError
from kdiag.render import Format

if TYPE_CHECKING:
    from kdiag.explain.engine import Explanation
    from kdiag.explain.reader import Block

HELP = """\
Explain a Kafka client's error output: paste what the customer sent (a whole log is fine) and get
the findings it supports, with the same ids, explanation and fix as a kdiag report, plus the
kdiag bootstrap command that confirms each from the client's machine. Recognises librdkafka
(confluent-kafka, kcat), the Java client and console tools, kafkajs, Sarama and franz-go.
"""

EPILOG = """\
\b
Examples:
  kdiag explain --file producer.log
  kubectl logs my-app | kdiag explain
  kdiag explain "Failed to resolve 'ip-10-0-1-5.ec2.internal:9092': Name or service not known"
  pbpaste | kdiag explain - --format markdown

\b
Input is read line by line (a 100 MB log is fine, and .gz files are read as such); lines
longer than 4096 characters are cut, binary bytes are replaced. Secrets in the input
(sasl.password=..., password="..." in a JAAS line) are never printed.

\b
Exit status:
  0    no error or warning found (also when nothing was recognised)
  1    findings of severity error or warning
  2    bad input or usage (an unreadable file; no input given)
"""

SHORT_HELP = "Explain a Kafka client's error output: findings, fixes, and how to confirm them."
FormatOption = format_option(
    "text (the findings, default), json (the kdiag.explain/1 document) or markdown (for a ticket).")

TextArgument = Annotated[list[str] | None, typer.Argument(
    metavar="[TEXT]...", show_default=False,
    help="The client's output, as words or one quoted paste; a lone path to a file is read as the log; '-' reads "
         "stdin. Without TEXT or --file, stdin is read.",
)]
FileOption = Annotated[str | None, typer.Option(
    "--file", "-f", metavar="LOG", show_default=False, help="Read the client's output from LOG (plain or .gz).",
)]


def explain_command(
    ctx: typer.Context,
    text: TextArgument = None,
    file: FileOption = None,
    fmt: FormatOption = None,
    json_flag: JsonOption = False,
    debug: DebugOption = False,
) -> ExitStatus:
    env = environment(ctx)
    return run_explain_command(text or [], file=file, env=env, fmt=choose_format(fmt, json_flag))


def run_explain_command(text: list[str], *, file: str | None, env: Environment, fmt: Format = Format.TEXT) -> ExitStatus:
    """Reads the input (TEXT, --file or stdin), explains it, prints it; exit 1 if it shows problems."""
    from kdiag.explain.engine import explain_text
    from kdiag.explain.reader import read_blocks
    from kdiag.inputfile import MAX_LOG, STDIN, looks_like_path, open_input
    from kdiag.render.explain import render_explanation

    if text and file is not None:
        raise UsageError("give the log as TEXT or with --file, not both")
    if len(text) == 1 and text[0] != "-" and (os.path.isfile(text[0]) or looks_like_path(text[0])):
        # `kdiag explain producer.log`: what the user meant, no error line is a path; and a path that
        # does not exist is a mistyped file name, not a log line to find nothing in
        file, text = text[0], []
    if file is not None:
        with open_input(file, what="--file", limit=MAX_LOG) as handle:
            explanation = _explain_stream(read_blocks(handle), f"--file {file}")
    elif text and text != ["-"]:
        explanation = explain_text(" ".join(text))
    else:
        if not text and env.stdin_isatty:
            raise UsageError("no input: give the client's output as TEXT, with --file LOG, or on stdin "
                             "(e.g. kdiag explain --file producer.log)")
        stdin = getattr(env.stdin, "buffer", None)  # a StringIO (tests) has no bytes under it
        stream = env.stdin if stdin is None else open_input(STDIN, what="stdin", limit=MAX_LOG, stdin=stdin)
        explanation = _explain_stream(read_blocks(stream), "stdin")
    env.write(render_explanation(explanation, fmt, width=env.width, color=env.color and fmt is Format.TEXT,
                                 scrub=env.scrub))
    return exit_status(explanation)


def _explain_stream(blocks: Iterable[Block], where: str) -> Explanation:
    """Reading can still fail halfway (an I/O error, a truncated or corrupt .gz): one line, exit 2."""
    import zlib

    from kdiag.explain.engine import explain

    try:
        return explain(blocks)
    except (OSError, EOFError, zlib.error) as exc:
        raise UsageError(f"cannot read {where}: {getattr(exc, 'strerror', None) or exc}") from None


def exit_status(explanation: Explanation) -> ExitStatus:
    return ExitStatus.PROBLEMS if explanation.problems else ExitStatus.OK


def register(app: typer.Typer) -> None:
    app.command("explain", help=HELP, epilog=EPILOG, short_help=SHORT_HELP)(explain_command)
