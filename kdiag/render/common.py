"""What the text and Markdown views both show, worked out once: rows of words, not markup."""

from __future__ import annotations

from dataclasses import dataclass

from kdiag.render.finding_layout import evidence_value
from kdiag.report import BrokerReport, Endpoint, Report, Stage

HEALTHY = "No problems found: every advertised broker resolves and answers from here."
HEALTHY_NO_BROKERS = "No problems found."

# How a status word reads: good (green), doubt (yellow), bad (red) or off (dim).
_DOUBTFUL = frozenset({"warn", "unverified", "auth_required"})
_OFF = frozenset({"skip", "", "–"})


def tone(status: str) -> str:
    if status == "ok":
        return "good"
    if status in _DOUBTFUL:
        return "doubt"
    if status in _OFF:
        return "off"
    return "bad"


@dataclass(frozen=True)
class StageRow:
    status: str
    name: str
    time: str
    summary: str


@dataclass(frozen=True)
class BrokerRow:
    node_id: str
    advertised: str
    rack: str
    dns: str
    tcp: str
    kafka: str
    identity: str

    @property
    def checks(self) -> tuple[str, str, str, str]:
        return self.dns, self.tcp, self.kafka, self.identity


def stage_rows(report: Report) -> list[StageRow]:
    return [StageRow(s.status, s.name, stage_time(s), s.summary) for s in report.stages]


def stage_time(stage: Stage) -> str:
    if stage.status == "skip" and not stage.duration_ms:
        return ""
    return duration(stage.duration_ms)


def duration(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:,.0f} ms"


def broker_rows(report: Report) -> list[BrokerRow]:
    if report.cluster is None:
        return []
    return [_broker_row(b) for b in report.cluster.brokers]


def _broker_row(broker: BrokerReport) -> BrokerRow:
    return BrokerRow(
        node_id=str(broker.node_id),
        advertised=str(broker.endpoint),
        rack=broker.rack or "–",
        dns=broker.dns.status or "–",
        tcp=broker.tcp.status or "–",
        kafka=_kafka_word(broker),
        identity=broker.identity.status or "–",
    )


def _kafka_word(broker: BrokerReport) -> str:
    """The kafka column: what stopped the conversation when the TLS handshake or SASL did."""
    if broker.tls is not None and broker.tls.status not in ("ok", "skip"):
        return f"tls {broker.tls.status}"
    if broker.sasl is not None and broker.sasl.status not in ("ok", "skip"):
        return f"sasl {broker.sasl.status}"
    return broker.kafka.status or "–"


def coordinator_line(report: Report) -> str | None:
    coordinator = report.cluster.coordinator if report.cluster else None
    if coordinator is None:
        return None
    where = f"coordinator for group {coordinator.group}"
    if coordinator.host is None or coordinator.port is None:
        return f"{where}: not found ({coordinator.error or 'no answer'})"
    node = "" if coordinator.node_id is None else f"broker {coordinator.node_id} at "
    endpoint = Endpoint(coordinator.host, coordinator.port)
    if coordinator.dns is not None and not coordinator.dns.ok:
        state = f"unreachable (dns {coordinator.dns.status})"
    elif coordinator.tcp is None:
        state = "not checked"
    elif coordinator.tcp.ok:
        state = "reachable"
    else:
        state = f"unreachable (tcp {coordinator.tcp.status})"
    return f"{where}: {node}{endpoint}, {state}"


def closing_line(report: Report) -> tuple[str, str] | None:
    """(tone, sentence) to end a report with problems on; None when the findings say it all.

    Healthy: one calm line. A failed stage no finding explains: say so, rather than nothing.
    """
    if not report.has_problems:
        healthy = HEALTHY if report.cluster is not None and report.cluster.brokers else HEALTHY_NO_BROKERS
        return "good", healthy
    if report.problems:
        return None
    failed = [s.name for s in report.stages if s.failed]
    which = f"Stage {failed[0]} failed" if len(failed) == 1 else f"Stages {', '.join(failed)} failed"
    return "bad", f"{which} and no diagnosis explains it: the stage summary above is what kdiag saw."


def bootstrap_text(report: Report) -> str:
    return ",".join(str(e) for e in report.bootstrap)


def vantage_text(report: Report) -> str:
    vantage = report.vantage
    return f"{vantage.hostname} ({', '.join(vantage.addresses)})" if vantage.addresses else vantage.hostname


def client_settings(report: Report) -> list[str]:
    """The client settings the run used, as ``key=value`` (``render`` has masked the secrets)."""
    return [f"{key}={evidence_value(value)}" for key, value in report.client.items()]
