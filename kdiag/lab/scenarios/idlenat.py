"""A NAT gateway that forgets idle connections, and kdiag holding one idle to show it (``--idle-check``).

* ``server``: the broker, 198.51.100.10 in a private network, INTERNAL on 19092 and EXTERNAL on 9092.
* ``gateway``: the NAT in front of it (a cloud load balancer or NAT gateway stands here in real life),
  publishing ``203.0.113.10:9092`` to the broker's EXTERNAL listener. Its connection tracking forgets
  an established TCP flow after 4 idle seconds (``nf_conntrack_tcp_timeout_established=4``; Azure's
  load balancer takes 4 minutes, an AWS NAT gateway 350 s), does not pick up flows it has forgotten
  (``nf_conntrack_tcp_loose=0``) and drops their packets (``--ctstate INVALID -j DROP``, forwarded or
  addressed to itself: without the second rule its kernel would answer with a reset), silently, as
  those devices do.
* ``laptop``: a client on the internet, 203.0.113.100.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, LabStep, Scenario, Vantage, finding, healthy, problems

PUBLIC_IP = "203.0.113.10"
SERVER_IP = "198.51.100.10"
IDLE_LIMIT = 4
IDLE_CHECK = ("--idle-check", "6", "--timeout", "15", "--no-roundtrip")
INTERNAL = Listener("INTERNAL", SERVER_IP, 19092)

FORGETFUL_NAT = LabStep("make the NAT forget idle flows and drop their packets", "gateway", (
    "sh", "-c", f"sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_established={IDLE_LIMIT} "
    "net.netfilter.nf_conntrack_tcp_loose=0 && iptables -I FORWARD -m conntrack --ctstate INVALID -j DROP "
    "&& iptables -I INPUT -m conntrack --ctstate INVALID -j DROP"))

IDLE_NAT_DROP = Scenario(
    name="idle-nat-drop",
    title="A NAT that silently drops connections idle for more than 4 seconds",
    seed="reference/landscape-and-failure-modes.md §2 #22: a cloud load balancer or NAT drops idle connections",
    description=f"""\
A broker published through a NAT ({PUBLIC_IP}:9092), advertising that public address correctly. Every
check passes: the bootstrap, the metadata, the advertised broker, a produce. But the NAT forgets a TCP
flow after {IDLE_LIMIT} idle seconds and then drops its packets without a reset, as Azure's load balancer
does after 4 minutes: a client's connection that sat quiet (a consumer's coordinator, a producer to a
quiet topic) is dead without knowing it, and its next request hangs until request.timeout.ms:
librdkafka `GroupCoordinator: ...: 1 request(s) timed out: disconnect (after 240000ms in state UP)`.
kdiag bootstrap --idle-check 6 keeps its bootstrap connection idle for 6 s, then asks for Metadata:
no answer, IDLE_CONNECTION_DROPPED, saying how long the connection lasted and the client settings
(connections.max.idle.ms, keepalives) and path settings that fix it. On the broker's own machine, with
no NAT in the way, the same idle connection answers at once.""",
    topology=Topology(
        name="idlenat",
        hosts=(Host("laptop"), Host("gateway", forward=True), Host("server")),
        links=(Link("laptop", "203.0.113.100/24", "gateway", f"{PUBLIC_IP}/24"),
               Link("gateway", "198.51.100.1/24", "server", f"{SERVER_IP}/24")),
        routes=(Route("server", "default", "198.51.100.1"),),
        dnats=(Dnat("gateway", PUBLIC_IP, 9092, SERVER_IP, 9092, masquerade=False),),
    ),
    brokers=(LabBroker("server", BrokerSpec(node_id=1, listeners=(INTERNAL, Listener("EXTERNAL", "", 9092)),
                                            advertised=(INTERNAL, Listener("EXTERNAL", PUBLIC_IP, 9092)),
                                            inter_broker_listener="INTERNAL", controller_port=9093)),),
    setup=(FORGETFUL_NAT,),
    vantages=(
        Vantage("laptop", host="laptop", bootstrap=f"{PUBLIC_IP}:9092", args=IDLE_CHECK,
                expect=problems(finding("IDLE_CONNECTION_DROPPED", title=("left idle for 6 s", "silently dropped"),
                                        fix="connections.max.idle.ms="),
                                stages={"metadata": "ok", "advertised": "ok"}),
                why=f"The NAT forgot the flow after {IDLE_LIMIT} s: the request after 6 idle seconds is dropped."),
        Vantage("server", host="server", bootstrap=f"{SERVER_IP}:19092", args=IDLE_CHECK,
                expect=healthy(roundtrip=False),
                why="On the broker's own machine no NAT is in the way: the idle connection answers."),
    ),
)

SCENARIOS = (IDLE_NAT_DROP,)
