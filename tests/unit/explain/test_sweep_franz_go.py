"""franz-go's (kgo's) own error strings on the connection path, as its BasicLogger and its errors print them (``[WARN]
msg; key: value, ...``; rpk prints the same errors after its own ``unable to ...:``), each with the catalog ids every
paste of that shape fits, decided from the source before explain was run (``sweep_rows`` says how an expectation
reads). Hosts are invented. Sources: twmb/franz-go @ adb3a18abe14 (HEAD), @ 857f9e0eb4d4 (before v1.20)."""

from __future__ import annotations

import pytest

from tests.unit.explain.sweep_rows import reads

OPEN = "[WARN] unable to open connection to broker; "  # broker.go connect(): addr, broker (seed_N or the node id), err

ROWS = [
    (OPEN + "addr: b1.example:9092, broker: seed_0, err: dial tcp: lookup b1.example: no such host",
     "BOOTSTRAP_UNRESOLVABLE"),
    (OPEN + "addr: b1.internal.example:9092, broker: 1, err: dial tcp: lookup b1.internal.example on 192.0.2.53:53: no "
     "such host", "ADVERTISED_UNRESOLVABLE"),
    (OPEN + "addr: 192.0.2.10:9092, broker: seed_0, err: dial tcp 192.0.2.10:9092: connect: connection refused",
     "BOOTSTRAP_REFUSED"),
    (OPEN + "addr: 192.0.2.10:9092, broker: 2, err: dial tcp 192.0.2.10:9092: i/o timeout", "ADVERTISED_UNREACHABLE"),
    (OPEN + "addr: 192.0.2.10:9092, broker: seed_0, err: dial tcp 192.0.2.10:9092: connect: no route to host",
     "BOOTSTRAP_UNREACHABLE"),
    # the same log record through plugin/kzap (JSON) and plugin/kslog (slog's text handler)
    ('{"level":"warn","ts":1733605200.1,"msg":"unable to open connection to broker","addr":"b1.internal.example:9092",'
     '"broker":"1","err":"dial tcp: lookup b1.internal.example: no such host"}', "ADVERTISED_UNRESOLVABLE"),
    ('time=2026-12-07T21:00:00.000Z level=WARN msg="unable to open connection to broker" addr=192.0.2.10:9092 '
     'broker=seed_0 err="dial tcp 192.0.2.10:9092: connect: connection refused"', "BOOTSTRAP_REFUSED"),
    # broker.go: fmt.Errorf("unable to dial: %w", err), which names no role
    ("unable to dial: dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    ("unable to dial: dial tcp: lookup b1.example: no such host",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    ("unable to dial: dial tcp [2001:db8::10]:9092: connect: network is unreachable",
     "likely:BOOTSTRAP_UNREACHABLE or:ADVERTISED_UNREACHABLE"),
    ("unable to initialize a producer ID due to request failures: unable to dial: dial tcp 192.0.2.10:9092: i/o timeout",
     "likely:BOOTSTRAP_TIMEOUT or:ADVERTISED_UNREACHABLE"),
    # consumer_group.go: JoinGroup, SyncGroup and Heartbeat go to the group's coordinator, a broker of the metadata
    ("[WARN] join group failed; group: my-group, err: unable to dial: dial tcp: lookup b2.internal.example: no such host",
     "ADVERTISED_UNRESOLVABLE"),
    ("[INFO] heartbeat errored; group: my-group, err: unable to dial: dial tcp 192.0.2.10:9092: connect: connection "
     "refused", "ADVERTISED_UNREACHABLE"),
    # errors.go ErrFirstReadEOF, api versions kind (v1.20+): its own guess, a plaintext client at a TLS listener
    ("[WARN] read from broker received EOF during api versions discovery, which often happens when the broker requires "
     "TLS and the client is not using it (is TLS misconfigured?); addr: 192.0.2.10:9093, broker: seed_0, err: EOF",
     "likely:TLS_EXPECTED or:BROKER_TOO_OLD or:BROKER_CLOSED_CONNECTION"),
    ("unable to request metadata: broker closed the connection immediately during api versions negotiation, which often "
     "happens when the broker requires TLS but the client is using plaintext: is TLS missing?",
     "likely:TLS_EXPECTED or:BROKER_TOO_OLD or:BROKER_CLOSED_CONNECTION"),
    # ErrFirstReadEOF, SASL kind (every version's words: "which happens" before v1.20, "which often happens" after)
    ("[WARN] read from broker errored, killing connection after 0 successful responses (is SASL missing?); req: "
     "Metadata, addr: 192.0.2.10:9092, broker: seed_0, err: EOF", "likely:SASL_REQUIRED or:TLS_UNEXPECTED"),
    ("unable to request metadata: broker closed the connection immediately after a request was issued, which often "
     "happens when SASL is required but not provided: is SASL missing?", "likely:SASL_REQUIRED or:TLS_UNEXPECTED"),
    ("unable to request metadata: broker closed the connection immediately after a request was issued, which happens "
     "when SASL is required but not provided: is SASL missing?", "likely:SASL_REQUIRED or:TLS_UNEXPECTED"),
    # broker.go readResponse: the response size's four bytes, with its own note for a TLS alert and for HTTP
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 352518912 > limit "
     "104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext "
     "connection speaking to a tls endpoint?", "TLS_EXPECTED"),
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 1213486160 > limit "
     "104857600; the four size bytes are 'HTTP' in ascii, the beginning of an HTTP response; is your broker port "
     "correct?", "NOT_KAFKA"),
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 1397966893 > limit "
     "104857600", "NOT_KAFKA"),  # "SSH-"
    # just over BrokerMaxReadBytes: no broker's ApiVersions answer is that large; a fetch's can be (a size setting)
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 104857700 > limit "
     "104857600", "NOT_KAFKA"),
    ("[DEBUG] read from broker errored, killing connection; req: Fetch, addr: 192.0.2.10:9092, broker: 1, "
     "successful_reads: 12, err: invalid large response size 104857700 > limit 104857600", "any:ROUNDTRIP_FAILED"),
    # kerr: "NAME: Description" (and ": message" from the broker)
    ("[ERROR] unable to initialize sasl; broker: seed_0, err: SASL_AUTHENTICATION_FAILED: SASL Authentication failed.: "
     "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256",
     "SASL_AUTH_FAILED"),
    ("[ERROR] unable to initialize sasl; broker: seed_0, err: UNSUPPORTED_SASL_MECHANISM: The broker does not support the "
     "requested SASL mechanism.", "SASL_MECHANISM_MISMATCH"),
    ("[ERROR] unable to initialize sasl; broker: seed_0, err: ILLEGAL_SASL_STATE: Request is not valid given the current "
     "SASL state.", "SASL_MECHANISM_MISMATCH"),
    ("[ERROR] unable to initialize sasl; broker: seed_0, err: EOF", "no:SASL_REQUIRED"),
    # crypto/tls through the dial (franz-go's dialer does the handshake)
    (OPEN + "addr: b1.example:9093, broker: seed_0, err: tls: failed to verify certificate: x509: certificate signed by "
     "unknown authority", "TLS_CERT_UNTRUSTED"),
    (OPEN + "addr: b1.example:9093, broker: seed_0, err: tls: failed to verify certificate: x509: certificate is valid "
     "for b2.example, not b1.example", "TLS_HOSTNAME_MISMATCH"),
    ("unable to dial: tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time "
     "2026-12-07T21:00:00Z is after 2026-01-01T00:00:00Z", "TLS_CERT_UNTRUSTED"),
    (OPEN + "addr: b1.example:9093, broker: seed_0, err: remote error: tls: bad certificate", "TLS_CLIENT_CERT_REQUIRED"),
    (OPEN + "addr: b1.example:9093, broker: seed_0, err: remote error: tls: certificate required",
     "TLS_CLIENT_CERT_REQUIRED"),
    (OPEN + "addr: b1.example:9093, broker: seed_0, err: remote error: tls: handshake failure",
     "likely:TLS_CLIENT_CERT_REQUIRED"),
    # Windows' connectex words, rpk's wrapping
    ("unable to dial: dial tcp 192.0.2.10:9092: connectex: No connection could be made because the target machine "
     "actively refused it.", "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    (OPEN + "addr: 192.0.2.10:9092, broker: seed_0, err: dial tcp 192.0.2.10:9092: connectex: A socket operation was "
     "attempted to an unreachable network.", "BOOTSTRAP_UNREACHABLE"),
    ("unable to request metadata: unable to dial: dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    (OPEN + "addr: b1.example:9093, broker: seed_0, err: tls: first record does not look like a TLS handshake",
     "TLS_UNEXPECTED"),
    # versions: errBrokerTooOld and the ApiVersions v0 refusal
    ("[ERROR] unable to request api versions; broker: seed_0, err: broker replied with UNSUPPORTED_VERSION to an "
     "ApiVersions request of version 0", "likely:BROKER_TOO_OLD"),
    ("broker is too old; the broker has already indicated it will not know how to handle the request",
     "likely:BROKER_TOO_OLD"),
    # topics, ACLs, leaders
    # the code alone, no topic named: a produce to a partition the topic lacks, or to a broker no longer hosting it,
    # reads the same (the thirteenth blind set's migrator): likely
    ("UNKNOWN_TOPIC_OR_PARTITION: This server does not host this topic-partition.", "likely:TOPIC_NOT_FOUND"),
    ("[INFO] new topic metadata wait failed, retrying wait; topic: orders, err: UNKNOWN_TOPIC_OR_PARTITION: This server "
     "does not host this topic-partition.", "TOPIC_NOT_FOUND"),
    ("TOPIC_AUTHORIZATION_FAILED: Not authorized to access topics: [Topic authorization failed.]",
     "TOPIC_AUTHORIZATION_FAILED"),
    ("GROUP_AUTHORIZATION_FAILED: Not authorized to access group: Group authorization failed.",
     "TOPIC_AUTHORIZATION_FAILED"),
    ("LEADER_NOT_AVAILABLE: There is no leader for this topic-partition as we are in the middle of a leadership "
     "election.", "any:NO_LEADER"),
    ("LISTENER_NOT_FOUND: There is no listener on the leader broker that matches the listener on which metadata request "
     "was processed.", "NO_LEADER"),
    ("MESSAGE_TOO_LARGE: The request included a message larger than the max message size the server will accept.",
     "any:ROUNDTRIP_FAILED"),
    ("RECORD_LIST_TOO_LARGE: The request included message batch larger than the configured segment size on the server.",
     "any:ROUNDTRIP_FAILED"),
    # near misses
    ("NOT_LEADER_FOR_PARTITION: This server is not the leader for that topic-partition.", ""),
    ("REQUEST_TIMED_OUT: The request timed out.", ""),
    ("COORDINATOR_NOT_AVAILABLE: The coordinator is not available.", ""),
    ("records have timed out before they were able to be produced", ""),
    ("record failed after being retried too many times", ""),
    ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED: Transactional Id authorization failed.", ""),
    ("the broker connection has died and the request will be retried on a new connection", ""),
    ("[ERROR] fatal InitProducerID error, failing all buffered records; broker: 1, err: CLUSTER_AUTHORIZATION_FAILED: "
     "Cluster authorization failed.", ""),
    (OPEN + "addr: 192.0.2.10:9093, broker: seed_0, err: context deadline exceeded", ""),
    ("[ERROR] unable to initialize sasl; broker: seed_0, err: PLAIN user and pass must be non-empty", ""),
    ("[ERROR] unable to request api versions; broker: seed_0, err: invalid length 3 short response from ApiVersions "
     "request", ""),
]

