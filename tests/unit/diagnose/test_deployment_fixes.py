"""Fixes in the deployment tool's own terms: which deployment the names give away, and what the fix says."""

from __future__ import annotations

import pytest

from kdiag.diagnose import run_rule
from kdiag.diagnose.hosts import detect_deployment
from probes.results import KafkaCheck

from .builders import bootstrap_failure, broker, cluster_report, unresolvable


@pytest.mark.parametrize(("name", "kind", "cluster", "namespace"), [
    ("my-cluster-kafka-0.my-cluster-kafka-brokers.kafka.svc", "strimzi", "my-cluster", "kafka"),
    ("my-cluster-kafka-bootstrap.kafka.svc.cluster.local", "strimzi", "my-cluster", "kafka"),
    ("my-cluster-pool-a-3.my-cluster-kafka-brokers.prod.svc.cluster.local", "strimzi", "my-cluster", "prod"),
    ("kafka-controller-0.kafka-controller-headless.default.svc.cluster.local", "bitnami_helm", "kafka", "default"),
    ("kafka-0.kafka.confluent.svc.cluster.local", "kubernetes", None, "confluent"),
    ("b-1.orders.a1b2c3.c2.kafka.eu-west-1.amazonaws.com", "msk", None, None),
    ("pkc-4nmjv.francecentral.azure.confluent.cloud", "confluent_cloud", None, None),
    ("orders-ns.servicebus.windows.net", "event_hubs", "orders-ns", None),
    ("9c95dafd9323", "docker", None, None),
])
def test_a_name_gives_its_deployment_away(name, kind, cluster, namespace):
    found = detect_deployment([name])
    assert (found.kind, found.cluster, found.namespace) == (kind, cluster, namespace)
    assert name in found.reason


def test_plain_names_assume_nothing():
    assert detect_deployment(["kafka.example.com", "ip-10-0-0-1.ec2.internal", "localhost"]) is None


def test_a_port_forward_to_strimzi_never_advertises_loopback_on_external():
    pod = "my-cluster-kafka-0.my-cluster-kafka-brokers.kafka.svc"
    report = cluster_report("localhost:9092", ["127.0.0.1"], [unresolvable(0, pod)])
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "EXTERNAL://localhost:" not in found.fix and "EXTERNAL://127.0.0.1:" not in found.fix
    assert "PLAINTEXT://localhost:9092" not in found.fix
    assert "Assumed Strimzi on Kubernetes, because " + pod in found.fix
    assert "kubectl port-forward reaches one pod" in found.fix and "advertisedHost" in found.fix
    assert "advertised.listeners=" in found.fix  # the generic lines stay


def test_bitnami_names_get_external_access_values():
    pod = "kafka-controller-0.kafka-controller-headless.default.svc.cluster.local"
    report = cluster_report("192.0.2.1:30092", ["192.0.2.1"], [unresolvable(0, pod)])
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "Assumed the Bitnami Kafka Helm chart" in found.fix
    assert "externalAccess:\n  enabled: true" in found.fix and "helm upgrade kafka " in found.fix


def test_container_names_mention_the_bitnami_image_variables():
    report = cluster_report("localhost:9092", ["127.0.0.1"], [unresolvable(1, "kafka0")])
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "KAFKA_ADVERTISED_LISTENERS" in found.fix and "KAFKA_CFG_ADVERTISED_LISTENERS" in found.fix


def test_msk_tls_port_reached_in_plaintext_names_the_port_family():
    host = "b-1.orders.a1b2c3.c2.kafka.eu-west-1.amazonaws.com"
    report = bootstrap_failure(f"{host}:9194", kafka=KafkaCheck(status="tls_expected"))
    found = [f for f in run_rule(report, "TLS_EXPECTED")]
    assert found, "TLS_EXPECTED should fire on a TLS alert"
    assert "Assumed Amazon MSK" in found[0].fix and "Port 9194 is TLS, public access" in found[0].fix


def test_msk_scram_client_on_the_tls_port_is_sent_to_9196():
    host = "b-1.orders.a1b2c3.c2.kafka.eu-west-1.amazonaws.com"
    report = cluster_report(f"{host}:9194", ["203.0.113.7"], [broker(1, host, 9194)],
                            client={"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512"})
    from kdiag.diagnose.fixes import client_settings_fix

    text = client_settings_fix(report, protocol="SASL_SSL", mechanism="SCRAM-SHA-512")
    assert "use port 9196" in text


def test_event_hubs_and_confluent_cloud_get_client_side_notes():
    from kdiag.diagnose.fixes import deployment_note

    hubs = cluster_report("orders-ns.servicebus.windows.net:9093", ["203.0.113.8"],
                          [broker(0, "orders-ns.servicebus.windows.net", 9093)])
    note = deployment_note(hubs)
    assert "sasl.username=$ConnectionString" in note and "connections.max.idle.ms=180000" in note
    cloud = cluster_report("pkc-4nmjv.francecentral.azure.confluent.cloud:9092", ["203.0.113.9"],
                           [broker(0, "b0-pkc-4nmjv.francecentral.azure.confluent.cloud")])
    assert "private DNS zone" in deployment_note(cloud)
