"""What each stage of ``kdiag bootstrap`` found, as its :class:`Stage`: pure functions of the probes' results.

The orchestrator (``kdiag.orchestrate``) runs the probes in order; each function here turns one stage's facts
into its status (``ok``, ``warn``, ``fail``, ``skip``), its one-line summary and its detail, with no I/O and no
clock but the duration it is given, so every summary is tested on built results (``tests/unit/orchestrate``).
"""

from __future__ import annotations

from collections.abc import Sequence

from kdiag.report import (
    AdvertisedDetail,
    BrokerReport,
    CoordinatorReport,
    DnsDetail,
    EmptyDetail,
    Endpoint,
    MetadataDetail,
    RoundtripDetail,
    SaslDetail,
    Stage,
    TcpDetail,
    TlsDetail,
)
from probes.advertised import EndpointCheck
from probes.hostport import hostport
from probes.kafka import OFFSETS_TOPIC
from probes.results import DnsResult, KafkaBroker, KafkaCheck, Landing, SaslResult, TcpResult, TlsResult
from probes.tls import describe


def skipped(name: str, reason: str, detail=None) -> Stage:
    """Stage ``name`` not run, for ``reason`` (``blocked by tcp: ...``, ``disabled with --no-roundtrip``)."""
    return Stage(name, "skip", 0.0, reason, detail or empty_detail(name, reason))


def empty_detail(name: str, reason: str):
    return {
        "dns": DnsDetail(), "tcp": TcpDetail(), "tls": TlsDetail(reason=reason), "sasl": SaslDetail(reason=reason),
        "metadata": MetadataDetail(reason=reason), "advertised": AdvertisedDetail(reason=reason),
        "roundtrip": RoundtripDetail(reason=reason),
    }.get(name, EmptyDetail(reason))


def dns_stage(results: Sequence[DnsResult], duration_ms: float) -> Stage:
    failed = [r for r in results if not r.ok]
    if not failed:
        status = "ok"
        summary = "; ".join(f"{r.host} → {', '.join(r.addresses)}" for r in results)
    elif len(failed) < len(results):
        status = "warn"
        summary = "; ".join(f"{r.host}: {r.status}" for r in failed) + " (other bootstrap hosts resolve)"
    else:
        status = "fail"
        summary = "; ".join(f"cannot resolve {r.host} ({r.status})" for r in failed)
    return Stage("dns", status, duration_ms, summary, DnsDetail(tuple(results)))


def tcp_stage(results: Sequence[TcpResult], duration_ms: float) -> Stage:
    ok = [r for r in results if r.ok]
    if ok and len(ok) == len(results):
        status, summary = "ok", "; ".join(f"connected to {_addr(r)} in {r.duration_ms:g} ms" for r in ok)
    elif ok:
        status = "warn"
        summary = (f"{len(ok)} of {len(results)} addresses accept connections; "
                   + "; ".join(f"{_addr(r)} {r.status}" for r in results if not r.ok))
    else:
        status, summary = "fail", "; ".join(f"{_addr(r)} {r.status}: {r.error}" for r in results)
    return Stage("tcp", status, duration_ms, summary, TcpDetail(tuple(results)))


def tls_stage(results: Sequence[TlsResult], duration_ms: float) -> Stage:
    ok = [r for r in results if r.ok]
    if ok and len(ok) == len(results):
        status, summary = "ok", describe(ok[0])
    elif ok:
        status = "warn"
        summary = "; ".join([describe(ok[0])] + [describe(r) for r in results if not r.ok])
    else:
        status, summary = "fail", "; ".join(dict.fromkeys(describe(r) for r in results))
    return Stage("tls", status, duration_ms, summary, TlsDetail(tuple(results)))


