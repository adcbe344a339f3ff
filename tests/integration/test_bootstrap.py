"""``kdiag bootstrap`` against real Kafka brokers (KRaft, jars from Maven Central), on loopback.

Each test starts the brokers its scenario needs with the advertised listeners of that scenario and
runs the real entry point, asserting exit status, stages and findings in the JSON report.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kdiag.lab.kafka import (DEFAULT_VERSIONS, KafkaBroker, KafkaCluster, Listener, free_ports, loopback_specs,
                             two_listener_spec)
from tests.kdiag_cli import run_kdiag
from tests.waiting import wait_until

EC2_INTERNAL = "ip-172-31-18-160.us-west-2.compute.internal"


@pytest.fixture(scope="module", params=DEFAULT_VERSIONS)
def healthy_broker(request, tmp_path_factory):
    spec = loopback_specs(1)[0]
    with KafkaBroker.start(spec, version=request.param, workdir=tmp_path_factory.mktemp(f"healthy-{request.param}")) as broker:
        yield broker


@pytest.fixture(scope="module")
def ec2_broker(tmp_path_factory):
    """The seed's EC2 broker: the client reaches it, but it advertises its internal name."""
    spec = two_listener_spec(EC2_INTERNAL)
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("ec2")) as broker:
        yield broker


@pytest.mark.broker
def test_healthy_broker_passes_every_stage_with_no_findings(healthy_broker):
    run = run_kdiag("bootstrap", healthy_broker.bootstrap_servers, "--json")
    assert run.exit_code == 0, run.stderr + run.stdout
    report = run.report
    assert [s["name"] for s in report["stages"]] == ["dns", "tcp", "metadata", "advertised", "roundtrip"]
    assert {s["status"] for s in report["stages"]} == {"ok"}, [(s["name"], s["summary"]) for s in report["stages"]]
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []
    host, port = healthy_broker.bootstrap_servers.split(":")
    assert [(b["host"], b["port"], b["dns"]["status"], b["tcp"]["status"], b["kafka"]["status"])
            for b in report["cluster"]["brokers"]] == [(host, int(port), "ok", "ok", "ok")]
    assert report["cluster"]["cluster_id"] == healthy_broker.cluster_id
    assert run.stage("roundtrip")["detail"]["offset"] is not None


@pytest.mark.broker
def test_text_format_of_a_healthy_broker_says_so_calmly(healthy_broker):
    run = run_kdiag("bootstrap", healthy_broker.bootstrap_servers, "--no-roundtrip")
    assert run.exit_code == 0, run.stderr
    assert "No problems found" in run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.broker
def test_ec2_internal_hostname_is_diagnosed_as_advertised_unresolvable(ec2_broker):
    run = run_kdiag("bootstrap", ec2_broker.bootstrap_servers, "--json")
    assert run.exit_code == 1, run.stderr
    assert run.stage("metadata")["status"] == "ok"
    assert run.stage("advertised")["status"] == "fail"
    assert run.stage("roundtrip")["status"] == "skip"
    assert "ADVERTISED_UNRESOLVABLE" in run.finding_ids()
    finding = run.finding("ADVERTISED_UNRESOLVABLE")
    assert finding["severity"] == "error"
    assert EC2_INTERNAL in finding["title"]
    assert "advertised.listeners" in finding["fix"]
    assert "KAFKA_ADVERTISED_LISTENERS" in finding["fix"]
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["host"], broker["dns"]["status"]) == (EC2_INTERNAL, "nxdomain")
    assert run.seconds < 5, "kdiag must explain this in seconds, not a client timeout"


@pytest.mark.broker
def test_the_brokers_other_listener_that_works_from_here_is_found_and_pointed_to(ec2_broker):
    """Option 2 from the wrong side: the port used advertises the internal name; INTERNAL, a port away,
    advertises an address that works here. The metadata never mentions it: only the scan finds it."""
    internal = next(listener for listener in ec2_broker.spec.listeners if listener.name == "INTERNAL")
    run = run_kdiag("bootstrap", ec2_broker.bootstrap_servers, "--json", "--listener-ports", f"{internal.port},1")
    assert run.exit_code == 1, run.stderr
    scan = run.report["other_listeners"]
    assert scan["ports"] == [internal.port, 1]
    assert [(entry["port"], entry["status"], entry["cluster_id"]) for entry in scan["listeners"]] == [
        (internal.port, "ok", ec2_broker.cluster_id)]
    assert scan["listeners"][0]["brokers"] == [
        {"node_id": ec2_broker.spec.node_id, "host": "127.0.0.1", "port": internal.port, "dns": "ok", "tcp": "ok"}]
    hint = run.finding("OTHER_LISTENER_WORKS")
    assert hint["severity"] == "info" and hint["title"].startswith(f"127.0.0.1:{internal.port} is another listener")
    assert f"Bootstrap with 127.0.0.1:{internal.port} instead" in run.finding("ADVERTISED_UNRESOLVABLE")["fix"]
    confirmed = run_kdiag("bootstrap", f"127.0.0.1:{internal.port}", "--json", "--no-roundtrip")
    assert confirmed.exit_code == 0, confirmed.stdout  # the advice holds


