"""Healthy clusters: what kdiag says when nothing is wrong, from each place a client stands.

The baseline the other scenarios break one thing of, and the proof that a healthy cluster yields no
error or warning finding and exit status 0:

* ``healthy-single``: one broker in an office network, reached by name through the office DNS.
* ``healthy-cluster``: three brokers in a data centre (the layout of :mod:`kdiag.lab.scenarios.cluster`),
  each advertising a name the company DNS resolves to it.

The office network, :func:`office_topology`, is shared with :mod:`~kdiag.lab.scenarios.protocol` and
:mod:`~kdiag.lab.scenarios.topics`:

* ``client``: a developer's machine, 192.0.2.10, using the office DNS.
* ``router``: the office router, 192.0.2.1 towards the desks and 198.51.100.1 towards the servers; its
  DNS server at 192.0.2.1 answers ``kafka.example.test`` with the server's address and NXDOMAIN for
  every other name.
* ``server``: the machine running Kafka, 198.51.100.10.
"""

from __future__ import annotations

from collections.abc import Mapping

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, healthy
from kdiag.lab.scenarios.cluster import cluster_bootstrap, datacenter, datacenter_broker, external_name, topic_setup

SERVER_NAME = "kafka.example.test"
SERVER_IP = "198.51.100.10"
CLIENT_IP = "192.0.2.10"
OFFICE_DNS = "192.0.2.1"
CONTROLLER_PORT = 19093
"""The KRaft controller's port, out of the way of the client listeners the scenarios add (9093, 9094)."""


def office_topology(name: str, *, records: Mapping[str, str] | None = None) -> Topology:
    """``client`` -- ``router`` (DNS) -- ``server``; ``records`` are the office DNS's names (default: the server's)."""
    return Topology(
        name=name,
        hosts=(Host("client", resolv=[OFFICE_DNS]), Host("router", forward=True), Host("server", resolv=[OFFICE_DNS])),
        links=(
            Link("client", f"{CLIENT_IP}/24", "router", f"{OFFICE_DNS}/24"),
            Link("router", "198.51.100.1/24", "server", f"{SERVER_IP}/24"),
        ),
        routes=(Route("client", "198.51.100.0/24", OFFICE_DNS), Route("server", "default", "198.51.100.1")),
        dns=(Dns("router", OFFICE_DNS, records=records if records is not None else {SERVER_NAME: SERVER_IP}),),
    )


def office_broker(*listeners: Listener, advertised: tuple[Listener, ...] | None = None,
                  inter_broker: str | None = None, overrides: Mapping[str, str] | None = None) -> LabBroker:
    """Node 1 on ``server``; with no listener given, one PLAINTEXT listener on 9092 advertising the server's name."""
    if not listeners:
        listeners = (Listener("PLAINTEXT", "", 9092),)
        advertised = (Listener("PLAINTEXT", SERVER_NAME, 9092),)
    spec = BrokerSpec(node_id=1, listeners=listeners, advertised=advertised, inter_broker_listener=inter_broker,
                      controller_port=CONTROLLER_PORT, overrides=overrides or {})
    return LabBroker("server", spec)


HEALTHY_SINGLE = Scenario(
    name="healthy-single",
    title="Healthy: one broker, reached by name through the office DNS",
    seed="issue 3, item 2: healthy scenarios (zero error/warning findings, exit 0)",
    description=f"""\
The simplest setup that works: one broker on a server, listeners=PLAINTEXT://:9092 and
advertised.listeners=PLAINTEXT://{SERVER_NAME}:9092, and a DNS record for {SERVER_NAME} that every
machine in the office resolves to the server ({SERVER_IP}). A client bootstraps with that name, the
metadata hands the same name back, and it resolves, connects and answers as broker 1 from the
developer's machine and from the server itself; kdiag's produce/consume round trip then works. Nothing to
report: no error or warning finding, exit status 0. Every other single-broker scenario is this one with
one thing broken.""",
    topology=office_topology("office"),
    brokers=(office_broker(),),
    vantages=(
        Vantage("client", host="client", bootstrap=f"{SERVER_NAME}:9092", expect=healthy(),
                why="The advertised name is the one the client bootstrapped with, and the office DNS resolves it."),
        Vantage("server", host="server", bootstrap=f"{SERVER_NAME}:9092", expect=healthy(),
                why="The broker's own machine uses the same DNS: the same name works there too."),
    ),
)


HEALTHY_CLUSTER = Scenario(
    name="healthy-cluster",
    title="Healthy: three brokers, each advertising a name that resolves to it",
    seed="issue 3, item 2: healthy scenarios (zero error/warning findings, exit 0)",
    description="""\
Three brokers in a data centre, each with an INTERNAL listener (inter-broker traffic, advertised by its
address, port 19092) and an EXTERNAL one for clients on 9092, advertising its own DNS name:
  broker N: advertised.listeners=INTERNAL://<its address>:19092,EXTERNAL://kafka-N.example.test:9092
The company DNS resolves kafka-1/2/3.example.test, and the topic orders has one partition on each broker.
An application server bootstraps with the three names, gets them back in the metadata, and every
broker resolves, connects and proves it is the broker it claims to be (it leads its orders partition);
the round trip works. The same from a broker's own machine. This is what the partial-cluster,
duplicate-advertised and coordinator-unreachable scenarios break.""",
    topology=datacenter("dcok", 3),
    brokers=tuple(datacenter_broker(node, 3) for node in (1, 2, 3)),
    setup=(topic_setup(orders=(1, 2, 3)),),
    vantages=(
        Vantage("app-server", host="app-server", bootstrap=cluster_bootstrap(3), expect=healthy(),
                why="Every advertised name resolves through the company DNS and reaches its own broker."),
        Vantage("kafka-2", host="kafka-2", bootstrap=f"{external_name(2)}:9092", args=("--topic", "orders"),
                expect=healthy(),
                why="From a broker's machine, one bootstrap name is enough: the metadata lists all three, and each "
                    "works there too. The round trip uses the existing topic orders."),
    ),
)

SCENARIOS = (HEALTHY_SINGLE, HEALTHY_CLUSTER)
