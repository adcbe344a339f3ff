"""A listener that hung up, and a plaintext client at a TLS listener, in the words of each library's own source
(ruby-kafka's connection.rb, no-kafka's connection.js, hashicorp/go-multierror's list as Sarama's callers print it,
kafka_protocol's kpro_connection hint_msg, Sarama's broker.go, librdkafka 0.9's rdkafka_broker.c, kafka_ex's server):
each is a reading, never a certain error, and the closed connection's readings name every cause that ends so."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

CLOSED = [
    # ruby-kafka lib/kafka/connection.rb: raise ConnectionError, "Connection error #{e.class}: #{e}"
    "Kafka::ConnectionError: Connection error EOFError: end of file reached",
    "Failed to fetch metadata from kafka://b1.example:9093: Connection error Errno::EPIPE: Broken pipe",
    # no-kafka lib/connection.js: new errors.NoKafkaConnectionError(self.server(), 'Kafka server has closed connection')
    "NoKafkaConnectionError: Kafka server has closed connection",
    # hashicorp/go-multierror ListFormatFunc: "%d errors occurred:\n\t* %s\n\n", one item per broker
    "Error: kafka: client has run out of available brokers to talk to: 2 errors occurred:\n\t* EOF\n\t* unexpected EOF\n",
]


@pytest.mark.parametrize("paste", CLOSED, ids=lambda v: v[:40])
def test_a_closed_connection_in_each_librarys_words_is_every_reading_that_ends_so(paste):
    found = explained(paste).findings
    assert {"TLS_EXPECTED", "SASL_REQUIRED", "BROKER_CLOSED_CONNECTION"} <= {f.id for f in found}
    assert all(f.severity == "warning" for f in found)


def test_ruby_kafka_names_the_seed_broker_that_hung_up():
    found = explained("Failed to fetch metadata from kafka://b1.example:9094: Connection error EOFError: EOFError").findings
    assert found and all("b1.example:9094" in f.title.lower() for f in found), [f.title for f in found]


def test_kafka_protocols_own_hint_is_a_likely_plaintext_client_at_a_tls_listener():
    paste = ("[error] Failed to connect to b1.example:9092\nMake sure 'ssl' option is in client config, \n"
             "or make sure connecting to 'SASL_PLAINTEXT://' listener")
    found = explained(paste).findings
    assert ids(explained(paste))[:1] == ["TLS_EXPECTED"]
    assert found[0].title.startswith("Likely: ") and found[0].severity == "warning"
    assert "b1.example:9092" in found[0].title


@pytest.mark.parametrize("line", ["[sarama] Failed to read SASL handshake header : EOF",
                                  "error: fail to read SASL handshake header."])
def test_a_sasl_handshake_answer_that_never_came_is_a_likely_tls_listener(line):
    found = explained(line).findings
    assert [f.id for f in found][:1] == ["TLS_EXPECTED"] and found[0].severity == "warning"


def test_librdkafka_09s_old_broker_guess_is_a_likely_version_gap_or_a_tls_listener():
    line = ("%7|1480000000.000|FAIL|rdkafka#producer-1| b1.example:9092/bootstrap: ApiVersionRequest failed: Local: "
            "Broker transport failure: probably due to old broker version")
    found = explained(line).findings
    assert [f.id for f in found] == ["BROKER_TOO_OLD", "TLS_EXPECTED"]
    assert all(f.severity == "warning" for f in found)


@pytest.mark.parametrize("line", ['[error] Could not connect to broker "0.0.0.0":9092',
                                  "Failed to connect to [::]:9092"])
def test_a_failed_connect_to_the_meta_address_is_an_advertised_nonroutable_address(line):
    assert ids(explained(line)) == ["ADVERTISED_NONROUTABLE"]


def test_a_connect_to_the_meta_address_with_the_runtimes_reason_is_read_once():
    assert ids(explained('Could not connect to broker "0.0.0.0":9092: econnrefused')) == ["ADVERTISED_NONROUTABLE"]


OLD_JAVA = "WARN Connection to node {} could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)"


def test_java_before_2_0_names_no_address_a_negative_node_is_the_bootstrap_the_paste_shows():
    paste = "\tbootstrap.servers = [b1.example:9093]\n" + OLD_JAVA.format(-1)
    found = explained(paste).findings
    assert [(f.id, f.severity) for f in found] == [("BOOTSTRAP_REFUSED", "error")]
    assert "b1.example:9093" in found[0].title


def test_java_before_2_0_a_positive_node_is_an_advertised_broker():
    paste = "\tbootstrap.servers = [b1.example:9093]\n" + OLD_JAVA.format(2)
    assert ids(explained(paste))[:1] == ["ADVERTISED_UNREACHABLE"]


def test_java_1_0s_own_guess_of_invalid_credentials_is_likely_rejected_credentials_or_tls_at_plaintext():
    for paste in ("WARN Connection to node -1 terminated during authentication. This may indicate that authentication "
                  "failed due to invalid credentials. (org.apache.kafka.clients.NetworkClient)",
                  "WARN Connection to node 1 (b1.example/192.0.2.1:9093) terminated during authentication. This may "
                  "indicate that authentication failed due to invalid credentials."):
        found = explained(paste).findings
        assert [(f.id, f.severity) for f in found] == [("SASL_AUTH_FAILED", "warning"), ("TLS_UNEXPECTED", "warning")]


def test_fluent_bit_that_could_not_set_security_protocol_is_likely_a_plaintext_client_at_a_tls_listener():
    paste = ("[2026/11/26 10:00:00] [error] [out_kafka] cannot configure 'security.protocol' property\n"
             "[2026/11/26 10:00:02] [error] [out_kafka] fluent-bit#producer-1: [thrd:b1.example:9094/]: 1/1 brokers "
             "are down")
    found = explained(paste).findings
    assert [f.id for f in found][:1] == ["TLS_EXPECTED"]
    assert all(f.severity == "warning" for f in found)
