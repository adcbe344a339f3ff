"""A TLS endpoint whose later handshake was cut off is not a plaintext listener.

kcat against an ingress that answers TLS with a certificate the client does not trust, then hangs up on a retry's
handshake (seen in the SNI-ingress lab): the EOF is a consequence of the same endpoint, not TLS_UNEXPECTED."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids

HEAD = "%3|1795611700.250|FAIL|rdkafka#producer-1| [thrd:ssl://kafka.example.test:443/bootstrap]: " \
       "ssl://kafka.example.test:443/bootstrap: SSL handshake failed: "
VERIFY = HEAD + ("error:0A000086:SSL routines::certificate verify failed: broker certificate could not be verified, "
                 "verify that ssl.ca.location is correctly configured or root CA certificates are installed (install "
                 "ca-certificates package) (after 1ms in state SSL_HANDSHAKE)")
EOF_LINE = HEAD + "error:0A000126:SSL routines::unexpected eof while reading (after 3ms in state SSL_HANDSHAKE)"


def test_an_eof_after_the_same_endpoint_showed_its_certificate_is_no_plaintext_listener():
    found = explained("\n".join([VERIFY, EOF_LINE])).findings
    assert "TLS_UNEXPECTED" not in [f.id for f in found]
    assert found[0].id == "TLS_CERT_UNTRUSTED"


def test_the_eof_alone_is_still_a_plaintext_listener():
    assert ids(explained(EOF_LINE))[0] == "TLS_UNEXPECTED"


def test_a_certificate_of_another_endpoint_changes_nothing():
    other = VERIFY.replace("kafka.example.test:443", "other.example.test:9093")
    assert "TLS_UNEXPECTED" in ids(explained("\n".join([other, EOF_LINE])))


# A hang-up in the client's TLS handshake, with no alert and no byte back, in every client's words: the same likely
# reading everywhere (a plaintext listener; a broker or proxy turning connections away the other), never certain. Bytes
# that are not TLS are the near miss: certain. Hosts are invented.
HUNG_UP = {
    "librdkafka": EOF_LINE.replace("kafka.example.test:443", "b4.example:9093"),
    "librdkafka-hint": HEAD.replace("kafka.example.test:443", "b4.example:9093") + "Disconnected: connecting to a "
                       "PLAINTEXT broker listener? (after 2ms in state SSL_HANDSHAKE)",
    "java": "Caused by: java.io.EOFException: EOF during handshake, handshake status is NEED_UNWRAP",
    "java-terminated": "security.protocol = SSL\n[2026-12-08 00:00:00,000] WARN [Producer clientId=p] Connection to node "
                       "-1 (b4.example/192.0.2.4:9093) terminated during authentication. This may happen due to any of "
                       "the following reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS "
                       "traffic), (2) Transient network issue. (org.apache.kafka.clients.NetworkClient)",
    "kafkajs": '{"level":"ERROR","logger":"kafkajs","message":"[Connection] Connection error: Client network socket '
               'disconnected before secure TLS connection was established","broker":"b4.example:9093"}',
    "aiokafka": 'ERROR:aiokafka:Unable connect to "b4.example:9093": [SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in '
                'violation of protocol (_ssl.c:1006)',
    "kafka-python": "WARNING:kafka.conn:SSL connection closed by server during handshake.",
    "sarama": "$ ./produce -brokers b4.example:9093 -tls\n[sarama] 2026/12/08 00:00:00 Failed to send ApiVersionsRequest "
              "V3 to b4.example:9093: EOF",
    "ruby": "OpenSSL::SSL::SSLError: SSL_connect SYSCALL returned=5 errno=0 state=SSLv2/v3 read server hello A",
    "rustls": 'error connecting to broker "b4.example:9093": IO Error: tls handshake eof',
}


def test_every_clients_hang_up_in_the_tls_handshake_is_a_likely_plaintext_listener():
    for client, text in HUNG_UP.items():
        found = [(f.id, f.severity, f.title.split(":")[0]) for f in explained(text + "\n").findings]
        assert found[0] == ("TLS_UNEXPECTED", "warning", "Likely"), (client, found)
        assert ("BROKER_CLOSED_CONNECTION", "warning", "Or") in found, (client, found)
        assert all(severity == "warning" for _, severity, _ in found), (client, found)


def test_bytes_that_are_not_tls_make_it_certain():
    for text in [HUNG_UP["librdkafka"].replace("unexpected eof while reading", "wrong version number"),
                 HUNG_UP["aiokafka"].replace("UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol",
                                             "WRONG_VERSION_NUMBER] wrong version number")]:
        assert [(f.id, f.severity) for f in explained(text + "\n").findings] == [("TLS_UNEXPECTED", "error")]
