"""OTHER_LISTENER_WORKS: another port of the bootstrap host serves a listener that works from here.

A Metadata response lists only the listener the request came in on, so a client that bootstraps
through the wrong one (the seed's INTERNAL port from the internet, Docker's BOB from the Docker
host) never learns that the right one is a port away. When the advertised brokers or the bootstrap
port fail, the run tries the bootstrap host's other ports (``report.other_listeners``); this rule
reports each listener whose advertised brokers all resolve and connect from here. It is an info:
the error findings say what is wrong, and their fixes point here as the quickest way out.
"""

from __future__ import annotations

from kdiag.diagnose.facts import bootstrap_used, metadata_obtained
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.wording import join_words
from kdiag.finding import Finding
from kdiag.report import Report
from probes.hostport import hostport
from probes.results import ListenerProbe, ListenerScan


def _advertises(listener: ListenerProbe) -> str:
    return join_words(dict.fromkeys(hostport(b.host, b.port) for b in listener.brokers))


def _other_listener_works(report: Report) -> tuple[Finding, ...]:
    scan: ListenerScan | None = report.other_listeners
    if scan is None:
        return ()
    used = bootstrap_used(report)
    came_in = "" if used is None else hostport(used.host, used.port)
    findings = []
    for listener in scan.usable:
        where = hostport(scan.host, listener.port)
        brokers = len(listener.brokers)
        if metadata_obtained(report):
            title = f"{where} is another listener of this cluster, and it works from here"
            head = f"This machine came in through {came_in}; the bootstrap host also answers Kafka on port {listener.port}"
        else:
            title = f"Kafka answers on {where}, and the brokers it advertises work from here"
            head = (f"Nothing accepted the connection to {came_in}, but the bootstrap host answers Kafka on port "
                    f"{listener.port}")
        explanation = (f"{head} (cluster {listener.cluster_id or 'id not reported'}). That listener's "
                       f"metadata advertises {_advertises(listener)}, and {'it' if brokers == 1 else 'each'} "
                       "resolves and connects from this machine. A Metadata response lists only the listener the "
                       "request arrived on, so the metadata from the port in use never mentions this one.")
        fix = (f"Use bootstrap.servers={where} for clients here (kcat: -b {where}; Java: "
               f"--bootstrap-server {where}), and confirm:\n\nkdiag bootstrap {where}")
        evidence = {"host": scan.host, "address": scan.address, "port": listener.port,
                    "cluster_id": listener.cluster_id, "ports_tried": len(scan.ports),
                    "advertised": [{"node_id": b.node_id, "host": b.host, "port": b.port, "dns_status": b.dns,
                                    "tcp_status": b.tcp} for b in listener.brokers]}
        findings.append(finding("OTHER_LISTENER_WORKS", "info", title, explanation, evidence, fix))
    return tuple(findings)


RULES = (
    Rule("OTHER_LISTENER_WORKS", "Another listener of this cluster works from here", "info", _other_listener_works),
)
