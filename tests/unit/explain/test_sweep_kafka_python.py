"""kafka-python's own error strings on the connection path, swept from its source (dpkp/kafka-python 2.3.2 @
054b570c971f6747aeb01a130d80f7d156152e13; 1.4.7 @ 0552b04326c73be29f209c12920ef4cbaceb9818 for the 1.4 wording;
3.x's kafka/net @ a3b3836ff3a4b34ebaa42fd93500bfcb16c1e9b7), as ``logging.basicConfig`` prints them
(``LEVEL:logger:message``) and as a traceback ends (``kafka.errors.X: X: message``).

A connection names itself ``<BrokerConnection client_id=..., node_id=bootstrap-0 host=h:9092 <state> [IPv4 (ip,
port)]>`` (2.x conn.py __str__; 1.4 without client_id): ``bootstrap-N`` a bootstrap address, a number a broker the
metadata named; ``<state>`` what it was doing (ConnectionStates).
"""

from __future__ import annotations

import pytest

from kdiag.explain.engine import explain_text
from tests.unit.explain.sweep_rows import CERTAIN, LIKELY, NONE, READING, ids_of, mismatch, row


def conn(node: str = "bootstrap-0", state: str = "connecting", host: str = "b1.example:9092",
         ip: str = "192.0.2.10") -> str:
    port = host.rsplit(":", 1)[1]
    return f"<BrokerConnection client_id=kafka-python-producer-1, node_id={node} host={host} <{state}> " \
           f"[IPv4 ('{ip}', {port})]>"


def old_conn(node: str = "bootstrap", state: str = "connecting") -> str:  # 1.4.7 conn.py __str__
    return f"<BrokerConnection node_id={node} host=b1.example:9092 <{state}> [IPv4 ('192.0.2.10', 9092)]>"


