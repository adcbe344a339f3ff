"""Sarama's own error strings on the connection path (IBM/sarama, and Shopify/sarama before the move), each with the
catalog ids every paste of that shape fits, decided from the source before explain was run (``sweep_rows`` says how
an expectation reads). Hosts are invented. Sources: IBM/sarama @ bd98b3aec677 (HEAD), v1.30.0 @ 712b6bb89287."""

from __future__ import annotations

import pytest

from tests.unit.explain.sweep_rows import reads

SARAMA = "[sarama] 2026/12/07 21:00:00 "

ROWS = [
    # broker.go Open(): "Failed to connect to broker %s: %s" with the dialer's error. Sarama names a seed and a broker of
    # the metadata alike (host:port), so the role is two readings.
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp: lookup b1.example: no such host",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    (SARAMA + "Failed to connect to broker 192.0.2.10:9092: dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    (SARAMA + "Failed to connect to broker 192.0.2.10:9092: dial tcp 192.0.2.10:9092: i/o timeout",
     "likely:BOOTSTRAP_TIMEOUT or:ADVERTISED_UNREACHABLE"),
    (SARAMA + "Failed to connect to broker 192.0.2.10:9092: dial tcp 192.0.2.10:9092: connect: no route to host",
     "likely:BOOTSTRAP_UNREACHABLE or:ADVERTISED_UNREACHABLE"),
    # client.go tryRefreshMetadata: "client/metadata got error from broker %d ...": -1 is a seed broker
    (SARAMA + "client/metadata got error from broker -1 while fetching metadata: dial tcp 192.0.2.10:9092: connect: "
     "connection refused", "BOOTSTRAP_REFUSED"),
    # sarama.Logger handed to logrus
    ('time="2026-12-07T21:00:00Z" level=info msg="[sarama] client/metadata got error from broker -1 while fetching '
     'metadata: dial tcp 192.0.2.10:9092: connect: connection refused"', "BOOTSTRAP_REFUSED"),
    # client.go registerBroker: "client/brokers registered new broker #%d at %s": the metadata named it
    (SARAMA + "client/brokers registered new broker #1 at b1.internal.example:9092\n" + SARAMA +
     "Failed to connect to broker b1.internal.example:9092: dial tcp: lookup b1.internal.example: no such host",
     "ADVERTISED_UNRESOLVABLE"),
    # client.go findCoordinator: "client/coordinator coordinator for %s is #%d (%s)": a broker of the metadata
    (SARAMA + "client/coordinator coordinator for my-group is #1 (b1.internal.example:9092)\n" + SARAMA +
     "Failed to connect to broker b1.internal.example:9092: dial tcp: lookup b1.internal.example: no such host",
     "ADVERTISED_UNRESOLVABLE"),
    # client.go: FindCoordinator goes to LeastLoadedBroker, a broker the metadata registered
    (SARAMA + "client/coordinator request to broker b1.example:9092 failed: dial tcp 192.0.2.10:9092: i/o timeout",
     "ADVERTISED_UNREACHABLE"),
    # errors.go ErrOutOfBrokers, Wrap(ErrOutOfBrokers, brokerErrors...) since 1.41; v1.30 had "(Is your cluster
    # reachable?)" and no cause
    ("kafka: client has run out of available brokers to talk to: dial tcp 192.0.2.10:9092: connect: connection refused",
     "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    ("kafka: client has run out of available brokers to talk to (Is your cluster reachable?)", ""),
    ("kafka: client has run out of available brokers to talk to: EOF", ""),
    # broker.go before 1.26.2: tls.DialWithDialer's timeoutError covers the connect and the handshake
    (SARAMA + "Failed to connect to broker b1.example:9093: tls: DialWithDialer timed out",
     "likely:BOOTSTRAP_TIMEOUT or:ADVERTISED_UNREACHABLE"),
    # crypto/x509 through the dial (before 1.26.2) or the first write (since: tls.Client, handshake on the first write)
    (SARAMA + "Failed to connect to broker b1.example:9093: x509: certificate signed by unknown authority",
     "TLS_CERT_UNTRUSTED"),
    (SARAMA + "Failed to connect to broker b1.example:9093: x509: certificate is valid for b2.example, not b1.example",
     "TLS_HOSTNAME_MISMATCH"),
    (SARAMA + "Failed to connect to broker b1.example:9093: tls: failed to verify certificate: x509: certificate has "
     "expired or is not yet valid: current time 2026-12-07T21:00:00Z is after 2026-01-01T00:00:00Z", "TLS_CERT_UNTRUSTED"),
    (SARAMA + "Error while sending ApiVersionsRequest V3 to broker b1.example:9092: tls: failed to verify certificate: "
     "x509: certificate signed by unknown authority", "TLS_CERT_UNTRUSTED"),
    # broker.go sendAndReceiveApiVersions: 7 bytes (a TLS alert) where the 8-byte header was due
    (SARAMA + "Failed to read ApiVersionsResponse V3 header from 192.0.2.10:9093: unexpected EOF", "TLS_EXPECTED"),
    # broker.go Open(): the SaslAuthenticate answer's error (v1), the handshake's (v0: "Invalid SASL Mechanism : %s")
    (SARAMA + "Closed connection to broker b1.example:9092 due to SASL v1 auth error: kafka server: SASL Authentication "
     "failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512",
     "SASL_AUTH_FAILED"),
    (SARAMA + "Closed connection to broker b1.example:9092 due to SASL v1 auth error: kafka server: The broker does not "
     "support the requested SASL mechanism", "SASL_MECHANISM_MISMATCH"),
    (SARAMA + "Invalid SASL Mechanism : kafka server: The broker does not support the requested SASL mechanism",
     "SASL_MECHANISM_MISMATCH"),
    # ILLEGAL_SASL_STATE to a SaslHandshake: a listener without SASL (kafka_errors' reading)
    (SARAMA + "Closed connection to broker b1.example:9092 due to SASL v1 auth error: kafka server: Request is not valid "
     "given the current SASL state", "SASL_MECHANISM_MISMATCH"),
    # a close on the SaslHandshake request itself says no more than a close
    (SARAMA + "Error while performing SASL handshake b1.example:9092: EOF", "no:SASL_REQUIRED"),
    # v0 (no ApiVersions before it when ApiVersionsRequest is off): the handshake is the first request
    (SARAMA + "Failed to read SASL handshake header : EOF", "likely:TLS_EXPECTED no:SASL_REQUIRED"),
    # broker.go sendAndReceiveSASLPlainAuthV0: the v0 login closed on its token (credentials, most likely)
    (SARAMA + "Failed to read response while authenticating with SASL to broker b1.example:9092: EOF",
     "likely:SASL_AUTH_FAILED or:BROKER_CLOSED_CONNECTION"),
    # client.go tryRefreshMetadata: logged for ErrSASLAuthenticationFailed
    (SARAMA + "client/metadata failed SASL authentication", "SASL_AUTH_FAILED"),
    # v1.30 broker.go: the OAUTHBEARER server's error challenge
    (SARAMA + 'Broker rejected authentication token: {"status":"invalid_token"}', "SASL_AUTH_FAILED"),
    # client.go and errors.go: topic and group ACLs
    (SARAMA + "client is not authorized to access this topic. The topics were:  [orders]", "TOPIC_AUTHORIZATION_FAILED"),
    (SARAMA + "Unexpected topic-level metadata error: kafka server: The client is not authorized to access this topic",
     "TOPIC_AUTHORIZATION_FAILED"),
    ("kafka server: The client is not authorized to access this group", "TOPIC_AUTHORIZATION_FAILED"),
    ("kafka server: The client is not authorized to send this request type", ""),  # CLUSTER_AUTHORIZATION: no id
    ("kafka server: Request was for a topic or partition that does not exist on this broker", "TOPIC_NOT_FOUND"),
    ("kafka: error while consuming orders/0: kafka server: Request was for a topic or partition that does not exist on "
     "this broker", "TOPIC_NOT_FOUND"),
    # client.go: updateMetadata retries on UNKNOWN_TOPIC_OR_PARTITION and LEADER_NOT_AVAILABLE alike
    (SARAMA + "client/metadata found some partitions to be leaderless", "likely:TOPIC_NOT_FOUND any:NO_LEADER"),
    ("kafka server: In the middle of a leadership election, there is currently no leader for this partition and hence "
     "it is unavailable for writes", "likely:NO_LEADER"),
    ("kafka server: There is no listener on the leader broker that matches the listener on which metadata request was "
     "processed", "NO_LEADER"),
    ("kafka server: Message was too large, server rejected it to avoid allocation error", "any:ROUNDTRIP_FAILED"),
    ("kafka server: The version of API is not supported", "likely:BROKER_TOO_OLD"),
    # Go's net: the other words of a lookup and a connect (Windows' connectex, an IPv6 loopback, no host, 0.0.0.0)
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp 192.0.2.10:9092: connectex: No connection could be "
     "made because the target machine actively refused it.", "likely:BOOTSTRAP_REFUSED or:ADVERTISED_UNREACHABLE"),
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp 192.0.2.10:9092: connectex: A connection attempt "
     "failed because the connected party did not properly respond after a period of time, or established connection "
     "failed because connected host has failed to respond.", "likely:BOOTSTRAP_TIMEOUT or:ADVERTISED_UNREACHABLE"),
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp 192.0.2.10:9092: connect: connection timed out",
     "likely:BOOTSTRAP_TIMEOUT or:ADVERTISED_UNREACHABLE"),
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp: lookup b1.example on 127.0.0.53:53: server "
     "misbehaving", "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp: lookup b1.example: i/o timeout",
     "likely:BOOTSTRAP_UNRESOLVABLE or:ADVERTISED_UNRESOLVABLE"),
    (SARAMA + "Failed to connect to broker :9092: dial tcp :9092: connect: connection refused", "BOOTSTRAP_REFUSED"),
    (SARAMA + "Failed to connect to broker 0.0.0.0:9092: dial tcp 0.0.0.0:9092: connect: connection refused",
     "ADVERTISED_NONROUTABLE"),
    (SARAMA + "Failed to connect to broker b1.example:9092: dial tcp: lookup b1.example: no such host\n" + SARAMA +
     "client/metadata got error from broker -1 while fetching metadata: dial tcp: lookup b1.example: no such host",
     "BOOTSTRAP_UNRESOLVABLE"),
    # crypto/x509's other words
    (SARAMA + "Failed to connect to broker b1.example:9093: x509: certificate signed by unknown authority (possibly "
     'because of "crypto/rsa: verification error" while trying to verify candidate authority certificate "kafka-ca")',
     "TLS_CERT_UNTRUSTED"),
    (SARAMA + "Failed to connect to broker 192.0.2.10:9093: x509: cannot validate certificate for 192.0.2.10 because it "
     "doesn't contain any IP SANs", "TLS_HOSTNAME_MISMATCH"),
    (SARAMA + "Failed to connect to broker b1.example:9093: tls: failed to verify certificate: x509: certificate relies "
     "on legacy Common Name field, use SANs instead", "TLS_HOSTNAME_MISMATCH"),
    # the listener's alert: a client certificate, likely (never the client's own check of the broker's chain)
    (SARAMA + "Failed to connect to broker b1.example:9093: remote error: tls: handshake failure",
     "likely:TLS_CLIENT_CERT_REQUIRED"),
    # broker.go authenticateViaSASLv1: the SaslAuthenticate request closed unanswered
    (SARAMA + "Error while performing SASL Auth b1.example:9092: EOF",
     "likely:SASL_AUTH_FAILED or:BROKER_CLOSED_CONNECTION"),
    # async_producer.go ProducerError: "kafka: Failed to produce message to topic %s: %s"
    ("kafka: Failed to produce message to topic orders: kafka server: Request was for a topic or partition that does "
     "not exist on this broker", "TOPIC_NOT_FOUND"),
    ("kafka: Failed to produce message to topic orders: kafka server: Message was too large, server rejected it to "
     "avoid allocation error", "any:ROUNDTRIP_FAILED"),
    ("kafka: Failed to produce message to topic orders: kafka: client has run out of available brokers to talk to", ""),
    (SARAMA + "client/metadata no available broker to send metadata request to", ""),
    (SARAMA + "Connected to broker at b1.example:9092 (unregistered)", ""),
    # a connection that had served requests, closed at one (versions' reading: a version the server does not speak)
    (SARAMA + "consumer/broker/1 disconnecting due to error processing FetchRequest: EOF",
     "likely:BROKER_TOO_OLD or:BROKER_CLOSED_CONNECTION"),
    ("kafka: error while consuming orders/0: EOF", "likely:BROKER_TOO_OLD or:BROKER_CLOSED_CONNECTION"),
    (SARAMA + "producer/broker/1 state change to [closing] because EOF",
     "likely:BROKER_TOO_OLD or:BROKER_CLOSED_CONNECTION"),
    # sizes: async_producer.go's own check, consumer.go's ErrMessageTooLarge, a response length that is 'HTTP'
    ("kafka: invalid configuration (Attempt to produce message larger than configured Producer.MaxMessageBytes: "
     "1048600 > 1000000)", "any:ROUNDTRIP_FAILED"),
    ("kafka: message is larger than Consumer.Fetch.Max", "any:ROUNDTRIP_FAILED"),
    (SARAMA + "consumer/broker/1 disconnecting due to error processing FetchRequest: kafka: error decoding packet: "
     "message of length 1213486160 too large or too small", "NOT_KAFKA"),
    # near misses: no catalog id fits these words
    (SARAMA + "producer/broker/1 state change to [closing] because kafka: broker not connected", ""),
    (SARAMA + "client/coordinator coordinator for my-group is not available", ""),
    ("kafka server: The coordinator is not available", ""),
    ("kafka: invalid configuration (Net.SASL.User must not be empty when SASL is enabled)", ""),
    (SARAMA + "client/metadata receiving empty brokers from the metadata response when requesting the broker #-1 at "
     "192.0.2.10:9092", ""),
    (SARAMA + "client/seedbrokers close seed broker #-1 at 192.0.2.10:9092 due to socket error: read tcp "
     "192.0.2.99:51000->192.0.2.10:9092: read: connection reset by peer", ""),
    ("kafka server: Request exceeded the user-specified time limit in the request", ""),
    ("kafka server: The server disconnected before a response was received", ""),
    ("kafka: tried to use a client that was closed", ""),
    ("kafka: insufficient data to decode packet, more bytes expected", "any:TLS_EXPECTED"),
]

