"""Topics with each partition on a chosen broker: ``python -m kdiag.lab.scenarios._topics BOOTSTRAP NAME=LEADERS ...``

``LEADERS`` names, partition by partition, the node id of its one replica: ``orders=1,2,3`` puts
orders-0 on broker 1, orders-1 on broker 2 and orders-2 on broker 3. It returns once every partition
of every topic answers ListOffsets from its leader, so a client probing the brokers right after sees
each partition where it was put. ``__consumer_offsets`` may be created this way too, compacted as the
broker would make it: with ``offsets.topic.num.partitions`` set to its partition count on every
broker, that chooses the broker coordinating every consumer group. A scenario's after-brokers setup
step, run where the brokers' advertised addresses (of the listener ``BOOTSTRAP`` is on) resolve.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from confluent_kafka import KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

TIMEOUT = 30.0
"""Seconds to create every topic and see every partition answer."""
OFFSETS_TOPIC = "__consumer_offsets"


def parse_assignment(text: str) -> tuple[str, list[int]]:
    """``orders=1,2,3`` -> ``("orders", [1, 2, 3])``."""
    name, _, leaders = text.partition("=")
    try:
        nodes = [int(node) for node in leaders.split(",")]
    except ValueError:
        nodes = []
    if not name or not nodes:
        raise ValueError(f"not NAME=LEADERS (e.g. orders=1,2,3): {text!r}")
    return name, nodes


def create(admin: AdminClient, assignments: dict[str, list[int]], *, timeout: float) -> None:
    topics = [NewTopic(name, num_partitions=len(nodes), replica_assignment=[[node] for node in nodes],
                       config={"cleanup.policy": "compact"} if name == OFFSETS_TOPIC else {})
              for name, nodes in assignments.items()]
    for future in admin.create_topics(topics, request_timeout=timeout).values():
        future.result(timeout)


def unsettled(admin: AdminClient, assignments: dict[str, list[int]], *, timeout: float) -> list[str]:
    """The partitions not yet led by their broker or not yet answering ListOffsets there."""
    metadata = admin.list_topics(timeout=timeout)
    waiting, answering = [], {}
    for name, nodes in assignments.items():
        topic = metadata.topics.get(name)
        for partition, node in enumerate(nodes):
            found = topic.partitions.get(partition) if topic is not None and topic.error is None else None
            if found is None or found.error is not None or found.leader != node:
                waiting.append(f"{name}-{partition} (leader {found.leader if found else 'unknown'}, wanted {node})")
            else:
                answering[TopicPartition(name, partition)] = OffsetSpec.latest()
    if answering:
        for partition, future in admin.list_offsets(answering, request_timeout=timeout).items():
            try:
                future.result(timeout)
            except KafkaException as error:
                waiting.append(f"{partition.topic}-{partition.partition} ({error.args[0].str()})")
    return waiting


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    try:
        assignments = dict(parse_assignment(arg) for arg in args[1:])
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    admin = AdminClient({"bootstrap.servers": args[0], "log_level": 0})
    deadline = time.monotonic() + TIMEOUT
    try:
        create(admin, assignments, timeout=TIMEOUT)
        while waiting := unsettled(admin, assignments, timeout=max(1.0, deadline - time.monotonic())):
            if time.monotonic() > deadline:
                print(f"error: after {TIMEOUT:g} s still waiting for {', '.join(waiting)}", file=sys.stderr)
                return 1
            time.sleep(0.2)
    except KafkaException as error:
        print(f"error: {error.args[0].str() if error.args else error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
