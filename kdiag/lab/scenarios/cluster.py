"""Multi-broker clusters where one broker's advertised address is wrong, and what that does to the rest.

A single misadvertised broker in a cluster is the hardest case to see: the bootstrap works, most
partitions work, and only the partitions that broker leads (or the consumer groups it coordinates)
fail, which looks intermittent. Four ways it happens:

* ``partial-cluster``: broker 3 of 3 advertises its short host name (``PARTIAL_CLUSTER`` names the
  partitions it leads, ``ADVERTISED_UNRESOLVABLE`` the cause);
* ``duplicate-advertised``: broker 2's server.properties was copied from broker 1, advertised address
  and all (``ADVERTISED_DUPLICATE``, and ``ADVERTISED_WRONG_BROKER`` since kdiag proves it);
* ``wrong-broker-port-mapping``: the NAT gateway's port for broker 2 forwards to broker 1
  (``ADVERTISED_WRONG_BROKER``);
* ``coordinator-unreachable``: broker 2 of 2 leads no partition of the application's topic, but it is
  the consumer-group coordinator, and it advertises a name only the data centre resolves
  (``COORDINATOR_UNREACHABLE``: producers work, consumers hang).

One lab shape, :func:`datacenter`, serves them all, and ``healthy-cluster``:

* ``kafka-1`` .. ``kafka-N``: the brokers, 198.51.100.2, .18 and .34, each on its own /28 behind the
  gateway. Every broker has an INTERNAL listener (inter-broker traffic and admin tools, advertised by
  address, port 19092) and an EXTERNAL one for clients on 9092. Their ``/etc/hosts`` (config
  management) names every broker by short name (``kafka-2``) and data-centre name
  (``kafka-2.dc1.internal``).
* ``gw``: the data centre's gateway and the company DNS at 192.0.2.1, which resolves
  ``kafka-N.example.test`` to each broker and nothing else.
* ``app-server``: an application server on the company network, 192.0.2.10, using that DNS and routed
  to the brokers through the gateway (or, in the NAT scenario, only to the gateway's public address).

The topics are made by a setup step once the brokers are up, through the INTERNAL listener, each
partition on a chosen broker; ``__consumer_offsets`` too, with one partition
(``offsets.topic.num.partitions=1``), so which broker coordinates every consumer group is chosen, not
left to chance.
"""

from __future__ import annotations

from collections.abc import Sequence

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import (FindingExpect, LabBroker, LabStep, Scenario, Vantage, finding, healthy, problems,
                                      python_module)

APP_SERVER_IP = "192.0.2.10"
COMPANY_DNS = "192.0.2.1"
PUBLIC_IP = "203.0.113.10"
INTERNAL_PORT = 19092
EXTERNAL_PORT = 9092
CONTROLLER_PORT = 9093
TOPIC = "orders"
ADVERTISED_FAILS = {"metadata": "ok", "advertised": "fail", "roundtrip": "skip"}
"""The stages of a run that got the metadata and found an advertised broker unusable (no round trip then)."""


def broker_address(node: int) -> str:
    """Broker ``node``'s address: 198.51.100.2, .18, .34 (each the second address of its /28)."""
    return f"198.51.100.{16 * (node - 1) + 2}"


def external_name(node: int) -> str:
    return f"kafka-{node}.example.test"


def cluster_bootstrap(count: int) -> str:
    """``kafka-1.example.test:9092,...``: every broker's name, as applications list them."""
    return ",".join(f"{external_name(node)}:{EXTERNAL_PORT}" for node in range(1, count + 1))


def datacenter(name: str, count: int, *, app_route: str = "198.51.100.0/24", dnats: Sequence[Dnat] = ()) -> Topology:
    """``app-server`` -- ``gw`` (company DNS, gateway, NAT) -- ``kafka-1`` .. ``kafka-<count>``.

    ``app_route`` is what the application server reaches through the gateway: the brokers' network,
    or only the public address the ``dnats`` publish.
    """
    nodes = range(1, count + 1)
    brokers_by_name = {}
    for node in nodes:
        brokers_by_name[f"kafka-{node}"] = broker_address(node)
        brokers_by_name[f"kafka-{node}.dc1.internal"] = broker_address(node)
    return Topology(
        name=name,
        hosts=(
            Host("app-server", resolv=[COMPANY_DNS]),
            Host("gw", forward=True),
            *(Host(f"kafka-{node}", hosts=brokers_by_name, resolv=[COMPANY_DNS]) for node in nodes),
        ),
        links=(
            Link("app-server", f"{APP_SERVER_IP}/24", "gw", f"{COMPANY_DNS}/24"),
            *(Link("gw", f"198.51.100.{16 * (node - 1) + 1}/28", f"kafka-{node}", f"{broker_address(node)}/28")
              for node in nodes),
        ),
        routes=(
            Route("app-server", app_route, COMPANY_DNS),
            *(Route(f"kafka-{node}", "default", f"198.51.100.{16 * (node - 1) + 1}") for node in nodes),
        ),
        dns=(Dns("gw", COMPANY_DNS, records={external_name(node): broker_address(node) for node in nodes}),),
        dnats=tuple(dnats),
    )


