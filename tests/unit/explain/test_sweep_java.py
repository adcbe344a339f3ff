"""A sweep of the Apache Kafka Java client's own error strings (and Spring Kafka's and Kafka Connect's wrappers of
them), taken from their source, not from user cases: each row is one string on the connection path in the form it is
printed (log4j's ``[time] LEVEL [Producer clientId=...] message (logger)`` or a stack trace's ``Exception: message``),
synthesized with invented hosts, and the catalog ids every paste of that shape supports.

``want``: ``"ID"`` an error finding; ``"~ID"`` a finding that is not an error (a ``Likely:`` reading, a warning or a
note); ``()`` no error finding at all. A row also fails on any error finding it does not name (near misses included).

Sources (apache/kafka unless said): ``@ 1eb7644`` is trunk of 2024-10 (the 4.0 line: 1eb7644349cb07139d6a3c1ad1986979647cac99),
``@ 3146c6f`` the 2.8.2 tag (3146c6ff4a24cc24d6039037e99edc8930d1958a), ``@ 3402a83`` the 2.0.0 tag
(3402a8361b7347326b8a9fdb22300986fbbf9cd0); spring-kafka ``@ 3f3cf7d`` (3f3cf7d88cd57a07061c91399026667f9a929c3e).
"""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained

P = "[2026-12-07 10:00:01,100] {level} [Producer clientId=producer-1] {msg} (org.apache.kafka.{logger})"
C = "[2026-12-07 10:00:01,100] {level} [Consumer clientId=consumer-g1-1, groupId=g1] {msg} ({logger})"


def producer(level: str, msg: str, logger: str = "clients.NetworkClient") -> str:
    return P.format(level=level, msg=msg, logger=logger)


def consumer(level: str, msg: str, logger: str) -> str:
    return C.format(level=level, msg=msg, logger=logger)


