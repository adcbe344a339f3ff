"""A broker behind a NAT port-forward whose public port differs from the port it advertises.

* ``server``: the broker, 198.51.100.10 in a private network, listening on 9092.
* ``gateway``: the router in front of it, forwarding; its public (WAN) address is 203.0.113.10 and it
  forwards ``203.0.113.10:19092 -> 198.51.100.10:9092`` (the port-forward table of a home or office
  router, or a cloud NAT rule). Nothing else listens on its public address.
* ``laptop``: a machine on the internet, 203.0.113.100, on the gateway's WAN side.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, finding, problems

PUBLIC_IP = "203.0.113.10"
SERVER_IP = "198.51.100.10"
PUBLISHED_PORT = 19092

NAT_PORT_MISMATCH = Scenario(
    name="nat-port-mismatch",
    title="NAT: the public port is 19092, the broker advertises the public address with its own port 9092",
    seed="reference/landscape-and-failure-modes.md §2 #5: NAT or port-forward port mismatch",
    description=f"""\
A broker in a private network, published through the router's port-forward
{PUBLIC_IP}:{PUBLISHED_PORT} -> {SERVER_IP}:9092. Whoever configured the broker knew the public address
but not the forwarded port:
  listeners=PLAINTEXT://:9092
  advertised.listeners=PLAINTEXT://{PUBLIC_IP}:9092
A client on the internet bootstraps with {PUBLIC_IP}:{PUBLISHED_PORT}: that connects, and the metadata
says broker 1 is at {PUBLIC_IP}:9092, which the router does not forward (nothing listens there, so the
connection is refused; a router that drops unforwarded ports would make it a timeout). Clients must use
the host and port from the metadata, so every produce and fetch fails. kdiag from the laptop says
ADVERTISED_UNREACHABLE, the port-mismatch case: the address is the one the bootstrap reached, the port is
not, and the fix advertises the forwarded port ({PUBLIC_IP}:{PUBLISHED_PORT}).""",
    topology=Topology(
        name="natport",
        hosts=(Host("laptop"), Host("gateway", forward=True), Host("server")),
        links=(
            Link("laptop", "203.0.113.100/24", "gateway", f"{PUBLIC_IP}/24"),
            Link("gateway", "198.51.100.1/24", "server", f"{SERVER_IP}/24"),
        ),
        routes=(Route("server", "default", "198.51.100.1"),),
        dnats=(Dnat("gateway", PUBLIC_IP, PUBLISHED_PORT, SERVER_IP, 9092, masquerade=False),),
    ),
    brokers=(LabBroker("server", BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),),
                                            advertised=(Listener("PLAINTEXT", PUBLIC_IP, 9092),),
                                            controller_port=9093)),),
    vantages=(
        Vantage(
            "laptop", host="laptop", bootstrap=f"{PUBLIC_IP}:{PUBLISHED_PORT}",
            expect=problems(
                finding("ADVERTISED_UNREACHABLE",
                        title=(f"{PUBLIC_IP}:9092", f"reached the cluster on port {PUBLISHED_PORT}", "closed"),
                        fix=f"advertised.listeners=PLAINTEXT://{PUBLIC_IP}:{PUBLISHED_PORT}"),
                stages={"tcp": "ok", "metadata": "ok", "advertised": "fail", "roundtrip": "skip"},
            ),
            why=f"The bootstrap reached the broker through the forwarded port {PUBLISHED_PORT}; the advertised port "
                "9092 on the same address is not forwarded.",
        ),
    ),
)

SCENARIOS = (NAT_PORT_MISMATCH,)
