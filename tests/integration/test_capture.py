"""The capture path against a real broker: tcpdump captures of real clients, decoded by kdiag and
cross-checked against tshark's Kafka dissector, and a live capture around kdiag's own probe.

Runs as root (tcpdump and the live sniffer need CAP_NET_RAW) on loopback. Nothing skips: a missing
tool or privilege fails the test with what to install or grant.

What tshark 4.0.17 (Debian 12) can check: it decodes Metadata up to v9. kcat -L sends Metadata v4,
which it decodes fully. confluent-kafka sends v13: tshark flags those frames "Unsupported Metadata
version" and still reads the broker array of the responses whose request it could parse (the layout
is v9's), but a v13 request for no topics defeats it, and it leaves that response "[Request missing]"
and undecoded. So there, every response tshark decodes must be decoded identically by kdiag, which
decodes the others too. kdiag's own codec session asks for v9 explicitly. In tshark's output
``kafka.node_id`` also carries each response's controller id, after its brokers.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kdiag.capture.pcapio import FIN, RST, CaptureFormatError, CaptureReader, parse_tcp
from kdiag.capture.session import analyse_file, finish_live_capture, start_live_capture
from kdiag.capture.live import has_capture_permission
from kdiag.capture.model import CaptureSummary
from kdiag.render.pcap import render_text
from kdiag.lab.kafka import KafkaBroker, two_listener_spec
from probes.codec import ApiVersionsRequest, KafkaClientProtocol, MetadataRequest
from tests.waiting import wait_until

pytestmark = pytest.mark.broker


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: run scripts/setup (Debian package {name})", pytrace=False)
    return path


@pytest.fixture(scope="module", autouse=True)
def capture_privilege() -> None:
    if not has_capture_permission():
        pytest.fail("capture tests need root or CAP_NET_RAW (run the suite as root, as CI does)", pytrace=False)


@contextmanager
def tcpdump(path: Path, port: int) -> Iterator[None]:
    """``tcpdump -i lo -w path tcp port N`` around the block. --immediate-mode: without it, packets
    still in the kernel's ring when tcpdump gets SIGINT are lost; -Z root: pytest's tmp dirs are
    not writable by the tcpdump user it would drop to."""
    process = subprocess.Popen([require_tool("tcpdump"), "-i", "lo", "--immediate-mode", "-U", "-Z", "root",
                                "-w", str(path), f"tcp port {port}"], stderr=subprocess.PIPE)
    assert process.stderr is not None
    line = process.stderr.readline().decode(errors="replace")
    if "listening on" not in line:
        process.kill()
        pytest.fail(f"tcpdump did not start: {line.strip()}", pytrace=False)
    try:
        yield
        wait_until(lambda: connections_closed(path), 10, f"every connection in {path.name} closed both ways")
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=10)


def connections_closed(path: Path) -> bool:
    """The capture holds a connection, and every one it holds was closed both ways (a FIN from each side,
    or an RST): tcpdump has written the last FIN/ACKs (-U writes each packet as it comes)."""
    ends: dict[frozenset, set] = {}
    try:
        with path.open("rb") as stream:
            for _number, _time, linktype, data in CaptureReader(stream, name=path.name):
                segment = parse_tcp(linktype, data)
                if segment is None or segment[6] < 0:
                    continue
                src, dst, sport, dport, _seq, _ack, flags = segment[:7]
                closed = ends.setdefault(frozenset({(src, sport), (dst, dport)}), set())
                if flags & RST:
                    closed.update({"rst", (src, sport), (dst, dport)})
                elif flags & FIN:
                    closed.add((src, sport))
    except CaptureFormatError:  # not even the file header yet
        return False
    return bool(ends) and all(len(closed - {"rst"}) == 2 for closed in ends.values())


def tshark_metadata(path: Path, port: int) -> list[tuple[int, list[int], list[str], list[int]]]:
    """Per frame holding Metadata responses: (frame number, node ids, hosts, ports) as tshark reads them."""
    done = subprocess.run(
        [require_tool("tshark"), "-r", str(path), "-d", f"tcp.port=={port},kafka", "-Y", "kafka.response_key==3",
         "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,", "-e", "frame.number", "-e", "kafka.node_id",
         "-e", "kafka.host", "-e", "kafka.port"], capture_output=True, text=True, check=True)
    rows = []
    for line in done.stdout.splitlines():
        frame, node_ids, hosts, ports = line.split("\t")
        rows.append((int(frame), [int(n) for n in node_ids.split(",") if n], [h for h in hosts.split(",") if h],
                     [int(p) for p in ports.split(",") if p]))
    return rows


def kdiag_metadata(summary: CaptureSummary) -> list[tuple[int, list[int], list[str], list[int]]]:
    """The same view of kdiag's decode: per frame, each response's node ids followed by its controller."""
    frames: dict[int, tuple[list[int], list[str], list[int]]] = {}
    for md in summary.metadata:
        node_ids, hosts, ports = frames.setdefault(md.packet, ([], [], []))
        node_ids.extend([b.node_id for b in md.brokers] + ([md.controller_id] if md.api_version >= 1 else []))
        hosts.extend(b.host for b in md.brokers)
        ports.extend(b.port for b in md.brokers)
    return [(frame, *values) for frame, values in sorted(frames.items())]


def expected_brokers(broker) -> list[tuple[int, str, int]]:
    host, port = broker.client_address
    return [(1, host, port)]


def test_kcat_metadata_session_decodes_as_tshark_does(kafka_broker, tmp_path):
    host, port = kafka_broker.client_address
    path = tmp_path / "kcat.pcap"
    with tcpdump(path, port):
        done = subprocess.run([require_tool("kcat"), "-b", f"{host}:{port}", "-L"], capture_output=True, text=True,
                              timeout=60)
    assert done.returncode == 0, done.stderr
    summary = analyse_file(str(path), keep_events=100)
    assert summary.metadata, "kdiag decoded no Metadata response from kcat -L"
    assert {(b.node_id, b.host, b.port) for md in summary.metadata for b in md.brokers} == set(
        expected_brokers(kafka_broker))
    assert {md.api_version for md in summary.metadata} <= set(range(10)), "kcat now asks for Metadata > v9"
    assert kdiag_metadata(summary) == tshark_metadata(path, port)
    assert summary.warnings == ()
    assert [f.protocol for f in summary.flows] == ["kafka"]


PRODUCE_CONSUME = """
import sys, time
import confluent_kafka as ck
bootstrap = sys.argv[1]
producer = ck.Producer({"bootstrap.servers": bootstrap})
for i in range(5):
    producer.produce("kdiag-capture", b"value-%d" % i)
