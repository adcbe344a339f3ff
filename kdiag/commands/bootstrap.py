"""``kdiag bootstrap``: the staged probes from here to a cluster, diagnosed, as text, JSON or Markdown."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from kdiag.environment import (
    ClientSettingOption,
    CommandConfigOption,
    DebugOption,
    Environment,
    FormatOption,
    JsonOption,
    OutputOption,
    choose_format,
    environment,
    load_settings,
)
from kdiag.exitstatus import ExitStatus, UsageError
from kdiag.render import Format

if TYPE_CHECKING:
    from kdiag.orchestrate import Progress
    from kdiag.report import Endpoint, Report

MAX_SECONDS = 3600.0
DEFAULT_TIMEOUT = 10.0
DEFAULT_CONNECT_TIMEOUT = 3.0
METADATA_VERSIONS = range(0, 14)


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


# The options only kdiag bootstrap has (the shared ones are in kdiag.environment).
TimeoutOption = Annotated[float, typer.Option(
    "--timeout", metavar="SECONDS", show_default=False,
    help="Budget for the whole run, at most 3600 (default 10).",
)]
ConnectTimeoutOption = Annotated[float | None, typer.Option(
    "--connect-timeout", metavar="SECONDS", show_default=False,
    help="Budget for one TCP connect, no more than --timeout (default 3).",
)]
TopicOption = Annotated[str | None, typer.Option(
    "--topic", metavar="NAME", show_default=False,
    help="Topic for the produce/consume round trip (default: a kdiag probe topic).",
)]
NoRoundtripOption = Annotated[bool, typer.Option(
    "--no-roundtrip", help="Stop after checking the advertised brokers.",
)]
NoListenerScanOption = Annotated[bool, typer.Option(
    "--no-listener-scan", help="When the advertised brokers (or the bootstrap port) fail, do not try the "
    "bootstrap host's other ports for a listener that works from here.",
)]
ListenerPortsOption = Annotated[str | None, typer.Option(
    "--listener-ports", metavar="PORT[,...]", show_default=False,
    help="The other ports to try for that (default: the usual Kafka ports, the bootstrap port's neighbours "
    "and the advertised ports).",
)]
MetadataVersionOption = Annotated[int | None, typer.Option(
    "--metadata-version", metavar="N", show_default=False,
    help="Pin the Metadata request version (0-13) instead of the highest both sides support.",
)]
CaptureOption = Annotated[bool, typer.Option(
    "--capture", help="Sniff the run's own traffic and show the metadata the brokers really returned "
    "(needs root or CAP_NET_RAW).",
)]
IfaceOption = Annotated[str | None, typer.Option(
    "--iface", metavar="IFACE", show_default=False, help="With --capture: the interface (default: all).",
)]
PcapOutOption = Annotated[str | None, typer.Option(
    "--pcap-out", metavar="FILE", show_default=False,
    help="With --capture: also write the packets to FILE (pcap, for Wireshark/tshark).",
)]
IdleCheckOption = Annotated[float | None, typer.Option(
    "--idle-check", metavar="SECONDS", show_default=False,
    help="At the end, hold the bootstrap connection idle this long, then ask again: shows a NAT or load "
    "balancer that silently drops idle connections (give --timeout room for it).",
)]
VantageOption = Annotated[str | None, typer.Option(
    "--vantage", metavar="LABEL", envvar="KDIAG_VANTAGE", show_default=False, show_envvar=True,
    help="Where this report is made from, in your words (e.g. k8s/prod-eu/payments): the report's "
    "vantage.label, by which the fleet pipeline groups reports.",
)]


def bootstrap(
    ctx: typer.Context,
    addresses: Annotated[str, typer.Argument(
        metavar="HOST[:PORT][,...]", show_default=False,
        help="Bootstrap servers: host:port, [ipv6]:port or a bare host (port 9092), comma-separated.",
    )],
    fmt: FormatOption = None,
    json_flag: JsonOption = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    connect_timeout: ConnectTimeoutOption = None,
    topic: TopicOption = None,
    no_roundtrip: NoRoundtripOption = False,
    no_listener_scan: NoListenerScanOption = False,
    listener_ports: ListenerPortsOption = None,
    client_settings: ClientSettingOption = None,
    command_config: CommandConfigOption = None,
    metadata_version: MetadataVersionOption = None,
    output: OutputOption = None,
    capture: CaptureOption = False,
    iface: IfaceOption = None,
    pcap_out: PcapOutOption = None,
    idle_check: IdleCheckOption = None,
    vantage: VantageOption = None,
    debug: DebugOption = False,
) -> ExitStatus:
    return run_bootstrap_command(
        addresses, env=environment(ctx), fmt=choose_format(fmt, json_flag), timeout=timeout,
        connect_timeout=connect_timeout, topic=topic, roundtrip=not no_roundtrip,
        x_options=client_settings or (), command_config=command_config,
        metadata_version=metadata_version, output=output, capture=capture, iface=iface, pcap_out=pcap_out,
        scan_listeners=not no_listener_scan, listener_ports=listener_ports, vantage=vantage, idle_check=idle_check,
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
    vantage: str | None = None,
    idle_check: float | None = None,
) -> ExitStatus:
    """``kdiag bootstrap``: validate, run the stages, print the report; exit 1 if it has problems."""
    from kdiag.target import check_topic_name, parse_bootstrap

    timeout = _seconds("--timeout", timeout)
    connect_timeout = _connect_timeout(env, connect_timeout, timeout)
    if metadata_version is not None and metadata_version not in METADATA_VERSIONS:
        raise UsageError(f"--metadata-version must be between 0 and 13, got {metadata_version}")
    if topic is not None:
        check_topic_name(topic)
        if not roundtrip:
            env.warn("--topic is not used with --no-roundtrip")
    targets = parse_bootstrap(addresses)
    settings = load_settings(env, x_options, command_config)
    if output is not None:
        _check_writable(output)
    if (iface is not None or pcap_out is not None) and not capture:
        raise UsageError("--iface and --pcap-out go with --capture")
    if idle_check is not None:
        _check_idle_check(idle_check, timeout)
    ports = _listener_ports(listener_ports, scan_listeners)

    from kdiag import orchestrate

    options = orchestrate.BootstrapOptions(
        targets=targets, timeout=timeout, connect_timeout=connect_timeout, topic=topic,
        roundtrip=roundtrip, metadata_version=metadata_version, client_settings=dict(settings.settings),
        redacted_settings=settings.redacted(), secrets=settings.secrets, scan_listeners=scan_listeners,
        listener_ports=ports, vantage_label=vantage or None, idle_check=idle_check,
    )

    def run(progress: Progress | None) -> Report:
        return orchestrate.run_bootstrap(options, progress=progress)

    if not capture:
        return _emit_report(env, _run_with_progress(env, fmt, run), fmt, output)
    return _emit_report(env, _run_captured(env, fmt, run, targets, iface=iface, pcap_out=pcap_out), fmt, output)


def _check_idle_check(idle_check: float, timeout: float) -> None:
    from kdiag.orchestrate import IDLE_ANSWER_TIMEOUT

    if _seconds("--idle-check", idle_check) + IDLE_ANSWER_TIMEOUT >= timeout:
        raise UsageError(f"--idle-check {idle_check:g} needs a --timeout of more than "
                         f"{idle_check + IDLE_ANSWER_TIMEOUT:g} seconds: the run's budget covers the idle time "
                         "and the answer after it")


def _listener_ports(listener_ports: str | None, scan_listeners: bool) -> tuple[int, ...] | None:
    if listener_ports is None:
        return None
    if not scan_listeners:
        raise UsageError("--listener-ports and --no-listener-scan contradict each other")
    return _ports("--listener-ports", listener_ports)


def _run_captured(env: Environment, fmt: Format, run: Callable[[Progress | None], Report], targets: Sequence[Endpoint],
                  *, iface: str | None, pcap_out: str | None) -> Report:
    """``run`` with a live capture of its packets around it: the report carries what the wire showed."""
    from dataclasses import replace

    from kdiag.capture.session import finish_live_capture, start_live_capture

    sniffer = start_live_capture(targets, iface=iface, pcap_out=pcap_out)  # UsageError if not permitted
    report = None
    try:
        report = _run_with_progress(env, fmt, run)
    finally:
        summary = finish_live_capture(sniffer, report)
    return replace(report, capture=summary)


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
    with LiveProgress(console, scrub=env.scrub) as progress:
        return run(progress)


def _emit_report(env: Environment, report: Report, fmt: Format, output: str | None) -> ExitStatus:
    from kdiag.render import render

    env.write(render(report, fmt, width=env.width, color=env.color and fmt is Format.TEXT, scrub=env.scrub))
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(env.scrub(render(report, Format.JSON)))
        except OSError as exc:
            raise UsageError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    return ExitStatus.PROBLEMS if report.has_problems else ExitStatus.OK


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


def register(app: typer.Typer) -> None:
    app.command(
        "bootstrap", help=BOOTSTRAP_HELP, epilog=BOOTSTRAP_EPILOG,
        short_help="Diagnose why a Kafka client can or cannot work with a cluster from here.",
    )(bootstrap)
