"""The view of ``kdiag pcap`` and of ``--capture``: a CaptureSummary as text, JSON or Markdown.

``render_text`` prints a tcpdump-like timeline followed by the summary; ``render_markdown`` the
same, ready to paste into a ticket. Pure: summary in, string out.
"""

from __future__ import annotations

from kdiag.capture.model import FAILED_HANDSHAKES, KAFKA, CapturedMetadata, CaptureSummary, TimelineEvent
from kdiag.render import Format
from kdiag.report import Endpoint
from probes.results import KafkaBroker


def render_capture(summary: CaptureSummary, fmt: Format) -> str:
    """The summary as text (timeline, then summary), JSON (``kdiag.pcap/1``) or Markdown."""
    if fmt is Format.JSON:
        import json

        from kdiag.capture.model import summary_to_dict

        return json.dumps(summary_to_dict(summary), indent=2) + "\n"
    return render_markdown(summary) if fmt is Format.MARKDOWN else render_text(summary)



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


def render_summary(summary: CaptureSummary, *, findings: bool = True) -> str:
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
    if findings:
        out.extend(_findings_text(summary))
    if summary.warnings:
        out.append(f"\nDecode warnings ({len(summary.warnings)}):")
        out.extend(f"  packet {w.packet}: {w.message}" if w.packet else f"  {w.message}" for w in summary.warnings)
    return "\n".join(out)


def _findings_text(summary: CaptureSummary) -> list[str]:
    if not summary.findings:
        return ["\nNo problems seen in the captured traffic."]
    out = [f"\nFindings ({len(summary.findings)}):"]
    for f in summary.findings:
        out.append(f"  {f.severity.upper()} {f.id}: {f.title}")
        out.append(f"    {f.explanation}")
        if f.fix:
            out.append("    Fix:")
            out.extend(f"      {line}" for line in f.fix.splitlines())
    return out


def render_text(summary: CaptureSummary) -> str:
    timeline = render_timeline(summary)
    return "\n".join(timeline + ([""] if timeline else []) + [render_summary(summary)]) + "\n"


def render_markdown(summary: CaptureSummary) -> str:
    out = [f"## kdiag pcap: {summary.source}", "",
           f"{summary.packets} packets, {summary.tcp_packets} TCP, "
           f"{sum(f.protocol == KAFKA for f in summary.flows)} Kafka connections, "
           f"{len(summary.metadata)} Metadata responses decoded.", ""]
    if summary.listeners:
        out += ["### Advertised brokers per listener", "",
                "| port | via | node_id | host:port | rack |", "|---|---|---|---|---|"]
        for view in summary.listeners:
            for broker in view.brokers:
                status = summary.status_of(broker.host, broker.port)
                out.append(f"| {view.port} | {', '.join(view.servers)} | {broker.node_id} | "
                           f"`{Endpoint(broker.host, broker.port)}`{f' ({status})' if status else ''} | "
                           f"{broker.rack or '-'} |")
        out.append("")
    if summary.advertised_connections:
        out += ["### Connections to advertised addresses", "", "| client | server | node | advertised | handshake |",
                "|---|---|---|---|---|"]
        out += [f"| {ac.client} | {ac.server} | {','.join(map(str, ac.node_ids))} | `{ac.advertised}` | {ac.handshake} |"
                for ac in summary.advertised_connections]
        out.append("")
    if summary.findings:
        out += ["### Findings", ""]
        for f in summary.findings:
            out += [f"**{f.severity.upper()} `{f.id}`**: {f.title}", "", f.explanation, ""]
            if f.fix:
                out += ["```", f.fix, "```", ""]
    else:
        out += ["No problems seen in the captured traffic.", ""]
    summary_text = render_summary(summary, findings=False)
    out += ["### Summary", "", "```", summary_text, "```", ""]
    if summary.timeline:
        out += ["### Timeline", "", "```", *render_timeline(summary), "```", ""]
    return "\n".join(out)
