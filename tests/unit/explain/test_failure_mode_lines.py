"""explain on the lines of failure modes #13 (mTLS required) and #15-#17 as the broker logs them.

The broker lines have the form the real broker writes (Kafka 4.4; the integration test on the lab's
topic-acl-denied re-captures them live); the librdkafka OpenSSL 1.1 and Java lines are the forms quoted in
reference/landscape-and-failure-modes.md §2 #13.
"""

from __future__ import annotations

from kdiag.explain import explain_text

BROKER = ("[2026-11-25 11:40:02,118] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
          "/192.0.2.10 (channelId=198.51.100.10:9094-192.0.2.10:40112-3) ({why}) "
          "(org.apache.kafka.common.network.Selector)\n")


def ids(text: str) -> list[str]:
    return [f.id for f in explain_text(text).findings]


def test_the_brokers_unsupported_mechanism_line_is_a_mechanism_mismatch():
    [finding] = explain_text(BROKER.format(why="Unsupported SASL mechanism SCRAM-SHA-256")).findings
    assert finding.id == "SASL_MECHANISM_MISMATCH" and "SCRAM-SHA-256" in finding.title


def test_the_brokers_rejected_credentials_lines_are_auth_failed():
    assert ids(BROKER.format(why="Authentication failed: Invalid username or password")) == ["SASL_AUTH_FAILED"]
    scram = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
    assert ids(BROKER.format(why=scram)) == ["SASL_AUTH_FAILED"]


def test_the_brokers_sasl_state_line_still_says_sasl_required():
    why = "Unexpected Kafka request of type METADATA during SASL handshake."
    assert ids(BROKER.format(why=why)) == ["SASL_REQUIRED"]


def test_librdkafkas_openssl_1_1_handshake_failure_with_the_client_authentication_hint_is_mtls():
    line = ("%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:ssl://kafka.example.test:9093/bootstrap]: "
            "ssl://kafka.example.test:9093/bootstrap: SSL handshake failed: ssl/record/rec_layer_s3.c:1605: "
            "error:14094410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure: SSL alert number 40: client SSL "
            "authentication might be required (see ssl.key.location and ssl.certificate.location and consult the "
            "broker logs for more information) (after 9ms in state SSL_HANDSHAKE)\n")
    assert ids(line) == ["TLS_CLIENT_CERT_REQUIRED"]


def test_javas_handshake_failure_alert_is_mtls_not_an_untrusted_certificate():
    text = ("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\n"
            "Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: handshake_failure\n")
    assert ids(text) == ["TLS_CLIENT_CERT_REQUIRED"]


# The listener's handshake_failure alert (40) in every client's words: the same likely reading everywhere (a client
# certificate the listener wants, or no cipher or version both sides allow), never a certain one, never the client's
# own distrust of the broker's certificate. Hosts are invented.
HANDSHAKE_FAILURE_ALERTS = {
    "librdkafka": "%3|1796677200.123|FAIL|rdkafka#producer-1| [thrd:ssl://b7.example:9093/bootstrap]: ssl://b7.example:"
                  "9093/bootstrap: SSL handshake failed: error:0A000410:SSL routines::sslv3 alert handshake failure: "
                  "SSL alert number 40 (after 4ms in state SSL_HANDSHAKE)",
    "java": "Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: handshake_failure",
    "go": "kafka: client has run out of available brokers to talk to: remote error: tls: handshake failure",
    "kafkajs": '{"level":"ERROR","logger":"kafkajs","message":"[Connection] Connection error: C0A7:error:0A000410:SSL '
               'routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/record/'
               'rec_layer_s3.c:1605:SSL alert number 40","broker":"b7.example:9093","clientId":"app"}',
    "python": "ERROR:kafka.conn:<BrokerConnection node_id=bootstrap-0 host=b7.example:9093 <handshake> "
              "[IPv4 ('192.0.2.7', 9093)]>: [SSL: SSLV3_ALERT_HANDSHAKE_FAILURE] sslv3 alert handshake failure "
              "(_ssl.c:1006)",
    "erlang": '{tls_alert,{handshake_failure,"TLS client: In state hello received SERVER ALERT: Fatal - Handshake '
              'Failure\\n"}}',
}


def test_every_clients_handshake_failure_alert_is_a_likely_missing_client_certificate():
    for client, line in HANDSHAKE_FAILURE_ALERTS.items():
        findings = explain_text(line + "\n").findings
        assert [(f.id, f.severity != "error") for f in findings] == [("TLS_CLIENT_CERT_REQUIRED", True)], client


def test_a_certificate_the_listener_refuses_is_still_a_certain_rejection_not_the_handshake_failure_reading():
    near_misses = [HANDSHAKE_FAILURE_ALERTS["python"].replace("SSLV3_ALERT_HANDSHAKE_FAILURE] sslv3 alert handshake "
                                                              "failure", "SSLV3_ALERT_CERTIFICATE_UNKNOWN] sslv3 alert "
                                                              "certificate unknown"),
                   HANDSHAKE_FAILURE_ALERTS["erlang"].replace("Handshake Failure", "Certificate Unknown"),
                   HANDSHAKE_FAILURE_ALERTS["java"].replace("handshake_failure", "certificate_unknown")]
    for line in near_misses:
        assert [(f.id, f.severity) for f in explain_text(line + "\n").findings] == [("TLS_CLIENT_CERT_REJECTED", "error")]
