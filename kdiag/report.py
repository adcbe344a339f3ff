"""The report: frozen dataclasses with the stable JSON form of schema ``kdiag.report/1``.

A report is facts (stages, the cluster and each advertised broker as seen from one vantage point)
plus the findings the diagnosis rules drew from them. Everything a rule needs is in the JSON, so
the CLI, the sidecar and the fleet job can re-diagnose a report loaded from disk.

Additions to the contract's shape (documented in docs/report.md, "Report schema additions"): ``cluster.topics``,
``cluster.coordinator``, per-broker ``identity``, ``tls`` and ``sasl`` (null when the client settings
ask for neither), the typed ``detail`` of each stage, and ``other_listeners`` (the bootstrap host's
other ports, tried when the advertised brokers or the bootstrap port fail).
"""

from __future__ import annotations

import datetime as _dt
import json
import secrets
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kdiag import __version__
from kdiag.capture.model import CaptureSummary
from kdiag.finding import Finding
from kdiag.jsonform import ReportFormatError, from_json, to_json
from probes.hostport import hostport
from probes.kerberos import KerberosCheck
from probes.results import (
    DnsResult,
    IdentityCheck,
    IdleCheck,
    KafkaCheck,
    Landing,
    ListenerScan,
    RoundtripResult,
    SaslResult,
    TcpResult,
    TlsResult,
    TopicInfo,
)

SCHEMA = "kdiag.report/1"
STAGE_ORDER = ("dns", "tcp", "tls", "sasl", "metadata", "advertised", "roundtrip")
STAGE_STATUSES = ("ok", "warn", "fail", "skip")


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int

    def __str__(self) -> str:
        return hostport(self.host, self.port)


@dataclass(frozen=True)
class Vantage:
    """Where the report was made: the machine's name and addresses (gathered by the probing side,
    ``probes.host``), and the label the user gave it (``--vantage k8s/prod-eu/payments``), by which
    the fleet pipeline groups reports."""

    hostname: str
    addresses: tuple[str, ...] = ()
    label: str | None = None

    @property
    def name(self) -> str:
        """The label if one was given, else the host name: what the fleet calls this vantage."""
        return self.label or self.hostname


@dataclass(frozen=True)
class Agent:
    """The long-running agent (``kdiag watch``) that made the report: a stable id, and a sequence
    number that grows by one per report, so a reader sees a gap as a lost report."""

    id: str
    sequence: int


# --- stage details: one typed shape per stage ---------------------------------------------------


@dataclass(frozen=True)
class DnsDetail:
    results: tuple[DnsResult, ...] = ()


@dataclass(frozen=True)
class TcpDetail:
    attempts: tuple[TcpResult, ...] = ()


@dataclass(frozen=True)
class TlsDetail:
    """Each bootstrap connection's TLS handshake (version, cipher, the certificate, SNI, why it failed)."""

    handshakes: tuple[TlsResult, ...] = ()
    reason: str | None = None


@dataclass(frozen=True)
class SaslDetail:
    """SASL on the bootstrap connections, in the order tried: the first that authenticates ends it."""

    attempts: tuple[SaslResult, ...] = ()
    reason: str | None = None
    kerberos: KerberosCheck | None = None  # GSSAPI: the service principals a client asks for, and the KDC's word


@dataclass(frozen=True)
class MetadataDetail:
    endpoint: str | None = None
    kafka: KafkaCheck | None = None
    reason: str | None = None


@dataclass(frozen=True)
class AdvertisedDetail:
    checked: int = 0
    reachable: int = 0
    reason: str | None = None
    landings: tuple[Landing, ...] = ()  # fresh connections to the bootstrap address: which broker each reached


RoundtripDetail = RoundtripResult  # the round trip's facts are the stage's detail as they are


@dataclass(frozen=True)
class EmptyDetail:
    reason: str | None = None


STAGE_DETAILS: dict[str, type] = {
    "dns": DnsDetail, "tcp": TcpDetail, "tls": TlsDetail, "sasl": SaslDetail, "metadata": MetadataDetail,
    "advertised": AdvertisedDetail, "roundtrip": RoundtripDetail,
}


@dataclass(frozen=True)
class Stage:
    name: str
    status: str
    duration_ms: float = 0.0
    summary: str = ""
    detail: Any = field(default_factory=EmptyDetail)

    @property
    def failed(self) -> bool:
        return self.status == "fail"


# --- the cluster as seen from here --------------------------------------------------------------


@dataclass(frozen=True)
class BrokerReport:
    """One advertised broker and what happened when this machine tried to use it."""

    node_id: int
    host: str
    port: int
    rack: str | None = None
    dns: DnsResult = field(default_factory=lambda: DnsResult(host="", status="skip"))
    tcp: TcpResult = field(default_factory=lambda: TcpResult(status="skip"))
    kafka: KafkaCheck = field(default_factory=lambda: KafkaCheck(status="skip"))
    identity: IdentityCheck = field(default_factory=lambda: IdentityCheck(status="skip"))
    tls: TlsResult | None = None  # None: the client settings ask for no TLS
    sasl: SaslResult | None = None  # None: no SASL
    tcp_attempts: tuple[TcpResult, ...] = ()  # a connect to every address, when the name resolved to several

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(self.host, self.port)

    @property
    def reachable(self) -> bool:
        secured = (self.tls is None or self.tls.ok) and (self.sasl is None or self.sasl.ok)
        return self.dns.ok and self.tcp.ok and secured and self.kafka.status in ("ok", "auth_required")


