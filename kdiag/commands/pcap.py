"""``kdiag pcap FILE``: decode someone's capture. ``run_pcap`` does the work and returns the exit
status: 0 when the capture shows no problem, 1 when it has findings; bad input (not a capture, an
unreadable file, a bad ``--port``) raises ``UsageError``: one line and exit 2.
"""

# No ``from __future__ import annotations``: typer reads the options' Annotated types at runtime.

from collections.abc import Iterable
from typing import Annotated, Optional, Protocol

import typer

from kdiag.environment import DebugOption, JsonOption, choose_format, environment, format_option
from kdiag.exitstatus import ExitStatus
from kdiag.render import Format


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


def run_pcap(path: str, *, ports: Iterable[int] = (), fmt: Format = Format.TEXT, out: Output) -> ExitStatus:
    """Decodes the capture at ``path`` and writes it to ``out`` as ``fmt``."""
    from kdiag.capture.session import analyse_file
    from kdiag.render.pcap import render_capture

    summary = analyse_file(path, ports=ports, keep_events=0 if fmt is Format.JSON else TIMELINE_EVENTS)
    out.write(render_capture(summary, fmt))
    return ExitStatus.PROBLEMS if summary.problems else ExitStatus.OK


# --- registration ------------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    """Adds ``kdiag pcap`` to ``app`` (call it where kdiag.cli registers its commands)."""
    FormatOption = format_option(
        "text (timeline and summary, default), json (the kdiag.pcap/1 document) or markdown (for a ticket).")

    def pcap(
        ctx: typer.Context,
        file: Annotated[str, typer.Argument(metavar="FILE", help="A pcap or pcapng file (tcpdump -w, Wireshark).",
                                            show_default=False)],
        port: Annotated[Optional[list[int]], typer.Option(
            "--port", metavar="PORT", show_default=False,
            help="Treat this server port as Kafka whatever its bytes look like; repeatable.")] = None,
        fmt: FormatOption = None,
        json_flag: JsonOption = False,
        debug: DebugOption = False,
    ) -> ExitStatus:
        return run_pcap(file, ports=port or (), fmt=choose_format(fmt, json_flag), out=environment(ctx))

    app.command("pcap", help=PCAP_HELP, epilog=PCAP_EPILOG,
                short_help="Decode a capture: the metadata on the wire, the timeline, the findings.")(pcap)
