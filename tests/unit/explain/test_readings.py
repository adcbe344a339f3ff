"""What explain says when its lines fit more than one cause, or when an address's role is not the bootstrap's
(issue 16): roles from the lines around an address, readings instead of certainties, the broker's side of a
line, the families and formats real users paste, and what it says when it recognises nothing."""

from __future__ import annotations

from kdiag.explain.engine import explanation_to_dict
from kdiag.render import Format
from kdiag.render.explain import render_explanation
from tests.unit.explain.helpers import explained, ids, only


def _readings(text: str) -> list[tuple[str, str]]:
    return [(f.id, f.severity) for f in explained(text).findings]


# --- roles --------------------------------------------------------------------------------------------


def test_an_address_no_line_gives_a_role_gets_both_readings_each_saying_so():
    explanation = explained("dial tcp 127.0.0.1:9092: connect: connection refused")
    assert _readings("dial tcp 127.0.0.1:9092: connect: connection refused") == [
        ("BOOTSTRAP_REFUSED", "warning"), ("ADVERTISED_LOOPBACK", "warning")]
    first, other = explanation.findings
    assert first.title.startswith("Likely: ") and other.title.startswith("Or: ")
    assert first.evidence["readings"] == ["BOOTSTRAP_REFUSED", "ADVERTISED_LOOPBACK"]
    assert first.evidence["role"] is None and first.evidence["certain"] is False
    assert "No line says whether 127.0.0.1:9092 is the client's bootstrap address" in first.explanation
    assert "`kdiag bootstrap 127.0.0.1:9092`" in first.explanation


def test_a_go_client_dialling_inside_a_produce_is_at_an_advertised_broker_not_the_bootstrap():
    finding = only(explained('kafka.(*Client).Produce: dial tcp 127.0.0.1:9092: connect: connection refused"'),
                   "ADVERTISED_LOOPBACK")
    assert finding.evidence["role"] == "advertised" and "Produce" in finding.evidence["role_from"]
    # loopback, with no bootstrap shown: a client on the broker's machine whose broker is down reads the same
    assert finding.severity == "warning" and finding.evidence["readings"] == ["ADVERTISED_LOOPBACK", "BOOTSTRAP_REFUSED"]
    private = only(explained("kafka.(*Client).Produce: dial tcp 10.0.0.8:9092: connect: connection refused"),
                   "ADVERTISED_UNREACHABLE")
    assert private.severity == "error" and private.evidence["role"] == "advertised"


def test_a_group_request_dials_the_coordinator():
    finding = explained("JoinGroup: dial tcp 10.0.0.7:9092: connect: connection refused").findings[0]
    assert finding.id == "ADVERTISED_UNREACHABLE" and finding.evidence["role"] == "coordinator"


def test_librdkafka_s_group_coordinator_refused_on_ipv6_loopback_is_the_address_family_split():
    line = "GroupCoordinator: Connect to ipv6#[::1]:9092 failed: Connection refused (after 0ms in state CONNECT)"
    assert ids(explained(line))[:1] == ["ADVERTISED_ADDRESS_FAMILY_SPLIT"]


def test_an_old_librdkafka_connection_dialling_another_address_than_its_name_was_repointed_by_metadata():
    line = ("LOG-3-FAIL: 127.0.0.1:9093/bootstrap: Failed to connect to broker at new-host:9093: Connection refused")
    finding = only(explained(line), "ADVERTISED_UNREACHABLE")
    assert finding.evidence["role"] == "advertised" and "127.0.0.1:9093 dials new-host:9093" in finding.evidence[
        "role_from"]


def test_an_old_librdkafka_node_connection_to_localhost_is_the_loopback_advertised_reading_first():
    line = ("1449192392.132 RDKAFKA-3-FAIL: rdkafka#producer-0: localhost:9092/0: Failed to connect to broker at "
            "localhost:9092: Connection refused")
    assert _readings(line) == [("ADVERTISED_LOOPBACK", "warning"), ("ADVERTISED_UNREACHABLE", "warning"),
                               ("BOOTSTRAP_REFUSED", "warning")]


def test_a_refused_loopback_broker_the_metadata_named_by_id_may_be_one_that_stopped_on_a_one_machine_cluster():
    # aiokafka client.py: "Unable connect to node with id %s: %s" (a node from the metadata); 127.0.1.1 is the address
    # Debian's /etc/hosts gives the machine's own name, which a broker without advertised.listeners advertises
    line = "ERROR:aiokafka:Unable connect to node with id 2: [Errno 111] Connect call failed ('127.0.1.1', 9094)"
    assert _readings(line) == [("ADVERTISED_LOOPBACK", "warning"), ("ADVERTISED_UNREACHABLE", "warning"),
                               ("BOOTSTRAP_REFUSED", "warning")]
    assert only(explained(line), "ADVERTISED_UNREACHABLE").title.startswith("Or: ")


# --- readings: the client's guesses, a closed connection, consequences ------------------------------------


