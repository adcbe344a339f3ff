"""kafkajs's own error strings on the connection path, swept from its source (tulios/kafkajs @
55b0b416308b9e597a5a6b97b0a6fd6b846255dc, 2.2.4; v1.16.0 @ 4f0c52de2c928dff0e2fb3afb550545de4e412c9 where 1.x worded
it otherwise), as its JSON console logger prints them and as the thrown error reads (``KafkaJSxxx: message``).

Node's socket errors reach kafkajs as ``Connection error: <e.message>`` (network/connection.js onError); the
``[BrokerPool] Failed to connect to seed broker`` line says the address was a bootstrap one (cluster/brokerPool.js).
"""

from __future__ import annotations

import json

import pytest

from tests.unit.explain.helpers import explained
from tests.unit.explain.sweep_rows import CERTAIN, LIKELY, NONE, READING, ids_of, mismatch, row


def js(message: str, broker: str | None = "b1.example:9092", **fields: object) -> str:
    """One line of kafkajs's default JSON logger (loggers/console.js + the Connection namespace's extra fields)."""
    record = {"level": "ERROR", "timestamp": "2026-12-07T21:00:00.000Z", "logger": "kafkajs", "message": message}
    if broker is not None:
        record["broker"] = broker
    return json.dumps({**record, "clientId": "app", **fields}, separators=(",", ":"))


SEED = "[BrokerPool] Failed to connect to seed broker, trying another broker from the list: "
RETRY = {"retryCount": 0, "retryTime": 300}