def datacenter_broker(node: int, count: int, *, advertise: str | None = None, port: int = EXTERNAL_PORT) -> LabBroker:
    """Broker ``node`` of ``count`` in host ``kafka-<node>``; its EXTERNAL listener advertises ``advertise:port``
    (default: its own name, ``kafka-<node>.example.test:9092``)."""
    address = broker_address(node)
    internal = Listener("INTERNAL", address, INTERNAL_PORT)
    voters = ",".join(f"{n}@{broker_address(n)}:{CONTROLLER_PORT}" for n in range(1, count + 1))
    spec = BrokerSpec(
        node_id=node,
        listeners=(internal, Listener("EXTERNAL", "", EXTERNAL_PORT)),
        advertised=(internal, Listener("EXTERNAL", advertise or external_name(node), port)),
        inter_broker_listener="INTERNAL",
        controller_host=address,
        controller_port=CONTROLLER_PORT,
        quorum_voters=voters,
        overrides={"offsets.topic.num.partitions": "1"},
    )
    return LabBroker(f"kafka-{node}", spec)


def topic_setup(*, coordinator: int = 1, **topics: Sequence[int]) -> LabStep:
    """Create each topic with partition i on broker ``topics[name][i]``, and ``__consumer_offsets`` on
    broker ``coordinator`` (which then coordinates every consumer group), through broker 1's INTERNAL listener."""
    assignments = [f"{name}={','.join(str(node) for node in nodes)}" for name, nodes in topics.items()]
    argv = python_module("kdiag.lab.scenarios._topics", f"{broker_address(1)}:{INTERNAL_PORT}", *assignments,
                         f"__consumer_offsets={coordinator}")
    return LabStep("create topics", "kafka-1", argv)


def _partial_cluster(*title: str) -> FindingExpect:
    return finding("PARTIAL_CLUSTER", title=title)


def _inside(node: int = 1) -> Vantage:
    """A broker's own machine, bootstrapping on its INTERNAL listener with the existing topic."""
    return Vantage(
        f"kafka-{node}-internal", host=f"kafka-{node}", bootstrap=f"{broker_address(node)}:{INTERNAL_PORT}",
        args=("--topic", TOPIC), expect=healthy(),
        why="The INTERNAL listener advertises every broker by its own address: inside the data centre the "
            "cluster works, which is why the brokers themselves never complain.",
    )


# --------------------------------------------------------------------------- partial cluster

PARTIAL_CLUSTER = Scenario(
    name="partial-cluster",
    title="Three brokers, broker 3 advertising its short host name: a third of the partitions fail",
    seed="reference/landscape-and-failure-modes.md §2 #1 (an advertised host clients cannot resolve), on one "
         "broker of three",
    description=f"""\
Brokers 1 and 2 advertise EXTERNAL://kafka-1.example.test:9092 and EXTERNAL://kafka-2.example.test:9092.
Broker 3 was set up by hand from an older template and advertises EXTERNAL://kafka-3:9092: its short
host name, which the brokers' own /etc/hosts resolve (config management lists every broker there) but
the company DNS does not. The topic {TOPIC} has three partitions, one on each broker.

An application bootstraps with all three names: that works, and so do produce and fetch for
{TOPIC}-0 and {TOPIC}-1. Only {TOPIC}-2, led by broker 3, fails, after the client's own timeouts
(librdkafka `Failed to resolve 'kafka-3:9092'`, the Java producer's `Expiring 1 record(s) for
{TOPIC}-2`): it looks intermittent, and depends on the key. kdiag resolves every advertised broker:
ADVERTISED_UNRESOLVABLE names kafka-3 and its fix, and PARTIAL_CLUSTER names what that breaks, the one
partition of {TOPIC} that broker 3 leads. On a broker's own machine everything works, since kafka-3
resolves there.""",
    topology=datacenter("dcpart", 3),
    brokers=(datacenter_broker(1, 3), datacenter_broker(2, 3), datacenter_broker(3, 3, advertise="kafka-3")),
    setup=(topic_setup(orders=(1, 2, 3)),),
    vantages=(
        Vantage(
            "app-server", host="app-server", bootstrap=cluster_bootstrap(3),
            expect=problems(
                finding("ADVERTISED_UNRESOLVABLE", title="kafka-3"),
                _partial_cluster("Broker 3 is unusable from here while brokers 1 and 2 work", "1 partition of 1 topic"),
                stages=ADVERTISED_FAILS,
            ),
            why="The company DNS has no kafka-3: broker 3's one partition of orders is unusable from here, the "
                "other two work.",
        ),
        Vantage(
            "kafka-1", host="kafka-1", bootstrap=f"{external_name(1)}:{EXTERNAL_PORT}", args=("--topic", TOPIC),
            expect=healthy(),
            why="\"It works on the broker\": the brokers' /etc/hosts resolves kafka-3, so every partition works.",
        ),
    ),
)


