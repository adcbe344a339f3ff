"""``kdiag diff A.json B.json``: two reports of one cluster from two places, and what differs.

The seed's "it works on the broker machine but not from my laptop": run ``kdiag bootstrap --json`` in
both places and diff the reports. ``diff_reports(a, b)`` compares, in this order:

* the cluster (its id: two different clusters make every other difference meaningless);
* the bootstrap lists;
* each node id's advertised address: different addresses for the same node id mean the two clients
  came in through different listeners, each advertising its own (the seed's BOB and FRED);
* each name's resolution, the bootstrap hosts' and every advertised broker's: a name that resolves in
  one place only (a private DNS zone, a hosts file), or to different addresses (split-horizon DNS);
* each TCP connect: a port open from one side only (a security group that allows the VPC);
* what each advertised broker answered, the stages' statuses (the round trip works in one place
  only), and the findings present in one report only.

The JSON document is ``kdiag.diff/1`` (an addition to CONTRACT.md, documented here and in ``--help``)::

    {"schema": "kdiag.diff/1",
     "a": {"file", "vantage", "bootstrap", "generated_at", "cluster_id"}, "b": {...},
     "same_cluster": true | false | null,   # null: one side never reached the cluster
     "differences": [{"kind", "subject", "a", "b", "explanation"}],
     "findings": [...]}                      # the findings of one report only, each with "seen_from": "a" | "b"

``kind`` is one of ``cluster``, ``bootstrap``, ``advertised``, ``broker``, ``dns``, ``tcp``, ``kafka``,
``stage``, ``finding``; ``a`` and ``b`` say what each side saw (null: nothing there). Exit status: 0 when
nothing differs, 1 when something does, 2 for a file that is not a kdiag report (one line on stderr).

Importing this module is cheap (``kdiag --help`` does): the report model is imported when a diff runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from kdiag.finding import Finding
    from kdiag.report import BrokerReport, Report

SCHEMA = "kdiag.diff/1"
KINDS = ("cluster", "bootstrap", "advertised", "broker", "dns", "tcp", "kafka", "stage", "finding")
"""The kinds of difference, in the order they are listed: causes first, then what they cause."""


@dataclass(frozen=True)
class Difference:
    kind: str
    subject: str
    a: str | None
    b: str | None
    explanation: str


@dataclass(frozen=True)
class Side:
    """One report, named for the reader: ``A (laptop)``."""

    label: str  # "A" or "B"
    report: Report
    file: str | None = None

    @property
    def name(self) -> str:
        return f"{self.label} ({self.report.vantage.hostname})"

    @property
    def cluster_id(self) -> str | None:
        return self.report.cluster.cluster_id if self.report.cluster else None


@dataclass(frozen=True)
class ReportDiff:
    a: Side
    b: Side
    same_cluster: bool | None
    differences: tuple[Difference, ...]
    findings: tuple[tuple[str, Finding], ...] = field(default_factory=tuple)  # (seen_from, finding)

    @property
    def differ(self) -> bool:
        return bool(self.differences)


# --- comparing --------------------------------------------------------------------------------------


def diff_reports(a: Report, b: Report, *, a_file: str | None = None, b_file: str | None = None) -> ReportDiff:
    """Everything that differs between report ``a`` and report ``b`` of (presumably) one cluster."""
    left, right = Side("A", a, a_file), Side("B", b, b_file)
    same = None if left.cluster_id is None or right.cluster_id is None else left.cluster_id == right.cluster_id
    differences: list[Difference] = []
    if same is False:
        differences.append(Difference(
            "cluster", "cluster id", left.cluster_id, right.cluster_id,
            f"{left.name} and {right.name} reached two different clusters: the differences below compare two "
            "clusters, not two views of one. Check both were run with the bootstrap of the same cluster."))
    for compare in (_bootstrap, _advertised, _dns, _tcp, _kafka, _stages):
        differences.extend(compare(left, right))
    only = _findings_only(left, right)
    differences.extend(_finding_differences(left, right, only))
    return ReportDiff(left, right, same, tuple(differences), tuple(only))


def _endpoints(report: Report) -> list[str]:
    return [str(e) for e in report.bootstrap]


def _bootstrap(a: Side, b: Side) -> Iterator[Difference]:
    left, right = _endpoints(a.report), _endpoints(b.report)
    if left != right:
        yield Difference("bootstrap", "bootstrap", ",".join(left), ",".join(right),
                         f"{a.name} bootstrapped with {','.join(left)} and {b.name} with {','.join(right)}. When "
                         "these are two listeners of one cluster, each advertises its own broker addresses: compare "
                         "the advertised addresses below.")


def _stages(a: Side, b: Side) -> Iterator[Difference]:
    left = {s.name: s for s in a.report.stages}
    right = {s.name: s for s in b.report.stages}
    for name in [n for n in left if n in right] + [n for n in right if n not in left]:
        one, two = left.get(name), right.get(name)
        status_a, status_b = (one.status if one else None), (two.status if two else None)
        if status_a == status_b:
            continue
        works = [side.name for side, stage in ((a, one), (b, two)) if stage is not None and stage.status == "ok"]
        if name == "roundtrip" and len(works) == 1:
            explanation = (f"Producing and consuming work from {works[0]} only: a client there can use every "
                           "partition leader, a client on the other side cannot (the differences below say why).")
        else:
            summary_a = f" ({one.summary})" if one and one.summary else ""
            summary_b = f" ({two.summary})" if two and two.summary else ""
            explanation = (f"The {name} stage is {status_a or 'absent'}{summary_a} from {a.name} and "
                           f"{status_b or 'absent'}{summary_b} from {b.name}.")
        yield Difference("stage", name, status_a, status_b, explanation)


def _dns_results(report: Report) -> dict[str, Any]:
    """host -> DnsResult, for the bootstrap hosts (the dns stage) and every advertised broker."""
    from kdiag.diagnose.hosts import normalise_host
    from kdiag.report import DnsDetail

    results: dict[str, Any] = {}
    detail = report.detail("dns")
    for result in detail.results if isinstance(detail, DnsDetail) else ():
        results.setdefault(normalise_host(result.host), result)
    for broker in report.cluster.brokers if report.cluster else ():
        if broker.dns.status != "skip":
            results.setdefault(normalise_host(broker.host), broker.dns)
    return results


def _resolution(result: Any) -> str:
    if result.status == "ok":
        return f"ok ({', '.join(result.addresses)})" if result.addresses else "ok"
    return result.status


def _dns(a: Side, b: Side) -> Iterator[Difference]:
    from kdiag.diagnose.hosts import classify_host

    left, right = _dns_results(a.report), _dns_results(b.report)
    for host in [h for h in left if h in right]:
        one, two = left[host], right[host]
        subject = _host_subject(host, a.report, b.report)
        if one.ok != two.ok:
            good, bad = (a, b) if one.ok else (b, a)
            failed = two if one.ok else one
            kind = classify_host(host)
            explanation = (f"{host} resolves from {good.name} but not from {bad.name} ({failed.status}). It is "
                           f"{kind.description}. A name that resolves in one place only lives in a private DNS zone "
                           f"or in a hosts file there; {bad.name} is outside it.")
            if not subject.startswith("bootstrap"):
                explanation += (f" Clients on {bad.name} get this name from the cluster's metadata and fail there: "
                                "advertise a name both sides resolve (or one listener per network).")
            yield Difference("dns", subject, _resolution(one), _resolution(two), explanation)
        elif one.ok and one.addresses and two.addresses and set(one.addresses).isdisjoint(two.addresses):
            yield Difference("dns", subject, _resolution(one), _resolution(two),
                             f"{host} resolves to different addresses from {a.name} and {b.name}: split-horizon DNS "
                             "(a private zone inside the network, the public one outside) or a hosts-file entry on "
                             "one side. That is fine only if each address reaches the same broker from its side.")


def _host_subject(host: str, *reports: Report) -> str:
    from kdiag.diagnose.hosts import normalise_host

    for report in reports:
        for broker in report.cluster.brokers if report.cluster else ():
            if normalise_host(broker.host) == host:
                return f"broker {broker.node_id} {host}"
    return f"bootstrap {host}"


def _connects(report: Report) -> dict[str, tuple[str, str]]:
    """'host:port' -> (status, what was tried) for the bootstrap endpoints and every advertised broker."""
    from kdiag.diagnose.facts import bootstrap_attempts

    connects: dict[str, tuple[str, str]] = {}
    for endpoint in report.bootstrap:
        attempts = [t for t in bootstrap_attempts(report, endpoint) if t.status != "skip"]
        if attempts:
            status = "ok" if any(t.ok for t in attempts) else attempts[0].status
            connects[str(endpoint)] = (status, "bootstrap")
    for broker in report.cluster.brokers if report.cluster else ():
        if broker.tcp.status != "skip":
            connects.setdefault(str(broker.endpoint), (broker.tcp.status, f"broker {broker.node_id}"))
    return connects


_TCP_WHY = {
    "refused": "nothing listens on that address and port as that side reaches it, or a firewall REJECTs it",
    "timeout": "a firewall or security group drops that side's packets (it allows one network and not the other)",
    "unreachable": "that side has no route to the address (a private address seen from outside its network)",
}


def _tcp(a: Side, b: Side) -> Iterator[Difference]:
    left, right = _connects(a.report), _connects(b.report)
    for where in [w for w in left if w in right]:
        (one, role), (two, _) = left[where], right[where]
        if (one == "ok") == (two == "ok"):
            continue
        good, bad = (a, b) if one == "ok" else (b, a)
        status = two if one == "ok" else one
        yield Difference("tcp", f"{role} {where}", one, two,
                         f"{where} accepts connections from {good.name} but is {status} from {bad.name}: "
                         f"{_TCP_WHY.get(status, 'the connect fails on that side')}.")


def _brokers(report: Report) -> dict[int, BrokerReport]:
    return {b.node_id: b for b in report.cluster.brokers} if report.cluster else {}


def _advertised(a: Side, b: Side) -> Iterator[Difference]:
    left, right = _brokers(a.report), _brokers(b.report)
    if not left or not right:
        return  # one side has no metadata: its failed stage says why
    moved = []
    for node_id in sorted(set(left) & set(right)):
        one, two = left[node_id], right[node_id]
        if str(one.endpoint) != str(two.endpoint):
            moved.append(node_id)
            yield Difference("advertised", f"broker {node_id}", str(one.endpoint), str(two.endpoint),
                             _listener_explanation(a, b, one, two))
    for node_id in sorted(set(left) ^ set(right)):
        there, missing = (a, b) if node_id in left else (b, a)
        broker = (left if node_id in left else right)[node_id]
        yield Difference("broker", f"broker {node_id}", str(broker.endpoint) if node_id in left else None,
                         str(broker.endpoint) if node_id in right else None,
                         f"Broker {node_id} is in the metadata {there.name} got and not in {missing.name}'s: the "
                         "broker was down or fenced at one of the two times, or the two reports are of different "
                         "clusters.")


def _listener_explanation(a: Side, b: Side, one: BrokerReport, two: BrokerReport) -> str:
    from kdiag.diagnose.facts import broker_usable

    text = (f"Broker {one.node_id} is advertised as {one.endpoint} to {a.name} and as {two.endpoint} to {b.name}. "
            "A broker advertises the address of the listener a client came in on, so the two clients reached "
            f"different listeners ({a.name} through {','.join(_endpoints(a.report))}, {b.name} through "
            f"{','.join(_endpoints(b.report))}), each with its own advertised.listeners entry.")
    unusable = [(side, broker) for side, broker in ((a, one), (b, two)) if broker_usable(side.report, broker) is False]
    for side, broker in unusable:
        text += (f" The listener {side.name} reached advertises {broker.endpoint}, which {side.name} cannot use: "
                 f"bootstrap {side.name} through the listener meant for its network, or fix that listener's "
                 "advertised address.")
    return text


def _kafka(a: Side, b: Side) -> Iterator[Difference]:
    left, right = _brokers(a.report), _brokers(b.report)
    for node_id in sorted(set(left) & set(right)):
        one, two = left[node_id], right[node_id]
        if str(one.endpoint) != str(two.endpoint) or one.kafka.status == two.kafka.status:
            continue
        if "skip" in (one.kafka.status, two.kafka.status):
            continue  # the connect already differed: the tcp or dns difference says it
        yield Difference("kafka", f"broker {node_id} {one.endpoint}", one.kafka.status, two.kafka.status,
                         f"Broker {node_id}'s address answered {one.kafka.status} to {a.name} and "
                         f"{two.kafka.status} to {b.name}: the same address leads to different listeners or "
                         "processes from the two sides (a NAT, port-forward or proxy on one path).")


def _finding_key(finding: Finding) -> tuple[object, ...]:
    """What makes two findings the same. Evidence is free-form JSON (a report from elsewhere may hold a
    list where a number is usual), so its values are compared by their canonical JSON text."""
    evidence = finding.evidence
    return (finding.id, *(json.dumps(evidence.get(key), sort_keys=True, default=str)
                          for key in ("node_id", "host", "port", "node_ids")))


def _findings_only(a: Side, b: Side) -> list[tuple[str, Finding]]:
    left = {_finding_key(f) for f in a.report.findings}
    right = {_finding_key(f) for f in b.report.findings}
    only = [("a", f) for f in a.report.findings if _finding_key(f) not in right]
    only += [("b", f) for f in b.report.findings if _finding_key(f) not in left]
    return only


def _finding_differences(a: Side, b: Side, only: Sequence[tuple[str, Finding]]) -> Iterator[Difference]:
    for seen_from, finding in only:
        side, other = (a, b) if seen_from == "a" else (b, a)
        here = f"{finding.severity}: {finding.title}"
        yield Difference("finding", finding.id, here if seen_from == "a" else None,
                         here if seen_from == "b" else None,
                         f"Found from {side.name} only, not from {other.name}: {finding.title}.")


# --- the JSON form and the views ------------------------------------------------------------------


def _side_dict(side: Side) -> dict[str, Any]:
    from kdiag.jsonform import to_json

    return {"file": side.file, "vantage": to_json(side.report.vantage), "bootstrap": to_json(side.report.bootstrap),
            "generated_at": side.report.generated_at, "cluster_id": side.cluster_id}


def diff_to_dict(diff: ReportDiff) -> dict[str, Any]:
    from kdiag.jsonform import to_json

    return {
        "schema": SCHEMA,
        "a": _side_dict(diff.a),
        "b": _side_dict(diff.b),
        "same_cluster": diff.same_cluster,
        "differences": [to_json(d) for d in diff.differences],
        "findings": [{**to_json(f), "seen_from": seen_from} for seen_from, f in diff.findings],
    }
