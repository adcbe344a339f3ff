"""What a log as a whole says: roles from context, consequences, the kcat -L metadata, unknown input."""

from __future__ import annotations

from kdiag.explain.engine import explain_text
from kdiag.explain.observations import message_of
from tests.unit.explain.helpers import explained, ids, only

EC2 = "ip-172-31-18-160.us-west-2.compute.internal"
EC2_PUBLIC = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"

# The seed (003): the laptop's console producer, then kafkacat from the laptop.
SEED_PRODUCER = f"""\
echo "test"|kafka-console-producer --broker-list {EC2_PUBLIC}:9092 --topic test
>>[2018-07-30 15:08:41,932] ERROR Error when sending message to topic test with key: null, value: 4 bytes with error: \
(org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)
org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for test-0: 1547 ms has passed since batch \
creation plus linger time
"""
SEED_KCAT_LIST = f"""\
kafkacat -b {EC2_PUBLIC}:9092 -L
Metadata for all topics (from broker -1: {EC2_PUBLIC}:9092/bootstrap):
1 brokers:
  broker 0 at {EC2}:9092
"""
SEED_KCAT_CONSUME = f"""\
kafkacat -b {EC2_PUBLIC}:9092 -C -t test
% ERROR: Local: Host resolution failure: {EC2}:9092/0: Failed to resolve '{EC2}:9092': nodename nor servname \
provided, or not known
"""


def test_the_seeds_expiring_line_alone_says_what_it_can_mean_and_what_to_run():
    explanation = explained(SEED_PRODUCER.split("\n", 1)[1])
    finding = only(explanation, "ROUNDTRIP_FAILED")
    assert finding.severity == "warning"  # no line says why: "failed for another reason" is not certain
    assert "advertised address is unusable from the client's machine" in finding.explanation
    assert "EC2 internal name" in finding.explanation
    assert "kdiag bootstrap <bootstrap.servers> --topic test" in finding.fix


def test_the_seeds_expiring_line_with_its_command_gets_the_exact_command():
    finding = only(explained(SEED_PRODUCER), "ROUNDTRIP_FAILED")
    assert finding.evidence["confirm"] == f"kdiag bootstrap {EC2_PUBLIC}:9092 --topic test"
    assert finding.evidence["count"] == 1


