"""The classes the eleventh collection round's misses asked for (holdout5, read once it joined the corpus), each from
the library's own format string, with invented hosts (documentation names and addresses) and a near miss beside it:
words like them that must not read the same (``sweep_rows.reads`` says how an expectation reads)."""

from __future__ import annotations

import json

import pytest

from kdiag.explain.engine import explain_text
from kdiag.explain.normalize import normalise_block
from kdiag.explain.reader import Block
from tests.unit.explain.sweep_rows import reads

JAVA_AUTH = ("[2026-12-07 21:00:00,000] ERROR [AdminClient clientId=adminclient-1] Connection to node -1 "
             "(b1.example/192.0.2.10:9092) failed authentication due to: ")

ROWS = [
    # SaslClientAuthenticator: ILLEGAL_SASL_STATE to the SaslHandshake, "Unexpected handshake request with client
    # mechanism %s, enabled mechanisms are %s": the broker's request handler answered it (a listener without SASL),
    # whether or not the paste kept the list after the mechanism
    (JAVA_AUTH + "Unexpected handshake request with client mechanism PLAIN, enabled mechanisms are []",
     "SASL_MECHANISM_MISMATCH"),
    (JAVA_AUTH + "Unexpected handshake request with client mechanism PLAIN", "SASL_MECHANISM_MISMATCH"),
    (JAVA_AUTH + "Unexpected handshake request with client mechanism SCRAM-SHA-512 (org.apache.kafka.clients."
     "NetworkClient)", "SASL_MECHANISM_MISMATCH"),
    # near miss: the broker's authenticator got a Kafka request before any handshake: no SASL from the client
    ("[2026-12-07 21:00:00,000] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
     "/192.0.2.7 (channelId=192.0.2.1:9094-192.0.2.7:51234-0) (Unexpected Kafka request of type METADATA during SASL "
     "handshake.) (org.apache.kafka.common.network.Selector)", "SASL_REQUIRED no:SASL_MECHANISM_MISMATCH"),
]


# franz-go broker.go readResponse: "invalid large response size %d > limit %d; the first three bytes received appear to
# be a tls alert record for %s; is this a plaintext connection speaking to a tls endpoint?", pasted with and without
# the sizes; the size alone (no hint) is something else answering
ROWS += [
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 352518912 > limit "
     "104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext "
     "connection speaking to a tls endpoint?", "TLS_EXPECTED"),
    ("invalid large response size; the first three bytes received appear to be a tls alert record for TLS v1.2; is "
     "this a plaintext connection speaking to a tls endpoint?", "TLS_EXPECTED"),
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 1397966893 > limit "
     "104857600", "NOT_KAFKA no:TLS_EXPECTED"),
]

# The JDK's sun.security.x509.CertificateValidity.valid on the chain the broker sent: CertificateExpiredException
# ("NotAfter: " + date) and CertificateNotYetValidException ("NotBefore: " + date), also with a shipper's escaped
# frames after it; the near miss is the broker's alert about the client's own certificate
ROWS += [
    ("Caused by: java.security.cert.CertificateExpiredException: NotAfter: Sat Mar 01 12:00:00 UTC 2025",
     "TLS_CERT_UNTRUSTED"),
    ("Caused by: java.security.cert.CertificateNotYetValidException: NotBefore: Mon Jan 01 00:00:00 UTC 2035",
     "TLS_CERT_UNTRUSTED"),
    ("Caused by: java.security.cert.CertificateExpiredException: NotAfter: Sat Mar 01 12:00:00 UTC 2025\\n\\tat "
     "java.base/sun.security.x509.CertificateValidity.valid(CertificateValidity.java:274)", "TLS_CERT_UNTRUSTED"),
    ("[2026-12-07 21:00:00,000] ERROR [Producer clientId=producer-1] Connection to node -1 "
     "(b1.example/192.0.2.10:9093) failed authentication due to: SSL handshake failed (org.apache.kafka.clients.NetworkClient)\n"
     "Caused by: java.security.cert.CertificateExpiredException: NotAfter: Sat Mar 01 12:00:00 UTC 2025",
     "TLS_CERT_UNTRUSTED"),
    ("Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired",
     "TLS_CLIENT_CERT_REJECTED no:TLS_CERT_UNTRUSTED"),
]

# Java's MemoryRecordsBuilder: "Magic v" + magic + " does not support record headers": the producer's batches are at
# the record format every broker's ApiVersions allows, so v0/v1 says a broker before 0.11 (likely: a Kafka facade
# answers the same); the near miss is an unrelated argument error of the same class
ROWS += [
    ("java.lang.IllegalArgumentException: Magic v1 does not support record headers", "likely:BROKER_TOO_OLD"),
    ("java.lang.IllegalArgumentException: Magic v0 does not support record headers\n\tat org.apache.kafka.common."
     "record.MemoryRecordsBuilder.appendWithOffset(MemoryRecordsBuilder.java:412)", "likely:BROKER_TOO_OLD"),
    ("java.lang.IllegalArgumentException: Headers cannot be null", "no:BROKER_TOO_OLD"),
]

