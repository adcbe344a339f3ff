"""A connection that ended at its first exchange, or a handshake the listener cut, in words written from each library's
own source: librdkafka's client-authentication hint (rdkafka_ssl.c) and its broker state machine's debug lines
(rdkafka_broker.c), kafka-node's initializeBroker and socket close (lib/kafkaClient.js)."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

RD = "%3|1656605146.834|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9094/bootstrap]: ssl://b1.example:9094/bootstrap: "


# --- librdkafka: "unexpected message: client SSL authentication might be required" -------------------------------

@pytest.mark.parametrize("openssl", [
    "error:141A10F4:SSL routines:ossl_statem_client_read_transition:unexpected message",  # OpenSSL 1.1
    "error:0A0000F4:SSL routines::unexpected message",  # OpenSSL 3
])
def test_librdkafkas_client_authentication_hint_is_the_likely_reading(openssl):
    line = (f"{RD}SSL handshake failed: {openssl}: client SSL authentication might be required (see ssl.key.location "
            "and ssl.certificate.location and consult the broker logs for more information) (after 16ms in state "
            "SSL_HANDSHAKE)")
    found = explained(line).findings
    assert [(f.id, f.severity) for f in found] == [("TLS_CLIENT_CERT_REQUIRED", "warning"),
                                                    ("TLS_CLIENT_CERT_REJECTED", "warning")]
    assert found[0].title.startswith("Likely: ") and found[1].title.startswith("Or: ")


def test_the_listeners_own_alert_beside_the_hint_stays_certain():
    line = (f"{RD}SSL handshake failed: error:14094410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure: "
            "SSL alert number 40: client SSL authentication might be required (see ssl.key.location and "
            "ssl.certificate.location and consult the broker logs for more information)")
    assert only(explained(line), "TLS_CLIENT_CERT_REQUIRED").severity == "error"


# --- librdkafka's debug lines: the connection went down while it asked for ApiVersion ---------------------------

def state_line(name: str) -> str:
    return (f"%7|1575453681.640|STATE|rdkafka#producer-1| [thrd:{name}]: {name}: Broker changed state "
            "APIVERSION_QUERY -> DOWN")


@pytest.mark.parametrize("name", ["b1.example:9092/bootstrap", "sasl_plaintext://b1.example:9092/1"])
def test_a_connection_without_tls_down_while_requesting_apiversion_is_likely_a_tls_listener(name):
    found = explained(state_line(name)).findings
    assert [(f.id, f.severity) for f in found] == [("TLS_EXPECTED", "warning"), ("BROKER_TOO_OLD", "warning")]


def test_a_tls_connection_down_while_requesting_apiversion_is_not_read_as_plaintext():
    assert "TLS_EXPECTED" not in ids(explained(state_line("ssl://b1.example:9093/bootstrap")))


def test_a_confluent_cloud_address_down_while_requesting_apiversion_wants_tls():
    found = explained(state_line("pkc-4v2jl.ca-central-1.aws.confluent.cloud:9092/bootstrap")).findings
    assert found[0].id == "TLS_EXPECTED" and found[0].title.startswith("Likely: ")


# --- kafka-node ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "ApiVersions failed with unexpected error BrokerNotAvailableError",
    "kafka-node:KafkaClient ApiVersions failed with unexpected error { BrokerNotAvailableError: Broker not available "
    "(socket closed)",
    "ApiVersions failed with unexpected error BrokerNotAvailableError: Broker not available (socket closed)",
])
def test_kafka_nodes_first_request_hung_up_on_is_likely_a_tls_listener(line):
    found = explained(line).findings
    assert [(f.id, f.severity) for f in found] == [("TLS_EXPECTED", "warning"), ("BROKER_TOO_OLD", "warning")]


def test_kafka_nodes_apiversions_timeout_is_not_a_hang_up():
    # a TimeoutError is read by kafka-node itself as a broker before 0.10, and logged at debug only
    assert ids(explained("getApiVersions request timedout probably less than 0.10 using base support")) == []


def test_kafka_nodes_sasl_close_is_its_own_guess_of_the_credentials():
    found = explained("SaslAuthenticationError: Broker closed connection during SASL auth: bad credentials?").findings
    assert [(f.id, f.title.split(":")[0]) for f in found] == [("SASL_AUTH_FAILED", "Likely"), ("TLS_EXPECTED", "Or")]


# --- an advertised broker that refuses: the broker down, a cluster partly reachable ---------------------------

@pytest.mark.parametrize("address", ["10.0.1.5", "<ip-address-1>", "<redacted>", "***"])
def test_an_advertised_broker_refusing_is_also_read_as_down_for_now(address):
    line = (f"ssl://b-1.msk.abc.c17.kafka.ap-south-1.amazonaws.com:9094/1: Connect to ipv4#{address}:9094 failed: "
            "Connection refused (after 0ms in state CONNECT, 1 identical error(s) suppressed)")
    found = explained(line).findings
    assert [(f.id, f.severity) for f in found] == [("ADVERTISED_UNREACHABLE", "error"), ("PARTIAL_CLUSTER", "warning")]
    assert found[1].title.startswith("Or: Broker 1 is down or restarting")
    assert ("addresses" in found[0].evidence) == (address == "10.0.1.5")  # a hidden address is no address


def test_a_refused_bootstrap_is_no_partial_cluster():
    line = "%3|1|FAIL|rdkafka#producer-1| [thrd:b:9092/bootstrap]: b:9092/bootstrap: Connect to ipv4#10.0.0.1:9092 " \
           "failed: Connection refused (after 0ms in state CONNECT)"
    assert "PARTIAL_CLUSTER" not in ids(explained(line))


def test_a_librdkafka_connection_name_with_a_hidden_label_keeps_its_whole_host():
    line = ("%3|1656605146.834|FAIL|rdkafka#producer-1| [thrd:ssl://b-1.***.kafka.eu-west-1.amazo]: "
            "ssl://b-1.***.kafka.eu-west-1.amazonaws.com:9094/bootstrap: Connect to ipv4#10.0.0.1:9094 failed: "
            "Connection refused (after 0ms in state CONNECT)")
    assert only(explained(line), "BOOTSTRAP_REFUSED").evidence["host"] == "b-1.***.kafka.eu-west-1.amazonaws.com"