def test_the_seeds_kcat_list_alone_is_a_warning_that_the_internal_name_is_advertised():
    """kcat -L "looks fine": kdiag says what the broker list means for a client outside the VPC."""
    finding = only(explained(SEED_KCAT_LIST), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "warning"
    assert finding.evidence["observed"] is False and finding.evidence["node_ids"] == [0]
    assert "never connects" in finding.explanation
    assert f"advertised.listeners=PLAINTEXT://{EC2_PUBLIC}:9092" in finding.fix  # the seed's Option 1
    assert f"INTERNAL://{EC2}:9092,EXTERNAL://{EC2_PUBLIC}:19092" in finding.fix  # and its Option 2


def test_the_whole_seed_session_gives_one_observed_finding_with_the_seeds_fix():
    explanation = explained(SEED_PRODUCER + SEED_KCAT_LIST + SEED_KCAT_CONSUME)
    assert ids(explanation) == ["ADVERTISED_UNRESOLVABLE"]
    finding = explanation.findings[0]
    assert finding.severity == "error" and finding.evidence["node_id"] == 0
    assert finding.evidence["confirm"] == f"kdiag bootstrap {EC2_PUBLIC}:9092 --topic test"
    assert any("Expiring" in c["line"] for c in finding.evidence["consequences"])
    assert "Option 1" in finding.fix and "Option 2" in finding.fix


def test_the_bootstrap_that_applies_is_the_last_one_named_above_the_error():
    text = ("kcat -b kafka0:9092 -L\nkcat -b broker.example.com:9092 -C -t orders\n"
            "kafka-1.internal:9092/1: Failed to resolve 'kafka-1.internal:9092': Name or service not known\n")
    finding = only(explained(text), "ADVERTISED_UNRESOLVABLE")
    assert finding.evidence["confirm"].startswith("kdiag bootstrap broker.example.com:9092")


def test_an_unknown_role_is_decided_by_the_host_kind_and_said_so():
    finding = only(explained("getaddrinfo ENOTFOUND 9c95dafd9323"), "ADVERTISED_UNRESOLVABLE")
    assert "Docker container id" in finding.evidence["role_from"] or "container" in finding.evidence["role_from"]
    finding = only(explained("dial tcp 10.0.0.5:9092: connect: connection refused"), "BOOTSTRAP_REFUSED")
    assert "bootstrap" in finding.evidence["role_from"]


def test_a_name_in_bootstrap_servers_is_a_bootstrap_even_when_no_line_says_so():
    text = ("bootstrap.servers = [kafka.corp.example:9092]\n"
            "dial tcp: lookup kafka.corp.example on 10.0.0.2:53: no such host\n")
    finding = only(explained(text), "BOOTSTRAP_UNRESOLVABLE")
    assert finding.evidence["role_from"] == "it is in the client's bootstrap.servers"


def test_loopback_advertised_while_bootstrapping_elsewhere_is_advertised_loopback():
    text = ("kcat -b broker.example.com:9092 -P -t t\n"
            "localhost:9092/1: Connect to ipv4#127.0.0.1:9092 failed: Connection refused (after 0ms in state CONNECT)\n")
    finding = only(explained(text), "ADVERTISED_LOOPBACK")
    assert finding.evidence["node_id"] == 1


def test_duplicate_and_nonroutable_addresses_in_a_broker_list():
    text = ("Metadata for all topics (from broker -1: lb.example.com:9092/bootstrap):\n 3 brokers:\n"
            "  broker 1 at kafka.example.com:9092 (controller)\n  broker 2 at kafka.example.com:9092\n"
            "  broker 3 at 0.0.0.0:9092\n")
    explanation = explained(text)
    assert set(ids(explanation)) == {"ADVERTISED_DUPLICATE", "ADVERTISED_NONROUTABLE"}
    duplicate = only(explanation, "ADVERTISED_DUPLICATE")
    assert duplicate.evidence["node_ids"] == [1, 2]
    assert "load balancer" in duplicate.explanation  # the usual cause: every broker advertises the balancer


def test_a_refused_address_of_an_endpoint_that_then_connected_is_only_a_note():
    text = ("ssl://kafka.example.com:9093/bootstrap: Connect to ipv6#[2001:db8::10]:9093 failed: Connection refused "
            "(after 0ms in state CONNECT)\nssl://kafka.example.com:9093/bootstrap: SSL handshake failed: "
            "error:0A000086:SSL routines::certificate verify failed: broker certificate could not be verified (after "
            "20ms in state SSL_HANDSHAKE)\n")
    explanation = explained(text)
    assert ids(explanation) == ["TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH", "BOOTSTRAP_REFUSED"]  # librdkafka's hint
    note = explanation.findings[2]  # fits both: a likely reading and an "Or:" one
    assert note.severity == "info" and "another address then connected" in note.title


def test_unknown_text_has_no_findings_and_counts_its_lines():
    explanation = explain_text("hello\nworld\n\n  \nGET /health 200\n")
    assert explanation.findings == () and explanation.lines == 3 and explanation.unrecognised_lines == 3


def test_binary_input_is_counted_not_matched():
    explanation = explain_text("\x00\x01 Failed to resolve 'x:9092': Name or service not known\nplain\n")
    assert explanation.findings == () and explanation.binary_lines == 1 and explanation.unrecognised_lines == 2


def test_a_topic_error_after_a_connectivity_failure_is_its_consequence():
    text = ("[t] WARN [Producer clientId=p] The metadata response from the cluster reported a recoverable issue with "
            "correlation id 1 : {t=UNKNOWN_TOPIC_OR_PARTITION} (org.apache.kafka.clients.NetworkClient)\n"
            f"[t] WARN [Producer clientId=p] Error connecting to node {EC2}:9092 (id: 1 rack: null) "
            "(org.apache.kafka.clients.NetworkClient)\n"
            f"java.net.UnknownHostException: {EC2}: Name or service not known\n")
    explanation = explained(text)
    assert ids(explanation) == ["ADVERTISED_UNRESOLVABLE"]


def test_message_of_drops_the_loggers_prefix_and_suffix():
    assert message_of("[2026-11-21 14:25:11,623] WARN [Producer clientId=p] Connection to node -1 (/1.2.3.4:9092) "
                      "could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)"
                      ) == "Connection to node -1 (/1.2.3.4:9092) could not be established. Node may not be available."
    assert message_of("%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:h:1/bootstrap]: h:1/bootstrap: Connect to "
                      "ipv4#1.2.3.4:1 failed: Connection refused (after 0ms in state CONNECT)") == (
        "h:1/bootstrap: Connect to ipv4#1.2.3.4:1 failed: Connection refused")


def test_every_finding_id_has_a_fix_from_its_rule_and_a_confirm_command():
    """The fixes come from the catalog's rules run over the report the log implies: if a rule stops
    firing for those facts, this fails instead of explain quietly printing no fix."""
    samples = {
        "BOOTSTRAP_UNRESOLVABLE": "k.example.com:9092/bootstrap: Failed to resolve 'k.example.com:9092': Name or service not known",
        "BOOTSTRAP_REFUSED": "k:9092/bootstrap: Connect to ipv4#10.0.0.1:9092 failed: Connection refused",
        "BOOTSTRAP_TIMEOUT": "k:9092/bootstrap: Connection setup timed out in state CONNECT (after 30000ms in state CONNECT)",
        "BOOTSTRAP_UNREACHABLE": "k:9092/bootstrap: Connect to ipv4#10.0.0.1:9092 failed: No route to host",
        "ADVERTISED_UNRESOLVABLE": "kafka-1:9092/1: Failed to resolve 'kafka-1:9092': Name or service not known",
        "ADVERTISED_LOOPBACK": "localhost:9092/1: Connect to ipv4#127.0.0.1:9092 failed: Connection refused",
        "ADVERTISED_UNREACHABLE": "k2:9092/2: Connect to ipv4#10.0.0.2:9092 failed: Connection refused",
        "ADVERTISED_NONROUTABLE": "0.0.0.0:9092/1: Connect to ipv4#0.0.0.0:9092 failed: Connection refused",
        "TLS_EXPECTED": ("k:9093/bootstrap: Disconnected while requesting ApiVersion: might be caused by incorrect "
                         "security.protocol configuration (connecting to a SSL listener?)"),
        "TLS_UNEXPECTED": "ssl://k:9092/bootstrap: SSL handshake failed: Disconnected: connecting to a PLAINTEXT broker listener?",
        "TLS_CERT_UNTRUSTED": "ssl://k:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::certificate verify failed",
        "TLS_HOSTNAME_MISMATCH": "java.security.cert.CertificateException: No subject alternative DNS name matching k found.",
        "SASL_REQUIRED": "k:9094/bootstrap: Disconnected: verify that security.protocol is correctly configured, broker might require SASL authentication",
        "SASL_MECHANISM_MISMATCH": ("sasl_ssl://k:9096/bootstrap: SASL SCRAM-SHA-512 mechanism handshake failed: Broker: "
                                    "Unsupported SASL mechanism: broker's supported mechanisms: PLAIN"),
        "SASL_AUTH_FAILED": "sasl_ssl://k:9096/bootstrap: SASL authentication error: Authentication failed",
        "TOPIC_NOT_FOUND": "% ERROR: Topic orders error: Broker: Unknown topic or partition",
        "TOPIC_AUTHORIZATION_FAILED": "% ERROR: Topic orders error: Broker: Topic authorization failed",
        "NO_LEADER": "org.apache.kafka.common.errors.ListenerNotFoundException: There is no listener on the leader broker that matches the listener on which metadata request was processed.",
        "NOT_KAFKA": "k:8080/bootstrap: Receive failed: Invalid response size 1213486160 (0..100000000)",
    }
    for finding_id, line in samples.items():
        finding = only(explained(line), finding_id)
        body = finding.fix.split("Confirm it from the client's machine:")[0]
        assert len(body.strip()) > 40, (finding_id, finding.fix)
        assert "kdiag bootstrap" in finding.fix and finding.evidence["confirm"].startswith("kdiag bootstrap ")
