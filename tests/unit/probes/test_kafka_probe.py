"""``probes.kafka`` against a scripted fake broker on loopback: the protocol corners a real broker
rarely shows on demand (an old ApiVersions, foreign protocols, hostile frame sizes, slow or silent
peers, a SASL listener)."""

from __future__ import annotations

import http.server
import re
import socket
import threading
import time
import tracemalloc

import pytest

from probes import tcp
from probes.codec import MetadataBroker, MetadataPartition, MetadataTopic, RequestHeader, kafka_error
from probes.kafka import KafkaConnection, KafkaProbeError, check_kafka
from probes.results import KafkaBroker
from tests.fakebroker import (
    API_VERSIONS,
    METADATA,
    SASL_HANDSHAKE,
    FakeBroker,
    answer_api_versions,
    answer_metadata,
    api_versions_response,
    close,
    expect_request,
    respond,
    response_frame,
    sasl_handshake_response,
    send,
    send_slowly,
    sleep,
    unsupported_api_versions_response,
)

TIMEOUT = 2.0

# Where a test expects "ok" it asserts so inside the ``with`` block: if kdiag gives up early, its own
# error is what the failure shows, not the fake broker's complaint that its script did not finish.

TWO_BROKERS = (MetadataBroker(1, "k1.lan", 9092, "r1"), MetadataBroker(2, "k2.lan", 9093, None))
ORDERS = MetadataTopic(kafka_error(0), "orders", (
    MetadataPartition(kafka_error(0), 0, 1, (1, 2), (1, 2)),
    MetadataPartition(kafka_error(5), 1, -1, (2,), ()),
))
HEALTHY_METADATA = answer_metadata(brokers=TWO_BROKERS, cluster_id="lab-cluster", controller_id=1, topics=(ORDERS,))


def connect(broker: FakeBroker) -> KafkaConnection:
    result, sock = tcp.connect("127.0.0.1", broker.port, timeout=TIMEOUT)
    assert result.ok, result
    return KafkaConnection(sock)


def run_check(broker: FakeBroker, *, timeout: float = TIMEOUT, **kwargs):
    with connect(broker) as conn:
        started = time.monotonic()
        check, response = check_kafka(conn, timeout=timeout, **kwargs)
        return check, response, time.monotonic() - started


# --- ApiVersions negotiation --------------------------------------------------------------------


def test_api_versions_unsupported_version_is_retried_at_the_brokers_highest_version_then_metadata_proceeds():
    with FakeBroker([
        respond(API_VERSIONS, lambda header, body: unsupported_api_versions_response(max_version=2)),
        respond(API_VERSIONS, answer_api_versions()),
        respond(METADATA, HEALTHY_METADATA),
    ]) as broker:
        check, response, _elapsed = run_check(broker)
        assert check.status == "ok", check.error

    sent = [(h.api_key, h.api_version) for h in broker.requests_on(0)]
    assert sent == [(API_VERSIONS, 4), (API_VERSIONS, 2), (METADATA, 12)]
    assert check.api_versions_version == 2
    assert check.metadata_version == 12
    assert response.cluster_id == "lab-cluster"


def test_api_versions_answered_first_time_is_not_retried():
    with FakeBroker([respond(API_VERSIONS, answer_api_versions()), respond(METADATA, HEALTHY_METADATA)]) as broker:
        check, _response, _elapsed = run_check(broker)
        assert check.status == "ok", check.error

    assert [h.api_version for h in broker.requests_on(0) if h.api_key == API_VERSIONS] == [4]
    assert check.api_versions_version == 4


def test_metadata_version_follows_the_range_the_broker_offers():
    old_broker = ((API_VERSIONS, 0, 2), (METADATA, 0, 7))
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(old_broker)), respond(METADATA, HEALTHY_METADATA)]) as broker:
        check, _response, _elapsed = run_check(broker)
        assert check.status == "ok", check.error

    assert broker.requests_on(0)[-1].api_version == 7
    assert check.metadata_version == 7


# --- the Metadata answer ------------------------------------------------------------------------