assert producer.flush(20) == 0
consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "kdiag-capture", "auto.offset.reset": "earliest"})
consumer.subscribe(["kdiag-capture"])
got, deadline = 0, time.time() + 30
while got < 5 and time.time() < deadline:
    message = consumer.poll(1)
    if message is not None and not message.error():
        got += 1
consumer.close()
print(got)
"""


def test_confluent_kafka_producer_and_consumer_session_decodes_as_tshark_does(kafka_broker, tmp_path):
    host, port = kafka_broker.client_address
    path = tmp_path / "produce-consume.pcap"
    with tcpdump(path, port):
        done = subprocess.run([sys.executable, "-c", PRODUCE_CONSUME, f"{host}:{port}"], capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "5", done.stderr
    summary = analyse_file(str(path))
    assert len(summary.metadata) >= 2
    assert {(b.node_id, b.host, b.port) for md in summary.metadata for b in md.brokers} == set(
        expected_brokers(kafka_broker))
    decoded_by_tshark = tshark_metadata(path, port)
    assert decoded_by_tshark, "tshark decoded none of the Metadata responses"
    by_kdiag = kdiag_metadata(summary)
    assert [row for row in decoded_by_tshark if row not in by_kdiag] == []
    assert {md.api_version for md in summary.metadata} == {13}, "librdkafka changed its Metadata version"
    requests = sum(1 for flow in summary.flows for api in flow.apis if api.startswith("Metadata"))
    assert len(summary.metadata) >= requests  # every connection's Metadata answers, not only tshark's
    apis = {api.split()[0] for flow in summary.flows for api in flow.apis}
    assert {"ApiVersions", "Metadata", "Produce", "FindCoordinator", "Fetch"} <= apis
    assert [(c.node_id, c.host, c.port) for c in summary.coordinators if c.error == "NONE"][-1] == (
        1, host, port)
    assert {f.protocol for f in summary.flows} == {"kafka"}
    assert summary.problems == ()


def metadata_v9_session(host: str, port: int) -> None:
    """ApiVersions v3 then Metadata v9, by kdiag's own codec over a plain socket."""
    protocol = KafkaClientProtocol(client_id="kdiag-it")
    with socket.create_connection((host, port), timeout=10) as sock:
        for request in (ApiVersionsRequest(version=3), MetadataRequest(version=9)):
            _, data = protocol.send_request(request)
            sock.sendall(data)
            responses = []
            while not responses:
                chunk = sock.recv(65536)
                assert chunk, "the broker closed the connection"
                responses = protocol.receive_bytes(chunk)


