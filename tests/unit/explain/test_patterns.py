"""The pattern catalog: every declared example matches, and each line's facts are read right."""

from __future__ import annotations

import pytest

from kdiag.explain.patterns import NEEDLES, PATTERNS, Scanner
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, CONNECT, HEAP_EXHAUSTED, NOT_KAFKA, PLAINTEXT_ON_TLS, RESOLVE,
                                     UNKNOWN, Fact, Sighting)


def scan(*lines: str) -> list:
    scanner = Scanner()
    found = []
    for number, line in enumerate(lines, start=1):
        found.extend(scanner.scan(number, line))
    return found


def sightings(*lines: str) -> list[Sighting]:
    return [item for item in scan(*lines) if isinstance(item, Sighting)]


# One says something only with the other: tested below.
PAIRED = ("java.out_of_memory", "java.network_receive", "go.sarama_api_versions",
          "any.client_certificate_setting", "erlang.gen_tcp_call", "telnet.trying",
          *(f"librdkafka.cut_after_name.{i}" for i in range(3)),
          *(f"tools.command.{tool}" for tool in ("telnet", "nc", "ncat", "netcat")))  # test_net_tools


@pytest.mark.parametrize("pattern", [p for p in PATTERNS if p.name not in PAIRED], ids=lambda p: p.name)
def test_every_declared_example_is_recognised_by_its_own_pattern(pattern):
    assert pattern.needle in pattern.example
    assert pattern.regex.search(pattern.example), pattern.name
    assert scan(pattern.example), pattern.name


def test_pattern_names_are_unique_and_needles_are_precomputed():
    assert len({p.name for p in PATTERNS}) == len(PATTERNS)
    assert set(NEEDLES) == {p.needle for p in PATTERNS}


@pytest.mark.parametrize("line, role, node_id", [
    ("%3|1|FAIL|rdkafka#producer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Connect to ipv4#10.0.0.5:9092 "
     "failed: Connection refused (after 0ms in state CONNECT)", BOOTSTRAP, None),
    ("%3|1|FAIL|rdkafka#producer-1| [thrd:kafka-2:9092/2]: kafka-2:9092/2: Connect to ipv4#10.0.0.6:9092 failed: "
     "Connection refused (after 0ms in state CONNECT)", ADVERTISED, 2),
    ("[2026-01-01 00:00:00,000] WARN [Producer clientId=p] Connection to node -1 (localhost/127.0.0.1:9092) could "
     "not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)", BOOTSTRAP, -1),
    ("[2026-01-01 00:00:00,000] WARN [Producer clientId=p] Connection to node 3 (kafka-3/10.0.0.7:9092) could not be "
     "established. Node may not be available. (org.apache.kafka.clients.NetworkClient)", ADVERTISED, 3),
])
def test_bootstrap_and_advertised_are_told_apart_as_the_clients_name_them(line, role, node_id):
    [sighting] = sightings(line)
    assert (sighting.symptom, sighting.role, sighting.node_id) == (CONNECT, role, node_id)
    assert sighting.status == "refused"


def test_java_prints_a_literal_bootstrap_without_a_name():
    [sighting] = sightings("Connection to node -1 (/127.0.0.1:9092) could not be established. Node may not be "
                           "available.")
    assert (sighting.host, sighting.address, sighting.port) == ("127.0.0.1", "127.0.0.1", 9092)


@pytest.mark.parametrize("why, status", [
    ("Name or service not known", "nxdomain"),
    ("nodename nor servname provided, or not known", "nxdomain"),
    ("No such host is known. ", "nxdomain"),
    ("Temporary failure in name resolution", "servfail"),
    ("No address associated with hostname", "no_answer"),
])
def test_librdkafka_resolver_words_become_dns_statuses(why, status):
    [sighting] = sightings(f"kafka-0.kafka.svc.cluster.local:9092/0: Failed to resolve "
                           f"'kafka-0.kafka.svc.cluster.local:9092': {why}(after 1ms in state CONNECT)")
    assert (sighting.symptom, sighting.status, sighting.port, sighting.node_id) == (RESOLVE, status, 9092, 0)


