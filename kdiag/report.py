"""The report: frozen dataclasses with the stable JSON form of schema ``kdiag.report/1``.

A report is facts (stages, the cluster and each advertised broker as seen from one vantage point)
plus the findings the diagnosis rules drew from them. Everything a rule needs is in the JSON, so
the CLI, the sidecar and the fleet job can re-diagnose a report loaded from disk.

Additions to the contract's shape (documented in README "Report schema additions"): ``cluster.topics``,
``cluster.coordinator``, per-broker ``identity``, ``tls`` and ``sasl`` (null when the client settings
ask for neither), the typed ``detail`` of each stage, and ``other_listeners`` (the bootstrap host's
other ports, tried when the advertised brokers or the bootstrap port fail).
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
import json
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kdiag import __version__
from kdiag.capture.model import CaptureSummary
from kdiag.finding import Finding
from kdiag.jsonform import ReportFormatError, from_json, to_json
from probes.results import (
    DnsResult,
    IdentityCheck,
    KafkaCheck,
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
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Vantage:
    hostname: str
    addresses: tuple[str, ...] = ()

    @classmethod
    def here(cls) -> Vantage:
        """This machine's name and non-loopback interface addresses (no DNS lookup: it may hang)."""
        return cls(socket.gethostname(), tuple(_interface_addresses()))


def _interface_addresses() -> list[str]:
    addresses: list[str] = []
    try:  # Linux: IPv4 from the kernel's FIB view, IPv6 from /proc/net/if_inet6
        with open("/proc/net/fib_trie", encoding="ascii") as handle:
            lines = handle.read().splitlines()
        for previous, line in zip(lines, lines[1:]):
            if line.strip() == "/32 host LOCAL":
                address = previous.split()[-1]
                if not address.startswith("127.") and address not in addresses:
                    addresses.append(address)
        with open("/proc/net/if_inet6", encoding="ascii") as handle:
            for row in handle:
                raw, _idx, _plen, scope = row.split()[:4]
                if scope == "00":  # global scope only
                    addresses.append(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
    except (OSError, ValueError):
        pass
    return addresses


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
    kdiag_version: str = __version__
    schema: str = SCHEMA
    client: Mapping[str, Any] = field(default_factory=dict)  # redacted client settings in use
    capture: CaptureSummary | None = None  # bootstrap --capture: the wire's view
    other_listeners: ListenerScan | None = None  # the bootstrap host's other ports, when a failure asked for them

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def detail(self, name: str) -> Any:
        stage = self.stage(name)
        return None if stage is None else stage.detail

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity in ("error", "warning"))

    def with_findings(self, findings: tuple[Finding, ...]) -> Report:
        return replace(self, findings=findings)


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


# --- JSON ---------------------------------------------------------------------------------------

_TOP_ORDER = ("schema", "kdiag_version", "generated_at", "vantage", "bootstrap", "client", "stages",
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
    for index, raw in enumerate(data.get("stages") or ()):
        if not isinstance(raw, Mapping) or "name" not in raw:
            raise ReportFormatError(f"stages[{index}] has no name")
        detail_type = STAGE_DETAILS.get(raw["name"], EmptyDetail)
        stage = from_json(Stage, {k: v for k, v in raw.items() if k != "detail"}, where=f"stages[{index}]")
        detail = from_json(detail_type, raw.get("detail") or {}, where=f"stages[{index}].detail")
        stages.append(replace(stage, detail=detail))
    body = {k: v for k, v in data.items() if k != "stages"}
    report = from_json(Report, body, where="report")
    return replace(report, stages=tuple(stages))


def load_report(path: str | os.PathLike[str]) -> Report:
    """Reads a report file; raises ReportFormatError with one line on anything wrong."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise ReportFormatError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportFormatError(f"{path} is not JSON: {exc}") from None
    return report_from_dict(data)
