"""The real-broker fixture (kdiag.lab.kafka): every supported version starts from the Maven Central jars,
serves Kafka with the endpoints it was told to advertise, and leaves no java process behind."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ClusterMetadata

from kdiag.lab.kafka import (
    KAFKA_VERSION,
    BrokerSpec,
    KafkaBroker,
    KafkaCluster,
    KafkaStartError,
    Listener,
    free_ports,
    loopback_specs,
)
from probes.kafka import check_kafka, connect_secure
from tests.waiting import wait_until

pytestmark = pytest.mark.broker

EC2_INTERNAL = "ip-172-31-18-160.us-west-2.compute.internal"


def cluster_metadata(bootstrap: str) -> ClusterMetadata:
    return AdminClient({"bootstrap.servers": bootstrap, "log_level": 0}).list_topics(timeout=10)


def metadata_over_one_connection(address: str, port: int) -> dict[int, tuple[str, int]]:
    """The brokers one Metadata answer on one connection names, read with the project's own codec.

    A librdkafka client cannot be asked where the only advertised name does not resolve: since 2.10 it
    drops its bootstrap broker once a Metadata answer names only other brokers, so ``list_topics`` races
    the first answer and, when it loses, waits for a broker it can never reach (``Local: Timed out``)."""
    with connect_secure(address, port, host=address, tls=None, timeout=10) as conn:
        check, _ = check_kafka(conn, timeout=10, topics=())
    assert check.status == "ok", check.error
    return {broker.node_id: (broker.host, broker.port) for broker in check.brokers}


def advertised_endpoints(metadata: ClusterMetadata) -> dict[int, tuple[str, int]]:
    return {node_id: (broker.host, broker.port) for node_id, broker in metadata.brokers.items()}


def processes_mentioning(workdir: Path) -> list[int]:
    """Pids of live processes whose command line names ``workdir`` (a broker's -cp/config paths do)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(workdir).encode() in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def endpoints_seen_from(netns: str, address: str, port: int) -> dict[int, tuple[str, int]]:
    """``metadata_over_one_connection`` as a client inside ``netns`` gets it (the name it advertises may
    resolve there to an address that namespace cannot reach)."""
    script = (
        "import json, sys\n"
        "from tests.integration.test_kafka_fixture import metadata_over_one_connection\n"
        "endpoints = metadata_over_one_connection(sys.argv[1], int(sys.argv[2]))\n"
        "print(json.dumps([[node_id, host, port] for node_id, (host, port) in endpoints.items()]))\n"
    )
    command = ["ip", "netns", "exec", netns, sys.executable, "-c", script, address, str(port)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    return {node_id: (host, port) for node_id, host, port in json.loads(done.stdout)}


@pytest.fixture(scope="module")
def ec2_style_broker(kafka_version: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """One broker per version, shaped like the classic EC2 mistake: INTERNAL (inter-broker) on 127.0.0.1
    advertised as bound, EXTERNAL on 127.0.0.1 advertising the instance's private DNS name."""
    internal_port, external_port, controller_port = free_ports(3)
    spec = BrokerSpec(
        node_id=1,
        listeners=(
            Listener("INTERNAL", "127.0.0.1", internal_port),
            Listener("EXTERNAL", "127.0.0.1", external_port),
        ),
        advertised=(
            Listener("INTERNAL", "127.0.0.1", internal_port),
            Listener("EXTERNAL", EC2_INTERNAL, external_port),
        ),
        inter_broker_listener="INTERNAL",
        controller_port=controller_port,
    )
    workdir = tmp_path_factory.mktemp(f"ec2-style-{kafka_version}")
    with KafkaBroker.start(spec, version=kafka_version, workdir=workdir) as broker:
        yield broker


def test_broker_runs_the_requested_version_and_serves_metadata_with_its_advertised_endpoint(
    ec2_style_broker: KafkaBroker, kafka_version: str
) -> None:
    internal = ec2_style_broker.spec.listeners[0]
    with socket.create_connection((internal.host, internal.port), timeout=5):
        pass

    metadata = cluster_metadata(f"127.0.0.1:{internal.port}")

    assert advertised_endpoints(metadata) == {1: ("127.0.0.1", internal.port)}
    assert metadata.cluster_id == ec2_style_broker.cluster_id
    assert any(f"Kafka version: {kafka_version}" in line for line in ec2_style_broker.log_path.read_text().splitlines())


def test_broker_advertising_an_unresolvable_name_starts_and_hands_that_name_to_clients(
    ec2_style_broker: KafkaBroker,
) -> None:
    external = ec2_style_broker.spec.listeners[1]

    endpoints = metadata_over_one_connection("127.0.0.1", external.port)

    assert ec2_style_broker.running
    assert endpoints == {1: (EC2_INTERNAL, external.port)}


def test_session_broker_fixture_serves_the_default_version_on_its_loopback_listener(
    kafka_broker: KafkaBroker,
) -> None:
    host, port = kafka_broker.client_address

    metadata = cluster_metadata(kafka_broker.bootstrap_servers)

    assert (kafka_broker.version, host) == (KAFKA_VERSION, "127.0.0.1")
    assert advertised_endpoints(metadata) == {1: (host, port)}


@pytest.fixture
def loopback_only_netns() -> Iterator[str]:
    """A new network namespace with only ``lo`` up: a broker there binds every interface and is still
    reachable from nowhere else, and every port is free."""
    name = f"kd-kafka-fixture-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=True)


@pytest.mark.netns
def test_broker_in_a_netns_with_the_listener_host_left_to_default_advertises_the_canonical_hostname(
    loopback_only_netns: str, tmp_path: Path
) -> None:
    spec = BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),), controller_port=9093)

    with KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path, netns=loopback_only_netns):
        endpoints = endpoints_seen_from(loopback_only_netns, "127.0.0.1", 9092)

    properties = (tmp_path / "server.properties").read_text().splitlines()
    assert "listeners=PLAINTEXT://:9092,CONTROLLER://127.0.0.1:9093" in properties
    assert not any(line.startswith("advertised.listeners=") for line in properties)
    assert endpoints == {1: (socket.getfqdn(), 9092)}