ROWS = [
    # --- DNS: connection.js onError, "Connection error: " + Node's getaddrinfo error -----------------------------
    row("getaddrinfo-seed", js("[Connection] Connection error: getaddrinfo ENOTFOUND b1.example") + "\n"
        + js(SEED + "Connection error: getaddrinfo ENOTFOUND b1.example", None, **RETRY),
        CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    # retry/index.js: KafkaJSNumberOfRetriesExceeded carries the last error's message; no role in the words
    row("getaddrinfo-thrown", "KafkaJSNumberOfRetriesExceeded: Connection error: getaddrinfo EAI_AGAIN b1.example",
        LIKELY, "BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE"),
    # --- connect: Node's "connect ECONNREFUSED ip:port" ---------------------------------------------------------
    row("refused-seed", js("[Connection] Connection error: connect ECONNREFUSED 192.0.2.10:9092") + "\n"
        + js(SEED + "Connection error: connect ECONNREFUSED 192.0.2.10:9092", None, **RETRY),
        CERTAIN, "BOOTSTRAP_REFUSED"),
    row("refused-thrown", "KafkaJSConnectionError: Connection error: connect ECONNREFUSED 192.0.2.10:9092",
        LIKELY, "BOOTSTRAP_REFUSED", "ADVERTISED_UNREACHABLE"),
    row("etimedout", js("[Connection] Connection error: connect ETIMEDOUT 192.0.2.10:9092"),
        LIKELY, "BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE"),
    row("ehostunreach", js("[Connection] Connection error: connect EHOSTUNREACH 192.0.2.10:9092", "192.0.2.10:9092"),
        LIKELY, "BOOTSTRAP_UNREACHABLE", "ADVERTISED_UNREACHABLE"),
    # cluster/connectionPoolBuilder.js: the application's own brokers() function threw (a discovery service's
    # address, not a Kafka listener's): no finding about Kafka's addresses
    row("config-brokers-threw", 'KafkaJSConnectionError: Failed to connect: "config.brokers" threw: connect '
        "ECONNREFUSED 192.0.2.10:443", NONE),
    # --- connection.js onTimeout: "Connection timeout" (connectionTimeout, 1000 ms by default) ------------------
    row("timeout-seed", js("[Connection] Connection timeout") + "\n" + js(SEED + "Connection timeout", None, **RETRY),
        CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("timeout-thrown", js("[Connection] Connection timeout") + "\n"
        + "KafkaJSNumberOfRetriesExceeded: Connection timeout\n    at RetryOperation._fn (retry/index.js:50:18)",
        LIKELY, "BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE"),
    row("timeout-thrown-alone", "KafkaJSNonRetriableError: Connection timeout", LIKELY, "BOOTSTRAP_TIMEOUT"),
    # --- TLS: Node's tls words ----------------------------------------------------------------------------------
    row("tls-disconnected", js("[Connection] Connection error: Client network socket disconnected before secure TLS "
                               "connection was established"), LIKELY, "TLS_UNEXPECTED"),
    row("self-signed-chain", js("[Connection] Connection error: self signed certificate in certificate chain",
                                "b1.example:9093"), CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("local-issuer", js("[Connection] Connection error: unable to get local issuer certificate", "b1.example:9093"),
        CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("first-certificate", js("[Connection] Connection error: unable to verify the first certificate",
                                "b1.example:9093"), CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("issuer", js("[Connection] Connection error: unable to get issuer certificate", "b1.example:9093"),
        CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("not-yet-valid", js("[Connection] Connection error: certificate is not yet valid", "b1.example:9093"),
        CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("altnames-host", js("[Connection] Connection error: Hostname/IP does not match certificate's altnames: Host: "
                            "b1.example. is not in the cert's altnames: DNS:*.internal.example", "b1.example:9093"),
        CERTAIN, "TLS_HOSTNAME_MISMATCH"),
    row("altnames-ip", js("[Connection] Connection error: Hostname/IP does not match certificate's altnames: IP: "
                          "192.0.2.10 is not in the cert's list: ", "192.0.2.10:9093"),
        CERTAIN, "TLS_HOSTNAME_MISMATCH"),
    # OpenSSL's own words through Node: the answer to the ClientHello was not TLS
    row("wrong-version-number", js("[Connection] Connection error: C0E7A8D5E57F0000:error:0A00010B:SSL routines:"
                                   "ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/"
                                   "ssl3_record.c:355:"), CERTAIN, "TLS_UNEXPECTED"),
    row("wrong-version-number-thrown", "KafkaJSConnectionError: Connection error: 140437040813888:error:1408F10B:SSL "
        "routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:332:",
        CERTAIN, "TLS_UNEXPECTED"),
    # the listener's alert about the client's certificate (OpenSSL's words through Node)
    row("alert-certificate-required", js("[Connection] Connection error: C0D7:error:0A00045C:SSL routines:"
                                         "ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/"
                                         "ssl/record/rec_layer_s3.c:1605:SSL alert number 116\n", "b1.example:9093"),
        CERTAIN, "TLS_CLIENT_CERT_REQUIRED"),
    row("alert-unknown-ca", js("[Connection] Connection error: 140437040813888:error:14094418:SSL routines:"
                               "ssl3_read_bytes:tlsv1 alert unknown ca:../deps/openssl/openssl/ssl/record/"
                               "rec_layer_s3.c:1544:SSL alert number 48\n", "b1.example:9093"),
        CERTAIN, "TLS_CLIENT_CERT_REJECTED"),
    # alert 40 is the listener's, about what the client sent: likely a client certificate it wants (as every client's)
    row("alert-handshake-failure", js("[Connection] Connection error: 140437040813888:error:14094410:SSL routines:"
                                      "ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/"
                                      "record/rec_layer_s3.c:1544:SSL alert number 40\n", "b1.example:9093"),
        LIKELY, "TLS_CLIENT_CERT_REQUIRED"),
    row("unsupported-protocol", js("[Connection] Connection error: C0D7:error:0A000102:SSL routines::unsupported "
                                   "protocol", "b1.example:9093"), NONE),
    # --- the broker hanging up: connection.js onEnd ("Closed connection"), sendAuthRequest's onError -------------
    row("closed-connection", js("[BrokerPool] Closed connection", None, **RETRY), READING, "TLS_EXPECTED",
        "SASL_REQUIRED"),
    row("closed-connection-thrown", "KafkaJSConnectionClosedError: Closed connection", READING, "TLS_EXPECTED"),
    row("closed-during-sasl", "KafkaJSConnectionError: Connection closed by the server", LIKELY, "SASL_AUTH_FAILED"),
    row("closed-during-sasl-seed", js(SEED + "Connection closed by the server", None, **RETRY),
        LIKELY, "SASL_AUTH_FAILED"),
    row("econnreset", js("[Connection] Connection error: read ECONNRESET"), READING, "TLS_EXPECTED",
        "IDLE_CONNECTION_DROPPED"),
    row("econnreset-seed", js("[Connection] Connection error: read ECONNRESET") + "\n"
        + js(SEED + "Connection error: read ECONNRESET", None, **RETRY), READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    row("epipe", js("[Connection] Connection error: write EPIPE"), LIKELY, "IDLE_CONNECTION_DROPPED"),
    # --- SASL: broker/saslAuthenticator/*.js ---------------------------------------------------------------------
    row("sasl-plain", js("[SaslAuthenticator-PLAIN] SASL PLAIN authentication failed: Authentication failed: Invalid "
                         "username or password", "b1.example:9094"), CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-scram-json", js("[SaslAuthenticator-SCRAM-SHA-512] SASL SCRAM SHA512 authentication failed: "
                              "Authentication failed during authentication due to invalid credentials with SASL "
                              "mechanism SCRAM-SHA-512", "b1.example:9094"), CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-scram-thrown", "KafkaJSSASLAuthenticationError: SASL SCRAM SHA256 authentication failed: SASL "
        "Authentication failed", CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-oauthbearer", "KafkaJSSASLAuthenticationError: SASL OAUTHBEARER authentication failed: Authentication "
        "failed: Invalid token", CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-aws-iam", "KafkaJSSASLAuthenticationError: SASL AWS-IAM authentication failed: Access denied",
        CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-authenticate-response", js("[Connection] Response SaslAuthenticate(key: 36, version: 1)",
                                         "b1.example:9094", error="Authentication failed: Invalid username or password",
                                         correlationId=2, size=90), CERTAIN, "SASL_AUTH_FAILED"),
    row("mechanism-not-on-server", js("[BrokerPool] SASL SCRAM-SHA-256 mechanism is not supported by the server", None,
                                      **RETRY), CERTAIN, "SASL_MECHANISM_MISMATCH"),
    row("mechanism-not-on-server-thrown", "KafkaJSSASLAuthenticationError: SASL PLAIN mechanism is not supported by "
        "the server", CERTAIN, "SASL_MECHANISM_MISMATCH"),
    row("handshake-response", js("[Connection] Response SaslHandshake(key: 17, version: 1)", "b1.example:9094",
                                 error="The broker does not support the requested SASL mechanism", correlationId=1),
        CERTAIN, "SASL_MECHANISM_MISMATCH"),
    # near misses: the client's own settings or checks, before or beside the broker's answer
    row("mechanism-not-in-client", "KafkaJSSASLAuthenticationError: SASL GSSAPI mechanism is not supported by the "
        "client", NONE),  # v1.16.0 saslAuthenticator/index.js
    row("plain-no-credentials", "KafkaJSSASLAuthenticationError: SASL Plain: Invalid username or password", NONE),
    row("scram-no-credentials", "KafkaJSSASLAuthenticationError: SASL SCRAM SHA256 authentication: Invalid username "
        "or password", NONE),
    row("oauth-no-token", "KafkaJSSASLAuthenticationError: SASL OAUTHBEARER: Invalid OAuth bearer token", NONE),
    row("scram-server-signature", "KafkaJSSASLAuthenticationError: SASL SCRAM SHA512 authentication failed: Invalid "
        "server signature in server final message", NONE),
    row("scram-server-nonce", "KafkaJSSASLAuthenticationError: SASL SCRAM SHA256 authentication failed: Invalid "
        "server nonce, it does not start with the client nonce", NONE),
    # --- versions: broker/index.js apiVersions(), protocol/requests/index.js lookup() ---------------------------
    row("api-versions-unsupported", js("[Connection] Response ApiVersions(key: 18, version: 2)",
                                       error="The version of API is not supported", correlationId=1),
        LIKELY, "BROKER_TOO_OLD"),
    row("api-versions-not-supported", "KafkaJSNonRetriableError: API Versions not supported", LIKELY, "BROKER_TOO_OLD"),
    row("api-key-missing", "KafkaJSServerDoesNotSupportApiKey: The Kafka server does not support the requested API "
        "version", LIKELY, "BROKER_TOO_OLD"),
    # --- requests: network/requestQueue/socketRequest.js ----------------------------------------------------------
    row("request-timeout", js("[RequestQueue] Request Metadata(key: 3, version: 6) timed out", correlationId=3),
        LIKELY, "IDLE_CONNECTION_DROPPED"),
    row("request-timeout-first", js("[RequestQueue] Request ApiVersions(key: 18, version: 2) timed out",
                                    "b1.example:9093", correlationId=0), READING, "TLS_EXPECTED", "SASL_REQUIRED"),
    # --- metadata: protocol/error.js words in a Response line ----------------------------------------------------
    row("unknown-topic", js("[Connection] Response Metadata(key: 3, version: 6)",
                            error="This server does not host this topic-partition", correlationId=3),
        CERTAIN, "TOPIC_NOT_FOUND"),
    row("topic-authorization", js("[Connection] Response Metadata(key: 3, version: 6)",
                                  error="Not authorized to access topics: [Topic authorization failed]"),
        CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    row("broker-server-timeout", js("[Connection] Response Produce(key: 0, version: 7)",
                                    error="The request timed out", correlationId=9), NONE),
    row("coordinator-not-found", "KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator", NONE),
    row("cluster-authorization", "KafkaJSProtocolError: Cluster authorization failed", NONE),
    # --- the role from the line that follows -----------------------------------------------------------------------
    row("loopback-leader", js("[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092", "localhost:9092")
        + "\n" + js("[Producer] Failed to send messages: Connection error: connect ECONNREFUSED 127.0.0.1:9092", None,
                    **RETRY), LIKELY, "ADVERTISED_LOOPBACK"),
]


@pytest.mark.parametrize("r", ROWS, ids=ids_of(ROWS))
def test_kafkajs_string_is_explained_as_its_source_means(r):
    assert mismatch(r) is None, mismatch(r)


def test_a_seed_brokers_reset_is_its_first_exchange_not_an_idle_close():
    """connection.js onError on the seed broker's connection (brokerPool.js names it): it never carried a request."""
    paste = js("[Connection] Connection error: read ECONNRESET") + "\n" + js(
        SEED + "Connection error: read ECONNRESET", None, **RETRY)
    found = {f.id: f for f in explained(paste).findings}
    assert "IDLE_CONNECTION_DROPPED" not in found
    assert "b1.example:9092" in found["TLS_EXPECTED"].title


def test_kafkajs_topic_authorization_words_in_the_brackets_are_not_a_topic():
    """kafkajs's KafkaJSProtocolError puts the error's own words where Java puts the topics: no topic is named."""
    found = explained("KafkaJSProtocolError: Not authorized to access topics: [Topic authorization failed]").findings
    assert [f.id for f in found] == ["TOPIC_AUTHORIZATION_FAILED"]
    assert "Topic authorization failed" not in found[0].title