@dataclass(frozen=True)
class CoordinatorReport:
    """The consumer-group coordinator for the round-trip group, and whether it can be reached."""

    group: str
    node_id: int | None = None
    host: str | None = None
    port: int | None = None
    error: str | None = None
    dns: DnsResult | None = None
    tcp: TcpResult | None = None

    @property
    def reachable(self) -> bool | None:
        if self.tcp is None:
            return None
        return self.tcp.ok


@dataclass(frozen=True)
class Cluster:
    cluster_id: str | None = None
    controller_id: int | None = None
    brokers: tuple[BrokerReport, ...] = ()
    topics: tuple[TopicInfo, ...] = ()
    coordinator: CoordinatorReport | None = None

    def broker(self, node_id: int) -> BrokerReport | None:
        return next((b for b in self.brokers if b.node_id == node_id), None)


@dataclass(frozen=True)
class Report:
    bootstrap: tuple[Endpoint, ...]
    stages: tuple[Stage, ...] = ()
    cluster: Cluster | None = None
    findings: tuple[Finding, ...] = ()
    vantage: Vantage = field(default_factory=lambda: Vantage("unknown"))
    generated_at: str = field(default_factory=lambda: utc_now())
    report_id: str | None = field(default_factory=lambda: new_report_id())  # UUIDv7; None: a report from before ids
    agent: Agent | None = None  # kdiag watch only
    kdiag_version: str = __version__
    schema: str = SCHEMA
    client: Mapping[str, Any] = field(default_factory=dict)  # redacted client settings in use
    capture: CaptureSummary | None = None  # bootstrap --capture: the wire's view
    other_listeners: ListenerScan | None = None  # the bootstrap host's other ports, when a failure asked for them
    idle: IdleCheck | None = None  # --idle-check: the bootstrap connection held idle, then asked again

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def detail(self, name: str) -> Any:
        stage = self.stage(name)
        return None if stage is None else stage.detail

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity in ("error", "warning"))

    @property
    def has_problems(self) -> bool:
        """A finding is an error or a warning, or a stage failed.

        A failed stage that no diagnosis rule explained still counts: exit 0 promises the cluster is
        usable from here, and a failed stage says it is not.
        """
        return bool(self.problems) or any(stage.failed for stage in self.stages)

    def with_findings(self, findings: tuple[Finding, ...]) -> Report:
        return replace(self, findings=findings)


def new_report_id() -> str:
    """A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a counter that keeps ids made in the
    same millisecond in order, then random bits. Sorting ids sorts reports by creation time, and
    consumers de-duplicate at-least-once deliveries by it."""
    global _last_id_ms, _id_counter
    with _id_lock:
        now_ms = time.time_ns() // 1_000_000
        if now_ms <= _last_id_ms:  # same millisecond (or the clock stepped back): count on from the last id
            now_ms = _last_id_ms
            _id_counter += 1
            if _id_counter > 0xFFF:
                now_ms, _id_counter = now_ms + 1, secrets.randbits(11)
        else:
            _id_counter = secrets.randbits(11)  # a random start, half the range left to count in
        _last_id_ms = now_ms
        value = (now_ms & (1 << 48) - 1) << 80 | 0x7 << 76 | _id_counter << 64 | 0b10 << 62 | secrets.randbits(62)
    return str(uuid.UUID(int=value))


_id_lock = threading.Lock()
_last_id_ms = 0
_id_counter = 0


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


# --- JSON ---------------------------------------------------------------------------------------

_TOP_ORDER = ("schema", "kdiag_version", "report_id", "generated_at", "vantage", "agent", "bootstrap", "client", "stages",
              "cluster", "findings")


def report_to_dict(report: Report) -> dict[str, Any]:
    data = to_json(report)
    ordered = {key: data[key] for key in _TOP_ORDER if key in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})
    return ordered


def report_to_json(report: Report, *, indent: int | None = 2) -> str:
    return json.dumps(report_to_dict(report), indent=indent, ensure_ascii=False)


def report_from_dict(data: Mapping[str, Any]) -> Report:
    if not isinstance(data, Mapping):
        raise ReportFormatError("a kdiag report is a JSON object")
    schema = data.get("schema")
    if schema != SCHEMA:
        raise ReportFormatError(f"schema is {schema!r}, kdiag reads {SCHEMA!r}")
    stages = []
    raw_stages = data.get("stages") or []
    if not isinstance(raw_stages, list):
        raise ReportFormatError(f"report.stages: expected a list, got {type(raw_stages).__name__}")
    for index, raw in enumerate(raw_stages):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            raise ReportFormatError(f"stages[{index}] has no name")
        detail_type = STAGE_DETAILS.get(raw["name"], EmptyDetail)
        stage = from_json(Stage, {k: v for k, v in raw.items() if k != "detail"}, where=f"stages[{index}]")
        detail = from_json(detail_type, raw.get("detail") or {}, where=f"stages[{index}].detail")
        stages.append(replace(stage, detail=detail))
    body = {k: v for k, v in data.items() if k != "stages"}
    if "report_id" not in body:  # written before reports had ids: do not invent one for it
        body["report_id"] = None
    report = from_json(Report, body, where="report")
    return replace(report, stages=tuple(stages))
