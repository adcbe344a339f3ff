"""PARTIAL_CLUSTER from a log's lines: an advertised broker refuses connections while the cluster's metadata came
from another. A refusal at a broker's advertised address is that address's fact (ADVERTISED_UNREACHABLE); why it
refuses is not in the line: nothing listens at that port (a wrong advertised port), or the broker is down for now (a
rolling restart, a managed service's patching, a crash), while the broker that answered the metadata is up, which
is a cluster partly reachable. The second is a reading beside the first, never a certainty."""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.explain.shared import client_said, evidence, with_confirm
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding


def partial_cluster(subject: Subject, context: Context) -> Finding:
    broker = f"broker {subject.node_id}" if subject.node_id is not None else "an advertised broker"
    meaning = (f"The client had the cluster's metadata (from a broker that answered), and {broker} at {subject.where} "
               "refuses connections: nothing listens there now. If its advertised port is right, the broker is down "
               "for now (a rolling restart, a managed service's maintenance or patching, a crash) and the cluster is "
               f"only partly reachable: produce and fetch for the partitions {broker} leads fail until it is back or "
               "their leadership moves, and the client reconnects by itself.")
    fix = (f"See whether {broker} is running (a managed service's console and its maintenance events; a broker's own "
           "log, systemctl or the pod's state). If it is up and still refuses, its advertised.listeners names a port "
           "it does not listen on: fix that as for ADVERTISED_UNREACHABLE.")
    confirm = context.confirm(fallback=subject.endpoint)
    return finding("PARTIAL_CLUSTER", "warning", f"{broker[0].upper()}{broker[1:]} is down or restarting: some brokers "
                   "answer and this one refuses", f"{client_said(subject)} {meaning}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))
