"""librdkafka's own error strings on the connection path, swept from its source (confluentinc/librdkafka @
4c3b017c3de8d9c10de12b9eec0ea688e8d5787d, 2.x; v1.9.2 and v2.0.0 where earlier releases worded it otherwise), as
librdkafka's log line prints them (``%LEVEL|ts|FAC|name| [thrd:...]: broker: msg (after Nms in state S)``,
rd_kafka_broker_set_error) and as its bindings show them: confluent-kafka-python's ``KafkaError{code=...,val=...,
str="..."}`` (src/confluent_kafka/src/confluent_kafka.c @ 8b1c7a613434eee3d0e1287d624d7af04932f410),
confluent-kafka-go's LogEvent ``[ts][name][FAC][level]msg`` (kafka/log.go @ b88333d3d307e04b0b3cf95b60e00433340cb937),
confluent-kafka-dotnet's ConsoleLogger ``Level|ts|name|FAC| msg`` (src/Confluent.Kafka/Loggers.cs @
f96837a9cc47b1e51cb66ef5b4e80660c33535c6), kcat's ``% ERROR: ...`` (kcat.c @ ab6ce814fa2e435359e77a1d3813853248679206).

Since 2.11.1 (librdkafka 5cd5e35ad, #5126) a closed connection says how: ``Disconnected: connection closed by peer:
receive 0 after POLLIN``, and the hints librdkafka adds follow it (``: requesting ApiVersion: might be caused by ...``)
where 1.x and 2.0-2.10 wrote ``Disconnected while requesting ApiVersion: ...``.
"""

from __future__ import annotations

import pytest

from tests.unit.explain.sweep_rows import CERTAIN, LIKELY, NONE, READING, ids_of, mismatch, row

RD = "confluentinc/librdkafka"


def rd(message: str, broker: str = "b1.example:9092/bootstrap", level: int = 3, fac: str = "FAIL",
       thread: str | None = None) -> str:
    """One librdkafka log line (rd_kafka_log_print): the broker's name heads a FAIL line's message."""
    head = f"{broker}: " if broker else ""
    return f"%{level}|1796677200.123|{fac}|rdkafka#producer-1| [thrd:{thread or broker or 'main'}]: {head}{message}"


def py(code: str, val: int, text: str) -> str:
    """confluent-kafka-python's KafkaError repr (error_cb's argument, a KafkaException's args[0])."""
    return f'KafkaError{{code={code},val={val},str="{text}"}}'


def go_log(message: str, broker: str = "b1.example:9092/bootstrap", level: int = 3, fac: str = "FAIL") -> str:
    """confluent-kafka-go's LogEvent.String() (go.logs.channel.enable)."""
    return f"[2026-12-07T21:00:00Z][rdkafka#producer-1][{fac}][{level}][thrd:{broker}]: {broker}: {message}"


def dotnet_log(message: str, broker: str = "b1.example:9092/bootstrap", level: str = "Error",
               fac: str = "FAIL") -> str:
    """confluent-kafka-dotnet's Loggers.ConsoleLogger."""
    return f"{level}|2026-12-07 21:00:00,123|rdkafka#producer-1|{fac}| [thrd:{broker}]: {broker}: {message}"


ADV = "kafka-0.kafka-headless.default.svc.cluster.local:9092/1"
TLS = "ssl://b1.example:9093/bootstrap"
SASL = "sasl_ssl://b1.example:9096/bootstrap"
CA_HINT = (": broker certificate could not be verified, verify that ssl.ca.location is correctly configured or root "
           "CA certificates are installed (install ca-certificates package)")
CLOSED = "Disconnected: connection closed by peer: receive 0 after POLLIN"  # 2.11.1+, rdkafka_transport.c

