"""The Java client's words about its own connection state, in kafka-clients' own wording: ClusterConnectionStates'
``No entry found for connection N`` (KAFKA-7974: a node's host that did not resolve, in 2.1 and 2.2), Selector's
``Connection with h/ip disconnected``, a SASL mechanism the client's JVM cannot set up (SaslClientAuthenticator's
``Failed to create SaslClient``, JAAS's ``No LoginModule found``); and two readings of a client that says less: records
that expired waiting for a leader, a certificate refused at an ingress's port 443."""

from __future__ import annotations

import pytest

from kdiag.explain.sightings import HEDGE
from tests.unit.explain.helpers import explained, ids, only

KAFKA_7974 = """\
ERROR [kafka-admin-client-thread | adminclient-1] 2019-02-18 01:00:45,597 KafkaThread.java:51 - Uncaught exception in thread 'kafka-admin-client-thread | adminclient-1':
java.lang.IllegalStateException: No entry found for connection 0
    at org.apache.kafka.clients.ClusterConnectionStates.nodeState(ClusterConnectionStates.java:330)
    at org.apache.kafka.clients.ClusterConnectionStates.disconnected(ClusterConnectionStates.java:134)
    at org.apache.kafka.clients.NetworkClient.initiateConnect(NetworkClient.java:921)
"""


