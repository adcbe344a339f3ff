"""kdiag's command line: assembles the app from ``kdiag.commands`` and is the one boundary where
errors become messages and exit statuses.

A command lives in ``kdiag/commands/<name>.py`` with its options, its run function and a
``register(app)``; ``kdiag.commands.NAMES`` lists them in the order ``kdiag --help`` shows them.
Keep heavy imports inside the run functions: ``kdiag --help`` imports every command module and
must stay fast.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from typing import Annotated

import typer
import typer.main

from kdiag import __version__
from kdiag.commands import register_all
from kdiag.environment import PROG, Environment, environment
from kdiag.exitstatus import ExitStatus, UsageError

# typer vendors click in recent releases and uses the real one in older ones: find the base class
# of click's own errors (unknown option, missing argument, bad value) from what typer exports.
_ClickException: type[Exception] = next(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException"
)
_NoArgsIsHelp = "NoArgsIsHelpError"


# --- the boundary -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, *, env: Environment | None = None) -> int:
    """Runs kdiag and returns its exit status; the only place errors become messages.

    UsageError and click's own usage errors: one line, exit 2. Ctrl-C: exit 130. Anything else is
    a bug in kdiag: one line (the traceback only with --debug), exit 1, since the run could not show
    the cluster to be healthy; no report is written then.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    env = env or Environment.from_process()
    if any(arg.startswith("-X") for arg in args):  # a usage error may quote a secret given with -X
        from kdiag.clientconfig import secrets_in_arguments

        env.scrub = secrets_in_arguments(args).scrub
    debug = "--debug" in args
    try:
        command = typer.main.get_command(app)
        result = command.main(args=args, prog_name=PROG, standalone_mode=False, obj=env)
    except UsageError as exc:
        env.error(str(exc))
        return ExitStatus.USAGE
    except _ClickException as exc:
        return _click_usage_error(exc, env)
    except KeyboardInterrupt:
        return ExitStatus.INTERRUPTED
    except Exception as exc:  # the one catch-all: a bug, reported as one line
        if debug:
            env.stderr.write(env.scrub(traceback.format_exc()))
        hint = "" if debug else " (run with --debug for the traceback)"
        env.say(f"{PROG}: internal error: {type(exc).__name__}: {exc}{hint}")
        return ExitStatus.PROBLEMS
    if isinstance(result, int):  # ExitStatus, or the code of a typer.Exit / --help / Ctrl-C
        return int(result)
    return ExitStatus.OK


def _click_usage_error(exc: Exception, env: Environment) -> int:
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == _NoArgsIsHelp and ctx is not None:
        env.stderr.write(ctx.get_help() + "\n")
        return ExitStatus.USAGE
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    where = ctx.command_path if ctx is not None else PROG
    env.error(f"{message.rstrip('.')} (see '{where} --help')")
    return ExitStatus.USAGE


# --- the app ----------------------------------------------------------------------------------------

app = typer.Typer(
    name=PROG,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _print_version(ctx: typer.Context, value: bool) -> None:
    if value:
        environment(ctx).write(f"{PROG} {__version__}\n")
        raise typer.Exit(ExitStatus.OK)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print kdiag's version and exit.",
    )] = False,
) -> None:
    """Kafka client-connectivity diagnostics: why your client fails after the bootstrap connection works."""


register_all(app)