def test_metadata_with_ten_brokers_is_reported_broker_by_broker():
    brokers = tuple(MetadataBroker(100 + i, f"kafka-{i}.prod.example", 9092 + i, f"az{i % 3}" if i % 2 else None)
                    for i in range(10))
    with FakeBroker([
        respond(API_VERSIONS, answer_api_versions()),
        respond(METADATA, answer_metadata(brokers=brokers, cluster_id="big", controller_id=105, topics=(ORDERS,))),
    ]) as broker:
        check, response, _elapsed = run_check(broker)
        assert check.status == "ok", check.error

    assert response.brokers == brokers
    assert check.brokers == tuple(KafkaBroker(b.node_id, b.host, b.port, b.rack) for b in brokers)
    assert check.controller_id == 105
    assert check.cluster_id == "big"
    [orders] = check.topics
    assert [(p.partition, p.leader_id, p.error) for p in orders.partitions] == [
        (0, 1, "NONE"), (1, -1, "LEADER_NOT_AVAILABLE")]


# --- foreign protocols ----------------------------------------------------------------------------


def test_tls_alert_answer_reports_tls_expected_with_a_tls_alert():
    alert = bytes.fromhex("15 03 03 00 02 02 28")  # fatal handshake_failure
    with FakeBroker([expect_request(API_VERSIONS), send(alert), close()]) as broker:
        check, response, elapsed = run_check(broker)

    assert check.status == "tls_expected"
    assert check.foreign.kind == "tls_alert"
    assert "TLS" in check.error
    assert response is None
    assert elapsed < 1.0


def test_http_answer_reports_not_kafka_with_http():
    http = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    with FakeBroker([expect_request(API_VERSIONS), send(http), close()]) as broker:
        check, _response, _elapsed = run_check(broker)

    assert check.status == "not_kafka"
    assert check.foreign.kind == "http"
    assert "400 Bad Request" in check.foreign.description


def test_ssh_banner_sent_on_accept_reports_not_kafka():
    with FakeBroker([send(b"SSH-2.0-OpenSSH_9.2p1\r\n")]) as broker:
        check, _response, _elapsed = run_check(broker)

    assert check.status == "not_kafka"
    assert check.foreign.kind == "ssh"
    assert "OpenSSH_9.2p1" in check.foreign.description


# --- hostile and slow peers -----------------------------------------------------------------------


def test_two_gigabyte_frame_length_is_not_kafka_in_bounded_time_and_memory():
    with FakeBroker([expect_request(API_VERSIONS), send(bytes.fromhex("7f ff ff ff") + b"\x00" * 65536)]) as broker:
        tracemalloc.start()
        try:
            check, _response, elapsed = run_check(broker)
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()

    assert check.status == "not_kafka"
    assert "2147483647 bytes declared" in check.error
    assert check.foreign.kind == "binary"
    assert elapsed < 1.0
    assert peak < 4 * 1024 * 1024


def test_peer_sending_one_byte_a_second_ends_within_the_timeout_naming_the_slowness():
    answer = response_frame(RequestHeader(API_VERSIONS, 4, 1, "kdiag"), api_versions_response(4))
    with FakeBroker([expect_request(API_VERSIONS), send_slowly(answer, 1.0)]) as broker:
        check, _response, elapsed = run_check(broker, timeout=1.5)

    assert elapsed < 1.5 + 0.5
    assert check.status == "error"
    assert re.search(r"only \d+ bytes arrived within 1\.\d+s \(a very slow or stalled peer\)", check.error)


def test_silent_peer_ends_within_the_timeout_as_not_kafka_saying_nothing_came_back():
    with FakeBroker([expect_request(API_VERSIONS)]) as broker:
        check, _response, elapsed = run_check(broker, timeout=0.8)

    assert elapsed < 0.8 + 0.5
    assert (check.status, check.foreign.kind) == ("not_kafka", "silent")
    assert re.search(r"no answer to ApiVersions within 0\.\d+s", check.error)
    assert "sent nothing back, and closed it when kdiag closed its side" in check.foreign.description


def test_a_port_whose_process_never_reads_is_hung_within_the_timeout_not_a_foreign_protocol():
    # listen() and never accept(): the kernel completes the handshake and buffers the request, as it does
    # for a frozen broker; nothing reads it, so nothing reacts when kdiag closes its side either
    with socket.create_server(("127.0.0.1", 0)) as listener:
        result, sock = tcp.connect("127.0.0.1", listener.getsockname()[1], timeout=TIMEOUT)
        assert result.ok, result
        with KafkaConnection(sock) as conn:
            started = time.monotonic()
            check, _response = check_kafka(conn, timeout=1.0)
            elapsed = time.monotonic() - started

    assert elapsed < 1.0 + 0.2
    assert (check.status, check.foreign.kind) == ("error", "hung")
    assert re.search(r"no answer to ApiVersions within 0\.8s, and no reaction within 0\.2s", check.foreign.description)
    assert check.foreign.description.endswith("the process behind the port is not reading it (frozen or hung)")