@pytest.mark.parametrize("why, status", [
    ("Connection refused", "refused"), ("No route to host", "unreachable"),
    ("Operation timed out", "timeout"), ("Network is unreachable", "unreachable"),
])
def test_librdkafka_connect_words_become_tcp_statuses(why, status):
    [sighting] = sightings(f"b:9092/bootstrap: Connect to ipv6#[::1]:9092 failed: {why} (after 1ms in state CONNECT)")
    assert (sighting.status, sighting.address) == (status, "::1")


def test_librdkafka_protocol_prefix_tells_the_clients_security_protocol():
    [sighting] = sightings("sasl_ssl://b-1.kafka.us-east-1.amazonaws.com:9096/bootstrap: SASL authentication error: "
                           "Authentication failed (after 300ms in state AUTH_REQ)")
    assert (sighting.protocol, sighting.host, sighting.port) == ("SASL_SSL", "b-1.kafka.us-east-1.amazonaws.com", 9096)


def test_out_of_memory_is_a_tls_listener_only_with_network_receive_in_its_stack():
    oom = "java.lang.OutOfMemoryError: Java heap space"  # alone, a consequence (readings.heap_exhausted's Maybe)
    assert [s.symptom for s in sightings(oom, "\tat com.example.App.main(App.java:10)")] == [HEAP_EXHAUSTED]
    [_, sighting] = sightings(oom, "\tat java.base/java.nio.ByteBuffer.allocate(ByteBuffer.java:363)",
                              "\tat org.apache.kafka.common.network.NetworkReceive.readFrom(NetworkReceive.java:103)")
    assert sighting.symptom == PLAINTEXT_ON_TLS and sighting.related == (oom,)


@pytest.mark.parametrize("size, symptom, words", [
    (352518912, PLAINTEXT_ON_TLS, "a TLS record"),  # 0x15 0x03 0x03 0x00: a TLS alert
    (1213486160, NOT_KAFKA, "HTTP"),  # "HTTP"
    (1397966893, NOT_KAFKA, "SSH"),  # "SSH-"
])
def test_a_bogus_response_size_says_what_the_port_speaks(size, symptom, words):
    [sighting] = sightings(f"b:9092/bootstrap: Receive failed: Invalid response size {size} (0..100000000): "
                           "increase receive.message.max.bytes")
    assert sighting.symptom == symptom and words in sighting.detail


def test_kafkajs_json_log_line_gives_host_and_port():
    [sighting] = sightings('{"level":"ERROR","logger":"kafkajs","message":"[Connection] Connection error: getaddrinfo '
                           'ENOTFOUND kafka-0.kafka.svc","broker":"kafka-0.kafka.svc:9092","clientId":"app"}')
    assert (sighting.client, sighting.host, sighting.port, sighting.status) == ("kafkajs", "kafka-0.kafka.svc", 9092,
                                                                                "nxdomain")


def test_kafkajs_refused_connect():
    [sighting] = sightings("KafkaJSConnectionError: Connection error: connect ECONNREFUSED 127.0.0.1:9092")
    assert (sighting.symptom, sighting.status, sighting.host, sighting.port) == (CONNECT, "refused", "127.0.0.1", 9092)


def test_franz_go_seed_broker_is_a_bootstrap():
    [sighting] = sightings('{"level":"warn","msg":"unable to open connection to broker","addr":"10.1.2.3:9092",'
                           '"broker":"seed_0","err":"dial tcp 10.1.2.3:9092: connect: connection refused"}')
    assert (sighting.role, sighting.status, sighting.port) == (BOOTSTRAP, "refused", 9092)


def test_sarama_lookup_failure_takes_the_port_from_the_broker_it_names():
    [sighting] = sightings("Failed to connect to broker kafka-1:9092: dial tcp: lookup kafka-1 on 127.0.0.11:53: no "
                           "such host")
    assert (sighting.symptom, sighting.host, sighting.port, sighting.status, sighting.role) == (
        RESOLVE, "kafka-1", 9092, "nxdomain", UNKNOWN)


