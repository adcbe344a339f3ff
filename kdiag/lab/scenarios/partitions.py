"""Partitions a client cannot use although every broker it is told about works.

The data-centre layout of :mod:`~kdiag.lab.scenarios.cluster` (``app-server`` -- ``gw`` -- ``kafka-N``,
INTERNAL listeners between the brokers, EXTERNAL ones for clients), and the office network for one:

* ``leader-down``: three brokers, ``orders`` with one replica per broker; broker 3 is stopped, and the
  controller fences it: ``orders-2`` has no leader (NO_LEADER).
* ``listener-missing``: two brokers with inconsistent listener names; broker 2 has no EXTERNAL
  listener, so for ``orders-1``, which it leads, the EXTERNAL listener answers LISTENER_NOT_FOUND.
* ``message-too-large``: one broker with ``message.max.bytes=64``: every produce is refused
  MESSAGE_TOO_LARGE, a fault of no connection at all (ROUNDTRIP_FAILED).
"""

from __future__ import annotations

from dataclasses import replace

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.scenarios.base import LabBroker, LabStep, Scenario, Vantage, finding, healthy, problems, python_module
from kdiag.lab.scenarios.cluster import (CONTROLLER_PORT, INTERNAL_PORT, TOPIC, broker_address, datacenter,
                                         datacenter_broker, external_name, topic_setup)
from kdiag.lab.scenarios.healthy import SERVER_NAME, office_broker, office_topology

FAST_FENCING = {"broker.session.timeout.ms": "3000", "broker.heartbeat.interval.ms": "500"}
"""The controller fences a silent broker after 3 s instead of 9 s."""


def _with(broker: LabBroker, overrides: dict[str, str]) -> LabBroker:
    return replace(broker, spec=replace(broker.spec, overrides={**broker.spec.overrides, **overrides}))


LEADER_DOWN = Scenario(
    name="leader-down",
    title="Three brokers, broker 3 stopped: the partition it alone held has no leader",
    seed="contract: NO_LEADER (a partition has no leader)",
    description=f"""\
Three brokers; the topic {TOPIC} has three partitions with one replica each, one per broker
(replication factor 1, as development clusters and careless topic scripts make them). Broker 3 is
stopped (a crash, a drained node). The controller fences it, and {TOPIC}-2, whose only replica was on
broker 3, has no leader: leader -1 in every Metadata answer. Every connection works: the bootstrap,
brokers 1 and 2 (broker 3 is no longer listed). But produce and fetch for {TOPIC}-2 fail: Java clients
log `{{{TOPIC}=LEADER_NOT_AVAILABLE}}` and time out, librdkafka `Local: Message timed out` for that
partition only. kdiag says NO_LEADER for {TOPIC}-2, names broker 3 as where its replica lives, and the
commands to list unavailable partitions and, if the data is expendable, to elect an unclean leader.""",
    topology=datacenter("dcdown", 3),
    brokers=tuple(_with(datacenter_broker(node, 3), FAST_FENCING) for node in (1, 2, 3)),
    setup=(topic_setup(orders=(1, 2, 3)),
           LabStep("stop broker 3", "kafka-3", python_module(
               "kdiag.lab.scenarios._stop_broker", f"{broker_address(1)}:{INTERNAL_PORT}", TOPIC, "2"))),
    vantages=(
        Vantage("app-server", host="app-server", bootstrap=f"{external_name(1)}:9092", args=("--topic", TOPIC),
                expect=problems(finding("NO_LEADER", title=f"{TOPIC} [2]", fix="--unavailable-partitions"),
                                stages={"metadata": "ok", "advertised": "ok"}),
                why="orders-2's only replica is on the stopped broker 3."),
    ),
)


def _no_external(node: int, count: int) -> LabBroker:
    """Broker ``node`` set up from an older template: an INTERNAL listener only."""
    address = broker_address(node)
    internal = Listener("INTERNAL", address, INTERNAL_PORT)
    voters = ",".join(f"{n}@{broker_address(n)}:{CONTROLLER_PORT}" for n in range(1, count + 1))
    return LabBroker(f"kafka-{node}", BrokerSpec(
        node_id=node, listeners=(internal,), advertised=(internal,), inter_broker_listener="INTERNAL",
        controller_host=address, controller_port=CONTROLLER_PORT, quorum_voters=voters,
        overrides={"offsets.topic.num.partitions": "1"}))


LISTENER_MISSING = Scenario(
    name="listener-missing",
    title="Two brokers with inconsistent listener names: broker 2 has no EXTERNAL listener",
    seed="reference/landscape-and-failure-modes.md §2 #23: listener missing on the partition leader",
    description=f"""\
Broker 1 has INTERNAL and EXTERNAL listeners; broker 2 was set up from an older template with INTERNAL
only. The cluster is healthy inside (they talk over INTERNAL), and the topic {TOPIC} has one partition on
each broker. A client on EXTERNAL gets a broker list with broker 1 only, and for {TOPIC}-1, led by
broker 2, the error LISTENER_NOT_FOUND (72): `There is no listener on the leader broker that matches
the listener on which metadata request was processed.` (LEADER_NOT_AVAILABLE for Metadata below v6).
kdiag says NO_LEADER with LISTENER_NOT_FOUND in its title: add the EXTERNAL listener to broker 2. Inside,
on INTERNAL, everything works.""",
    topology=datacenter("dclsnr", 2),
    brokers=(datacenter_broker(1, 2), _no_external(2, 2)),
    setup=(topic_setup(orders=(1, 2)),),
    vantages=(
        Vantage("app-server", host="app-server", bootstrap=f"{external_name(1)}:9092", args=("--topic", TOPIC),
                expect=problems(finding("NO_LEADER", title=("LISTENER_NOT_FOUND", f"{TOPIC} [1]"),
                                        fix="Every broker must define the same listener names"),
                                stages={"metadata": "ok", "advertised": "ok"}),
                why="broker 2 leads orders-1 and has no EXTERNAL listener."),
        Vantage("kafka-1-internal", host="kafka-1", bootstrap=f"{broker_address(1)}:{INTERNAL_PORT}",
                args=("--topic", TOPIC), expect=healthy(),
                why="On INTERNAL both brokers have an endpoint: every partition works."),
    ),
)


MESSAGE_TOO_LARGE = Scenario(
    name="message-too-large",
    title="One broker with message.max.bytes=64: every produce is refused as too large",
    seed="contract: ROUNDTRIP_FAILED (produce or consume failed for another reason)",
    description="""\
A single broker whose message.max.bytes was set in bytes where kilobytes were meant:
  message.max.bytes=64
Every record batch a producer sends is larger, and the broker refuses it with MESSAGE_TOO_LARGE:
librdkafka `Broker: Message size too large`, Java `RecordTooLargeException`. Nothing is wrong with the
connection: bootstrap, metadata and the advertised broker all work, so the connectivity findings stay
silent. kdiag's round trip fails, and ROUNDTRIP_FAILED quotes the client's own error, says what the code
means and gives the command that shows the topic's limits.""",
    topology=office_topology("toolarge"),
    brokers=(office_broker(overrides={"message.max.bytes": "64"}),),
    vantages=(
        Vantage("client", host="client", bootstrap=f"{SERVER_NAME}:9092",
                expect=problems(finding("ROUNDTRIP_FAILED", title="round trip", fix="kafka-configs.sh"),
                                stages={"metadata": "ok", "advertised": "ok", "roundtrip": "fail"}),
                why="The probe's record batch is larger than 64 bytes."),
    ),
)

SCENARIOS = (LEADER_DOWN, LISTENER_MISSING, MESSAGE_TOO_LARGE)