def test_own_codec_metadata_v9_session_decodes_as_tshark_does(kafka_broker, tmp_path):
    host, port = kafka_broker.client_address
    path = tmp_path / "codec-v9.pcap"
    with tcpdump(path, port):
        metadata_v9_session(host, port)
    summary = analyse_file(str(path), keep_events=100)
    assert [md.api_version for md in summary.metadata] == [9]
    assert kdiag_metadata(summary) == tshark_metadata(path, port)
    assert summary.metadata[0].cluster_id == kafka_broker.cluster_id
    assert [(e.api, e.kind) for e in summary.timeline if e.api] == [
        ("ApiVersions", "request"), ("ApiVersions", "response"), ("Metadata", "request"), ("Metadata", "response")]


def test_live_capture_around_the_bootstrap_probe_sees_the_advertised_brokers(kafka_broker, tmp_path):
    from kdiag import orchestrate
    from kdiag.target import parse_bootstrap

    pcap_out = tmp_path / "live.pcap"
    # Metadata v9 (kdiag bootstrap --metadata-version 9), so tshark can check the written pcap
    options = orchestrate.BootstrapOptions(targets=parse_bootstrap(kafka_broker.bootstrap_servers), timeout=60.0,
                                           roundtrip=False, metadata_version=9)
    capture = start_live_capture(options.targets, iface="lo", pcap_out=str(pcap_out))
    try:
        report = orchestrate.run_bootstrap(options)
    finally:
        summary = finish_live_capture(capture, report if "report" in locals() else None)
    assert report.cluster is not None
    advertised = {(b.node_id, b.host, b.port) for b in report.cluster.brokers}
    assert advertised == set(expected_brokers(kafka_broker))
    assert summary.metadata, "the live capture decoded no Metadata response"
    assert {(b.node_id, b.host, b.port) for md in summary.metadata for b in md.brokers} == advertised
    host, port = kafka_broker.client_address
    assert all(f.protocol == "kafka" for f in summary.flows if f.server == f"{host}:{port}")
    assert summary.advertised_connections and {c.handshake for c in summary.advertised_connections} == {"completed"}
    assert summary.findings == () and summary.warnings == ()
    # --pcap-out is a standard pcap: kdiag and tshark read the same broker list from it
    from_file = analyse_file(str(pcap_out))
    assert kdiag_metadata(from_file) == tshark_metadata(pcap_out, port)
    assert len(from_file.metadata) == len(summary.metadata)
    assert os.path.getsize(pcap_out) > 24


@pytest.fixture(scope="module")
def internal_name_broker(tmp_path_factory):
    """A lab scenario: the client's listener (EXTERNAL) advertises a name that does not resolve here,
    like an EC2 internal name seen from outside the VPC."""
    spec = two_listener_spec("kafka-1.internal")
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("internal-name")) as broker:
        yield broker


def test_live_capture_marks_the_advertised_host_the_run_could_not_resolve(internal_name_broker):
    from kdiag import orchestrate
    from kdiag.target import parse_bootstrap

    host, port = internal_name_broker.client_address
    options = orchestrate.BootstrapOptions(targets=parse_bootstrap(f"{host}:{port}"), timeout=60.0, roundtrip=False)
    capture = start_live_capture(options.targets, iface="lo")
    try:
        report = orchestrate.run_bootstrap(options)
    finally:
        summary = finish_live_capture(capture, report if "report" in locals() else None)
    assert "ADVERTISED_UNRESOLVABLE" in {f.id for f in report.findings}
    assert [(b.node_id, b.host, b.port) for md in summary.metadata for b in md.brokers][:1] == [
        (1, "kafka-1.internal", port)]
    assert summary.status_of("kafka-1.internal", port) == "nxdomain"
    text = render_text(summary)
    assert f"      node 1  kafka-1.internal:{port}  rack -  [nxdomain]" in text
    assert f"  port {port} via {host}:{port}" in text
