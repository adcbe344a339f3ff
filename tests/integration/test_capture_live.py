"""``kdiag bootstrap --capture`` for real, as a user runs it, with both capture backends: raw Linux packet
sockets (the default) and scapy's sniffer (``KDIAG_CAPTURE_BACKEND=scapy``).

Against a real broker: the report's ``capture`` section shows the brokers the probe found, ``--pcap-out``
writes a pcap tshark reads the same brokers from, and each packet is captured once, loopback included.
In a lab scenario (ec2-internal-hostname: the broker advertises an EC2 internal name the laptop cannot
resolve), the capture from the laptop shows that name as the broker returned it, marked unresolvable.

Runs inside the sandbox as root (live capture needs CAP_NET_RAW, the lab needs root); nothing skips.
"""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator

import pytest

from kdiag.capture.live import BACKEND_ENV, LiveCapture, has_capture_permission, interfaces_up
from kdiag.capture.pcapio import LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, open_capture, parse_tcp
from kdiag.lab.runner import LiveScenario, scenario_up
from kdiag.lab.scenarios import get_scenario
from kdiag.lab.scenarios.ec2 import INTERNAL_NAME, PUBLIC_NAME
from tests.kdiag_cli import run_kdiag

pytestmark = pytest.mark.broker

BACKENDS = ("raw", "scapy")


@pytest.fixture(scope="module", autouse=True)
def capture_privilege() -> None:
    if not has_capture_permission():
        pytest.fail("live capture tests need root or CAP_NET_RAW (run the suite as root, as CI does)", pytrace=False)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The capture backend kdiag is run with (the environment passes to the kdiag process)."""
    monkeypatch.setenv(BACKEND_ENV, request.param)
    return request.param


def tshark_path() -> str:
    path = shutil.which("tshark")
    if path is None:
        pytest.fail("tshark is not installed: run scripts/setup (Debian package tshark)", pytrace=False)
    return path


def captured_brokers(capture: dict) -> set[tuple[int, str, int]]:
    return {(b["node_id"], b["host"], b["port"]) for md in capture["metadata"] for b in md["brokers"]}


def pcap_linktype(path) -> int:
    with open(path, "rb") as stream:
        return struct.unpack("<I", stream.read(24)[20:24])[0]


def test_bootstrap_capture_json_has_the_brokers_the_report_found(kafka_broker, backend):
    run = run_kdiag("bootstrap", kafka_broker.bootstrap_servers, "--capture", "--json")
    assert run.exit_code == 0, run.stderr
    report, capture = run.report, run.report["capture"]
    assert report["cluster"]["brokers"], "the probe found no broker"
    assert capture["metadata"], "the capture decoded no Metadata response"
    assert captured_brokers(capture) == {(b["node_id"], b["host"], b["port"]) for b in report["cluster"]["brokers"]}
    sources = {"raw": "any", "scapy": ", ".join(interfaces_up())}  # one cooked socket; one socket per interface
    assert capture["source"] == f"live capture on {sources[backend]}"
    assert capture["warnings"] == [] and capture["findings"] == []
    host, port = kafka_broker.client_address
    to_broker = [f for f in capture["flows"] if f["server"] == f"{host}:{port}"]
    assert {(f["handshake"], f["syn_packets"]) for f in to_broker} == {("completed", 1)}  # each SYN seen once
    kafka = [f for f in to_broker if f["protocol"] == "kafka"]
    assert len(kafka) >= 3  # bootstrap, the advertised broker, the round trip's clients
    # librdkafka may open a connection it closes unused: nothing else but Kafka
    assert all(f["client_bytes"] == f["server_bytes"] == 0 for f in to_broker if f["protocol"] != "kafka")


@pytest.mark.parametrize("iface", [None, "lo"], ids=["all-interfaces", "lo"])
def test_pcap_out_is_a_pcap_tshark_reads_the_same_brokers_from(kafka_broker, backend, iface, tmp_path):
    host, port = kafka_broker.client_address
    path = tmp_path / "bootstrap.pcap"
    # tshark 4.0.17 decodes Metadata up to v9
    run = run_kdiag("bootstrap", kafka_broker.bootstrap_servers, "--capture", *(("--iface", iface) if iface else ()),
                    "--pcap-out", str(path), "--metadata-version", "9", "--no-roundtrip", "--json")
    assert run.exit_code == 0, run.stderr
    assert captured_brokers(run.report["capture"]) == {(1, host, port)}
    expected_linktype = LINKTYPE_LINUX_SLL if backend == "raw" and iface is None else LINKTYPE_ETHERNET
    assert pcap_linktype(path) == expected_linktype
    done = subprocess.run([tshark_path(), "-r", str(path), "-d", f"tcp.port=={port},kafka", "-Y",
                           "kafka.response_key==3", "-T", "fields", "-e", "kafka.host", "-e", "kafka.port"],
                          capture_output=True, text=True, timeout=60, check=True)
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows, f"tshark decoded no Metadata response from {path}"
    assert {(h, int(p)) for h, p in rows} == {(host, port)}
    assert len(rows) == len(run.report["capture"]["metadata"])


def echo_exchange(address: str) -> int:
    """One TCP connection to a local echo server: connect, 3 round trips, close. Returns the server port."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    server = socket.socket(family)
    server.bind((address, 0))
    server.listen()
    port = server.getsockname()[1]

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            while data := connection.recv(65536):
                connection.sendall(data)

    thread = threading.Thread(target=serve)
    thread.start()
    with socket.create_connection((address, port)) as client:
        for size in (10, 3000, 70000):
            client.sendall(b"k" * size)
            received = 0
            while received < size:
                received += len(client.recv(65536))
    thread.join(timeout=10)
    server.close()
    return port


