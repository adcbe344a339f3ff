"""kdiag's command line: typer parses, ``run_*_command`` does the work, ``main`` is the one boundary.

Adding a subcommand: write a function taking ``ctx: typer.Context`` plus its options (reuse the
``*Option`` aliases below), get the ``Environment`` with ``environment(ctx)``, return an
``ExitStatus``, raise ``UsageError`` for bad input, and register it at the bottom of this file
with ``app.command("name", ...)(function)``. Keep heavy imports inside the function: ``kdiag
--help`` imports every registered module and must stay fast.
"""

from __future__ import annotations

import os
import shutil
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Annotated

import typer
import typer.main

from kdiag import __version__
from kdiag.exitstatus import ExitStatus, UsageError, exit_status_for
from kdiag.render import Format

if TYPE_CHECKING:
    from kdiag.clientconfig import ClientSettings
    from kdiag.orchestrate import Progress
    from kdiag.report import Report

PROG = "kdiag"
MAX_SECONDS = 3600.0
DEFAULT_TIMEOUT = 10.0
DEFAULT_CONNECT_TIMEOUT = 3.0
METADATA_VERSIONS = range(0, 14)

# typer vendors click in recent releases and uses the real one in older ones: find the base class
# of click's own errors (unknown option, missing argument, bad value) from what typer exports.
_ClickException: type[Exception] = next(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException"
)
_NoArgsIsHelp = "NoArgsIsHelpError"


def _no_scrub(text: str) -> str:
    return text


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
    scrub: Callable[[str], str] = _no_scrub

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
        """One line on stderr, whatever line breaks ``line`` holds."""
        self.stderr.write(self.scrub(" ".join(line.splitlines())) + "\n")
        self.stderr.flush()


def environment(ctx: typer.Context) -> Environment:
    env = ctx.find_root().obj
    return env if isinstance(env, Environment) else Environment.from_process()


# --- the boundary -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, *, env: Environment | None = None) -> int:
    """Runs kdiag and returns its exit status; the only place errors become messages.

    UsageError and click's own usage errors: one line, exit 2. Ctrl-C: exit 130. Anything else is
    a bug in kdiag: one line (the traceback only with --debug), exit 1, since the run could not show
    the cluster to be healthy; no report is written then.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    env = env or Environment.from_process()
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


# Options shared by commands that take client settings or print reports.
FormatOption = Annotated[Format | None, typer.Option(
    "--format", case_sensitive=False, show_default=False,
    help="text (the terminal view, default), json (the kdiag.report/1 report) or markdown (for a ticket).",
)]
JsonOption = Annotated[bool, typer.Option("--json", help="Short for --format json.")]
ClientSettingOption = Annotated[list[str] | None, typer.Option(
    "-X", metavar="KEY=VALUE", show_default=False,
    help="A client setting under its librdkafka name, as kcat takes it; repeatable. Overrides --command-config.",
)]
CommandConfigOption = Annotated[str | None, typer.Option(
    "--command-config", metavar="FILE", show_default=False,
    help="A Java client.properties, as the Kafka CLI tools take it; Java names are mapped to librdkafka's.",
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
    env.scrub = settings.scrub
    if settings.ignored:
        env.warn(f"--command-config: ignored Java-only settings librdkafka has no equivalent for:"
                 f" {', '.join(settings.ignored)}")
    return settings


# --- kdiag bootstrap -------------------------------------------------------------------------------

BOOTSTRAP_HELP = """\
Diagnose a Kafka client's connection from this machine: DNS, TCP, the metadata the brokers
advertise, whether each advertised broker resolves and answers from here, and a produce/consume
round trip. Each problem found comes with the fix.
"""

BOOTSTRAP_EPILOG = """\
\b
Examples:
  kdiag bootstrap ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092
  kdiag bootstrap 'kafka-1:9092,kafka-2:9092' --json > report.json
  kdiag bootstrap broker:9093 --command-config client.properties --format markdown
  kdiag bootstrap [::1]:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN

\b
Exit status:
  0    no problem found
  1    problems found (the report says which); also when kdiag itself fails,
       with 'kdiag: internal error:' on stderr and no report
  2    bad input or usage (one line on stderr)
  130  interrupted
