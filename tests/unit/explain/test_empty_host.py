"""A broker that advertises no host at all (``PLAINTEXT://:9092`` from a server that does not fill in its name) or a
wildcard one (0.0.0.0, ::): ADVERTISED_NONROUTABLE, in each client's words. A bootstrap address with no host is the
client's own setting (a variable left unset), never an advertised one.

The words are each library's own: librdkafka names a broker ``rd_kafka_mk_nodename`` ("%s:%hu") then "%s/%d" or
"%s/bootstrap" (rdkafka_broker.c), so a host left empty is ``:9092/1``; kafka-python's BrokerConnection prints
"node_id=%s host=%s:%d" and ``_dns_lookup`` "%s: DNS lookup failed for %s:%i (%s)"; franz-go "addr: %s, broker: %s",
Sarama "got error from broker %d while fetching metadata", Go's net "dial tcp :9092"."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only


def rd_resolve(name: str, hostport: str) -> str:
    return (f"%3|1801000000.100|FAIL|rdkafka#consumer-1| [thrd:{name}]: {name}: Failed to resolve '{hostport}': "
            "Name or service not known (after 2ms in state CONNECT)")


def rd_refused(name: str, address: str) -> str:
    return (f"%3|1801000000.200|FAIL|rdkafka#consumer-1| [thrd:{name}]: {name}: Connect to {address} failed: "
            "Connection refused (after 0ms in state CONNECT)")


ADVERTISED_NO_HOST = [
    rd_resolve(":7070/3", ":7070"),
    # kcat's own line for the same failure, below it
    rd_resolve(":7070/3", ":7070") + "\n% ERROR: Local: Host resolution failure: :7070/3: Failed to resolve ':7070': "
    "Name or service not known (after 2ms in state CONNECT)",
    rd_resolve("ssl://:9093/2", ":9093"),
    "app-1  | " + rd_resolve(":7070/3", ":7070"),  # a compose log's prefix
    rd_refused(":9092/1", "ipv4#127.0.0.1:9092"),
    "unable to open connection to broker; addr: :9092, broker: 4, err: dial tcp :9092: connect: connection refused",
    "[sarama] 2026/12/01 10:00:00 client/metadata got error from broker 2 while fetching metadata: dial tcp :9092: "
    "connect: connection refused",
    "ERROR:kafka.conn:<BrokerConnection node_id=5 host=:9092 <connecting> [IPv4 None]>: DNS lookup failed for :9092 (0)",
]


@pytest.mark.parametrize("paste", ADVERTISED_NO_HOST, ids=lambda v: v[-60:])
def test_a_broker_advertised_with_no_host_is_nonroutable_in_every_clients_words(paste):
    found = explained(paste)
    assert ids(found) == ["ADVERTISED_NONROUTABLE"]
    finding = only(found, "ADVERTISED_NONROUTABLE")
    assert finding.severity == "error" and "with no host" in finding.title
    assert finding.evidence["role"] == "advertised" and finding.evidence["host"] == ""
    assert "0.0.0.0 is advertised" not in finding.title


WILDCARD = [
    rd_refused("0.0.0.0:9092/1", "ipv4#0.0.0.0:9092"),
    rd_refused("[::]:9092/2", "ipv6#[::]:9092"),
    "[sarama] 2026/12/01 10:00:00 client/metadata got error from broker 1 while fetching metadata: dial tcp "
    "0.0.0.0:9092: connect: connection refused",
    "WARN [Producer clientId=p] Connection to node 1 (/0.0.0.0:9092) could not be established. Broker may not be "
    "available. (org.apache.kafka.clients.NetworkClient)",
    "ERROR:kafka.conn:Connect attempt to <BrokerConnection node_id=1 host=0.0.0.0:9092 <connecting> [IPv4 "
    "('0.0.0.0', 9092)]> returned error 111. Disconnecting.",
]


@pytest.mark.parametrize("paste", WILDCARD, ids=lambda v: v[-60:])
def test_a_broker_advertising_a_wildcard_address_is_nonroutable(paste):
    assert ids(explained(paste)) == ["ADVERTISED_NONROUTABLE"]


def test_a_bootstrap_with_no_host_is_the_clients_own_setting_not_an_advertised_address():
    finding = only(explained(rd_resolve(":9092/bootstrap", ":9092")), "BOOTSTRAP_UNRESOLVABLE")
    assert finding.severity == "error" and finding.title.endswith(":9092 has no host")
    python = "ERROR:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=:9092 <connecting> [IPv4 None]>: DNS lookup " \
             "failed for :9092 (0)"
    assert ids(explained(python)) == ["BOOTSTRAP_UNRESOLVABLE"]


def test_a_go_seed_with_no_host_stays_the_bootstrap():
    line = ("[sarama] 2026/12/01 10:00:00 client/metadata got error from broker -1 while fetching metadata: dial tcp "
            ":9092: connect: connection refused")
    assert ids(explained(line)) == ["BOOTSTRAP_REFUSED"]


def test_a_wildcard_bootstrap_the_line_names_is_refused_there_not_advertised():
    finding = only(explained(rd_refused("0.0.0.0:9092/bootstrap", "ipv4#0.0.0.0:9092")), "BOOTSTRAP_REFUSED")
    assert "bind address" in finding.explanation
    java = ("WARN [Producer clientId=p] Connection to node -1 (/0.0.0.0:9092) could not be established. Broker may not "
            "be available. (org.apache.kafka.clients.NetworkClient)")
    assert ids(explained(java)) == ["BOOTSTRAP_REFUSED"]


def test_a_wildcard_address_in_the_clients_bootstrap_list_is_its_bootstrap():
    line = 'Could not connect to broker "0.0.0.0":9092: econnrefused'  # brod: no role in its words
    assert ids(explained(line)) == ["ADVERTISED_NONROUTABLE"]
    assert ids(explained("bootstrap.servers = 0.0.0.0:9092\n" + line)) == ["BOOTSTRAP_REFUSED"]


def test_a_broker_with_no_host_and_a_seed_with_no_host_stay_two_findings():
    paste = "\n".join(
        f"[sarama] 2026/12/01 10:00:0{n} client/metadata got error from broker {node} while fetching metadata: dial "
        "tcp :9092: connect: connection refused" for n, node in ((0, 1), (1, -1)))
    assert ids(explained(paste)) == ["ADVERTISED_NONROUTABLE", "BOOTSTRAP_REFUSED"]
