"""An advertised loopback address refused: a broker elsewhere advertising localhost (ADVERTISED_LOOPBACK), or the broker
on the client's own machine behind a published port other than the one it advertises (Docker's ``9091:9092``:
ADVERTISED_UNREACHABLE). What the paste shows of the bootstrap decides: a remote one, LOOPBACK; a loopback one at
another port, UNREACHABLE; none, both readings.

librdkafka's rdkafka_transport.c words a failed non-blocking connect "Connect to %s failed: %s" with rd_strerror, the C
runtime's strerror: on Windows it names no Winsock code, and WSAECONNREFUSED prints ``Unknown error``."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, only


def rd_failed(name: str, address: str, why: str, ms: int = 2027) -> str:
    return (f"%3|1803000000.400|FAIL|rdkafka#producer-3| [thrd:{name}]: {name}: Connect to {address} failed: {why} "
            f"(after {ms}ms in state CONNECT)")


WINDOWS = rd_failed("ssl://localhost:19094/3", "ipv4#127.0.0.1:19094", "Unknown error")


def readings(text: str) -> list[tuple[str, str]]:
    return [(f.id, f.title.split(":")[0]) for f in explained(text).findings]


def test_windows_unknown_error_on_loopback_is_a_refusal():
    finding = only(explained(rd_failed("localhost:19094/bootstrap", "ipv4#127.0.0.1:19094", "Unknown error")),
                   "BOOTSTRAP_REFUSED")
    assert finding.evidence["tcp_status"] == "refused" and "Winsock" in finding.explanation


def test_unknown_error_elsewhere_says_no_more_than_a_failed_connect():
    line = rd_failed("b-2.example.net:9094/2", "ipv4#198.51.100.20:9094", "Unknown error", 21040)
    finding = only(explained(line), "ADVERTISED_UNREACHABLE")
    assert finding.evidence["tcp_status"] == "error" and "Winsock" not in finding.explanation


def test_with_no_bootstrap_shown_an_unpublished_port_is_a_reading_beside_the_loopback_advertised():
    for paste in (WINDOWS, "app | " + WINDOWS.replace("Unknown error", "Connection refused")):
        assert readings(paste) == [("ADVERTISED_LOOPBACK", "Likely"), ("ADVERTISED_UNREACHABLE", "Or"),
                                   ("BOOTSTRAP_REFUSED", "Or")]
        assert {f.severity for f in explained(paste).findings} == {"warning"}
        assert "9091:9092" in explained(paste).findings[0].explanation


def test_a_loopback_bootstrap_at_another_port_makes_the_unpublished_port_the_finding():
    for bootstrap in ("localhost:29094", "127.0.0.1:29094", "[::1]:29094"):
        found = explained(f"$ kcat -b {bootstrap} -X security.protocol=SSL -L\n" + WINDOWS)
        finding = only(found, "ADVERTISED_UNREACHABLE")
        assert finding.severity == "error" and "refuses connections" in finding.title
        assert "another port" in finding.explanation and "ADVERTISED_LOOPBACK" not in [f.id for f in found.findings]


def test_a_loopback_bootstrap_at_the_same_port_is_unchanged():
    refused = rd_failed("localhost:19094/3", "ipv4#127.0.0.1:19094", "Connection refused", 0)
    assert readings("$ kcat -b localhost:19094 -L\n" + refused) == [("ADVERTISED_UNREACHABLE", "Broker 3 advertises "
                                                                      "localhost"), ("PARTIAL_CLUSTER", "Or")]


def test_a_remote_bootstrap_keeps_the_loopback_advertised_certain():
    finding = only(explained("$ kcat -b 203.0.113.40:9094 -X security.protocol=SSL -L\n" + WINDOWS),
                   "ADVERTISED_LOOPBACK")
    assert finding.severity == "error"
