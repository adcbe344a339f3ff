"""One real broker in a network namespace of its own and a client namespace beside it, for tests whose
client must come from an address other than the broker's (its own connections come from 127.0.0.1).

The client is 192.0.2.10, the broker 192.0.2.1 with its EXTERNAL listener on 9092 (advertised as the
test says) and an INTERNAL one on loopback for its own traffic.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from kdiag.lab.kafka import BrokerSpec, KafkaBroker, Listener
from kdiag.lab.netns import Host, Link, LiveTopology, Topology, lab_up

CLIENT_ADDRESS = "192.0.2.10"
BROKER_ADDRESS = "192.0.2.1"
BROKER_BOOTSTRAP = f"{BROKER_ADDRESS}:9092"


@contextmanager
def broker_beside_client(name: str, workdir: Path, *, advertised_host: str = BROKER_ADDRESS,
                         overrides: Mapping[str, str] | None = None) -> Iterator[tuple[LiveTopology, KafkaBroker]]:
    """The two namespaces (``name`` is the topology's, short and unique per test) and the started broker."""
    topology = Topology(name=name, hosts=(Host("client"), Host("broker")),
                        links=(Link("client", CLIENT_ADDRESS, "broker", BROKER_ADDRESS),))
    spec = BrokerSpec(
        node_id=1,
        listeners=(Listener("EXTERNAL", "0.0.0.0", 9092), Listener("INTERNAL", "127.0.0.1", 19092)),
        advertised=(Listener("EXTERNAL", advertised_host, 9092), Listener("INTERNAL", "127.0.0.1", 19092)),
        inter_broker_listener="INTERNAL",
        controller_port=19093,
        overrides=dict(overrides or {}),
    )
    with lab_up(topology) as live:
        with KafkaBroker.start(spec, workdir=workdir, netns=live.ns("broker")) as broker:
            yield live, broker