# --------------------------------------------------------------------------- duplicate advertised address

DUPLICATE_ADVERTISED = Scenario(
    name="duplicate-advertised",
    title="Two brokers advertising the same address: broker 2's server.properties copied from broker 1",
    seed="reference/landscape-and-failure-modes.md §2 #6 (one address in front of several brokers)",
    description=f"""\
Broker 2 was cloned from broker 1 and its client listener was never edited: both brokers advertise
EXTERNAL://kafka-1.example.test:9092 (their INTERNAL listeners, used between the brokers, are right, so
the cluster itself is healthy). The topic {TOPIC} has one partition on each broker.

A client sends broker 2's partition, {TOPIC}-1, to kafka-1.example.test:9092, which is broker 1. Broker 1
answers NOT_LEADER_OR_FOLLOWER; the client refreshes the metadata, gets the same address, and retries
until it times out, while {TOPIC}-0 works. kdiag sees two brokers with one address
(ADVERTISED_DUPLICATE, whose fix gives broker 2 an address of its own), and proves with ListOffsets on
{TOPIC}-1 that the address does not reach broker 2 (ADVERTISED_WRONG_BROKER); PARTIAL_CLUSTER names the
partition that fails. Inside, through the INTERNAL listener, everything works.""",
    topology=datacenter("dcdup", 2),
    brokers=(datacenter_broker(1, 2), datacenter_broker(2, 2, advertise=external_name(1))),
    setup=(topic_setup(orders=(1, 2)),),
    vantages=(
        Vantage(
            "app-server", host="app-server", bootstrap=cluster_bootstrap(2),
            expect=problems(
                finding("ADVERTISED_DUPLICATE", title=f"Brokers 1 and 2 both advertise {external_name(1)}:9092"),
                finding("ADVERTISED_WRONG_BROKER", title=f"Broker 2's advertised address {external_name(1)}:9092"),
                _partial_cluster("Broker 2 is unusable from here while broker 1 works", "1 partition of 1 topic"),
                stages=ADVERTISED_FAILS,
            ),
            why="Both brokers hand out kafka-1.example.test:9092, which reaches broker 1 only: broker 2's partition "
                "of orders is sent to the wrong broker.",
        ),
        _inside(),
    ),
)


# --------------------------------------------------------------------------- a port mapping to the wrong broker

