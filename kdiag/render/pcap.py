"""The view of ``kdiag pcap`` and of ``--capture``: a CaptureSummary as text, JSON or Markdown.

The text is a tcpdump-like timeline, the summary, then the findings (drawn as every command draws
them, ``kdiag.render.finding_layout``); the Markdown the same, ready to paste into a ticket. Pure: summary
in, string out. Every string a capture holds came off the wire: the TEXT and MARKDOWN views show the
summary as ``kdiag.render.safe.displayable`` makes it (scrubbed, printable); JSON stays exact.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from kdiag.capture.model import FAILED_HANDSHAKES, KAFKA, CapturedMetadata, CaptureSummary, TimelineEvent
from kdiag.render.formats import Format, draw
from kdiag.render.console import console_text, text_console
from kdiag.render.finding_layout import draw_finding, finding_markdown
from kdiag.render.markup import fence, inline_code, table_cell
from kdiag.report import Endpoint
from probes.results import KafkaBroker

NO_PROBLEMS = "No problems seen in the captured traffic."


def render_capture(summary: CaptureSummary, fmt: Format, *, width: int = 100, color: bool = False,
                   scrub: Callable[[str], str] | None = None) -> str:
    """The summary as text (timeline, summary, findings), JSON (``kdiag.pcap/1``) or Markdown."""
    return draw(summary, fmt, as_json=_json, as_text=_text, as_markdown=capture_markdown,
                width=width, color=color, scrub=scrub)


def _json(summary: CaptureSummary) -> str:
    import json

    from kdiag.capture.model import summary_to_dict

    return json.dumps(summary_to_dict(summary), indent=2) + "\n"


def _text(summary: CaptureSummary, width: int, color: bool) -> str:
    console = text_console(width=width, color=color)
    draw_capture(console, summary)
    return console_text(console)


def render_text(summary: CaptureSummary, *, width: int = 100, color: bool = False,
                scrub: Callable[[str], str] | None = None) -> str:
    return render_capture(summary, Format.TEXT, width=width, color=color, scrub=scrub)


def render_markdown(summary: CaptureSummary, *, scrub: Callable[[str], str] | None = None) -> str:
    return render_capture(summary, Format.MARKDOWN, scrub=scrub)



def render_timeline(summary: CaptureSummary) -> list[str]:
    """tcpdump-like lines: time, ``src > dst``, what was said."""
    lines = []
    for event in summary.timeline:
        lines.append(f"{event.time[11:26]} {event.src} > {event.dst}: {_event_text(event)}")
        if event.metadata is not None and event.metadata < len(summary.metadata):
            lines.extend(_metadata_lines(summary, summary.metadata[event.metadata]))
    if summary.timeline_dropped:
        lines.append(f"... {summary.timeline_dropped} more events not shown (the timeline keeps the first "
                     f"{len(summary.timeline)}; the summary below covers the whole capture)")
    return lines


def _event_text(event: TimelineEvent) -> str:
    detail = f" {event.detail}" if event.detail else ""
    if event.kind in ("request", "response"):
        what = f"{event.api} v{event.api_version}" if event.api else "Kafka"
        text = f"{what} {event.kind} correlation_id={event.correlation_id}"
        return text + (f" ({event.detail})" if event.detail and event.kind == "response" else detail)
    return {
        "syn": f"Flags [S]{detail}",
        "syn_ack": "Flags [S.]",
        "rst": "Flags [R]",
        "icmp": event.detail or "ICMP unreachable",
        "foreign": f"not Kafka: {event.detail}",
    }.get(event.kind, f"{event.kind}{detail}")


def _metadata_lines(summary: CaptureSummary, md: CapturedMetadata) -> list[str]:
    plural = "s" if len(md.brokers) != 1 else ""
    error = f", error {md.error}" if md.error else ""
    return ([f"    cluster_id {md.cluster_id or '-'}, controller {md.controller_id}, {len(md.brokers)} broker{plural}"
             f"{error}"] + [f"      {_broker_line(summary, broker)}" for broker in md.brokers])


def _broker_line(summary: CaptureSummary, broker: KafkaBroker) -> str:
    """``node 1  host:port  rack r``, then ``[nxdomain]`` when the same run found the host unusable."""
    status = summary.status_of(broker.host, broker.port)
    return (f"node {broker.node_id}  {Endpoint(broker.host, broker.port)}  rack {broker.rack or '-'}"
            + (f"  [{status}]" if status else ""))


def render_summary(summary: CaptureSummary) -> str:
    """The summary's lines (all but the findings)."""
    out: list[str] = [f"{summary.source}: {summary.packets} packets, {summary.tcp_packets} TCP, "
                      f"{sum(f.protocol == KAFKA for f in summary.flows)} Kafka connections, "
                      f"{len(summary.metadata)} Metadata responses decoded"]
    if summary.clients:
        out.append("\nClients:")
        for client in summary.clients:
            ids = f"  client_id {', '.join(client.client_ids)}" if client.client_ids else ""
            out.append(f"  {client.address}  {client.connections} connection(s){ids}")
        out.append("Bootstrap endpoints: " + (", ".join(summary.bootstrap) or "-"))
    if summary.listeners:
        out.append("\nAdvertised brokers, per listener (the server port the client connected on):")
        for view in summary.listeners:
            out.append(f"  port {view.port} via {', '.join(view.servers)}  ({view.responses} response(s), "
                       f"cluster_id {view.cluster_id or '-'}, controller {view.controller_id})")
            out.extend(f"    {_broker_line(summary, broker)}" for broker in view.brokers)
    if summary.coordinators:
        out.append("\nCoordinators:")
        out.extend(f"  {cd.key or '-'}: " + (f"node {cd.node_id} at {Endpoint(cd.host, cd.port)}" if cd.error == "NONE"
                                            else cd.error) for cd in summary.coordinators)
    if summary.advertised_connections:
        out.append("\nConnections to advertised addresses:")
        for ac in summary.advertised_connections:
            by = "" if ac.matched_by == "address" else "  (matched by port: the name's address is not in the capture)"
            out.append(f"  {ac.client} > {ac.server}  node {','.join(map(str, ac.node_ids))} {ac.advertised}  "
                       f"handshake {ac.handshake}" + (f" after {ac.syn_packets} SYN(s)" if ac.handshake in
                                                       FAILED_HANDSHAKES else "") + by)
    if summary.errors:
        out.append("\nError codes in responses:")
        out.extend(f"  {e.error} ({e.code}) x{e.count} in {e.api} from {e.server}"
                   + (f", e.g. {e.subject}" if e.subject else "") + f" (first at packet {e.first_packet})"
                   for e in summary.errors)
    foreign = [f for f in summary.flows if f.foreign is not None]
    if foreign:
        out.append("\nTLS or not Kafka:")
        out.extend(f"  {f.client} > {f.server}  {f.protocol}: the {f.foreign_from} sent {f.foreign.description}"
                   for f in foreign)
    unanswered = [f for f in summary.flows if f.handshake in FAILED_HANDSHAKES
                  and not any(ac.server == f.server and ac.client == f.client for ac in summary.advertised_connections)]
    if unanswered:
        out.append("\nConnections that never completed:")
        out.extend(f"  {f.client} > {f.server}  {f.handshake} ({f.syn_packets} SYN)" for f in unanswered)
    if summary.other_flows:
        out.append(f"\n{summary.other_flows} other TCP connection(s) not shown: not Kafka, and not to a port Kafka "
                   "was seen on or expected on.")
    if summary.warnings:
        out.append(f"\nDecode warnings ({len(summary.warnings)}):")
        out.extend(f"  packet {w.packet}: {w.message}" if w.packet else f"  {w.message}" for w in summary.warnings)
    return "\n".join(out)