# broker.go since 1.26.2: Open() wraps the TCP connection in tls.Client, so with TLS on the handshake runs on the
# ApiVersions write, and a listener that closes on the ClientHello ends it in EOF. Without TLS on, the same EOF is a
# broker that does not know ApiVersions (before 0.10), a connection turned away (max.connections.per.ip, a proxy
# without a backend), or a TLS listener that closes without an alert: likely. With TLS on in the paste, still likely
# (a hang-up in the handshake, as every client's: a broker or proxy turning connections away ends the same).
SARAMA_API_VERSIONS_EOF = SARAMA + "Error while sending ApiVersionsRequest V3 to broker b1.example:9092: EOF"
ROWS += [
    (SARAMA_API_VERSIONS_EOF, "likely:TLS_UNEXPECTED or:TLS_EXPECTED or:BROKER_TOO_OLD or:BROKER_CLOSED_CONNECTION"),
    ("$ ./produce -lib sarama -brokers 192.0.2.10:9092 -topic t -tls\n" + SARAMA_API_VERSIONS_EOF,
     "likely:TLS_UNEXPECTED or:BROKER_CLOSED_CONNECTION no:TLS_EXPECTED no:BROKER_TOO_OLD"),
]


@pytest.mark.parametrize("text, expectation", ROWS)
def test_sarama_words_read_as_their_source_says(text, expectation):
    reads(text, expectation)