def test_go_tls_and_certificate_errors():
    assert [s.symptom for s in sightings("tls: first record does not look like a TLS handshake")] == [
        "tls_on_plaintext"]
    [name] = sightings("x509: certificate is valid for kafka-0.internal, not kafka.example.com")
    assert (name.symptom, name.host) == ("cert_name", "kafka.example.com")


def test_command_lines_and_configuration_name_the_bootstrap():
    facts = [item for item in scan(
        "$ kcat -b broker-1:9092,broker-2:9092 -C -t orders",
        "\tbootstrap.servers = [a.example.com:9093]",
        "kafka-console-producer --bootstrap-server b.example.com:9094 --topic payments",
    ) if isinstance(item, Fact)]
    assert [(f.kind, f.host, f.port) for f in facts if f.kind == "bootstrap"] == [
        ("bootstrap", "broker-1", 9092), ("bootstrap", "broker-2", 9092), ("bootstrap", "a.example.com", 9093),
        ("bootstrap", "b.example.com", 9094)]
    assert [f.name for f in facts if f.kind == "topic"] == ["orders", "payments"]


def test_one_line_saying_one_thing_twice_yields_it_once():
    line = ("% ERROR: Local: Authentication failure: sasl_ssl://b:9096/bootstrap: SASL authentication error: "
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512")
    assert len(sightings(line)) == 1


def test_sarama_eof_at_metadata_after_a_completed_api_versions_is_a_sasl_listener():
    from kdiag.explain.sightings import CONNECTION_CLOSED, SASL_NEEDED

    eof = "[sarama] 2026/11/21 17:27:08 client/metadata got error from broker -1 while fetching metadata: EOF"
    [after] = sightings("[sarama] 2026/11/21 17:27:08 Completed ApiVersionsRequest V3 to 127.0.0.1:40341. Broker "
                        "supports 77 APIs", "[sarama] 2026/11/21 17:27:08 Closed connection to broker 127.0.0.1:40341",
                        eof)
    assert (after.symptom, after.host, after.port, after.role) == (SASL_NEEDED, "127.0.0.1", 40341, BOOTSTRAP)
    [alone] = sightings(eof)
    assert alone.symptom == CONNECTION_CLOSED


@pytest.mark.parametrize("setting, symptom", [
    ("", "client_cert_missing"),
    ("--producer-property ssl.keystore.location=/etc/kafka/client.p12", "client_cert_refused"),
    ("\tssl.keystore.location = null", "client_cert_missing"),  # the Java client's config dump without one
    ("$ kcat -b b:9093 -X ssl.ca.location=ca.pem -X ssl.certificate.location=me.pem", "client_cert_refused"),
])
def test_bad_certificate_means_no_certificate_unless_the_log_shows_one_configured(setting, symptom):
    alert = "Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: bad_certificate"
    assert [s.symptom for s in sightings(*(line for line in (setting, alert) if line))] == [symptom]


@pytest.mark.parametrize("alert, symptom", [
    ("sslv3 alert bad certificate: SSL alert number 42", "client_cert_missing"),
    ("tlsv13 alert certificate required: SSL alert number 116", "client_cert_missing"),
    ("sslv3 alert certificate unknown: SSL alert number 46", "client_cert_refused"),
    ("tlsv1 alert unknown ca: SSL alert number 48", "client_cert_refused"),
])
def test_librdkafka_alerts_about_the_client_certificate(alert, symptom):
    line = (f"%3|1|FAIL|rdkafka#producer-1| [thrd:ssl://b:9093/bootstrap]: ssl://b:9093/bootstrap: SSL handshake "
            f"failed: error:0A000412:SSL routines::{alert} (after 5ms in state SSL_HANDSHAKE)")
    assert [(s.symptom, s.host, s.port) for s in sightings(line)] == [(symptom, "b", 9093)]
