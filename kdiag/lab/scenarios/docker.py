"""A Kafka broker in a Docker container with three listeners, and clients in each place people put them.

Seed 003, "Connecting to Kafka on Docker" and its kafkacat troubleshooting, with the third listener of
the same well-known walkthrough: BOB ``kafka0:29092`` for the Docker network, FRED ``localhost:9092``
for the Docker host, ALICE ``never-gonna-give-you-up:29094`` for whoever adds that name to their
``/etc/hosts``.

Docker is modelled with namespaces, veth links and iptables, as Docker itself does it:

* ``container``: the broker, host name ``kafka0``, address 198.51.100.2 on the Docker network. Its
  ``/etc/hosts`` names it ``kafka0``, as Docker writes it.
* ``docker-host``: the machine running Docker: the Docker network's gateway 198.51.100.1 (``docker0``),
  192.0.2.1 on the LAN. ``ports: ["9092:9092", "29094:29094"]`` is a DNAT of 192.0.2.1:9092 and
  192.0.2.1:29094 to the container (PREROUTING, for other machines, and OUTPUT, for the host itself), and
  of 127.0.0.1:9092 / 127.0.0.1:29094 (OUTPUT with route_localnet, as Docker without the userland proxy);
  a userland proxy, as ``docker-proxy``, publishes them on [::1] (``localhost`` resolves to ::1 first).
  29092 is not published, as in the seed. Docker's embedded DNS answers ``kafka0`` only inside the
  Docker network: the host itself cannot resolve it.
* ``other-container``: another container on the same Docker network, 198.51.100.18 (a routed link stands
  in for the bridge); its ``/etc/hosts`` resolves ``kafka0`` as Docker's DNS would.
* ``outside``: another machine on the host's LAN, 192.0.2.10, with no entry for ``kafka0`` or
  ``never-gonna-give-you-up``.
* ``laptop``: another machine outside, 192.0.2.130, whose ``/etc/hosts`` maps
  ``never-gonna-give-you-up`` to the Docker host, as the ALICE recipe tells you to.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import (Expect, FindingExpect, LabBroker, LabProcess, Scenario, Vantage, finding,
                                      healthy, problems, python_module)

CONTAINER_NAME = "kafka0"
ALICE_NAME = "never-gonna-give-you-up"
CONTAINER_IP = "198.51.100.2"
DOCKER_GATEWAY = "198.51.100.1"
OTHER_CONTAINER_IP = "198.51.100.18"
HOST_LAN_IP = "192.0.2.1"
OUTSIDE_IP = "192.0.2.10"
LAPTOP_IP = "192.0.2.130"
PUBLISHED_PORTS = (9092, 29094)

BOB, FRED, ALICE = "LISTENER_BOB", "LISTENER_FRED", "LISTENER_ALICE"

TOPOLOGY = Topology(
    name="docker",
    hosts=(
        Host("container", hosts={CONTAINER_NAME: CONTAINER_IP}),
        Host("docker-host", forward=True),
        Host("other-container", hosts={CONTAINER_NAME: CONTAINER_IP}),
        Host("outside"),
        Host("laptop", hosts={ALICE_NAME: HOST_LAN_IP}),
    ),
    links=(
        Link("docker-host", f"{DOCKER_GATEWAY}/28", "container", f"{CONTAINER_IP}/28"),
        Link("docker-host", "198.51.100.17/28", "other-container", f"{OTHER_CONTAINER_IP}/28"),
        Link("docker-host", f"{HOST_LAN_IP}/25", "outside", f"{OUTSIDE_IP}/25"),
        Link("docker-host", "192.0.2.129/25", "laptop", f"{LAPTOP_IP}/25"),
    ),
    routes=(
        Route("container", "default", DOCKER_GATEWAY),
        Route("other-container", "default", "198.51.100.17"),
        Route("laptop", "default", "192.0.2.129"),
    ),
    dnats=(
        *(Dnat("docker-host", HOST_LAN_IP, port, CONTAINER_IP, port, masquerade=False) for port in PUBLISHED_PORTS),
        *(Dnat("docker-host", "127.0.0.1", port, CONTAINER_IP, port) for port in PUBLISHED_PORTS),
    ),
)

# Docker publishes a port on IPv6 too: docker-proxy listens on [::]:9092, so localhost, which resolves to
# ::1 first, reaches the container from the host. The lab's IPv4 publishing is iptables; this is the v6 half.
USERLAND_PROXY = LabProcess(
    "docker-proxy", "docker-host",
    python_module("kdiag.lab.scenarios._tcp_proxy", *(f"[::1]:{port}={CONTAINER_IP}:{port}" for port in PUBLISHED_PORTS)),
    listens_on=PUBLISHED_PORTS,
)

BROKER = LabBroker(
    "container",
    BrokerSpec(
        node_id=1,
        hostname=CONTAINER_NAME,
        # The image derives KAFKA_LISTENERS from the advertised ones with host 0.0.0.0.
        listeners=(Listener(BOB, "0.0.0.0", 29092), Listener(FRED, "0.0.0.0", 9092), Listener(ALICE, "0.0.0.0", 29094)),
        advertised=(Listener(BOB, CONTAINER_NAME, 29092), Listener(FRED, "localhost", 9092),
                    Listener(ALICE, ALICE_NAME, 29094)),
        inter_broker_listener=BOB,
        controller_port=9093,
    ),
)

def _works_instead(bootstrap: str) -> tuple[FindingExpect, ...]:
    """The listener kdiag finds on another port of the bootstrap host, and must point the client to."""
    return (finding("OTHER_LISTENER_WORKS", title=bootstrap, fix=f"kdiag bootstrap {bootstrap}"),)


def _advertised_failure(finding_id: str, title: str, instead: str | None) -> Expect:
    """The bootstrap works, an advertised broker does not; ``instead``: the listener kdiag must point to."""
    return problems(finding(finding_id, title=title, fix=f"Bootstrap with {instead} instead" if instead else ()),
                    stages={"metadata": "ok", "advertised": "fail", "roundtrip": "skip"},
                    hints=_works_instead(instead) if instead else ())


def _unresolvable(name: str, *, instead: str | None = None) -> Expect:
    return _advertised_failure("ADVERTISED_UNRESOLVABLE", name, instead)


def _loopback(*, instead: str | None = None) -> Expect:
    return _advertised_failure("ADVERTISED_LOOPBACK", "localhost:9092", instead)


DOCKER_LISTENERS = Scenario(
    name="docker-listeners",
    title="Docker: listeners BOB (kafka0:29092), FRED (localhost:9092), ALICE (never-gonna-give-you-up:29094)",
    seed="seeds/003: Connecting to Kafka on Docker; Explore with kafkacat (ALICE from the issue)",
    description="""\
