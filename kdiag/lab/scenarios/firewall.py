"""A firewall that lets the bootstrap port through but not the broker's advertised port: DROP and REJECT.

"Often the bootstrap is allowed but per-broker ports are not." A cluster behind a cloud load balancer
has a bootstrap endpoint and one endpoint per broker, each on its own port; the security group (or the
firewall) was opened for the bootstrap port only. One lab shape, two firewalls:

* ``server``: the broker, 198.51.100.10, listening on 9092.
* ``lb``: the load balancer and firewall in front of it, forwarding. It publishes
  ``kafka-bootstrap.example.test`` (203.0.113.10) port 9092 and broker 1's own endpoint
  ``kafka-1.example.test`` (203.0.113.11) port 9093, both to the broker's 9092, and filters port 9093:
  ``firewall-drop`` DROPs it (the client's connect times out), ``firewall-reject`` REJECTs it with ICMP
  port-unreachable (the connect is refused at once). It also answers DNS for the client at 192.0.2.1.
* ``laptop``: the client, 192.0.2.10, routed to 203.0.113.0/24 through the load balancer.

The broker advertises EXTERNAL://kafka-1.example.test:9093, its own endpoint, as it should; the mistake is
in the firewall. kdiag runs with ``--connect-timeout 1``, so the dropped connect costs it one second.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Dns, Firewall, FirewallAction, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, finding, problems

BOOTSTRAP_NAME = "kafka-bootstrap.example.test"
BROKER_NAME = "kafka-1.example.test"
BOOTSTRAP_IP = "203.0.113.10"
BROKER_PUBLIC_IP = "203.0.113.11"
SERVER_IP = "198.51.100.10"
LB_DNS = "192.0.2.1"
BROKER_PORT = 9093
SEED = ("reference/landscape-and-failure-modes.md §2 #19: firewall or security group; bootstrap allowed, per-broker "
        "ports not")


def lb_topology(name: str, action: FirewallAction) -> Topology:
    return Topology(
        name=name,
        hosts=(Host("laptop", resolv=[LB_DNS]), Host("lb", forward=True), Host("server")),
        links=(
            Link("laptop", "192.0.2.10/24", "lb", f"{LB_DNS}/24"),
            Link("lb", "198.51.100.1/24", "server", f"{SERVER_IP}/24"),
        ),
        routes=(Route("laptop", "203.0.113.0/24", LB_DNS), Route("server", "default", "198.51.100.1")),
        dns=(Dns("lb", LB_DNS, records={BOOTSTRAP_NAME: BOOTSTRAP_IP, BROKER_NAME: BROKER_PUBLIC_IP}),),
        dnats=(Dnat("lb", BOOTSTRAP_IP, 9092, SERVER_IP, 9092, masquerade=False),
               Dnat("lb", BROKER_PUBLIC_IP, BROKER_PORT, SERVER_IP, 9092, masquerade=False)),
        firewalls=(Firewall("lb", BROKER_PORT, action),),
    )


BROKER = LabBroker("server", BrokerSpec(node_id=1, listeners=(Listener("EXTERNAL", "", 9092),),
                                        advertised=(Listener("EXTERNAL", BROKER_NAME, BROKER_PORT),),
                                        controller_port=9094))


def _laptop(title: str, *, fix: tuple[str, ...], why: str) -> Vantage:
    """The laptop through the bootstrap endpoint, with a one-second connect timeout: broker 1's port fails ``title``."""
    return Vantage(
        "laptop", host="laptop", bootstrap=f"{BOOTSTRAP_NAME}:9092", args=("--connect-timeout", "1"),
        expect=problems(finding("ADVERTISED_UNREACHABLE", title=(f"{BROKER_NAME}:{BROKER_PORT}", title), fix=fix),
                        stages={"tcp": "ok", "metadata": "ok", "advertised": "fail", "roundtrip": "skip"}),
        why=why,
    )


def _description(action: str, client_sees: str, verdict: str) -> str:
    return f"""\
A broker behind a load balancer with a bootstrap endpoint, {BOOTSTRAP_NAME}:9092, and one endpoint for
broker 1, {BROKER_NAME}:{BROKER_PORT}, both forwarded to the broker's listener on 9092:
  listeners=EXTERNAL://:9092
  advertised.listeners=EXTERNAL://{BROKER_NAME}:{BROKER_PORT}
The firewall in front of them allows 9092 and {action}s {BROKER_PORT}: whoever opened it tested with
`nc -vz {BOOTSTRAP_NAME} 9092`, which works. So does the bootstrap and the metadata, but every produce and
fetch goes to {BROKER_NAME}:{BROKER_PORT}, and there {client_sees}. {verdict}"""


FIREWALL_DROP = Scenario(
    name="firewall-drop",
    title="Firewall: the bootstrap port is open, the broker's advertised port is DROPped (timeout)",
    seed=SEED,
    description=_description(
        "DROP", "the SYN gets no answer: librdkafka logs `Connection setup timed out in state CONNECT` after "
        "socket.connection.setup.timeout.ms (30 s), the Java producer `Expiring 1 record(s)` after 120 s",
        "kdiag, with a one-second connect timeout, says ADVERTISED_UNREACHABLE: the name resolves but the port "
        "is filtered, while the bootstrap address works, and its fix is the firewall or security-group rule for "
        f"port {BROKER_PORT}, not the broker's configuration."),
    topology=lb_topology("fwdrop", "drop"),
    brokers=(BROKER,),
    vantages=(_laptop("does not answer from here (filtered)", fix=(f"--port {BROKER_PORT}", "security group"),
                      why=f"Port {BROKER_PORT} is dropped: the connect to the advertised endpoint times out."),),
)

FIREWALL_REJECT = Scenario(
    name="firewall-reject",
    title="Firewall: the bootstrap port is open, the broker's advertised port is REJECTed (refused)",
    seed=SEED,
    description=_description(
        "REJECT", "the firewall answers with ICMP port-unreachable: `Connect to ipv4#203.0.113.11:9093 failed: "
        "Connection refused`, at once, which looks exactly like nothing listening on the port",
        "kdiag says ADVERTISED_UNREACHABLE: the name resolves but the connection is refused, and it says refused "
        "is ambiguous (nothing listening, or a firewall that REJECTs); its fix covers both."),
    topology=lb_topology("fwreject", "reject"),
    brokers=(BROKER,),
    vantages=(_laptop("refuses connections from here", fix=("If a firewall REJECTs the port, allow it",
                                                           f"--port {BROKER_PORT}"),
                      why=f"Port {BROKER_PORT} is rejected: the connect to the advertised endpoint is refused at once."),),
)

SCENARIOS = (FIREWALL_DROP, FIREWALL_REJECT)
