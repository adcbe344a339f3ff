"""ADVERTISED_* from a client's lines: an advertised broker's address that does not resolve, is loopback, does not
connect or cannot be connected to at all; and what only a printed broker list (kcat -L) shows: brokers no client
elsewhere can use, and brokers that advertise one address twice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from kdiag.diagnose.hosts import (CONTAINER_ID, EC2_INTERNAL, KUBERNETES, LOOPBACK, PRIVATE_IP, SINGLE_LABEL,
                                  UNSPECIFIED, classify_host, normalise_host)
from kdiag.diagnose.rule import finding
from kdiag.diagnose.rules.bootstrap import dns_meaning
from kdiag.diagnose.wording import join_words
from kdiag.explain.builders.bootstrap import JAVA_REFUSED
from kdiag.explain.implied import broker, rule_fix
from kdiag.explain.observations import MAX_EXAMPLES
from kdiag.explain.shared import (advertised_broker, client_said, consequence_sentence, evidence, from_metadata_sentence,
                                  named_broker, with_confirm)
from kdiag.explain.sightings import JAVA, NONROUTABLE
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding
from kdiag.report import Endpoint
from probes.results import DnsResult

_KIND_WHY = {
    EC2_INTERNAL: ("An EC2 private DNS name is what a broker advertises when advertised.listeners is unset (or its "
                   "listener host is left empty): Kafka falls back to the machine's own hostname."),
    CONTAINER_ID: ("A container id is Docker's default hostname, and what the broker advertises when "
                   "KAFKA_ADVERTISED_LISTENERS is unset."),
    KUBERNETES: ("The listener advertises the in-cluster service name, so clients outside Kubernetes (through a "
                 "NodePort, load balancer or port-forward) cannot use it."),
    SINGLE_LABEL: ("A bare name like this is usually a container, Compose service or pod name: it resolves inside "
                   "its Docker or Kubernetes network only."),
}


def advertised_unresolvable(subject: Subject, context: Context) -> Finding:
    host = subject.host or "<advertised host>"
    status = subject.status or "nxdomain"
    kind = classify_host(host)
    parts = [client_said(subject),
             f"{named_broker(subject)} advertises {subject.where}, {kind.description}; on the client's machine, "
             f"{dns_meaning(DnsResult(host, status))}.",
             from_metadata_sentence(subject, context), _KIND_WHY.get(kind.kind, ""),
             consequence_sentence(context).strip()]
    target = advertised_broker(subject, dns=status)
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_UNRESOLVABLE")
    confirm = context.confirm()
    return finding("ADVERTISED_UNRESOLVABLE", "error",
                   f"{named_broker(subject)} advertises {host}, which the client's machine cannot resolve",
                   " ".join(p for p in parts if p), evidence(subject, context, confirm, dns_status=status),
                   with_confirm(fix, confirm))


def advertised_loopback(subject: Subject, context: Context) -> Finding:
    host = subject.host or "localhost"
    parts = [client_said(subject),
             f"{named_broker(subject)} advertises {subject.where}, {classify_host(host).description}. A client that follows "
             "the metadata connects to its own machine, not to the broker: only clients on the broker's own machine "
             "(or inside its container) can use it."]
    if not context.bootstrap:
        parts.append("(The log does not show the bootstrap address. If the client bootstraps through a loopback "
                     "address too, a port-forward or a published Docker port, the advertised port is simply not "
                     "forwarded: then it is the ADVERTISED_UNREACHABLE case, and kdiag bootstrap tells them apart.)")
    parts += [from_metadata_sentence(subject, context), consequence_sentence(context).strip()]
    target = advertised_broker(subject, addresses=subject.addresses or ("127.0.0.1",), tcp=subject.status or "refused")
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_LOOPBACK")
    confirm = context.confirm()
    return finding("ADVERTISED_LOOPBACK", "error", f"{named_broker(subject)} advertises {subject.where}, a loopback address",
                   " ".join(p for p in parts if p), evidence(subject, context, confirm, tcp_status=subject.status),
                   with_confirm(fix, confirm))


def advertised_unreachable(subject: Subject, context: Context) -> Finding:
    status = subject.status or "refused"
    host = subject.host or "<advertised host>"
    happens = {"refused": "the connection is refused", "timeout": "the connect times out (the port is filtered)",
               "unreachable": "there is no route to it"}.get(status, "connecting fails")
    parts = [client_said(subject), f"{named_broker(subject)} advertises {subject.where}, and from the client's machine "
             f"{happens}.",
             from_metadata_sentence(subject, context)]
    if JAVA in subject.clients and status == "refused":
        parts.append(JAVA_REFUSED)
    loopback = classify_host(host).kind == LOOPBACK  # localhost, 127.0.0.1 and ::1 are one machine: this one
    same_host = [e for e in context.bootstrap if e.port != (subject.port or 9092) and (
        normalise_host(e.host) == normalise_host(host) or loopback and classify_host(e.host).kind == LOOPBACK)]
    if same_host:
        parts.append(f"The client bootstrapped through {same_host[0]}, the same host on another port: the broker "
                     "advertises the port it listens on inside, not the one published or forwarded to the outside "
                     "(a Docker ports: mapping, NAT, a port-forward), or nothing listens on the advertised port.")
    parts.append(consequence_sentence(context).strip())
    target = advertised_broker(subject, addresses=subject.addresses, tcp=status)
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_UNREACHABLE")
    confirm = context.confirm()
    title = f"{named_broker(subject)} advertises {subject.where}, which " + \
        {"refused": "refuses connections", "timeout": "does not answer (filtered)",
         "unreachable": "has no route"}.get(status, "fails") + " from the client's machine"
    return finding("ADVERTISED_UNREACHABLE", "error", title, " ".join(p for p in parts if p),
                   evidence(subject, context, confirm, tcp_status=status, addresses=list(subject.addresses) or None),
                   with_confirm(fix, confirm))


def advertised_nonroutable(subject: Subject, context: Context) -> Finding:
    host = "0.0.0.0" if subject.host is None else subject.host
    broker_log = NONROUTABLE in subject.symptoms
    who = named_broker(subject) if subject.node_id is not None else "The broker"
    why = (_EMPTY_HOST if not host else "Kafka refuses to start with it (`advertised.listeners cannot use the "
           "nonroutable meta-address 0.0.0.0.`); a client that sees it got it from a proxy, or from a bind address "
           "copied into the advertised one.")
    parts = [client_said(subject), f"{who} {'was configured to advertise' if broker_log else 'advertises'} "
             f"{subject.where}, {classify_host(host).description}. {why}", consequence_sentence(context).strip()]
    target = broker(subject.node_id, host, subject.port or 9092)
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_NONROUTABLE")
    confirm = context.confirm()
    title = f"{host} is advertised" if host else f"{named_broker(subject)} advertises {subject.where}, with no host"
    return finding("ADVERTISED_NONROUTABLE", "error", f"{title}: no client can connect to it",
                   " ".join(p for p in parts if p), evidence(subject, context, confirm), with_confirm(fix, confirm))


_EMPTY_HOST = ("Apache Kafka puts the machine's own name in a listener left without a host (`PLAINTEXT://:9092`) before "
               "advertising it; a Kafka-compatible server that does not, or a proxy, hands clients the port alone, and "
               "they cannot resolve or dial it (librdkafka names such a broker `:port/id`).")


# --- what only the metadata shows (kcat -L) -------------------------------------------------------------

_METADATA_LIKELY = {
    "ADVERTISED_UNRESOLVABLE": "which most likely does not resolve outside its own network",
    "ADVERTISED_UNREACHABLE": "a private address clients outside its network cannot reach",
    "ADVERTISED_LOOPBACK": "a loopback address: every client that follows it connects to itself",
    "ADVERTISED_NONROUTABLE": "an address no client can connect to",
}


def from_metadata(context: Context, subjects: Sequence[Subject]) -> list[Finding]:
    """Brokers a printed broker list (kcat -L) shows no client elsewhere can use, where no line shows
    them failing, and brokers that list one address twice. Each list is read with the bootstrap it
    came through."""
    facts = context.facts
    failed = {(normalise_host(s.host), s.port) for s in subjects if s.host is not None}
    by_list: dict[tuple[str, tuple[Endpoint, ...]], list[tuple[int, int, Endpoint]]] = {}
    shared: dict[tuple[tuple[Endpoint, ...], str, int], list[tuple[int, int]]] = {}
    for line, node_id, endpoint, _ in facts.listed:
        bootstrap = facts.bootstrap_at(line)
        shared.setdefault((bootstrap, normalise_host(endpoint.host), endpoint.port), []).append((line, node_id))
        rule_id = _suspect(endpoint, bootstrap)
        if rule_id is not None and (normalise_host(endpoint.host), endpoint.port) not in failed:
            by_list.setdefault((rule_id, bootstrap), []).append((line, node_id, endpoint))
    found = [_metadata_finding(rule_id, listed, replace(context, line=listed[0][0]))
             for (rule_id, _), listed in by_list.items()]
    for (_, host, port), entries in shared.items():
        node_ids = sorted({n for _, n in entries})
        if len(node_ids) > 1 and classify_host(host).kind != UNSPECIFIED:
            found.append(_duplicate_finding(node_ids, Endpoint(host, port), replace(context, line=entries[0][0])))
    found += [_already_registered(node_id, endpoint, (line, text), replace(context, line=line))
              for line, node_id, endpoint, text in facts.taken]
    if facts.replicas > 1:
        listed = {(normalise_host(e.host), e.port) for _, _, e, _ in facts.listed}
        found += [_shared_value(facts.replicas, endpoint, (line, text), replace(context, line=line))
                  for line, endpoint, text in facts.unpaired
                  if (normalise_host(endpoint.host), endpoint.port) not in listed
                  and classify_host(endpoint.host).kind != UNSPECIFIED]
    return found


def _already_registered(node_id: int, endpoint: Endpoint, line: tuple[int, str], context: Context) -> Finding:
    """A broker that stopped because another broker id already registered the address it advertises: most often two
    brokers given one advertised address; a broker restarted under a new id while its old registration lingers in
    ZooKeeper says the same. Likely, not certain."""
    from kdiag.explain.readings import LIKELY, hedged

    built = _duplicate_finding([node_id], endpoint, context)
    words = (f"The broker stopped at start-up: broker {node_id} has already registered {endpoint}, the address this "
             "broker advertises. Brokers given one advertised address (one advertised.listeners value for every "
             "replica, a headless service's name, a copied server.properties) is the usual cause; the same broker "
             "restarted under a new broker.id (an id generated anew, a volume kept) while its old registration is "
             f"still in ZooKeeper ends the same way. `{built.evidence.get('confirm')}` decides once the brokers run: it "
             "lists every broker's advertised address.")
    data = {**dict(built.evidence), "lines": [line[1]], "line_numbers": [line[0]], "count": 1, "node_ids": [node_id]}
    title = f"Broker {node_id} already registered {endpoint}, the address another broker advertises"
    meaning = ("Kafka needs one advertised address per broker: a client sends each broker's partitions to that "
               "broker's address, and ZooKeeper refuses a second broker registering an address another holds.")
    return hedged(replace(built, title=title, explanation=meaning, evidence=data), LIKELY, words)


def _shared_value(replicas: int, endpoint: Endpoint, line: tuple[int, str], context: Context) -> Finding:
    """A chart's or a manifest's replicas given one advertised.listeners value: every replica advertises it, unless
    the value is made per pod where the paste does not show it. Likely, not certain."""
    from kdiag.explain.readings import LIKELY, hedged

    built = _duplicate_finding(list(range(replicas)), endpoint, context)
    words = (f"The paste asks for {replicas} broker replicas and gives them one advertised.listeners value, "
             f"{endpoint}, with no broker id beside it: each replica advertises that one address, unless the chart "
             "or the manifest builds each broker's own from its pod name somewhere the paste does not show. "
             f"`{built.evidence.get('confirm')}` decides: it lists every broker's advertised address.")
    data = {**dict(built.evidence), "lines": [line[1]], "line_numbers": [line[0]], "count": 1, "replicas": replicas}
    return hedged(replace(built, evidence=data), LIKELY, words)


# Names that resolve only inside the broker's container or cluster network (a container id, a Compose service, a
# Kubernetes service): a client bootstrapping through loopback is on the broker's machine, through a published port or
# a port-forward, outside that network (unless it runs in the broker's own container, where nothing fails).
_CONTAINER_NAMES = (CONTAINER_ID, KUBERNETES, SINGLE_LABEL)


def _through_loopback(bootstrap: Iterable[Endpoint]) -> bool:
    return all(classify_host(e.host).kind == LOOPBACK for e in bootstrap)


def _suspect(endpoint: Endpoint, bootstrap: tuple[Endpoint, ...]) -> str | None:
    """The finding a listed broker address most likely leads to for clients outside its network."""
    kind = classify_host(endpoint.host).kind
    if kind == UNSPECIFIED:
        return "ADVERTISED_NONROUTABLE"
    if not bootstrap:  # the log does not say where the client is: only loopback fails wherever it is not the broker
        return "ADVERTISED_LOOPBACK" if kind == LOOPBACK else None
    if _through_loopback(bootstrap) and kind in _CONTAINER_NAMES:
        return "ADVERTISED_UNRESOLVABLE"
    if any(classify_host(e.host).local_only for e in bootstrap):
        return None  # the client is inside that network too
    if kind == LOOPBACK:
        return "ADVERTISED_LOOPBACK"
    if kind in (EC2_INTERNAL, CONTAINER_ID, KUBERNETES, SINGLE_LABEL):
        return "ADVERTISED_UNRESOLVABLE"
    return "ADVERTISED_UNREACHABLE" if kind == PRIVATE_IP else None


def _metadata_evidence(context: Context, lines: list[tuple[int, str]], confirm: str, **extra: Any) -> dict[str, Any]:
    named = context.facts.bootstrap_line_at(context.line)
    lines = sorted(set(lines + ([named] if named else [])))[:MAX_EXAMPLES]
    return {"lines": [text for _, text in lines], "line_numbers": [number for number, _ in lines],
            "count": len(lines), **extra, "observed": False, "confirm": confirm}


def _listed_lines(context: Context, entries: Iterable[tuple[int, int]]) -> list[tuple[int, str]]:
    wanted = set(entries)
    return [(line, text) for line, node_id, _, text in context.facts.listed if (line, node_id) in wanted]


def _metadata_finding(rule_id: str, listed: list[tuple[int, int, Endpoint]], context: Context) -> Finding:
    dns = "nxdomain" if rule_id == "ADVERTISED_UNRESOLVABLE" else "ok"
    tcp = "refused" if rule_id == "ADVERTISED_LOOPBACK" else "timeout" if rule_id == "ADVERTISED_UNREACHABLE" else "ok"
    reports = [broker(n, e.host, e.port, dns=dns, tcp=tcp) for _, n, e in listed]
    ids = join_words(n for _, n, _ in listed)
    who = f"Broker {ids}" if len(listed) == 1 else f"Brokers {ids}"
    addresses = join_words(str(e) for _, _, e in listed)
    kind = classify_host(listed[0][2].host)
    explanation = (f"The cluster's metadata, fetched through {context.bootstrap_text()}, lists {who.lower()} at "
                   f"{addresses}: {kind.description}. The bootstrap connection worked, which is all `kcat -L` shows: "
                   "it prints the list and never connects to the brokers in it. A client producing or consuming "
                   "connects to each partition leader at its advertised address, so from a machine outside that "
                   "network it fails there. kdiag bootstrap on the client's machine checks each advertised broker.")
    if _through_loopback(context.bootstrap) and kind.kind in _CONTAINER_NAMES:
        explanation += (" The client bootstraps through loopback, so it runs on the broker's machine and reaches it "
                        "through a published port or a port-forward, outside the network where that name resolves "
                        "(unless it runs inside the broker's own container).")
    fix = rule_fix(context.implied(brokers=reports), rule_id)
    confirm = context.confirm()
    data = _metadata_evidence(context, _listed_lines(context, [(line, n) for line, n, _ in listed]), confirm,
                              bootstrap=context.bootstrap_text(), node_ids=[n for _, n, _ in listed],
                              brokers=[{"node_id": n, "host": e.host, "port": e.port,
                                        "host_kind": classify_host(e.host).kind} for _, n, e in listed])
    title = f"{who} {'advertises' if len(listed) == 1 else 'advertise'} {addresses}, {_METADATA_LIKELY[rule_id]}"
    severity = "error" if rule_id == "ADVERTISED_NONROUTABLE" else "warning"
    return finding(rule_id, severity, title, explanation, data, with_confirm(fix, confirm))


def _duplicate_finding(node_ids: list[int], endpoint: Endpoint, context: Context) -> Finding:
    reports = [broker(n, endpoint.host, endpoint.port) for n in node_ids]
    ids = join_words(node_ids)
    explanation = (f"The cluster's metadata lists brokers {ids} all at {endpoint}. A client keeps one connection per "
                   "broker and sends each broker's partitions to its address; these all reach one process (or, when "
                   "the address is a load balancer in front of every broker, whichever broker it picks), which "
                   "answers NOT_LEADER_OR_FOLLOWER for the partitions it does not lead, and the client retries until "
                   "it times out. Usual causes: every broker's advertised.listeners names the load balancer, or one "
                   "server.properties was copied to every broker. Kafka needs one address per broker.")
    fix = rule_fix(context.implied(brokers=reports), "ADVERTISED_DUPLICATE")
    confirm = context.confirm()
    lines = [(line, text) for line, n, e, text in context.facts.listed if e == endpoint and n in node_ids]
    return finding("ADVERTISED_DUPLICATE", "error", f"Brokers {ids} advertise the same address {endpoint}",
                   explanation, _metadata_evidence(context, lines, confirm, node_ids=node_ids, endpoint=str(endpoint)),
                   with_confirm(fix, confirm))
