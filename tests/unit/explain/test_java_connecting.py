"""NetworkClient.initiateConnect's ``log.warn("Error connecting to node {}", node, e)``, Node printing itself as
``host:port (id: N rack: R)``: an IOException before any byte went out (the host's lookup, or a connect that failed at
once). With its exception cut from the paste, the host's kind says what failed where it can, else the readings stay
open; with the exception kept, the exception says it."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only


def error_connecting(host: str, node: int = 1, head: str = "[2026-12-07 09:14:02,118] WARN [Producer "
                     "clientId=orders-producer] ") -> str:
    return f"{head}Error connecting to node {host}:9092 (id: {node} rack: null) (org.apache.kafka.clients.NetworkClient)"


@pytest.mark.parametrize("host", [
    "f3a9c01b77de",  # a Docker container id, the broker's default hostname
    "ip-10-20-3-41.eu-west-1.compute.internal",  # an EC2 private DNS name
    "broker-1.brokers.streaming.svc.cluster.local",  # a Kubernetes service name
    "kafka-broker",  # a Compose service name
])
def test_a_default_advertised_name_that_failed_is_likely_unresolvable(host):
    finding = only(explained(error_connecting(host)), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert finding.evidence["node_id"] == 1 and finding.evidence["role"] == "advertised"
    assert "only where it surfaced" in finding.explanation


def test_an_admin_clients_line_under_a_framework_prefix_reads_the_same():
    text = ("2026-12-07 09:14:02.118  WARN 4242 [| console-admin] o.a.k.c.NetworkClient\n"
            " : [AdminClient clientId=console-admin] Error connecting to node 0c1d2e3f4a5b:9092 (id: 3 rack: null)")
    assert only(explained(text), "ADVERTISED_UNRESOLVABLE").evidence["node_id"] == 3


def test_the_unknown_host_exception_under_it_makes_it_certain():
    text = error_connecting("f3a9c01b77de") + "\njava.net.UnknownHostException: f3a9c01b77de: Name or service not known"
    finding = only(explained(text), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "error" and not finding.title.startswith("Likely")


def test_loopback_is_the_clients_own_machine():
    found = explained(error_connecting("localhost")).findings
    assert found[0].id == "ADVERTISED_LOOPBACK" and found[0].title.startswith("Likely: ")
    assert all(f.severity != "error" for f in found)


def test_an_address_needs_no_lookup_so_its_connect_failed():
    finding = only(explained(error_connecting("10.40.7.12", node=2)), "ADVERTISED_UNREACHABLE")
    assert finding.severity == "warning" and "ADVERTISED_UNRESOLVABLE" not in ids(explained(error_connecting("10.40.7.12")))


def test_a_name_of_no_telling_kind_leaves_both_readings_open():
    found = explained(error_connecting("kafka-2.streaming.example.net", node=2)).findings
    assert {f.id for f in found} == {"ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE"}
    assert all(f.severity == "warning" and f.title.startswith("Maybe: ") for f in found)


def test_a_bootstrap_connection_is_the_bootstrap_address():
    finding = only(explained(error_connecting("f3a9c01b77de", node=-1)), "BOOTSTRAP_UNRESOLVABLE")
    assert finding.severity == "warning"


def test_a_bootstrap_name_of_no_telling_kind_says_nothing_alone():
    assert explained(error_connecting("kafka.streaming.example.net", node=-1)).findings == ()


def test_a_coordinator_connection_names_its_broker():
    finding = only(explained(error_connecting("broker-1.brokers.streaming.svc", node=2147483646)),
                   "ADVERTISED_UNRESOLVABLE")
    assert finding.evidence["node_id"] == 1 and finding.evidence["role"] == "coordinator"


def test_kafka_4s_node_with_is_fenced_reads_the_same():
    text = error_connecting("f3a9c01b77de").replace("rack: null)", "rack: null isFenced: false)")
    assert only(explained(text), "ADVERTISED_UNRESOLVABLE").evidence["node_id"] == 1


@pytest.mark.parametrize("host, finding_id", [("fd00:10:20::7", "ADVERTISED_UNREACHABLE"),
                                              ("::1", "ADVERTISED_LOOPBACK")])
def test_an_ipv6_address_node_prints_unbracketed(host, finding_id):
    found = explained(error_connecting(host)).findings
    assert found[0].id == finding_id and found[0].evidence["host"] == host
