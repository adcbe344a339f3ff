"""The classes of output that cases outside the corpus brought and explain missed, each read by class: lines written
from the clients' and the broker's sources (what they print), never copied from a case."""

from __future__ import annotations

import pytest

from kdiag.explain.engine import explain_text


def found(text: str) -> list[tuple[str, str]]:
    return [(f.id, f.severity) for f in explain_text(text).findings]


# --- 1. a name that does not resolve, and no line says whose -------------------------------------------------


@pytest.mark.parametrize("line", [
    "OSError: [Errno -2] Name or service not known",  # asyncio / aiokafka re-raise getaddrinfo's error so
    "[Errno -3] Temporary failure in name resolution",
    "WARNING:kafka.client:Unable to resolve kafka:29092 -- [Errno 8] nodename nor servname provided, or not known",
    "kafka.errors.KafkaConnectionError: [Errno 11001] getaddrinfo failed",  # Windows
])
def test_a_resolver_error_without_its_exceptions_name_gives_both_readings_hedged(line):
    assert sorted(found(line)) == [("ADVERTISED_UNRESOLVABLE", "warning"), ("BOOTSTRAP_UNRESOLVABLE", "warning")]


def test_a_family_that_names_the_host_still_decides_the_role():
    assert found('ERROR:aiokafka:Unable connect to "kafka:9092": [Errno -2] Name or service not known') == [
        ("BOOTSTRAP_UNRESOLVABLE", "error")]


# --- 2. one advertised address for every broker, seen only in the brokers' or an operator's output ------------


@pytest.mark.parametrize("text", [
    # the brokers' configuration dumps, one per replica (compose heads on each line)
    "kafka-0  | [2024-05-01 10:00:00,000] INFO KafkaConfig values:\nkafka-0  | \tadvertised.listeners = "
    "PLAINTEXT://kafka.example.com:9092\nkafka-0  | \tbroker.id = 0\nkafka-0  | \tnode.id = 0\n"
    "kafka-1  | [2024-05-01 10:00:01,000] INFO KafkaConfig values:\nkafka-1  | \tadvertised.listeners = "
    "PLAINTEXT://kafka.example.com:9092\nkafka-1  | \tbroker.id = 1\nkafka-1  | \tnode.id = 1\n",
    # a chart's or a compose file's environment, the id before or after the listeners
    "- KAFKA_CFG_NODE_ID=0\n- KAFKA_CFG_ADVERTISED_LISTENERS=PLAINTEXT://my-kafka.default.svc.cluster.local:9092\n"
    "- KAFKA_CFG_ADVERTISED_LISTENERS=PLAINTEXT://my-kafka.default.svc.cluster.local:9092\n- KAFKA_CFG_NODE_ID=1\n",
    # ZooKeeper mode's registration
    "INFO Registered broker 1 at path /brokers/ids/1 with addresses: PLAINTEXT://kafka:9092, czxid (broker epoch): 25\n"
    "INFO Registered broker 2 at path /brokers/ids/2 with addresses: PLAINTEXT://kafka:9092, czxid (broker epoch): 27\n",
    # KRaft's controller; its own CONTROLLER listener is not one clients are given
    "INFO Replayed RegisterBrokerRecord(brokerId=1, incarnationId=x, brokerEpoch=5, endPoints=[BrokerEndpoint("
    "name='PLAINTEXT', host='kafka-lb', port=9092, securityProtocol=0), BrokerEndpoint(name='CONTROLLER', "
    "host='kafka-1', port=9093, securityProtocol=0)], features=[])\n"
    "INFO Replayed RegisterBrokerRecord(brokerId=2, incarnationId=y, brokerEpoch=6, endPoints=[BrokerEndpoint("
    "name='PLAINTEXT', host='kafka-lb', port=9092, securityProtocol=0)], features=[])\n",
], ids=["config-dumps", "environment", "zookeeper-registration", "kraft-registration"])
def test_several_brokers_at_one_advertised_address_in_broker_or_operator_output_is_advertised_duplicate(text):
    assert ("ADVERTISED_DUPLICATE", "error") in found(text)


