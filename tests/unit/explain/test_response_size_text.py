"""A "response size" that is text: another protocol answered where Kafka was expected. Written from librdkafka's own
words (rdkafka_broker.c: "Invalid response size %d (0..%d)" since 0.11, "Invalid message size %d (0..%d)" before,
which prints the frame's size less its correlation id's four bytes)."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only


def size_of(text: str) -> int:
    return int.from_bytes(text.encode("ascii"), "big")


def new_line(size: int, limit: int = 100000000, endpoint: str = "b:9092") -> str:
    return (f"%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:{endpoint}/bootstrap]: {endpoint}/bootstrap: Receive "
            f"failed: Invalid response size {size} (0..{limit}): increase receive.message.max.bytes")


def old_line(size: int, limit: int = 100000000, endpoint: str = "b:9092") -> str:
    return (f"1527700852.798 RDKAFKA-3-FAIL: rdkafka#consumer-1: [thrd:{endpoint}/bootstrap]: {endpoint}/bootstrap: "
            f"Receive failed: Invalid message size {size} (0..{limit}): increase receive.message.max.bytes")


@pytest.mark.parametrize("text", ["220 ", "+OK ", "-ERR", "* OK", "<htm", '{"er', "HTTL"])
def test_any_size_whose_four_bytes_are_text_is_another_protocol(text):
    # even within twice the client's limit, where a real broker's answer may land: a frame's size is never text
    for line in (new_line(size_of(text), limit=size_of(text) - 1000), old_line(size_of(text) - 4, limit=10 ** 9)):
        finding = only(explained(line), "NOT_KAFKA")
        assert finding.severity == "error" and repr(text) in finding.explanation, line


def test_librdkafka_before_0_11_prints_the_frame_less_four_bytes():
    finding = only(explained(old_line(size_of("HTTP") - 4, limit=10 ** 9)), "NOT_KAFKA")
    assert finding.title.endswith("it speaks HTTP") and "a frame of 1213486160" in finding.explanation


def test_librdkafka_before_0_11_just_over_its_limit_is_no_foreign_peer():
    assert ids(explained(old_line(100000035, limit=100000000))) == []


def test_bytes_beyond_ascii_within_the_limit_are_no_foreign_peer():
    size = int.from_bytes(bytes([0x05, 0xF5, 0xE1, 0xC3]), "big")  # latin-1 printable, not text
    # a real answer just over the client's receive limit: at most the size limit's warning, never another peer
    findings = explained(new_line(size, limit=size - 10)).findings
    assert {f.id for f in findings} <= {"ROUNDTRIP_FAILED"} and all(f.severity != "error" for f in findings)


@pytest.mark.parametrize("port", [8081, 8082, 8083, 8088])
def test_http_inside_tls_at_a_known_https_services_port_is_that_service(port):
    # Schema Registry, the REST Proxy, Connect, ksqlDB over HTTPS: not an ingress's default backend
    finding = only(explained(new_line(size_of("HTTP"), endpoint=f"ssl://b:{port}")), "NOT_KAFKA")
    assert f"{port} is" in finding.explanation and "INGRESS_DEFAULT_BACKEND" not in ids(
        explained(new_line(size_of("HTTP"), endpoint=f"ssl://b:{port}")))


def test_http_inside_tls_elsewhere_stays_the_ingress_reading():
    assert ids(explained(new_line(size_of("HTTP"), endpoint="ssl://kafka.example.com:443"))) == [
        "INGRESS_DEFAULT_BACKEND"]
