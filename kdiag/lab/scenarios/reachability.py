"""The bootstrap itself out of reach: filtered by a firewall, rejected as host-unreachable, or with no route.

The office network of ``healthy-single`` (:func:`~kdiag.lab.scenarios.healthy.office_topology`); its
broker has two client listeners, 9092 for the office and 9094, which the office router's firewall
DROPs (the port a VPN profile or a security group was never opened for). The router REJECTs 9095 with
ICMP host-unreachable, as firewalls set to "reject" often do. And the client has no route at all to
203.0.113.0/24, where someone's old bootstrap address points.
"""

from __future__ import annotations

from dataclasses import replace

from kdiag.lab.kafka import Listener
from kdiag.lab.netns import Firewall
from kdiag.lab.scenarios.base import Scenario, Vantage, finding, healthy, problems
from kdiag.lab.scenarios.healthy import SERVER_NAME, office_broker, office_topology

FILTERED_PORT = 9094
REJECTED_PORT = 9095
NO_ROUTE = "203.0.113.99"
NO_METADATA = {"tcp": "fail", "metadata": "skip", "advertised": "skip", "roundtrip": "skip"}

BOOTSTRAP_OUT_OF_REACH = Scenario(
    name="bootstrap-out-of-reach",
    title="The bootstrap out of reach: a DROPped port, a host-unreachable REJECT, and no route",
    seed="reference/landscape-and-failure-modes.md §2 #19: firewall or security group silently drops traffic "
         "(here on the bootstrap itself)",
    description=f"""\
One broker on the office server with two client listeners:
  listeners=PLAINTEXT://:9092,EXTERNAL://:{FILTERED_PORT}
  advertised.listeners=PLAINTEXT://{SERVER_NAME}:9092,EXTERNAL://{SERVER_NAME}:{FILTERED_PORT}
The office router's firewall DROPs {FILTERED_PORT} and REJECTs {REJECTED_PORT} with ICMP host-unreachable.
A client given {SERVER_NAME}:{FILTERED_PORT} gets no answer to its SYN: librdkafka waits
socket.connection.setup.timeout.ms (30 s) and logs `Connection setup timed out in state CONNECT`, the
Linux kernel alone would retry for about 127 s, a Java admin client says `Timed out waiting for a node
assignment`. kdiag, with a one-second connect timeout, says BOOTSTRAP_TIMEOUT (filtered) in about a
second. On {REJECTED_PORT} the router answers host-unreachable at once, and with {NO_ROUTE} (no route from
the office at all) the kernel refuses to send: both are BOOTSTRAP_UNREACHABLE, `No route to host` /
`Network is unreachable`, which no broker setting can cause. Port 9092 works.""",
    topology=replace(office_topology("reach"), firewalls=(Firewall("router", FILTERED_PORT, "drop"),
                                                         Firewall("router", REJECTED_PORT,
                                                                  "reject-host-unreachable"))),
    brokers=(office_broker(Listener("PLAINTEXT", "", 9092), Listener("EXTERNAL", "", FILTERED_PORT),
                           advertised=(Listener("PLAINTEXT", SERVER_NAME, 9092),
                                       Listener("EXTERNAL", SERVER_NAME, FILTERED_PORT)),
                           inter_broker="PLAINTEXT"),),
    vantages=(
        Vantage("client-filtered", host="client", bootstrap=f"{SERVER_NAME}:{FILTERED_PORT}",
                args=("--connect-timeout", "1"),
                expect=problems(finding("BOOTSTRAP_TIMEOUT", title=f"{SERVER_NAME}:{FILTERED_PORT}",
                                        fix=f"--port {FILTERED_PORT}"), stages=NO_METADATA),
                why=f"The router drops {FILTERED_PORT}: the connect gets no answer within the one-second timeout."),
        Vantage("client-rejected", host="client", bootstrap=f"{SERVER_NAME}:{REJECTED_PORT}",
                expect=problems(finding("BOOTSTRAP_UNREACHABLE", title=f"{SERVER_NAME}:{REJECTED_PORT}"),
                                stages=NO_METADATA),
                why=f"The router rejects {REJECTED_PORT} with ICMP host-unreachable: EHOSTUNREACH at once."),
        Vantage("client-no-route", host="client", bootstrap=f"{NO_ROUTE}:9092",
                expect=problems(finding("BOOTSTRAP_UNREACHABLE", title=NO_ROUTE, fix="route"), stages=NO_METADATA),
                why=f"The client has no route to {NO_ROUTE}: ENETUNREACH before a packet leaves."),
        Vantage("client-open-port", host="client", bootstrap=f"{SERVER_NAME}:9092", expect=healthy(),
                why="The port the firewall lets through: the cluster itself is fine."),
    ),
)

SCENARIOS = (BOOTSTRAP_OUT_OF_REACH,)