ROWS = [
    # --- NetworkClient.processDisconnection / handleTimedOutConnections / initiateConnect -----------------------------
    # NetworkClient.java @ 1eb7644: NOT_CONNECTED, the connect refused or failed at once (4.x: "Node may not be
    # available"; @ 3146c6f and 3402a83: "Broker may not be available", 2.0 without the address).
    pytest.param(producer("WARN", "Connection to node -1 (localhost/127.0.0.1:9092) could not be established. Node may "
                          "not be available."), ("BOOTSTRAP_REFUSED",), id="nc-not-established-4x"),
    pytest.param(producer("WARN", "Connection to node -1 (b1.example/192.0.2.10:9092) could not be established. Broker "
                          "may not be available."), ("BOOTSTRAP_REFUSED",), id="nc-not-established-2x"),
    pytest.param(producer("WARN", "Connection to node 1 (b1.example/192.0.2.10:9092) could not be established. Broker "
                          "may not be available."), ("ADVERTISED_UNREACHABLE",), id="nc-not-established-advertised"),
    pytest.param(consumer("WARN", "Connection to node 2147483646 (b1.example/192.0.2.10:9092) could not be established. "
                          "Node may not be available.", "org.apache.kafka.clients.NetworkClient"),
                 ("ADVERTISED_UNREACHABLE",), id="nc-not-established-coordinator"),  # role: coordinator (test below)
    # NetworkClient.handleTimedOutConnections @ 1eb7644 and 3146c6f: a node still CONNECTING (no TCP connect yet) after
    # socket.connection.setup.timeout.ms: a filtered port or an unroutable address, the bootstrap's (-1) here.
    pytest.param(producer("INFO", "Disconnecting from node -1 due to socket connection setup timeout. The timeout value "
                          "is 10000 ms."), ("BOOTSTRAP_TIMEOUT",), id="nc-setup-timeout-bootstrap"),
    pytest.param(producer("INFO", "Disconnecting from node 1 due to socket connection setup timeout. The timeout value "
                          "is 10000 ms."), ("ADVERTISED_UNREACHABLE",), id="nc-setup-timeout-advertised"),
    # NetworkClient AUTHENTICATE @ 1eb7644: the connection closed during the TLS (or SASL) handshake: a TLS client at
    # a plaintext listener most often, the reasons the line itself lists too: a reading.
    pytest.param(producer("WARN", "Connection to node -1 (b1.example/192.0.2.10:9093) terminated during authentication. "
                          "This may happen due to any of the following reasons: (1) Firewall blocking Kafka TLS traffic "
                          "(eg it may only allow HTTPS traffic), (2) Transient network issue."),
                 ("~TLS_UNEXPECTED",), id="nc-terminated-during-authentication"),
    # @ 3402a83 (2.0): no address, and the words name SASL credentials with a broker before 1.0 (hangups).
    pytest.param(producer("WARN", "Connection to node -1 terminated during authentication. This may indicate that "
                          "authentication failed due to invalid credentials."), ("~SASL_AUTH_FAILED", "~TLS_UNEXPECTED"),
                 id="nc-terminated-during-authentication-2.0"),
    # NetworkClient AUTHENTICATION_FAILED @ 1eb7644: the exception's message after "due to:".
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9094) failed authentication due to: "
                          "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                          "SCRAM-SHA-512"), ("SASL_AUTH_FAILED",), id="nc-failed-authentication-scram"),
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9094) failed authentication due to: "
                          "Client SASL mechanism 'SCRAM-SHA-512' not enabled in the server, enabled mechanisms are "
                          "[PLAIN]"), ("SASL_MECHANISM_MISMATCH",), id="nc-failed-authentication-mechanism"),
    # SaslClientAuthenticator @ 1eb7644, ILLEGAL_SASL_STATE to the handshake: a listener with no SASL ([]), no
    # credentials were looked at.
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9092) failed authentication due to: "
                          "Unexpected handshake request with client mechanism PLAIN, enabled mechanisms are []"),
                 ("SASL_MECHANISM_MISMATCH",), id="nc-failed-authentication-illegal-sasl-state"),
    # The client's own JVM could not create its SaslClient: the same line, no broker refused anything.
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9092) failed authentication due to: "
                          "Failed to create SaslClient with mechanism PLAIN"), (), id="nc-failed-authentication-client-side"),
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9093) failed authentication due to: "
                          "SSL handshake failed"), ("~TLS_CERT_UNTRUSTED",), id="nc-failed-authentication-ssl"),
    # NetworkClient.initiateConnect @ 1eb7644: an IOException before any byte went out, under it the reason.
    pytest.param(producer("WARN", "Connection to node -1 could not be established. Broker may not be available."),
                 ("BOOTSTRAP_REFUSED",), id="nc-not-established-2.0"),
    pytest.param(producer("WARN", "Error connecting to node b1.example:9092 (id: 1 rack: null)") + "\n"
                 "java.net.UnknownHostException: b1.example: Name or service not known",
                 ("ADVERTISED_UNRESOLVABLE",), id="nc-error-connecting-unknown-host"),
    # NetworkClient.handleDisconnections @ 1eb7644: a bootstrap connection closed (WARN), the reason not said.
    pytest.param(producer("WARN", "Bootstrap broker b1.example:9092 (id: -1 rack: null) disconnected"),
                 (), id="nc-bootstrap-disconnected"),
    # NetworkClient.handleTimedOutRequests @ 1eb7644: a request on an open connection got no answer in time; a
    # connection dropped while idle is the likely reading (a broker that stopped answering in time says the same).
    pytest.param(producer("INFO", "Disconnecting from node 1 due to request timeout."), ("~IDLE_CONNECTION_DROPPED",),
                 id="nc-request-timeout"),
    # NetworkClient metadata handler @ 1eb7644 ("recoverable issue") and @ 3146c6f ("Error while fetching metadata").
    pytest.param(producer("WARN", "The metadata response from the cluster reported a recoverable issue with correlation "
                          "id 7 : {orders=UNKNOWN_TOPIC_OR_PARTITION}"), ("TOPIC_NOT_FOUND",), id="nc-metadata-unknown-topic"),
    pytest.param(producer("WARN", "Error while fetching metadata with correlation id 7 : "
                          "{orders=TOPIC_AUTHORIZATION_FAILED}"), ("TOPIC_AUTHORIZATION_FAILED",), id="nc-metadata-denied-2x"),
    pytest.param(producer("WARN", "Error while fetching metadata with correlation id 7 : {orders=LEADER_NOT_AVAILABLE}"),
                 ("~NO_LEADER",), id="nc-metadata-leader-not-available"),
    pytest.param(producer("WARN", "1 partitions have leader brokers without a matching listener, including [orders-0]"),
                 ("NO_LEADER",), id="nc-no-matching-listener"),
    # The same lines in the forms they reach a paste: an IPv6 address as InetSocketAddress prints it (before Java 14
    # unbracketed, since bracketed), Node.toString's 4.x "isFenced", Spring Boot's console pattern (the logger
    # abbreviated), Kafka Connect's connector context before the client's own.
    pytest.param(producer("WARN", "Connection to node -1 (/2001:db8:0:0:0:0:0:1:9092) could not be established. Node "
                          "may not be available."), ("BOOTSTRAP_REFUSED",), id="form-ipv6-unbracketed"),
    pytest.param(producer("WARN", "Connection to node -1 (localhost/[0:0:0:0:0:0:0:1]:9092) could not be established. "
                          "Node may not be available."), ("~BOOTSTRAP_REFUSED", "~ADVERTISED_ADDRESS_FAMILY_SPLIT"),
                 id="form-ipv6-localhost"),
    pytest.param(producer("WARN", "Error connecting to node 2001:db8:0:0:0:0:0:1:9092 (id: 1 rack: null isFenced: "
                          "false)"), ("~ADVERTISED_UNREACHABLE",), id="form-4x-isfenced-ipv6"),
    pytest.param("2026-12-07T10:00:01.100Z  WARN 1 --- [demo] [ad | producer-1] o.a.k.c.NetworkClient                    "
                 ": [Producer clientId=producer-1] Connection to node 1 (kafka/172.18.0.3:9092) could not be "
                 "established. Node may not be available.", ("ADVERTISED_UNREACHABLE",), id="form-spring-boot"),
    pytest.param("2026-12-07 10:00:01.100  WARN 1 --- [ntainer#0-0-C-1] org.apache.kafka.clients.NetworkClient   : "
                 "[Consumer clientId=consumer-g1-1, groupId=g1] Error connecting to node kafka:9092 (id: 1 rack: null)"
                 "\n\njava.net.UnknownHostException: kafka\n\tat java.base/java.net.InetAddress$CachedAddresses.get"
                 "(InetAddress.java:801)", ("ADVERTISED_UNRESOLVABLE",), id="form-spring-boot-unknown-host"),
    pytest.param("[2026-12-07 10:00:01,100] WARN [source-connector|task-0] [Producer clientId=connector-producer-"
                 "source-connector-0] Connection to node -1 (b1.example/192.0.2.10:9092) could not be established. "
                 "Node may not be available. (org.apache.kafka.clients.NetworkClient:893)", ("BOOTSTRAP_REFUSED",),
                 id="form-connect-context"),
    # --- ClientUtils.parseAndValidateAddresses @ 1eb7644 and 3146c6f -------------------------------------------------
    pytest.param("[2026-12-07 10:00:01,100] WARN Couldn't resolve server b1.example:9092 from bootstrap.servers as DNS "
                 "resolution failed for b1.example (org.apache.kafka.clients.ClientUtils)",
                 ("BOOTSTRAP_UNRESOLVABLE",), id="cu-dns-failed"),
    # client.dns.lookup=resolve_canonical_bootstrap_servers_only: the bootstrap name resolved, its address's
    # canonical (reverse) name did not: the bootstrap is unusable as configured, the reverse DNS the likely cause.
    pytest.param("[2026-12-07 10:00:01,100] WARN Couldn't resolve server b1.example:9092 from bootstrap.servers as DNS "
                 "resolution of the canonical hostname ip-192-0-2-10.internal.example failed for b1.example "
                 "(org.apache.kafka.clients.ClientUtils)", ("~BOOTSTRAP_UNRESOLVABLE",), id="cu-canonical-failed"),
    pytest.param("org.apache.kafka.common.KafkaException: Failed to construct kafka producer\n"
                 "Caused by: org.apache.kafka.common.config.ConfigException: No resolvable bootstrap urls given in "
                 "bootstrap.servers", ("BOOTSTRAP_UNRESOLVABLE",), id="cu-no-resolvable"),
    # A bootstrap address the client could not parse: the configuration, no connection was tried.
    pytest.param("Caused by: org.apache.kafka.common.config.ConfigException: Invalid url in bootstrap.servers: b1.example",
                 (), id="cu-invalid-url"),
    # --- Selector @ 1eb7644 -----------------------------------------------------------------------------------------
    pytest.param("java.io.IOException: Can't resolve address: b1.example:9092", ("~BOOTSTRAP_UNRESOLVABLE",
                 "~ADVERTISED_UNRESOLVABLE"), id="sel-cant-resolve"),
    # --- SslTransportLayer.handshakeFailure @ 1eb7644: SslAuthenticationException("SSL handshake failed", cause) -----
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9093) failed authentication due to: "
                          "SSL handshake failed") + "\norg.apache.kafka.common.errors.SslAuthenticationException: SSL "
                 "handshake failed\nCaused by: javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
                 "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path "
                 "to requested target", ("TLS_CERT_UNTRUSTED",), id="ssl-pkix"),
    pytest.param("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\nCaused by: "
                 "java.security.cert.CertificateException: No subject alternative DNS name matching b1.example found.",
                 ("TLS_HOSTNAME_MISMATCH",), id="ssl-san"),
    pytest.param("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\nCaused by: "
                 "java.security.cert.CertificateException: No subject alternative names matching IP address "
                 "192.0.2.10 found", ("TLS_HOSTNAME_MISMATCH",), id="ssl-san-ip"),
    pytest.param("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\nCaused by: "
                 "javax.net.ssl.SSLHandshakeException: Received fatal alert: bad_certificate",
                 ("TLS_CLIENT_CERT_REQUIRED",), id="ssl-alert-bad-certificate"),  # a JDK listener's TLS 1.2 answer
    # to no certificate; one the paste shows configured makes it REJECTED (sightings.client_certificate_symptom)
    pytest.param("Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_unknown",
                 ("TLS_CLIENT_CERT_REJECTED",), id="ssl-alert-certificate-unknown"),
    # A TLS client answered by a plaintext server's bytes (the JDK's own words).
    pytest.param("Caused by: javax.net.ssl.SSLException: Unrecognized SSL message, plaintext connection?",
                 ("TLS_EXPECTED",), id="ssl-unrecognized-message"),
    # The certificate's dates: the JDK's CertificateExpiredException / NotYetValid under PKIX (the chain fails).
    pytest.param("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\nCaused by: "
                 "javax.net.ssl.SSLHandshakeException: PKIX path validation failed: "
                 "java.security.cert.CertPathValidatorException: validity check failed\nCaused by: "
                 "java.security.cert.CertificateExpiredException: NotAfter: Mon Dec 01 00:00:00 UTC 2025",
                 ("TLS_CERT_UNTRUSTED",), id="ssl-expired"),
    # No shared protocol or cipher (a TLSv1.2-only client and a TLSv1.3-only listener, or the reverse): no catalog id.
    pytest.param("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\nCaused by: "
                 "javax.net.ssl.SSLHandshakeException: No appropriate protocol (protocol is disabled or cipher suites "
                 "are inappropriate)", (), id="ssl-no-appropriate-protocol"),
    # SslTransportLayer.doHandshake @ 1eb7644, 3146c6f, 3402a83: end-of-stream mid-handshake, no TLS alert: a
    # plaintext listener's close most likely; a firewall or a broker at its connection limit closes the same way.
    pytest.param("Caused by: java.io.EOFException: EOF during handshake, handshake status is NEED_UNWRAP",
                 ("~TLS_UNEXPECTED", "~BROKER_CLOSED_CONNECTION"), id="ssl-eof-during-handshake"),
    # close_notify mid-handshake: a TLS server that closed its session, no plaintext listener: near miss.
    pytest.param("java.io.EOFException: SSL handshake status CLOSED during handshake UNWRAP", (),
                 id="ssl-closed-during-unwrap"),
    pytest.param("Caused by: javax.net.ssl.SSLHandshakeException: No subject alternative names present",
                 ("TLS_HOSTNAME_MISMATCH",), id="ssl-no-san-present"),
    # No TLS version in common: no catalog id.
    pytest.param("Caused by: javax.net.ssl.SSLHandshakeException: Received fatal alert: protocol_version", (),
                 id="ssl-alert-protocol-version"),
    # DefaultSslEngineFactory @ 1eb7644: the client's own keystore, before any connection.
    pytest.param("Caused by: org.apache.kafka.common.KafkaException: Failed to load SSL keystore /etc/kafka/client.jks "
                 "of type JKS\nCaused by: java.io.IOException: Keystore was tampered with, or password was incorrect",
                 (), id="ssl-keystore-load"),
    # SslTransportLayer.read @ 1eb7644: a TLS 1.3 alert after the handshake (a client certificate refused).
    pytest.param(producer("ERROR", "Connection to node -1 (b1.example/192.0.2.10:9093) failed authentication due to: "
                          "Failed to process post-handshake messages"), ("~TLS_CERT_UNTRUSTED",), id="ssl-post-handshake"),
    # --- SaslClientAuthenticator @ 1eb7644 ---------------------------------------------------------------------------
    pytest.param("org.apache.kafka.common.errors.UnsupportedSaslMechanismException: Client SASL mechanism 'PLAIN' not "
                 "enabled in the server, enabled mechanisms are [SCRAM-SHA-512]", ("SASL_MECHANISM_MISMATCH",),
                 id="sasl-mechanism"),
    pytest.param("org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed: Invalid username "
                 "or password", ("SASL_AUTH_FAILED",), id="sasl-plain-invalid"),
    # The client's own JVM could not create its SaslClient: no broker refused anything.
    pytest.param("org.apache.kafka.common.errors.SaslAuthenticationException: Failed to create SaslClient with "
                 "mechanism PLAIN", (), id="sasl-no-saslclient"),
    pytest.param("org.apache.kafka.common.errors.SaslAuthenticationException: An error: "
                 "(java.security.PrivilegedActionException: javax.security.sasl.SaslException: GSS initiate failed "
                 "[Caused by GSSException: No valid credentials provided (Mechanism level: Server not found in Kerberos "
                 "database (7) - LOOKING_UP_SERVER)]) occurred when evaluating SASL token received from the Kafka "
                 "Broker. This may be caused by Java's being unable to resolve the Kafka Broker's hostname correctly. "
                 "Kafka Client will go to AUTHENTICATION_FAILED state.", ("KERBEROS_PRINCIPAL_UNKNOWN",),
                 id="sasl-kerberos-server-not-found"),
    # The JDK's Krb5LoginModule with no keytab or ticket cache: the client's own login, before any broker.
    pytest.param("Caused by: javax.security.auth.login.LoginException: Could not login: the client is being asked for "
                 "a password, but the Kafka client code does not currently support obtaining a password from the user.",
                 (), id="sasl-kerberos-client-login"),
    # GSSAPI in the client's JVM, before any credential reached a broker: no ticket to start from, a clock the KDC
    # refuses. The KDC refusing the client's own key (error 24) is the credentials: SASL_AUTH_FAILED.
    pytest.param("org.apache.kafka.common.errors.SaslAuthenticationException: An error: "
                 "(java.security.PrivilegedActionException: javax.security.sasl.SaslException: GSS initiate failed "
                 "[Caused by GSSException: No valid credentials provided (Mechanism level: Failed to find any Kerberos "
                 "tgt)]) occurred when evaluating SASL token received from the Kafka Broker. Kafka Client will go to "
                 "AUTHENTICATION_FAILED state.", (), id="sasl-kerberos-no-tgt"),
    pytest.param("org.apache.kafka.common.errors.SaslAuthenticationException: An error: "
                 "(java.security.PrivilegedActionException: javax.security.sasl.SaslException: GSS initiate failed "
                 "[Caused by GSSException: No valid credentials provided (Mechanism level: Clock skew too great (37))]) "
                 "occurred when evaluating SASL token received from the Kafka Broker. Kafka Client will go to "
                 "AUTHENTICATION_FAILED state.", (), id="sasl-kerberos-clock-skew"),
    pytest.param("org.apache.kafka.common.errors.SaslAuthenticationException: An error: "
                 "(java.security.PrivilegedActionException: javax.security.sasl.SaslException: GSS initiate failed "
                 "[Caused by GSSException: No valid credentials provided (Mechanism level: Pre-authentication "
                 "information was invalid (24))]) occurred when evaluating SASL token received from the Kafka Broker. "
                 "Kafka Client will go to AUTHENTICATION_FAILED state.", ("SASL_AUTH_FAILED",),
                 id="sasl-kerberos-preauth-invalid"),
    # The JAAS file the client needs is not set: the client's own configuration.
    pytest.param("Caused by: java.lang.IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS "
                 "configuration. System property 'java.security.auth.login.config' is not set", (), id="sasl-no-jaas"),
    # --- common/errors (Errors.java @ 1eb7644 default messages) ----------------------------------------------------
    pytest.param("org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [orders]",
                 ("TOPIC_AUTHORIZATION_FAILED",), id="err-topic-authorization"),
    # The catalog's TOPIC_AUTHORIZATION_FAILED covers the group's ACL too (docs/findings.md).
    pytest.param("org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group: g1",
                 ("TOPIC_AUTHORIZATION_FAILED",), id="err-group-authorization"),
    pytest.param("org.apache.kafka.common.errors.ClusterAuthorizationException: Cluster authorization failed.",
                 (), id="err-cluster-authorization"),
    pytest.param("org.apache.kafka.common.errors.ClusterAuthorizationException: The producer is not authorized to do "
                 "idempotent sends", (), id="err-idempotent-write"),  # Sender @ 1eb7644: no topic, no group
    pytest.param("org.apache.kafka.common.errors.UnsupportedVersionException: The version of API is not supported.",
                 ("~BROKER_TOO_OLD",), id="err-unsupported-version"),
    pytest.param("org.apache.kafka.common.errors.IllegalSaslStateException: Invalid SASL mechanism response, server "
                 "may be expecting a different protocol", ("~SASL_MECHANISM_MISMATCH",), id="sasl-invalid-response"),
    pytest.param("org.apache.kafka.common.errors.TransactionalIdAuthorizationException: Transactional Id authorization "
                 "failed.", (), id="err-transactional-id-authorization"),
    pytest.param("org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this "
                 "topic-partition.", ("~TOPIC_NOT_FOUND",), id="err-unknown-topic"),  # no topic named: likely
    pytest.param("org.apache.kafka.common.errors.LeaderNotAvailableException: There is no leader for this "
                 "topic-partition as we are in the middle of a leadership election.", ("~NO_LEADER",),
                 id="err-leader-not-available"),
    pytest.param("org.apache.kafka.common.errors.RecordTooLargeException: The message is 2000000 bytes when serialized "
                 "which is larger than 1048576, which is the value of the max.request.size configuration.",
                 ("~ROUNDTRIP_FAILED",), id="err-record-too-large-client"),
    pytest.param("org.apache.kafka.common.errors.RecordTooLargeException: The request included a message larger than "
                 "the max message size the server will accept.", ("~ROUNDTRIP_FAILED",), id="err-message-too-large"),
    pytest.param("org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are "
                 "fewer in-sync replicas than required.", (), id="err-not-enough-replicas"),
    pytest.param("org.apache.kafka.common.errors.InvalidReplicationFactorException: Replication factor: 3 larger than "
                 "available brokers: 1.", (), id="err-replication-factor"),
    # ApiVersions' answer lacks the API (NodeApiVersions @ 1eb7644): an old broker, a reading.
    pytest.param("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support METADATA",
                 ("~BROKER_TOO_OLD",), id="err-node-does-not-support"),
    # The broker closed the connection with a request in flight: which cause is not said.
    pytest.param("org.apache.kafka.common.errors.NetworkException: The server disconnected before a response was "
                 "received.", (), id="err-network-exception"),
    pytest.param("org.apache.kafka.common.errors.CoordinatorNotAvailableException: The coordinator is not available.",
                 ("~NO_LEADER",), id="err-coordinator-not-available"),
    # AbstractHeartbeatRequestManager @ 1eb7644: a 4.x consumer with group.protocol=consumer and an older cluster.
    pytest.param("org.apache.kafka.common.errors.UnsupportedVersionException: The cluster doesn't yet support the new "
                 "consumer group protocol. Set group.protocol=classic to revert to the classic protocol until the "
                 "cluster is upgraded.", ("~BROKER_TOO_OLD",), id="err-new-consumer-protocol"),
    # NetworkClient.handleApiVersionsResponse @ 1eb7644: an error other than a version to fall back to.
    pytest.param(producer("WARN", "Received error UNSUPPORTED_VERSION from node -1 when making an ApiVersionsRequest "
                          "with correlation id 3. Disconnecting."), ("~BROKER_TOO_OLD",), id="nc-apiversions-unsupported"),
    pytest.param(producer("INFO", "Node -1 disconnected."), (), id="nc-node-disconnected-info"),
    # OAUTHBEARER: the broker's validator's answer, carried in the SaslAuthenticationException.
    pytest.param('org.apache.kafka.common.errors.SaslAuthenticationException: {"status":"invalid_token"}',
                 ("SASL_AUTH_FAILED",), id="sasl-oauth-invalid-token"),
    # --- the give-up words: consequences, no cause of their own ----------------------------------------------------
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Topic orders not present in metadata after 60000 ms.",
                 (), id="giveup-not-in-metadata"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for orders-0:120000 ms has "
                 "passed since batch creation", (), id="giveup-expiring"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before the position for "
                 "partition orders-0 could be determined", (), id="giveup-position"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before successfully "
                 "committing offsets {orders-0=OffsetAndMetadata{offset=5, leaderEpoch=null, metadata=''}}", (),
                 id="giveup-commit"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Failed to get offsets by times in 60000ms", (),
                 id="giveup-offsets-by-times"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before the last committed "
                 "offset for partitions [orders-0] could be determined. Try tuning default.api.timeout.ms larger to "
                 "relax the threshold.", (), id="giveup-last-committed"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Timeout expired after 60000ms while awaiting "
                 "InitProducerId", (), id="giveup-init-producer-id"),
    # KafkaAdminClient.timeoutCallsInFlight @ 1eb7644: a call's deadline passed in flight (a slow answer or none).
    pytest.param("[2026-12-07 10:00:01,100] INFO [AdminClient clientId=adminclient-1] Disconnecting from 1 due to "
                 "timeout while awaiting Call(callName=describeTopics, deadlineMs=1765101601100, tries=1, "
                 "nextAllowedTryMs=1765101601200) (org.apache.kafka.clients.admin.KafkaAdminClient)", (),
                 id="admin-call-in-flight-timeout"),
    # KafkaAdminClient.TimeoutProcessor @ 1eb7644: msg + " Call: " + callName.
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: "
                 "createTopics", (), id="admin-node-assignment"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: Timed out waiting to send the call. Call: "
                 "describeTopics", (), id="admin-waiting-to-send"),
    pytest.param("org.apache.kafka.common.errors.TimeoutException: The AdminClient thread has exited. Call: listTopics",
                 (), id="admin-thread-exited"),
    # --- the consumer's coordinator (AbstractCoordinator @ 1eb7644, @ 3402a83) -----------------------------------
    pytest.param(consumer("INFO", "Discovered group coordinator b1.example:9092 (id: 2147483646 rack: null)",
                          "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"), (),
                 id="coord-discovered"),
    pytest.param(consumer("INFO", "Group coordinator b1.example:9092 (id: 2147483646 rack: null) is unavailable or "
                          "invalid due to cause: coordinator unavailable. isDisconnected: false. Rediscovery will be "
                          "attempted.", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"), (),
                 id="coord-unavailable-not-disconnected"),
    pytest.param(consumer("INFO", "Group coordinator b1.example:9092 (id: 2147483646 rack: null) is unavailable or "
                          "invalid, will attempt rediscovery", "org.apache.kafka.clients.consumer.internals."
                          "AbstractCoordinator"), (), id="coord-unavailable-2.0"),
    # ConsumerCoordinator @ 1eb7644: the group's own rules, no connection.
    pytest.param("org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the "
                 "consumer is not part of an active group for auto partition assignment; it is likely that the "
                 "consumer was kicked out of the group.", (), id="coord-commit-failed"),
    pytest.param(consumer("WARN", "consumer poll timeout has expired. This means the time between subsequent calls to "
                          "poll() was longer than the configured max.poll.interval.ms, which typically implies that the "
                          "poll loop is spending too much time processing messages.",
                          "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"), (), id="coord-poll-timeout"),
    # --- the producer's Sender @ 1eb7644 ---------------------------------------------------------------------------
    pytest.param(producer("WARN", "Got error produce response with correlation id 5 on topic-partition orders-0, "
                          "retrying (2 attempts left). Error: NOT_LEADER_OR_FOLLOWER", "clients.producer.internals.Sender"),
                 (), id="sender-not-leader-once"),
    pytest.param(producer("WARN", "Received unknown topic or partition error in produce request on partition orders-0. "
                          "The topic-partition may not exist or the user may not have Describe access to it",
                          "clients.producer.internals.Sender"), (), id="sender-unknown-topic-hedged"),
    pytest.param(producer("WARN", "Got error produce response in correlation id 5 on topic-partition orders-0, "
                          "splitting and retrying (2 attempts left). Error: MESSAGE_TOO_LARGE",
                          "clients.producer.internals.Sender"), ("~ROUNDTRIP_FAILED",), id="sender-message-too-large"),
    # Selector.pollSelectionKeys @ 1eb7644: the client's receive of a TLS record's header read as a size.
    pytest.param(producer("WARN", "Unexpected error from b1.example/192.0.2.10; closing connection",
                          "common.network.Selector") + "\njava.lang.OutOfMemoryError: Java "
                 "heap space\n\tat java.nio.HeapByteBuffer.<init>(HeapByteBuffer.java:57)\n\tat "
                 "org.apache.kafka.common.network.NetworkReceive.readFrom(NetworkReceive.java:113)",
                 ("TLS_EXPECTED",), id="sel-oom-readfrom"),
    # The broker's Selector: a TLS ClientHello (0x16030100..) read as a request size at a plaintext listener.
    pytest.param("[2026-12-07 10:00:01,100] WARN [SocketServer listenerType=BROKER, nodeId=1] Unexpected error from "
                 "/192.0.2.10 (channelId=192.0.2.1:9092-192.0.2.10:53866-0); closing connection "
                 "(org.apache.kafka.common.network.Selector)\norg.apache.kafka.common.network.InvalidReceiveException: "
                 "Invalid receive (size = 369296128 larger than 104857600)", ("TLS_UNEXPECTED",),
                 id="broker-invalid-receive-tls"),
    # The client's Selector's INFO for a login the broker refused (Selector @ 1eb7644).
    pytest.param(producer("INFO", "Failed authentication with b1.example/192.0.2.10 (Authentication failed: Invalid "
                          "username or password)", "common.network.Selector"), ("SASL_AUTH_FAILED",),
                 id="sel-failed-authentication"),
    # --- the frameworks' wrappers ------------------------------------------------------------------------------------
    # spring-kafka KafkaTemplate @ 3f3cf7d: KafkaException("Send failed", cause), the cause printed after it.
    pytest.param("org.springframework.kafka.KafkaException: Send failed; nested exception is "
                 "org.apache.kafka.common.errors.TimeoutException: Topic orders not present in metadata after 60000 ms.",
                 (), id="spring-send-failed"),
    # spring-kafka KafkaMessageListenerContainer @ 3f3cf7d: a likely reading (the topic, or the principal's ACLs).
    pytest.param("java.lang.IllegalStateException: Topic(s) [orders] is/are not present and missingTopicsFatal is true",
                 ("~TOPIC_NOT_FOUND",), id="spring-missing-topics-fatal"),
    # spring-kafka KafkaAdmin.checkPartitions @ 3f3cf7d: describeTopics' future timed out: the admin reached no broker
    # (the gave-up readings, no error of its own); with the NetworkClient line above it, that line's cause.
    pytest.param("2026-12-07T10:00:31.100Z ERROR 1 --- [main] o.s.kafka.core.KafkaAdmin                : Could not "
                 "configure topics\n\norg.springframework.kafka.KafkaException: Timed out waiting to get existing "
                 "topics\nCaused by: java.util.concurrent.TimeoutException: null", ("~BOOTSTRAP_REFUSED",
                 "~ADVERTISED_UNREACHABLE"), id="spring-admin-existing-topics"),
    pytest.param("2026-12-07T10:00:01.100Z  WARN 1 --- [| adminclient-1] org.apache.kafka.clients.NetworkClient   : "
                 "[AdminClient clientId=adminclient-1] Connection to node -1 (localhost/127.0.0.1:9092) could not be "
                 "established. Node may not be available.\n2026-12-07T10:00:31.100Z ERROR 1 --- [main] "
                 "o.s.kafka.core.KafkaAdmin                : Could not configure topics\n\n"
                 "org.springframework.kafka.KafkaException: Timed out waiting to get existing topics",
                 ("BOOTSTRAP_REFUSED",), id="spring-admin-existing-topics-refused"),
    pytest.param("2026-12-07T10:00:31.100Z ERROR 1 --- [main] o.s.kafka.core.KafkaAdmin                : Failed to "
                 "create topics\n\norg.apache.kafka.common.errors.InvalidReplicationFactorException: Replication "
                 "factor: 3 larger than available brokers: 1.", (), id="spring-admin-replication-factor"),
    # Kafka Streams' StreamsPartitionAssignor @ 1eb7644: the source topics are missing, said outright.
    pytest.param("org.apache.kafka.streams.errors.MissingSourceTopicException: One or more source topics were missing "
                 "during rebalance", ("TOPIC_NOT_FOUND",), id="streams-missing-source-topic"),
    # Kafka Connect's WorkerSourceTask @ 1eb7644: a consequence.
    pytest.param("ERROR WorkerSourceTask{id=mirror-0} Failed to flush, timed out while waiting for producer to flush "
                 "outstanding 1 messages (org.apache.kafka.connect.runtime.WorkerSourceTask)", (),
                 id="connect-flush-timeout"),
    pytest.param("org.springframework.kafka.core.KafkaProducerException: Failed to send; nested exception is "
                 "org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [orders]",
                 ("TOPIC_AUTHORIZATION_FAILED",), id="spring-failed-to-send-denied"),
    # Kafka Connect's ConnectUtils.lookupKafkaClusterId @ 1eb7644: the worker's admin client reached no broker.
    pytest.param("org.apache.kafka.connect.errors.ConnectException: Failed to connect to and describe Kafka cluster. "
                 "Check worker's broker connection and security properties.\nCaused by: "
                 "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: Timed out "
                 "waiting for a node assignment. Call: listNodes", (), id="connect-describe-cluster"),
]