def sasl_stage(attempts: Sequence[SaslResult], duration_ms: float, *, authenticated: bool, kerberos=None,
               roundtrip: bool = True) -> Stage:
    """The sasl stage from its attempts in order (the last authenticated when ``authenticated``); ``kerberos``:
    the GSSAPI service-principal check when kdiag could not log in itself (``not_probed``)."""
    detail = SaslDetail(tuple(attempts))
    if authenticated:
        status = "ok" if len(attempts) == 1 else "warn"
        summary = "; ".join(sasl_summary(a) for a in (attempts[-1], *attempts[:-1]))
    elif attempts and all(a.status == "skip" for a in attempts):
        status, summary = "skip", sasl_summary(attempts[0])
        detail = SaslDetail(tuple(attempts), reason=summary)
    elif not_probed(attempts, authenticated=authenticated):
        status, summary = "warn", sasl_summary(attempts[-1])
        if kerberos is not None:
            detail = SaslDetail(tuple(attempts), kerberos=kerberos)
            summary += "; " + kerberos_summary(kerberos)
        if roundtrip:
            summary += "; the round trip logs in with the client library instead"
    else:
        status = "fail"
        summary = "; ".join(dict.fromkeys(sasl_summary(a) for a in attempts)) or "the run's deadline passed before SASL"
    return Stage("sasl", status, duration_ms, summary, detail)


def not_probed(attempts: Sequence[SaslResult], *, authenticated: bool) -> bool:
    """The listener enables the client's mechanism, but kdiag cannot log in with it (GSSAPI, OAUTHBEARER)."""
    return not authenticated and bool(attempts) and attempts[-1].status == "not_probed"


def sasl_summary(result: SaslResult) -> str:
    if result.ok:
        enabled = f"; enabled: {', '.join(result.enabled_mechanisms)}" if result.enabled_mechanisms else ""
        return (f"authenticated as {result.username} with {result.mechanism} at {result.endpoint} (SaslHandshake "
                f"v{result.handshake_version}, SaslAuthenticate v{result.authenticate_version}{enabled})")
    if result.status == "skip":
        return f"blocked at {result.endpoint}: {result.error}"
    return f"{result.endpoint}: {result.status}: {result.error}"


def kerberos_summary(check) -> str:
    """``the KDC knows kafka/host@REALM`` or what it said, for the sasl stage's summary."""
    parts = []
    for principal in check.principals:
        name = principal.kdc_principal or principal.principal
        if principal.kdc_status == "ok":
            parts.append(f"the KDC knows {name}")
        elif principal.kdc_status == "unknown":
            parts.append(f"the KDC does not know {name}")
        else:
            parts.append(f"a client asks for {name} ({principal.kdc_status.replace('_', ' ')})")
    return "; ".join(parts)


def metadata_stage(endpoint: Endpoint, kafka: KafkaCheck, duration_ms: float) -> Stage:
    """The metadata stage: the answer read over ``endpoint``, or the first failure when none answered."""
    detail = MetadataDetail(str(endpoint), kafka)
    if not kafka.ok:
        return Stage("metadata", "fail", duration_ms, f"{endpoint}: {kafka.status}: {kafka.error}", detail)
    cluster = kafka.cluster_id or "(no cluster id)"
    summary = (f"cluster {cluster}, {len(kafka.brokers) + kafka.brokers_omitted:,} advertised broker(s), "
               f"controller {kafka.controller_id}, "
               f"{len(kafka.topics)} topic(s) (Metadata v{kafka.metadata_version} via {endpoint})")
    if kafka.foreign is not None:
        summary += f"; {OFFSETS_TOPIC} alone: the answer for every topic was over kdiag's cap"
    return Stage("metadata", "ok", duration_ms, summary, detail)


def advertised_stage(brokers: Sequence[BrokerReport], coordinator: CoordinatorReport | None, *,
                     brokers_omitted: int, landings: tuple[Landing, ...], duration_ms: float) -> Stage:
    """The advertised stage: whether every broker the metadata advertises, and the group coordinator, is usable."""
    bad = [b for b in brokers if not b.reachable or b.identity.status == "wrong_broker"]
    if not brokers:
        status, summary = "fail", "the metadata advertises no brokers"
    elif bad:
        status = "fail"
        summary = f"{len(bad)} of {len(brokers)} advertised broker(s) unusable from here: " + "; ".join(
            f"broker {b.node_id} at {b.endpoint} {broker_problem(b)}" for b in bad)
    else:
        status = "ok"
        summary = f"all {len(brokers)} advertised broker(s) resolve, connect and answer as themselves"
    if status == "ok" and coordinator is not None and coordinator.reachable is False:
        status = "fail"
        summary += f"; the group coordinator {hostport(coordinator.host, coordinator.port)} is unreachable"
    if brokers_omitted:
        summary += (f"; and {brokers_omitted:,} more advertised broker(s) not checked (kdiag checks and "
                    f"lists the first {len(brokers):,})")
    detail = AdvertisedDetail(len(brokers), len(brokers) - len(bad), landings=landings)
    return Stage("advertised", status, duration_ms, summary, detail)