@pytest.mark.parametrize("text", [
    "replicaCount: 3\nconfig: |\n  advertised.listeners=PLAINTEXT://kafka.example.com:9092\n",
    "spec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: kafka\n          env:\n"
    "            - name: KAFKA_ADVERTISED_LISTENERS\n              value: \"PLAINTEXT://kafka-svc.default.svc:9092\"\n",
], ids=["helm-values", "statefulset-env"])
def test_replicas_given_one_advertised_value_are_likely_advertised_duplicate(text):
    [finding] = explain_text(text).findings
    assert (finding.id, finding.severity) == ("ADVERTISED_DUPLICATE", "warning") and finding.title.startswith("Likely: ")
    assert finding.evidence["replicas"] == 3


@pytest.mark.parametrize("text", [
    "  replicas: 3\n    - name: KAFKA_ADVERTISED_LISTENERS\n      value: \"PLAINTEXT://$(POD_NAME).kafka-headless:9092\"\n",
    "replicaCount: 1\n  advertised.listeners=PLAINTEXT://kafka.example.com:9092\n",
], ids=["made-per-pod", "one-replica"])
def test_a_value_made_per_pod_or_a_single_replica_is_no_duplicate(text):
    assert found(text) == []


def test_brokers_each_with_their_own_address_are_no_duplicate():
    text = ("INFO KafkaConfig values:\n\tadvertised.listeners = PLAINTEXT://broker1:9092\n\tbroker.id = 1\n"
            "\tnode.id = 1\nINFO KafkaConfig values:\n\tadvertised.listeners = PLAINTEXT://broker2:9092\n"
            "\tbroker.id = 2\n\tnode.id = 2\n")
    assert found(text) == []


# --- 3. TLS on one side only, in a Go client that says only EOF or an alert -----------------------------------


def test_a_go_clients_bare_eof_is_a_tls_mismatch_either_way_hedged():
    readings = found("Error: kafka: client has run out of available brokers to talk to: EOF")
    assert ("TLS_UNEXPECTED", "warning") in readings and ("TLS_EXPECTED", "warning") in readings
    assert all(severity == "warning" for _, severity in readings)


def test_sarama_sending_its_first_request_into_a_closed_handshake_is_tls_on_a_plaintext_listener():
    line = "[sarama] 2024/05/01 10:00:00 Error while sending ApiVersionsRequest to broker kafka:9093: EOF"
    assert found(line)[0][0] == "TLS_UNEXPECTED"


@pytest.mark.parametrize("alert, finding_id", [("certificate required", "TLS_CLIENT_CERT_REQUIRED"),
                                               ("bad certificate", "TLS_CLIENT_CERT_REQUIRED"),
                                               ("unknown certificate authority", "TLS_CLIENT_CERT_REJECTED")])
def test_a_listeners_alert_in_gos_words_is_about_the_clients_certificate(alert, finding_id):
    assert found(f"[sarama] Failed to connect to broker kafka:9093: remote error: tls: {alert}") == [(finding_id, "error")]


def test_a_bare_handshake_failure_alert_is_only_a_reading():
    readings = found("failed to dial: failed to open connection to kafka:9093: remote error: tls: handshake failure")
    assert readings and all(severity == "warning" for _, severity in readings)


# --- 4. SASL required and not configured, where the client reports only a closed connection ----------------


def _titles(text: str) -> dict[str, str]:
    return {f.id: f.title for f in explain_text(text).findings}


def test_a_closed_connection_to_an_msk_sasl_port_makes_sasl_and_tls_the_likely_readings():
    titles = _titles("failed to dial: failed to open connection to b-1.c.kafka.us-east-1.amazonaws.com:9096: EOF")
    assert titles["SASL_REQUIRED"].startswith("Likely: ") and titles["TLS_EXPECTED"].startswith("Likely: ")
    assert titles["BROKER_CLOSED_CONNECTION"].startswith("Maybe: ")