"""


def bootstrap(
    ctx: typer.Context,
    addresses: Annotated[str, typer.Argument(
        metavar="HOST[:PORT][,...]", show_default=False,
        help="Bootstrap servers: host:port, [ipv6]:port or a bare host (port 9092), comma-separated.",
    )],
    fmt: FormatOption = None,
    json_flag: JsonOption = False,
    timeout: Annotated[float, typer.Option(
        "--timeout", metavar="SECONDS", show_default=False,
        help="Budget for the whole run, at most 3600 (default 10).",
    )] = DEFAULT_TIMEOUT,
    connect_timeout: Annotated[float | None, typer.Option(
        "--connect-timeout", metavar="SECONDS", show_default=False,
        help="Budget for one TCP connect, no more than --timeout (default 3).",
    )] = None,
    topic: Annotated[str | None, typer.Option(
        "--topic", metavar="NAME", show_default=False,
        help="Topic for the produce/consume round trip (default: a kdiag probe topic).",
    )] = None,
    no_roundtrip: Annotated[bool, typer.Option(
        "--no-roundtrip", help="Stop after checking the advertised brokers.",
    )] = False,
    no_listener_scan: Annotated[bool, typer.Option(
        "--no-listener-scan", help="When the advertised brokers (or the bootstrap port) fail, do not try the "
        "bootstrap host's other ports for a listener that works from here.",
    )] = False,
    listener_ports: Annotated[str | None, typer.Option(
        "--listener-ports", metavar="PORT[,...]", show_default=False,
        help="The other ports to try for that (default: the usual Kafka ports, the bootstrap port's neighbours "
        "and the advertised ports).",
    )] = None,
    client_settings: ClientSettingOption = None,
    command_config: CommandConfigOption = None,
    metadata_version: Annotated[int | None, typer.Option(
        "--metadata-version", metavar="N", show_default=False,
        help="Pin the Metadata request version (0-13) instead of the highest both sides support.",
    )] = None,
    output: Annotated[str | None, typer.Option(
        "--output", metavar="FILE", show_default=False,
        help="Also write the JSON report to FILE, whatever --format prints.",
    )] = None,
    capture: Annotated[bool, typer.Option(
        "--capture", help="Sniff the run's own traffic and show the metadata the brokers really returned "
        "(needs root or CAP_NET_RAW).",
    )] = False,
    iface: Annotated[str | None, typer.Option(
        "--iface", metavar="IFACE", show_default=False, help="With --capture: the interface (default: all).",
    )] = None,
    pcap_out: Annotated[str | None, typer.Option(
        "--pcap-out", metavar="FILE", show_default=False,
        help="With --capture: also write the packets to FILE (pcap, for Wireshark/tshark).",
    )] = None,
    debug: DebugOption = False,
) -> ExitStatus:
    return run_bootstrap_command(
        addresses, env=environment(ctx), fmt=choose_format(fmt, json_flag), timeout=timeout,
        connect_timeout=connect_timeout, topic=topic, roundtrip=not no_roundtrip,
        x_options=client_settings or (), command_config=command_config,
        metadata_version=metadata_version, output=output, capture=capture, iface=iface, pcap_out=pcap_out,
        scan_listeners=not no_listener_scan, listener_ports=listener_ports,
    )


def run_bootstrap_command(
    addresses: str,
    *,
    env: Environment,
    fmt: Format = Format.TEXT,
    timeout: float = DEFAULT_TIMEOUT,
    connect_timeout: float | None = None,
    topic: str | None = None,
    roundtrip: bool = True,
    x_options: Sequence[str] = (),
    command_config: str | None = None,
    metadata_version: int | None = None,
    output: str | None = None,
    capture: bool = False,
    iface: str | None = None,
    pcap_out: str | None = None,
    scan_listeners: bool = True,
    listener_ports: str | None = None,
) -> ExitStatus:
    """``kdiag bootstrap``: validate, run the stages, print the report; exit 1 if it has problems."""
    from kdiag.target import parse_bootstrap

    timeout = _seconds("--timeout", timeout)
    connect_timeout = _connect_timeout(env, connect_timeout, timeout)
    if metadata_version is not None and metadata_version not in METADATA_VERSIONS:
        raise UsageError(f"--metadata-version must be between 0 and 13, got {metadata_version}")
    if topic is not None:
        _check_topic(topic)
        if not roundtrip:
            env.warn("--topic is not used with --no-roundtrip")
    targets = parse_bootstrap(addresses)
    settings = load_settings(env, x_options, command_config)
    if output is not None:
        _check_writable(output)
    if (iface is not None or pcap_out is not None) and not capture:
        raise UsageError("--iface and --pcap-out go with --capture")
    ports = None
    if listener_ports is not None:
        if not scan_listeners:
            raise UsageError("--listener-ports and --no-listener-scan contradict each other")
        ports = _ports("--listener-ports", listener_ports)

    from kdiag import orchestrate

    options = orchestrate.BootstrapOptions(
        targets=targets, timeout=timeout, connect_timeout=connect_timeout, topic=topic,
        roundtrip=roundtrip, metadata_version=metadata_version, client_settings=dict(settings.settings),
        redacted_settings=settings.redacted(), secrets=settings.secrets, scan_listeners=scan_listeners,
        listener_ports=ports,
    )
    if not capture:
        report = _run_with_progress(env, fmt, lambda progress: orchestrate.run_bootstrap(options, progress=progress))
        return _emit_report(env, report, fmt, output)
    from dataclasses import replace

    from kdiag.capture.command import finish_live_capture, start_live_capture

    sniffer = start_live_capture(targets, iface=iface, pcap_out=pcap_out)  # UsageError if not permitted
    report = None
    try:
        report = _run_with_progress(env, fmt, lambda progress: orchestrate.run_bootstrap(options, progress=progress))
    finally:
        summary = finish_live_capture(sniffer, report)
    return _emit_report(env, replace(report, capture=summary), fmt, output)


def _ports(option: str, text: str) -> tuple[int, ...]:
    ports = []
    for word in text.split(","):
        word = word.strip()
        if not word.isdigit() or not 0 < int(word) < 65536:
            raise UsageError(f"{option} takes ports 1-65535, comma-separated: {word!r} is not one")
        ports.append(int(word))
    return tuple(dict.fromkeys(ports))


def _run_with_progress(env: Environment, fmt: Format, run: Callable[[Progress | None], Report]) -> Report:
    if not (env.stderr_isatty and fmt is Format.TEXT):
        return run(None)
    from rich.console import Console

    from kdiag.render.progress import LiveProgress

    console = Console(file=env.stderr, color_system="truecolor" if env.color else None, force_terminal=True)
    with LiveProgress(console) as progress:
        return run(progress)


def _emit_report(env: Environment, report: Report, fmt: Format, output: str | None) -> ExitStatus:
    from kdiag.render import render

    env.write(render(report, fmt, width=env.width, color=env.color and fmt is Format.TEXT))
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(env.scrub(render(report, Format.JSON)))
        except OSError as exc:
            raise UsageError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    return exit_status_for(report)


def _seconds(option: str, value: float) -> float:
    if not (0 < value <= MAX_SECONDS):  # also false for NaN
        raise UsageError(f"{option} must be more than 0 and at most {MAX_SECONDS:.0f} seconds, got {value:g}")
    return value


def _connect_timeout(env: Environment, value: float | None, timeout: float) -> float:
    if value is None:
        return min(DEFAULT_CONNECT_TIMEOUT, timeout)
    value = _seconds("--connect-timeout", value)
    if value > timeout:
        env.note(f"--connect-timeout {value:g} is longer than --timeout {timeout:g}; using {timeout:g}")
        return timeout
    return value


def _check_topic(name: str) -> None:
    """Kafka's own rule for topic names (org.apache.kafka.common.internals.Topic.validate)."""
    if not name or name in (".", ".."):
        raise UsageError(f"--topic {name!r} is not a valid topic name")
    if len(name) > 249:
        raise UsageError(f"--topic is {len(name)} characters long (Kafka allows 249)")
    bad = next((c for c in name if not (c.isascii() and (c.isalnum() or c in "._-"))), None)
    if bad is not None:
        raise UsageError(f"--topic {name!r}: topic names may hold only letters, digits, '.', '_' and '-', not {bad!r}")


def _check_writable(path: str) -> None:
    """Fail before a run of many seconds, not after it."""
    if os.path.isdir(path):
        raise UsageError(f"cannot write --output {path}: it is a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"cannot write --output {path}: no directory {parent}")
    target = path if os.path.exists(path) else parent
    if not os.access(target, os.W_OK):
        raise UsageError(f"cannot write --output {path}: permission denied")


# --- registration: one line per subcommand --------------------------------------------------------

app.command(
    "bootstrap", help=BOOTSTRAP_HELP, epilog=BOOTSTRAP_EPILOG,
    short_help="Diagnose why a Kafka client can or cannot work with a cluster from here.",
)(bootstrap)

from kdiag.lab.command import lab_app  # noqa: E402  (imports nothing heavy)

app.add_typer(lab_app, name="lab")

from kdiag.capture.command import register as _register_capture  # noqa: E402  (scapy only when capturing)

_register_capture(app)

from kdiag import diff as _diff  # noqa: E402  (cheap: the report model is imported when a diff runs)
from kdiag.explain import command as _explain  # noqa: E402  (cheap: the patterns are imported when it runs)

app.command("explain", **_explain.COMMAND)(_explain.explain_command)
app.command("diff", **_diff.COMMAND)(_diff.diff_command)
