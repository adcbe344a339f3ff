"""The consumer group's coordinator: which broker a group's members would talk to (FindCoordinator)."""

from __future__ import annotations

from dataclasses import dataclass

from probes.advertised import wait_time
from probes.deadline import Deadline
from probes.kafka import KafkaConnection, KafkaProbeError

COORDINATOR_RETRIABLE = frozenset({14, 15})  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE
RETRY_FOR = 3.0
"""Seconds a coordinator that is loading (a cluster just started, ``__consumer_offsets`` just created) is
asked again before its error stands."""


@dataclass(frozen=True)
class CoordinatorAnswer:
    """The broker FindCoordinator named for ``group``, or why there is none."""

    group: str
    node_id: int | None = None
    host: str | None = None
    port: int | None = None
    error: str | None = None


def find_coordinator(conn: KafkaConnection, group: str, *, deadline: Deadline) -> CoordinatorAnswer:
    """Ask ``conn`` for ``group``'s coordinator, again while it is loading (at most ``RETRY_FOR`` seconds)."""
    retry_until = deadline.within(RETRY_FOR)
    while True:
        try:
            response = conn.find_coordinator(group, timeout=deadline.cap(2.0))
        except KafkaProbeError as exc:
            return CoordinatorAnswer(group, error=f"FindCoordinator failed: {exc}")
        found = response.coordinators[0] if response.coordinators else None
        if found is None:
            return CoordinatorAnswer(group, error="FindCoordinator returned no coordinator")
        if found.error.code in COORDINATOR_RETRIABLE and not retry_until.expired:
            wait_time(retry_until, 0.1)
            continue
        if found.error.code:
            return CoordinatorAnswer(group, error=f"FindCoordinator answered {found.error}"
                                     + (f": {found.error_message}" if found.error_message else ""))
        return CoordinatorAnswer(group, found.node_id, found.host, found.port)
