"""aiokafka's own error strings on the connection path, swept from its source (aio-libs/aiokafka @
672947afe85c91b7d953f0259e69837a711d3246: aiokafka/client.py, aiokafka/conn.py), as its loggers print them with
``logging.basicConfig`` and as a traceback ends.

client.bootstrap() logs ``Unable connect to "host:port": <err>`` for each bootstrap address and raises
``KafkaConnectionError: Unable to bootstrap from [...]`` when none answered; _get_conn logs ``Unable connect to node
with id N: <err>`` for a broker the metadata named. ``<err>`` is Python's: ``[Errno 111] Connect call failed (ip,
port)``, a resolver's ``[Errno -2] ...``, ssl's ``[SSL: CODE] ...``, or nothing (asyncio's TimeoutError).
"""

from __future__ import annotations

import pytest

from tests.unit.explain.sweep_rows import CERTAIN, LIKELY, NONE, READING, ids_of, mismatch, row

ROWS = [
    # --- bootstrap: client.py bootstrap() --------------------------------------------------------------------------
    row("refused-bootstrap", "ERROR:aiokafka:Unable connect to \"b1.example:9092\": [Errno 111] Connect call failed "
        "('192.0.2.10', 9092)", CERTAIN, "BOOTSTRAP_REFUSED"),
    row("dns-bootstrap", "ERROR:aiokafka:Unable connect to \"b1.example:9092\": [Errno -2] Name or service not known",
        CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("refused-v6-only", "ERROR:aiokafka:Unable connect to \"b1.example:9092\": Multiple exceptions: [Errno 111] "
        "Connect call failed ('::1', 9092, 0, 0), [Errno 99] Cannot assign requested address",
        LIKELY, "BOOTSTRAP_REFUSED"),
    row("no-words", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": ", READING, "BOOTSTRAP_TIMEOUT",
        "TLS_EXPECTED"),
    row("verify-failed", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: CERTIFICATE_VERIFY_FAILED] "
        "certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)",
        CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("hostname-mismatch", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: CERTIFICATE_VERIFY_FAILED] "
        "certificate verify failed: Hostname mismatch, certificate is not valid for 'b1.example'. (_ssl.c:1006)",
        CERTAIN, "TLS_HOSTNAME_MISMATCH"),
    # ssl's words when the answer to the ClientHello is not TLS: a plaintext listener
    row("wrong-version-number", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: WRONG_VERSION_NUMBER] "
        "wrong version number (_ssl.c:1006)", CERTAIN, "TLS_UNEXPECTED"),
    row("eof-in-connect", "ERROR:aiokafka:Unable connect to \"b1.example:9092\": [SSL: UNEXPECTED_EOF_WHILE_READING] "
        "EOF occurred in violation of protocol (_ssl.c:1006)", LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    # Windows' Proactor loop: WinError 1225 (ERROR_CONNECTION_REFUSED), 121 (the semaphore timeout)
    row("winerror-refused", "ERROR:aiokafka:Unable connect to \"b1.example:9092\": [WinError 1225] The remote computer "
        "refused the network connection", CERTAIN, "BOOTSTRAP_REFUSED"),
    row("winerror-timeout", "ERROR:aiokafka:Unable connect to node with id 1: [WinError 121] The semaphore timeout "
        "period has expired", CERTAIN, "ADVERTISED_UNREACHABLE"),
    row("errno-timeout", "ERROR:aiokafka:Unable connect to \"b1.example:9092\": [Errno 110] Connect call failed "
        "('192.0.2.10', 9092)", CERTAIN, "BOOTSTRAP_TIMEOUT"),
    # the listener's alert about the client's certificate (ssl's reason codes)
    row("alert-certificate-required", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: "
        "TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required (_ssl.c:2633)",
        CERTAIN, "TLS_CLIENT_CERT_REQUIRED"),
    row("alert-unknown-ca", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: TLSV1_ALERT_UNKNOWN_CA] tlsv1 "
        "alert unknown ca (_ssl.c:1006)", CERTAIN, "TLS_CLIENT_CERT_REJECTED"),
    # alert 40 is the listener's, about what the client sent: likely a client certificate it wants (as every client's)
    row("alert-handshake-failure", "ERROR:aiokafka:Unable connect to \"b1.example:9093\": [SSL: "
        "SSLV3_ALERT_HANDSHAKE_FAILURE] sslv3 alert handshake failure (_ssl.c:1006)", LIKELY,
        "TLS_CLIENT_CERT_REQUIRED"),
    row("unable-to-bootstrap", "aiokafka.errors.KafkaConnectionError: KafkaConnectionError: Unable to bootstrap from "
        "[('b1.example', 9092, <AddressFamily.AF_UNSPEC: 0>)]", READING, "BOOTSTRAP_REFUSED", "BOOTSTRAP_UNRESOLVABLE"),
    # the bootstrap connection was made and its first request, Metadata, failed: a listener not speaking the
    # client's Kafka (TLS or SASL met in plaintext), not an idle close
    row("metadata-closed", "WARNING:aiokafka:Unable to request metadata from \"b1.example:9093\": "
        "KafkaConnectionError: Connection at b1.example:9093 closed", READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    row("metadata-timed-out", "WARNING:aiokafka:Unable to request metadata from \"b1.example:9093\": "
        "RequestTimedOutError", READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    row("metadata-no-words", "WARNING:aiokafka:Unable to request metadata from \"b1.example:9093\": ",
        READING, "TLS_EXPECTED"),
    # --- SASL: conn.py _do_sasl_handshake, SaslAuthenticate ---------------------------------------------------------
    row("sasl-mechanism", "aiokafka.errors.UnsupportedSaslMechanismError: [Error 33] UnsupportedSaslMechanismError: "
        "Kafka broker does not support PLAIN sasl mechanism. Enabled mechanisms are: ['SCRAM-SHA-256']",
        CERTAIN, "SASL_MECHANISM_MISMATCH"),
    row("sasl-failed", "ERROR:aiokafka:Unable connect to \"b1.example:9094\": [Error 58] "
        "SaslAuthenticationFailedError: Authentication failed during authentication due to invalid credentials with "
        "SASL mechanism SCRAM-SHA-256",
        CERTAIN, "SASL_AUTH_FAILED"),
    row("scram-signature", "ERROR:aiokafka:Unable connect to \"b1.example:9094\": Server sent wrong signature!", NONE),
    row("sasl-plain-in-clear", "WARNING:aiokafka.conn:Sending username and password in the clear", NONE),
    # --- topics: cluster.py, client.py, consumer/fetcher.py -----------------------------------------------------------
    row("topic-authorization", "aiokafka.errors.TopicAuthorizationFailedError: [Error 29] "
        "TopicAuthorizationFailedError: t1", CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    row("topic-not-authorized", "ERROR:aiokafka.cluster:Topic t1 is not authorized for this client", CERTAIN,
        "TOPIC_AUTHORIZATION_FAILED"),
    row("topic-not-found", "ERROR:aiokafka.cluster:Topic t1 not found in cluster metadata", CERTAIN, "TOPIC_NOT_FOUND"),
    # --- brokers the metadata named: client.py _get_conn, _metadata_update, send ----------------------------------
    row("refused-broker", "ERROR:aiokafka:Unable connect to node with id 1: [Errno 111] Connect call failed "
        "('192.0.2.10', 9092)", CERTAIN, "ADVERTISED_UNREACHABLE"),
    row("dns-broker", "ERROR:aiokafka:Unable connect to node with id 1: [Errno -2] Name or service not known",
        CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    row("not-tls-broker", "ERROR:aiokafka:Unable connect to node with id 1: [SSL: WRONG_VERSION_NUMBER] wrong "
        "version number (_ssl.c:1006)", CERTAIN, "TLS_UNEXPECTED"),
    row("metadata-update-failed", "ERROR:aiokafka:Unable to update metadata from [1, 2]", READING,
        "ADVERTISED_UNREACHABLE"),
    row("node-not-ready", "aiokafka.errors.NodeNotReadyError: NodeNotReadyError: Attempt to send a request to node "
        "which is not ready (node id 1).", READING, "ADVERTISED_UNREACHABLE"),
    row("broken-pipe", "aiokafka.errors.KafkaConnectionError: KafkaConnectionError: Connection at b1.example:9092 "
        "broken: [Errno 32] Broken pipe", LIKELY, "IDLE_CONNECTION_DROPPED"),
    row("request-timed-out", "aiokafka.errors.RequestTimedOutError: [Error 7] RequestTimedOutError", NONE),
    row("coordinator-not-available", "ERROR:aiokafka.consumer.group_coordinator:Group Coordinator Request failed: "
        "[Error 15] CoordinatorNotAvailableError", NONE),
]


@pytest.mark.parametrize("r", ROWS, ids=ids_of(ROWS))
def test_aiokafka_string_is_explained_as_its_source_means(r):
    assert mismatch(r) is None, mismatch(r)
