"""``localhost`` resolves to ``::1`` and ``127.0.0.1``; the broker listens on IPv4 only.

A developer runs Kafka on their own machine with the quickstart's habit of binding loopback:
``listeners=PLAINTEXT://127.0.0.1:9092`` and ``advertised.listeners=PLAINTEXT://localhost:9092``. One
lab host, ``laptop``, whose ``/etc/hosts`` has ``127.0.0.1 localhost`` and ``::1 localhost`` (as Debian's
does), runs the broker and the client.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Host, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, finding, problems

SPLIT = finding("ADVERTISED_ADDRESS_FAMILY_SPLIT", title=("localhost:9092", "IPv4"),
                fix=("listeners=PLAINTEXT://:9092", "broker.address.family=v4", "advertised.listeners=PLAINTEXT://"
                     "127.0.0.1:9092"))

LOCALHOST_IPV4_ONLY = Scenario(
    name="localhost-ipv4-only",
    title="localhost resolves to ::1 and 127.0.0.1, the broker listens on 127.0.0.1 only",
    seed="reference/landscape-and-failure-modes.md §2 #7: IPv6/IPv4 split for localhost",
    description="""\
A broker on the developer's own machine, bound to IPv4 loopback and advertised by name:
  listeners=PLAINTEXT://127.0.0.1:9092
  advertised.listeners=PLAINTEXT://localhost:9092
localhost resolves to ::1 first, then 127.0.0.1. A client that stops at the first address that works
is fine, and so are kcat -L and a first produce. librdkafka takes the next address on every reconnect:
`Connect to ipv6#[::1]:9092 failed: Connection refused` comes between good connects, and `1/1 brokers
are down` whenever the connection to 127.0.0.1 is recycled; with many connections (a consumer group,
several topics) it looks like a flaky broker, and a produce can wait seconds or time out (`Local:
Message timed out`), depending on which address each reconnect draws. Before kdiag connected to every address it called this
cluster healthy. Now it says ADVERTISED_ADDRESS_FAMILY_SPLIT: 127.0.0.1 connects, ::1 is refused, and
its own round trip's librdkafka lines are quoted as evidence; the fix binds both families (listeners=PLAINTEXT://:9092), advertises 127.0.0.1, or sets
broker.address.family=v4 on the client. Bootstrapping by 127.0.0.1 does not help: the broker still
advertises localhost.""",
    topology=Topology(name="dualstack", hosts=(Host("laptop"),)),
    brokers=(LabBroker("laptop", BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "127.0.0.1", 9092),),
                                            advertised=(Listener("PLAINTEXT", "localhost", 9092),),
                                            controller_port=9093)),),
    vantages=(
        Vantage("laptop-localhost", host="laptop", bootstrap="localhost:9092",
                expect=problems(SPLIT, stages={"tcp": "warn", "metadata": "ok", "advertised": "ok"}),
                why="localhost's ::1 is refused and 127.0.0.1 answers, for the bootstrap and for the advertised "
                    "broker alike."),
        Vantage("laptop-ipv4", host="laptop", bootstrap="127.0.0.1:9092",
                expect=problems(SPLIT, stages={"tcp": "ok", "metadata": "ok", "advertised": "ok"}),
                why="The bootstrap by address works on its only address; the broker it returns is localhost again."),
    ),
)

SCENARIOS = (LOCALHOST_IPV4_ONLY,)
