"""The hostile-peer fixture (issue 11, items 4, 5 and 8): scripted peers that misbehave in time, size
and shape, against the real ``kdiag bootstrap`` run as a child process, so that its peak memory can be
measured (its own ``VmHWM`` at exit: ``wait4``'s ru_maxrss is no measure of it, since Linux carries the
forking process's high-water mark across fork and exec, and pytest's own grows with the tests that ran
before). Each answer must come within
``--timeout`` + 1 s (beyond the interpreter's start-up, measured once), in at most 200 MB, exit 1, with
a precise finding id and its evidence. Each test is named after the attack."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from probes.codec import MetadataBroker
from tests.fakebroker import (
    API_VERSIONS,
    METADATA,
    FakeBroker,
    answer,
    answer_api_versions,
    answer_metadata,
    close,
    expect_request,
    frame,
    respond,
    send,
    send_huge,
    send_slowly,
)

REPO = Path(__file__).resolve().parents[3]
TIMEOUT = 3.0
MAX_RSS_MB = 200
CLUSTER = "MkU3OEVBNTcwNTJENDM2Qg"


@pytest.fixture(scope="module")
def startup() -> float:
    """Seconds a run that has nothing to wait for takes (a refused bootstrap port): the interpreter's
    start-up, kdiag's imports and exit, which are not part of the run's --timeout budget."""
    with closed_port() as port:
        return kdiag(port)[3]


def kdiag(port: int, *args: str, timeout: float = TIMEOUT) -> tuple[int, dict, str, float, float]:
    """exit status, the JSON report, stderr, seconds, peak RSS in MB of ``kdiag bootstrap 127.0.0.1:PORT``."""
    with tempfile.NamedTemporaryFile("r", suffix=".hwm") as hwm:
        command = [sys.executable, "-c", PEAK_RSS_WRAPPER, hwm.name, "bootstrap", f"127.0.0.1:{port}", "--json",
                   "--no-roundtrip", "--no-listener-scan", "--timeout", str(timeout), "--connect-timeout", "1", *args]
        started = time.monotonic()
        child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out: list[bytes] = []
        err: list[bytes] = []
        readers = [threading.Thread(target=lambda s=s, b=b: b.append(s.read())) for s, b in
                   ((child.stdout, out), (child.stderr, err))]
        for reader in readers:
            reader.start()
        child.wait()
        seconds = time.monotonic() - started
        for reader in readers:
            reader.join()
        peak_kib = int(hwm.read() or 0)
    assert peak_kib, f"the child wrote no peak RSS: {err[0].decode()}"
    report = json.loads(out[0]) if out[0].strip() else {}
    return child.returncode, report, err[0].decode(), seconds, peak_kib / 1024


# ``python -c`` runs kdiag as ``python -m kdiag`` would and, whatever way it ends, writes its process's
# peak RSS (VmHWM, KiB: this mm's since exec) to the file named first.
PEAK_RSS_WRAPPER = """
import re, runpy, sys
peak_file = sys.argv.pop(1)
sys.argv[0] = "kdiag"
try:
    runpy.run_module("kdiag", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status, open(peak_file, "w") as out:
        out.write(re.search(r"^VmHWM:\\s*(\\d+) kB", status.read(), re.M).group(1))
"""


def findings(report: dict) -> dict[str, dict]:
    return {f["id"]: f for f in report.get("findings", ())}


def assert_bounded(seconds: float, rss_mb: float, startup: float, timeout: float = TIMEOUT) -> None:
    assert seconds <= timeout + 1 + startup, f"{seconds:.1f}s for a {timeout}s timeout (start-up {startup:.1f}s)"
    assert rss_mb <= MAX_RSS_MB, f"peak RSS {rss_mb:.0f} MB"


def healthy_bootstrap(brokers, **metadata) -> FakeBroker:
    """A well-behaved bootstrap whose Metadata lists ``brokers``; any further connection (the load-balancer
    check, a re-ask) gets the same answers."""
    script = [respond(API_VERSIONS, answer_api_versions()),
              respond(METADATA, answer_metadata(brokers=brokers, cluster_id=CLUSTER, controller_id=1, **metadata))]
    return FakeBroker(script, default=script, strict=False)


@contextmanager
def closed_port() -> Iterator[int]:
    """A port that refuses connections, held (bound, not listening) so nothing else draws it meanwhile."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


# --- item 8: peers that misbehave in time ----------------------------------------------------------


def test_broker_that_sends_a_length_and_then_nothing_is_broker_stalled(startup):
    with FakeBroker([expect_request(API_VERSIONS), send(b"\x00\x00\x01\x00")], strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    stalled = findings(report)["BROKER_STALLED"]
    assert "4 bytes of the answer to ApiVersions arrived" in stalled["evidence"]["what"]
    assert "a frame of 256 bytes was declared" in stalled["evidence"]["what"]
    assert_bounded(seconds, rss, startup)


def test_broker_that_trickles_a_byte_a_second_is_broker_stalled_within_the_timeout(startup):
    with FakeBroker([expect_request(API_VERSIONS), send_slowly(b"\x00\x00\x00\x40" + b"\x00" * 60, 1.0)],
                    strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    assert "BROKER_STALLED" in findings(report)
    assert_bounded(seconds, rss, startup)


def test_port_whose_process_never_reads_is_broker_stalled_not_a_foreign_protocol(startup):
    with socket.create_server(("127.0.0.1", 0)) as listener:  # never accepted: the kernel alone answers
        status, report, stderr, seconds, rss = kdiag(listener.getsockname()[1])
    assert status == 1, stderr
    assert set(findings(report)) == {"BROKER_STALLED"}
    stalled = findings(report)["BROKER_STALLED"]
    assert stalled["title"].endswith("accepted the connection, but the process behind it is not reading")
    assert "no reaction within" in stalled["evidence"]["what"]
    assert_bounded(seconds, rss, startup)


def test_broker_that_closes_before_answering_api_versions_is_broker_closed_connection_naming_the_ip_limit(startup):
    with FakeBroker([close()], strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    closed = findings(report)["BROKER_CLOSED_CONNECTION"]
    assert closed["title"].endswith("accepted the connection, then closed it without answering")
    assert "max.connections.per.ip" in closed["fix"]
    assert_bounded(seconds, rss, startup)


def test_broker_that_answers_api_versions_and_then_closes_is_broker_closed_connection(startup):
    script = [respond(API_VERSIONS, answer_api_versions()), expect_request(METADATA), close()]
    with FakeBroker(script, default=[close()], strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    closed = findings(report)["BROKER_CLOSED_CONNECTION"]
    assert "answer to Metadata" in closed["evidence"]["what"]
    assert_bounded(seconds, rss, startup)


def test_advertised_broker_that_answers_garbage_is_not_kafka_with_its_node_id(startup):
    with FakeBroker([expect_request(API_VERSIONS), send(b"\x00\x00\x00\x08garbage!")], default=[close()],
                    strict=False) as garbage:
        with healthy_bootstrap([MetadataBroker(1, "127.0.0.1", garbage.port)]) as bootstrap:
            status, report, stderr, seconds, rss = kdiag(bootstrap.port)
    assert status == 1, stderr
    not_kafka = findings(report)["NOT_KAFKA"]
    assert not_kafka["evidence"]["node_id"] == 1 and not_kafka["evidence"]["port"] == garbage.port
    assert_bounded(seconds, rss, startup)


# --- malformed answers ---------------------------------------------------------------------------------


def test_wrong_correlation_id_is_not_kafka_with_the_id(startup):
    make = lambda header: frame(header.correlation_id + 1000, b"\x00\x00\x00\x00\x00\x00")  # noqa: E731
    with FakeBroker([answer(API_VERSIONS, make)], default=[answer(API_VERSIONS, make)], strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    assert "matches no request" in findings(report)["NOT_KAFKA"]["evidence"]["error"]
    assert_bounded(seconds, rss, startup)


def test_negative_array_length_is_not_kafka_with_the_length(startup):
    # a broker offering Metadata v0-v8 only (not flexible), whose Metadata v8 answer says: throttle_time_ms 0,
    # then a brokers array of length -5
    old_apis = answer_api_versions(((METADATA, 0, 8), (API_VERSIONS, 0, 2)))
    negative = lambda header: frame(header.correlation_id, b"\x00\x00\x00\x00\xff\xff\xff\xfb")  # noqa: E731
    script = [respond(API_VERSIONS, old_apis), answer(METADATA, negative)]
    with FakeBroker(script, default=script, strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    assert "negative length -5" in findings(report)["NOT_KAFKA"]["evidence"]["error"]
    assert_bounded(seconds, rss, startup)


def test_metadata_with_a_host_name_that_is_not_utf8_is_not_kafka(startup):
    broker = MetadataBroker(1, "kafka-1.example.com", 9092)

    def invalid_utf8(header) -> bytes:
        body = answer_metadata(brokers=[broker], cluster_id=CLUSTER)(header, b"")
        return frame(header.correlation_id, body.replace(b"kafka-1", b"kafk\xff\xfe", 1)) if header.api_version < 9 \
            else frame(header.correlation_id, b"\x00" + body.replace(b"kafka-1", b"kafk\xff\xfe", 1))

    script = [respond(API_VERSIONS, answer_api_versions()), answer(METADATA, invalid_utf8)]
    with FakeBroker(script, default=script, strict=False) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert status == 1, stderr
    assert "not UTF-8" in findings(report)["NOT_KAFKA"]["evidence"]["error"]
    assert_bounded(seconds, rss, startup)


# --- items 4 and 5: unbounded work and memory -------------------------------------------------------------


def test_metadata_with_100000_advertised_brokers_is_capped_counted_and_bounded(startup):
    with closed_port() as port, healthy_bootstrap([MetadataBroker(i, "127.0.0.1", port)
                                                   for i in range(1, 100_001)]) as peer:
        status, report, stderr, seconds, rss = kdiag(peer.port, timeout=10)
    assert status == 1, stderr
    assert len(report["cluster"]["brokers"]) == 128
    metadata = next(s for s in report["stages"] if s["name"] == "metadata")
    assert metadata["detail"]["kafka"]["brokers_omitted"] == 100_000 - 128
    advertised = next(s for s in report["stages"] if s["name"] == "advertised")
    assert "and 99,872 more advertised broker(s) not checked" in advertised["summary"]
    assert len(json.dumps(report)) < 2_000_000
    assert_bounded(seconds, rss, startup, timeout=10)


def test_64_brokers_each_declaring_a_63_mib_api_versions_answer_are_refused_in_bounded_memory(startup):
    with ExitStack() as stack:
        huge = [stack.enter_context(FakeBroker([send_huge(63 << 20)], default=[send_huge(63 << 20)], strict=False))
                for _ in range(64)]
        bootstrap = stack.enter_context(healthy_bootstrap([MetadataBroker(i + 1, "127.0.0.1", peer.port)
                                                           for i, peer in enumerate(huge)]))
        status, report, stderr, seconds, rss = kdiag(bootstrap.port, timeout=5)
    assert status == 1, stderr
    too_large = [f for f in report["findings"] if f["id"] == "RESPONSE_TOO_LARGE"]
    assert len(too_large) == 64
    assert "66060288 bytes" in too_large[0]["evidence"]["what"]
    assert {broker["kafka"]["foreign"]["request"] for broker in report["cluster"]["brokers"]} == {"ApiVersions"}
    assert_bounded(seconds, rss, startup, timeout=5)


def test_a_metadata_answer_for_every_topic_over_the_cap_is_followed_by_one_for_consumer_offsets_alone(startup):
    # A real cluster with some hundreds of thousands of partitions answers Metadata for every topic with more
    # than kdiag's 16 MiB cap. kdiag refuses it unread, asks a fresh connection for __consumer_offsets alone,
    # and checks the advertised brokers from that answer: a warning, and nothing else fails.
    from probes.codec import SPECS, Reader

    asked = []

    def metadata(header, body) -> bytes:
        asked.append(SPECS[METADATA].decode_request(Reader(body), header.api_version).topics)
        return answer_metadata(brokers=[MetadataBroker(1, "127.0.0.1", peer.port)], cluster_id=CLUSTER,
                               controller_id=1)(header, body)

    peer = FakeBroker([respond(API_VERSIONS, answer_api_versions()), send_huge(20 << 20)],
                      default=[respond(API_VERSIONS, answer_api_versions()), respond(METADATA, metadata)],
                      strict=False)
    with peer:
        status, report, stderr, seconds, rss = kdiag(peer.port)
    assert asked[0] == ("__consumer_offsets",), asked  # the second request; the brokers' own ask for none
    assert set(asked[1:]) <= {()}
    stages = {stage["name"]: stage for stage in report["stages"]}
    assert stages["metadata"]["status"] == "ok" and stages["advertised"]["status"] == "ok", stages
    assert "__consumer_offsets alone" in stages["metadata"]["summary"]
    too_large = findings(report)["RESPONSE_TOO_LARGE"]
    assert too_large["severity"] == "warning" and "20971520 bytes" in too_large["evidence"]["what"]
    assert status == 1 and [f["id"] for f in report["findings"]] == ["RESPONSE_TOO_LARGE"], stderr  # a problem found
    assert_bounded(seconds, rss, startup)


def test_a_host_name_longer_than_any_legal_one_is_cut_visibly():
    from probes.codec import MetadataResponse
    from probes.codec.errors import NONE
    from probes.kafka import metadata_check

    response = MetadataResponse(version=12, brokers=[MetadataBroker(1, "h" * 1_000_000, 9092, "r" * 5000)],
                                cluster_id="c" * 10_000, controller_id=1, topics=[], error=NONE)
    check = metadata_check(response, 3, 1.0)
    host = check.brokers[0].host
    assert host.startswith("h" * 255) and host.endswith("…[+999745 chars]")
    assert check.brokers[0].rack.endswith("…[+4745 chars]") and check.cluster_id.endswith("…[+9745 chars]")


# --- TLS ------------------------------------------------------------------------------------------------


def test_tls_server_that_never_finishes_its_handshake_is_bounded_with_a_finding(startup):
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.sendall(bytes.fromhex("160303"))  # the start of a TLS record, and then nothing
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        status, report, stderr, seconds, rss = kdiag(listener.getsockname()[1], "-X", "security.protocol=SSL")
    finally:
        stop.set()
        thread.join()
        listener.close()
        for conn in held:
            conn.close()
    assert status == 1, stderr
    tls = next(s for s in report["stages"] if s["name"] == "tls")
    assert tls["status"] == "fail"
    stalled = findings(report)["BROKER_STALLED"]
    assert "the TLS handshake did not finish after receiving `\\x16\\x03\\x03`" in stalled["evidence"]["what"]
    assert_bounded(seconds, rss, startup)


def test_responses_in_flight_beyond_the_run_budget_are_refused_unread(monkeypatch):
    """Many brokers each sending a Metadata answer under its own cap must still not add up past the budget."""
    import probes.kafka as kafka
    from probes.codec import MetadataRequest

    monkeypatch.setattr(kafka, "IN_FLIGHT", kafka._Budget(10_000))
    held = kafka.IN_FLIGHT
    assert held.reserve(8_000)  # other connections' answers being received
    client, server = socket.socketpair()
    try:
        conn = kafka.KafkaConnection(client)
        server.sendall(b"\x00\x00\x10\x00" + b"\x00" * 16)  # a 4096-byte answer declared, more than is left
        with pytest.raises(kafka.KafkaProbeError) as raised:
            conn.request(MetadataRequest(version=1, topics=None), timeout=2)
        assert raised.value.foreign.kind == "too_large" and "budget" in str(raised.value)
        assert raised.value.foreign.request == "Metadata"
        assert held.available() == 2_000, "what the refused answer reserved is given back"
    finally:
        client.close()
        server.close()
