"""A request answered by a broker that says it belongs to another: NOT_LEADER_OR_FOLLOWER for a partition and
NOT_COORDINATOR for a group, the clients' own words for both (``clients.kafka_errors``). Alone, either is what a client
sees for a few retries while leaders move; both together, from a client that refreshes its metadata between retries,
are most likely an address that reaches the wrong broker (ADVERTISED_WRONG_BROKER, a *Maybe* reading: one address
for several brokers ends the same, and kdiag bootstrap decides)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kdiag.explain.builders import BUILDERS
from kdiag.explain.observations import Group
from kdiag.explain.readings import MAYBE, hedged
from kdiag.explain.sightings import ANSWERED_ELSEWHERE, UNKNOWN
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding



def misdirected(groups: Sequence[Group], context: Context) -> list[Finding]:
    """Both answers in one paste: the readings of a broker's address that reaches another broker."""
    if {g.symptom for g in groups} != ANSWERED_ELSEWHERE:
        return []
    confirm = context.confirm()
    said = ("A broker answered that the partition is led elsewhere, and one answered that the group is coordinated "
            "elsewhere. While leaders move, clients see that for a few retries; seen again after the client refreshes "
            "its metadata, the address it has for a broker reaches another one (or several brokers share one "
            f"address, ADVERTISED_DUPLICATE). `{confirm}` on the client's machine decides: it connects to every "
            "advertised address and says which broker answers there.")
    quiet = replace(context, consequences=())
    built = BUILDERS["ADVERTISED_WRONG_BROKER"](Subject("ADVERTISED_WRONG_BROKER", tuple(groups), role=UNKNOWN), quiet)
    return [hedged(built, MAYBE, said, readings=["ADVERTISED_WRONG_BROKER"])]