ROWS = [
    # --- DNS: conn.py _dns_lookup + dns_lookup() ------------------------------------------------------------------
    row("dns-bootstrap", f"ERROR:kafka.conn:{conn(state='connecting')}: DNS lookup failed for b1.example:9092 (0)",
        CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("dns-broker", "WARNING:kafka.conn:DNS lookup failed for kafka:9092, exception was [Errno -2] Name or service "
        "not known. Is your advertised.listeners (called advertised.host.name before Kafka 9) correct and resolvable?\n"
        f"ERROR:kafka.conn:{conn('1', host='kafka:9092')}: DNS lookup failed for kafka:9092 (0)",
        CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    # --- connect: conn.py connect() ------------------------------------------------------------------------------
    row("refused-bootstrap", f"ERROR:kafka.conn:{conn()}: Connect attempt returned error 111. Disconnecting.",
        CERTAIN, "BOOTSTRAP_REFUSED"),
    row("refused-broker", f"ERROR:kafka.conn:{conn('1')}: Connect attempt returned error 111. Disconnecting.",
        CERTAIN, "ADVERTISED_UNREACHABLE"),
    row("unreachable-broker-1.4", f"ERROR:kafka.conn:Connect attempt to {old_conn('1')} returned error 113. "
        "Disconnecting.", CERTAIN, "ADVERTISED_UNREACHABLE"),
    # close(): '%s: Closing connection. %s' with the KafkaConnectionError('{errno} {errorcode}') the connect raised
    row("closing-refused", f"ERROR:kafka.conn:{conn()}: Closing connection. KafkaConnectionError: 111 ECONNREFUSED",
        CERTAIN, "BOOTSTRAP_REFUSED"),
    row("closing-etimedout", f"ERROR:kafka.conn:{conn()}: Closing connection. KafkaConnectionError: 110 ETIMEDOUT",
        CERTAIN, "BOOTSTRAP_TIMEOUT"),
    # 2.x: '%s: Connection attempt timed out'; 1.4: 'Connection attempt to %s timed out' (request_timeout_ms)
    row("connect-timed-out", f"ERROR:kafka.conn:{conn()}: Connection attempt timed out\n"
        f"ERROR:kafka.conn:{conn()}: Closing connection. KafkaConnectionError: timeout", CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("connect-timed-out-broker", f"ERROR:kafka.conn:{conn('2', host='b2.example:9092', ip='192.0.2.11')}: "
        "Connection attempt timed out", CERTAIN, "ADVERTISED_UNREACHABLE"),
    row("connect-timed-out-1.4", f"ERROR:kafka.conn:Connection attempt to {old_conn()} timed out",
        CERTAIN, "BOOTSTRAP_TIMEOUT"),
    # the same timeout in a later state: the TCP connect was made
    row("timed-out-in-handshake", f"ERROR:kafka.conn:{conn(state='handshake', host='b1.example:9093')}: Connection "
        "attempt timed out", NONE),  # the ClientHello unanswered: neither the certificate nor a refusal
    row("timed-out-in-version-check", f"ERROR:kafka.conn:{conn(state='checking_api_versions_recv')}: Connection "
        "attempt timed out", READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    # --- TLS -----------------------------------------------------------------------------------------------------
    row("ssl-closed-in-handshake", f"WARNING:kafka.conn:{conn(state='handshake', host='b1.example:9093')}: SSL "
        "connection closed by server during handshake.", LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    row("ssl-closed-in-handshake-1.4", "WARNING:kafka.conn:SSL connection closed by server during handshake.",
        LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    row("verify-failed", f"ERROR:kafka.conn:{conn(state='handshake', host='b1.example:9093')}: Closing connection. "
        "KafkaConnectionError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate "
        "in certificate chain (_ssl.c:1129)", CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("hostname-mismatch", "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
        "failed: Hostname mismatch, certificate is not valid for 'b1.example'. (_ssl.c:1006)",
        CERTAIN, "TLS_HOSTNAME_MISMATCH"),
    row("alert-bad-certificate", f"ERROR:kafka.conn:{conn(state='handshake', host='b1.example:9093')}: Closing "
        "connection. KafkaConnectionError: [SSL: SSLV3_ALERT_BAD_CERTIFICATE] sslv3 alert bad certificate "
        "(_ssl.c:1131)", CERTAIN, "TLS_CLIENT_CERT_REQUIRED"),
    row("wrong-version-number", "ssl.SSLError: [SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)",
        CERTAIN, "TLS_UNEXPECTED"),
    row("eof-outside-a-connect", "ssl.SSLEOFError: EOF occurred in violation of protocol (_ssl.c:2426)", NONE),
    # --- the listener took the connection and answered nothing the client could use -----------------------------
    row("socket-disconnected", f"ERROR:kafka.conn:{conn(state='connected', host='b1.example:9093')}: socket "
        "disconnected", READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    row("request-timed-out-bootstrap", f"WARNING:kafka.conn:{conn(state='connected', host='b1.example:9093')}: timed "
        "out after 30000 ms. Closing connection.", READING, "TLS_EXPECTED"),
    row("unable-to-determine-version", f"ERROR:kafka.conn:{conn(state='connected')}: Closing connection. "
        "KafkaConnectionError: Unable to determine broker version.", READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    row("no-brokers-available", "kafka.errors.NoBrokersAvailable: NoBrokersAvailable", READING, "BOOTSTRAP_REFUSED",
        "BOOTSTRAP_UNRESOLVABLE"),
    # --- SASL: conn.py _handle_sasl_handshake_response, _sasl_authenticate -----------------------------------------
    row("sasl-authenticate-error", f"ERROR:kafka.conn:{conn(state='authenticating', host='b1.example:9094')}: "
        "SaslAuthenticate error: SaslAuthenticationFailedError (Authentication failed: Invalid username or password)",
        CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-failed-via", "kafka.errors.SaslAuthenticationFailedError: [Error 58] SaslAuthenticationFailedError: "
        "Failed to authenticate via SASL SCRAM-SHA-512", CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-mechanism", "kafka.errors.UnsupportedSaslMechanismError: [Error 33] UnsupportedSaslMechanismError: Kafka "
        "broker does not support PLAIN sasl mechanism. Enabled mechanisms are: ['SCRAM-SHA-512']",
        CERTAIN, "SASL_MECHANISM_MISMATCH"),
    row("sasl-connection-failure", "kafka.errors.KafkaConnectionError: KafkaConnectionError: "
        f"{conn(state='authenticating', host='b1.example:9094')}: Connection failure during Sasl Authenticate",
        LIKELY, "SASL_AUTH_FAILED"),
    row("sasl-receiving-bytes", f"ERROR:kafka.conn:{conn(state='authenticating', host='b1.example:9094')}: Error "
        "receiving sasl auth bytes from server", LIKELY, "SASL_AUTH_FAILED"),
    row("sasl-reply-1.4", f"ERROR:kafka.conn:{old_conn('bootstrap-0', 'authenticating')}: Error receiving reply from "
        "server", LIKELY, "SASL_AUTH_FAILED"),
    # --- brokers the metadata named: client_async.py ---------------------------------------------------------------
    row("node-connection-failed", "WARNING:kafka.client:Node 1 connection failed -- refreshing metadata",
        READING, "ADVERTISED_UNREACHABLE", "ADVERTISED_UNRESOLVABLE"),
    row("node-not-ready-connection-failed", "kafka.errors.NodeNotReadyError: NodeNotReadyError: Connection failed to 1",
        READING, "ADVERTISED_UNREACHABLE"),
    row("connection-to-failed", "kafka.errors.KafkaConnectionError: KafkaConnectionError: Connection to 1 failed.",
        READING, "ADVERTISED_UNREACHABLE"),
    # a coordinator's connection (2.x cluster.py: node_id 'coordinator-N'): broker N
    row("coordinator-connect-timed-out", f"ERROR:kafka.conn:{conn('coordinator-1')}: Connection attempt timed out",
        CERTAIN, "ADVERTISED_UNREACHABLE"),
    row("closing-dns-failure", f"ERROR:kafka.conn:{conn()}: Closing connection. KafkaConnectionError: DNS failure",
        CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    # --- a connection that was up breaks: conn.py send/recv ----------------------------------------------------------
    row("sending-request-data", f"ERROR:kafka.conn:{conn('1', state='connected')}: Error sending request data\n"
        "BrokenPipeError: [Errno 32] Broken pipe", READING, "IDLE_CONNECTION_DROPPED"),
    row("receiving-network-data", f"ERROR:kafka.conn:{conn('1', state='connected')}: Error receiving network data "
        "closing socket\nConnectionResetError: [Errno 104] Connection reset by peer",
        READING, "IDLE_CONNECTION_DROPPED"),
    # client_async.py: bytes nobody asked for (a server that speaks first); an idle close alone says only the next line
    row("protocol-out-of-sync", "WARNING:kafka.client:Protocol out of sync on <kafka.conn.BrokerConnection object at "
        "0x7f3a2c1b5d30>, closing", LIKELY, "NOT_KAFKA"),
    row("event-read-without-requests", "kafka.errors.KafkaConnectionError: KafkaConnectionError: Socket EVENT_READ "
        "without in-flight-requests", NONE),
    # --- records given up on: 2.x sender.py, 1.4 record_accumulator.py ---------------------------------------------
    row("expiring", "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Expiring 1 record(s) for TopicPartition("
        "topic='t1', partition=0): 120000 ms has passed since batch creation", READING, "ADVERTISED_UNREACHABLE"),
    row("batch-expired-1.4", "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Batch for TopicPartition(topic='t1', "
        "partition=0) containing 1 record(s) expired: 30 seconds have passed since batch creation plus linger time",
        READING, "ADVERTISED_UNREACHABLE"),
    # --- metadata and versions ------------------------------------------------------------------------------------
    row("metadata-timeout", "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Failed to update metadata after 60.0 "
        "secs.", LIKELY, "TOPIC_NOT_FOUND"),
    row("topic-not-in-metadata", "ERROR:kafka.cluster:Topic t1 not found in cluster metadata", CERTAIN,
        "TOPIC_NOT_FOUND"),
    row("topic-authorization", "kafka.errors.TopicAuthorizationFailedError: [Error 29] TopicAuthorizationFailedError: "
        "{'t1'}", CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    # cluster.py, fetcher.py: a topic named with its metadata error or the authorization it lacks
    row("topic-not-authorized", "ERROR:kafka.cluster:Topic t1 is not authorized for this client", CERTAIN,
        "TOPIC_AUTHORIZATION_FAILED"),
    row("not-authorized-to-read", "WARNING:kafka.consumer.fetcher:Not authorized to read from topic t1.", CERTAIN,
        "TOPIC_AUTHORIZATION_FAILED"),
    row("metadata-error-unknown-topic", "ERROR:kafka.cluster:Error fetching metadata for topic t1: [Error 3] "
        "UnknownTopicOrPartitionError", CERTAIN, "TOPIC_NOT_FOUND"),
    row("metadata-error-no-leader", "ERROR:kafka.cluster:Error fetching metadata for topic t1: [Error 5] "
        "LeaderNotAvailableError", NONE),  # NO_LEADER, an info: leaders move
    row("invalid-topic-name", "ERROR:kafka.cluster:'t 1' is not a valid topic name", NONE),
    row("incompatible-broker", "kafka.errors.IncompatibleBrokerVersion: IncompatibleBrokerVersion: Kafka broker does "
        "not support the 'CreateTopicsRequest_v0' Kafka protocol.", LIKELY, "BROKER_TOO_OLD"),
    row("auto-create-in-progress", "WARNING:kafka.cluster:Topic t1 is not available during auto-create "
        "initialization", NONE),
    # --- 3.x: kafka/net/connection.py -------------------------------------------------------------------------------
    row("net-refused", "ERROR:kafka.net.connection:<KafkaConnection node_id=bootstrap-0 broker_version=unknown "
        "(disconnected)>: Connection lost: KafkaConnectionError: 111 ECONNREFUSED", CERTAIN, "BOOTSTRAP_REFUSED"),
    # kafka/net/backend/selector.py connect_host, kafka/net/manager.py: the connect's errors with the connection named
    row("net-bootstrap-dns", "WARNING:kafka.net.manager:Bootstrap connection to bootstrap-0 failed: "
        "KafkaConnectionError: DNS lookup failed for b1.example:9092, gaierror(-2, 'Name or service not known') "
        "(backoff 0.05 secs)",
        CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("net-broker-dns", "ERROR:kafka.net.connection:<KafkaConnection node_id=1 broker_version=unknown "
        "(disconnected)>: Connection lost: KafkaConnectionError: DNS lookup failed for kafka:9092, gaierror(-2, "
        "'Name or service not known')", CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    row("net-bootstrap-timed-out", "WARNING:kafka.net.manager:Bootstrap connection to bootstrap-0 failed: "
        "KafkaConnectionError: Connection timed out (backoff 0.05 secs)", CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("net-unable-to-connect", "WARNING:kafka.net.manager:Bootstrap connection to bootstrap-0 failed: "
        "KafkaConnectionError: unable to connect: [Errno 111] Connection refused (backoff 0.05 secs)",
        CERTAIN, "BOOTSTRAP_REFUSED"),
    row("net-api-versions-timeout", "ERROR:kafka.net.connection:<KafkaConnection node_id=bootstrap-0 "
        "broker_version=unknown (disconnected)>: Connection lost: KafkaTimeoutError: Timeout during ApiVersions check",
        READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    row("net-bootstrap-failed", "ERROR:kafka.net.manager:Bootstrap failed: KafkaConnectionError: Connection timed out",
        CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("net-handshake", "ERROR:kafka.net.connection:<KafkaConnection node_id=bootstrap-0 broker_version=unknown "
        "(disconnected)>: Connection lost: KafkaConnectionError: Handshake failed: [SSL: WRONG_VERSION_NUMBER] wrong "
        "version number (_ssl.c:1006)", CERTAIN, "TLS_UNEXPECTED"),
]


@pytest.mark.parametrize("r", ROWS, ids=ids_of(ROWS))
def test_kafka_python_string_is_explained_as_its_source_means(r):
    assert mismatch(r) is None, mismatch(r)


def test_records_kafka_python_expired_are_explained_in_its_own_settings_not_javas():
    """kafka-python's expired batch names its own delivery timeout, never the Java client's delivery.timeout.ms."""
    paste = ("kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Expiring 1 record(s) for TopicPartition(topic='t1', "
             "partition=0): 120000 ms has passed since batch creation")
    text = " ".join(f.explanation for f in explain_text(paste).findings)
    assert "delivery_timeout_ms" in text and "delivery.timeout.ms" not in text