def test_a_server_that_answers_only_when_kdiag_closes_its_side_is_named_by_that_answer():
    # Python's http.server waits for the end of a request line no Kafka request has; at the end of the
    # stream it answers 400 for what it got, as HTTP/0.9 (no status line: an HTML page alone)
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # the test's output stays quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        result, sock = tcp.connect("127.0.0.1", server.server_address[1], timeout=TIMEOUT)
        assert result.ok, result
        with KafkaConnection(sock) as conn:
            check, _response = check_kafka(conn, timeout=1.0)
    finally:
        server.shutdown()
        server.server_close()

    assert (check.status, check.foreign.kind) == ("not_kafka", "text")
    assert check.foreign.description.startswith("no answer to ApiVersions within 0.8s; only when kdiag closed its "
                                                "side of the connection, bytes that do not frame as Kafka ('<!DOCTYPE")
    assert check.foreign.preview.startswith("<!DOCTYPE HTML")


def test_peer_closing_before_any_answer_is_an_error_not_a_hang():
    with FakeBroker([expect_request(API_VERSIONS), close()]) as broker:
        check, _response, elapsed = run_check(broker)

    assert check.status == "error"
    assert "closed the connection" in check.error
    assert check.foreign.kind == "closed"
    assert check.foreign.description.endswith("(kdiag connected from 127.0.0.1)")
    assert elapsed < 1.0


# --- SASL listeners -------------------------------------------------------------------------------


@pytest.mark.parametrize("handshake_error", [0, 33], ids=["plain_enabled", "plain_not_enabled"])
def test_listener_closing_on_metadata_but_answering_sasl_handshake_reports_auth_required(handshake_error):
    mechanisms = ["PLAIN", "SCRAM-SHA-512"]
    with FakeBroker(
        # a SASL listener: ApiVersions is answered, Metadata before authenticating closes (no bytes)
        [respond(API_VERSIONS, answer_api_versions()), expect_request(METADATA), sleep(0.1), close()],
        [respond(SASL_HANDSHAKE, lambda header, body: sasl_handshake_response(handshake_error, mechanisms))],
    ) as broker:
        with connect(broker) as conn:
            check, response = check_kafka(conn, timeout=TIMEOUT, reconnect=lambda timeout: connect(broker))

    assert check.status == "auth_required"
    assert check.sasl_mechanisms == ("PLAIN", "SCRAM-SHA-512")
    assert response is None
    [handshake] = broker.requests_on(1)
    assert (handshake.api_key, handshake.api_version) == (SASL_HANDSHAKE, 1)


def test_listener_closing_on_metadata_without_a_reconnect_is_an_error():
    with FakeBroker([respond(API_VERSIONS, answer_api_versions()), expect_request(METADATA), close()]) as broker:
        check, _response, _elapsed = run_check(broker)

    assert check.status == "error"
    assert check.api_versions_version == 4
    assert "closed the connection" in check.error


class _AnswerThenGarbage:
    """Answers ApiVersions, with an HTTP error page right behind the answer in the same write."""

    def run(self, peer) -> bool:
        header, _body = peer.read_request("waiting for ApiVersions")
        answer = response_frame(header, api_versions_response(header.api_version))
        return peer.send(answer + b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def test_bytes_that_came_behind_an_answer_are_not_kafka_at_the_next_request_not_a_timeout():
    with FakeBroker([_AnswerThenGarbage()]) as broker:
        _result, sock = tcp.connect("127.0.0.1", broker.port, timeout=TIMEOUT)
        with KafkaConnection(sock) as conn:
            conn.negotiate(timeout=TIMEOUT)  # the answer itself is kept
            with pytest.raises(KafkaProbeError) as raised:
                conn.metadata(timeout=TIMEOUT)
    assert raised.value.status == "not_kafka", raised.value  # before: "error", only N bytes arrived in time
