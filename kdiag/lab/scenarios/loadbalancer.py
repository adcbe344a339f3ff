"""One round-robin load balancer in front of all three brokers of a Strimzi-style Kubernetes cluster.

The Kubernetes question behind "put a LoadBalancer Service in front of Kafka": the cluster is run the
way Strimzi runs it (pods ``my-cluster-kafka-N`` behind the headless service ``my-cluster-kafka-brokers``
in namespace ``kafka``, each broker advertising its pod name on the client listener), and someone
exposes it with one ``LoadBalancer`` Service selecting every broker pod.

* ``kafka-0`` .. ``kafka-2``: the broker pods, 198.51.100.2, .18, .34 (one /28 each, like a CNI's
  point-to-point routes). Their ``/etc/hosts`` stands in for the cluster DNS: every pod name resolves.
* ``lb``: the node and its load balancer, 192.0.2.1 towards the office and the router of the pod
  network. A round-robin TCP proxy on 192.0.2.1:9092 sends each new connection to the next broker
  (:mod:`~kdiag.lab.scenarios._round_robin`), and its DNS answers ``kafka.example.test`` with 192.0.2.1.
* ``laptop``: a developer's machine, 192.0.2.10, using that DNS: it knows nothing of ``*.svc``.
* ``app-pod``: another pod, 198.51.100.50, whose hosts file knows the pod names and the balancer's name.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import (Expect, LabBroker, LabProcess, LabStep, Scenario, Vantage, finding, problems,
                                      python_module)

CLUSTER = "my-cluster"
NAMESPACE = "kafka"
NODES = (0, 1, 2)
LB_IP = "192.0.2.1"
LB_NAME = "kafka.example.test"
LAPTOP_IP = "192.0.2.10"
APP_POD_IP = "198.51.100.50"
CLIENT_PORT = 9092
REPLICATION_PORT = 9091
CONTROLLER_PORT = 9090
TOPIC = "orders"


def pod_ip(node: int) -> str:
    return f"198.51.100.{16 * node + 2}"


def pod_name(node: int) -> str:
    """Strimzi's name for broker ``node``'s pod under the headless service."""
    return f"{CLUSTER}-kafka-{node}.{CLUSTER}-kafka-brokers.{NAMESPACE}.svc"


POD_NAMES = {pod_name(node): pod_ip(node) for node in NODES}

TOPOLOGY = Topology(
    name="lbrr",
    hosts=(
        Host("laptop", resolv=[LB_IP]),
        Host("lb", forward=True),
        *(Host(f"kafka-{node}", hosts=POD_NAMES) for node in NODES),
        Host("app-pod", hosts={**POD_NAMES, LB_NAME: LB_IP}),
    ),
    links=(
        Link("laptop", f"{LAPTOP_IP}/24", "lb", f"{LB_IP}/24"),
        *(Link("lb", f"198.51.100.{16 * node + 1}/28", f"kafka-{node}", f"{pod_ip(node)}/28") for node in NODES),
        Link("lb", "198.51.100.49/28", "app-pod", f"{APP_POD_IP}/28"),
    ),
    routes=(
        *(Route(f"kafka-{node}", "default", f"198.51.100.{16 * node + 1}") for node in NODES),
        Route("app-pod", "default", "198.51.100.49"),
    ),
    dns=(Dns("lb", LB_IP, records={LB_NAME: LB_IP}),),
)


def _broker(node: int) -> LabBroker:
    replication = Listener("REPLICATION", pod_ip(node), REPLICATION_PORT)
    voters = ",".join(f"{n}@{pod_ip(n)}:{CONTROLLER_PORT}" for n in NODES)
    return LabBroker(f"kafka-{node}", BrokerSpec(
        node_id=node,
        listeners=(replication, Listener("PLAIN", "", CLIENT_PORT)),
        advertised=(replication, Listener("PLAIN", pod_name(node), CLIENT_PORT)),
        inter_broker_listener="REPLICATION", controller_host=pod_ip(node), controller_port=CONTROLLER_PORT,
        quorum_voters=voters, overrides={"offsets.topic.num.partitions": "1"},
    ))


BALANCER = LabProcess("load-balancer", "lb", python_module(
    "kdiag.lab.scenarios._round_robin", f"{LB_IP}:{CLIENT_PORT}="
    + ",".join(f"{pod_ip(node)}:{CLIENT_PORT}" for node in NODES)), listens_on=(CLIENT_PORT,))

TOPICS = LabStep("create topics", "kafka-0", python_module(
    "kdiag.lab.scenarios._topics", f"{pod_ip(0)}:{REPLICATION_PORT}", f"{TOPIC}={','.join(map(str, NODES))}",
    "__consumer_offsets=0"))

ONE_LOAD_BALANCER = Scenario(
    name="one-load-balancer",
    title="One round-robin load balancer in front of three brokers advertising their pod names",
    seed="reference/landscape-and-failure-modes.md §2 #6: one round-robin load balancer in front of all brokers",
    description=f"""\
