"""The Java client's Selector on an AuthenticationException: ``log.info("Failed authentication with {} ({})", desc,
e.getMessage())``, desc being the socket's ``host/ip`` (``(channelId=N)`` after it in later releases). "SSL handshake
failed" is TLS; the broker's refusal of the login is SASL_AUTH_FAILED, certain when its words speak of the
credentials; other words in the line are other patterns' or no refused login at all."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

HEAD = "[2026-12-07 09:20:11,402] INFO [Consumer clientId=billing-7, groupId=billing] "
TAIL = " (org.apache.kafka.common.network.Selector)"


def selector(desc: str, words: str) -> str:
    return f"{HEAD}Failed authentication with {desc} ({words}){TAIL}"


def test_words_about_the_credentials_are_a_refused_login():
    finding = only(explained(selector("kafka-2.billing.example.net/10.8.1.22",
                                      "Authentication failed: Invalid username or password")), "SASL_AUTH_FAILED")
    assert finding.severity == "error"


@pytest.mark.parametrize("desc, words", [
    ("b-1.billing.x7y8z9.c2.kafka.eu-central-1.amazonaws.com/10.30.2.14",
     "[0e4c9a51-77b2-4d0f-a3c8-5b1f2e9d6a70]: Access denied"),  # MSK IAM, its request id before the words
    ("b-3.iam.***.kafka.eu-central-1.amazonaws.com/***", "[7d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6]: Access denied"),
    ("kafka-2.billing.example.net/10.8.1.22 (channelId=-1)", "Access denied"),
])
def test_a_refusal_in_the_brokers_own_words_is_likely_a_refused_login(desc, words):
    finding = only(explained(selector(desc, words)), "SASL_AUTH_FAILED")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")
    assert "(`Access denied" in finding.explanation  # the words quoted without the request id before them
    if "amazonaws.com" in desc:  # MSK's IAM login: no password, the identity's policy (test_msk_iam)
        assert "kafka-cluster:Connect" in finding.fix
    else:
        assert "words of its own (`Access denied`)" in finding.explanation


def test_a_failed_re_authentication_is_the_same_refusal():
    text = f"{HEAD}Failed re-authentication with kafka-2.billing.example.net/10.8.1.22 (Authentication failed " \
           f"during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512){TAIL}"
    assert "SASL_AUTH_FAILED" in ids(explained(text))


def test_ssl_handshake_failed_is_tls_not_sasl():
    found = explained(selector("kafka-2.billing.example.net/10.8.1.22", "SSL handshake failed"))
    assert ids(found)[0] == "TLS_CERT_UNTRUSTED" and "SASL_AUTH_FAILED" not in ids(found)
    assert all(f.severity == "warning" for f in found.findings)


@pytest.mark.parametrize("words", [
    "[446c81dc-9ab3-4d4b-b174-4ecd9baa406c]: Too many connects",  # MSK's connection-rate quota
    "Failed to create SaslClient with mechanism PLAIN",  # the client's own JVM
])
def test_words_that_are_no_refused_login_say_no_sasl_failure(words):
    assert "SASL_AUTH_FAILED" not in ids(explained(selector("kafka-2.billing.example.net/10.8.1.22", words)))


def test_the_mechanism_words_stay_the_mechanisms():
    found = ids(explained(selector("kafka-2.billing.example.net/10.8.1.22", "Client SASL mechanism 'SCRAM-SHA-512' "
                                   "not enabled in the server, enabled mechanisms are [PLAIN]")))
    assert found == ["SASL_MECHANISM_MISMATCH"]


def test_selector_and_networkclient_lines_make_one_finding():
    text = (selector("kafka-2.billing.example.net/10.8.1.22", "Authentication failed: Invalid username or password")
            + "\n[2026-12-07 09:20:11,404] ERROR [Consumer clientId=billing-7, groupId=billing] Connection to node -1 "
            "(kafka-2.billing.example.net/10.8.1.22:9096) failed authentication due to: Authentication failed: Invalid "
            "username or password (org.apache.kafka.clients.NetworkClient)")
    finding = only(explained(text), "SASL_AUTH_FAILED")
    assert finding.evidence["count"] == 2


@pytest.mark.parametrize("line", [
    "2026-12-07 10:00:00,001 INFO [Producer clientId=p] Failed authentication with kafka-0.example.net/10.0.0.5 "
    "(Authentication failed: Invalid username or password) (org.apache.kafka.common.network.Selector) "
    "[kafka-producer-network-thread | p]",
    "2026-12-07 10:00:00,001 INFO [SocketServer listenerType=BROKER, nodeId=0] Failed authentication with /10.0.0.7 "
    "(channelId=10.0.0.5:9092-10.0.0.7:51234-3) (Authentication failed: Invalid username or password) "
    "(org.apache.kafka.common.network.Selector) [data-plane-kafka-network-thread-0-ListenerName(SCRAM)-SASL_PLAINTEXT-1]",
])
def test_a_thread_name_after_the_logger_keeps_the_line_read(line):  # Strimzi's log4j layout: %c ... [%t]
    assert ids(explained(line)) == ["SASL_AUTH_FAILED"]


@pytest.mark.parametrize("context", ["[SocketServer brokerId=0]", "[SocketServer listenerType=ZK_BROKER, nodeId=0]",
                                     "[SocketServer listenerType=CONTROLLER, nodeId=3]"])
@pytest.mark.parametrize("peer", ["/192.0.2.20", "app-1.example/192.0.2.20", "localhost/127.0.0.1"])
def test_the_brokers_own_selector_line_is_read_from_the_brokers_side(context, peer):
    """A broker's Selector names its client ``/ip``, or ``name/ip`` when the JVM knows a name for the address: in the
    ``[SocketServer ...]`` context it is the listener's word on a client (a plaintext client at a TLS listener, most
    often), never a client naming its broker."""
    line = (f"[2020-10-04 02:08:52,251] INFO {context} Failed authentication with {peer} (SSL handshake failed) "
            "(org.apache.kafka.common.network.Selector)")
    found = explained(line).findings
    assert found[0].id == "TLS_EXPECTED" and {f.severity for f in found} == {"warning"}
    assert all(f.evidence.get("host") in (None, "") for f in found)
