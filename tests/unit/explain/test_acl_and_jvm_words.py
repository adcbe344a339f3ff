"""ACL denials on a consumer group, and the JVM's own words for a plaintext client at a TLS port, a chain the client
cannot build and a broker older than the client: each written from the library's source, not from a pasted case."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

# --- GROUP_AUTHORIZATION_FAILED: an ACL denial, read as the catalog's TOPIC_AUTHORIZATION_FAILED ---------------


@pytest.mark.parametrize("line, group", [
    # the Java client's GroupAuthorizationException(groupId): "Not authorized to access group: " + groupId
    ("org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group: orders-app",
     "orders-app"),
    ("[Consumer clientId=c-1, groupId=billing] JoinGroup failed due to fatal error: Group authorization failed.",
     "billing"),  # Errors.GROUP_AUTHORIZATION_FAILED's message, the group from the logger's prefix
    ('KafkaError{code=GROUP_AUTHORIZATION_FAILED,val=30,str="FindCoordinator response error: Not authorized to '
     'access group: Group authorization failed."}', None),  # librdkafka's binding: no group id in the words
    ("kafka server: The client is not authorized to access this group", None),  # Sarama's ErrGroupAuthorizationFailed
    ("[30] Group Authorization Failed: the client is not authorized to access a particular group id", None),  # segmentio
    ("%3|1700000000.000|ERROR|rdkafka#consumer-1| [thrd:main]: Broker: Group authorization failed", None),
])
def test_a_group_denied_by_acls_is_an_authorization_failure(line, group):
    finding = only(explained(line), "TOPIC_AUTHORIZATION_FAILED")
    assert finding.severity == "error" and "consumer group" in finding.title
    assert finding.evidence.get("group") == group
    assert "--operation Read --group" in finding.fix


def test_an_empty_group_id_is_named_as_such():
    line = "org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group:"
    finding = only(explained(line), "TOPIC_AUTHORIZATION_FAILED")
    assert "no group.id" in finding.title


def test_a_topic_denial_is_still_about_the_topic():
    line = "[29] Topic Authorization Failed: the client is not authorized to access the requested topic"
    assert "topic" in only(explained(line), "TOPIC_AUTHORIZATION_FAILED").title
    assert ids(explained(line)) == ["TOPIC_AUTHORIZATION_FAILED"]


# --- Netty's NotSslRecordException: who read the bytes that are not TLS -----------------------------------------

_NOT_TLS = ("io.netty.handler.codec.DecoderException: io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS "
            "record: 000000b200000000")


def test_a_tls_server_reading_plaintext_is_a_plaintext_client_at_a_tls_port():
    server = "2020-09-13 00:26:19,877 WARN Exception caught (org.apache.zookeeper.server.NettyServerCnxnFactory)"
    finding = only(explained(f"{server}\n{_NOT_TLS}"), "TLS_EXPECTED")
    assert finding.severity == "error" and "zookeeper.ssl.client.enable" in finding.explanation


def test_a_tls_client_reading_plaintext_is_a_server_without_tls():
    client = "2024-01-01 10:00:00,000 WARN Exception caught (org.apache.zookeeper.ClientCnxnSocketNetty)"
    assert ids(explained(f"{client}\n{_NOT_TLS}")) == ["TLS_UNEXPECTED"]


def test_with_no_side_named_it_is_a_servers():
    assert [(f.id, f.severity) for f in explained(_NOT_TLS).findings] == [("TLS_EXPECTED", "error")]


def test_text_bytes_at_a_tls_port_are_no_kafka_client():
    assert ids(explained("io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS record: 474554202f20485454")) == []


# --- the Java client reading a response in another release's layout ---------------------------------------------


@pytest.mark.parametrize("line", [
    # Schema.read's SchemaException on a field only responses have (Protocol.java's MetadataResponse v0)
    "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'topic_metadata': Error reading "
    "array of size 3027513, only 100 bytes available",
    "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'brokers': "
    "java.nio.BufferUnderflowException",
])
def test_a_response_the_java_client_cannot_parse_is_likely_a_broker_of_another_release(line):
    finding = only(explained(line), "BROKER_TOO_OLD")
    assert finding.severity == "warning" and finding.title.startswith("Likely: ")


def test_a_request_field_the_broker_cannot_parse_stays_the_brokers_reading():
    line = ("[2017-01-01 10:00:00,000] ERROR Closing socket for 10.0.0.7 because of error (kafka.network.Processor)\n"
            "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'topics': "
            "java.nio.BufferUnderflowException")
    assert only(explained(line), "BROKER_TOO_OLD").evidence["client"] == "broker"


# --- openssl s_client: a server certificate sent without its issuer -----------------------------------------------

_HANDSHAKE = "---\nSSL handshake has read 1633 bytes and written 415 bytes\n---"


@pytest.mark.parametrize("chain", [
    "Certificate chain\n 0 s:/O=io.strimzi/CN=my-cluster-kafka\n   i:/CN=Kafka Intermediate CA",  # OpenSSL 1.0
    "Certificate chain\n 0 s:O = io.strimzi, CN = my-cluster-kafka\n   i:CN = Kafka Intermediate CA\n"
    "   a:PKEY: rsaEncryption, 2048 (bit); sigalg: RSA-SHA256",  # OpenSSL 3
])
def test_a_server_certificate_sent_alone_is_likely_a_chain_the_client_cannot_build(chain):
    finding = only(explained(f"CONNECTED(00000003)\n---\n{chain}\n---\nServer certificate\n{_HANDSHAKE}"),
                   "TLS_CERT_UNTRUSTED")
    assert finding.severity == "warning" and "Kafka Intermediate CA" in finding.explanation


def test_a_whole_chain_or_a_self_signed_certificate_is_no_missing_intermediate():
    whole = ("Certificate chain\n 0 s:CN = my-cluster-kafka\n   i:CN = Kafka Intermediate CA\n"
             " 1 s:CN = Kafka Intermediate CA\n   i:CN = Kafka Root CA")
    alone = "Certificate chain\n 0 s:CN = my-cluster-kafka\n   i:CN = my-cluster-kafka"
    for chain in (whole, alone):
        assert ids(explained(f"{chain}\n---\n{_HANDSHAKE}")) == []


# --- a bootstrap list that names two listeners of one broker ----------------------------------------------------

# The Java client numbers its bootstrap.servers -1, -2, ... (Metadata.bootstrap) and prints them as Node.toString()
_BOOTSTRAP_NODES = ("DEBUG Updated cluster metadata version 1 to Cluster(nodes = [10.0.0.5:9094 (id: -2 rack: null), "
                    "10.0.0.5:9092 (id: -1 rack: null)], partitions = []) (org.apache.kafka.clients.Metadata)")


def test_a_bootstrap_list_mixing_one_brokers_listeners_is_a_maybe_security_mismatch():
    found = explained(f"{_BOOTSTRAP_NODES}\nDEBUG Initiating connection to node -2 at 10.0.0.5:9094.").findings
    assert [(f.id, f.severity) for f in found] == [("TLS_EXPECTED", "warning"), ("SASL_REQUIRED", "warning")]
    assert found[0].title.startswith("Maybe: ") and found[0].evidence["port"] == 9094


def test_a_tls_client_at_a_mixed_list_may_be_at_the_plaintext_port():
    found = explained(f"{_BOOTSTRAP_NODES}\nsecurity.protocol = SSL").findings
    assert [(f.id, f.severity) for f in found] == [("TLS_UNEXPECTED", "warning")]


def test_one_listener_per_broker_is_no_reading():
    nodes = "Cluster(nodes = [b1:9092 (id: -1 rack: null), b2:9092 (id: -2 rack: null)], partitions = [])"
    assert ids(explained(nodes)) == []


# --- a JVM out of heap, no frame shown: maybe a plaintext client at a TLS listener (KAFKA-4090) ------------------

_OOM = "java.lang.OutOfMemoryError: Java heap space"


def test_a_bare_heap_exhaustion_is_a_maybe_plaintext_client_at_a_tls_listener():
    found = explained(f"Pipeline main started\n{_OOM}\nPipeline main has been shutdown").findings
    tls = only(explained(_OOM), "TLS_EXPECTED")
    assert tls.severity == "warning" and tls.title.startswith("Maybe: ") and "352 MB" in tls.explanation
    assert all(f.severity == "warning" for f in found)


def test_the_heap_exhaustion_in_network_receive_stays_certain():
    paste = f"{_OOM}\n\tat java.nio.HeapByteBuffer.<init>(HeapByteBuffer.java:57)\n" \
            "\tat org.apache.kafka.common.network.NetworkReceive.readFrom(NetworkReceive.java:93)"
    assert only(explained(paste), "TLS_EXPECTED").severity == "error"


def test_a_tls_client_out_of_heap_is_no_plaintext_reading():
    assert "TLS_EXPECTED" not in ids(explained(f"security.protocol = SSL\n{_OOM}"))
