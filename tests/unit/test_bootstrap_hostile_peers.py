"""The real ``kdiag bootstrap`` entry point against peers that are not (well-behaved) Kafka.

A scripted fake broker on loopback plays each peer; the claim is about kdiag's bounded behaviour
and the finding it reports, not about Kafka, so the real broker is not needed here.
"""

from __future__ import annotations

import io
import json
import time

from kdiag.cli import Environment, main
from tests.fakebroker import (
    API_VERSIONS,
    METADATA,
    FakeBroker,
    answer_api_versions,
    close,
    expect_request,
    respond,
    send,
    send_slowly,
)


def bootstrap(port: int, *args: str) -> tuple[int, dict, str, float]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    started = time.monotonic()
    code = main(["bootstrap", f"127.0.0.1:{port}", "--json", "--no-roundtrip", *args], env=env)
    seconds = time.monotonic() - started
    return code, json.loads(env.stdout.getvalue()), env.stderr.getvalue(), seconds


def finding_ids(report: dict) -> set[str]:
    return {f["id"] for f in report["findings"]}


def test_http_server_on_the_bootstrap_port_is_not_kafka_with_what_it_said():
    with FakeBroker([expect_request(API_VERSIONS), send(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"),
                     close()]) as peer:
        code, report, stderr, _ = bootstrap(peer.port)
    assert code == 1, stderr
    assert finding_ids(report) == {"NOT_KAFKA"}
    kafka = report["stages"][2]["detail"]["kafka"]
    assert (kafka["status"], kafka["foreign"]["kind"]) == ("not_kafka", "http")
    assert "Traceback" not in stderr


def test_tls_alert_on_the_bootstrap_port_is_tls_expected():
    with FakeBroker([expect_request(API_VERSIONS), send(bytes.fromhex("15030300020228")), close()]) as peer:
        code, report, _stderr, _ = bootstrap(peer.port)
    assert code == 1
    assert "TLS_EXPECTED" in finding_ids(report)


def test_a_declared_2gb_frame_is_refused_at_once_and_reported():
    with FakeBroker([expect_request(API_VERSIONS), send(b"\x7f\xff\xff\xff" + b"\x00" * 64)]) as peer:
        code, report, _stderr, seconds = bootstrap(peer.port, "--timeout", "5")
    assert code == 1
    assert "NOT_KAFKA" in finding_ids(report)
    assert seconds < 2, "a frame size above the maximum is refused without reading it"


def test_garbage_bytes_give_a_finding_not_a_traceback():
    with FakeBroker([expect_request(API_VERSIONS), send(b"\x00\x00\x00\x08garbage!"), close()]) as peer:
        code, report, stderr, _ = bootstrap(peer.port)
    assert code == 1
    assert "NOT_KAFKA" in finding_ids(report)
    assert "Traceback" not in stderr


def test_a_peer_sending_one_byte_a_second_is_bounded_by_the_run_timeout():
    with FakeBroker([expect_request(API_VERSIONS), send_slowly(b"\x00\x00\x00\x40" + b"\x00" * 60, 1.0)]) as peer:
        code, report, _stderr, seconds = bootstrap(peer.port, "--timeout", "2", "--connect-timeout", "1")
    assert code == 1
    assert seconds < 3.5
    kafka = report["stages"][2]["detail"]["kafka"]
    assert "slow" in kafka["error"]


def test_pinned_metadata_version_the_broker_does_not_speak_is_said_plainly():
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(((METADATA, 4, 12), (API_VERSIONS, 0, 4))))]) as peer:
        code, report, _stderr, _ = bootstrap(peer.port, "--metadata-version", "2")
    assert code == 1
    assert "Metadata v2 was asked for, but the broker speaks v4-v12" in report["stages"][2]["summary"]


def test_a_port_that_accepts_but_never_answers_is_not_kafka_not_a_silent_failure():
    with FakeBroker([expect_request(API_VERSIONS)]) as peer:
        code, report, _stderr, seconds = bootstrap(peer.port, "--timeout", "2")
    assert code == 1
    assert finding_ids(report) == {"NOT_KAFKA"}
    assert seconds < 3
