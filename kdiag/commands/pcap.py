"""``kdiag pcap FILE`` and the hooks ``kdiag bootstrap --capture`` calls.

``register(app)`` adds the ``pcap`` command to kdiag's typer app. ``run_pcap`` does the work and
returns the exit status: 0 when the capture shows no problem, 1 when it has findings, and bad
input (not a capture, an unreadable file, a bad ``--port``) raises ``UsageError``, which kdiag's
boundary prints as one line and exit 2.

For the bootstrap command: ``start_live_capture`` before the probe (it raises the one-line
``CapturePermissionError`` without root/CAP_NET_RAW), ``finish_live_capture`` after it.
"""

# No ``from __future__ import annotations``: typer reads the options' Annotated types at runtime,
# and register() builds them from kdiag.cli's shared aliases.

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Optional, Protocol

import typer

from kdiag.exitstatus import ExitStatus
from kdiag.render import Format

if TYPE_CHECKING:
    from kdiag.capture.live import LiveCapture
    from kdiag.capture.model import CaptureSummary
    from kdiag.report import Endpoint, Report

class Output(Protocol):
    def write(self, text: str) -> object: ...


TIMELINE_EVENTS = 10_000  # timeline lines kept for text and Markdown; --json keeps none

PCAP_HELP = """\
Decode a pcap or pcapng capture of Kafka clients: a tcpdump-like timeline of the Kafka requests and
responses with every broker the Metadata answers advertise, then a summary: the clients, their
bootstrap endpoints, the broker list each listener returned, error codes, TLS or non-Kafka flows,
and whether the connections to advertised addresses completed. Problems come with the fix.
Kafka is found on any port by its framing; --port forces it on a port.
"""

PCAP_EPILOG = """\
\b
Examples:
  tcpdump -i any -w kafka.pcap 'tcp port 9092'    # reproduce the failure, then Ctrl-C
  kdiag pcap kafka.pcap
  kdiag pcap capture.pcapng --port 29092 --json > capture.json
  kdiag pcap kafka.pcap --format markdown

\b
Exit status:
  0  no problem seen in the capture
  1  problems found (the findings say which)
  2  bad input: not a pcap/pcapng file, unreadable, bad --port (one line on stderr)
"""


def capture_error(exc: Exception) -> Exception:
    """A capture problem as kdiag's usage error (one line, exit 2)."""
    from kdiag.exitstatus import UsageError

    return UsageError(str(exc))


def run_pcap(path: str, *, ports: Iterable[int] = (), fmt: Format = Format.TEXT, out: Output) -> ExitStatus:
    """Decodes the capture at ``path`` and writes it to ``out`` as ``fmt``."""
    summary = analyse_file(path, ports=ports, keep_events=0 if fmt is Format.JSON else TIMELINE_EVENTS)
    out.write(render_capture(summary, fmt))
    return ExitStatus.PROBLEMS if summary.problems else ExitStatus.OK


def analyse_file(path: str, *, ports: Iterable[int] = (), keep_events: int = 0) -> "CaptureSummary":
    from kdiag.capture.flows import CaptureAnalyzer
    from kdiag.capture.model import CaptureWarning
    from kdiag.capture.pcapio import CaptureError, open_capture
    from kdiag.capture.timeline import summarize

    ports = tuple(ports)
    bad = [p for p in ports if not 1 <= p <= 65535]
    if bad:
        raise capture_error(ValueError(f"--port {bad[0]} is not a TCP port (1-65535)"))
    try:
        reader, stream = open_capture(path)
    except CaptureError as exc:
        raise capture_error(exc) from None
    except OSError as exc:
        raise capture_error(OSError(f"cannot read {path}: {exc.strerror or exc}")) from None
    with stream:
        analyzer = CaptureAnalyzer(ports=ports, keep_events=keep_events)
        try:
            analyzer.feed_packets(reader)
        except OSError as exc:  # the file became unreadable mid-way: keep what was decoded
            reader.warnings.append((analyzer.packets + 1, f"reading stopped: {exc.strerror or exc}"))
        analyzer.finish()
    warnings = [CaptureWarning(packet, message) for packet, message in reader.warnings]
    return summarize(analyzer, source=path, warnings=warnings)


