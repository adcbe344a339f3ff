"""What every command shares: the injectable environment a run writes through, and the option
declarations that several commands take (``--format``/``--json``, ``-X``, ``--command-config``,
``--output``, ``--debug``), declared once here.

Everything a command prints goes through ``Environment.write``/``say``, which pass it through the
run's secret scrubber (``scrub``, a ``kdiag.secrets.Scrubber`` set once the client's secrets
are known), so no command can print a password by forgetting to. The views take the same scrubber
(``render(..., scrub=env.scrub)``) to scrub before they escape or wrap anything, and text that came
from outside is made printable by ``kdiag.render.safe`` before it reaches a line.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from kdiag.exitstatus import UsageError
from kdiag.render import Format
from kdiag.secrets import NO_SECRETS

if TYPE_CHECKING:
    from kdiag.clientconfig import ClientSettings

PROG = "kdiag"


@dataclass
class Environment:
    """The streams and terminal facts a run uses, injectable like httpie's, so tests drive the
    real entry point. ``scrub`` is set by a command once it knows the client's secrets; every line
    written through the environment passes through it."""

    stdin: IO[str] = field(default_factory=lambda: sys.stdin)
    stdout: IO[str] = field(default_factory=lambda: sys.stdout)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    stdin_isatty: bool = False
    stdout_isatty: bool = False
    stderr_isatty: bool = False
    color: bool = False
    width: int = 100
    scrub: Callable[[str], str] = NO_SECRETS

    @classmethod
    def from_process(cls) -> Environment:
        def isatty(stream: IO[str] | None) -> bool:
            return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())

        stdout_isatty = isatty(sys.stdout)
        color = stdout_isatty and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
        if os.environ.get("FORCE_COLOR"):
            color = True
        width = shutil.get_terminal_size((100, 24)).columns if stdout_isatty else 100
        return cls(
            stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr,
            stdin_isatty=isatty(sys.stdin), stdout_isatty=stdout_isatty,
            stderr_isatty=isatty(sys.stderr), color=color, width=max(40, width),
        )

    def write(self, text: str) -> None:
        self.stdout.write(self.scrub(text))
        self.stdout.flush()

    def error(self, message: str) -> None:
        self.say(f"{PROG}: error: {message}")

    def warn(self, message: str) -> None:
        self.say(f"{PROG}: warning: {message}")

    def note(self, message: str) -> None:
        self.say(f"{PROG}: note: {message}")

    def say(self, line: str) -> None:
        """One line on stderr, whatever line breaks ``line`` holds, scrubbed, and printable: a message
        may quote what the user or a file gave (a ``--command-config`` key or value)."""
        from kdiag.render.safe import printable

        self.stderr.write(printable(self.scrub(" ".join(line.splitlines())), limit=None) + "\n")
        self.stderr.flush()


def environment(ctx: typer.Context) -> Environment:
    env = ctx.find_root().obj
    return env if isinstance(env, Environment) else Environment.from_process()



# Options shared by commands that take client settings or print reports.
def format_option(formats: str) -> Any:
    """The ``--format`` option of a command, ``formats`` saying what each format prints there."""
    return Annotated[Format | None, typer.Option("--format", case_sensitive=False, show_default=False, help=formats)]


FormatOption = format_option(
    "text (the terminal view, default), json (the kdiag.report/1 report) or markdown (for a ticket).")
JsonOption = Annotated[bool, typer.Option("--json", help="Short for --format json.")]
ClientSettingOption = Annotated[list[str] | None, typer.Option(
    "-X", metavar="KEY=VALUE", show_default=False,
    help="A client setting under its librdkafka name, as kcat takes it; repeatable. Overrides --command-config.",
)]
CommandConfigOption = Annotated[str | None, typer.Option(
    "--command-config", metavar="FILE", show_default=False,
    help="A Java client.properties, as the Kafka CLI tools take it; Java names are mapped to librdkafka's.",
)]
OutputOption = Annotated[str | None, typer.Option(
    "--output", metavar="FILE", show_default=False,
    help="Also write the JSON report to FILE, whatever --format prints.",
)]
DebugOption = Annotated[bool, typer.Option("--debug", help="Show the traceback if kdiag itself fails.")]


def choose_format(fmt: Format | None, json_flag: bool) -> Format:
    if json_flag and fmt not in (None, Format.JSON):
        raise UsageError(f"--json and --format {fmt} disagree; give one of them")
    return Format.JSON if json_flag else (fmt or Format.TEXT)


def load_settings(env: Environment, x_options: Sequence[str], command_config: str | None) -> ClientSettings:
    """The client settings, with ``env`` set to scrub their secrets from everything written."""
    from kdiag.clientconfig import load_client_settings

    settings = load_client_settings(x_options, command_config)
    env.scrub = settings.scrubber
    if settings.ignored:
        env.warn(f"--command-config: ignored Java-only settings librdkafka has no equivalent for:"
                 f" {', '.join(settings.ignored)}")
    return settings
