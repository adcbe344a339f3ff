"""The capture analyzer, sans-I/O: captured frames in, connections, timeline events and decoded answers out.

``CaptureAnalyzer.feed(number, timestamp, linktype, data)`` takes captured frames one at a time
(from a file through :mod:`kdiag.capture.pcapio`, or live from :mod:`kdiag.capture.live`), finds
each TCP connection's ``Connection`` (:mod:`kdiag.capture.kafka_streams`) and hands it the segment; it
keeps the warnings, the timeline events and what the decoded responses say (metadata, coordinators,
error codes).
"""

from __future__ import annotations

from collections.abc import Iterable

from kdiag.capture.kafka_streams import DECODE_CAP, Connection
from kdiag.capture.model import CaptureWarning, CapturedCoordinator, CapturedMetadata, TimelineEvent, iso_time
from kdiag.capture.pcapio import ACK, SYN, parse_tcp
from probes.codec import (MAX_FRAME_SIZE, SPECS, ApiVersionsResponse, FindCoordinatorResponse, ListOffsetsResponse,
                          MetadataResponse, SaslHandshakeResponse, api_name)
from probes import limits
from probes.limits import clip
from probes.results import KafkaBroker

MAX_WARNINGS = 1000


class CaptureAnalyzer:
    """Feeds captured frames through TCP reassembly and Kafka framing; keeps what the summary needs.

    ``ports``: server ports to treat as Kafka whatever the bytes look like (``kdiag pcap --port``).
    ``keep_events``: how many timeline events to keep (0: none, for ``--json`` on big files).
    """

    def __init__(self, *, ports: Iterable[int] = (), keep_events: int = 0, decode_cap: int = DECODE_CAP,
                 frame_max: int = MAX_FRAME_SIZE, max_warnings: int = MAX_WARNINGS) -> None:
        self.ports = frozenset(ports)
        self.keep_events = keep_events
        self.decode_cap = decode_cap
        self.frame_max = frame_max
        self.max_warnings = max_warnings
        self.packets = 0
        self.tcp_packets = 0
        self.connections: list[Connection] = []
        self.retired_other = 0  # closed connections that were never anything kdiag reads
        self._table: dict[tuple, tuple[Connection, bool]] = {}
        self.warnings: list[tuple[Connection | None, CaptureWarning]] = []
        self.warnings_dropped = 0
        self.events: list[tuple[Connection, TimelineEvent]] = []
        self.events_dropped = 0
        self.metadata: list[tuple[Connection, CapturedMetadata]] = []
        self.coordinators: list[tuple[Connection, CapturedCoordinator]] = []
        self.errors: dict[tuple[str, int, str], list] = {}  # (api, code, server) -> [count, packet, subject, name]
        self._since_retire = 0
        self._undecoded_versions: set[tuple[int, int]] = set()

    # --- input -------------------------------------------------------------------------------------

    def feed_packets(self, packets: Iterable[tuple[int, float, int, bytes]]) -> None:
        """The loop over a reader's ``(number, timestamp, linktype, data)`` tuples."""
        table = self._table
        tcp = 0
        number = self.packets
        try:
            for number, timestamp, linktype, data in packets:
                segment = parse_tcp(linktype, data)
                if segment is None:
                    continue
                tcp += 1
                src, dst, sport, dport, seq, ack, flags, payload, missing = segment
                entry = table.get((src, dst, sport, dport))
                if entry is None or (flags > 0 and flags & SYN and not flags & ACK and entry[0].closed):
                    entry = self._open(segment, number, timestamp)
                    if entry is None:
                        continue
                connection, is_ab = entry
                connection.segment(is_ab == connection.a_is_client, seq, ack, flags, payload, missing, number,
                                   timestamp)
        finally:
            self.packets = number
            self.tcp_packets += tcp

    def feed(self, number: int, timestamp: float, linktype: int, data: bytes) -> None:
        self.feed_packets(((number, timestamp, linktype, data),))

    def _open(self, segment: tuple, number: int, timestamp: float) -> tuple[Connection, bool] | None:
        src, dst, sport, dport, _, _, flags, _, _ = segment
        if flags < 0:
            return None  # an ICMP error about a connection the capture never saw
        ports = self.ports
        if flags & SYN:
            a_is_client, known = not flags & ACK, True
        elif dport in ports or sport in ports:
            a_is_client, known = dport in ports, True
        else:  # mid-stream: guess the server is the side on the lower (non-ephemeral) port
            a_is_client, known = dport < sport, False
        key = (src, dst, sport, dport)
        connection = Connection(self, key, (src, sport), (dst, dport), a_is_client, known, number, timestamp)
        self.connections.append(connection)
        self._table[key] = (connection, True)
        self._table[(dst, src, dport, sport)] = (connection, False)
        self._since_retire += 1
        if self._since_retire >= 4096:
            self._retire()
        return self._table[key]

    def _retire(self) -> None:
        """Forgets closed connections that carried nothing kdiag reads, to bound memory."""
        self._since_retire = 0
        keep = []
        for connection in self.connections:
            if connection.closed and connection.given_up:
                self.retired_other += 1
                for key in (connection.key, (connection.key[1], connection.key[0], connection.key[3],
                                             connection.key[2])):
                    if self._table.get(key, (None,))[0] is connection:
                        del self._table[key]
            else:
                keep.append(connection)
        self.connections = keep

    def finish(self) -> None:
        """The capture ended: fill what can be filled, report what was left incomplete."""
        for connection in self.connections:
            connection.finish(self.packets)

    # --- output ------------------------------------------------------------------------------------

    def decodes(self, connection: Connection, api_key: int, api_version: int, packet: int) -> bool:
        """Whether the codec decodes this version; the first time it does not, a warning says so."""
        spec = SPECS[api_key]
        if spec.min_version <= api_version <= spec.max_version:
            return True
        if (api_key, api_version) not in self._undecoded_versions:
            self._undecoded_versions.add((api_key, api_version))
            self.warn(connection, packet, f"{spec.name} v{api_version} responses are not decoded: kdiag decodes "
                              f"{spec.name} v{spec.min_version}-v{spec.max_version}")
        return False

    def warn(self, connection: Connection | None, packet: int | None, message: str) -> None:
        """A decode problem, with the connection it concerns (None: the capture as a whole)."""
        if len(self.warnings) < self.max_warnings:
            self.warnings.append((connection, CaptureWarning(packet, message)))
        else:
            self.warnings_dropped += 1

    def event(self, connection: Connection, kind: str, number: int, timestamp: float, src: str, dst: str,
              **fields) -> None:
        if len(self.events) < self.keep_events:
            self.events.append((connection, TimelineEvent(number, iso_time(timestamp), src, dst, kind, **fields)))
        elif self.keep_events:
            self.events_dropped += 1

    def decoded(self, connection: Connection, api_key: int, api_version: int, correlation_id: int, body,
                number: int, timestamp: float, key: str | None = None) -> int | None:
        """Keeps what a decoded response says; returns the index of a Metadata answer. ``key``: the
        group or transactional id a FindCoordinator request asked about."""
        label = f"{api_name(api_key)} v{api_version}"
        if isinstance(body, MetadataResponse):
            self.metadata.append((connection, CapturedMetadata(
                client=connection.client, server=connection.server, api_version=api_version,
                cluster_id=clip(body.cluster_id, limits.MAX_CLUSTER_ID), controller_id=body.controller_id,
                brokers=tuple(KafkaBroker(b.node_id, clip(b.host, limits.MAX_HOST), b.port, clip(b.rack, limits.MAX_RACK))
                              for b in body.brokers[:limits.MAX_BROKERS]),
                packet=number, time=iso_time(timestamp), correlation_id=correlation_id,
                error=None if body.error.ok else body.error.name,
                brokers_omitted=max(0, len(body.brokers) - limits.MAX_BROKERS))))
            self._error(label, body.error, connection, number, None)
            for topic in body.topics:
                self._error(label, topic.error, connection, number, topic.name)
                for partition in topic.partitions:
                    self._error(label, partition.error, connection, number, f"{topic.name}-{partition.partition_index}")
            return len(self.metadata) - 1
        if isinstance(body, FindCoordinatorResponse):
            for found in body.coordinators:
                self.coordinators.append((connection, CapturedCoordinator(
                    connection.client, connection.server, found.key or key or "", found.node_id, found.host, found.port,
                    found.error.name, number)))
                self._error(label, found.error, connection, number, found.key or key)
        elif isinstance(body, (ApiVersionsResponse, SaslHandshakeResponse)):
            self._error(label, body.error, connection, number, None)
        elif isinstance(body, ListOffsetsResponse):
            for partition in body.partitions:
                self._error(label, partition.error, connection, number, f"{partition.topic}-{partition.partition_index}")
        return None

    def _error(self, label: str, error, connection: Connection, number: int, subject: str | None) -> None:
        if error.ok:
            return
        key = (label, error.code, connection.server)
        seen = self.errors.get(key)
        if seen is None:
            self.errors[key] = [1, number, subject, error.name]
        else:
            seen[0] += 1
