"""What a capture showed, as frozen dataclasses: the JSON of ``kdiag pcap --json`` (schema
``kdiag.pcap/1``) and the ``capture`` section of a ``kdiag bootstrap --capture`` report.

Field names follow the report's: a captured broker is ``node_id``, ``host``, ``port``, ``rack``
(``probes.results.KafkaBroker``), findings are ``kdiag.report.Finding``. Endpoints are text,
``host:port`` or ``[v6]:port``. Times are ISO-8601 UTC with microseconds. Nothing here imports
scapy or the codec, so a report that carries a capture loads anywhere.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any

from kdiag.jsonform import to_json
from kdiag.finding import Finding
from probes.results import ForeignBytes, KafkaBroker

SCHEMA = "kdiag.pcap/1"

# FlowSummary.protocol
KAFKA = "kafka"
TLS = "tls"
NOT_KAFKA = "not_kafka"
UNKNOWN = "unknown"

# FlowSummary.handshake
COMPLETED = "completed"  # SYN, SYN-ACK, ACK
REFUSED = "refused"  # RST (or ICMP port unreachable) in answer to the SYN
UNREACHABLE = "unreachable"  # ICMP host/network unreachable or administratively prohibited
NO_ANSWER = "no_answer"  # SYNs and nothing back: filtered, or a host that is not there
SYN_ACK_ONLY = "syn_ack_only"  # the client never completed the handshake
NOT_SEEN = "not_seen"  # the capture started after the handshake
FAILED_HANDSHAKES = (REFUSED, UNREACHABLE, NO_ANSWER)


def iso_time(timestamp: float) -> str:
    """ISO-8601 UTC; a time no calendar date holds (a corrupt capture's year 10^12) is said as such,
    with the seconds it claimed, rather than raised."""
    try:
        moment = _dt.datetime.fromtimestamp(timestamp, _dt.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return f"out-of-range time ({timestamp:.6g} s since 1970)"
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class CaptureWarning:
    """A decode problem: what could not be read, and the packet where it was met (None: the file)."""

    packet: int | None
    message: str


@dataclass(frozen=True)
class FlowSummary:
    """One TCP connection: who opened it, whether the handshake completed and what it carried."""

    client: str
    server: str
    protocol: str  # kafka | tls | not_kafka | unknown
    handshake: str  # completed | refused | unreachable | no_answer | syn_ack_only | not_seen
    first_packet: int
    time: str
    syn_packets: int = 0
    requests: int = 0
    responses: int = 0
    client_bytes: int = 0
    server_bytes: int = 0
    missing_bytes: int = 0  # bytes the capture lost (dropped segments, snap length)
    client_id: str | None = None
    apis: tuple[str, ...] = ()  # "Metadata v12", in the order first seen
    foreign: ForeignBytes | None = None  # what the non-Kafka bytes looked like
    foreign_from: str | None = None  # client | server
    reset_by: str | None = None  # client | server
    client_spoke_kafka: bool = False  # the client sent at least one plausible Kafka request
    server_answer: str | None = None  # what the server's first bytes were: kafka | tls | http | ... | None (nothing)


@dataclass(frozen=True)
class CapturedMetadata:
    """One decoded Metadata response: the broker list this server returned to this client."""

    client: str
    server: str
    api_version: int
    cluster_id: str | None
    controller_id: int
    brokers: tuple[KafkaBroker, ...]
    packet: int = 0
    time: str = ""
    correlation_id: int = 0
    error: str | None = None  # the top-level error of Metadata v13+, when not NONE
    brokers_omitted: int = 0  # brokers beyond probes.limits.MAX_BROKERS in this answer: counted, not kept


@dataclass(frozen=True)
class CapturedCoordinator:
    """A FindCoordinator answer: the broker a group (or transactional id) must talk to."""

    client: str
    server: str
    key: str
    node_id: int
    host: str
    port: int
    error: str = "NONE"
    packet: int = 0


@dataclass(frozen=True)
class ListenerView:
    """The advertised broker list returned on one server port: one listener's view.

    Brokers answer with the ``advertised.listeners`` entry of the listener the request arrived
    on, so two ports of one cluster can return different host lists (the BOB/FRED case).
    """

    port: int
    servers: tuple[str, ...]
    cluster_id: str | None
    controller_id: int
    brokers: tuple[KafkaBroker, ...]
    responses: int = 1


@dataclass(frozen=True)
class ErrorSeen:
    """A non-zero error code in a decoded response, counted."""

    api: str  # "Metadata v12"
    error: str  # UNKNOWN_TOPIC_OR_PARTITION
    code: int
    count: int
    first_packet: int
    server: str
    subject: str | None = None  # the topic or group it was about, when the response says


@dataclass(frozen=True)
class ClientSeen:
    address: str
    connections: int
    client_ids: tuple[str, ...] = ()
    bootstrap: tuple[str, ...] = ()  # servers it talked to before its first Metadata answer


@dataclass(frozen=True)
class AdvertisedConnection:
    """A connection a client opened, after a Metadata answer, to an address that answer advertised."""

    client: str
    server: str
    advertised: str  # host:port as the broker advertised it
    node_ids: tuple[int, ...]
    handshake: str
    first_packet: int
    syn_packets: int = 0
    matched_by: str = "address"  # address (the literal or a known resolution) | port (the name is not resolved here)


@dataclass(frozen=True)
class EndpointStatus:
    """What the same kdiag run found for an advertised endpoint (live capture only)."""

    host: str
    port: int
    status: str  # nxdomain | refused | timeout | ...


@dataclass(frozen=True)
class TimelineEvent:
    """One line of the timeline: a Kafka request or response, or a TCP handshake step."""

    packet: int
    time: str
    src: str
    dst: str
    kind: str  # request | response | syn | syn_ack | rst | icmp | foreign
    api: str | None = None  # "Metadata"
    api_version: int | None = None
    correlation_id: int | None = None
    detail: str | None = None  # client_id, error, latency, what the foreign bytes were
    metadata: int | None = None  # index into CaptureSummary.metadata for a Metadata response


@dataclass(frozen=True)
class CaptureSummary:
    """Everything a capture showed: the ``kdiag.pcap/1`` document."""

    source: str
    packets: int = 0
    tcp_packets: int = 0
    flows: tuple[FlowSummary, ...] = ()
    metadata: tuple[CapturedMetadata, ...] = ()
    findings: tuple[Finding, ...] = ()
    warnings: tuple[CaptureWarning, ...] = ()
    clients: tuple[ClientSeen, ...] = ()
    listeners: tuple[ListenerView, ...] = ()
    coordinators: tuple[CapturedCoordinator, ...] = ()
    errors: tuple[ErrorSeen, ...] = ()
    advertised_connections: tuple[AdvertisedConnection, ...] = ()
    other_flows: int = 0  # TCP connections that were neither Kafka nor on a port Kafka was expected on
    endpoint_status: tuple[EndpointStatus, ...] = ()
    timeline: tuple[TimelineEvent, ...] = ()
    timeline_dropped: int = 0  # events beyond the kept maximum
    schema: str = SCHEMA

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity in ("error", "warning"))

    @property
    def bootstrap(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for client in self.clients:
            seen.update(dict.fromkeys(client.bootstrap))
        return tuple(seen)

    def status_of(self, host: str, port: int) -> str | None:
        return next((s.status for s in self.endpoint_status if s.host == host and s.port == port), None)


_TOP_ORDER = ("schema", "source", "packets", "tcp_packets", "flows", "metadata", "findings", "warnings")


def summary_to_dict(summary: CaptureSummary) -> dict[str, Any]:
    """The JSON document, contract keys first (``schema``, ``flows``, ``metadata``, ``findings``,
    ``warnings``)."""
    data = to_json(summary)
    ordered = {key: data[key] for key in _TOP_ORDER}
    ordered.update({key: value for key, value in data.items() if key not in ordered})
    return ordered