def broker_reports(brokers: Sequence[KafkaBroker], checks: Sequence[EndpointCheck]) -> tuple[BrokerReport, ...]:
    """Each advertised broker as the metadata declared it, with what checking its endpoint found."""
    return tuple(BrokerReport(b.node_id, b.host, b.port, b.rack, c.dns, c.tcp, c.kafka, c.identity, c.tls, c.sasl,
                              c.tcp_attempts) for b, c in zip(brokers, checks))


def broker_problem(broker: BrokerReport) -> str:
    if not broker.dns.ok:
        return f"does not resolve ({broker.dns.status})"
    if not broker.tcp.ok:
        return f"tcp {broker.tcp.status}"
    if broker.tls is not None and not broker.tls.ok:
        return f"tls {broker.tls.status}: {broker.tls.error}"
    if broker.sasl is not None and not broker.sasl.ok:
        return f"sasl {broker.sasl.status}: {broker.sasl.error}"
    if broker.identity.status == "wrong_broker":
        return "leads to a different broker"
    return f"kafka {broker.kafka.status}"


def roundtrip_stage(detail: RoundtripDetail, duration_ms: float) -> Stage:
    """The round trip: one message produced and consumed, or the error that stopped it."""
    if detail.ok:
        summary = (f"produced and consumed 1 message on {detail.topic}-{detail.partition} at offset {detail.offset} "
                   f"(produce {detail.produce_ms:g} ms, consume {detail.consume_ms:g} ms)")
        return Stage("roundtrip", "ok", duration_ms, summary, detail)
    return Stage("roundtrip", "fail", duration_ms, f"{detail.error_code}: {detail.error}", detail)


def topic_problem_stage(problem: RoundtripDetail, duration_ms: float) -> Stage:
    """The round trip stopped before it began: its topic could not be created, or has no leader."""
    return Stage("roundtrip", "fail", duration_ms, problem.error or "", problem)


def roundtrip_blocked(done: Sequence[Stage], *, enabled: bool, login_by_library: bool,
                      library_cannot_login: bool) -> str | None:
    """Why the round trip does not run after the stages ``done``, or None when it runs. ``login_by_library``:
    kdiag could not log in with the client's mechanism itself, the client library does;
    ``library_cannot_login``: nor can the library (its librdkafka has no GSSAPI)."""
    if not enabled:
        return "disabled with --no-roundtrip"
    if library_cannot_login:
        return ("confluent-kafka's librdkafka is built without GSSAPI: no Kerberos login to round-trip with (the "
                "sasl stage says which service principal a client asks for)")
    if login_by_library:
        return None
    advertised = next((s for s in done if s.name == "advertised"), None)
    if advertised is not None and advertised.status not in ("fail", "skip"):
        return None
    root = first_failed(done)
    if root is None or root.name == "advertised":
        return "blocked by advertised: a client would wait on unusable brokers until its own timeout"
    return f"blocked by {root.name}: a client would fail there too, before it could produce or consume"


def first_failed(done: Sequence[Stage]) -> Stage | None:
    """The stage that blocked the ones after it: the first that failed, in the order they ran."""
    return next((s for s in done if s.status == "fail"), None)


def blocked(done: Sequence[Stage], why: str, *, default: str) -> str:
    """``blocked by STAGE: why``, naming the first stage that failed (``default`` when none did)."""
    root = first_failed(done)
    return f"blocked by {root.name if root is not None else default}: {why}"


def _addr(result: TcpResult) -> str:
    return hostport(result.address or "?", result.port)
