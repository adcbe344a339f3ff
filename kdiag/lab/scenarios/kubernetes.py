"""A Kafka broker in a Kubernetes StatefulSet, advertising its headless-service name, published through a NodePort.

The most common Kubernetes question: a broker set up for in-cluster clients (advertised.listeners names
the pod's stable DNS name under the headless service) is then exposed with a NodePort so that someone
outside can reach it. The bootstrap through the node works; the metadata hands back a cluster.local
name that only the cluster's DNS knows.

Kubernetes is modelled with namespaces, veths and iptables, as kube-proxy and the CNI do it:

* ``kafka-0``: the broker's pod, 198.51.100.2 on the pod network.
* ``node``: the Kubernetes node, 192.0.2.1 on the office LAN and 198.51.100.1 towards its pods. It runs
  the cluster DNS (CoreDNS) at 198.51.100.1, answering the pod's name
  ``kafka-0.kafka-headless.kafka.svc.cluster.local`` and the headless service's
  ``kafka-headless.kafka.svc.cluster.local`` with the pod's address and NXDOMAIN for everything else,
  and the NodePort ``192.0.2.1:30092 -> 198.51.100.2:9092`` (kube-proxy's DNAT, masqueraded as with
  ``externalTrafficPolicy: Cluster``).
* ``app-pod``: another pod of the cluster, 198.51.100.18, using the cluster DNS.
* ``laptop``: a machine on the office LAN, 192.0.2.10, whose DNS knows nothing of ``cluster.local``.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, finding, healthy, problems

POD_NAME = "kafka-0.kafka-headless.kafka.svc.cluster.local"
SERVICE_NAME = "kafka-headless.kafka.svc.cluster.local"
POD_IP = "198.51.100.2"
CLUSTER_DNS = "198.51.100.1"
NODE_IP = "192.0.2.1"
NODE_PORT = 30092

TOPOLOGY = Topology(
    name="k8s",
    hosts=(
        Host("kafka-0", resolv=[CLUSTER_DNS]),
        Host("node", forward=True),
        Host("app-pod", resolv=[CLUSTER_DNS]),
        Host("laptop"),
    ),
    links=(
        Link("node", f"{CLUSTER_DNS}/28", "kafka-0", f"{POD_IP}/28"),
        Link("node", "198.51.100.17/28", "app-pod", "198.51.100.18/28"),
        Link("node", f"{NODE_IP}/24", "laptop", "192.0.2.10/24"),
    ),
    routes=(
        Route("kafka-0", "default", CLUSTER_DNS),
        Route("app-pod", "default", "198.51.100.17"),
    ),
    dns=(Dns("node", CLUSTER_DNS, records={POD_NAME: POD_IP, SERVICE_NAME: POD_IP}),),
    dnats=(Dnat("node", NODE_IP, NODE_PORT, POD_IP, 9092),),
)

K8S_HEADLESS_SERVICE = Scenario(
    name="k8s-headless-service",
    title="Kubernetes: a broker advertising its headless-service name, reached through a NodePort",
    seed="reference/landscape-and-failure-modes.md §2 #4: Kubernetes cluster DNS advertised through NodePort, "
         "load balancer or port-forward",
    description=f"""\
A single-broker StatefulSet kafka in namespace kafka, with a headless service kafka-headless, configured
for clients inside the cluster:
  listeners=PLAINTEXT://:9092
  advertised.listeners=PLAINTEXT://{POD_NAME}:9092
Then a NodePort service publishes it on every node at port {NODE_PORT}, for a developer outside the
cluster. From the laptop, {NODE_IP}:{NODE_PORT} connects (kube-proxy forwards it to the pod) and the
metadata comes back, so `kcat -L` works; it lists `broker 1 at {POD_NAME}:9092`, a cluster DNS name
that no resolver outside the cluster knows. Every produce and fetch then fails with librdkafka's
`Failed to resolve '{POD_NAME}:9092'` (kafkajs: `getaddrinfo ENOTFOUND`). kdiag from the laptop says
ADVERTISED_UNRESOLVABLE, names the Kubernetes name, and points at what the chart or operator must do
(an external listener per broker, advertising the node address and the NodePort). Inside the cluster,
from another pod, the same broker is healthy: the cluster DNS resolves the pod's name and the headless
service's.""",
    topology=TOPOLOGY,
    brokers=(LabBroker("kafka-0", BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),),
                                             advertised=(Listener("PLAINTEXT", POD_NAME, 9092),),
                                             controller_port=9093)),),
    vantages=(
        Vantage(
            "laptop-nodeport", host="laptop", bootstrap=f"{NODE_IP}:{NODE_PORT}",
            expect=problems(
                finding("ADVERTISED_UNRESOLVABLE", title=POD_NAME,
                        fix=(f"advertised.listeners=PLAINTEXT://{NODE_IP}:{NODE_PORT}", "Strimzi")),
                stages={"dns": "ok", "tcp": "ok", "metadata": "ok", "advertised": "fail", "roundtrip": "skip"},
            ),
            why="The NodePort reaches the broker, whose metadata names a cluster.local host: NXDOMAIN outside the "
                "cluster.",
        ),
        Vantage(
            "app-pod", host="app-pod", bootstrap=f"{SERVICE_NAME}:9092", expect=healthy(),
            why="Inside the cluster the headless service and the pod's own name both resolve through the cluster DNS.",
        ),
    ),
)

SCENARIOS = (K8S_HEADLESS_SERVICE,)
