"""The fix builders: copy-paste listener lines from what the report observed."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose.fixes import (BrokerListeners, Listener, advertise_reachable_fix, client_settings_fix,
                                  free_port_base, hosts_file_workaround, open_port_fix)
from kdiag.report import Vantage

from .builders import EC2_INTERNAL, EC2_PUBLIC, cluster_report, ec2_seed, healthy, unresolvable


def test_broker_listeners_render_server_properties_and_docker_environment() -> None:
    block = BrokerListeners(2, (Listener("INTERNAL", "SSL", 9092, "kafka2", 9092),
                                Listener("EXTERNAL", "SSL", 19093, "203.0.113.10", 19093)),
                            inter_broker="INTERNAL", publish=(19093,))
    assert block.server_properties().splitlines() == [
        "# broker 2 (node.id=2): server.properties",
        "listeners=INTERNAL://0.0.0.0:9092,EXTERNAL://0.0.0.0:19093",
        "advertised.listeners=INTERNAL://kafka2:9092,EXTERNAL://203.0.113.10:19093",
        "listener.security.protocol.map=INTERNAL:SSL,EXTERNAL:SSL",
        "inter.broker.listener.name=INTERNAL",
    ]
    assert block.docker_environment().splitlines() == [
        "# broker 2: Docker, in the broker service's environment:",
        "KAFKA_LISTENERS: INTERNAL://0.0.0.0:9092,EXTERNAL://0.0.0.0:19093",
        "KAFKA_ADVERTISED_LISTENERS: INTERNAL://kafka2:9092,EXTERNAL://203.0.113.10:19093",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: INTERNAL:SSL,EXTERNAL:SSL",
        "KAFKA_INTER_BROKER_LISTENER_NAME: INTERNAL",
        "# and in the service's ports:",
        '#   - "19093:19093"',
    ]


def test_a_listener_named_after_its_protocol_needs_no_protocol_map() -> None:
    block = BrokerListeners(0, (Listener("PLAINTEXT", "PLAINTEXT", 9092, "kafka.example.com", 9092),))
    assert "protocol.map" not in block.render() and "PROTOCOL_MAP" not in block.render()


def test_ipv6_advertised_hosts_are_bracketed() -> None:
    block = BrokerListeners(0, (Listener("PLAINTEXT", "PLAINTEXT", 9092, "2001:db8::10", 9092),))
    assert "advertised.listeners=PLAINTEXT://[2001:db8::10]:9092" in block.render()


def test_listener_protocol_follows_the_clients_security_protocol() -> None:
    report = cluster_report(f"{EC2_PUBLIC}:9094", ["54.191.84.122"], [unresolvable(0, EC2_INTERNAL, 9094)],
                            client={"security.protocol": "ssl"})
    fix = advertise_reachable_fix(report, report.cluster.brokers)
    assert f"advertised.listeners=SSL://{EC2_PUBLIC}:9094" in fix
    assert "listener.security.protocol.map=INTERNAL:SSL,EXTERNAL:SSL" in fix


def test_the_new_external_port_avoids_every_port_already_in_use() -> None:
    report = cluster_report("kafka.example.com:19092", ["203.0.113.11"], [unresolvable(0, "kafka0", 9092)])
    assert free_port_base(report, 1) == 29092


def test_unknown_outside_addresses_are_placeholders_said_to_be_replaced() -> None:
    brokers = [unresolvable(n, f"kafka{n}.corp.internal") for n in (1, 2)]
    report = cluster_report("kafka.example.com:9092", ["203.0.113.11"], brokers)
    fix = advertise_reachable_fix(report, brokers)
    assert "<address clients outside use for broker 1>" in fix
    assert "Replace each <...>" in fix


def test_hosts_file_stopgap_only_for_one_machine_setups() -> None:
    assert hosts_file_workaround(ec2_seed(), ec2_seed().cluster.brokers) == (
        "Stopgap for this machine only (tests, not production): add to /etc/hosts\n"
        f"54.191.84.122 {EC2_INTERNAL}")
    brokers = [unresolvable(n, f"ip-10-0-1-{10 + n}.ec2.internal") for n in (1, 2)]
    report = cluster_report("kafka.example.com:9092", ["203.0.113.11"], brokers)
    assert hosts_file_workaround(report, brokers) is None


def test_open_port_fix_uses_this_machines_address_and_ipv6_prefix() -> None:
    report = healthy(1)
    assert "--cidr 192.0.2.10/32" in open_port_fix(report, [("broker 1", 9092, "kafka.example.com")], "timeout")
    v6 = replace(report, vantage=Vantage("laptop", ("::1", "2001:db8::7")))
    assert "--cidr 2001:db8::7/128" in open_port_fix(v6, [("broker 1", 9092, "kafka.example.com")], "timeout")


def test_refused_fix_keeps_properties_lines_free_of_inline_comments() -> None:
    fix = open_port_fix(healthy(1), [("broker 1", 9092, "kafka.example.com")], "refused")
    for line in fix.splitlines():
        if line.strip().startswith("listeners="):
            assert "#" not in line


def test_client_settings_fix_gives_librdkafka_and_java_forms_with_placeholders_for_secrets() -> None:
    fix = client_settings_fix(healthy(1), protocol="SASL_SSL", mechanism="PLAIN")
    assert "sasl.mechanisms=PLAIN" in fix and "sasl.mechanism=PLAIN" in fix
    assert "sasl.password=<password>" in fix
    assert 'PlainLoginModule required username="<user>" password="<password>";' in fix
    assert "kdiag bootstrap kafka.example.com:9092 -X security.protocol=SASL_SSL" in fix