def render_capture(summary: "CaptureSummary", fmt: Format) -> str:
    """The summary as text (timeline, then summary), JSON (``kdiag.pcap/1``) or Markdown."""
    if fmt is Format.JSON:
        import json

        from kdiag.capture.model import summary_to_dict

        return json.dumps(summary_to_dict(summary), indent=2) + "\n"
    from kdiag.capture.timeline import render_markdown, render_text

    return render_markdown(summary) if fmt is Format.MARKDOWN else render_text(summary)


# --- kdiag bootstrap --capture -------------------------------------------------------------------------


def start_live_capture(targets: Sequence["Endpoint"], *, iface: Optional[str] = None,
                       pcap_out: Optional[str] = None) -> "LiveCapture":
    """Starts sniffing before the probe's first packet. ``targets`` are the bootstrap endpoints:
    their ports are read as Kafka whatever the bytes. Raises ``UsageError`` (one line, exit 2)
    when capturing is not permitted, the interface does not exist or ``pcap_out`` is unwritable."""
    from kdiag.capture.live import LiveCapture
    from kdiag.capture.pcapio import CaptureError

    capture = LiveCapture(iface=iface, kafka_ports={t.port for t in targets}, pcap_out=pcap_out)
    try:
        capture.start()
    except CaptureError as exc:
        raise capture_error(exc) from None
    return capture


def finish_live_capture(capture: "LiveCapture", report: Optional["Report"] = None) -> "CaptureSummary":
    """Stops the capture; the summary marks the advertised hosts ``report`` found unusable."""
    capture.stop()
    if report is None:
        return capture.summary()
    return capture.summary(broker_statuses(report), broker_resolutions(report))


def broker_statuses(report: "Report") -> dict[tuple[str, int], str]:
    """``(host, port) -> status`` of each advertised broker (and the coordinator): the first stage
    that failed for it (dns, then tcp, then kafka), or ``ok``."""
    statuses: dict[tuple[str, int], str] = {}
    cluster = report.cluster
    for broker in cluster.brokers if cluster else ():
        statuses[(broker.host, broker.port)] = next(
            (s for s in (broker.dns.status, broker.tcp.status, broker.kafka.status) if s not in ("ok", "skip")), "ok")
    coordinator = cluster.coordinator if cluster else None
    if coordinator is not None and coordinator.host and coordinator.port:
        for result in (coordinator.dns, coordinator.tcp):
            if result is not None and result.status not in ("ok", "skip"):
                statuses.setdefault((coordinator.host, coordinator.port), result.status)
                break
    return statuses


def broker_resolutions(report: "Report") -> dict[str, tuple[str, ...]]:
    """Each advertised name and the addresses this run resolved it to."""
    cluster = report.cluster
    return {b.host: tuple(b.dns.addresses) for b in (cluster.brokers if cluster else ()) if b.dns.addresses}


# --- registration ------------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    """Adds ``kdiag pcap`` to ``app`` (call it where kdiag.cli registers its commands)."""
    from kdiag.cli import JsonOption, choose_format, environment

    FormatOption = Annotated[Optional[Format], typer.Option(
        "--format", case_sensitive=False, show_default=False,
        help="text (timeline and summary, default), json (the kdiag.pcap/1 document) or markdown (for a ticket).")]

    def pcap(
        ctx: typer.Context,
        file: Annotated[str, typer.Argument(metavar="FILE", help="A pcap or pcapng file (tcpdump -w, Wireshark).",
                                            show_default=False)],
        port: Annotated[Optional[list[int]], typer.Option(
            "--port", metavar="PORT", show_default=False,
            help="Treat this server port as Kafka whatever its bytes look like; repeatable.")] = None,
        fmt: FormatOption = None,
        json_flag: JsonOption = False,
    ) -> ExitStatus:
        return run_pcap(file, ports=port or (), fmt=choose_format(fmt, json_flag), out=environment(ctx))

    app.command("pcap", help=PCAP_HELP, epilog=PCAP_EPILOG,
                short_help="Decode a capture: the metadata on the wire, the timeline, the findings.")(pcap)