def test_no_entry_for_a_broker_is_likely_its_advertised_name_not_resolving():
    finding = only(explained(KAFKA_7974), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert finding.evidence["role"] == "advertised" and finding.evidence["node_id"] == 0
    assert "KAFKA-7974" in finding.explanation and "kdiag bootstrap" in finding.explanation


@pytest.mark.parametrize("text", [
    "java.lang.IllegalStateException: No entry found for connection 2147483646",
    '{"error":"Failed to sample data: No entry found for connection 2147483646"}',
])
def test_no_entry_for_a_coordinator_connection_names_the_coordinators_broker(text):
    finding = only(explained(text), "ADVERTISED_UNRESOLVABLE")
    assert finding.severity == "warning"
    assert finding.evidence["role"] == "coordinator" and finding.evidence["node_id"] == 1
    assert "Integer.MAX_VALUE - 1" in finding.evidence["role_from"]


def test_no_entry_for_a_bootstrap_connection_is_the_bootstrap_name():
    found = explained("java.lang.IllegalStateException: No entry found for connection -1").findings
    assert [f.id for f in found] == ["BOOTSTRAP_UNRESOLVABLE"] and found[0].severity == "warning"


@pytest.mark.parametrize("line", [
    "org.apache.kafka.common.errors.SaslAuthenticationException: Failed to create SaslClient with mechanism PLAIN",
    "org.apache.kafka.common.KafkaException: Failed to create SaslClient with mechanism SCRAM-SHA-512",
    "org.apache.kafka.common.KafkaException: Failed to configure SaslClientAuthenticator",
    "javax.security.auth.login.LoginException: No LoginModule found for "
    "org.apache.kafka.common.security.plain.PlainLoginModule",
    "org.apache.kafka.common.errors.SaslAuthenticationException: Unable to find LoginModule class: "
    "org.apache.kafka.common.security.scram.ScramLoginModule",
])
def test_a_mechanism_the_clients_jvm_cannot_set_up_is_no_refused_login(line):
    found = explained(line).findings
    assert "SASL_AUTH_FAILED" not in [f.id for f in found]
    assert all(f.severity != "error" for f in found)


def test_a_refused_login_is_still_one():
    line = ("org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during authentication "
            "due to invalid credentials with SASL mechanism SCRAM-SHA-256")
    assert ids(explained(line)) == ["SASL_AUTH_FAILED"]


@pytest.mark.parametrize("line", [
    "org.apache.kafka.common.network.Selector - Connection with localhost/127.0.0.1 disconnected",
    "[2018-12-27 10:00:00,000] DEBUG Connection with /127.0.0.1 disconnected (org.apache.kafka.common.network.Selector)",
])
def test_a_loopback_connection_that_ended_reads_as_an_advertised_loopback(line):
    found = explained(line).findings
    assert "ADVERTISED_LOOPBACK" in [f.id for f in found]
    assert all(f.severity == "warning" for f in found)


def test_a_bootstrap_reading_with_no_port_in_the_log_names_none():
    """Selector's line names a host and its address, no port: the reading does not make one up (9092)."""
    found = only(explained("org.apache.kafka.common.network.Selector - Connection with localhost/127.0.0.1 "
                           "disconnected\njava.net.ConnectException: Connection refused\n"), "BOOTSTRAP_REFUSED")
    assert "9092" not in found.title and "port 9092" not in found.explanation
    assert "localhost (127.0.0.1)" in found.title


def test_another_address_that_ended_says_nothing_by_itself():
    line = "DEBUG Connection with kafka1.example.com/10.0.0.5 disconnected (org.apache.kafka.common.network.Selector)"
    assert ids(explained(line)) == []


EXPIRED = ("org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for test-0: 1547 ms has passed "
           "since batch creation plus linger time")


def test_records_that_expired_in_a_partitions_batch_read_as_its_leader_unusable():
    found = explained(f"$ kafka-console-producer --broker-list ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 "
                      f"--topic test\n{EXPIRED}\n").findings
    got = {f.id: f for f in found}
    assert {"ROUNDTRIP_FAILED", "ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE", "ADVERTISED_LOOPBACK"} <= set(got)
    assert all(f.severity == "warning" for f in found)
    assert got["ADVERTISED_UNRESOLVABLE"].title.startswith("Maybe: ")


def test_a_loopback_bootstrap_leaves_out_the_loopback_leader():
    found = explained(f"$ kafka-console-producer --bootstrap-server localhost:9092 --topic test\n{EXPIRED}\n")
    assert "ADVERTISED_LOOPBACK" not in ids(found)


TLS_FAILED = ("[2022-10-12 22:17:03,679] ERROR [Producer clientId=console-producer] Connection to node -1 "
              "(bootstrap.kafka.example.com/192.168.205.14:{port}) failed authentication due to: SSL handshake failed "
              "(org.apache.kafka.clients.NetworkClient)")


def test_a_handshake_failed_at_an_ingress_port_reads_as_its_default_backend_too():
    found = explained(TLS_FAILED.format(port=443)).findings
    ingress = next(f for f in found if f.id == "INGRESS_DEFAULT_BACKEND")
    assert ingress.severity == "warning" and ingress.title.startswith("Or: ")
    assert "--enable-ssl-passthrough" in ingress.explanation
    assert found[0].id == "TLS_CERT_UNTRUSTED"


def test_a_handshake_failed_at_a_broker_port_is_no_ingress():
    assert "INGRESS_DEFAULT_BACKEND" not in ids(explained(TLS_FAILED.format(port=9093)))


def test_librdkafkas_certificate_refused_at_port_443_reads_as_the_ingress_too():
    line = ("%3|1601|FAIL|rdkafka#producer-1| [thrd:ssl://kafka.example.com:443/bootstrap]: "
            "ssl://kafka.example.com:443/bootstrap: SSL handshake failed: error:1416F086:SSL routines:"
            "tls_process_server_certificate:certificate verify failed: broker certificate could not be verified, verify "
            "that ssl.ca.location is correctly configured or root CA certificates are installed (install ca-certificates "
            "package) (after 40ms in state SSL_HANDSHAKE)")
    found = explained(line).findings
    assert "INGRESS_DEFAULT_BACKEND" in [f.id for f in found]
    assert all(f.severity == "warning" for f in found if f.id == "INGRESS_DEFAULT_BACKEND")


def test_words_that_only_show_where_a_cause_surfaced_are_not_called_the_clients_guess():
    """``No entry found for connection 2`` is where a failed lookup surfaced (KAFKA-7974), not a client's hedge: the
    likely reading says so; a client's own hedge (``Broker may not be available``) is still called its guess."""
    found = only(explained("java.lang.IllegalStateException: No entry found for connection 2\n"),
                 "ADVERTISED_UNRESOLVABLE")
    assert "do not name the cause, only where it surfaced" in found.explanation
    assert "are a guess" not in found.explanation


@pytest.mark.parametrize("words, hedged", [("Broker may not be available", True), ("might be caused by x", True),
                                           ("is SASL missing?", True), ("Make sure 'ssl' option is in client config", True),
                                           ("No entry found for connection 2", False), ("SSL handshake failed", False)])
def test_a_hedge_is_told_from_where_a_cause_surfaced(words, hedged):
    assert bool(HEDGE.search(words)) is hedged


# kafka-clients Selector.connect: UnresolvedAddressException rethrown as IOException("Can't resolve address: " +
# address); an unresolved InetSocketAddress prints host:port before Java 14, host/<unresolved>:port since.
@pytest.mark.parametrize("line", [
    "java.io.IOException: Can't resolve address: kafka-1.example/<unresolved>:9092",
    "java.io.IOException: Can't resolve address: kafka-1.example:9092",
])
def test_selectors_cant_resolve_alone_gives_both_roles_as_readings(line):
    found = explained(line).findings
    assert sorted((f.id, f.severity) for f in found) == [("ADVERTISED_UNRESOLVABLE", "warning"),
                                                         ("BOOTSTRAP_UNRESOLVABLE", "warning")]
    assert all(f.evidence["host"] == "kafka-1.example" and f.evidence["port"] == 9092 for f in found)


@pytest.mark.parametrize("node, finding_id", [("1", "ADVERTISED_UNRESOLVABLE"), ("-1", "BOOTSTRAP_UNRESOLVABLE")])
def test_selectors_cant_resolve_takes_its_role_from_the_connection_above(node, finding_id):
    paste = (f"WARN [Consumer clientId=c-1, groupId=g] Error connecting to node kafka-1.example:9092 (id: {node} rack: "
             "null) (org.apache.kafka.clients.NetworkClient)\n"
             "java.io.IOException: Can't resolve address: kafka-1.example/<unresolved>:9092\n"
             "\tat org.apache.kafka.common.network.Selector.doConnect(Selector.java:235)\n")
    found = explained(paste).findings
    assert [(f.id, f.severity) for f in found] == [(finding_id, "error")]


def test_zookeepers_unable_to_resolve_is_not_a_kafka_connection():
    line = ("WARN [main-SendThread(zk-1.example:2181)] Unable to resolve address: zk-1.example:2181 "
            "(org.apache.zookeeper.ClientCnxn)")
    assert ids(explained(line)) == []


def test_selectors_cant_resolve_on_a_coordinators_connection_names_its_broker_and_says_why():
    # connection 2147483646 is Integer.MAX_VALUE - 1: the group coordinator, broker 1 (node_where, as every Java line)
    paste = ("WARN [Consumer clientId=c-1, groupId=g] Error connecting to node kafka-1.example:9092 (id: 2147483646 "
             "rack: null) (org.apache.kafka.clients.NetworkClient)\n"
             "java.io.IOException: Can't resolve address: kafka-1.example/<unresolved>:9092\n")
    [finding] = explained(paste).findings
    assert finding.evidence["node_id"] == 1 and "Integer.MAX_VALUE - 1" in str(finding.evidence.get("role_from"))
