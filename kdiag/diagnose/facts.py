"""Derived facts the rules share: pure functions over a Report, no I/O.

Which bootstrap endpoint answered, what happened to each bootstrap host, which brokers this machine
can really use, which partitions they lead, and the few client settings a rule may read (never a
secret: only ``security.protocol`` and the SASL mechanism).
"""

from __future__ import annotations

from collections.abc import Iterable

from kdiag.diagnose.hosts import classify_host, is_loopback, is_nonroutable, normalise_host
from kdiag.report import BrokerReport, Cluster, DnsDetail, Endpoint, MetadataDetail, Report, TcpDetail
from probes.results import DnsResult, KafkaCheck, TcpResult

USABLE_KAFKA = ("ok", "auth_required")
TCP_FAILURES = ("refused", "timeout", "unreachable", "error")
DNS_FAILURES = ("nxdomain", "no_answer", "servfail", "timeout", "error")
DEFAULT_PORT = 9092


# --- addresses --------------------------------------------------------------------------------


def parse_endpoint(text: str | None) -> Endpoint | None:
    """``host:port``, ``[v6]:port`` or a bare host, as the contract writes bootstrap addresses."""
    if not text:
        return None
    text = text.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
    text = text.split("/", 1)[0]
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    if not host:
        return None
    try:
        return Endpoint(host, int(port) if port else DEFAULT_PORT)
    except ValueError:
        return None


def same_host(a: str, b: str) -> bool:
    return normalise_host(a) == normalise_host(b)


# --- client settings (never a secret) -----------------------------------------------------------


def _setting(report: Report, *names: str) -> str | None:
    lowered = {str(k).lower(): v for k, v in report.client.items()}
    for name in names:
        value = lowered.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def security_protocol(report: Report) -> str:
    """The client's ``security.protocol``, upper case; PLAINTEXT when unset."""
    return (_setting(report, "security.protocol") or "PLAINTEXT").upper()


def client_uses_tls(report: Report) -> bool:
    return security_protocol(report) in ("SSL", "SASL_SSL")


def client_uses_sasl(report: Report) -> bool:
    return security_protocol(report).startswith("SASL_")


def client_sasl_mechanism(report: Report) -> tuple[str | None, bool]:
    """(mechanism, explicit): librdkafka ``sasl.mechanisms`` or Java ``sasl.mechanism``.

    With SASL on and no mechanism set, both clients fall back to GSSAPI (``explicit`` False).
    """
    if not client_uses_sasl(report):
        return None, False
    value = _setting(report, "sasl.mechanisms", "sasl.mechanism")
    if value:
        return value.upper(), True
    return "GSSAPI", False


# --- the bootstrap ------------------------------------------------------------------------------


def bootstrap_dns(report: Report, host: str) -> DnsResult | None:
    detail = report.detail("dns")
    if not isinstance(detail, DnsDetail):
        return None
    return next((r for r in detail.results if same_host(r.host, host)), None)


def bootstrap_resolved(report: Report, endpoint: Endpoint) -> bool | None:
    """True/False when the dns stage recorded this host; an IP literal always resolves."""
    if classify_host(endpoint.host).is_ip:
        return True
    result = bootstrap_dns(report, endpoint.host)
    if result is None or result.status == "skip":
        return None
    return result.ok


def bootstrap_addresses(report: Report, endpoint: Endpoint) -> tuple[str, ...]:
    kind = classify_host(endpoint.host)
    if kind.is_ip:
        return (normalise_host(endpoint.host),)
    result = bootstrap_dns(report, endpoint.host)
    return tuple(result.addresses) if result is not None else ()


def bootstrap_attempts(report: Report, endpoint: Endpoint) -> tuple[TcpResult, ...]:
    """The tcp stage's connects that belong to this bootstrap endpoint."""
    detail = report.detail("tcp")
    if not isinstance(detail, TcpDetail):
        return ()
    addresses = {normalise_host(a) for a in bootstrap_addresses(report, endpoint)}
    addresses.add(normalise_host(endpoint.host))
    mine = tuple(a for a in detail.attempts
                 if (a.port in (None, endpoint.port)) and a.address is not None
                 and normalise_host(a.address) in addresses)
    if mine:
        return mine
    if len(report.bootstrap) == 1:  # nothing to tell endpoints apart by: they are all this one's
        return tuple(a for a in detail.attempts if a.status != "skip")
    return ()