def test_three_node_cluster_reports_three_brokers_in_metadata(tmp_path: Path) -> None:
    specs = loopback_specs(3)
    with KafkaCluster.start(specs, version=KAFKA_VERSION, workdir=tmp_path) as cluster:
        metadata = cluster_metadata(cluster.bootstrap_servers)

        assert advertised_endpoints(metadata) == {
            spec.node_id: ("127.0.0.1", spec.listeners[0].port) for spec in specs
        }
        assert {broker.cluster_id for broker in cluster.brokers} == {metadata.cluster_id}


def test_stop_leaves_no_java_process_behind(tmp_path: Path) -> None:
    broker = KafkaBroker.start(loopback_specs(1)[0], version=KAFKA_VERSION, workdir=tmp_path)
    assert processes_mentioning(tmp_path) == [broker.pid]

    broker.stop()
    broker.stop()

    assert not broker.running
    assert processes_mentioning(tmp_path) == []
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(broker.client_address, timeout=5)


def test_broker_is_killed_when_the_process_that_started_it_is_killed(tmp_path: Path) -> None:
    starter = subprocess.Popen(
        [sys.executable, "-c", (
            "import os, time; from pathlib import Path; from kdiag.lab.kafka import KafkaBroker, loopback_specs\n"
            "broker = KafkaBroker.start(loopback_specs(1)[0], workdir=Path(os.environ['BROKER_WORKDIR']))\n"
            "print(broker.pid, flush=True); time.sleep(600)\n"
        )],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "BROKER_WORKDIR": str(tmp_path)},
    )  # fmt: skip
    try:
        broker_pid = int(starter.stdout.readline())
        assert processes_mentioning(tmp_path) == [broker_pid]
    finally:
        os.kill(starter.pid, signal.SIGKILL)  # no atexit, no finally: only the parent-death signal is left
        starter.wait()

    wait_until(lambda: processes_mentioning(tmp_path) == [], 10, "the orphaned broker killed")


def test_broker_that_cannot_bind_its_listener_raises_with_version_workdir_and_log(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:  # bound first: the controller may not draw its port
        spec = replace(loopback_specs(1)[0], listeners=(Listener("PLAINTEXT", "127.0.0.1", taken.getsockname()[1]),))
        spec = replace(spec, advertised=spec.listeners)

        with pytest.raises(KafkaStartError) as raised:
            KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path, timeout=60)

    message = str(raised.value)
    assert re.match(rf"Kafka {re.escape(KAFKA_VERSION)}: broker 1 exited with status \d+ during start-up", message)
    assert f"(workdir {tmp_path})" in message
    assert "Address already in use" in message
    assert processes_mentioning(tmp_path) == []


def test_broker_not_ready_by_the_deadline_is_stopped_and_raises(tmp_path: Path) -> None:
    started = time.monotonic()

    with pytest.raises(KafkaStartError, match=r"broker 1 was not ready within 8s") as raised:
        KafkaBroker.start(
            loopback_specs(1)[0], version=KAFKA_VERSION, workdir=tmp_path, timeout=8, ready=lambda _: False
        )

    assert time.monotonic() - started < 8 + 6  # the deadline, then at most the stop's SIGTERM grace period
    assert 0 < len(raised.value.log_tail) <= 20
    assert processes_mentioning(tmp_path) == []


def test_cluster_with_a_node_that_cannot_start_fails_fast_and_stops_the_others(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:  # bound first: no spec below may draw its port
        specs = list(loopback_specs(3))
        blocked = Listener("PLAINTEXT", "127.0.0.1", taken.getsockname()[1])
        specs[1] = replace(specs[1], listeners=(blocked,), advertised=(blocked,))
        started = time.monotonic()

        with pytest.raises(KafkaStartError, match=r": broker 2 exited with status \d+ during start-up"):
            KafkaCluster.start(specs, version=KAFKA_VERSION, workdir=tmp_path, timeout=60)

    assert time.monotonic() - started < 30  # the failure is seen when it happens, not at the deadline
    assert processes_mentioning(tmp_path) == []