WRONG_BROKER_PORT_MAPPING = Scenario(
    name="wrong-broker-port-mapping",
    title="Two brokers behind a NAT gateway, broker 2's port forwarded to broker 1",
    seed="reference/landscape-and-failure-modes.md §2 #5 (NAT or port-forward in front of the brokers)",
    description=f"""\
The brokers sit in a private network behind a NAT gateway with one public address, {PUBLIC_IP}, and one
port per broker, as it must be: broker 1 advertises EXTERNAL://{PUBLIC_IP}:9092 and broker 2
EXTERNAL://{PUBLIC_IP}:9093. The gateway forwards 9092 to broker 1, and 9093 was meant to go to broker 2,
but its rule has broker 1's address (a copy-paste slip in the port-forward table):
  {PUBLIC_IP}:9092 -> {broker_address(1)}:9092   (broker 1, right)
  {PUBLIC_IP}:9093 -> {broker_address(1)}:9092   (should be {broker_address(2)})
The topic {TOPIC} has one partition on each broker. From the internet everything looks reachable: both
advertised endpoints resolve (they are addresses), connect and speak Kafka. But the one for broker 2 is
broker 1, which answers NOT_LEADER_OR_FOLLOWER for {TOPIC}-1: kdiag proves it with ListOffsets
(ADVERTISED_WRONG_BROKER, naming the forward to fix) and PARTIAL_CLUSTER names the partition that fails.
Inside, through the INTERNAL listener, everything works.""",
    topology=datacenter(
        "dcnat", 2, app_route="203.0.113.0/24",
        dnats=(Dnat("gw", PUBLIC_IP, 9092, broker_address(1), EXTERNAL_PORT, masquerade=False),
               Dnat("gw", PUBLIC_IP, 9093, broker_address(1), EXTERNAL_PORT, masquerade=False)),
    ),
    brokers=(datacenter_broker(1, 2, advertise=PUBLIC_IP, port=9092),
             datacenter_broker(2, 2, advertise=PUBLIC_IP, port=9093)),
    setup=(topic_setup(orders=(1, 2)),),
    vantages=(
        Vantage(
            "app-server", host="app-server", bootstrap=f"{PUBLIC_IP}:9092",
            expect=problems(
                finding("ADVERTISED_WRONG_BROKER", title=f"Broker 2's advertised address {PUBLIC_IP}:9093 leads to "
                        "a different broker"),
                _partial_cluster("Broker 2 is unusable from here while broker 1 works", "1 partition of 1 topic"),
                stages=ADVERTISED_FAILS,
            ),
            why=f"{PUBLIC_IP}:9093 is forwarded to broker 1, which does not lead orders-1.",
        ),
        _inside(),
    ),
)


# --------------------------------------------------------------------------- the coordinator on the bad broker

COORDINATOR_UNREACHABLE = Scenario(
    name="coordinator-unreachable",
    title="Two brokers, the consumer-group coordinator on the one whose advertised name does not resolve",
    seed="contract: COORDINATOR_UNREACHABLE (producers work, consumers hang)",
    description=f"""\
Broker 1 advertises EXTERNAL://kafka-1.example.test:9092; broker 2 advertises
EXTERNAL://kafka-2.dc1.internal:9092, a name in the data centre's private zone that only the brokers'
/etc/hosts know. The application's topic, {TOPIC}, has its one partition on broker 1, so producers
work from everywhere. But __consumer_offsets (one partition here, offsets.topic.num.partitions=1) is on
broker 2, which makes broker 2 the coordinator of every consumer group.

A consumer first asks any broker for its group's coordinator, gets kafka-2.dc1.internal:9092, and
cannot resolve it: it never joins the group and consumes nothing, logging `Group coordinator
kafka-2.dc1.internal:9092 (id: 2147483645 rack: null) is unavailable or invalid` over and over, while
producers to the same topic work. kdiag asks for the coordinator of its own group (kdiag-probe-<host
name>) the way a consumer does: COORDINATOR_UNREACHABLE says consumers hang and why,
ADVERTISED_UNRESOLVABLE names the name to fix, and PARTIAL_CLUSTER says broker 2 is unusable (it leads
no partition of {TOPIC}, only the offsets topic). From a broker's machine, where the name resolves,
everything works.""",
    topology=datacenter("dccoord", 2),
    brokers=(datacenter_broker(1, 2), datacenter_broker(2, 2, advertise="kafka-2.dc1.internal")),
    setup=(topic_setup(orders=(1,), coordinator=2),),
    vantages=(
        Vantage(
            "app-server", host="app-server", bootstrap=f"{external_name(1)}:{EXTERNAL_PORT}",
            expect=problems(
                finding("COORDINATOR_UNREACHABLE", title=("kdiag-probe-app-server", "kafka-2.dc1.internal:9092")),
                finding("ADVERTISED_UNRESOLVABLE", title="kafka-2.dc1.internal"),
                _partial_cluster("Broker 2 is unusable from here while broker 1 works"),
                stages=ADVERTISED_FAILS,
            ),
            why="The group coordinator is broker 2, advertised by a name the company DNS does not know: producers "
                "to orders work, consumers hang.",
        ),
        Vantage(
            "kafka-1", host="kafka-1", bootstrap=f"{external_name(1)}:{EXTERNAL_PORT}", args=("--topic", TOPIC),
            expect=healthy(),
            why="On a broker's machine kafka-2.dc1.internal resolves: the coordinator is reachable and the round "
                "trip, a consumer in a group, works.",
        ),
    ),
)

SCENARIOS = (PARTIAL_CLUSTER, DUPLICATE_ADVERTISED, WRONG_BROKER_PORT_MAPPING, COORDINATOR_UNREACHABLE)