def test_a_sasl_listener_on_the_brokers_side_makes_sasl_required_the_likely_reading_of_a_closed_connection():
    text = ("kafka-1  | \tlistener.security.protocol.map = INTERNAL:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT\n"
            "app-1  | KafkaJSNumberOfRetriesExceeded: Closed connection\n")
    titles = _titles(text)
    assert titles["SASL_REQUIRED"].startswith("Likely: ") and titles["TLS_EXPECTED"].startswith("Maybe: ")
    assert all(f.severity == "warning" for f in explain_text(text).findings)


def test_a_client_that_authenticates_is_refused_not_missing_sasl_even_at_a_sasl_port():
    text = "sasl.mechanism=SCRAM-SHA-512\nfailed to dial: failed to open connection to b-1.c.kafka.us-east-1.amazonaws.com:9096: EOF"
    titles = _titles(text)
    assert "SASL_REQUIRED" not in titles and titles["SASL_AUTH_FAILED"].startswith("Likely: ")


# --- 5. the broker reset or closed the connection (kafkajs, Node) ---------------------------------------------


@pytest.mark.parametrize("line", ["KafkaJSConnectionError: Connection error: read ECONNRESET",
                                  "KafkaJSNumberOfRetriesExceeded: Closed connection",
                                  "KafkaJSConnectionError: Connection error: write EPIPE"])
def test_a_reset_or_closed_connection_is_broker_closed_connection_among_its_usual_causes_hedged(line):
    readings = found(line)
    assert ("BROKER_CLOSED_CONNECTION", "warning") in readings and ("SASL_REQUIRED", "warning") in readings
    assert all(severity == "warning" for _, severity in readings)


# --- the IPv4/IPv6 split, read from a refused localhost ---------------------------------------------------------


