"""The brokers a client's debug metadata dump lists, read with the bootstrap they came through: a client bootstrapping
through loopback runs on the broker's machine (a published Docker port, a kubectl port-forward), outside the network
where a container's or a service's name resolves. The lines are the clients' own formats: kafka-python's
BrokerConnection.__repr__ (1.3's "host=%s/%s port=%d" and 1.4's "host=%s:%d") and its MetadataResponse dump, the Java
client's Node.toString in its metadata cache dump."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

KAFKA_PYTHON_13 = (
    "DEBUG:kafka.conn:<BrokerConnection node_id=bootstrap host=localhost/127.0.0.1 port=9092>: established TCP "
    "connection\n"
    "DEBUG:kafka.conn:<BrokerConnection node_id=bootstrap host=localhost/127.0.0.1 port=9092> Response 1: "
    "MetadataResponse_v0(brokers=[(node_id=0, host='{host}', port=9092)], topics=[])\n")
KAFKA_PYTHON_14 = (
    "DEBUG:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=localhost:9092 <connected> [IPv4 ('127.0.0.1', "
    "9092)]> Response 1 (3.1 ms): MetadataResponse_v1(brokers=[(node_id=1, host='{host}', port=9092, rack=None)], "
    "controller_id=1, topics=[])\n")
JAVA = ("\tbootstrap.servers = [localhost:9092]\n"
        "DEBUG [Consumer clientId=c, groupId=g] Updating last seen epoch from null to 0 for partition t-0\n"
        "DEBUG Updated cluster metadata version 2 to MetadataCache{{clusterId='x', nodes={{1={host}:9092 (id: 1 rack: "
        "null)}}, partitions=[], controller={host}:9092 (id: 1 rack: null)}}\n")


@pytest.mark.parametrize("paste", [KAFKA_PYTHON_13, KAFKA_PYTHON_14, JAVA],
                         ids=["kafka-python-1.3", "kafka-python-1.4", "java"])
@pytest.mark.parametrize("host", ["2aba43d449ac", "kafka", "my-kafka-0.my-kafka-headless.default.svc.cluster.local"],
                         ids=["container-id", "compose-service", "kubernetes-service"])
def test_a_container_or_service_name_listed_to_a_client_bootstrapping_through_loopback_likely_does_not_resolve(paste,
                                                                                                              host):
    finding = next(f for f in explained(paste.format(host=host)).findings if f.id == "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "warning"
    assert "bootstraps through loopback" in finding.explanation


def test_kafka_python_13s_connection_names_its_bootstrap():
    finding = next(f for f in explained(KAFKA_PYTHON_13.format(host="2aba43d449ac")).findings)
    assert finding.evidence["bootstrap"] == "localhost:9092"


@pytest.mark.parametrize("host", ["ip-10-0-1-5.ec2.internal", "localhost"], ids=["ec2-own-name", "loopback"])
def test_a_name_the_brokers_own_machine_resolves_is_no_container_reading(host):
    assert "ADVERTISED_UNRESOLVABLE" not in ids(explained(KAFKA_PYTHON_14.format(host=host)))


def test_a_client_bootstrapping_through_a_container_name_is_inside_that_network():
    paste = KAFKA_PYTHON_14.replace("localhost:9092", "kafka:9092").format(host="broker-1")
    assert "ADVERTISED_UNRESOLVABLE" not in ids(explained(paste))