def bootstrap_connected(report: Report, endpoint: Endpoint) -> bool | None:
    attempts = [a for a in bootstrap_attempts(report, endpoint) if a.status != "skip"]
    if not attempts:
        return None
    return any(a.ok for a in attempts)


def metadata_detail(report: Report) -> MetadataDetail | None:
    detail = report.detail("metadata")
    return detail if isinstance(detail, MetadataDetail) else None


def bootstrap_kafka(report: Report) -> KafkaCheck | None:
    detail = metadata_detail(report)
    return None if detail is None else detail.kafka


def bootstrap_used(report: Report) -> Endpoint | None:
    """The bootstrap endpoint the metadata came through, else the first that connected."""
    detail = metadata_detail(report)
    if detail is not None and (endpoint := parse_endpoint(detail.endpoint)) is not None:
        return endpoint
    for endpoint in report.bootstrap:
        if bootstrap_connected(report, endpoint):
            return endpoint
    return report.bootstrap[0] if report.bootstrap else None


def bootstrap_is_loopback(report: Report) -> bool:
    used = bootstrap_used(report)
    return used is not None and is_loopback(used.host)


def bootstrap_usable(report: Report) -> bool:
    """Some bootstrap endpoint resolved and connected (or the metadata came back anyway)."""
    if metadata_obtained(report):
        return True
    return any(bootstrap_resolved(report, e) is not False and bootstrap_connected(report, e)
               for e in report.bootstrap)


def metadata_obtained(report: Report) -> bool:
    return report.cluster is not None and bool(report.cluster.brokers)


# --- the advertised brokers ---------------------------------------------------------------------


def loopback_from_elsewhere(report: Report, broker: BrokerReport) -> bool:
    """The broker advertises loopback while this client reached the cluster at another address."""
    return is_loopback(broker.host) and not bootstrap_is_loopback(report)


def broker_usable(report: Report, broker: BrokerReport) -> bool | None:
    """Can a client on this machine use this broker? None when the probe did not get that far."""
    if is_nonroutable(broker.host):
        return False
    if loopback_from_elsewhere(report, broker) and broker.identity.status != "ok":
        return False  # whatever answers on this machine's loopback is not that broker
    if broker.dns.status == "skip":
        return None
    if not broker.dns.ok:
        return False
    if broker.tcp.status == "skip":
        return None
    if not broker.tcp.ok:
        return False
    if broker.kafka.status not in USABLE_KAFKA + ("skip",):
        return False
    return broker.identity.status != "wrong_broker"


def unusable_brokers(report: Report) -> tuple[BrokerReport, ...]:
    if report.cluster is None:
        return ()
    return tuple(b for b in report.cluster.brokers if broker_usable(report, b) is False)


def partitions_led_by(cluster: Cluster, node_ids: Iterable[int], *,
                      internal: bool = False) -> dict[str, list[int]]:
    """topic -> partitions whose leader is one of ``node_ids`` (internal topics only if asked)."""
    wanted = set(node_ids)
    led: dict[str, list[int]] = {}
    for topic in cluster.topics:
        if topic.is_internal != internal:
            continue
        partitions = sorted(p.partition for p in topic.partitions if p.leader_id in wanted)
        if partitions:
            led[topic.name] = partitions
    return led


def example_partition(cluster: Cluster | None, node_id: int) -> str | None:
    """``topic-partition`` of one user partition the broker leads, for quoting client errors."""
    if cluster is None:
        return None
    for topic, partitions in partitions_led_by(cluster, (node_id,)).items():
        return f"{topic}-{partitions[0]}"
    return None


def broker_index(cluster: Cluster, node_id: int) -> int:
    """The broker's position among the cluster's brokers by node id (stable across rules)."""
    ordered = sorted(b.node_id for b in cluster.brokers)
    return ordered.index(node_id) if node_id in ordered else len(ordered)


def vantage_address(report: Report) -> str | None:
    """This machine's first address another machine could know it by (not loopback, not link-local)."""
    for address in report.vantage.addresses:
        if classify_host(address).kind not in ("loopback", "link_local", "unspecified"):
            return address
    return None