# broker.go connect(): an EOF from the dial is ErrFirstReadEOF's dial kind. franz-go's dialer runs the TLS handshake,
# so its words show TLS on and the listener closing on the ClientHello, which a plaintext listener does; franz-go's own
# words are a guess ("often means"), and a broker or proxy that closes new connections ends the same way: likely.
ROWS += [
    ("[WARN] unable to open connection to broker due to an immediate EOF, which often means the client is using TLS when "
     "the broker is not expecting it (is TLS misconfigured?); addr: 192.0.2.10:9092, broker: seed_0, err: EOF",
     "likely:TLS_UNEXPECTED or:BROKER_CLOSED_CONNECTION"),
    ("broker closed the connection immediately after a dial, which often happens if the client is using TLS when the "
     "broker is not expecting it: is TLS misconfigured on the client or the broker?",
     "likely:TLS_UNEXPECTED or:BROKER_CLOSED_CONNECTION"),
    ("broker closed the connection immediately after a dial, which happens if the client is using TLS when the broker "
     "is not expecting it: is TLS misconfigured on the client or the broker?",
     "likely:TLS_UNEXPECTED or:BROKER_CLOSED_CONNECTION"),  # before v1.20
]


@pytest.mark.parametrize("text, expectation", ROWS)
def test_franz_go_words_read_as_their_source_says(text, expectation):
    reads(text, expectation)