def test_a_refused_localhost_by_name_is_refused_with_the_ipv6_split_as_a_reading():
    readings = found("%3|1418300191.571|FAIL|rdkafka#producer-0| localhost:9092/bootstrap: Failed to connect to broker "
                     "at [localhost]:9092: Connection refused\n")
    assert readings == [("BOOTSTRAP_REFUSED", "error"), ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning")]


def test_a_refused_loopback_address_is_no_split():
    readings = found("%3|1|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: "
                     "Connect to ipv4#127.0.0.1:9092 failed: Connection refused (after 0ms in state CONNECT)\n")
    assert [i for i, _ in readings] == ["BOOTSTRAP_REFUSED"]


def test_no_broker_reached_through_localhost_includes_the_split_among_the_readings():
    text = (">>> p = KafkaProducer(bootstrap_servers=['localhost:9092'])\n"
            "kafka.errors.NoBrokersAvailable: NoBrokersAvailable\n")
    assert ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning") in found(text)


# --- a line that lists several causes itself is a reading, unless the paste's settings decide -----------------

TERMINATED = ("[2024-05-01 10:00:00,000] WARN [Producer clientId=p] Connection to node -1 (kafka/10.0.0.5:9092) "
              "terminated during authentication. This may happen due to any of the following reasons: (1) Firewall "
              "blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue. "
              "(org.apache.kafka.clients.NetworkClient)\n")


def test_javas_terminated_during_authentication_alone_is_likely_tls_on_a_plaintext_listener():
    [finding] = explain_text(TERMINATED).findings
    assert (finding.id, finding.severity) == ("TLS_UNEXPECTED", "warning") and finding.title.startswith("Likely: ")
    assert "SASL client without TLS" in finding.explanation


def test_javas_terminated_during_authentication_with_tls_on_in_the_paste_is_a_likely_hang_up_in_the_handshake():
    # a plaintext listener hangs up on a ClientHello; a firewall or a broker turning connections away too (its own words)
    assert found("\tsecurity.protocol = SSL\n" + TERMINATED) == [("TLS_UNEXPECTED", "warning"),
                                                                ("BROKER_CLOSED_CONNECTION", "warning")]


# --- a tool that says only EOF, behind any prefix -----------------------------------------------------------


@pytest.mark.parametrize("line", ["[2021-05-19 13:34:01] ERROR EOF",  # topicctl's logger
                                  "Error creating topic: EOF",
                                  "ERRO[0019] Failed to get controller., OriginalError: EOF",
                                  "E0620 19:42:09.201265       1 broker.go:58] authenticate error : EOF"])
def test_an_error_line_ending_in_eof_is_a_closed_connection_hedged(line):
    readings = found(line)
    assert ("BROKER_CLOSED_CONNECTION", "warning") in readings
    assert all(severity == "warning" for _, severity in readings)


def test_a_parsers_eof_is_not_a_connections():
    assert found("Error: yaml: unexpected EOF") == []


def test_saramas_tls_dial_timeout_is_a_timeout_reading_never_a_certainty():
    readings = found("[sarama] 2024/05/01 10:00:00 Failed to connect to broker kafka.example.com:9093: tls: "
                     "DialWithDialer timed out")
    assert ("BOOTSTRAP_TIMEOUT", "warning") in readings and all(severity == "warning" for _, severity in readings)


# --- a client's own guess, and the other causes its words cover as "Or" readings ---------------------------


def test_franz_gos_is_sasl_missing_guess_comes_with_the_tls_mismatches_as_or_readings():
    line = ("[WARN] read from broker errored, killing connection after 0 successful responses (is SASL missing?); "
            "req: ApiVersions, addr: kafka.example.com:9092, broker: seed_0, err: EOF")
    findings = explain_text(line).findings
    assert (findings[0].id, findings[0].title.split(":")[0]) == ("SASL_REQUIRED", "Likely")
    assert ("TLS_UNEXPECTED", "Or") in [(f.id, f.title.split(":")[0]) for f in findings]
    assert all(f.severity == "warning" for f in findings)


def test_a_client_that_authenticates_gets_no_sasl_required_or_reading():
    line = ("%3|1|FAIL|rdkafka#producer-1| [thrd:k:9092/bootstrap]: k:9092/bootstrap: Disconnected while requesting "
            "ApiVersion: might be caused by incorrect security.protocol configuration (connecting to a SSL listener?) "
            "or broker version is < 0.10 (see api.version.request) (after 0ms in state APIVERSION_QUERY)")
    assert [i for i, _ in found(line)][0] == "TLS_EXPECTED"
    assert "SASL_REQUIRED" not in [i for i, _ in found("sasl.mechanism=PLAIN\nsasl.username=app\n" + line)]


def test_a_guess_whose_pattern_names_no_alternatives_gets_the_known_other_causes():
    line = ("%3|1|FAIL|rdkafka#producer-1| [thrd:k:9092/bootstrap]: k:9092/bootstrap: Disconnected while requesting "
            "ApiVersion: verify that security.protocol is correctly configured, broker might require SASL authentication "
            "(after 1ms in state APIVERSION_QUERY)")
    readings = found(line)
    assert readings[0] == ("SASL_REQUIRED", "warning") and ("TLS_EXPECTED", "warning") in readings


@pytest.mark.parametrize("line", [
    # KafkaServer (ZooKeeper mode): require(..., s"Configured end points ... in advertised listeners are already
    # registered by broker ${id}")
    "java.lang.IllegalArgumentException: requirement failed: Configured end points kf-kafka-headless.default:9092 in "
    "advertised listeners are already registered by broker 1001",
    "[2024-01-01 10:00:00,000] ERROR [KafkaServer id=1002] Fatal error during KafkaServer startup. Prepare to shutdown "
    "(kafka.server.KafkaServer)\njava.lang.IllegalArgumentException: requirement failed: Configured end points "
    "PLAINTEXT://kafka:9092 in advertised listeners are already registered by broker 1001",
])
def test_a_broker_refused_an_address_another_broker_id_registered_is_likely_advertised_duplicate(line):
    findings = explain_text(line).findings
    assert [(f.id, f.severity) for f in findings] == [("ADVERTISED_DUPLICATE", "warning")]
    assert findings[0].title.startswith("Likely: Broker 1001 already registered ")
    assert "restarted under a new broker.id" in findings[0].explanation
