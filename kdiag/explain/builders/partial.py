"""PARTIAL_CLUSTER from a log's lines: an advertised broker refuses connections while the cluster's metadata came
from another. A refusal at a broker's advertised address is that address's fact (ADVERTISED_UNREACHABLE); why it
refuses is not in the line: nothing listens at that port (a wrong advertised port), or the broker is down for now (a
rolling restart, a managed service's patching, a crash), while the broker that answered the metadata is up, which
is a cluster partly reachable. The second is a reading beside the first, never a certainty. The same for one bootstrap
address of several that refuses (the Java client's node -N: its Nth) while a metadata answer came through another."""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.explain.shared import client_said, evidence, with_confirm
from kdiag.explain.sightings import BOOTSTRAP
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding


def partly_down(subject: Subject, context: Context) -> bool:
    """A refused broker while another answered: an advertised broker the metadata named, or one bootstrap address of
    several (Java's connection -N is the Nth) when a line shows the metadata answer came."""
    if subject.status != "refused":
        return False
    if subject.finding_id == "ADVERTISED_UNREACHABLE":
        return subject.node_id is not None
    several = len(context.bootstrap) > 1 or any(n <= -2 for g in subject.groups for n in g.node_ids)
    answered = context.facts.metadata or bool(context.facts.listed)
    return subject.finding_id == "BOOTSTRAP_REFUSED" and several and answered


def partial_cluster(subject: Subject, context: Context) -> Finding:
    if subject.role == BOOTSTRAP:
        nth = min((n for g in subject.groups for n in g.node_ids if n <= -2), default=None)
        which = f"; its connection {nth} is the {_ordinal(-nth)} address in bootstrap.servers" if nth else ""
        broker, port, came = "the broker", "the port in bootstrap.servers", (
            f"through another of its bootstrap addresses{which}")
        title = f"The broker at bootstrap address {subject.where} is down or restarting: other brokers answer"
    else:
        broker = f"broker {subject.node_id}" if subject.node_id is not None else "an advertised broker"
        port, came = "the port its advertised.listeners names (fix it as for ADVERTISED_UNREACHABLE)", (
            "from a broker that answered")
        title = f"{broker[0].upper()}{broker[1:]} is down or restarting: some brokers answer and this one refuses"
    meaning = (f"The client had the cluster's metadata ({came}), and {broker} at {subject.where} refuses connections: "
               "nothing listens there now. If the port is right, the broker is down for now (a rolling restart, a "
               "managed service's maintenance or patching, a crash) and the cluster is only partly reachable: "
               "produce and fetch for the partitions it leads fail until it is back or their leadership moves, and "
               "the client reconnects by itself.")
    fix = (f"See whether {broker} at {subject.where} is running (a managed service's console and its maintenance events; a broker's own "
           f"log, systemctl or the pod's state). If it is up and still refuses, it does not listen at {port}.")
    confirm = context.confirm(fallback=subject.endpoint)
    return finding("PARTIAL_CLUSTER", "warning", title, f"{client_said(subject)} {meaning}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")