def test_librdkafkas_own_guess_is_likely_not_certain():
    line = ("%4|1|FAIL|rdkafka#producer-1| [thrd:b:9092/bootstrap]: b:9092/bootstrap: Disconnected: verify that "
            "security.protocol is correctly configured, broker might require SASL authentication (after 6ms in state UP)")
    finding = only(explained(line), "SASL_REQUIRED")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert "versions" in finding.explanation and finding.evidence["guess"]


def test_a_connection_the_broker_closed_is_each_listener_mismatch_and_broker_closed_connection():
    assert _readings("Error: kafka: client has run out of available brokers to talk to: EOF") == [
        ("TLS_EXPECTED", "warning"), ("SASL_REQUIRED", "warning"), ("TLS_UNEXPECTED", "warning"),
        ("BROKER_CLOSED_CONNECTION", "warning")]


def test_a_client_that_authenticates_reads_a_hang_up_as_its_credentials_first():
    paste = ("WARNING:kafka.net.sasl.plain:Sending username and password in the clear\n"
             "ERROR:kafka.net.connection:<KafkaConnection node_id=bootstrap-0 broker_version=(4, 3) (disconnected)>: "
             "Connection lost: KafkaConnectionError: socket disconnected")
    assert ids(explained(paste))[0] == "SASL_AUTH_FAILED"


def test_records_lost_with_no_cause_named_is_roundtrip_failed_as_a_warning_never_an_error():
    finding = only(explained("org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for t-0:120000 "
                             "ms has passed since batch creation"), "ROUNDTRIP_FAILED")
    assert finding.severity == "warning"


def test_no_bootstrap_address_reached_with_its_list_shown_is_each_way_a_bootstrap_fails_first():
    paste = "producer = KafkaProducer(bootstrap_servers=['kafka.example.com:9092'])\nkafka.errors.NoBrokersAvailable"
    assert _readings(paste)[:3] == [("BOOTSTRAP_UNRESOLVABLE", "warning"), ("BOOTSTRAP_REFUSED", "warning"),
                                    ("BOOTSTRAP_TIMEOUT", "warning")]


def test_a_bootstrap_on_zookeepers_port_is_likely_not_kafka_even_with_no_failure_printed():
    finding = only(explained("INFO:kafka.client:Bootstrapping cluster metadata from [('localhost', 2181, 0)]"),
                   "NOT_KAFKA")
    assert finding.severity == "warning" and "ZooKeeper" in finding.title


def test_an_advertised_broker_never_reached_for_no_stated_reason_is_each_way_an_advertised_address_fails():
    assert _readings("ConnectionError: No connection to node with id 1001") == [
        ("ADVERTISED_UNRESOLVABLE", "warning"), ("ADVERTISED_UNREACHABLE", "warning")]


# --- direction: the broker's own lines ------------------------------------------------------------------


def test_a_tls_record_the_broker_read_as_a_request_size_is_a_tls_client_at_a_plaintext_listener():
    line = "org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 369295617 larger than 104857600)"
    assert ids(explained(line)) == ["TLS_UNEXPECTED"]


def test_an_http_request_the_broker_read_as_a_request_size_says_nothing_about_kafka_clients():
    line = "org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 1195725856 larger than 104857600)"
    assert explained(line).findings == ()


def test_the_brokers_rejected_connection_is_broker_closed_connection():
    line = ("[2026-11-25 10:02:11,410] INFO Rejected connection from /10.0.0.7, address already has the configured "
            "maximum of 100 connections. (kafka.network.ConnectionQuotas)")
    finding = only(explained(line), "BROKER_CLOSED_CONNECTION")
    assert finding.severity == "error" and "max.connections.per.ip" in finding.fix


def test_the_brokers_ssl_handshake_failure_is_likely_a_plaintext_client():
    line = ("[2026-11-26 22:38:59,660] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
            "/127.0.0.1 (channelId=127.0.0.1:37899-127.0.0.1:58496-11-0) (SSL handshake failed) "
            "(org.apache.kafka.common.network.Selector)")
    finding = only(explained(line), "TLS_EXPECTED")
    assert finding.severity == "warning" and "certificate" in finding.explanation


# --- families and formats ---------------------------------------------------------------------------------


def test_kafkas_error_codes_are_read_in_every_clients_spelling():
    for line in ("panic: [34] Illegal SASL State: the request is not valid given the current SASL state",
                 "kafka server: Request is not valid given the current SASL state",
                 "ILLEGAL_SASL_STATE: Request is not valid given the current SASL state."):
        assert ids(explained(line)) == ["SASL_MECHANISM_MISMATCH"], line
    assert ids(explained("[29] Topic Authorization Failed: the client is not authorized")) == [
        "TOPIC_AUTHORIZATION_FAILED"]
    assert ids(explained("[3] Unknown Topic Or Partition: the request is for a topic or partition that does not "
                         "exist on this broker")) == ["TOPIC_NOT_FOUND"]


