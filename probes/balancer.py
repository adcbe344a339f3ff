"""Is the bootstrap address one broker, or something that spreads connections over several?

A TCP load balancer in front of every broker (one Kubernetes ``LoadBalancer`` service, one cloud
NLB listener, HAProxy in TCP mode) sends each new connection to another broker. The bootstrap works,
since any broker answers Metadata; what breaks is everything after it whenever an advertised address
leads back to that balancer. The Metadata answers are identical whichever broker gives them, so
which broker answered has to be proven: on each of a few fresh connections to the *same address*
(round-robin DNS is another matter), ask ListOffsets for a partition each broker leads, in turn. Only
its leader answers without NOT_LEADER_OR_FOLLOWER, so the first clean answer names the broker.
"""

from __future__ import annotations

from collections.abc import Mapping

from probes.deadline import Deadline
from probes.kafka import KafkaConnection, KafkaProbeError, Security, connect_logged_in
from probes.results import Landing

MAX_CONNECTIONS = 4
"""Fresh connections made at most: with two brokers or more, four see a round-robin balancer switch."""
MAX_PROBED_BROKERS = 8
"""Partitions asked per connection at most (one per broker, lowest node ids first)."""
BUDGET = 1.5
"""Seconds the whole check may take."""


def repeat_bootstrap(address: str, port: int, *, host: str, led: Mapping[int, tuple[str, int]], security: Security,
                     deadline: Deadline, connect_timeout: float) -> tuple[Landing, ...]:
    """Which broker each of a few fresh connections to ``address:port`` reaches.

    ``led`` maps a node id to one (topic, partition) it leads. Nothing is tried with fewer than two
    brokers to tell apart; the check stops at the first connection that fails (and records why).
    """
    if len(led) < 2:
        return ()
    budget = deadline.within(BUDGET)
    probes = sorted(led.items())[:MAX_PROBED_BROKERS]
    landings: list[Landing] = []
    for _ in range(min(MAX_CONNECTIONS, len(probes) + 1)):
        if budget.expired:
            break
        landing = _land(address, port, host=host, probes=probes, security=security, deadline=budget,
                        connect_timeout=connect_timeout)
        landings.append(landing)
        if landing.error is not None:
            break
    return tuple(landings)


def _land(address: str, port: int, *, host: str, probes: list[tuple[int, tuple[str, int]]], security: Security,
          deadline: Deadline, connect_timeout: float) -> Landing:
    try:
        conn = connect_logged_in(address, port, host=host, security=security, connect_timeout=connect_timeout,
                                 timeout=deadline.remaining())
    except KafkaProbeError as exc:
        return Landing(error=str(exc))
    with conn:
        try:
            conn.api_versions or conn.negotiate(timeout=deadline.remaining())
            cluster_id = conn.metadata(timeout=deadline.remaining(), topics=()).cluster_id
            return _answering_leader(conn, probes, cluster_id, deadline)
        except KafkaProbeError as exc:
            return Landing(error=str(exc))


def _answering_leader(conn: KafkaConnection, probes: list[tuple[int, tuple[str, int]]], cluster_id: str | None,
                      deadline: Deadline) -> Landing:
    for node_id, (topic, partition) in probes:
        response = conn.list_offsets(topic, partition, timeout=deadline.remaining())
        codes = [p.error.code for p in response.partitions]
        if codes and all(code == 0 for code in codes):
            return Landing(node_id, cluster_id, topic, partition)
        # NOT_LEADER_OR_FOLLOWER: another broker; anything else (loading, not authorised) proves nothing
    return Landing(None, cluster_id)
