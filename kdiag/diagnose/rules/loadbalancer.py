"""Rules for what stands in front of the brokers: one round-robin load balancer for all of them.

A TCP load balancer in front of every broker (one Kubernetes ``LoadBalancer`` service, one cloud NLB
listener, HAProxy in TCP mode) is fine for the bootstrap, since any broker answers Metadata. It
breaks clients as soon as a broker's advertised address leads back to it: produce and fetch requests
for a partition land on whichever broker the balancer picks, which answers NOT_LEADER_OR_FOLLOWER,
and the client loops on metadata refreshes (librdkafka: ``Failed to acquire metadata: Local: Timed
out``). The advertised names may be right or wrong; what gives the balancer away is the bootstrap
address itself: fresh connections to the same address reach different brokers (proven with
ListOffsets, ``stages[advertised].detail.landings``).
"""

from __future__ import annotations

from kdiag.diagnose.facts import bootstrap_addresses, bootstrap_used, broker_usable, metadata_obtained, same_host
from kdiag.diagnose.fixes import KRAFT_NOTE, deployment_note, free_port_base, listener_protocol, property_lines
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.wording import join_words
from kdiag.finding import Finding
from kdiag.report import AdvertisedDetail, BrokerReport, Endpoint, Report
from probes.hostport import hostport


def landed_node_ids(report: Report) -> list[int]:
    """The distinct brokers that fresh connections to the bootstrap address reached, in the order seen."""
    detail = report.detail("advertised")
    if not isinstance(detail, AdvertisedDetail):
        return []
    return list(dict.fromkeys(landing.node_id for landing in detail.landings if landing.node_id is not None))


def landed_cluster_ids(report: Report) -> list[str]:
    detail = report.detail("advertised")
    if not isinstance(detail, AdvertisedDetail):
        return []
    return list(dict.fromkeys(landing.cluster_id for landing in detail.landings if landing.cluster_id))


def _behind_balancer(report: Report, used: Endpoint, broker: BrokerReport) -> bool:
    """The broker advertises the balancer itself: the bootstrap's name, or an address the bootstrap resolved to."""
    if broker.port != used.port:
        return False
    return same_host(broker.host, used.host) or bool(set(broker.dns.addresses) & set(bootstrap_addresses(report, used)))


def _balanced_bootstrap(report: Report) -> Finding | None:
    used = bootstrap_used(report)
    if used is None or not metadata_obtained(report) or report.cluster is None:
        return None
    nodes, clusters = landed_node_ids(report), landed_cluster_ids(report)
    if len(nodes) < 2 and len(clusters) < 2:
        return None
    brokers = report.cluster.brokers
    where = hostport(used.host, used.port)
    pointing_back = [b for b in brokers if _behind_balancer(report, used, b)]
    if len(clusters) >= 2:
        landed = f"brokers of {len(clusters)} different clusters ({join_words(clusters)})"
    else:
        landed = f"brokers {join_words(nodes)}"
    seen = (f"Fresh connections to {where} reached {landed}: something in front of the brokers (a load "
            "balancer, a Kubernetes Service, a TCP proxy) spreads connections over them.")
    if pointing_back:
        severity = "error"
        ids = join_words(b.node_id for b in pointing_back)
        title = f"{where} is a load balancer in front of several brokers, and brokers {ids} advertise it"
        consequence = (f"Brokers {ids} advertise {where} itself, so every produce and fetch meant for one of them "
                       "lands on whichever broker the balancer picks: it answers NOT_LEADER_OR_FOLLOWER, the client "
                       "refreshes the metadata, gets the same address and retries until it times out (librdkafka "
                       "`Failed to acquire metadata: Local: Timed out`, Java `Expiring N record(s)`). Which partitions "
                       "fail changes from one connection to the next.")
    elif all(broker_usable(report, b) for b in brokers):
        severity = "info"
        title = f"{where} is a load balancer in front of several brokers, used for the bootstrap only"
        consequence = ("That is fine as it is: every broker advertises an address of its own that works from here, "
                       "so clients only use the balancer for their first Metadata request. Keep it that way: "
                       "advertising the balancer's address for the brokers would break them.")
    else:
        severity = "warning"
        title = f"{where} is a load balancer in front of several brokers: it can serve the bootstrap only"
        consequence = ("The brokers' advertised addresses fail from here (see the findings above). When fixing "
                       f"them, do not advertise {where} for them: through the balancer, requests reach a random "
                       "broker. Each broker needs an endpoint of its own that clients here can reach.")
    explanation = f"{seen} {consequence}"
    evidence = {"bootstrap": where, "landed_node_ids": nodes, "landed_cluster_ids": clusters,
                "brokers_advertising_it": [b.node_id for b in pointing_back]}
    return finding("LOAD_BALANCED_BOOTSTRAP", severity, title, explanation, evidence,
                   "" if severity == "info" else _fix(report, used, brokers))


def _fix(report: Report, used: Endpoint, brokers: tuple[BrokerReport, ...]) -> str:
    protocol = listener_protocol(report)
    base = free_port_base(report, len(brokers))
    blocks = []
    for index, broker in enumerate(sorted(brokers, key=lambda b: b.node_id)):
        port = base + index
        blocks.append(property_lines(broker.node_id, [
            ("listeners", f"INTERNAL://:{broker.port},EXTERNAL://:{port}"),
            ("advertised.listeners", f"INTERNAL://<broker {broker.node_id}'s own address>:{broker.port},"
                                     f"EXTERNAL://{hostport(used.host, port)}"),
            ("listener.security.protocol.map", f"INTERNAL:{protocol},EXTERNAL:{protocol}"),
            ("inter.broker.listener.name", "INTERNAL")],
            comment=f"the balancer forwards {hostport(used.host, port)} to broker {broker.node_id} only"))
    ports = join_words(range(base, base + len(brokers)))
    text = [f"Kafka needs one address per broker. Keep {hostport(used.host, used.port)} for the bootstrap if you "
            f"like, and add one listener (port) per broker on the balancer, each forwarding to that broker only "
            f"(ports {ports} here), advertised on an EXTERNAL listener:", *blocks, KRAFT_NOTE]
    note = deployment_note(report, per_broker_endpoints=True)
    if note:
        text.insert(1, note)
    return "\n\n".join(text)


RULES = (
    Rule("LOAD_BALANCED_BOOTSTRAP", "The bootstrap address is a load balancer spreading connections over the "
         "brokers", "error", _balanced_bootstrap),
)
