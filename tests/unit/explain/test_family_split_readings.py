"""localhost refused on ::1 and nothing said of 127.0.0.1: a broker listening on IPv4 only, or nothing listening at all
whose IPv4 refusal is not in the paste. Both are readings (the split likely), in every family whose lines name the
address they tried (librdkafka's rdkafka_transport.c "Connect to %s failed: %s" with rd_sockaddr2str's "ipv6#[::1]:9092",
the Java client's "Connection to node %d (%s) could not be established", kafka-python's "Connect attempt to %s returned
error %s", telnet's "connect to address %s: %s"); a line that shows the name connected decides for the split."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained


def rd(name: str, text: str, level: int = 3, facility: str = "FAIL") -> str:
    return f"%{level}|1802000000.500|{facility}|rdkafka#consumer-2| [thrd:{name}]: {name}: {text}"


def rd_refused(name: str, address: str) -> str:
    return rd(name, f"Connect to {address} failed: Connection refused (after 0ms in state CONNECT)")


def readings(text: str) -> list[tuple[str, str, str]]:
    return [(f.id, f.severity, f.title.split(":")[0]) for f in explained(text).findings]


SPLIT_OR_REFUSED = [("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning", "Likely"), ("BOOTSTRAP_REFUSED", "warning", "Or")]

BOOTSTRAP_IPV6_ONLY = [
    rd_refused("localhost:9093/bootstrap", "ipv6#[::1]:9093"),
    "worker-7 | " + rd_refused("sasl_ssl://localhost:9093/bootstrap", "ipv6#[::1]:9093"),  # a container's prefix
    "[2026-12-02 08:00:00,100] WARN [Consumer clientId=c-1, groupId=g] Connection to node -1 "
    "(localhost/0:0:0:0:0:0:0:1:9093) could not be established. Broker may not be available. "
    "(org.apache.kafka.clients.NetworkClient)",
    "ERROR:kafka.conn:Connect attempt to <BrokerConnection node_id=bootstrap-0 host=localhost:9093 <connecting> "
    "[IPv6 ('::1', 9093, 0, 0)]> returned error 111. Disconnecting.",
    "$ telnet localhost 9093\nTrying ::1...\ntelnet: connect to address ::1: Connection refused\n",  # the paste ends
]


@pytest.mark.parametrize("paste", BOOTSTRAP_IPV6_ONLY, ids=lambda v: v[:50])
def test_a_bootstrap_refused_on_ipv6_alone_is_the_split_or_nothing_listening(paste):
    assert readings(paste) == SPLIT_OR_REFUSED
    refused = explained(paste).findings[1]
    assert "127.0.0.1 is refused as well" in refused.explanation and "kdiag bootstrap localhost:9093" in refused.explanation


def test_the_bootstrap_connecting_after_the_refusal_decides_for_the_split():
    paste = "\n".join([rd_refused("localhost:9093/bootstrap", "ipv6#[::1]:9093"),
                       rd("localhost:9093/bootstrap", "Broker changed state CONNECT -> APIVERSION_QUERY", 7, "STATE")])
    assert readings(paste) == [("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning", "localhost")]


def test_a_connection_by_node_id_shows_the_metadata_came_and_decides_for_the_split():
    """librdkafka opens a connection to ``host:port/1`` only from the metadata, which the bootstrap answered: a real
    producer at an IPv4-only localhost broker logs the ::1 refusal on both (the lab's localhost-ipv4-only)."""
    paste = "\n".join([rd_refused("localhost:9093/bootstrap", "ipv6#[::1]:9093"),
                       rd_refused("localhost:9093/1", "ipv6#[::1]:9093")])
    assert readings(paste) == [("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning", "localhost")]


def test_refusals_on_both_loopback_addresses_stay_a_refused_bootstrap():
    paste = "\n".join([rd_refused("localhost:9093/bootstrap", "ipv6#[::1]:9093"),
                       rd_refused("localhost:9093/bootstrap", "ipv4#127.0.0.1:9093")])
    assert [(i, s) for i, s, _ in readings(paste)] == [("BOOTSTRAP_REFUSED", "error")]


def test_an_advertised_localhost_behind_another_loopback_port_may_be_the_port_nothing_publishes():
    paste = "$ kcat -b 127.0.0.1:29093 -C -t events\n" + rd_refused("localhost:9093/2", "ipv6#[::1]:9093")
    assert readings(paste) == [("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning", "Likely"),
                               ("ADVERTISED_UNREACHABLE", "warning", "Or")]
    assert "9091:9092" in explained(paste).findings[1].explanation


def test_an_advertised_localhost_at_the_bootstraps_own_port_is_the_split_alone():
    paste = "$ kcat -b 127.0.0.1:9093 -C -t events\n" + rd_refused("localhost:9093/2", "ipv6#[::1]:9093")
    assert [i for i, _, _ in readings(paste)] == ["ADVERTISED_ADDRESS_FAMILY_SPLIT"]


ONE_ADDRESS = [  # clients that name one address of the name and say nothing of the others: the refusal is the likely one
    '{"level":"ERROR","timestamp":"2026-12-02T08:00:00.000Z","logger":"kafkajs","message":"[Connection] Connection '
    'error: connect ECONNREFUSED ::1:9093","broker":"localhost:9093","clientId":"svc"}',
    "[sarama] 2026/12/02 08:00:00 Failed to connect to broker localhost:9093: dial tcp [::1]:9093: connect: "
    "connection refused",
]


@pytest.mark.parametrize("paste", ONE_ADDRESS, ids=lambda v: v[:40])
def test_a_client_that_names_one_address_gives_both_readings_too(paste):
    assert {(i, s) for i, s, _ in readings(paste)} == {("BOOTSTRAP_REFUSED", "warning"),
                                                       ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning")}


def test_a_line_that_says_two_consequences_is_quoted_once():
    paste = "\n".join(["% ERROR: Failed to acquire metadata: Local: Broker transport failure",
                       rd_refused("localhost:9093/bootstrap", "ipv6#[::1]:9093")])
    for finding in explained(paste).findings:
        assert finding.explanation.count("Failed to acquire metadata") == 1
        assert len(finding.evidence["consequences"]) == 1