@pytest.mark.parametrize(("backend_name", "iface"), [("raw", None), ("raw", "lo"), ("scapy", None), ("scapy", "lo")],
                         ids=["raw-all", "raw-lo", "scapy-all", "scapy-lo"])
@pytest.mark.parametrize("address", ["127.0.0.1", "::1"])
def test_each_loopback_packet_is_captured_once(backend_name, iface, address, tmp_path):
    """A packet socket sees every loopback packet twice (going out, coming in): one copy is kept."""
    path = tmp_path / "echo.pcap"
    capture = LiveCapture(iface=iface, pcap_out=str(path), backend=backend_name)
    capture.start()
    try:
        port = echo_exchange(address)
    finally:
        capture.stop()
    reader, stream = open_capture(str(path))
    with stream:
        segments = [parse_tcp(linktype, data) for _, _, linktype, data in reader]
    ours = [s for s in segments if s is not None and port in (s[2], s[3])]
    copies = Counter((s[0], s[1], s[2], s[3], s[4], s[5], s[6], len(s[7])) for s in ours)
    assert ours and max(copies.values()) == 1, [k for k, n in copies.items() if n > 1][:5]
    assert sum(1 for s in ours if s[6] & 0x02 and not s[6] & 0x10) == 1  # one SYN
    assert sum(len(s[7]) for s in ours) == 2 * (10 + 3000 + 70000)  # every byte, both ways, once
    summary = capture.summary()
    assert summary.warnings == ()


def test_the_raw_backend_captures_without_importing_scapy():
    code = ("import sys; from kdiag.capture.live import LiveCapture\n"
            "capture = LiveCapture(backend='raw'); capture.start(); capture.stop()\n"
            "print(capture.source, any(m == 'scapy' or m.startswith('scapy.') for m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "live capture on any False\n"


@pytest.fixture
def interface_down() -> Iterator[str]:
    """A veth interface, left down, in the sandbox's own namespace (deleting it deletes its peer)."""
    name = "kdiagdown0"
    subprocess.run(["ip", "link", "add", name, "type", "veth", "peer", "name", "kdiagdown1"], check=True,
                   capture_output=True)
    try:
        yield name
    finally:
        subprocess.run(["ip", "link", "del", name], check=False, capture_output=True)


def test_capturing_on_an_interface_that_is_down_is_one_line_and_exit_2(backend, interface_down):
    run = run_kdiag("bootstrap", "127.0.0.1:1", "--capture", "--iface", interface_down)
    assert (run.exit_code, run.stdout) == (2, "")
    assert run.stderr == f"kdiag: error: cannot capture on interface {interface_down}: Network is down\n"


# --- a lab scenario: the advertised broker seen on the wire from the laptop ---------------------------------


@pytest.fixture(scope="module")
def ec2_internal_hostname() -> Iterator[LiveScenario]:
    with scenario_up(get_scenario("ec2-internal-hostname")) as live:
        yield live


@pytest.mark.netns
def test_capture_from_the_laptop_shows_the_advertised_internal_name_marked_unresolvable(ec2_internal_hostname,
                                                                                       backend):
    live = ec2_internal_hostname
    run = run_kdiag("bootstrap", f"{PUBLIC_NAME}:9092", "--capture", netns=live.ns("laptop"), timeout=90)
    assert run.exit_code == 1, run.stderr  # the advertised broker is unusable from the laptop
    text = run.stdout
    assert "live capture on " in text
    assert f"    node 1  {INTERNAL_NAME}:9092  rack -  [nxdomain]" in text, text
    json_run = run_kdiag("bootstrap", f"{PUBLIC_NAME}:9092", "--capture", "--json", netns=live.ns("laptop"),
                         timeout=90)
    capture = json_run.report["capture"]
    assert captured_brokers(capture) == {(1, INTERNAL_NAME, 9092)}
    [broker] = json_run.report["cluster"]["brokers"]
    assert (broker["host"], broker["dns"]["status"]) == (INTERNAL_NAME, "nxdomain")
    assert {"host": INTERNAL_NAME, "port": 9092, "status": "nxdomain"} in capture["endpoint_status"]
