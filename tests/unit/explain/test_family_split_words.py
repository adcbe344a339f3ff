"""explain: ADVERTISED_ADDRESS_FAMILY_SPLIT says what the paste's own client does with a name's other addresses
(librdkafka the next one on each reconnect, kafkajs only the first, Go the first error of those it tried, Java each
in turn with client.dns.lookup=use_all_dns_ips), and says it of clients in general when the family is unknown: a
support engineer reading a kafkajs paste is not told of librdkafka's reconnects (issue 16)."""

from __future__ import annotations

from kdiag.explain.builders.addressing import address_family_split
from kdiag.explain.observations import Facts, Group
from kdiag.explain.sightings import BOOTSTRAP, CONNECT, OTHER, Sighting
from kdiag.explain.subject import Context, Subject
from tests.unit.explain.helpers import explained

LIBRDKAFKA = ("%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: "
              "Connect to ipv6#[::1]:9092 failed: Connection refused (after 0ms in state CONNECT)\n")
KAFKAJS = ('{"level":"ERROR","timestamp":"2024-01-01T00:00:00.000Z","logger":"kafkajs","message":"[Connection] '
           'Connection error: connect ECONNREFUSED ::1:9092","broker":"localhost:9092","clientId":"my-app",'
           '"stack":"Error: connect ECONNREFUSED ::1:9092"}\n')
SARAMA = ("[sarama] 2024/01/01 00:00:00 Failed to connect to broker localhost:9092: dial tcp [::1]:9092: connect: "
          "connection refused\n")
JAVA = ("[2024-01-01 00:00:00,000] WARN [Producer clientId=producer-1] Connection to node -1 "
        "(localhost/0:0:0:0:0:0:0:1:9092) could not be established. Broker may not be available. "
        "(org.apache.kafka.clients.NetworkClient)\n")
TELNET = ("$ telnet localhost 9092\nTrying ::1...\ntelnet: connect to address ::1: Connection refused\n"
          "Trying 127.0.0.1...\nConnected to localhost.\nEscape character is '^]'.\n")


def split_words(paste: str) -> str:
    return next(f for f in explained(paste).findings if f.id == "ADVERTISED_ADDRESS_FAMILY_SPLIT").explanation


def test_librdkafka_split_speaks_of_its_reconnects_to_the_next_address():
    assert "librdkafka takes the next address on every reconnect" in split_words(LIBRDKAFKA)


def test_kafkajs_split_says_node_tries_only_the_first_address_not_librdkafka():
    words = split_words(KAFKAJS)
    assert "only the first address the name resolves to" in words and "librdkafka" not in words


def test_go_split_says_the_dialer_reports_the_first_error_and_does_not_claim_ipv4_answered():
    words = split_words(SARAMA)
    assert "first error of those it tried" in words and "librdkafka" not in words
    assert "only the IPv6 address is refused" not in words


def test_java_split_names_client_dns_lookup_not_librdkafka():
    words = split_words(JAVA)
    assert "client.dns.lookup=use_all_dns_ips" in words and "librdkafka" not in words


def test_telnet_split_says_the_test_tried_each_address_not_librdkafka():
    words = split_words(TELNET)
    assert "prints each attempt" in words and "librdkafka" not in words


def test_split_of_an_unknown_client_speaks_of_clients_in_general():
    sighting = Sighting(CONNECT, OTHER, "localhost", 9092, address="::1", role=BOOTSTRAP, status="refused")
    group = Group(sighting, 1, [(1, "connect to localhost:9092 (::1) refused")], clients=[OTHER], addresses=["::1"])
    subject = Subject("ADVERTISED_ADDRESS_FAMILY_SPLIT", (group,), "localhost", 9092, role=BOOTSTRAP)
    words = address_family_split(subject, Context(Facts(), (), None)).explanation
    assert "Clients differ in what they do next" in words and "librdkafka" not in words