A broker in a container with three listeners, each advertising a different host:
  KAFKA_ADVERTISED_LISTENERS: LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092,
                              LISTENER_ALICE://never-gonna-give-you-up:29094
  KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT,LISTENER_ALICE:PLAINTEXT
  KAFKA_INTER_BROKER_LISTENER_NAME: LISTENER_BOB
  ports: ["9092:9092", "29094:29094"]
Which listener a client reaches decides which host it is handed back; where the client stands decides
whether it can use that host. The seed: clients in the Docker network use BOB (kafka0 resolves there);
clients on the Docker host use FRED (localhost:9092 is published there); "this configuration will not
work for environments where a client external to Docker and external to the host machine wants to
connect, because neither kafka0 nor localhost would be resolvable" (localhost resolves, but to the
client's own machine). ALICE works exactly where never-gonna-give-you-up is in /etc/hosts.

The nine cases (client place x listener), and two more:
  other container  BOB    kafka0:29092       healthy: kafka0 resolves in the Docker network
  other container  FRED   kafka0:9092        ADVERTISED_LOOPBACK: localhost there is the other container
  other container  ALICE  kafka0:29094       ADVERTISED_UNRESOLVABLE: never-gonna-give-you-up unknown
  Docker host      BOB    198.51.100.2:29092 ADVERTISED_UNRESOLVABLE: the host reaches the container's
                                             address (docker inspect) but cannot resolve kafka0
  Docker host      FRED   localhost:9092     healthy: localhost:9092 is published on the host
  Docker host      ALICE  localhost:29094    ADVERTISED_UNRESOLVABLE: no hosts entry on the host
  outside          BOB    kafka0:29092       BOOTSTRAP_UNRESOLVABLE: kafka0 means nothing outside Docker
  outside          FRED   192.0.2.1:9092     ADVERTISED_LOOPBACK: the seed's "will not work" case
  outside          ALICE  192.0.2.1:29094    ADVERTISED_UNRESOLVABLE: no hosts entry on that machine
  outside          BOB    192.0.2.1:29092    BOOTSTRAP_REFUSED: 29092 is not published
  laptop           ALICE  never-gonna-give-you-up:29094  healthy: its /etc/hosts maps the name to the
                                             Docker host, where 29094 is published""",
    topology=TOPOLOGY,
    brokers=(BROKER,),
    processes=(USERLAND_PROXY,),
    vantages=(
        Vantage("other-container-bob", host="other-container", bootstrap=f"{CONTAINER_NAME}:29092", expect=healthy(),
                why="The seed: \"Each Docker container will resolve kafka0 using Docker's internal network, and be "
                    "able to reach the broker.\""),
        Vantage("other-container-fred", host="other-container", bootstrap=f"{CONTAINER_NAME}:9092",
                expect=_loopback(instead=f"{CONTAINER_NAME}:29092"),
                why="The seed's kafkacat -b kafka0:9092 -L: \"broker 0 at localhost:9092\". From another container, "
                    "localhost is that container, where nothing listens. kdiag finds BOB on 29092, which works here."),
        Vantage("other-container-alice", host="other-container", bootstrap=f"{CONTAINER_NAME}:29094",
                expect=_unresolvable(ALICE_NAME, instead=f"{CONTAINER_NAME}:29092"),
                why="ALICE hands back never-gonna-give-you-up, which only a hosts entry resolves; this container "
                    "has none. BOB, on 29092 of the same container, works from here."),
        Vantage("docker-host-bob", host="docker-host", bootstrap=f"{CONTAINER_IP}:29092",
                expect=_unresolvable(CONTAINER_NAME, instead=f"{CONTAINER_IP}:9092"),
                why="The Docker host can connect to the container's address, but kafka0 is a name only Docker's "
                    "DNS inside the network knows: the bootstrap works, the advertised container name does not. "
                    "FRED, on 9092, advertises localhost:9092, which the host publishes: that one works here."),
        Vantage("docker-host-fred", host="docker-host", bootstrap="localhost:9092", expect=healthy(),
                why="The seed: \"clients running local on the Docker host machine\" use FRED; localhost:9092 is "
                    "published to the container, and the advertised localhost:9092 is the same place."),
        Vantage("docker-host-alice", host="docker-host", bootstrap="localhost:29094",
                expect=_unresolvable(ALICE_NAME, instead="localhost:9092"),
                why="29094 is published, but the host has no hosts entry for never-gonna-give-you-up. FRED "
                    "(localhost:9092) is the listener for clients on the Docker host, and kdiag points there."),
        Vantage("outside-bob", host="outside", bootstrap=f"{CONTAINER_NAME}:29092",
                expect=problems("BOOTSTRAP_UNRESOLVABLE", stages={"dns": "fail"}),
                why="The seed: kafka0, the internal Docker hostname, is not resolvable outside Docker."),
        Vantage("outside-fred", host="outside", bootstrap=f"{HOST_LAN_IP}:9092", expect=_loopback(),
                why="The seed's \"will not work\" case: the published port answers, and hands back localhost, "
                    "which on this machine is this machine."),
        Vantage("outside-alice", host="outside", bootstrap=f"{HOST_LAN_IP}:29094", expect=_unresolvable(ALICE_NAME),
                why="29094 is published, but without the hosts entry never-gonna-give-you-up does not resolve."),
        Vantage("outside-bob-port", host="outside", bootstrap=f"{HOST_LAN_IP}:29092",
                expect=problems("BOOTSTRAP_REFUSED", stages={"tcp": "fail"}),
                why="BOB's port through the Docker host's address: 29092 is not published, so nothing listens."),
        Vantage("laptop-alice", host="laptop", bootstrap=f"{ALICE_NAME}:29094", expect=healthy(),
                why="The ALICE recipe: /etc/hosts maps never-gonna-give-you-up to the Docker host, which publishes "
                    "29094; the advertised name resolves to the same place."),
    ),
)

SCENARIOS = (DOCKER_LISTENERS,)
