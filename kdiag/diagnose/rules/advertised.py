"""Rules for the advertised brokers: the addresses the metadata hands every client.

This is the "I can connect to the broker, but my client still fails" stage: the bootstrap worked, so
``kcat -L`` looks fine, but each client then connects to each partition leader at the address that
broker advertises. Each rule groups the brokers it concerns into one finding (one fix block per
broker); a broker is blamed by exactly one of NONROUTABLE, LOOPBACK, UNRESOLVABLE, UNREACHABLE, in
that order, and PARTIAL_CLUSTER only adds what that means for the partitions when other brokers work.

Evidence: ``bootstrap`` (the endpoint the metadata came through), ``node_ids``, ``brokers`` (one
object per broker) and, when the finding concerns a single broker, that broker's ``node_id``,
``host`` and ``port`` at the top level as well.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kdiag.diagnose.facts import (DNS_FAILURES, TCP_FAILURES, bootstrap_addresses, bootstrap_connected, bootstrap_used,
                                  broker_usable, example_partition, loopback_from_elsewhere, metadata_obtained,
                                  partitions_led_by, same_host)
from kdiag.diagnose.fixes import (advertise_reachable_fix, distinct_addresses_fix, hosts_file_workaround,
                                  listener_protocol, open_port_fix, property_lines)
from kdiag.diagnose.hosts import classify_host, is_nonroutable, normalise_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.bootstrap import dns_meaning, resolve_failure_line
from kdiag.diagnose.wording import describe_partitions, java_address, join_words, plural
from kdiag.finding import Finding
from kdiag.report import BrokerReport, Report
from probes.hostport import hostport
from probes.results import DnsResult, TcpResult

# --- shared wording -----------------------------------------------------------------------------


def _used(report: Report) -> str:
    used = bootstrap_used(report)
    return hostport(used.host, used.port) if used else "the bootstrap address"


def _kcat_looks_fine(report: Report, brokers: Sequence[BrokerReport]) -> str:
    listed = "`, `".join(f"broker {b.node_id} at {hostport(b.host, b.port)}" for b in brokers[:3])
    return (f"This machine bootstrapped through {_used(report)} and got the cluster metadata, which is why a "
            f"connection test and `kcat -L` look fine: kcat only prints `{listed}` and never connects there.")


def _leader_traffic(report: Report, broker: BrokerReport) -> str:
    example = example_partition(report.cluster, broker.node_id)
    led = f" ({example}, for one)" if example else ""
    return (f"But a client sends every produce and fetch to the partition leader's advertised address, so for "
            f"the partitions broker {broker.node_id} leads{led} it fails")


def _expiring(report: Report, broker: BrokerReport) -> str:
    example = example_partition(report.cluster, broker.node_id) or "<topic>-<partition>"
    return (f"a Java producer gives up after delivery.timeout.ms (120 s) with `org.apache.kafka.common.errors."
            f"TimeoutException: Expiring 1 record(s) for {example}: ... ms has passed since batch creation`")


def _java_node(broker: BrokerReport) -> str:
    return f"{hostport(broker.host, broker.port)} (id: {broker.node_id} rack: {broker.rack or 'null'})"


def _who(brokers: Sequence[BrokerReport]) -> str:
    ids = join_words(b.node_id for b in brokers)
    return f"Broker {ids}" if len(brokers) == 1 else f"Brokers {ids}"


def broker_evidence(broker: BrokerReport) -> dict[str, Any]:
    return {
        "node_id": broker.node_id, "host": broker.host, "port": broker.port, "rack": broker.rack,
        "host_kind": classify_host(broker.host).kind,
        "dns_status": broker.dns.status, "addresses": list(broker.dns.addresses),
        "tcp_status": broker.tcp.status, "tcp_error": broker.tcp.error,
        "kafka_status": broker.kafka.status, "identity_status": broker.identity.status,
    }


def evidence(report: Report, brokers: Sequence[BrokerReport], **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"bootstrap": _used(report), "node_ids": [b.node_id for b in brokers],
                            "brokers": [broker_evidence(b) for b in brokers]}
    if len(brokers) == 1:
        data.update({k: v for k, v in broker_evidence(brokers[0]).items()})
    data.update(extra)
    return data


def _with_stopgap(fix: str, stopgap: str | None) -> str:
    return f"{fix}\n\n{stopgap}" if stopgap else fix


# --- which rule blames which broker -------------------------------------------------------------


def _brokers(report: Report) -> tuple[BrokerReport, ...]:
    if not metadata_obtained(report) or report.cluster is None:
        return ()
    return report.cluster.brokers


def nonroutable_brokers(report: Report) -> list[BrokerReport]:
    return [b for b in _brokers(report) if is_nonroutable(b.host)]


def loopback_brokers(report: Report) -> list[BrokerReport]:
    return [b for b in _brokers(report) if loopback_from_elsewhere(report, b)]


def unresolvable_brokers(report: Report) -> list[BrokerReport]:
    return [b for b in _brokers(report) if b.dns.status in DNS_FAILURES and not is_nonroutable(b.host)
            and not loopback_from_elsewhere(report, b)]


def unreachable_brokers(report: Report) -> list[BrokerReport]:
    return [b for b in _brokers(report) if b.dns.ok and b.tcp.status in TCP_FAILURES and not is_nonroutable(b.host)
            and not loopback_from_elsewhere(report, b)]


def duplicate_groups(report: Report) -> list[list[BrokerReport]]:
    groups: dict[tuple[str, int], list[BrokerReport]] = {}
    for broker in _brokers(report):
        if is_nonroutable(broker.host) or loopback_from_elsewhere(report, broker):
            continue
        groups.setdefault((normalise_host(broker.host), broker.port), []).append(broker)
    return [sorted(g, key=lambda b: b.node_id) for g in groups.values() if len(g) > 1]


# --- ADVERTISED_NONROUTABLE ---------------------------------------------------------------------


def _nonroutable(report: Report) -> Finding | None:
    brokers = nonroutable_brokers(report)
    if not brokers:
        return None
    first = brokers[0]
    hosts = join_words(dict.fromkeys(hostport(b.host, b.port) for b in brokers))
    verb = "advertises" if len(brokers) == 1 else "advertise"
    title = f"{_who(brokers)} {verb} {hosts}, an address no client can connect to"
    explanation = (f"{_who(brokers)} {verb} {classify_host(first.host).description}. Kafka itself refuses to "
                   "start with it (`advertised.listeners cannot use the nonroutable meta-address 0.0.0.0.`), so it "
                   "usually leaks from a proxy or from a listener whose bind address was copied into the advertised "
                   f"one. {_kcat_looks_fine(report, brokers)} A client given it connects to its own machine and "
                   f"fails, e.g. `dial tcp {hostport(first.host, first.port)}: connect: connection refused`.")
    fix = ("Bind to 0.0.0.0 in listeners=, but advertise an address clients can reach:\n\n"
           + advertise_reachable_fix(report, brokers, keep_inside=False))
    return finding("ADVERTISED_NONROUTABLE", "error", title, explanation, evidence(report, brokers), fix)


# --- ADVERTISED_LOOPBACK ------------------------------------------------------------------------


def _loopback_here(broker: BrokerReport) -> str:
    where = hostport(broker.host, broker.port)
    if broker.tcp.status == "refused":
        return f"On this machine nothing listens on {where}, so the connection is refused."
    if broker.tcp.ok and broker.identity.status == "ok":
        return (f"Here it happens to work only because this machine is broker {broker.node_id}'s own host; "
                "from anywhere else it fails.")
    if broker.tcp.ok:
        wrong = " (and it is provably not that broker)" if broker.identity.status == "wrong_broker" else ""
        return (f"Something on this machine does answer on {where}{wrong}, but it is this machine, not broker "
                f"{broker.node_id}: a client would talk to whatever process that is.")
    if broker.tcp.status in TCP_FAILURES:
        return f"On this machine, connecting to {where} fails ({broker.tcp.status})."
    return ""


def _loopback(report: Report) -> Finding | None:
    brokers = loopback_brokers(report)
    if not brokers:
        return None
    first = brokers[0]
    works_here = all(b.tcp.ok and b.identity.status == "ok" for b in brokers)
    hosts = join_words(dict.fromkeys(hostport(b.host, b.port) for b in brokers))
    verb = "advertises" if len(brokers) == 1 else "advertise"
    title = f"{_who(brokers)} {verb} {hosts}, but this client reached the cluster at {_used(report)}"
    address = first.dns.addresses[0] if first.dns.addresses else "127.0.0.1"
    family = "ipv6" if ":" in address else "ipv4"
    here = " ".join(filter(None, (_loopback_here(b) for b in brokers)))
    explanation = (f"{_who(brokers)} {verb} {classify_host(first.host).description}. Each client that follows "
                   f"the metadata connects to its own machine, not to the broker; only clients on the broker's "
                   f"own machine (or inside its container) can use it. {here} "
                   f"{_kcat_looks_fine(report, brokers)} Clients elsewhere fail: librdkafka "
                   f"`{hostport(first.host, first.port)}/{first.node_id}: Connect to {family}#"
                   f"{hostport(address, first.port)} failed: Connection refused`, Java `Connection to node "
                   f"{first.node_id} ({java_address(first.host, address, first.port)}) could not be established. Node "
                   "may not be available.`")
    fix = advertise_reachable_fix(report, brokers)
    return finding("ADVERTISED_LOOPBACK", "warning" if works_here else "error", title, explanation,
                   evidence(report, brokers), fix)


# --- ADVERTISED_UNRESOLVABLE --------------------------------------------------------------------


_DNS_SHORT = {"nxdomain": "no such name (NXDOMAIN)", "no_answer": "no address record",
              "servfail": "a resolver failure (SERVFAIL)", "timeout": "no answer from the resolver in time",
              "error": "an error"}


def _unresolvable_sentence(broker: BrokerReport) -> str:
    kind = classify_host(broker.host)
    meaning = dns_meaning(broker.dns if broker.dns.host else DnsResult(broker.host, broker.dns.status,
                                                                       error=broker.dns.error))
    where = hostport(broker.host, broker.port)
    return f"Broker {broker.node_id} advertises {where}, {kind.description}; here, {meaning}."


def _unresolvable(report: Report) -> Finding | None:
    brokers = unresolvable_brokers(report)
    if not brokers:
        return None
    first = brokers[0]
    if len(brokers) == 1:
        title = f"Broker {first.node_id} advertises {first.host}, which this machine cannot resolve"
    else:
        names = join_words(b.host for b in brokers)
        title = f"{_who(brokers)} advertise names this machine cannot resolve ({names})"
    if len(brokers) > 1 and len({(classify_host(b.host).kind, b.dns.status) for b in brokers}) == 1:
        hosts = join_words(hostport(b.host, b.port) for b in brokers)
        parts = [f"{_who(brokers)} advertise {hosts}. The first is {classify_host(first.host).description}, and so "
                 f"are the others; here, resolving each gives {_DNS_SHORT.get(first.dns.status, 'an error')}."]
    else:
        parts = [_unresolvable_sentence(b) for b in brokers]
    if any(b.dns.status in ("servfail", "timeout") for b in brokers):
        parts.append("The bootstrap name did resolve, so the resolver works; it just cannot answer for this "
                     "name's zone (a private hosted zone or split-horizon DNS visible only inside the network).")
    parts.append(_kcat_looks_fine(report, brokers))
    parts.append(f"{_leader_traffic(report, first)}: librdkafka logs "
                 f"`{resolve_failure_line(first.host, first.port, first.dns.status)}`, a Java client logs "
                 f"`Error connecting to node {_java_node(first)}` with java.net.UnknownHostException, and "
                 f"{_expiring(report, first)}.")
    fix = _with_stopgap(advertise_reachable_fix(report, brokers), hosts_file_workaround(report, brokers))
    return finding("ADVERTISED_UNRESOLVABLE", "error", title, " ".join(parts),
                   evidence(report, brokers, dns_status=first.dns.status if len(brokers) == 1 else None), fix)


# --- ADVERTISED_UNREACHABLE ---------------------------------------------------------------------

_TCP_WORDS = {
    "refused": "the connection is refused",
    "timeout": "the connection attempt times out (the port is filtered)",
    "unreachable": "there is no route to it",
    "error": "connecting fails",
}
_TCP_TITLE = {
    "refused": "which resolves but refuses connections from here",
    "timeout": "which resolves but does not answer from here (filtered)",
    "unreachable": "which resolves, but there is no route to it from here",
    "error": "which resolves, but connecting to it fails from here",
}


def _port_mismatch(report: Report, broker: BrokerReport) -> bool:
    """The broker sits at the address the bootstrap reached, but advertises a port that is closed here."""
    used = bootstrap_used(report)
    if used is None or broker.port == used.port or not bootstrap_connected(report, used):
        return False
    shared = set(broker.dns.addresses) & set(bootstrap_addresses(report, used))
    return bool(shared) or same_host(broker.host, used.host)


def _private_elsewhere(report: Report, broker: BrokerReport) -> bool:
    """The broker advertises a private-network address while this machine came in from outside it."""
    used = bootstrap_used(report)
    return (used is not None and classify_host(broker.host).local_only
            and not classify_host(used.host).local_only
            and not set(broker.dns.addresses) & set(bootstrap_addresses(report, used)))


def _client_fails(report: Report, broker: BrokerReport) -> str:
    tcp: TcpResult = broker.tcp
    address = tcp.address or (broker.dns.addresses[0] if broker.dns.addresses else broker.host)
    family = "ipv6" if ":" in address else "ipv4"
    where = hostport(address, broker.port)
    if tcp.status == "refused":
        said = (f"librdkafka logs `{hostport(broker.host, broker.port)}/{broker.node_id}: Connect to {family}#"
                f"{where} failed: Connection refused`, Java `Connection to node {broker.node_id} "
                f"({java_address(broker.host, address, broker.port)}) could not be established. Node may not be "
                "available.`")
    elif tcp.status == "timeout":
        said = "librdkafka logs `Connection setup timed out in state CONNECT`"
    elif tcp.status == "unreachable":
        said = f"librdkafka logs `Connect to {family}#{where} failed: No route to host`"
    else:
        said = f"the client reports `{tcp.error}`" if tcp.error else "the client reports a connection error"
    return f"{_leader_traffic(report, broker)}: {said}, and {_expiring(report, broker)}."


def _unreachable(report: Report) -> tuple[Finding, ...]:
    brokers = unreachable_brokers(report)
    if not brokers:
        return ()
    groups: dict[tuple[str, str], list[BrokerReport]] = {}
    for broker in brokers:
        if _port_mismatch(report, broker):
            case = "port"
        elif _private_elsewhere(report, broker):
            case = "private"
        else:
            case = "path"
        groups.setdefault((case, broker.tcp.status), []).append(broker)
    return tuple(_unreachable_finding(report, case, status, group) for (case, status), group in groups.items())


def _unreachable_finding(report: Report, case: str, status: str, brokers: list[BrokerReport]) -> Finding:
    first = brokers[0]
    used = bootstrap_used(report)
    hosts = join_words(dict.fromkeys(hostport(b.host, b.port) for b in brokers))
    verb = "advertises" if len(brokers) == 1 else "advertise"
    words = _TCP_WORDS.get(status, _TCP_WORDS["error"])
    tail = [_kcat_looks_fine(report, brokers), _client_fails(report, first)]
    one = len(brokers) == 1
    if case == "port" and used is not None:
        state = {"refused": "closed", "timeout": "filtered", "unreachable": "unreachable"}.get(status, "failing")
        ports = sorted({b.port for b in brokers})
        title = (f"{_who(brokers)} {verb} {hosts}, but this machine reached the cluster on port {used.port}; "
                 f"{join_words(ports)} {'is' if len(ports) == 1 else 'are'} {state} from here")
        head = (f"The bootstrap connection to {hostport(used.host, used.port)} works, and the "
                f"{'broker' if one else 'brokers'} behind it {verb} {plural(len(ports), 'port')} {join_words(ports)}: "
                "the port the broker listens on inside, not the one published or forwarded to the outside (a Docker "
                f"ports: mapping, NAT, a port-forward). Clients must use the host and port from the metadata, and "
                f"there {words}.")
        several = report.cluster is not None and len(report.cluster.brokers) > 1
        fix = advertise_reachable_fix(report, brokers, shared=several)
        extra = {"bootstrap_port": used.port}
    elif case == "private":
        title = f"{_who(brokers)} {verb} {hosts}, a private address this machine cannot reach"
        head = (f"{_who(brokers)} {verb} {classify_host(first.host).description}. This machine came in from "
                f"outside that network (through {_used(report)}), and from here {words}.")
        fix = advertise_reachable_fix(report, brokers)
        extra = {}
    else:
        title = f"{_who(brokers)} {verb} {hosts}, {_TCP_TITLE.get(status, _TCP_TITLE['error'])}"
        addresses = join_words(dict.fromkeys(a for b in brokers for a in b.dns.addresses))
        head = f"{_who(brokers)} {verb} {hosts}; {'it resolves' if one else 'they resolve'} ({addresses}), but {words}."
        if status == "timeout":
            head += (" The bootstrap address works, so the filter is specific to this address or port: a security "
                     "group or firewall often allows the bootstrap broker's port but not every broker's.")
        elif status == "refused":
            head += (" Refused is ambiguous: nothing listens on that port there (the broker binds another port or "
                     "only 127.0.0.1), or a firewall REJECTs the connection.")
        fix = open_port_fix(report, [(f"broker {b.node_id}", b.port, b.host) for b in brokers], status)
        extra = {}
    return finding("ADVERTISED_UNREACHABLE", "error", title, " ".join([head, *tail]),
                   evidence(report, brokers, tcp_status=status, case=case, **extra), fix)


# --- ADVERTISED_DUPLICATE -----------------------------------------------------------------------


def _duplicate(report: Report) -> tuple[Finding, ...]:
    findings = []
    for group in duplicate_groups(report):
        where = hostport(group[0].host, group[0].port)
        ids = join_words(b.node_id for b in group)
        title = f"Brokers {ids} all advertise {where}" if len(group) > 2 else f"Brokers {ids} both advertise {where}"
        explanation = (f"A client keeps one connection per node id, and brokers {ids} hand out the same address, so "
                       "they all lead to one process (a load balancer in front of all brokers, or a server.properties "
                       "copied between brokers). Requests meant for one broker reach another, which answers "
                       "NOT_LEADER_OR_FOLLOWER; the client refreshes the metadata, gets the same addresses and "
                       "retries until it times out. Kafka needs one address per broker.")
        findings.append(finding("ADVERTISED_DUPLICATE", "error", title, explanation,
                                evidence(report, group, endpoint=where), distinct_addresses_fix(report, [group])))
    return tuple(findings)


# --- ADVERTISED_WRONG_BROKER --------------------------------------------------------------------


_ERROR_NAME = re.compile(r"[A-Z_]+(?: \(-?\d+\))?")
"""A bare Kafka error name (``NOT_LEADER_OR_FOLLOWER``, ``NOT_LEADER_OR_FOLLOWER (6)``), not a sentence."""


def wrong_brokers(report: Report) -> list[BrokerReport]:
    """Brokers whose endpoint was proven to reach another broker (or cluster).

    This fires alongside ADVERTISED_DUPLICATE: the duplicate names the shared address, this names
    which of the brokers behind it the address does not reach (the one whose partitions fail).
    """
    return [b for b in _brokers(report)
            if (b.identity.status == "wrong_broker" or b.kafka.status == "wrong_broker")
            and not is_nonroutable(b.host) and not loopback_from_elsewhere(report, b)]


def _wrong_broker(report: Report) -> tuple[Finding, ...]:
    findings = []
    cluster_id = report.cluster.cluster_id if report.cluster else None
    for broker in wrong_brokers(report):
        where = hostport(broker.host, broker.port)
        other_cluster = (broker.identity.cluster_id or broker.kafka.cluster_id)
        foreign = other_cluster is not None and cluster_id is not None and other_cluster != cluster_id
        if foreign:
            title = f"Broker {broker.node_id}'s advertised address {where} leads to a broker of another cluster"
            proof = f"it reports cluster id {other_cluster}, while this cluster's id is {cluster_id}"
        else:
            title = f"Broker {broker.node_id}'s advertised address {where} leads to a different broker"
            probe = broker.identity
            if probe.error and not _ERROR_NAME.fullmatch(probe.error):
                proof = probe.error  # the probe's own sentence: what it asked and what came back
            elif probe.topic is not None and probe.partition is not None:
                proof = (f"asked for the offsets of {probe.topic}-{probe.partition}, which broker {broker.node_id} "
                         f"leads, it answered {probe.error or 'NOT_LEADER_OR_FOLLOWER'}")
            else:
                proof = probe.error or broker.kafka.error or "it does not behave as that broker"
        addresses = f" ({join_words(broker.dns.addresses)})" if broker.dns.addresses else ""
        explanation = (f"This machine connected to {where}{addresses} and a Kafka broker answered, but not broker "
                       f"{broker.node_id}: {proof}. Typical causes: a port-forward, NAT rule or load-balancer target "
                       "pointing at the wrong broker, or a DNS record still pointing at an old machine. Clients "
                       f"send broker {broker.node_id}'s partitions there, get NOT_LEADER_OR_FOLLOWER (a "
                       "Java producer logs `Received invalid metadata error in produce request`), refresh the "
                       "metadata, get the same address, and retry until they time out.")
        fix = (f"Make {where} reach broker {broker.node_id} itself. See where it leads:\n"
               f"  dig +short {broker.host}\n"
               f"  kcat -b {where} -L | head -1      # prints 'from broker N' for the broker that answers\n"
               f"Then fix that forward/DNS record, or give broker {broker.node_id} an address of its own:\n\n"
               + property_lines(broker.node_id, [("advertised.listeners", f"{listener_protocol(report)}://<address "
                                                  f"that reaches broker {broker.node_id}>:{broker.port}")]))
        findings.append(finding("ADVERTISED_WRONG_BROKER", "error", title, explanation,
                                evidence(report, [broker], answered_cluster_id=other_cluster,
                                         identity_topic=broker.identity.topic,
                                         identity_partition=broker.identity.partition,
                                         identity_error=broker.identity.error), fix))
    return tuple(findings)


# --- PARTIAL_CLUSTER ----------------------------------------------------------------------------


def _partial_cluster(report: Report) -> Finding | None:
    cluster = report.cluster
    brokers = _brokers(report)
    if cluster is None or not brokers:
        return None
    states = {b.node_id: broker_usable(report, b) for b in brokers}
    good = [b for b in brokers if states[b.node_id] is True]
    bad = [b for b in brokers if states[b.node_id] is False]
    if not good or not bad:
        return None
    bad_ids = [b.node_id for b in bad]
    led = partitions_led_by(cluster, bad_ids)
    internal = partitions_led_by(cluster, bad_ids, internal=True)
    count = sum(len(p) for p in led.values())
    one = len(bad) == 1
    who_bad, its, they_lead = _who(bad), ("its" if one else "their"), ("it leads" if one else "they lead")
    who_good = f"{plural(len(good), 'broker')} {join_words(b.node_id for b in good)}"
    works = "works" if len(good) == 1 else "work"
    state = f"{who_bad} {'is' if one else 'are'} unusable from here while {who_good} {works}"
    title = f"{state}: {count} {plural(count, 'partition')} of {len(led)} {plural(len(led), 'topic')} affected" \
        if count else state
    parts = [f"A client talks to each partition's leader directly. From this machine {who_good} can be used, but "
             f"{who_bad.lower()} cannot (see {its} finding above)."]
    if count:
        parts.append(f"So producing to and consuming from the partitions {they_lead} fails while the rest work, which "
                     f"makes the problem look intermittent: {describe_partitions(led)}.")
    offsets = sum(len(p) for t, p in internal.items() if t == "__consumer_offsets")
    if not count:
        now = "producing works for now" if offsets else "nothing fails yet"
        parts.append(f"{'It leads' if one else 'They lead'} none of the partitions of the topics this run saw, so "
                     f"{now}; it fails as soon as leadership moves to {'it' if one else 'them'}.")
    if offsets:
        total = next((len(t.partitions) for t in cluster.topics if t.name == "__consumer_offsets"), offsets)
        parts.append(f"{who_bad} also {'leads' if one else 'lead'} {offsets} of {total} "
                     "__consumer_offsets partitions: consumer groups whose coordinator is there hang.")
    coordinator = cluster.coordinator
    if coordinator is not None and coordinator.node_id in bad_ids:
        parts.append(f"This run's consumer group {coordinator.group} has broker {coordinator.node_id} as its "
                     "coordinator, so its consumers hang even on partitions that work.")
    used = _used(report)
    greps = "\n".join(f"  kafka-topics.sh --bootstrap-server {used} --describe | grep 'Leader: {n}\\b'"
                      for n in bad_ids)
    fix = (f"Fix {who_bad.lower()} as {its} finding above shows. To see the partitions {they_lead} now:\n{greps}\n"
           f"Then check again:\n  kdiag bootstrap {used}")
    return finding("PARTIAL_CLUSTER", "error" if count or offsets else "warning", title, " ".join(parts),
                   {"bootstrap": used, "usable_node_ids": [b.node_id for b in good], "unusable_node_ids": bad_ids,
                    "affected_partitions": led, "affected_internal_partitions": internal,
                    "affected_partition_count": count}, fix)


# --- COORDINATOR_UNREACHABLE --------------------------------------------------------------------


def _coordinator_connection_id(node_id: int | None) -> str:
    """The Java client talks to the coordinator on a separate connection with id Integer.MAX_VALUE - node id."""
    return "..." if node_id is None else str(2147483647 - node_id)


def coordinator_finding(report: Report) -> Finding | None:
    cluster = report.cluster
    if cluster is None or cluster.coordinator is None or not metadata_obtained(report):
        return None
    coordinator = cluster.coordinator
    if coordinator.host is None or coordinator.port is None:
        return _no_coordinator(report, coordinator.group, coordinator.error)
    dns_bad = coordinator.dns is not None and coordinator.dns.status in DNS_FAILURES
    tcp_bad = coordinator.tcp is not None and coordinator.tcp.status in TCP_FAILURES
    if not (dns_bad or tcp_bad):
        return None
    # The coordinator is a broker. When that broker is blamed and no broker works from here, its finding says
    # everything: producers fail as well. When others work, producers do and consumers hang: this finding.
    blamed = next((b for b in cluster.brokers
                   if (b.node_id == coordinator.node_id
                       or (same_host(b.host, coordinator.host) and b.port == coordinator.port))
                   and broker_usable(report, b) is False), None)
    if blamed is not None and not any(broker_usable(report, b) for b in cluster.brokers):
        return None
    where = hostport(coordinator.host, coordinator.port)
    node = f"broker {coordinator.node_id} at {where}" if coordinator.node_id is not None else where
    if dns_bad and coordinator.dns is not None:
        why = f"the name does not resolve here: {dns_meaning(coordinator.dns)}"
    else:
        why = f"{_TCP_WORDS.get(coordinator.tcp.status if coordinator.tcp else 'error', 'connecting fails')}"
    explanation = (f"Producers work: they only talk to partition leaders. A consumer in a group first asks any broker "
                   f"for the group's coordinator, then sends JoinGroup, SyncGroup, heartbeats and offset commits to "
                   f"it. The coordinator of group {coordinator.group} is {node}, and {why}. So consumers in that group "
                   f"hang without consuming anything: a Java consumer logs `Group coordinator {where} (id: "
                   f"{_coordinator_connection_id(coordinator.node_id)} rack: null) is unavailable or invalid due to "
                   "cause: ... isDisconnected: true. Rediscovery will be attempted.` over and over.")
    if blamed is not None:
        fix = (f"Broker {blamed.node_id} is the coordinator: fix its advertised address as its finding above shows. "
               f"Which broker coordinates a group:\n  kafka-consumer-groups.sh --bootstrap-server {_used(report)} "
               f"--describe --group {coordinator.group} --state\nThen check again:\n  kdiag bootstrap {_used(report)}")
    elif dns_bad:
        pseudo = BrokerReport(node_id=coordinator.node_id if coordinator.node_id is not None else -1,
                              host=coordinator.host, port=coordinator.port)
        fix = advertise_reachable_fix(report, [pseudo])
    else:
        status = coordinator.tcp.status if coordinator.tcp else "error"
        target = (f"coordinator broker {coordinator.node_id}", coordinator.port, coordinator.host)
        fix = open_port_fix(report, [target], status)
    return finding("COORDINATOR_UNREACHABLE", "error",
                   f"The consumer-group coordinator for {coordinator.group} ({node}) cannot be reached from here",
                   explanation, {"group": coordinator.group, "node_id": coordinator.node_id, "host": coordinator.host,
                                 "port": coordinator.port,
                                 "dns_status": coordinator.dns.status if coordinator.dns else None,
                                 "tcp_status": coordinator.tcp.status if coordinator.tcp else None}, fix)


def _no_coordinator(report: Report, group: str, error: str | None) -> Finding | None:
    if not error or error.upper() not in ("COORDINATOR_NOT_AVAILABLE", "GROUP_COORDINATOR_NOT_AVAILABLE"):
        return None
    size = len(report.cluster.brokers) if report.cluster else 1
    used = _used(report)
    explanation = (f"When kdiag asked for the coordinator of group {group}, the cluster answered {error}: no broker "
                   "can host the group yet, because the __consumer_offsets topic is offline or could not be "
                   "created. On a cluster with fewer brokers than offsets.topic.replication.factor (3 by default) "
                   "it is never created. Producers work; consumers in groups hang.")
    fix = (f"Check the topic:\n  kafka-topics.sh --bootstrap-server {used} --describe --topic __consumer_offsets\n")
    if size < 3:
        fix += (f"With {size} {plural(size, 'broker')}, lower the internal topics' replication factor:\n\n"
                + property_lines(None, [("offsets.topic.replication.factor", str(size)),
                                        ("transaction.state.log.replication.factor", str(size)),
                                        ("transaction.state.log.min.isr", "1")]))
    return finding("COORDINATOR_UNREACHABLE", "error", f"The cluster has no coordinator for consumer group {group} "
                   f"({error})", explanation, {"group": group, "error": error, "broker_count": size}, fix)


RULES = (
    Rule("ADVERTISED_NONROUTABLE", "A broker advertises 0.0.0.0 or another address no client can use", "error",
         _nonroutable),
    Rule("ADVERTISED_LOOPBACK", "A broker advertises loopback while the client reached the cluster elsewhere",
         "error", _loopback),
    Rule("ADVERTISED_UNRESOLVABLE", "An advertised broker host does not resolve from here", "error", _unresolvable),
    Rule("ADVERTISED_UNREACHABLE", "An advertised broker resolves, but its port is refused, filtered or unroutable",
         "error", _unreachable),
    Rule("ADVERTISED_DUPLICATE", "Two brokers advertise the same host and port", "error", _duplicate),
    Rule("ADVERTISED_WRONG_BROKER", "An advertised endpoint reaches a different broker", "error", _wrong_broker),
    Rule("PARTIAL_CLUSTER", "Some brokers are reachable and some are not", "error", _partial_cluster),
    Rule("COORDINATOR_UNREACHABLE", "The consumer-group coordinator cannot be reached", "error", coordinator_finding),
)