ROWS = [
    # --- DNS: rdkafka_broker.c rd_kafka_broker_resolve "Failed to resolve '%s': %s" (getaddrinfo's gai_strerror) -----
    row("resolve-bootstrap", rd("Failed to resolve 'b1.example:9092': Name or service not known (after 2ms in state "
                                "CONNECT)"), CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("resolve-advertised", rd("Failed to resolve 'kafka-0.kafka-headless.default.svc.cluster.local:9092': Name or "
                                 "service not known (after 1ms in state CONNECT)", ADV), CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    row("resolve-eai-again", rd("Failed to resolve 'b1.example:9092': Temporary failure in name resolution (after 5004ms "
                                "in state CONNECT)"), CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("resolve-macos", rd("Failed to resolve 'b1.example:9092': nodename nor servname provided, or not known (after "
                            "3ms in state CONNECT)"), CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("resolve-windows", rd("Failed to resolve 'b1.example:9092': No such host is known.  (after 12ms in state "
                              "CONNECT)"), CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    # rd_kafka_brokers_add0 with client.dns.lookup=resolve_canonical_bootstrap_servers_only: bootstrap.servers' names
    row("resolve-brokers-add", rd("Failed to resolve 'b1.example': Name or service not known", "", 4, "BROKER",
                                  "app"), CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("resolve-python", py("_RESOLVE", -193, "b1.example:9092/bootstrap: Failed to resolve 'b1.example:9092': Name or "
                                                "service not known (after 2ms in state CONNECT)"),
        CERTAIN, "BOOTSTRAP_UNRESOLVABLE"),
    row("resolve-go-log", go_log("Failed to resolve 'kafka-0.kafka-headless.default.svc.cluster.local:9092': Name or "
                                 "service not known (after 1ms in state CONNECT)", ADV), CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    # --- connect: rdkafka_transport.c "Connect to %s failed: %s" (rd_sockaddr2str with the family, rd_strerror) ------
    row("refused-bootstrap", rd("Connect to ipv4#192.0.2.10:9092 failed: Connection refused (after 0ms in state "
                                "CONNECT)", "192.0.2.10:9092/bootstrap"), CERTAIN, "BOOTSTRAP_REFUSED"),
    row("refused-advertised", rd("Connect to ipv4#192.0.2.11:9092 failed: Connection refused (after 0ms in state "
                                 "CONNECT)", "b2.example:9092/2"), CERTAIN, "ADVERTISED_UNREACHABLE"),
    row("timedout-bootstrap", rd("Connect to ipv4#192.0.2.10:9092 failed: Connection timed out (after 130000ms in state "
                                 "CONNECT)"), CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("timedout-macos", rd("Connect to ipv4#192.0.2.10:9092 failed: Operation timed out (after 75000ms in state "
                             "CONNECT)"), CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("no-route", rd("Connect to ipv4#192.0.2.10:9092 failed: No route to host (after 3001ms in state CONNECT)"),
        CERTAIN, "BOOTSTRAP_UNREACHABLE"),
    row("refused-python", py("_TRANSPORT", -195, "192.0.2.10:9092/bootstrap: Connect to ipv4#192.0.2.10:9092 failed: "
                                                 "Connection refused (after 0ms in state CONNECT)"),
        CERTAIN, "BOOTSTRAP_REFUSED"),
    row("refused-dotnet-log", dotnet_log("Connect to ipv4#192.0.2.11:9092 failed: Connection refused (after 0ms in "
                                         "state CONNECT)", "b2.example:9092/2"), CERTAIN, "ADVERTISED_UNREACHABLE"),
    # rdkafka_broker.c: socket.connection.setup.timeout.ms (30 s) elapsed before the connection was up
    row("setup-timeout-connect", rd("Connection setup timed out in state CONNECT (after 30029ms in state CONNECT)", level=4),
        CERTAIN, "BOOTSTRAP_TIMEOUT"),
    # --- the coordinator: rd_kafka_broker_set_error prefixes a logical broker's errors with its nodename ----------------
    # (explain names the coordinator an advertised broker: COORDINATOR_UNREACHABLE is not an explain finding yet)
    row("coordinator-refused", rd("b2.example:9092: Connect to ipv4#192.0.2.11:9092 failed: Connection refused (after "
                                  "0ms in state CONNECT)", "GroupCoordinator"), CERTAIN, "ADVERTISED_UNREACHABLE"),
    # --- TLS: rdkafka_ssl.c rd_kafka_transport_ssl_handshake "SSL handshake failed: %s%s" --------------------------------
    # without OpenSSL's reason librdkafka's hint names the CA for every verify failure, a name that does not match too
    row("ca-openssl3", rd("SSL handshake failed: error:0A000086:SSL routines::certificate verify failed" + CA_HINT
                          + " (after 9ms in state SSL_HANDSHAKE)", TLS), LIKELY, "TLS_CERT_UNTRUSTED",
        "TLS_HOSTNAME_MISMATCH"),
    row("ca-openssl11", rd("SSL handshake failed: error:1416F086:SSL routines:tls_process_server_certificate:certificate "
                           "verify failed" + CA_HINT + " (after 9ms in state SSL_HANDSHAKE)", TLS),
        LIKELY, "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH"),
    # OpenSSL 3 adds the verify result as the error's data ("Verify error:%s"): the reason, before librdkafka's CA hint
    row("ca-openssl3-reason", rd("SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: Verify "
                                 "error:unable to get local issuer certificate" + CA_HINT
                                 + " (after 9ms in state SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("hostname-openssl3", rd("SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: Verify "
                                "error:hostname mismatch" + CA_HINT + " (after 9ms in state SSL_HANDSHAKE)", TLS),
        CERTAIN, "TLS_HOSTNAME_MISMATCH"),
    # rd_kafka_transport_ssl_verify, after the handshake
    row("verify-after", rd("Failed to verify broker certificate: unable to get local issuer certificate (after 9ms in "
                           "state SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("verify-after-hostname", rd("Failed to verify broker certificate: hostname mismatch (after 9ms in state "
                                    "SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_HOSTNAME_MISMATCH"),
    row("ca-python", py("_SSL", -181, "ssl://b1.example:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines"
                                      "::certificate verify failed" + CA_HINT + " (after 9ms in state SSL_HANDSHAKE)"),
        LIKELY, "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH"),
    # a TLS client at a plaintext listener: the broker reads the ClientHello as a huge size and hangs up; a broker or
    # proxy turning connections away hangs up the same (librdkafka's own hint ends in "?"): likely
    row("plaintext-eof", rd("SSL handshake failed: error:0A000126:SSL routines::unexpected eof while reading (after 3ms "
                            "in state SSL_HANDSHAKE)", TLS), LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    row("plaintext-closed-2.11", rd("SSL handshake failed: Disconnected: connection closed by peer: connecting to a "
                                    "PLAINTEXT broker listener? (after 3ms in state SSL_HANDSHAKE)", TLS),
        LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    row("plaintext-closed-1.x", rd("SSL handshake failed: Disconnected: connecting to a PLAINTEXT broker listener? (after "
                                   "3ms in state SSL_HANDSHAKE)", TLS), LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    row("plaintext-bytes", rd("SSL handshake failed: error:0A00010B:SSL routines::wrong version number (after 3ms in "
                              "state SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_UNEXPECTED"),
    row("ssl-handshake-pollhup", rd("Disconnected: during SSL connection handshake (after 2ms in state SSL_HANDSHAKE)",
                                    TLS), LIKELY, "TLS_UNEXPECTED", "BROKER_CLOSED_CONNECTION"),
    # the broker's alert: it wants a client certificate
    row("alert-bad-certificate", rd("SSL handshake failed: error:0A000412:SSL routines::sslv3 alert bad certificate: SSL "
                                    "alert number 42 (after 5ms in state SSL_HANDSHAKE)", TLS),
        CERTAIN, "TLS_CLIENT_CERT_REQUIRED"),
    row("unexpected-message", rd("SSL handshake failed: error:0A0000F4:SSL routines::unexpected message: client SSL "
                                 "authentication might be required (see ssl.key.location and ssl.certificate.location "
                                 "and consult the broker logs for more information) (after 5ms in state SSL_HANDSHAKE)",
                                 TLS), LIKELY, "TLS_CLIENT_CERT_REQUIRED"),
    # no answer to the ClientHello for 30 s: neither a refused certificate (at once) nor a plaintext Kafka listener (it
    # hangs up): a stalled path or peer, which no finding names from these words
    row("setup-timeout-ssl", rd("Connection setup timed out in state SSL_HANDSHAKE (after 30030ms in state "
                                "SSL_HANDSHAKE)", TLS, 4), NONE),
    # configuration errors: the client never connected (rd_kafka_ssl_ctx_init), no finding about the cluster
    row("ssl-ca-location", "cimpl.KafkaException: KafkaError{code=_INVALID_ARG,val=-186,str=\"Failed to create producer: "
        "ssl.ca.location failed: error:80000002:system library::No such file or directory\"}", NONE),
    # --- a plaintext client at a TLS listener: rd_kafka_broker_set_error's hint while requesting ApiVersion -------------
    row("apiversion-1.x", rd("Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol "
                             "configuration (connecting to a SSL listener?) or broker version is < 0.10 (see "
                             "api.version.request) (after 4ms in state APIVERSION_QUERY)", "b1.example:9093/bootstrap",
                             6), LIKELY, "TLS_EXPECTED", "BROKER_TOO_OLD"),
    row("apiversion-2.11", rd(CLOSED + ": requesting ApiVersion: might be caused by incorrect security.protocol "
                              "configuration (connecting to a SSL listener?) or broker version is < 0.10 (see "
                              "api.version.request) (after 4ms in state APIVERSION_QUERY)", "b1.example:9093/bootstrap",
                              6), LIKELY, "TLS_EXPECTED", "BROKER_TOO_OLD"),
    row("apiversion-2.11-reset", rd("Disconnected: connection reset by peer: requesting ApiVersion: might be caused by "
                                    "incorrect security.protocol configuration (connecting to a SSL listener?) or broker "
                                    "version is < 0.10 (see api.version.request) (after 4ms in state APIVERSION_QUERY)",
                                    "b1.example:9093/bootstrap", 6), LIKELY, "TLS_EXPECTED", "BROKER_TOO_OLD"),
    # the same over TLS: the handshake went through, so librdkafka names only the old broker
    row("apiversion-tls-2.11", rd(CLOSED + ": requesting ApiVersion: might be caused by broker version < 0.10 (see "
                                  "api.version.request) (after 4ms in state APIVERSION_QUERY)", TLS, 6),
        LIKELY, "BROKER_TOO_OLD", "BROKER_CLOSED_CONNECTION"),
    row("apiversion-tls-1.x", rd("Disconnected while requesting ApiVersion: might be caused by broker version < 0.10 (see "
                                 "api.version.request) (after 4ms in state APIVERSION_QUERY)", SASL, 6),
        LIKELY, "BROKER_TOO_OLD", "BROKER_CLOSED_CONNECTION"),
    row("apiversion-failed", rd("ApiVersionRequest failed: Local: Timed out: probably due to broker version < 0.10 (see "
                                "api.version.request configuration) (after 10009ms in state APIVERSION_QUERY)", level=4),
        READING, "BROKER_TOO_OLD"),
    # --- SASL --------------------------------------------------------------------------------------------------------
    row("sasl-required-1.x", rd("Disconnected: verify that security.protocol is correctly configured, broker might "
                                "require SASL authentication (after 2ms in state UP)", level=4),
        LIKELY, "SASL_REQUIRED"),
    row("sasl-required-2.11", rd(CLOSED + ": verify that security.protocol is correctly configured, broker might "
                                 "require SASL authentication (after 2ms in state UP)", level=4),
        LIKELY, "SASL_REQUIRED"),
    row("sasl-credentials", rd("SASL authentication error: Authentication failed: Invalid username or password (after "
                               "311ms in state AUTH_REQ)", SASL), CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-credentials-scram", rd("SASL authentication error: Authentication failed during authentication due to "
                                     "invalid credentials with SASL mechanism SCRAM-SHA-256 (after 305ms in state "
                                     "AUTH_REQ, 4 identical error(s) suppressed)", SASL), CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-python", py("_AUTHENTICATION", -169, "sasl_ssl://b1.example:9096/bootstrap: SASL authentication error: "
                                                   "Authentication failed during authentication due to invalid "
                                                   "credentials with SASL mechanism SCRAM-SHA-512 (after 5025ms in "
                                                   "state AUTH_REQ)"), CERTAIN, "SASL_AUTH_FAILED"),
    row("sasl-mechanism", rd("SASL SCRAM-SHA-512 mechanism handshake failed: Broker: Unsupported SASL mechanism: broker's "
                             "supported mechanisms: PLAIN (after 301ms in state AUTH_HANDSHAKE)", SASL),
        CERTAIN, "SASL_MECHANISM_MISMATCH"),
    # rdkafka_sasl.c: the broker's ApiVersion said no SaslHandshake (api.version.request=false, or a broker < 0.10)
    row("sasl-handshake-unsupported", rd("Failed to initialize SASL authentication: SASL Handshake not supported by "
                                         "broker (required by mechanism PLAIN): try api.version.request=true (after 0ms "
                                         "in state AUTH_LEGACY)", SASL), NONE),
    # Cyrus SASL without the GSSAPI plugin: the client's own installation
    row("sasl-no-mech", rd("Failed to initialize SASL authentication: SASL handshake failed (start (-4)): SASL(-4): no "
                           "mechanism available: No worthy mechs found (after 0ms in state AUTH_REQ)",
                           "sasl_plaintext://b1.example:9094/bootstrap"), NONE),
    row("kerberos-principal", rd("SASL authentication error: GSSAPI Error: Unspecified GSS failure.  Minor code may "
                                 "provide more information (Server kafka/b1.example@EXAMPLE.COM not found in Kerberos "
                                 "database) (after 3ms in state AUTH_REQ)", "sasl_plaintext://b1.example:9094/bootstrap"),
        CERTAIN, "KERBEROS_PRINCIPAL_UNKNOWN"),
    # --- a response too large for receive.message.max.bytes: the first bytes of what answered --------------------------
    row("size-http", rd("Receive failed: Invalid response size 1213486160 (0..100000000): increase "
                        "receive.message.max.bytes (after 3ms in state APIVERSION_QUERY)", "b1.example:8080/bootstrap"),
        CERTAIN, "NOT_KAFKA"),
    # --- closed connections (2.11.1+ words): which cause is a reading -----------------------------------------------
    row("closed-up-short", rd(CLOSED + " (after 120ms in state UP)", "b1.example:9092/1", 6),
        READING, "BROKER_CLOSED_CONNECTION"),
    row("closed-up-idle", rd(CLOSED + " (after 600012ms in state UP)", "b1.example:9092/1", 6), NONE),
    # --- metadata and topics: rd_kafka_err2str, as kcat and the bindings print it -----------------------------------
    row("kcat-unknown-topic", "% ERROR: Topic t1 error: Broker: Unknown topic or partition", CERTAIN, "TOPIC_NOT_FOUND"),
    row("kcat-topic-authorization", "% ERROR: Topic t1 error: Broker: Topic authorization failed",
        CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    # one LEADER_NOT_AVAILABLE is a topic being created (an info); three lines a reading
    row("kcat-leader", "% ERROR: Topic t1 [2] error: Broker: Leader not available", NONE),
    row("kcat-leader-repeated", "\n".join(["% ERROR: Topic t1 [2] error: Broker: Leader not available"] * 3),
        READING, "NO_LEADER"),
    # docs/findings.md: explain reads GROUP_AUTHORIZATION_FAILED as TOPIC_AUTHORIZATION_FAILED (the group's ACL)
    row("group-authorization", py("GROUP_AUTHORIZATION_FAILED", 30, "Broker: Group authorization failed"),
        CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    row("cluster-authorization", py("CLUSTER_AUTHORIZATION_FAILED", 31, "Broker: Cluster authorization failed"), NONE),
    row("kcat-acquire-metadata", "% ERROR: Failed to acquire metadata: Local: Broker transport failure (Are the brokers "
        "reachable? Also try increasing the metadata timeout with -m <timeout>?)", READING, "BOOTSTRAP_REFUSED"),
    row("python-metadata-timeout", "cimpl.KafkaException: " + py("_TIMED_OUT", -185, "Failed to get metadata: Local: "
                                                                 "Timed out"), NONE),
    row("message-timeout", "Message delivery failed: " + py("_MSG_TIMED_OUT", -192, "Local: Message timed out"),
        READING, "ROUNDTRIP_FAILED"),
    row("message-too-large", "Message delivery failed: " + py("MSG_SIZE_TOO_LARGE", 10, "Broker: Message size too large"),
        READING, "ROUNDTRIP_FAILED"),
    # --- the bindings' own forms around the same words ----------------------------------------------------------
    # kcat.c error_cb: KC_ERROR("%s: %s", rd_kafka_err2str(err), reason)
    row("kcat-refused", "% ERROR: Local: Broker transport failure: b1.example:9092/bootstrap: Connect to "
        "ipv4#192.0.2.10:9092 failed: Connection refused (after 0ms in state CONNECT)", CERTAIN, "BOOTSTRAP_REFUSED"),
    row("kcat-resolve-advertised", "% ERROR: Local: Host resolution failure: " + ADV + ": Failed to resolve "
        "'kafka-0.kafka-headless.default.svc.cluster.local:9092': Name or service not known (after 1ms in state "
        "CONNECT)", CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    # confluent-kafka-go's examples: fmt.Fprintf(os.Stderr, "%% Error: %v: %v\n", e.Code(), e)
    row("go-error-event", "% Error: Local: Broker transport failure: b1.example:9092/bootstrap: Connect to "
        "ipv4#192.0.2.10:9092 failed: Connection timed out (after 127000ms in state CONNECT)", CERTAIN, "BOOTSTRAP_TIMEOUT"),
    row("go-log-sasl", go_log("SASL authentication error: Authentication failed: Invalid username or password (after "
                              "311ms in state AUTH_REQ)", SASL), CERTAIN, "SASL_AUTH_FAILED"),
    row("dotnet-log-sasl-required", dotnet_log("Disconnected: verify that security.protocol is correctly configured, "
                                               "broker might require SASL authentication (after 1ms in state UP)",
                                               level="Warning"), LIKELY, "SASL_REQUIRED"),
    row("dotnet-produce-timeout", "Confluent.Kafka.ProduceException`2[System.Null,System.String]: Local: Message timed "
        "out\n   at Confluent.Kafka.Producer`2.ProduceAsync(TopicPartition topicPartition, Message`2 message)",
        READING, "ROUNDTRIP_FAILED"),
    # node-rdkafka lib/error.js: LibrdKafkaError keeps rd_kafka_err2str's words (code -193)
    row("node-resolve", "LibrdKafkaError: Local: Host resolution failure\n    at Function.createLibrdkafkaError "
        "[as create] (node_modules/node-rdkafka/lib/error.js:454:10) {\n  origin: 'local',\n  code: -193,\n  errno: -193\n}",
        READING, "BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE"),
    # --- the consumer group and the admin client (rdkafka_cgrp.c, rdkafka_admin.c) --------------------------------
    row("python-subscribed-topic", py("UNKNOWN_TOPIC_OR_PART", 3, "Subscribed topic not available: t1: Broker: Unknown "
                                                                 "topic or partition"), CERTAIN, "TOPIC_NOT_FOUND"),
    row("python-subscribed-topic-denied", py("TOPIC_AUTHORIZATION_FAILED", 29, "Subscribed topic not available: t1: "
                                                                              "Broker: Topic authorization failed"),
        CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    row("python-admin-controller", "cimpl.KafkaException: " + py("_TIMED_OUT", -185, "Failed while waiting for "
                                                                 "controller: Local: Timed out"), NONE),
    # rdkafka_metadata.c: two clusters behind one bootstrap.servers list, no address at fault
    row("clusterid-changed", rd('Broker b2.example:9092/bootstrap reports different ClusterId "Q2xv" than previously '
                                'known "TWtV": a client must not be simultaneously connected to multiple clusters', "",
                                4, "CLUSTERID", "main"), NONE),
    # --- the broker's TLS alert (rdkafka_ssl.c: OpenSSL's words, "SSL alert number N") ---------------------------
    row("alert-certificate-required-tls13", rd("Receive failed: error:0A00045C:SSL routines::tlsv13 alert certificate "
                                               "required: SSL alert number 116 (after 5ms in state APIVERSION_QUERY)",
                                               TLS), CERTAIN, "TLS_CLIENT_CERT_REQUIRED"),
    row("alert-unknown-ca", rd("SSL handshake failed: error:0A000418:SSL routines::tlsv1 alert unknown ca: SSL alert "
                               "number 48 (after 5ms in state SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_CLIENT_CERT_REJECTED"),
    # alert 40 alone: a TLS 1.2 listener with ssl.client.auth=required that got no certificate, or no cipher or
    # version both sides allow: the certificate the likely reading
    row("alert-handshake-failure", rd("SSL handshake failed: error:0A000410:SSL routines::sslv3 alert handshake "
                                      "failure: SSL alert number 40 (after 5ms in state SSL_HANDSHAKE)", TLS),
        LIKELY, "TLS_CLIENT_CERT_REQUIRED"),
    row("alert-protocol-version", rd("SSL handshake failed: error:0A00042E:SSL routines::tlsv1 alert protocol version: "
                                     "SSL alert number 70 (after 5ms in state SSL_HANDSHAKE)", TLS), NONE),
    # --- a write on a connection the peer had closed (rd_kafka_send: "Send failed: %s", the socket's errno) ---------
    row("send-broken-pipe", rd("Send failed: Broken pipe (after 20ms in state UP)", "b1.example:9092/1"),
        READING, "BROKER_CLOSED_CONNECTION"),
    # over TLS (rdkafka_ssl.c: SSL_ERROR_SYSCALL with errno), and 2.11.1+'s words for a peer's close there
    row("send-ssl-broken-pipe", rd("Send failed: SSL transport error: Broken pipe (after 20ms in state UP)",
                                   "ssl://b1.example:9093/1"), READING, "BROKER_CLOSED_CONNECTION"),
    row("send-ssl-closed-2.11", rd("Send failed: Disconnected: connection closed by peer (after 20ms in state UP)",
                                   "ssl://b1.example:9093/1"), READING, "BROKER_CLOSED_CONNECTION"),
    # --- before 1.x (rdkafka_broker.c, v0.11.6) and Windows ------------------------------------------------------
    row("connect-0.x", "1796677200.123 RDKAFKA-3-FAIL: rdkafka#producer-0: b1.example:9092/bootstrap: Failed to connect "
        "to broker at b1.example:9092: Connection refused", CERTAIN, "BOOTSTRAP_REFUSED"),
    # rd_strerror knows no Winsock code: WSAECONNREFUSED is "Unknown error"; on loopback nothing else can answer so
    row("windows-unknown-loopback", rd("Connect to ipv4#127.0.0.1:9092 failed: Unknown error (after 2016ms in state "
                                       "CONNECT)", "127.0.0.1:9092/bootstrap"), CERTAIN, "BOOTSTRAP_REFUSED"),
    # elsewhere how long it took says which is likely: Windows answers a refusal after ~2 s, gives up after 21 s
    row("windows-unknown-2s", rd("Connect to ipv4#192.0.2.10:9092 failed: Unknown error (after 2016ms in state CONNECT)"),
        LIKELY, "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT"),
    row("windows-unknown-21s", rd("Connect to ipv4#192.0.2.10:9092 failed: Unknown error (after 21020ms in state "
                                  "CONNECT)"), LIKELY, "BOOTSTRAP_TIMEOUT", "BOOTSTRAP_REFUSED"),
    # an advertised broker's: ADVERTISED_UNREACHABLE whichever it was (test_loopback_port)
    row("windows-unknown-advertised", rd("Connect to ipv4#192.0.2.11:9092 failed: Unknown error (after 2031ms in state "
                                         "CONNECT)", "b2.example:9092/2"), CERTAIN, "ADVERTISED_UNREACHABLE"),
    # --- SASL, more of its words ----------------------------------------------------------------------------------
    # rdkafka_sasl_scram.c: the server-final message's e= (a server that answers SCRAM's way rather than Kafka's code)
    row("scram-invalid-proof", rd("SASL authentication error: SASL SCRAM authentication failed: broker responded with "
                                  "invalid-proof (after 20ms in state AUTH_REQ)", SASL), CERTAIN, "SASL_AUTH_FAILED"),
    # rdkafka_sasl_oauthbearer.c: the broker's JSON error for a token it refused
    row("oauthbearer-invalid-token", rd('SASL authentication error: SASL OAUTHBEARER authentication failed '
                                        '(principal=app): {\\"status\\":\\"invalid_token\\"} (after 20ms in state '
                                        'AUTH_REQ)', SASL), CERTAIN, "SASL_AUTH_FAILED"),
    # the token never came from the identity provider: nothing reached the broker
    row("oauthbearer-no-token", rd("Failed to acquire SASL OAUTHBEARER token: Failed to retrieve OIDC token from "
                                   '"https://idp.example/oauth2/token": 401 (Unauthorized)', "", 3, "OIDC", "background"),
        NONE),
    # --- the producer's and the consumer's errors (rd_kafka_err2str) ---------------------------------------------
    row("python-unknown-topic-local", "Message delivery failed: " + py("_UNKNOWN_TOPIC", -188, "Local: Unknown topic"),
        CERTAIN, "TOPIC_NOT_FOUND"),
    row("python-unknown-partition", "Message delivery failed: " + py("_UNKNOWN_PARTITION", -190, "Local: Unknown "
                                                                     "partition"), NONE),
    row("python-queue-full", "BufferError: Local: Queue full", NONE),
    row("python-max-poll", py("_MAX_POLL_EXCEEDED", -147, "Application maximum poll interval (300000ms) exceeded by "
                                                          "231ms"), NONE),
    row("python-not-leader", "Message delivery failed: " + py("NOT_LEADER_FOR_PARTITION", 6, "Broker: Not leader for "
                                                              "partition"), NONE),
    # once: __consumer_offsets being created (explain's coordinator module: an info); repeated, a reading
    row("python-coordinator-not-available", py("COORDINATOR_NOT_AVAILABLE", 15, "Broker: Coordinator not available"),
        NONE),
    # --- the metadata's addresses (kcat -L, rdkafka_metadata.c) and the connections made to them ------------------
    row("advertised-loopback", "$ kcat -b 192.0.2.10:9092 -L\n" + rd("Connect to ipv4#127.0.0.1:9092 failed: Connection "
                                                                    "refused (after 0ms in state CONNECT)",
                                                                    "localhost:9092/1"), CERTAIN, "ADVERTISED_LOOPBACK"),
    row("advertised-nonroutable", rd("Connect to ipv4#0.0.0.0:9092 failed: Connection refused (after 0ms in state "
                                     "CONNECT)", "0.0.0.0:9092/1"), CERTAIN, "ADVERTISED_NONROUTABLE"),
    row("kcat-list-then-resolve", "Metadata for all topics (from broker -1: 192.0.2.10:9092/bootstrap):\n 1 brokers:\n"
        "  broker 1 at kafka:9092 (controller)\n" + rd("Failed to resolve 'kafka:9092': Name or service not known (after "
                                                       "1ms in state CONNECT)", "kafka:9092/1"),
        CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    # a SASL login the broker hung up on (2.11.1+ words, no hint: the client has SASL): the credentials or the mechanism
    row("closed-in-auth", rd(CLOSED + " (after 3ms in state AUTH_REQ)", SASL),
        LIKELY, "SASL_AUTH_FAILED", "BROKER_CLOSED_CONNECTION"),
    # a broker before 1.0 (SASL without Kafka's framing) hangs up on refused credentials (rdkafka_transport.c)
    row("hung-up-auth-legacy", rd("Disconnected: hung up from peer in state AUTH_LEGACY (after 3ms in state AUTH_LEGACY)",
                                  "sasl_plaintext://b1.example:9094/bootstrap"),
        LIKELY, "SASL_AUTH_FAILED", "BROKER_CLOSED_CONNECTION"),
    row("closed-in-auth-1.x", rd("Disconnected (after 3ms in state AUTH_HANDSHAKE)", "sasl_plaintext://b1.example:9094/1"),
        LIKELY, "SASL_AUTH_FAILED", "BROKER_CLOSED_CONNECTION"),
    # --- the client's own configuration refused before any connection (rd_kafka_new): no finding about the cluster ---
    # rdkafka_sasl.c rd_kafka_sasl_select_provider: a mechanism this build of librdkafka lacks, not the listener's
    row("client-unsupported-mechanism", "cimpl.KafkaException: " + py("_INVALID_ARG", -186, "Failed to create producer: "
                                                                      "Unsupported SASL mechanism: SCRAM-SHA-1"), NONE),
    row("client-no-provider", "% ERROR: Failed to create producer: No provider for SASL mechanism GSSAPI: recompile "
        "librdkafka with libsasl2 or openssl support. Current build options: PLAIN SASL_SCRAM OAUTHBEARER", NONE),
    # rdkafka_conf.c: a Java client's setting given to librdkafka
    row("java-setting", "cimpl.KafkaException: " + py("_INVALID_ARG", -186, 'No such configuration property: '
                                                      '\\"ssl.truststore.location\\"'), NONE),
    # --- what a client that reached no broker says (rd_kafka_metadata: _TRANSPORT when none came up) ---------------
    row("python-list-topics", "cimpl.KafkaException: " + py("_TRANSPORT", -195, "Failed to get metadata: Local: Broker "
                                                            "transport failure"), READING, "BOOTSTRAP_REFUSED",
        "BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_TIMEOUT", "TLS_EXPECTED", "SASL_REQUIRED"),
    row("python-all-brokers-down", py("_ALL_BROKERS_DOWN", -187, "1/1 brokers are down"), READING, "BOOTSTRAP_REFUSED"),
    row("dotnet-transport-alone", "Confluent.Kafka.KafkaException: Local: Broker transport failure", READING,
        "ROUNDTRIP_FAILED"),
    # rdkafka.c: with no error_cb, librdkafka logs the error op itself under ERROR, the client's name before it
    row("error-facility", rd("rdkafka#producer-1: b1.example:9092/bootstrap: Connect to ipv4#192.0.2.10:9092 failed: "
                             "Connection refused (after 0ms in state CONNECT)", "", 3, "ERROR", "app"),
        CERTAIN, "BOOTSTRAP_REFUSED"),
    # the coordinator's connection (a logical broker): its nodename after GroupCoordinator, an advertised address
    row("coordinator-resolve", rd("b2.example:9092: Failed to resolve 'b2.example:9092': Name or service not known "
                                  "(after 1ms in state CONNECT)", "GroupCoordinator"), CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    # --- words that name no cause on the connection path --------------------------------------------------------------
    row("setup-timeout-apiversion", rd("Connection setup timed out in state APIVERSION_QUERY (after 30029ms in state "
                                       "APIVERSION_QUERY)", level=4), NONE),
    row("terminate-in-queue", rd("Producer terminating with 1 message (5 bytes) still in queue or transit: use flush() "
                                 "to wait for outstanding message delivery", "", 4, "TERMINATE", "app"), NONE),
    # rdkafka_idempotence.c: the principal lacks IDEMPOTENT_WRITE on the cluster, no topic's ACL
    row("idempotence-pid-denied", rd("Failed to acquire idempotence PID from broker b1.example:9092/1: Broker: Cluster "
                                     "authorization failed: retrying", "", 4, "GETPID", "main"), NONE),
    # --- OpenSSL 1.0/1.1 and 3's words in the same handshake (rdkafka_ssl.c rd_kafka_ssl_error: "%s%s%s", buf, data) --
    row("wrong-version-openssl11", rd("SSL handshake failed: error:1408F10B:SSL routines:ssl3_get_record:wrong version "
                                      "number (after 2ms in state SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_UNEXPECTED"),
    row("alert-handshake-failure-openssl11", rd("SSL handshake failed: error:14094410:SSL routines:ssl3_read_bytes:sslv3 "
                                                "alert handshake failure: SSL alert number 40 (after 2ms in state "
                                                "SSL_HANDSHAKE)", TLS), LIKELY, "TLS_CLIENT_CERT_REQUIRED"),
    row("ca-openssl102", rd("SSL handshake failed: error:14090086:SSL routines:ssl3_get_server_certificate:certificate "
                            "verify failed" + CA_HINT + " (after 2ms in state SSL_HANDSHAKE)", TLS),
        LIKELY, "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH"),
    row("self-signed-openssl3", rd("SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: Verify "
                                   "error:self-signed certificate in certificate chain" + CA_HINT
                                   + " (after 2ms in state SSL_HANDSHAKE)", TLS), CERTAIN, "TLS_CERT_UNTRUSTED"),
    row("expired-openssl3", rd("SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: Verify "
                               "error:certificate has expired" + CA_HINT + " (after 2ms in state SSL_HANDSHAKE)", TLS),
        CERTAIN, "TLS_CERT_UNTRUSTED"),
    # --- SASL at a listener without it, and a client without a Kerberos ticket --------------------------------------
    # a plaintext listener answers SaslHandshake with ILLEGAL_SASL_STATE and lists no mechanism
    row("sasl-at-plaintext-listener", rd("SASL PLAIN mechanism handshake failed: Broker: Request not valid in current "
                                         "SASL state: broker's supported mechanisms:  (after 3ms in state "
                                         "AUTH_HANDSHAKE)", "sasl_plaintext://b1.example:9092/bootstrap"),
        CERTAIN, "SASL_MECHANISM_MISMATCH"),
    # Cyrus SASL's GSSAPI found no ticket: the client never sent credentials
    row("gssapi-no-ticket", rd("Failed to initialize SASL authentication: SASL handshake failed (start (-1)): SASL(-1): "
                               "generic failure: GSSAPI Error: Unspecified GSS failure.  Minor code may provide more "
                               "information (No Kerberos credentials available (default cache: FILE:/tmp/krb5cc_0)) "
                               "(after 0ms in state AUTH_REQ)", "sasl_plaintext://b1.example:9094/bootstrap"), NONE),
    # --- the consumer group's ACL (rdkafka_cgrp.c), read as TOPIC_AUTHORIZATION_FAILED (docs/findings.md) -------------
    row("find-coordinator-group-denied", py("GROUP_AUTHORIZATION_FAILED", 30, "FindCoordinator response error: Broker: "
                                                                             "Group authorization failed"),
        CERTAIN, "TOPIC_AUTHORIZATION_FAILED"),
    row("commit-unknown-member", rd('Offset commit (manual) failed for 1/1 partition(s) in join-state steady: Broker: '
                                    'Unknown member: t1[0]@12(Broker: Unknown member)', "", 4, "COMMITFAIL", "main"),
        NONE),
    # --- the line's other heads: log.thread.name=false; confluent-kafka-python's logger= (confluent_kafka.c log_cb:
    # logger.log(level, "%s [%s] %s", fac, name, buf)) under Python's logging format -----------------------------------
    row("no-thread-name", "%3|1796677200.123|FAIL|rdkafka#producer-1| b1.example:9092/bootstrap: Connect to "
        "ipv4#192.0.2.10:9092 failed: Connection refused (after 0ms in state CONNECT)", CERTAIN, "BOOTSTRAP_REFUSED"),
    row("python-logger", "2026-12-07 21:00:00,123 ERROR FAIL [rdkafka#producer-1] [thrd:" + ADV + "]: " + ADV + ": Failed "
        "to resolve 'kafka-0.kafka-headless.default.svc.cluster.local:9092': Name or service not known (after 1ms in "
        "state CONNECT)", CERTAIN, "ADVERTISED_UNRESOLVABLE"),
    row("python-logger-closed-2.11", "2026-12-07 21:00:00,123 INFO FAIL [rdkafka#producer-1] [thrd:b1.example:9093/"
        "bootstrap]: b1.example:9093/bootstrap: " + CLOSED + ": requesting ApiVersion: might be caused by incorrect "
        "security.protocol configuration (connecting to a SSL listener?) or broker version is < 0.10 (see "
        "api.version.request) (after 4ms in state APIVERSION_QUERY)", LIKELY, "TLS_EXPECTED", "BROKER_TOO_OLD"),
]


@pytest.mark.parametrize("r", ROWS, ids=ids_of(ROWS))
def test_explain_reads_librdkafkas_own_words_as_its_source_means_them(r):
    assert mismatch(r) is None
