"""Findings from a capture, with the contract's ids, where the captured evidence supports them.

The advertised-listener problems are diagnosed by the very rules ``kdiag bootstrap`` runs
(``kdiag.diagnose``): each distinct Metadata answer a client received becomes a small report,
seen from that client, whose brokers carry only what the capture proves (an IP literal resolves;
a name resolves to the address the client was seen connecting to; a connection attempt's handshake
is its TCP result; nothing else is claimed). Only the rules such a report can honestly feed run.

What the rules cannot see (they describe kdiag's own probe) is written here: a server that answered
a Kafka request with TLS or another protocol, and a TLS client on a listener that hung up on it.
Each finding's evidence carries a ``capture`` object naming the client, the server and the packet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kdiag.capture.model import COMPLETED, FAILED_HANDSHAKES, KAFKA, NO_ANSWER, REFUSED, CapturedMetadata
from kdiag.diagnose import get_rule
from kdiag.diagnose.fixes import client_settings_fix
from kdiag.diagnose.hosts import classify_host, normalise_host
from kdiag.diagnose.rule import finding
from kdiag.finding import Finding
from kdiag.report import BrokerReport, Cluster, CoordinatorReport, Endpoint, MetadataDetail, Report, Stage, Vantage
from probes.hostport import hostport
from probes.results import DnsResult, KafkaCheck, TcpResult

if TYPE_CHECKING:
    from kdiag.capture.model import AdvertisedConnection, CaptureSummary, FlowSummary

# The catalog rules a report built from a capture can feed: they read the metadata, the bootstrap
# endpoint, and per broker the address the client used and its handshake.
CAPTURE_RULES = ("ADVERTISED_NONROUTABLE", "ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE", "ADVERTISED_DUPLICATE",
                 "COORDINATOR_UNREACHABLE")

_TCP_STATUS = {REFUSED: "refused", NO_ANSWER: "timeout", "unreachable": "unreachable"}


def split_endpoint(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def capture_findings(summary: CaptureSummary, resolved: Mapping[str, set[str]]) -> tuple[Finding, ...]:
    found: dict[tuple[str, str], Finding] = {}
    for finding_ in (*_foreign_findings(summary), *_advertised_findings(summary, resolved)):
        found.setdefault((finding_.id, finding_.title), finding_)
    rank = {"error": 0, "warning": 1, "info": 2}
    return tuple(sorted(found.values(), key=lambda f: rank.get(f.severity, 3)))


# --- advertised listeners, through the shared rules -----------------------------------------------


def _advertised_findings(summary: CaptureSummary, resolved: Mapping[str, set[str]]) -> list[Finding]:
    views: dict[tuple, CapturedMetadata] = {}
    for md in summary.metadata:  # one report per distinct answer a client got from a server
        views.setdefault((split_endpoint(md.client)[0], md.server, md.cluster_id, md.brokers), md)
    findings = []
    for md in views.values():
        report = view_report(md, summary, resolved)
        for rule_id in CAPTURE_RULES:
            for found in get_rule(rule_id).run(report):
                findings.append(_with_capture(found, client=md.client, server=md.server, packet=md.packet))
    return findings


def view_report(md: CapturedMetadata, summary: CaptureSummary, resolved: Mapping[str, set[str]]) -> Report:
    """The report a kdiag run on the captured client would have made of this Metadata answer,
    holding only what the capture shows."""
    client_ip = split_endpoint(md.client)[0]
    server_ip, server_port = split_endpoint(md.server)
    attempts = [a for a in summary.advertised_connections
                if split_endpoint(a.client)[0] == client_ip and a.matched_by == "address"]
    kafka_servers = {f.server for f in summary.flows if f.protocol == KAFKA and f.responses}
    brokers = tuple(_broker(b.node_id, b.host, b.port, b.rack, attempts, kafka_servers, resolved)
                    for b in md.brokers)
    kafka = KafkaCheck("ok", metadata_version=md.api_version, cluster_id=md.cluster_id,
                       controller_id=md.controller_id, brokers=md.brokers)
    return Report(
        bootstrap=(Endpoint(server_ip, server_port),),
        stages=(Stage("metadata", "ok", detail=MetadataDetail(endpoint=md.server, kafka=kafka)),),
        cluster=Cluster(md.cluster_id, md.controller_id, brokers,
                        coordinator=_coordinator(summary, client_ip, attempts, kafka_servers, resolved)),
        vantage=Vantage(client_ip, (client_ip,)),
        generated_at=md.time,
    )


def _broker(node_id: int, host: str, port: int, rack: str | None, attempts: list[AdvertisedConnection],
            kafka_servers: set[str], resolved: Mapping[str, set[str]]) -> BrokerReport:
    advertised = hostport(host, port)
    mine = [a for a in attempts if node_id in a.node_ids and advertised in a.advertised.split(" | ")]
    kind = classify_host(host)
    if kind.is_ip:
        dns = DnsResult(host, "ok", (normalise_host(host),), source="literal")
    elif mine or resolved.get(normalise_host(host)):
        addresses = tuple(dict.fromkeys([split_endpoint(a.server)[0] for a in mine]
                                        + sorted(resolved.get(normalise_host(host), ()))))
        dns = DnsResult(host, "ok", addresses, note="the client connected to this address (seen in the capture)")
    else:
        dns = DnsResult(host, "skip", note="not visible in a capture")
    tcp, kafka = TcpResult("skip"), KafkaCheck("skip")
    if mine:
        done = [a for a in mine if a.handshake == COMPLETED]
        shown = done[0] if done else mine[-1]
        address, at_port = split_endpoint(shown.server)
        if done:
            tcp = TcpResult("ok", address, at_port)
            if shown.server in kafka_servers:
                kafka = KafkaCheck("ok")
        elif shown.handshake in FAILED_HANDSHAKES:
            tcp = TcpResult(_TCP_STATUS[shown.handshake], address, at_port,
                            error=f"{shown.syn_packets} SYN(s), {shown.handshake.replace('_', ' ')} (in the capture)")
    return BrokerReport(node_id, host, port, rack, dns=dns, tcp=tcp, kafka=kafka)


def _coordinator(summary: CaptureSummary, client_ip: str, attempts: list[AdvertisedConnection],
                 kafka_servers: set[str], resolved: Mapping[str, set[str]]) -> CoordinatorReport | None:
    answers = [c for c in summary.coordinators if split_endpoint(c.client)[0] == client_ip]
    if not answers:
        return None
    last = answers[-1]
    if last.error != "NONE":
        return CoordinatorReport(last.key, error=last.error)
    pseudo = _broker(last.node_id, last.host, last.port, None, attempts, kafka_servers, resolved)
    return CoordinatorReport(last.key, last.node_id, last.host, last.port,
                             dns=pseudo.dns if pseudo.dns.status != "skip" else None,
                             tcp=pseudo.tcp if pseudo.tcp.status != "skip" else None)


def _with_capture(found: Finding, **facts: Any) -> Finding:
    return replace(found, evidence={**found.evidence, "capture": facts})


# --- what the bytes on a connection said -----------------------------------------------------------


def _foreign_findings(summary: CaptureSummary) -> list[Finding]:
    findings = []
    for flow in summary.flows:
        foreign = flow.foreign
        if foreign is None:
            continue
        tls = foreign.kind in ("tls_alert", "tls_handshake")
        if flow.foreign_from == "server" and flow.client_spoke_kafka:
            findings.append(_tls_expected(flow) if tls else _not_kafka(flow))
        elif flow.foreign_from == "client" and foreign.kind == "tls_handshake" and flow.server_answer != "tls":
            findings.append(_tls_unexpected(flow))
    return findings


def _client_fix(flow: FlowSummary, protocol: str) -> str:
    host, port = split_endpoint(flow.server)
    return client_settings_fix(Report(bootstrap=(Endpoint(host, port),)), protocol=protocol, ca_needed=protocol == "SSL")


def _tls_expected(flow: FlowSummary) -> Finding:
    explanation = (f"The client {flow.client} sent a plaintext Kafka request to {flow.server}, and the server answered "
                   f"with {flow.foreign.description}. That listener expects a TLS handshake first. A client with "
                   "security.protocol=PLAINTEXT fails in misleading ways: librdkafka logs `Disconnected while "
                   "requesting ApiVersion: might be caused by incorrect security.protocol configuration (connecting "
                   "to a SSL listener?)`, and a Java client reads the TLS record as a ~352 MB response size and "
                   "dies with `java.lang.OutOfMemoryError: Java heap space`.")
    return finding("TLS_EXPECTED", "error",
                   f"{flow.server} is a TLS listener, but the client {flow.client} speaks plaintext Kafka to it",
                   explanation, _flow_evidence(flow), _client_fix(flow, "SSL"))


def _not_kafka(flow: FlowSummary) -> Finding:
    explanation = (f"The client {flow.client} sent a Kafka request to {flow.server}, and what came back was "
                   f"{flow.foreign.description} (first bytes `{flow.foreign.preview}`). A Kafka client reads the "
                   "first four bytes as a response size and gives up with a disconnect or an invalid-size error, "
                   "not the real cause.")
    fix = ("Point the client (bootstrap.servers, or the broker's advertised.listeners if the client got this address "
           "from the metadata) at a Kafka listener. The broker's listeners and ports:\n"
           "  grep -E '^(advertised\\.)?listeners' config/server.properties\n"
           f"Then check:  kdiag bootstrap {split_endpoint(flow.server)[0]}:<Kafka listener port>")
    return finding("NOT_KAFKA", "error", f"{flow.server} answered the client {flow.client} with something other than "
                   "Kafka", explanation, _flow_evidence(flow), fix)


def _tls_unexpected(flow: FlowSummary) -> Finding:
    answer = ("closed the connection without answering" if not flow.server_bytes else
              "answered with bytes that are not TLS")
    explanation = (f"The client {flow.client} opened a TLS handshake (a ClientHello) to {flow.server}, and the server "
                   f"{answer}. A plaintext Kafka listener reads the ClientHello as a ~369 MB request size, logs "
                   "`InvalidReceiveException: Invalid receive (size = 369295616 larger than 104857600)` and closes. "
                   "The client sees an SSL handshake failure or an unexpected EOF.")
    return finding("TLS_UNEXPECTED", "error",
                   f"The client {flow.client} speaks TLS to {flow.server}, which does not answer in TLS",
                   explanation, _flow_evidence(flow), _client_fix(flow, "PLAINTEXT"))


def _flow_evidence(flow: FlowSummary) -> dict[str, Any]:
    host, port = split_endpoint(flow.server)
    return {"host": host, "port": port, "speaks": flow.foreign.kind, "description": flow.foreign.description,
            "preview": flow.foreign.preview,
            "capture": {"client": flow.client, "server": flow.server, "packet": flow.first_packet,
                        "foreign_from": flow.foreign_from}}