@pytest.mark.broker
def test_no_listener_scan_leaves_the_other_ports_alone(ec2_broker):
    run = run_kdiag("bootstrap", ec2_broker.bootstrap_servers, "--json", "--no-listener-scan")
    assert run.exit_code == 1, run.stderr
    assert run.report["other_listeners"] is None and "OTHER_LISTENER_WORKS" not in run.finding_ids()


@pytest.mark.broker
def test_advertised_port_with_nothing_behind_it_is_advertised_unreachable(tmp_path):
    external, controller, internal, dead_port = free_ports(4)
    spec = two_listener_spec("127.0.0.1", dead_port, ports=(external, controller, internal))
    with KafkaBroker.start(spec, workdir=tmp_path) as broker:
        run = run_kdiag("bootstrap", broker.bootstrap_servers, "--json")
    assert run.exit_code == 1, run.stderr
    assert "ADVERTISED_UNREACHABLE" in run.finding_ids()
    [advertised] = run.report["cluster"]["brokers"]
    assert (advertised["port"], advertised["dns"]["status"], advertised["tcp"]["status"]) == (dead_port, "ok", "refused")
    assert "ADVERTISED_UNRESOLVABLE" not in run.finding_ids()


@pytest.mark.broker
def test_broker_advertising_another_brokers_address_is_caught_as_duplicate_and_wrong_broker(tmp_path):
    ports = free_ports(9)
    specs = list(loopback_specs(3, ports=ports[:6]))
    # Every node keeps a correct INTERNAL listener for inter-broker traffic; node 3's client
    # listener advertises node 2's host:port.
    internal = [Listener("INTERNAL", "127.0.0.1", port) for port in ports[6:]]
    clients = [replace(s.listeners[0], name="CLIENT") for s in specs]
    advertised = [clients[0], clients[1], clients[1]]
    specs = [replace(s, listeners=(c, i), advertised=(i, a), inter_broker_listener="INTERNAL")
             for s, c, i, a in zip(specs, clients, internal, advertised)]
    with KafkaCluster.start(specs, workdir=tmp_path):
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{internal[0].port}"})
        admin.create_topics([NewTopic("spread", num_partitions=6, replication_factor=1)])["spread"].result(30)
        run = run_kdiag("bootstrap", f"127.0.0.1:{clients[0].port}", "--json", "--no-roundtrip")
    assert run.exit_code == 1, run.stderr
    ids = run.finding_ids()
    assert "ADVERTISED_DUPLICATE" in ids
    assert "ADVERTISED_WRONG_BROKER" in ids
    wrong = run.finding("ADVERTISED_WRONG_BROKER")
    assert wrong["evidence"]["node_id"] == 3
    brokers = {b["node_id"]: b for b in run.report["cluster"]["brokers"]}
    assert brokers[3]["identity"]["status"] == "wrong_broker"
    assert brokers[1]["identity"]["status"] == "ok"


@pytest.mark.broker
def test_a_metadata_answer_over_the_cap_is_followed_by_one_for_consumer_offsets_alone(tmp_path, monkeypatch):
    """A real broker's answer for every topic, over kdiag's Metadata cap (lowered here from 16 MiB to 4 KiB,
    as a cluster with some hundreds of thousands of partitions passes the real one): kdiag asks a fresh
    connection for __consumer_offsets alone and checks the broker from that answer, its identity included."""
    from confluent_kafka.admin import AdminClient, NewTopic

    from kdiag.orchestrate import BootstrapOptions, run_bootstrap
    from kdiag.target import parse_bootstrap
    from probes import limits
    from probes.codec import MetadataRequest

    with KafkaBroker.start(loopback_specs(1)[0], workdir=tmp_path) as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        names = [f"orders-{n:03d}" for n in range(100)]
        for future in admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1)
                                           for name in names]).values():
            future.result(60)
        options = BootstrapOptions(targets=parse_bootstrap(broker.bootstrap_servers), timeout=60.0)
        first = run_bootstrap(options)  # its coordinator check makes the broker create __consumer_offsets
        assert first.findings == () and len(first.cluster.topics) >= 100, first.findings
        wait_until(lambda: "__consumer_offsets" in admin.list_topics(timeout=10).topics, 30, "__consumer_offsets",
                   step=0.2)
        monkeypatch.setitem(limits.RESPONSE_SIZE, MetadataRequest.API_KEY, 4096)
        report = run_bootstrap(options)

    metadata = report.stage("metadata")
    assert metadata.status == "ok" and "__consumer_offsets alone" in metadata.summary, metadata.summary
    assert [topic.name for topic in report.cluster.topics] == ["__consumer_offsets"]
    (checked,) = report.cluster.brokers
    assert checked.kafka.ok and checked.identity.status == "ok" and checked.identity.topic == "__consumer_offsets"
    assert report.stage("advertised").status == "ok" and report.stage("roundtrip").status == "ok"
    (too_large,) = report.findings
    assert too_large.id == "RESPONSE_TOO_LARGE" and too_large.severity == "warning"
    assert "above the 4096-byte cap kdiag sets for an answer to Metadata" in too_large.evidence["what"]