def test_kafka_python_and_aiokafka_name_their_connections_role():
    refused = ("ERROR:kafka.conn:Connect attempt to <BrokerConnection node_id=bootstrap-0 host=localhost:9092 "
               "<connecting> [IPv4 ('127.0.0.1', 9092)]> returned error 111. Disconnecting.")
    assert only(explained(refused), "BOOTSTRAP_REFUSED").evidence["role"] == "bootstrap"
    unresolved = "ERROR:aiokafka:Unable connect to \"kafka-1:9092\": [Errno -2] Name or service not known"
    assert ids(explained(unresolved)) == ["BOOTSTRAP_UNRESOLVABLE"]
    node = ("DEBUG [aiokafka] Initiating connection to node 1001 at 127.0.0.1:9092\n"
            "ERROR [aiokafka] Unable connect to node with id 1001: [Errno 111] Connection refused")
    assert ids(explained(node))[0] == "ADVERTISED_LOOPBACK"


def test_an_errno_kafka_python_does_not_understand_is_no_refused_connect():
    line = "kafka.conn ERROR Connect attempt to <BrokerConnection host=10.0.0.1 port=9092> returned error 10035."
    assert explained(line).findings == ()


def test_java_resolution_errors_beside_unknown_host_exception():
    paste = ("[Consumer clientId=c] Error connecting to node kafka-0.kafka:9092 (id: 0 rack: null)\n"
             "java.nio.channels.UnresolvedAddressException")
    assert only(explained(paste), "ADVERTISED_UNRESOLVABLE").evidence["host"] == "kafka-0.kafka"
    assert ids(explained("Caused by: sun.security.provider.certpath.SunCertPathBuilderException: unable to find "
                         "valid certification path to requested target")) == ["TLS_CERT_UNTRUSTED"]


def test_java_kerberos_lookup_failure_is_the_unknown_principal_not_credentials():
    line = ("ERROR [Producer clientId=p] Connection to node -1 (0.0.0.0/0.0.0.0:19092) failed authentication due to: "
            "An error: (java.security.PrivilegedActionException: javax.security.sasl.SaslException: GSS initiate failed "
            "[Caused by GSSException: No valid credentials provided (Mechanism level: Server not found in Kerberos "
            "database (7) - LOOKING_UP_SERVER)]) occurred when evaluating SASL token received from the Kafka Broker.")
    assert ids(explained(line)) == ["KERBEROS_PRINCIPAL_UNKNOWN"]


# --- when nothing is recognised -------------------------------------------------------------------------------


def test_with_nothing_recognised_the_lines_that_look_like_errors_and_what_to_run_are_said():
    explanation = explained("starting up\nERROR frobnicator exploded: code 7\nall fine\npanic: weird")
    assert explanation.findings == ()
    assert [n for n, _ in explanation.error_lines] == [2, 4]
    text = render_explanation(explanation, Format.TEXT)
    assert "line 2: ERROR frobnicator exploded: code 7" in text and "kdiag bootstrap <bootstrap.servers>" in text
    assert explanation_to_dict(explanation)["error_lines"][0] == {"line_number": 2,
                                                                  "line": "ERROR frobnicator exploded: code 7"}


def test_a_secret_in_an_unrecognised_error_line_is_not_printed():
    explanation = explained("ERROR login failed with sasl.password=hunter2-secret for alice")
    assert "hunter2-secret" not in render_explanation(explanation, Format.JSON)
    assert "hunter2-secret" not in render_explanation(explanation, Format.TEXT)


def test_a_certificate_without_the_name_is_read_in_java_go_and_python_words():
    for line in ("Caused by: java.security.cert.CertificateException: No name matching kafka.example.com found",
                 "tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to "
                 "match kafka-0.example",
                 "x509: certificate relies on legacy Common Name field, use SANs instead",
                 "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: IP address "
                 "mismatch, certificate is not valid for '10.0.0.5'. (_ssl.c:1129)"):
        assert ids(explained(line)) == ["TLS_HOSTNAME_MISMATCH"], line


def test_a_bare_ssl_handshake_failure_from_a_binding_is_a_reading():
    finding = explained("Confluent.Kafka.KafkaException: Local: SSL handshake failed").findings[0]
    assert finding.id == "TLS_CERT_UNTRUSTED" and finding.severity == "warning" and finding.title.startswith("Likely")


def test_a_refused_loopback_broker_named_by_its_node_id_is_that_broker_down_beside_the_loopback_reading():
    # aiokafka's connection error names the node: the bootstrap answered, then broker 2's loopback address refused
    found = _readings("ERROR:aiokafka:Unable connect to node with id 2: [Errno 111] Connect call failed "
                      "('127.0.1.1', 9094)")
    assert found == [("ADVERTISED_LOOPBACK", "warning"), ("ADVERTISED_UNREACHABLE", "warning"),
                     ("BOOTSTRAP_REFUSED", "warning")]
