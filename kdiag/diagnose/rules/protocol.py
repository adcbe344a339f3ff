"""Rules for what a port speaks once the TCP connection is up: Kafka or not (NOT_KAFKA), and the endpoint views the
TLS and SASL rules share.

They look at the bootstrap endpoint the metadata came through and at every advertised broker the
probe spoke Kafka to; an endpoint is reported once even if it is both. ``Probed`` is an endpoint the
probe spoke Kafka to, ``Secured`` an endpoint's TLS handshake or SASL exchange; the rules reading
those handshakes are in ``rules.tls`` and ``rules.sasl``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kdiag.diagnose.facts import bootstrap_kafka, bootstrap_used, loopback_from_elsewhere
from kdiag.diagnose.fixes import KRAFT_NOTE, listener_protocol, property_lines
from kdiag.diagnose.hosts import is_nonroutable, normalise_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.finding import Finding
from kdiag.report import Endpoint, Report
from probes.hostport import hostport
from probes.results import ForeignBytes, KafkaCheck, SaslResult, TlsResult

_SPEAKS = {"http": "HTTP", "ssh": "SSH", "zookeeper": "ZooKeeper", "text": "a text protocol"}
_PORT_HINTS = {
    22: "SSH's port", 80: "an HTTP port", 443: "an HTTPS port", 2181: "ZooKeeper's client port",
    2888: "ZooKeeper's quorum port", 3888: "ZooKeeper's election port", 8080: "an HTTP port, often a UI",
    8081: "Schema Registry's usual port", 8082: "the REST Proxy's usual port", 8083: "Kafka Connect's usual port",
    8088: "ksqlDB's usual port", 9021: "Control Center's usual port", 9644: "Redpanda's admin API port",
}


@dataclass(frozen=True)
class Probed:
    """An endpoint the probe spoke Kafka to: the bootstrap (node_id None) or an advertised broker."""

    endpoint: Endpoint
    kafka: KafkaCheck
    node_id: int | None = None

    @property
    def label(self) -> str:
        where = hostport(self.endpoint.host, self.endpoint.port)
        if self.node_id is None:
            return f"bootstrap address {where}"
        return f"broker {self.node_id}'s advertised address {where}"

    @property
    def evidence(self) -> dict[str, object]:
        return {"node_id": self.node_id, "host": self.endpoint.host, "port": self.endpoint.port,
                "kafka_status": self.kafka.status, "error": self.kafka.error}


def probed(report: Report) -> Iterator[Probed]:
    seen: set[tuple[str, int]] = set()
    used, kafka = bootstrap_used(report), bootstrap_kafka(report)
    if used is not None and kafka is not None and kafka.status != "skip":
        seen.add((normalise_host(used.host), used.port))
        yield Probed(used, kafka)
    for broker in report.cluster.brokers if report.cluster else ():
        key = (normalise_host(broker.host), broker.port)
        if broker.kafka.status == "skip" or key in seen or is_nonroutable(broker.host):
            continue
        if loopback_from_elsewhere(report, broker):
            continue  # what answered is this machine, not the broker: ADVERTISED_LOOPBACK says it
        seen.add(key)
        yield Probed(broker.endpoint, broker.kafka, broker.node_id)


def is_tls(foreign: ForeignBytes | None) -> bool:
    return foreign is not None and foreign.is_tls


def frame_size(preview: str) -> int | None:
    """The "response size" a Kafka client reads from the first four bytes of a foreign reply."""
    raw, i = bytearray(), 0
    while i < len(preview) and len(raw) < 4:
        if preview.startswith("\\x", i) and len(preview) >= i + 4:
            raw.append(int(preview[i + 2:i + 4], 16))
            i += 4
        else:
            raw.append(ord(preview[i]) & 0xFF)
            i += 1
    return int.from_bytes(raw, "big") if len(raw) == 4 else None


# --- NOT_KAFKA ----------------------------------------------------------------------------------


def _not_kafka(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in probed(report):
        foreign = target.kafka.foreign
        if target.kafka.status != "not_kafka" or is_tls(foreign):
            continue
        port = target.endpoint.port
        speaks = _SPEAKS.get(foreign.kind) if foreign else None
        title = (f"{target.label[0].upper()}{target.label[1:]} speaks {speaks}, not Kafka" if speaks else
                 f"{target.label[0].upper()}{target.label[1:]} does not answer in Kafka's protocol")
        said = foreign.description if foreign else (target.kafka.error or "bytes that do not frame as Kafka")
        explanation = [f"kdiag connected to {hostport(target.endpoint.host, port)} and sent a Kafka ApiVersions "
                       f"request; what came back was {said}"]
        if foreign and foreign.preview and foreign.kind not in ("http", "ssh"):
            explanation[-1] += f" (first bytes `{foreign.preview}`)"
        explanation[-1] += "."
        if port in _PORT_HINTS:
            explanation.append(f"Port {port} is {_PORT_HINTS[port]}.")
        size = frame_size(foreign.preview) if foreign else None
        if size is not None and foreign is not None and foreign.kind != "ssh":
            explanation.append(f"A Kafka client reads the first four bytes as a response size ({size:,} bytes) and "
                               f"gives up: librdkafka with `Invalid response size {size}` or a disconnect while "
                               "requesting ApiVersion, while a Java client may try to allocate it and die with "
                               "`java.lang.OutOfMemoryError: Java heap space`.")
        else:
            explanation.append("A Kafka client waits for a Kafka response that never comes and reports a "
                               "disconnect or a timeout, not the real cause.")
        if foreign and foreign.kind == "zookeeper":
            explanation.append("bootstrap.servers must list Kafka brokers, not the zookeeper.connect address.")
        if target.node_id is None:
            fix = ("Point bootstrap.servers at a Kafka listener (9092 by default). The broker's listeners and their "
                   "ports are in its configuration:\n"
                   "  grep -E '^(advertised\\.)?listeners' config/server.properties\n"
                   "  docker exec <broker container> env | grep -E 'KAFKA_(ADVERTISED_)?LISTENERS'\n"
                   f"Then check:  kdiag bootstrap {target.endpoint.host}:<Kafka listener port>")
        else:
            fix = advertised_port_fix(report, target, f"the port of broker {target.node_id}'s Kafka listener")
        findings.append(finding("NOT_KAFKA", "error", title, " ".join(explanation),
                                {**target.evidence, "speaks": foreign.kind if foreign else None,
                                 "description": foreign.description if foreign else None,
                                 "preview": foreign.preview if foreign else None}, fix))
    return tuple(findings)


def advertised_port_fix(report: Report, target: Probed, what: str) -> str:
    node, host = target.node_id, target.endpoint.host
    line = f"{listener_protocol(report)}://{hostport(host, '<port>')}"
    return (f"Broker {node} advertises port {target.endpoint.port}, which is not that listener. Advertise {what} "
            f"instead:\n\n{property_lines(node, [('advertised.listeners', line)])}\n\n{KRAFT_NOTE}")
@dataclass(frozen=True)
class Secured:
    """One endpoint's TLS handshake or SASL exchange: the bootstrap (node_id None) or an advertised broker."""

    endpoint: Endpoint
    node_id: int | None = None
    tls: TlsResult | None = None
    sasl: SaslResult | None = None

    @property
    def where(self) -> str:
        return hostport(self.endpoint.host, self.endpoint.port)

    @property
    def label(self) -> str:
        return Probed(self.endpoint, KafkaCheck("skip"), self.node_id).label

    @property
    def evidence(self) -> dict[str, object]:
        return {"node_id": self.node_id, "host": self.endpoint.host, "port": self.endpoint.port}


def routable_brokers(report: Report):  # type: ignore[no-untyped-def]
    """The advertised brokers a client would use from here (not 0.0.0.0, not someone else's loopback)."""
    for broker in report.cluster.brokers if report.cluster else ():
        if is_nonroutable(broker.host) or loopback_from_elsewhere(report, broker):
            continue
        yield broker


RULES = (
    Rule("NOT_KAFKA", "The port answers, but not with Kafka", "error", _not_kafka),
)