# OpenSSL 3's by_dir (crypto/x509/by_dir.c): ERR_raise_data(ERR_LIB_SYS, errno, "calling stat(%s)") for a CA directory
# that is not there, queued while verifying the broker's chain; the near miss is the client's own certificate file
# missing (BIO's "calling fopen(%s, %s)"), a configuration error and no reading about the broker's chain
ROWS += [
    ("%3|1707900000.123|FAIL|rdkafka#producer-1| [thrd:ssl://b1.example:9093/bootstrap]: ssl://b1.example:9093/"
     "bootstrap: error:80000002:system library::No such file or directory: calling stat(/usr/local/ssl/certs)",
     "likely:TLS_CERT_UNTRUSTED"),
    ("2024-02-15T15:45:59 [ERROR] - app: librdkafka: SSL [thrd:ssl://b1.example:9093/b]: ssl://b1.example:9093/"
     "bootstrap: error:80000002:system library::No such file or directory: calling stat(/usr/lib/ssl/certs)",
     "likely:TLS_CERT_UNTRUSTED"),
    ("%3|1707900000.123|ERROR|rdkafka#producer-1| [thrd:app]: rdkafka#producer-1: ssl.certificate.location failed: "
     "error:80000002:system library::No such file or directory: calling fopen(/etc/kafka/client.pem, r)",
     "no:TLS_CERT_UNTRUSTED"),
]

# kafka-net's KafkaConnectionFactory.Resolve (and its successor KafkaClient's Endpoint.Resolve): "Could not resolve the
# following hostname: {0}", for a bootstrap URI and for a broker of the metadata alike: both readings; the near miss is
# kafka-net's own words for its bootstrap list, which name the role
ROWS += [
    ("KafkaNet.Protocol.UnresolvedHostnameException: Could not resolve the following hostname: kafka.example",
     "any:BOOTSTRAP_UNRESOLVABLE any:ADVERTISED_UNRESOLVABLE"),
    ("KafkaClient.Connections.ConnectionException: Could not resolve the following hostname: b1.internal.example",
     "any:BOOTSTRAP_UNRESOLVABLE any:ADVERTISED_UNRESOLVABLE"),
    ("KafkaNet.Protocol.ServerUnreachableException: None of the provided Kafka servers are resolvable.",
     "BOOTSTRAP_UNRESOLVABLE no:ADVERTISED_UNRESOLVABLE"),
]

# Sarama's ErrUnknownTopicOrPartition ("kafka server: Request was for a topic or partition that does not exist on this
# broker."): Sarama asks for every topic's metadata and the broker leaves out those the principal may not Describe, so
# an internal topic reported so is likely hidden by the ACLs; a topic of the app's is not there. The topic is the
# record's field or the app's "%s: %v" word, never a word of its prose (the near miss)
ERR = "kafka server: Request was for a topic or partition that does not exist on this broker."
ROWS += [
    ('{"level":"error","ts":1733605200.1,"msg":"failed to get partition count","topic":"__consumer_offsets",'
     f'"error":"{ERR}"}}', "likely:TOPIC_AUTHORIZATION_FAILED or:TOPIC_NOT_FOUND"),
    (f"2026/12/07 21:00:00 __transaction_state: {ERR}", "likely:TOPIC_AUTHORIZATION_FAILED or:TOPIC_NOT_FOUND"),
    (f"2026/12/07 21:00:00 orders: {ERR}", "TOPIC_NOT_FOUND no:TOPIC_AUTHORIZATION_FAILED"),
    (f"failed to get partitions for topic orders-v2: {ERR}", "TOPIC_NOT_FOUND no:TOPIC_AUTHORIZATION_FAILED"),
]


def test_a_word_of_the_apps_prose_before_saramas_error_is_no_topic():
    found = explain_text(f"failed to get partition count: {ERR}").findings
    assert [f.id for f in found] == ["TOPIC_NOT_FOUND"]
    assert found[0].evidence.get("topic") in (None, "<topic>")

@pytest.mark.parametrize("text, expectation", ROWS)
def test_the_eleventh_rounds_classes_read_as_their_source_says(text, expectation):
    reads(text, expectation)


# --- a YAML quoted scalar folded across lines (a Kubernetes status condition's message, kubectl get -o yaml) ---------

CONDITION = ["  - lastTransitionTime: \"2026-12-07T21:00:00Z\"",
             "    message: 'Unable to initialize consumergroup offsets: failed to get partitions",
             "      for topic orders-v2: kafka server: Request was for a topic or partition",
             "      that does not exist on this broker.'",
             "    reason: OffsetsNotCommitted"]


def test_a_folded_yaml_message_is_read_as_the_one_line_yaml_makes_of_it():
    lines = normalise_block(Block(1, CONDITION)).lines
    assert lines[1] == ("    message: 'Unable to initialize consumergroup offsets: failed to get partitions for topic "
                        "orders-v2: kafka server: Request was for a topic or partition that does not exist on this "
                        "broker.'")
    assert lines[2] == "    reason: OffsetsNotCommitted"
    reads("\n".join(CONDITION), "TOPIC_NOT_FOUND")


def test_a_folded_yaml_message_under_a_loggers_prefix_or_one_record_a_line_is_joined_too():
    prefixed = ["2026/12/07 21:00:00 " + line for line in CONDITION]
    assert len(normalise_block(Block(1, prefixed)).lines) == 3
    head = '{"@timestamp":"2026-12-07T21:00:00Z","message":"client error","error":{"stack_trace":%s}}'
    records = [head % json.dumps(line) for line in CONDITION]
    assert any("message: 'Unable" in line and "orders-v2: kafka server" in line and line.endswith("broker.'")
               for line in normalise_block(Block(1, records)).lines)


def test_lines_that_only_look_like_a_yaml_scalar_stay_apart():
    unclosed = ["ERROR: 'producer failed", "    at org.example.App.main(App.java:12)",
                "    at org.example.App.run(App.java:3)"]
    closed_on_its_line = ["    message: 'all good'", "      reason: Ready"]
    shallower = ["    message: 'Unable to initialize", "  status: 'False'"]
    for lines in (unclosed, closed_on_its_line, shallower):
        assert normalise_block(Block(1, lines)).lines == lines
