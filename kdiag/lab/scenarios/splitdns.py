"""Split-horizon DNS: the bootstrap resolves everywhere, the zonal broker names only to private addresses.

How PrivateLink-style and most managed clusters are named: a bootstrap name with a public answer, and
one name per broker under an availability-zone label (``b-1.use1-az1.kafka.example.test``) whose record
lives in a private zone and points to a private endpoint.

* ``server``: the broker, 198.51.100.10, in the private network (the VPC).
* ``gw``: the VPC's edge, forwarding; it publishes the bootstrap ``203.0.113.10:9092`` (DNAT to the
  broker, as a public load balancer does) and runs three DNS servers: the VPC's resolver at
  198.51.100.129 (private answers for every name), a hybrid resolver at 192.0.2.1 that forwards the
  private zone to the VPC (so zonal names come back private) and a public one at 192.0.2.129 (the
  bootstrap name only: zonal names are NXDOMAIN).
* ``laptop-vpn``: 192.0.2.10, using the hybrid resolver, routed to 203.0.113.0/24 only.
* ``laptop-public``: 192.0.2.130, using the public resolver, routed to 203.0.113.0/24 only.
* ``app-vpc``: 198.51.100.130, inside the VPC, using the VPC resolver.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, finding, healthy, problems

BOOTSTRAP_NAME = "kafka.example.test"
ZONAL_NAME = "b-1.use1-az1.kafka.example.test"
PUBLIC_IP = "203.0.113.10"
SERVER_IP = "198.51.100.10"
VPC_DNS = "198.51.100.129"
HYBRID_DNS = "192.0.2.1"
PUBLIC_DNS = "192.0.2.129"
ADVERTISED_FAILS = {"metadata": "ok", "advertised": "fail", "roundtrip": "skip"}

TOPOLOGY = Topology(
    name="splitdns",
    hosts=(
        Host("laptop-vpn", resolv=[HYBRID_DNS]),
        Host("laptop-public", resolv=[PUBLIC_DNS]),
        Host("gw", forward=True),
        Host("server"),
        Host("app-vpc", resolv=[VPC_DNS]),
    ),
    links=(
        Link("laptop-vpn", "192.0.2.10/25", "gw", f"{HYBRID_DNS}/25"),
        Link("laptop-public", "192.0.2.130/25", "gw", f"{PUBLIC_DNS}/25"),
        Link("gw", "198.51.100.1/25", "server", f"{SERVER_IP}/25"),
        Link("gw", f"{VPC_DNS}/25", "app-vpc", "198.51.100.130/25"),
    ),
    routes=(
        Route("laptop-vpn", "203.0.113.0/24", HYBRID_DNS),
        Route("laptop-public", "203.0.113.0/24", PUBLIC_DNS),
        Route("server", "default", "198.51.100.1"),
        Route("app-vpc", "default", VPC_DNS),
    ),
    dns=(
        Dns("gw", VPC_DNS, records={BOOTSTRAP_NAME: SERVER_IP, ZONAL_NAME: SERVER_IP}),
        Dns("gw", HYBRID_DNS, records={BOOTSTRAP_NAME: PUBLIC_IP, ZONAL_NAME: SERVER_IP}),
        Dns("gw", PUBLIC_DNS, records={BOOTSTRAP_NAME: PUBLIC_IP}),
    ),
    dnats=(Dnat("gw", PUBLIC_IP, 9092, SERVER_IP, 9092, masquerade=False),),
)

SPLIT_HORIZON_DNS = Scenario(
    name="split-horizon-dns",
    title="Split-horizon DNS: the bootstrap resolves publicly, the zonal broker name only to a private address",
    seed="reference/landscape-and-failure-modes.md §2 #21: PrivateLink / split-horizon DNS",
    description=f"""\
One broker in a private network, advertising its zonal name:
  advertised.listeners=PLAINTEXT://{ZONAL_NAME}:9092
The bootstrap name {BOOTSTRAP_NAME} has a public answer ({PUBLIC_IP}, a load balancer forwarding to the
broker) and, inside the network, a private one; the zonal name exists only in the private zone
({SERVER_IP}). From a laptop whose resolver forwards the private zone (a VPN's split DNS, a hybrid
resolver) the bootstrap works and the zonal name resolves, to an address with no route from here:
librdkafka `Connect to ipv4#{SERVER_IP}:9092 failed: Network is unreachable` (or, across a firewall,
`Connection setup timed out`). kdiag says ADVERTISED_UNREACHABLE, no route. From a laptop with only
public DNS the zonal name does not exist at all: ADVERTISED_UNRESOLVABLE, NXDOMAIN (Confluent's
checker: `should have a CNAME pointing to zonal VPC Endpoint`). Inside the network both names resolve
privately and the cluster is healthy.""",
    topology=TOPOLOGY,
    brokers=(LabBroker("server", BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),),
                                            advertised=(Listener("PLAINTEXT", ZONAL_NAME, 9092),),
                                            controller_port=9093)),),
    vantages=(
        Vantage("laptop-vpn", host="laptop-vpn", bootstrap=f"{BOOTSTRAP_NAME}:9092",
                expect=problems(finding("ADVERTISED_UNREACHABLE", title=(ZONAL_NAME, "no route")),
                                stages=ADVERTISED_FAILS),
                why=f"The zonal name resolves to {SERVER_IP}, private and unrouted from here."),
        Vantage("laptop-public", host="laptop-public", bootstrap=f"{BOOTSTRAP_NAME}:9092",
                expect=problems(finding("ADVERTISED_UNRESOLVABLE", title=ZONAL_NAME), stages=ADVERTISED_FAILS),
                why="Public DNS has the bootstrap name only."),
        Vantage("app-vpc", host="app-vpc", bootstrap=f"{BOOTSTRAP_NAME}:9092", expect=healthy(),
                why="Inside, both names resolve to the broker's private address."),
    ),
)

SCENARIOS = (SPLIT_HORIZON_DNS,)
