"""The classes the twelfth and thirteenth collection rounds' misses asked for (holdout6 and holdout7, each scored blind,
then read), each from the source's own format string, with invented hosts (documentation names and addresses) and a
near miss beside it."""

from __future__ import annotations

import pytest

from kdiag.explain.engine import explain_text
from tests.unit.explain.sweep_rows import reads

BROKER = "[2026-12-08 01:00:00,000] INFO [SocketServer brokerId=2] Failed authentication with {peer} ({why}) " \
         "(org.apache.kafka.common.network.Selector)"
REPORTER = "[2026-12-08 01:00:00,000] DEBUG [Producer clientId=reporter] {words} (org.apache.kafka.clients.NetworkClient)"

ROWS = [
    # The broker's Selector (2.x names the client "name/ip", KRaft "/ip (channelId=...)"), with the client's address
    # hidden as pastes hide it: a word in capitals, <...>, ***
    (BROKER.format(peer="INTERNAL_IP/INTERNAL_IP", why="Unsupported SASL mechanism PLAIN"), "SASL_MECHANISM_MISMATCH"),
    (BROKER.format(peer="/<client-ip>", why="Unsupported SASL mechanism PLAIN"), "SASL_MECHANISM_MISMATCH"),
    (BROKER.format(peer="/***", why="Authentication failed: Invalid username or password"), "SASL_AUTH_FAILED"),
    # near miss: a client's own line naming its broker "name/ip" is not the broker's word (no [SocketServer] context)
    ("Failed authentication with CLIENT_HOST/CLIENT_IP (Unsupported SASL mechanism PLAIN)", "no:SASL_MECHANISM_MISMATCH"),
    # NetworkClient's DEBUG "Node -N disconnected.": a bootstrap connection closed, which at a first request is a
    # listener wanting TLS or SASL, or one turning the connection away: readings, none certain
    (REPORTER.format(words="Node -2 disconnected."),
     "or:TLS_EXPECTED or:SASL_REQUIRED or:BROKER_CLOSED_CONNECTION no:BOOTSTRAP_REFUSED"),
    # near miss: a broker the metadata named (a positive id) closes idle connections every connections.max.idle.ms
    (REPORTER.format(words="Node 2 disconnected."), "no:TLS_EXPECTED no:SASL_REQUIRED no:BROKER_CLOSED_CONNECTION"),
]


@pytest.mark.parametrize("text, expectation", ROWS)
def test_holdout6_classes_read_as_their_sources_mean(text, expectation):
    reads(text + "\n", expectation)


# --- the thirteenth round (holdout7): a port from a Kubernetes service link -----------------------------------

SERVICE_LINK = ("failed to dial: failed to open connection to [kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092]:9092: "
                "dial tcp: lookup kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092: no such host")


@pytest.mark.parametrize("line", [
    SERVICE_LINK,  # kafka-go
    "[sarama] 2026/12/08 01:00:00 Failed to connect to broker kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092: dial tcp: "
    "lookup kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092 on 10.96.0.10:53: no such host",
])
def test_a_port_from_a_kubernetes_service_link_is_a_certain_bootstrap_address_built_from_that_variable(line):
    [finding] = explain_text(line + "\n").findings
    assert (finding.id, finding.severity) == ("BOOTSTRAP_UNRESOLVABLE", "error")
    assert "service link" in finding.title and "enableServiceLinks: false" in finding.fix
    assert "kdiag bootstrap kafka.ns.svc.cluster.local:9092" in finding.fix


def test_a_listeners_scheme_and_a_plain_name_keep_their_own_readings():
    scheme = "dial tcp: lookup SASL_SSL://kafka.ns.svc.cluster.local:9092: no such host"
    [finding] = explain_text(scheme + "\n").findings
    assert "listener's scheme" in finding.title and "service link" not in finding.explanation
    plain = "dial tcp: lookup kafka.ns.svc.cluster.local: no such host"
    assert all("service link" not in f.title for f in explain_text(plain + "\n").findings)


# UNKNOWN_TOPIC_OR_PARTITION's own words with no topic named: a partition the topic does not have, or a broker that
# no longer hosts it, answer the same; likely, not certain. A topic the metadata names missing stays certain.
@pytest.mark.parametrize("text, expectation", [
    ("Failed to send message to mirror_out:\nUNKNOWN_TOPIC_OR_PARTITION: This server does not host this "
     "topic-partition", "likely:TOPIC_NOT_FOUND"),
    ("Caused by: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this "
     "topic-partition.", "likely:TOPIC_NOT_FOUND"),
    ("[INFO] new topic metadata wait failed, retrying wait; topic: orders, err: UNKNOWN_TOPIC_OR_PARTITION: This "
     "server does not host this topic-partition.", "TOPIC_NOT_FOUND"),
])
def test_unknown_topic_or_partition_is_certain_only_where_a_topic_is_named(text, expectation):
    reads(text + "\n", expectation)


def test_a_java_admin_call_never_sent_offers_a_listener_that_accepts_and_never_answers():
    # a paused broker: its kernel accepts, its process never answers ApiVersions, so the node never becomes ready
    text = ("org.apache.kafka.common.errors.TimeoutException: Call(callName=fetchMetadata, deadlineMs=1796691000000, "
            "tries=1, nextAllowedTryMs=1796691000100) timed out at 1796691000000 after 1 attempt(s)\n"
            "Caused by: org.apache.kafka.common.errors.TimeoutException: Timed out waiting to send the call. Call: "
            "fetchMetadata\n")
    reads(text, "or:BROKER_STALLED or:BOOTSTRAP_TIMEOUT")
    # near miss: the same timeout after a line that says why (the bootstrap refused the connect): that, certain
    refused = ("[2026-12-08 01:00:00,000] WARN [AdminClient clientId=adminclient-1] Connection to node -1 "
               "(b1.example/192.0.2.1:9092) could not be established. Node may not be available. "
               "(org.apache.kafka.clients.NetworkClient)\n")
    reads(refused + text, "BOOTSTRAP_REFUSED no:BROKER_STALLED")
