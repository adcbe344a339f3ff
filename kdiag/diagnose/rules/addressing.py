"""Rules for names with several addresses: a broker that answers on some of them and not the others.

``localhost`` resolves to ``::1`` and ``127.0.0.1``; a broker bound to ``127.0.0.1`` (or ``0.0.0.0``)
accepts the IPv4 connect and refuses the IPv6 one. A check that stops at the first address that
works sees a healthy broker; librdkafka, which takes the next address on every reconnect, fails every
other connect and logs ``Connect to ipv6#[::1]:9092 failed: Connection refused`` between successes,
then ``1/1 brokers are down``. kdiag connects to every address of the bootstrap host (the tcp stage)
and of every advertised broker (``cluster.brokers[].tcp_attempts``), and this rule names the split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kdiag.diagnose.facts import bootstrap_attempts, bootstrap_used, metadata_obtained
from kdiag.diagnose.fixes import listener_protocol, property_lines
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.wording import join_words
from kdiag.finding import Finding
from kdiag.report import Report
from probes.hostport import hostport
from probes.results import TcpResult


@dataclass(frozen=True)
class Split:
    """One endpoint whose addresses do not all connect: ``label`` says whose it is."""

    label: str
    host: str
    port: int
    attempts: tuple[TcpResult, ...]

    @property
    def working(self) -> list[str]:
        return [a.address for a in self.attempts if a.ok and a.address]

    @property
    def failing(self) -> list[TcpResult]:
        return [a for a in self.attempts if not a.ok and a.status != "skip"]


def family(address: str) -> str:
    return "IPv6" if ":" in address else "IPv4"


def _is_split(attempts: Sequence[TcpResult]) -> bool:
    tried = [a for a in attempts if a.status != "skip"]
    return any(a.ok for a in tried) and any(not a.ok for a in tried)


def splits(report: Report) -> list[Split]:
    """The bootstrap endpoint and the advertised brokers whose addresses connect only in part."""
    found: list[Split] = []
    used = bootstrap_used(report)
    if used is not None:
        attempts = tuple(a for a in bootstrap_attempts(report, used) if a.port in (None, used.port))
        if _is_split(attempts):
            found.append(Split("the bootstrap address", used.host, used.port, attempts))
    if metadata_obtained(report) and report.cluster is not None:
        for broker in report.cluster.brokers:
            if broker.tcp.ok and _is_split(broker.tcp_attempts):
                found.append(Split(f"broker {broker.node_id}", broker.host, broker.port, broker.tcp_attempts))
    return found


def _sentence(split: Split) -> str:
    failing = "; ".join(f"{hostport(a.address or '?', split.port)} {a.status}" for a in split.failing)
    return (f"{split.label.capitalize()}, {hostport(split.host, split.port)}, resolves to "
            f"{join_words(a.address for a in split.attempts)}: {join_words(split.working)} "
            f"{'connects' if len(split.working) == 1 else 'connect'}, but {failing}.")


def _family_split(report: Report) -> Finding | None:
    found = splits(report)
    if not found:
        return None
    first = found[0]
    bad = first.failing[0]
    bad_address = bad.address or "?"
    good_families = sorted({family(a) for s in found for a in s.working})
    bad_families = sorted({family(a.address or "") for s in found for a in s.failing})
    by_family = set(good_families).isdisjoint(bad_families)
    what = (f"only on {join_words(good_families)}" if by_family else "on some of its addresses only")
    where = join_words(dict.fromkeys(hostport(s.host, s.port) for s in found))
    title = f"{where} accepts connections {what}: clients alternating addresses fail part of the time"
    explanation = (" ".join(_sentence(s) for s in found)
                   + " A check that stops at the first address that works says all is well, and so do kcat -L and "
                   "a first connect. But clients use every address: librdkafka takes the next one on each "
                   f"reconnect and logs `{hostport(first.host, first.port)}/bootstrap: Connect to "
                   f"{'ipv6' if ':' in bad_address else 'ipv4'}#{hostport(bad_address, first.port)} failed: "
                   f"{'Connection refused' if bad.status == 'refused' else bad.error or bad.status}` between good "
                   "connects, then `1/1 brokers are down`, and a Java client with client.dns.lookup=use_all_dns_ips "
                   "spends a connect on the dead address each time it reconnects. Requests fail or stall "
                   "intermittently, which looks like a flaky network.")
    fix = split_fix(listener_protocol(report), first.host, first.port, first.working[0], good_families, bad_families)
    said = _client_lines(report, {a.address for s in found for a in s.failing if a.address})
    if said:
        explanation += (" This run's own round trip (librdkafka) met it: `" + "`, `".join(said) + "`.")
    evidence = {"client_log": said, "endpoints": [{"endpoint": hostport(s.host, s.port), "of": s.label, "working": s.working,
                               "failing": [{"address": a.address, "status": a.status, "error": a.error}
                                           for a in s.failing]} for s in found],
                "working_families": good_families, "failing_families": bad_families}
    return finding("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning", title, explanation, evidence, fix)


def split_fix(protocol: str, host: str, port: int, working: str, good_families: Sequence[str],
              bad_families: Sequence[str]) -> str:
    """The fix for ``host:port`` connecting on ``working`` (of ``good_families``) and failing on ``bad_families``:
    bind every family or advertise the address that works; by family, the clients' family setting too."""
    by_family = set(good_families).isdisjoint(bad_families)
    if by_family:
        cause = (f"The listener is bound to {join_words(good_families)} only (listeners={protocol}://127.0.0.1:{port} "
                 f"or {protocol}://0.0.0.0:{port}) while {host} also resolves to {join_words(bad_families)}.")
    else:
        cause = f"Some addresses {host} resolves to do not lead to a listening broker (a stale DNS record?)."
    fixes = [cause, "On the broker, either listen on every family (an empty host binds them all) or advertise the "
             "address that works:",
             property_lines(None, [("listeners", f"{protocol}://:{port}")],
                            comment="bind IPv4 and IPv6 (keep your other listeners in the list)"),
             property_lines(None, [("advertised.listeners", f"{protocol}://{hostport(working, port)}")],
                            comment=f"or: advertise {working} instead of the name {host}")]
    if by_family:
        rd_family = "v4" if list(good_families) == ["IPv4"] else "v6"
        fixes.append("Or, on the clients only: librdkafka (confluent-kafka, kcat -X) "
                     f"broker.address.family={rd_family}; a Java client "
                     f"-Djava.net.prefer{'IPv4Stack' if rd_family == 'v4' else 'IPv6Addresses'}=true.")
    fixes.append(f"Check:  kdiag bootstrap {hostport(host, port)}")
    return "\n\n".join(fixes)


def _client_lines(report: Report, addresses: set[str]) -> list[str]:
    """Up to three distinct lines of the round trip's client log (librdkafka's error events) that name a
    failing address, and its "brokers are down" line."""
    detail = report.detail("roundtrip")
    events = [line.split(": ", 1)[1] for line in getattr(detail, "client_log", ()) or ()
              if line.startswith("_") and ": " in line]
    failing = [e for e in events if any(f"#[{a}]:" in e or f"#{a}:" in e for a in addresses)]
    down = [e for e in events if e.endswith("brokers are down")]
    return list(dict.fromkeys(failing))[:2] + down[:1]


RULES = (
    Rule("ADVERTISED_ADDRESS_FAMILY_SPLIT", "A broker accepts connections on some of its addresses only "
         "(IPv4 but not IPv6)", "warning", _family_split),
)