def draw_capture(console: Console, summary: CaptureSummary) -> None:
    """The timeline, the summary and the findings of a summary ``displayable`` made, on ``console``
    (the pcap view's own, or the report's under "On the wire"). The lines are never wrapped: they are
    read like tcpdump's, and addresses must stay whole."""
    timeline = render_timeline(summary)
    lines = timeline + ([""] if timeline else []) + render_summary(summary).split("\n")
    console.print(Text("\n".join(lines)), no_wrap=True, crop=False, overflow="ignore")
    console.print()
    if not summary.findings:
        console.print(Text(NO_PROBLEMS))
        console.print()
        return
    console.print(Text(f"Findings ({len(summary.findings)}):", style="bold"))
    console.print()
    for finding in summary.findings:
        draw_finding(console, finding)


def capture_markdown(summary: CaptureSummary) -> str:
    """A summary ``displayable`` made, as Markdown."""
    out = [f"## kdiag pcap: {inline_code(summary.source)}", "",
           f"{summary.packets} packets, {summary.tcp_packets} TCP, "
           f"{sum(f.protocol == KAFKA for f in summary.flows)} Kafka connections, "
           f"{len(summary.metadata)} Metadata responses decoded.", ""]
    if summary.listeners:
        out += ["### Advertised brokers per listener", "",
                "| port | via | node_id | host:port | rack |", "|---|---|---|---|---|"]
        for view in summary.listeners:
            for broker in view.brokers:
                status = summary.status_of(broker.host, broker.port)
                out.append(f"| {view.port} | {table_cell(', '.join(view.servers))} | {broker.node_id} | "
                           f"{table_cell(inline_code(str(Endpoint(broker.host, broker.port))))}"
                           f"{f' ({status})' if status else ''} | {table_cell(broker.rack or '-')} |")
        out.append("")
    if summary.advertised_connections:
        out += ["### Connections to advertised addresses", "", "| client | server | node | advertised | handshake |",
                "|---|---|---|---|---|"]
        out += [f"| {table_cell(ac.client)} | {table_cell(ac.server)} | {','.join(map(str, ac.node_ids))} | "
                f"{table_cell(inline_code(ac.advertised))} | {ac.handshake} |"
                for ac in summary.advertised_connections]
        out.append("")
    if summary.findings:
        out += ["### Findings", ""]
        for finding in summary.findings:
            out += [finding_markdown(finding, level=4), ""]
    else:
        out += [NO_PROBLEMS, ""]
    out += ["### Summary", "", fence(render_summary(summary)), ""]
    if summary.timeline:
        out += ["### Timeline", "", fence("\n".join(render_timeline(summary))), ""]
    return "\n".join(out)
