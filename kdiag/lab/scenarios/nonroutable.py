"""A broker advertising the unspecified address: its bind address copied into advertised.listeners.

Kafka refuses ``0.0.0.0`` in advertised.listeners (`advertised.listeners cannot use the nonroutable
meta-address 0.0.0.0.`), but the check is a string comparison: its IPv6 twin ``[::]``, the bind address
of a dual-stack listener, passes and is handed to every client, as a proxy leaking ``0.0.0.0`` would.
The office network of ``healthy-single``.
"""

from __future__ import annotations

from kdiag.lab.kafka import Listener
from kdiag.lab.scenarios.base import Scenario, Vantage, finding, problems
from kdiag.lab.scenarios.healthy import SERVER_NAME, office_broker, office_topology

UNSPECIFIED = Listener("PLAINTEXT", "::", 9092)
NONROUTABLE = finding("ADVERTISED_NONROUTABLE", title="[::]:9092", fix=f"advertised.listeners=PLAINTEXT://{SERVER_NAME}:9092")

ADVERTISED_UNSPECIFIED = Scenario(
    name="advertised-unspecified",
    title="A broker advertising [::], its dual-stack bind address",
    seed="reference/landscape-and-failure-modes.md §2 #25 (0.0.0.0 advertised) and #5 (kcat shows `broker 0 at "
         "0.0.0.0:46723`)",
    description=f"""\
The broker binds every IPv4 and IPv6 interface and its advertised listener was copied from that line:
  listeners=PLAINTEXT://[::]:9092
  advertised.listeners=PLAINTEXT://[::]:9092
Kafka rejects 0.0.0.0 there at start-up, but not [::], so the broker starts, and `kcat -L` through
{SERVER_NAME}:9092 prints `broker 1 at [::]:9092`. A client that follows it connects to its own
machine (the unspecified address means "this host" to connect()) and fails with `Connection refused`.
kdiag says ADVERTISED_NONROUTABLE, from the developer's machine and on the broker's own server too,
where the connection happens to reach the local broker and every other machine still fails.""",
    topology=office_topology("unspec"),
    brokers=(office_broker(UNSPECIFIED, advertised=(UNSPECIFIED,)),),
    vantages=(
        Vantage("client", host="client", bootstrap=f"{SERVER_NAME}:9092",
                expect=problems(NONROUTABLE, stages={"metadata": "ok", "advertised": "fail", "roundtrip": "skip"}),
                why="[::]:9092 is this client's own machine, where nothing listens."),
        Vantage("server", host="server", bootstrap=f"{SERVER_NAME}:9092",
                expect=problems(NONROUTABLE, stages={"metadata": "ok"}),
                why="On the broker's machine [::]:9092 happens to reach the broker; it is still no address to hand out."),
    ),
)

SCENARIOS = (ADVERTISED_UNSPECIFIED,)
