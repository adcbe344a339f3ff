"""LOAD_BALANCED_BOOTSTRAP: fresh connections to one bootstrap address reach different brokers."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose import run_rule
from kdiag.report import AdvertisedDetail
from probes.results import Landing

from .builders import broker, cluster_report, healthy, unresolvable, with_stage

POD = "my-cluster-kafka-{}.my-cluster-kafka-brokers.kafka.svc"


def landed(*node_ids: int | None) -> AdvertisedDetail:
    return AdvertisedDetail(3, 3, landings=tuple(Landing(n, "C1", "orders", n or 0) for n in node_ids))


def behind(report, *node_ids):  # type: ignore[no-untyped-def]
    stage = report.stage("advertised")
    return with_stage(report, "advertised", stage.status, replace(landed(*node_ids), checked=3, reachable=3))


def test_one_broker_answering_every_connection_is_no_balancer():
    assert run_rule(behind(healthy(3), 1, 1, 1, 1), "LOAD_BALANCED_BOOTSTRAP") == ()


def test_unproven_landings_say_nothing():
    assert run_rule(behind(healthy(3), None, None, 1, None), "LOAD_BALANCED_BOOTSTRAP") == ()


def test_a_balancer_in_front_of_brokers_with_addresses_of_their_own_is_an_info():
    members = [broker(n, f"kafka{n}.example.com") for n in (1, 2, 3)]
    report = behind(cluster_report("lb.example.com:9092", ["203.0.113.5"], members), 1, 2, 3, 1)
    (found,) = run_rule(report, "LOAD_BALANCED_BOOTSTRAP")
    assert found.severity == "info" and found.evidence["landed_node_ids"] == [1, 2, 3]
    assert "bootstrap only" in found.title


def test_a_broker_whose_own_name_leads_to_several_brokers_advertises_a_balancer():
    (found,) = run_rule(behind(healthy(3), 1, 2, 3, 1), "LOAD_BALANCED_BOOTSTRAP")
    assert found.severity == "error" and found.evidence["brokers_advertising_it"] == [1]


def test_brokers_advertising_the_balancer_itself_are_an_error():
    members = [broker(n, "lb.example.com", address="203.0.113.5") for n in (1, 2, 3)]
    report = behind(cluster_report("lb.example.com:9092", ["203.0.113.5"], members), 2, 3, 1, 2)
    (found,) = run_rule(report, "LOAD_BALANCED_BOOTSTRAP")
    assert found.severity == "error" and found.evidence["brokers_advertising_it"] == [1, 2, 3]
    assert "NOT_LEADER_OR_FOLLOWER" in found.explanation
    assert "advertised.listeners=INTERNAL://<broker 1's own address>:9092,EXTERNAL://lb.example.com:19092" in found.fix


def test_strimzi_pod_names_behind_a_balancer_get_the_strimzi_listener_and_the_generic_lines():
    members = [unresolvable(n, POD.format(n)) for n in (0, 1, 2)]
    report = behind(cluster_report("kafka.example.test:9092", ["192.0.2.1"], members), 0, 1, 2, 0)
    (found,) = run_rule(report, "LOAD_BALANCED_BOOTSTRAP")
    assert found.severity == "warning"
    assert "Assumed Strimzi on Kubernetes, because my-cluster-kafka-0.my-cluster-kafka-brokers.kafka.svc" in found.fix
    assert "type: loadbalancer" in found.fix and "- broker: 2\n" in found.fix
    assert "name: my-cluster\n  namespace: kafka" in found.fix
    assert "# broker 0 (node.id=0): server.properties" in found.fix
