"""The seed's three stories: the EC2 internal hostname, Docker's FRED (localhost) and BOB (kafka0)."""

from __future__ import annotations

from kdiag.diagnose import diagnose
from kdiag.finding import Finding

from .builders import EC2_INTERNAL, EC2_PUBLIC, docker_bob_from_host, docker_fred_from_elsewhere, ec2_seed


def only(findings: tuple[Finding, ...], rule_id: str) -> Finding:
    assert [f.id for f in findings] == [rule_id], [f.id for f in findings]
    return findings[0]


# --- EC2 ------------------------------------------------------------------------------------------


def test_ec2_internal_name_is_the_one_and_only_finding() -> None:
    found = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE")
    assert found.severity == "error"
    assert found.title == f"Broker 0 advertises {EC2_INTERNAL}, which this machine cannot resolve"


def test_ec2_explanation_classifies_the_host_and_says_kcat_looks_fine() -> None:
    found = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE")
    text = found.explanation
    assert "EC2 private DNS name" in text and "172.31.18.160" in text
    assert "NXDOMAIN" in text
    assert f"bootstrapped through {EC2_PUBLIC}:9092" in text
    assert "kcat -L" in text and f"broker 0 at {EC2_INTERNAL}:9092" in text


def test_ec2_explanation_quotes_the_clients_own_errors() -> None:
    text = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE").explanation
    assert f"Failed to resolve '{EC2_INTERNAL}:9092': Name or service not known" in text
    assert "TimeoutException: Expiring 1 record(s) for test-0" in text
    assert f"Error connecting to node {EC2_INTERNAL}:9092 (id: 0 rack: null)" in text


def test_ec2_evidence_holds_node_host_port_dns_status_and_bootstrap() -> None:
    evidence = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE").evidence
    assert evidence["node_id"] == 0
    assert evidence["host"] == EC2_INTERNAL and evidence["port"] == 9092
    assert evidence["dns_status"] == "nxdomain"
    assert evidence["host_kind"] == "ec2_internal"
    assert evidence["bootstrap"] == f"{EC2_PUBLIC}:9092"


def test_ec2_fix_offers_option_1_advertising_the_public_name() -> None:
    fix = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE").fix
    assert f"advertised.listeners=PLAINTEXT://{EC2_PUBLIC}:9092" in fix
    assert f"KAFKA_ADVERTISED_LISTENERS: PLAINTEXT://{EC2_PUBLIC}:9092" in fix


def test_ec2_fix_offers_option_2_internal_plus_external_listener() -> None:
    fix = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE").fix
    assert "listeners=INTERNAL://0.0.0.0:9092,EXTERNAL://0.0.0.0:19092" in fix
    assert f"advertised.listeners=INTERNAL://{EC2_INTERNAL}:9092,EXTERNAL://{EC2_PUBLIC}:19092" in fix
    assert "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT" in fix
    assert "inter.broker.listener.name=INTERNAL" in fix
    assert f"KAFKA_ADVERTISED_LISTENERS: INTERNAL://{EC2_INTERNAL}:9092,EXTERNAL://{EC2_PUBLIC}:19092" in fix
    assert "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT" in fix
    assert "KAFKA_INTER_BROKER_LISTENER_NAME: INTERNAL" in fix
    assert "# broker 0 (node.id=0)" in fix


def test_ec2_fix_has_no_placeholders_for_a_single_broker() -> None:
    fix = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE").fix
    assert "<" not in fix


def test_ec2_fix_offers_the_hosts_file_stopgap_with_the_public_ip() -> None:
    fix = only(diagnose(ec2_seed()), "ADVERTISED_UNRESOLVABLE").fix
    assert f"54.191.84.122 {EC2_INTERNAL}" in fix


# --- Docker FRED: localhost advertised to another machine -------------------------------------------


def test_fred_localhost_advertised_to_a_remote_client_is_loopback_not_unreachable() -> None:
    found = only(diagnose(docker_fred_from_elsewhere()), "ADVERTISED_LOOPBACK")
    assert found.severity == "error"
    assert found.title == "Broker 0 advertises localhost:9092, but this client reached the cluster at kafka0:9092"


def test_fred_explanation_says_the_client_connects_to_itself() -> None:
    text = only(diagnose(docker_fred_from_elsewhere()), "ADVERTISED_LOOPBACK").explanation
    assert "its own machine, not to the broker" in text
    assert "localhost:9092/0: Connect to ipv4#127.0.0.1:9092 failed: Connection refused" in text
    assert "Connection to node 0 (localhost/127.0.0.1:9092) could not be established." in text


def test_fred_fix_advertises_the_name_the_client_used_or_adds_an_external_listener() -> None:
    fix = only(diagnose(docker_fred_from_elsewhere()), "ADVERTISED_LOOPBACK").fix
    assert "KAFKA_ADVERTISED_LISTENERS: PLAINTEXT://kafka0:9092" in fix
    assert "advertised.listeners=LOCAL://localhost:9092,EXTERNAL://kafka0:19092" in fix
    assert '"19092:19092"' in fix


# --- Docker BOB: the container name, from the Docker host --------------------------------------------


def test_bob_container_name_from_the_docker_host_is_unresolvable_naming_the_container() -> None:
    found = only(diagnose(docker_bob_from_host()), "ADVERTISED_UNRESOLVABLE")
    assert found.title == "Broker 0 advertises kafka0, which this machine cannot resolve"
    assert "single-label name (kafka0)" in found.explanation
    assert "Docker" in found.explanation
    assert found.evidence["host_kind"] == "single_label"


def test_bob_fix_is_the_seeds_two_listener_docker_setup() -> None:
    fix = only(diagnose(docker_bob_from_host()), "ADVERTISED_UNRESOLVABLE").fix
    assert "KAFKA_LISTENERS: INTERNAL://0.0.0.0:29092,EXTERNAL://0.0.0.0:9092" in fix
    assert "KAFKA_ADVERTISED_LISTENERS: INTERNAL://kafka0:29092,EXTERNAL://localhost:9092" in fix
    assert "KAFKA_INTER_BROKER_LISTENER_NAME: INTERNAL" in fix
    assert "127.0.0.1 kafka0" in fix


def test_bob_fix_does_not_offer_advertising_localhost_to_everyone() -> None:
    fix = only(diagnose(docker_bob_from_host()), "ADVERTISED_UNRESOLVABLE").fix
    assert "one listener per broker, advertising" not in fix
    assert "advertised.listeners=PLAINTEXT://localhost" not in fix


def test_the_options_of_a_fix_are_numbered_from_1_whatever_was_left_out() -> None:
    fix = only(diagnose(docker_bob_from_host()), "ADVERTISED_UNRESOLVABLE").fix
    assert "Option 1: two listeners per broker." in fix  # the one-listener option does not apply to loopback
    assert "Option 2" not in fix