A three-broker cluster on Kubernetes, named the way Strimzi names it ({CLUSTER}-kafka-0..2 behind the
headless service {CLUSTER}-kafka-brokers in namespace {NAMESPACE}); each broker advertises its pod name
on the client listener:
  advertised.listeners=REPLICATION://<pod IP>:9091,PLAIN://{pod_name(0)}:9092   (broker 0)
To reach it from outside, one LoadBalancer Service selects all three pods: {LB_NAME}:9092, and each new
connection goes to the next broker. From the laptop the bootstrap works (every broker answers Metadata),
so `kcat -L` looks fine, and then every produce and fetch fails: the pod names do not resolve outside
the cluster. The usual next attempt, advertising {LB_NAME}:9092 on every broker, fails too, in a
subtler way (each request lands on a random broker, which answers NOT_LEADER_OR_FOLLOWER; librdkafka
`Failed to acquire metadata: Local: Timed out`). kdiag says ADVERTISED_UNRESOLVABLE for the pod names,
and LOAD_BALANCED_BOOTSTRAP: four fresh connections to the bootstrap address reached different brokers
(proven with ListOffsets), so the balancer may serve the bootstrap but each broker needs an endpoint of
its own. The fix is given as Strimzi's external listener (type loadbalancer, one advertisedHost per
broker), with the generic server.properties lines beside it. From a pod inside the cluster the same
balancer is harmless: the pod names resolve, and LOAD_BALANCED_BOOTSTRAP is only an info.""",
    topology=TOPOLOGY,
    brokers=tuple(_broker(node) for node in NODES),
    processes=(BALANCER,),
    setup=(TOPICS,),
    vantages=(
        Vantage(
            "laptop", host="laptop", bootstrap=f"{LB_NAME}:{CLIENT_PORT}",
            expect=problems(
                finding("ADVERTISED_UNRESOLVABLE", title=pod_name(0), fix=("advertisedHost", "Assumed Strimzi")),
                finding("LOAD_BALANCED_BOOTSTRAP", title=f"{LB_NAME}:{CLIENT_PORT} is a load balancer",
                        fix=("one listener (port) per broker", "type: loadbalancer", "advertised.listeners=")),
                stages={"metadata": "ok", "advertised": "fail", "roundtrip": "skip"}),
            why="The balancer answers the bootstrap from a different broker each time; the brokers advertise pod "
                "names this machine cannot resolve.",
        ),
        Vantage(
            "app-pod", host="app-pod", bootstrap=f"{LB_NAME}:{CLIENT_PORT}", args=("--topic", TOPIC),
            expect=Expect(0, (), {"metadata": "ok", "advertised": "ok", "roundtrip": "ok"},
                          (finding("LOAD_BALANCED_BOOTSTRAP", title="used for the bootstrap only"),)),
            why="Inside the cluster every pod name resolves: the balancer only serves the first Metadata request, "
                "which is fine (an info, not a problem).",
        ),
    ),
)

SCENARIOS = (ONE_LOAD_BALANCER,)
