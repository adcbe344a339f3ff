"""classify_host: what an advertised host is, read from the name alone."""

from __future__ import annotations

import pytest

from kdiag.diagnose.hosts import classify_host, is_loopback, is_nonroutable


@pytest.mark.parametrize(("host", "address", "region"), [
    ("ip-172-31-18-160.us-west-2.compute.internal", "172.31.18.160", "us-west-2"),
    ("ip-10-0-145-219.us-west-2.compute.internal", "10.0.145.219", "us-west-2"),
    ("ip-10-0-1-12.ec2.internal", "10.0.1.12", "us-east-1"),
    ("IP-10-0-1-12.EC2.INTERNAL.", "10.0.1.12", "us-east-1"),
])
def test_ec2_internal_names_are_recognised_with_their_private_ip(host: str, address: str, region: str) -> None:
    kind = classify_host(host)
    assert kind.kind == "ec2_internal"
    assert kind.address == address and kind.region == region
    assert kind.scope == "local"
    assert address in kind.description and "VPC" in kind.description


def test_ec2_resource_based_internal_names_are_ec2_internal_without_an_ip() -> None:
    kind = classify_host("i-0123456789abcdef0.us-west-2.compute.internal")
    assert kind.kind == "ec2_internal" and kind.address is None


@pytest.mark.parametrize(("host", "address"), [
    ("ec2-54-191-84-122.us-west-2.compute.amazonaws.com", "54.191.84.122"),
    ("ec2-3-80-1-2.compute-1.amazonaws.com", "3.80.1.2"),
])
def test_ec2_public_names_are_global_with_their_public_ip(host: str, address: str) -> None:
    kind = classify_host(host)
    assert kind.kind == "ec2_public" and kind.address == address and kind.scope == "global"


@pytest.mark.parametrize("host", [
    "kafka-0.kafka-headless.kafka.svc.cluster.local",
    "my-cluster-kafka-bootstrap.kafka.svc",
    "10-244-0-25.kafka.pod.cluster.local",
])
def test_kubernetes_cluster_names_are_local_to_the_cluster(host: str) -> None:
    kind = classify_host(host)
    assert kind.kind == "kubernetes" and kind.scope == "local"
    assert "Kubernetes" in kind.description


def test_kubernetes_description_names_pod_service_and_namespace() -> None:
    description = classify_host("kafka-0.kafka-headless.confluent.svc.cluster.local").description
    assert "pod kafka-0" in description
    assert "service kafka-headless" in description
    assert "namespace confluent" in description


@pytest.mark.parametrize("host", ["9c95dafd9323", "9c95dafd93239c95dafd93239c95dafd93239c95dafd93239c95dafd93239c95"])
def test_docker_container_ids_are_recognised(host: str) -> None:
    assert classify_host(host).kind == "container_id"


@pytest.mark.parametrize("host", ["kafka0", "broker", "kafka-1", "kafka_2"])
def test_bare_single_label_names_are_container_or_service_names(host: str) -> None:
    kind = classify_host(host)
    assert kind.kind == "single_label" and kind.scope == "local"
    assert host in kind.description


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]",
                                  "localhost.localdomain", "kafka.localhost"])
def test_loopback_names_and_addresses_are_loopback(host: str) -> None:
    assert is_loopback(host)
    assert classify_host(host).scope == "self"


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "[::]"])
def test_unspecified_addresses_are_nonroutable(host: str) -> None:
    assert is_nonroutable(host)
    assert classify_host(host).scope == "none"
    assert "non-routable" in classify_host(host).description


@pytest.mark.parametrize(("host", "kind"), [
    ("10.1.2.3", "private_ip"), ("172.16.0.1", "private_ip"), ("172.31.255.255", "private_ip"),
    ("192.168.1.50", "private_ip"), ("fd00::1", "private_ip"),
    ("100.64.0.1", "cgnat_ip"), ("100.127.255.254", "cgnat_ip"),
    ("169.254.169.254", "link_local"), ("fe80::1", "link_local"),
    ("192.0.2.10", "documentation_ip"), ("203.0.113.10", "documentation_ip"), ("2001:db8::1", "documentation_ip"),
    ("54.191.84.122", "public_ip"), ("8.8.8.8", "public_ip"),
    ("::ffff:10.0.0.1", "private_ip"),
])
def test_ip_literals_are_classified_by_range(host: str, kind: str) -> None:
    assert classify_host(host).kind == kind
    assert classify_host(host).is_ip


def test_private_ranges_are_local_and_public_addresses_global() -> None:
    assert classify_host("10.0.0.1").local_only
    assert classify_host("100.64.0.1").local_only
    assert not classify_host("54.191.84.122").local_only


def test_172_addresses_outside_rfc1918_are_public() -> None:
    assert classify_host("172.32.0.1").kind == "public_ip"


@pytest.mark.parametrize("host", ["kafka.example.com", "b-1.mycluster.abc123.c2.kafka.us-east-1.amazonaws.com",
                                  "pkc-4nym6.us-east-1.aws.confluent.cloud"])
def test_ordinary_dns_names_are_fqdn_and_global(host: str) -> None:
    kind = classify_host(host)
    assert kind.kind == "fqdn" and kind.scope == "global"


def test_names_that_only_look_like_ec2_ip_names_are_not_misread() -> None:
    assert classify_host("ip-300-1-1-1.ec2.internal").address is None
    assert classify_host("ip-10-0-0-1.example.com").kind == "fqdn"


def test_descriptions_are_one_line() -> None:
    for host in ("ip-172-31-18-160.us-west-2.compute.internal", "kafka0", "localhost", "0.0.0.0", "10.0.0.1",
                 "9c95dafd9323", "kafka-0.kafka.default.svc.cluster.local", "kafka.example.com"):
        assert "\n" not in classify_host(host).description
