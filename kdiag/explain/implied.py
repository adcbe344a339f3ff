"""The report a client log implies, so the report's own rules can give ``kdiag explain`` its fixes.

A log line such as ``ip-172-31-18-160.us-west-2.compute.internal:9092/1: Failed to resolve ...`` says
what a report's facts would say: the bootstrap worked, broker 1 advertises that name, and the name
does not resolve from the client's machine. ``implied_report`` writes those facts down as a
``Report`` (the vantage is the client's machine), and ``rule_fix`` runs the catalog's rule over it
and keeps its fix. So a fix is written once, in ``kdiag.diagnose``, whether kdiag probed the cluster
or read a customer's log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kdiag.diagnose import run_rule
from kdiag.diagnose.hosts import classify_host
from kdiag.report import (BrokerReport, Cluster, DnsDetail, Endpoint, MetadataDetail, Report, RoundtripDetail,
                          SaslDetail, Stage, TcpDetail, TlsDetail, Vantage)
from probes.results import DnsResult, IdleCheck, KafkaCheck, SaslResult, TcpResult, TlsResult, TopicInfo

CLIENT_MACHINE = Vantage("the client's machine")


@dataclass(frozen=True)
class Implied:
    """The facts one finding's lines imply. Defaults: the bootstrap resolved, connected and answered."""

    used: Endpoint  # the bootstrap endpoint the client used (a placeholder when the log does not say)
    bootstrap: tuple[Endpoint, ...] = ()  # every bootstrap address the log names
    dns: str = "ok"  # the bootstrap host's resolution
    addresses: tuple[str, ...] = ()  # what it resolved to, when a line shows it
    tcp: str = "ok"  # the bootstrap connect
    tls: TlsResult | None = None  # the bootstrap's TLS handshake
    sasl: SaslResult | None = None  # the bootstrap's SASL exchange
    kafka: KafkaCheck = field(default_factory=lambda: KafkaCheck("ok"))  # what the bootstrap answered
    brokers: tuple[BrokerReport, ...] = ()  # the advertised brokers the log names
    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    roundtrip: RoundtripDetail | None = None
    topics: tuple[TopicInfo, ...] = ()
    idle: IdleCheck | None = None  # a connection left idle, then asked again

    def report(self) -> Report:
        used = self.used
        literal = classify_host(used.host).is_ip
        addresses = (used.host,) if literal else self.addresses
        stages = []
        if not literal:
            stages.append(Stage("dns", "ok" if self.dns == "ok" else "fail", detail=DnsDetail(
                results=(DnsResult(used.host, self.dns, addresses=addresses if self.dns == "ok" else ()),))))
        reached = self.dns == "ok"
        if reached:
            address = addresses[0] if addresses else None
            stages.append(Stage("tcp", "ok" if self.tcp == "ok" else "fail",
                                detail=TcpDetail(attempts=(TcpResult(self.tcp, address, used.port),))))
            reached = self.tcp == "ok"
        if reached and self.tls is not None:
            stages.append(Stage("tls", "ok" if self.tls.ok else "fail", detail=TlsDetail(handshakes=(self.tls,))))
            reached = self.tls.ok
        if reached and self.sasl is not None:
            stages.append(Stage("sasl", "ok" if self.sasl.ok else "fail", detail=SaslDetail(attempts=(self.sasl,))))
            reached = self.sasl.ok
        answered = reached and self.kafka.status in ("ok", "auth_required")
        stages.append(Stage("metadata", "ok" if answered else "fail",
                            detail=MetadataDetail(endpoint=str(used), kafka=self.kafka if reached else None)))
        if self.roundtrip is not None:
            stages.append(Stage("roundtrip", "fail", detail=self.roundtrip))
        brokers = self.brokers if answered else ()
        client = {"security.protocol": self.protocol}
        if self.mechanism:
            client["sasl.mechanisms"] = self.mechanism
        bootstrap = (used,) + tuple(e for e in self.bootstrap if e != used)
        return Report(bootstrap=bootstrap, stages=tuple(stages),
                      cluster=Cluster(brokers=brokers, topics=self.topics if answered else ()),
                      vantage=CLIENT_MACHINE, client=client, idle=self.idle)


def rule_fix(implied: Implied, rule_id: str) -> str:
    """The fix the catalog's ``rule_id`` gives for the implied report ('' if the rule stays quiet)."""
    found = run_rule(implied.report(), rule_id)
    return found[0].fix if found else ""


def broker(node_id: int | None, host: str, port: int, *, dns: str = "ok", addresses: Sequence[str] = (),
           tcp: str = "ok", kafka: str = "ok", tls: TlsResult | None = None,
           sasl: SaslResult | None = None) -> BrokerReport:
    """An advertised broker as the log shows it (what a line does not say: it worked)."""
    if not addresses and classify_host(host).is_ip:
        addresses = (host,)
    return BrokerReport(node_id if node_id is not None else 1, host, port,
                        dns=DnsResult(host, dns, addresses=tuple(addresses) if dns == "ok" else ()),
                        tcp=TcpResult(tcp if dns == "ok" else "skip", addresses[0] if addresses else None, port),
                        kafka=KafkaCheck(kafka if dns == "ok" and tcp == "ok" else "skip"), tls=tls, sasl=sasl)