@pytest.mark.parametrize(("paste", "want"), ROWS)
def test_each_java_client_string_gives_the_ids_its_words_support(paste, want):
    found = explained(paste).findings
    errors = {f.id for f in found if f.severity == "error"}
    readings = {f.id for f in found if f.severity != "error"}
    certain = {w for w in want if not w.startswith("~")}
    hedged = {w[1:] for w in want if w.startswith("~")}
    assert errors == certain, [(f.id, f.severity, f.title) for f in found]
    assert hedged <= readings, [(f.id, f.severity, f.title) for f in found]


def test_a_coordinators_connection_is_named_by_its_broker_and_role():
    """NetworkClient names a group coordinator's connection Integer.MAX_VALUE - broker id (AbstractCoordinator)."""
    paste = consumer("WARN", "Connection to node 2147483646 (b1.example/192.0.2.10:9092) could not be established. Node "
                     "may not be available.", "org.apache.kafka.clients.NetworkClient")
    finding = next(f for f in explained(paste).findings if f.id == "ADVERTISED_UNREACHABLE")
    assert finding.evidence["node_id"] == 1 and finding.evidence["role"] == "coordinator"
    assert "Broker 1 " in finding.title


def test_a_bootstrap_name_whose_canonical_name_does_not_resolve_names_the_canonical_name():
    paste = ("[2026-12-07 10:00:01,100] WARN Couldn't resolve server b1.example:9092 from bootstrap.servers as DNS "
             "resolution of the canonical hostname ip-192-0-2-10.internal.example failed for b1.example "
             "(org.apache.kafka.clients.ClientUtils)")
    finding = next(f for f in explained(paste).findings if f.id == "BOOTSTRAP_UNRESOLVABLE")
    assert finding.title.startswith("Likely: ") and "ip-192-0-2-10.internal.example" in finding.title
