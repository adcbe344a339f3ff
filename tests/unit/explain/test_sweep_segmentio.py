"""segmentio/kafka-go's own error strings on the connection path, each with the catalog ids every paste of that shape
fits, decided from the source before explain was run (``sweep_rows`` says how an expectation reads). Hosts are
invented. Source: segmentio/kafka-go @ 3ce29796ef96 (HEAD; the dialer's wrapping since 0.4.31, ae86f557008b)."""

from __future__ import annotations

import pytest

from tests.unit.explain.sweep_rows import reads

DIAL = "failed to dial: failed to open connection to "  # dialer.go: connect() around dialContext()'s TCP dial
LOG = "2026/12/07 21:00:00 "

ROWS = [
    # The Dialer dials the bootstrap list (LookupPartition, the consumer group's first connection) and the brokers the
    # metadata names (DialLeader's leader, the coordinator) in the same words: two readings.
    (DIAL + "b1.example:9092: dial tcp: lookup b1.example: no such host",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    (DIAL + "b1.example:9092: dial tcp: lookup b1.example on 192.0.2.53:53: server misbehaving",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    (DIAL + "192.0.2.10:9092: dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    (DIAL + "192.0.2.10:9092: dial tcp 192.0.2.10:9092: i/o timeout", "likely:BOOTSTRAP_TIMEOUT or:ADVERTISED_UNREACHABLE"),
    (DIAL + "192.0.2.10:9092: dial tcp 192.0.2.10:9092: connect: no route to host",
     "likely:BOOTSTRAP_UNREACHABLE or:ADVERTISED_UNREACHABLE"),
    (DIAL + "[2001:db8::10]:9092: dial tcp [2001:db8::10]:9092: connect: network is unreachable",
     "likely:BOOTSTRAP_UNREACHABLE or:ADVERTISED_UNREACHABLE"),
    (DIAL + "192.0.2.10:9092: dial tcp 192.0.2.10:9092: connectex: No connection could be made because the target "
     "machine actively refused it.", "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    ("kafka.(*Transport).RoundTrip: dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    # dialContext with a Resolver: "failed to resolve host: %w"
    ("failed to dial: failed to resolve host: lookup b1.example: no such host",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    # reader.go: each configured broker's DialLeader failed
    ("error dialing all brokers, one of the errors: " + DIAL + "b1.example:9092: dial tcp: lookup b1.example: no such host",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    # consumergroup.go coordinator(): the configured brokers first, then the coordinator FindCoordinator named
    (LOG + "Unable to establish connection to consumer group coordinator for group my-group: " + DIAL +
     "b2.internal.example:9092: dial tcp: lookup b2.internal.example: no such host",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    # writer.go: a batch goes to its partition's leader, from the metadata ("attempt %d" in the log since 0.4.x)
    (LOG + "error writing messages to orders (partition 0, attempt 3): dial tcp 192.0.2.10:9092: connect: connection "
     "refused", "ADVERTISED_UNREACHABLE"),
    ("failed to get topic metadata :dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    # dialer.go connectTLS(): the handshake's own error, wrapped by "failed to dial: " only
    ("failed to dial: tls: failed to verify certificate: x509: certificate signed by unknown authority",
     "TLS_CERT_UNTRUSTED"),
    ("failed to dial: x509: certificate is valid for b2.example, not b1.example", "TLS_HOSTNAME_MISMATCH"),
    ("failed to dial: remote error: tls: bad certificate", "TLS_CLIENT_CERT_REQUIRED"),
    ("failed to dial: remote error: tls: handshake failure", "likely:TLS_CLIENT_CERT_REQUIRED"),
    ("failed to dial: tls: first record does not look like a TLS handshake", "TLS_UNEXPECTED"),
    # the handshake cut off: the listener closed on the ClientHello (TLS on, a plaintext listener most likely)
    ("failed to dial: EOF", "likely:TLS_UNEXPECTED"),
    (LOG + "failed to dial: read tcp 192.0.2.99:51000->192.0.2.10:9092: read: connection reset by peer",
     "likely:TLS_UNEXPECTED"),
    # dialer.go authenticateSASL: "could not successfully authenticate to %s:%d with SASL: %w"; an EOF on the
    # SaslAuthenticate exchange is returned as SASLAuthenticationFailed itself
    ("could not successfully authenticate to b1.example:9092 with SASL: [58] SASL Authentication Failed: SASL "
     "Authentication failed", "SASL_AUTH_FAILED"),
    # sasl/aws_msk_iam: the broker's own reason after the code
    ("could not successfully authenticate to b1.example:9092 with SASL: [58] SASL Authentication Failed: SASL "
     "Authentication failed: [b1.example] Access denied", "SASL_AUTH_FAILED"),
    ("could not successfully authenticate to b1.example:9092 with SASL: SASL handshake failed: [33] Unsupported SASL "
     "Mechanism: the broker does not support the requested SASL mechanism", "SASL_MECHANISM_MISMATCH"),
    ("could not successfully authenticate to b1.example:9092 with SASL: SASL handshake failed: [34] Illegal SASL State: "
     "the request is not valid given the current SASL state", "SASL_MECHANISM_MISMATCH"),
    # the handshake's ApiVersions (the Conn's first request) closed: a plaintext client at a TLS listener, likely
    ("could not successfully authenticate to b1.example:9092 with SASL: SASL handshake failed: EOF",
     "likely:TLS_EXPECTED no:SASL_REQUIRED"),
    # error.go: "[%d] %s: %s", code, Title, Description
    ("[3] Unknown Topic Or Partition: the request is for a topic or partition that does not exist on this broker",
     "TOPIC_NOT_FOUND"),
    ("kafka write errors (1/1), errors: [[3] Unknown Topic Or Partition: the request is for a topic or partition that "
     "does not exist on this broker]", "TOPIC_NOT_FOUND"),
    (LOG + "error initializing the kafka reader for partition 0 of orders: [3] Unknown Topic Or Partition: the request "
     "is for a topic or partition that does not exist on this broker", "TOPIC_NOT_FOUND"),
    ("[29] Topic Authorization Failed: the client is not authorized to access the requested topic",
     "TOPIC_AUTHORIZATION_FAILED"),
    ("[30] Group Authorization Failed: the client is not authorized to access a particular group id",
     "TOPIC_AUTHORIZATION_FAILED"),
    ("[5] Leader Not Available: the cluster is in the middle of a leadership election and there is currently no leader "
     "for this partition and hence it is unavailable for writes", "any:NO_LEADER"),
    ("[72] Listener Not Found: there is no listener on the leader broker that matches the listener on which metadata "
     "request was processed", "NO_LEADER"),
    ("[35] Unsupported Version: the version of API is not supported", "likely:BROKER_TOO_OLD"),
    # transport.go: the ApiVersions answer's error ("negotating", its spelling)
    ("negotating API versions with kafka broker at 192.0.2.10:9092: [35] Unsupported Version: the version of API is not "
     "supported", "likely:BROKER_TOO_OLD"),
    ("[10] Message Size Too Large: the server has a configurable maximum message size to avoid unbounded memory "
     "allocation and the client attempted to produce a message larger than this maximum", "any:ROUNDTRIP_FAILED"),
    (LOG + "failed to dial leader: context deadline exceeded", "likely:TOPIC_NOT_FOUND"),
    # near misses
    ("[6] Not Leader For Partition: the client attempted to send messages to a replica that is not the leader for some "
     "partition, the client's metadata are likely out of date", ""),
    ("[16] Not Coordinator For Group: the broker returns this error code if it receives an offset fetch or commit "
     "request for a group that it is not a coordinator for", ""),
    ("[7] Request Timed Out: the request exceeded the user-specified time limit in the request", ""),
    ("[31] Cluster Authorization Failed: the client is not authorized to use an inter-broker or administrative API", ""),
    ("[15] Group Coordinator Not Available: the broker returns this error code for group coordinator requests, offset "
     "commits, and most group management requests if the offsets topic has not yet been created, or if the group "
     "coordinator is not active", ""),
    (LOG + "Failed to join group my-group: [25] Unknown Member Id: the coordinator is not aware of this member", ""),
    ("fetching message: context deadline exceeded", ""),
    ("kafka.(*Writer).WriteMessages: cannot create a kafka writer with a nil address", ""),
    ("kafka.(*Client).Metadata: read tcp 192.0.2.99:51000->192.0.2.10:9092: read: connection reset by peer", ""),
    ("unexpected EOF", ""),
]


@pytest.mark.parametrize("text, expectation", ROWS)
def test_kafka_go_words_read_as_their_source_says(text, expectation):
    reads(text, expectation)
