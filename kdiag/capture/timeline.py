"""From an analysed capture to a :class:`CaptureSummary` (its views are in :mod:`kdiag.render.pcap`).

``summarize(analyzer)`` answers the support engineer's questions: which clients, which bootstrap
endpoints, which brokers each listener advertised (per server port the client connected on, so the
BOB/FRED case shows as two lists), which error codes came back, which flows were TLS or not Kafka,
and whether the connections clients then opened to advertised addresses completed their handshake.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from kdiag.capture.findings import capture_findings
from kdiag.capture.flows import CaptureAnalyzer
from kdiag.capture.kafka_streams import Connection
from kdiag.capture.model import (
    KAFKA,
    NOT_SEEN,
    AdvertisedConnection,
    CapturedCoordinator,
    CapturedMetadata,
    CaptureSummary,
    CaptureWarning,
    ClientSeen,
    EndpointStatus,
    ErrorSeen,
    FlowSummary,
    ListenerView,
    iso_time,
)
from kdiag.diagnose.hosts import classify_host, is_loopback, normalise_host
from kdiag.report import Endpoint
from probes.results import KafkaBroker

# Ports where a non-Kafka flow is worth listing even when the capture shows no Kafka there.
KAFKA_PORTS = frozenset((9092, 9093, 9094))

Statuses = Mapping[tuple[str, int], str]


def summarize(analyzer: CaptureAnalyzer, *, source: str, statuses: Statuses | None = None,
              resolutions: Mapping[str, Iterable[str]] | None = None, warnings: Iterable[CaptureWarning] = (),
              scope_ports: Iterable[int] | None = None) -> CaptureSummary:
    """The summary of everything ``analyzer`` saw.

    ``statuses`` maps an advertised ``(host, port)`` to what the same kdiag run found for it
    (``nxdomain``, ``refused``, ...): the timeline marks those hosts. ``resolutions`` maps a host
    name to the addresses it resolved to, so connections to a name's address count as connections
    to that advertised broker. ``warnings`` are the reader's (truncation), listed first.
    ``scope_ports`` (live capture): keep only connections to these server ports and to the ports
    the Metadata and FindCoordinator answers on them advertise, leaving out the rest of the
    machine's TCP (a lab broker's own controller traffic on loopback, for one).
    """
    resolved = {normalise_host(host): {normalise_host(a) for a in addresses}
                for host, addresses in (resolutions or {}).items()}
    connections = analyzer.connections
    if scope_ports is not None:
        ports = _scope(analyzer, scope_ports)

        def relevant(connection: Connection) -> bool:
            return connection.server_port in ports and _carried_something(connection)
    else:
        kafka_seen = any(c.protocol == KAFKA for c in connections)
        ports = set(analyzer.ports) | KAFKA_PORTS
        ports.update(c.server_port for c in connections if c.protocol == KAFKA)
        ports.update(b.port for _, md in analyzer.metadata for b in md.brokers)
        ports.update(cd.port for _, cd in analyzer.coordinators)

        def relevant(connection: Connection) -> bool:
            if connection.protocol == KAFKA:
                return True
            return _carried_something(connection) and (connection.server_port in ports or not kafka_seen)

    shown = [c for c in connections if relevant(c)]
    shown_ids = {id(c) for c in shown}
    metadata_pairs = [(c, md) for c, md in analyzer.metadata if id(c) in shown_ids]
    coordinator_pairs = [(c, cd) for c, cd in analyzer.coordinators if id(c) in shown_ids]
    renumbered = {id(md): index for index, (_, md) in enumerate(metadata_pairs)}
    kept = {index: renumbered.get(id(md)) for index, (_, md) in enumerate(analyzer.metadata)}
    advertised, followed = _advertised_connections(metadata_pairs, coordinator_pairs, shown, resolved)
    metadata = tuple(md for _, md in metadata_pairs)
    servers = {c.server for c in shown}
    summary = CaptureSummary(
        source=source,
        packets=analyzer.packets,
        tcp_packets=analyzer.tcp_packets,
        flows=tuple(_flow(c) for c in shown),
        metadata=metadata,
        warnings=_warnings(analyzer, warnings, shown_ids),
        clients=_clients(metadata_pairs, shown, followed),
        listeners=_listeners(metadata),
        coordinators=tuple(cd for _, cd in coordinator_pairs),
        errors=tuple(ErrorSeen(api, name, code, count, packet, server, subject)
                     for (api, code, server), (count, packet, subject, name) in analyzer.errors.items()
                     if server in servers),
        advertised_connections=advertised,
        other_flows=len(connections) - len(shown) + analyzer.retired_other,
        endpoint_status=tuple(EndpointStatus(host, port, status) for (host, port), status in (statuses or {}).items()
                              if status != "ok"),
        timeline=tuple(sorted((replace(event, metadata=kept.get(event.metadata)) if event.metadata is not None
                               else event for connection, event in analyzer.events if id(connection) in shown_ids),
                              key=lambda event: event.packet)),  # detection dates frames after the fact
        timeline_dropped=analyzer.events_dropped,
    )
    return replace(summary, findings=capture_findings(summary, resolved))


def _carried_something(connection: Connection) -> bool:
    return not connection.given_up and bool(connection.syn_packets or connection.c2s.bytes or connection.s2c.bytes)


def _scope(analyzer: CaptureAnalyzer, ports: Iterable[int]) -> set[int]:
    """``ports`` and, until nothing new comes, the ports advertised on connections to them."""
    scope = set(ports)
    while True:
        more = {b.port for c, md in analyzer.metadata if c.server_port in scope for b in md.brokers}
        more.update(cd.port for c, cd in analyzer.coordinators if c.server_port in scope and cd.error == "NONE")
        if more <= scope:
            return scope
        scope |= more


def _flow(c: Connection) -> FlowSummary:
    return FlowSummary(
        client=c.client, server=c.server, protocol=c.protocol, handshake=c.handshake, first_packet=c.first_packet,
        time=iso_time(c.first_time), syn_packets=c.syn_packets, requests=c.requests, responses=c.responses,
        client_bytes=c.c2s.bytes, server_bytes=c.s2c.bytes, missing_bytes=c.missing, client_id=c.client_id,
        apis=tuple(c.apis), foreign=c.foreign, foreign_from=c.foreign_from, reset_by=c.reset_by,
        client_spoke_kafka=c.request_seen, server_answer=c.server_answer)


def _warnings(analyzer: CaptureAnalyzer, first: Iterable[CaptureWarning], shown: set[int]
              ) -> tuple[CaptureWarning, ...]:
    warnings = list(first) + [w for c, w in analyzer.warnings if c is None or id(c) in shown]
    if analyzer.warnings_dropped:
        warnings.append(CaptureWarning(None, f"{analyzer.warnings_dropped} more decode warnings not listed"))
    return tuple(warnings)


def _clients(metadata: list[tuple[Connection, CapturedMetadata]], shown: list[Connection], followed: set[int]
             ) -> tuple[ClientSeen, ...]:
    """Each client address; its bootstrap endpoints are the servers it connected to before its first
    Metadata answer, or later to an address no answer had advertised (``followed`` holds the ids
    of the connections that went to advertised addresses)."""
    first: dict[str, int] = {}  # the packet of the first Metadata answer each client address received
    for connection, md in metadata:
        first.setdefault(connection.client_ip, md.packet)
    by_address: dict[str, list[Connection]] = {}
    for connection in shown:
        if connection.protocol == KAFKA or connection.request_seen:
            by_address.setdefault(connection.client_ip, []).append(connection)
    clients = []
    for address, mine in by_address.items():
        cutoff = first.get(address)
        bootstrap = dict.fromkeys(c.server for c in mine
                                  if cutoff is None or c.first_packet < cutoff or id(c) not in followed)
        client_ids = dict.fromkeys(c.client_id for c in mine if c.client_id)
        clients.append(ClientSeen(address, len(mine), tuple(client_ids), tuple(bootstrap)))
    return tuple(clients)


def _listeners(metadata: tuple[CapturedMetadata, ...]) -> tuple[ListenerView, ...]:
    """One view per server port and distinct answer, with the servers that gave it."""
    servers: dict[tuple, dict[str, None]] = {}
    answers: dict[tuple, int] = {}
    for md in metadata:
        key = (int(md.server.rsplit(":", 1)[1]), md.cluster_id, md.controller_id, md.brokers)
        servers.setdefault(key, {})[md.server] = None
        answers[key] = answers.get(key, 0) + 1
    views = []
    for key, by in servers.items():
        port, cluster_id, controller_id, brokers = key
        views.append(ListenerView(port, tuple(by), cluster_id, controller_id, brokers, answers[key]))
    return tuple(views)


def _advertised_connections(metadata: list[tuple[Connection, CapturedMetadata]],
                            coordinators: list[tuple[Connection, CapturedCoordinator]], shown: list[Connection],
                            resolved: Mapping[str, set[str]]) -> tuple[tuple[AdvertisedConnection, ...], set[int]]:
    """Connections a client opened after a Metadata (or FindCoordinator) answer, matched to the
    advertised endpoint they went to: by address when the host is a literal, a loopback name or a
    known resolution, else by port alone (the name's address is not in the capture)."""
    advertised: dict[str, list[tuple[int, KafkaBroker]]] = {}
    for connection, md in metadata:
        advertised.setdefault(connection.client_ip, []).extend((md.packet, b) for b in md.brokers)
    for connection, cd in coordinators:
        if cd.error == "NONE":
            advertised.setdefault(connection.client_ip, []).append(
                (cd.packet, KafkaBroker(cd.node_id, cd.host, cd.port)))
    found, followed = [], set()
    for connection in shown:
        candidates = advertised.get(connection.client_ip)
        if not candidates or connection.handshake == NOT_SEEN:
            continue
        earlier = {}
        for packet, broker in candidates:
            if packet < connection.first_packet:
                earlier[(normalise_host(broker.host), broker.port, broker.node_id)] = broker
        by_address = [b for b in earlier.values()
                      if b.port == connection.server_port and _same_address(b.host, connection.server_ip, resolved)]
        by_port = [b for b in earlier.values() if b.port == connection.server_port
                   and not classify_host(b.host).is_ip and normalise_host(b.host) not in resolved]
        matched, how = (by_address, "address") if by_address else (by_port, "port")
        if not matched:
            continue
        hosts = dict.fromkeys(str(Endpoint(b.host, b.port)) for b in matched)
        followed.add(id(connection))
        found.append(AdvertisedConnection(
            client=connection.client, server=connection.server, advertised=" | ".join(hosts),
            node_ids=tuple(sorted({b.node_id for b in matched})), handshake=connection.handshake,
            first_packet=connection.first_packet, syn_packets=connection.syn_packets, matched_by=how))
    return tuple(found), followed


def _same_address(host: str, address: str, resolved: Mapping[str, set[str]]) -> bool:
    host, address = normalise_host(host), normalise_host(address)
    if host == address or address in resolved.get(host, ()):
        return True
    return is_loopback(host) and not classify_host(host).is_ip and is_loopback(address)
