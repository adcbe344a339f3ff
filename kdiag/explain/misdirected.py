"""A request answered by a broker that says it belongs to another: NOT_LEADER_OR_FOLLOWER for a partition and
NOT_COORDINATOR for a group, the clients' own words for both (``clients.kafka_errors``). Alone, either is what a client
sees for a few retries while leaders move; both together, from a client that refreshes its metadata between retries,
are most likely an address that reaches the wrong broker (ADVERTISED_WRONG_BROKER, a *Maybe* reading: one address
for several brokers ends the same, and kdiag bootstrap decides). NOT_LEADER_OR_FOLLOWER with a send that failed on it
(records expired, librdkafka's message timed out, Spring's ``Failed to send``): a leader change's answer is gone after the client's next metadata
refresh and retry, so one that outlasted the retries is most likely an address that reaches another broker, or several
brokers behind one address (LOAD_BALANCED_BOOTSTRAP): both *Maybe* readings (a client that does not retry, retries=0
as before Kafka 2.1, fails on a leader change's one answer)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kdiag.explain.builders import BUILDERS
from kdiag.explain.observations import Group
from kdiag.explain.readings import MAYBE, hedged
from kdiag.explain.sightings import ANSWERED_ELSEWHERE, EXPIRED_BATCH, MESSAGE_TIMEOUT, NOT_LEADER, SEND_FAILED, UNKNOWN
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding


GAVE_UP_SENDING = (SEND_FAILED, EXPIRED_BATCH, MESSAGE_TIMEOUT)
"""The words of a send the client gave up on: its retries of a NOT_LEADER_OR_FOLLOWER answer ran out."""


def misdirected(groups: Sequence[Group], context: Context) -> list[Finding]:
    """Both answers in one paste, or a send that failed on NOT_LEADER_OR_FOLLOWER: the readings of a broker's address
    that reaches another broker."""
    answers = {g.symptom for g in groups}
    if answers == {NOT_LEADER} and any(g.symptom in GAVE_UP_SENDING for g in context.consequences):
        return _send_failed_on_not_leader(groups, context)
    if answers != ANSWERED_ELSEWHERE:
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


def _send_failed_on_not_leader(groups: Sequence[Group], context: Context) -> list[Finding]:
    ids = ["ADVERTISED_WRONG_BROKER", "LOAD_BALANCED_BOOTSTRAP"]
    said = ("A broker answered that it does not lead the partition, and the send failed. During a leader change (a "
            "broker restarting, a reassignment) that answer comes once and the client retries after fresh metadata; "
            "a send that fails on it means the answer kept coming (or the client does not retry: the Java producer's "
            "retries=0, its default before Kafka 2.1). The usual cause is an address that reaches another broker: one broker's "
            "advertised address leading to another (ADVERTISED_WRONG_BROKER), or several brokers behind one address, "
            f"a load balancer they all advertise (LOAD_BALANCED_BOOTSTRAP). `{context.confirm()}` on the client's "
            "machine decides: it connects to every advertised address and says which broker answers there.")
    quiet = replace(context, consequences=())
    return [hedged(BUILDERS[i](Subject(i, tuple(groups), role=UNKNOWN), quiet), MAYBE, said, readings=ids) for i in ids]
