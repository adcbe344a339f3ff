"""Kafka's own error codes as every client spells them: the protocol's name (``ILLEGAL_SASL_STATE``, franz-go and
the Java metadata warnings), its words (Sarama's and franz-go's ``Request is not valid given the current SASL
state``), segmentio/kafka-go's ``[34] Illegal SASL State: ...``, the Python clients' ``IllegalSaslStateError``.
The code means the same whoever prints it, so one pattern per spelling reads them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.sasl_answers import SASL_ANSWER
from kdiag.explain.sightings import (ANY, CERT_NAME, CERT_UNTRUSTED, CONNECTION_CLOSED, GO, HOSTPORT, NOT_COORDINATOR,
                                     NOT_LEADER, NO_LEADER, PLAINTEXT_ON_TLS, SASL_CREDENTIALS, SASL_MECHANISM,
                                     TOPIC_DENIED, TOPIC_MISSING, Fact, Item, Pattern, ScanState, Sighting,
                                     client_certificate_symptom, registrar, split_endpoint)
from kdiag.explain.tls_readings import handshake_failure_alert

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# code name: (the symptom it reports, each spelling of it as a needle, an example line)
SPELLINGS: dict[str, tuple[str, tuple[str, ...], str]] = {
    # A SaslHandshake where the listener expects none: it is a PLAINTEXT or SSL listener (no SASL configured).
    "ILLEGAL_SASL_STATE": (SASL_MECHANISM, ("ILLEGAL_SASL_STATE", "Illegal SASL State", "IllegalSaslState",
                                            "given the current SASL state"),
                           "panic: [34] Illegal SASL State: the request is not valid given the current SASL state"),
    "UNSUPPORTED_SASL_MECHANISM": (SASL_MECHANISM, ("UNSUPPORTED_SASL_MECHANISM", "Unsupported SASL Mechanism",
                                                    "does not support the requested SASL mechanism"),
                                   "kafka server: The broker does not support the requested SASL mechanism"),
    "SASL_AUTHENTICATION_FAILED": (SASL_CREDENTIALS, ("SASL_AUTHENTICATION_FAILED", "SASL Authentication Failed",
                                                      "SaslAuthenticationFailed"),
                                   "[58] SASL Authentication Failed: SASL Authentication failed"),
    "TOPIC_AUTHORIZATION_FAILED": (TOPIC_DENIED, ("TOPIC_AUTHORIZATION_FAILED", "Topic Authorization Failed",
                                                  "TopicAuthorizationFailed", "not authorized to access this topic"),
                                   "[29] Topic Authorization Failed: the client is not authorized to access the "
                                   "requested topic"),
    "UNKNOWN_TOPIC_OR_PARTITION": (TOPIC_MISSING, ("UNKNOWN_TOPIC_OR_PARTITION", "Unknown Topic Or Partition",
                                                   "UnknownTopicOrPartitionError"),
                                   "[3] Unknown Topic Or Partition: the request is for a topic or partition that "
                                   "does not exist on this broker"),
    # Sarama's ErrNotLeaderForPartition and ErrNotCoordinatorForConsumer words, the Java client's exceptions' messages,
    # librdkafka's rd_kafka_err2str, kafka-python's error classes.
    "NOT_LEADER_OR_FOLLOWER": (NOT_LEADER, ("NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION",
                                            "not the leader for some partition", "not the leader for that topic-partition",
                                            "Not leader for partition", "NotLeaderForPartition", "NotLeaderOrFollower"),
                               "kafka server: Tried to send a message to a replica that is not the leader for some "
                               "partition. Your metadata is out of date."),
    "NOT_COORDINATOR": (NOT_COORDINATOR, ("NOT_COORDINATOR", "not coordinated by this broker",
                                          "This is not the correct coordinator", "Broker: Not coordinator",
                                          "NotCoordinatorForGroup", "NotCoordinatorError", "NotCoordinatorException"),
                        "kafka server: Request was for a consumer group that is not coordinated by this broker."),
    "LEADER_NOT_AVAILABLE": (NO_LEADER, ("LEADER_NOT_AVAILABLE", "Leader Not Available", "LeaderNotAvailableError"),
                             "[5] Leader Not Available: the leader is in the middle of a leadership election"),
}


# The Java client's IllegalSaslStateException("Invalid SASL mechanism response, server may be expecting a different
# protocol") when the SaslHandshake answer does not parse: its own guess. A broker before 0.10 expects GSSAPI tokens
# only, and a server that answers the login in its own way (Azure Event Hubs refusing credentials) ends the same.
DIFFERENT_PROTOCOL = "may be expecting a different protocol"


def _register(code: str, symptom: str, needle: str, example: str) -> None:
    @pattern(f"kafka_error.{code.lower()}.{len(PATTERNS)}", ANY, needle, re.escape(needle),
             example if needle in example else needle)
    def _read(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        if symptom not in (SASL_MECHANISM, SASL_CREDENTIALS) and SASL_ANSWER.search(m.string):
            return  # the code a SASL login's answer carried (sasl_answers), not a topic's
        detail = code if symptom == NO_LEADER else f"{code}: {m.string[m.start():m.start() + 120].strip()}"
        guess = {"guess": m.string[m.start():].strip()[:160], "alternatives": ("SASL_AUTH_FAILED", "BROKER_TOO_OLD")}
        yield Sighting(symptom, ANY, mechanisms=() if code == "ILLEGAL_SASL_STATE" else None, detail=detail,
                       **(guess if DIFFERENT_PROTOCOL in m.string else {}))  # type: ignore[arg-type]


for _code, (_symptom, _needles, _example) in SPELLINGS.items():
    for _needle in _needles:
        _register(_code, _symptom, _needle, _example)


# GROUP_AUTHORIZATION_FAILED (30): the authorizer denies the principal its consumer group, an ACL denial as a topic's
# is (the catalog's TOPIC_AUTHORIZATION_FAILED, whose fix grants READ on the group too). The Java client's
# GroupAuthorizationException ("Not authorized to access group: <group id>", the id empty when none was set),
# Errors' "Group authorization failed." (librdkafka: "Broker: Group authorization failed"), franz-go's
# GROUP_AUTHORIZATION_FAILED, segmentio's "[30] Group Authorization Failed", Sarama's "The client is not authorized
# to access this group", kafka-python's GroupAuthorizationFailedError.
GROUP_DENIED = "GROUP_AUTHORIZATION_FAILED"
_GROUP_PREFIX = re.compile(r"groupId=(?P<group>[\w.-]{1,255})")
_GROUP_ID = re.compile(r"Not authorized to access group: ?(?P<group>[^\s,;'\"}]*?)\.?(?=$|[\s,;'\"}])")
for _needle in ("GROUP_AUTHORIZATION_FAILED", "GroupAuthorization", "roup authorization failed",
                "Group Authorization Failed", "not authorized to access this group", "Not authorized to access group"):
    @pattern(f"kafka_error.group_authorization_failed.{len(PATTERNS)}", ANY, _needle, re.escape(_needle),
             "org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group: orders-app"
             if _needle in "GroupAuthorizationException: Not authorized to access group" else _needle)
    def _group_denied(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        if SASL_ANSWER.search(m.string):
            return  # the code a SASL login's answer carried (sasl_answers)
        named = _GROUP_ID.search(m.string) or _GROUP_PREFIX.search(m.string)  # or the Java logger's groupId=
        group = named.group("group") if named and named.group("group") != "Group" else None
        yield Sighting(TOPIC_DENIED, ANY, detail=GROUP_DENIED if group is None else f"{GROUP_DENIED}: {group}")


# A SASL session with a lifetime (KIP-368), in each client's words: the connection logged in, and re-authenticates on
# it before the lifetime ends. An ILLEGAL_SASL_STATE in such a paste is the re-authentication's, not a listener
# without SASL. franz-go: "sasl has a limited lifetime" (reauthenticate_in ...), "sasl expiry limit reached,
# reauthenticating", "sasl reauth failed"; the Java client: "Finished authentication with session expiration in N
# ms and session re-authentication on or after M ms", "Successfully re-authenticated", "Failed re-authentication";
# librdkafka (debug SECURITY REAUTH): "Received session lifetime N ms from broker".
_LIFETIME_WORDS = (("limited lifetime", "[DEBUG] sasl has a limited lifetime; broker: 2, reauthenticate_in: 5s"),
                   ("reauth", "[DEBUG] sasl expiry limit reached, reauthenticating; broker: 1"),
                   ("re-authenticat", "Finished authentication with session expiration in 3600000 ms and session "
                    "re-authentication on or after 3240000 ms"),
                   ("session lifetime", "%7|1700000000.000|REAUTH|rdkafka#producer-1| [thrd:sasl_ssl://b:9096/1]: "
                    "Received session lifetime 3600000 ms from broker"))
for _needle, _example in _LIFETIME_WORDS:
    @pattern(f"any.sasl_session_lifetime.{len(PATTERNS)}", ANY, _needle,
             r"sasl has a limited lifetime|sasl expiry limit reached|sasl reauth failed|session re-authentication on"
             r"|[Ss]uccessfully re-authenticated|Failed re-authentication|Received session lifetime \d+ ms", _example)
    def _sasl_session_lifetime(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        yield Fact("sasl_reauth")


# --- words that mean the same in every client ---------------------------------------------------------

# OpenSSL's (and Node's) words for a chain that does not verify: librdkafka before 1.x ("Failed to verify broker
# certificate: unable to get local issuer certificate"), kafkajs, node-rdkafka, kcat.
@pattern("any.openssl_untrusted", ANY, "issuer certificate",
         r"unable to get (?:local )?issuer certificate", "Failed to verify broker certificate: unable to get local "
         "issuer certificate")
def _openssl_issuer(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CERT_UNTRUSTED, ANY, detail=m.group(0))


@pattern("any.openssl_self_signed", ANY, "signed certificate", r"self[- ]signed certificate(?: in certificate chain)?",
         "SSL routines: self signed certificate in certificate chain")
def _openssl_self_signed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CERT_UNTRUSTED, ANY, detail=m.group(0))


# Node's words for a server certificate without its issuer in the chain (UNABLE_TO_VERIFY_LEAF_SIGNATURE), from any
# Node client (kafka-node, node-rdkafka's callers), and the Java PKIX cause as frameworks re-word it with a capital.
pattern("any.node_first_certificate", ANY, "unable to verify the first certificate",
        r"unable to verify the first certificate", "Error: unable to verify the first certificate")(_openssl_self_signed)
pattern("any.certification_path", ANY, "Unable to find valid certification path",
        r"Unable to find valid certification path to requested target",
        "Unable to find valid certification path to requested target")(_openssl_self_signed)


# A name the certificate does not hold, in each runtime's words: Python's ssl.CertificateError (before 3.7: "hostname
# 'x' doesn't match 'y'" / "doesn't match either of ..."), Ruby's OpenSSL::SSL::SSLSocket#post_connection_check
# ("hostname \"x\" does not match the server certificate"), .NET SslStream's RemoteCertificateNameMismatch.
_NAME_WORDS = (r"hostname '(?P<py>[^']{1,255})' doesn't match|hostname \"(?P<rb>[^\"]{1,255})\" does not match the server "
               r"certificate|RemoteCertificateNameMismatch")
for _needle, _example in (("doesn't match", "ssl.CertificateError: hostname '192.0.2.10' doesn't match 'b1.example'"),
                          ("does not match the server certificate", 'OpenSSL::SSL::SSLError: hostname "192.0.2.10" does '
                           "not match the server certificate"),
                          ("RemoteCertificateNameMismatch", "AuthenticationException: The remote certificate is invalid "
                           "according to the validation procedure: RemoteCertificateNameMismatch")):
    @pattern(f"any.certificate_name.{len(PATTERNS)}", ANY, _needle, _NAME_WORDS, _example)
    def _certificate_name(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        yield Sighting(CERT_NAME, ANY, m.group("py") or m.group("rb"), detail=m.group(0)[:120])


# .NET SslStream: a chain that does not verify (RemoteCertificateChainErrors; since .NET 5 with the chain status,
# "UntrustedRoot", "PartialChain"); before .NET 5 the words alone give no reason: the CA likely, or the name.
@pattern("dotnet.remote_certificate", ANY, "The remote certificate is invalid",
         r"The remote certificate is invalid (?:because of errors in the certificate chain|according to the validation "
         r"procedure)(?P<why>: ?\w+)?", "System.Security.Authentication.AuthenticationException: The remote certificate is "
         "invalid because of errors in the certificate chain: UntrustedRoot")
def _dotnet_remote_certificate(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if "NameMismatch" in m.string:
        return  # any.certificate_name reads it
    vague = m.group("why") is None and "chain" not in m.group(0)
    yield Sighting(CERT_UNTRUSTED, ANY, detail=m.group(0)[:120], **({"guess": m.group(0), "alternatives": (
        "TLS_HOSTNAME_MISMATCH",)} if vague else {}))  # type: ignore[arg-type]


# Erlang's ssl (brod, kafka_ex): {tls_alert,{Alert,"TLS client: ... generated CLIENT ALERT: Fatal - Bad Certificate\n
# {bad_cert,hostname_check_failed}"}}. Generated by the client: the broker's certificate failed (the name, or the
# chain: unknown_ca, selfsigned_peer); received from the server: the listener refused the client's own certificate.
@pattern("erlang.tls_alert", ANY, "ALERT: Fatal - ",
         r"(?P<side>generated CLIENT|received SERVER) ALERT: Fatal - (?P<alert>[A-Za-z ]{3,40})",
         '{tls_alert,{bad_certificate,"TLS client: In state certify at ssl_handshake.erl:2111 generated CLIENT ALERT: '
         'Fatal - Bad Certificate\n {bad_cert,hostname_check_failed}"}}')
def _erlang_tls_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    alert = m.group("alert").strip().lower().replace(" ", "_")
    if m.group("side") == "received SERVER":
        sighting = Sighting(client_certificate_symptom(alert, scan), ANY, detail=alert)
        yield handshake_failure_alert(sighting, scan, m.group(0)) if alert == "handshake_failure" else sighting
    elif "hostname_check_failed" in m.string:
        yield Sighting(CERT_NAME, ANY, detail="{bad_cert,hostname_check_failed}")
    elif alert in ("unknown_ca", "bad_certificate", "certificate_unknown") or "bad_cert," in m.string:
        yield Sighting(CERT_UNTRUSTED, ANY, detail=alert)


# The broker's message for rejected SASL credentials, which every client passes on (.NET, Python, Go).
@pattern("any.invalid_credentials", ANY, "due to invalid credentials",
         r"Authentication failed during authentication due to invalid credentials(?: with SASL mechanism (?P<mech>\S+))?",
         "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512")
def _invalid_credentials(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, ANY, mechanism=m.group("mech"), detail=m.group(0))


# The broker's PLAIN callback (PlainServerCallbackHandler) refusing a user name or password, passed on by every client.
@pattern("any.plain_invalid", ANY, "Authentication failed: Invalid username or password",
         r"Authentication failed: Invalid username or password", '{sasl_auth_error,<<"Authentication failed: Invalid '
         'username or password">>}')
def _plain_invalid(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, ANY, mechanism="PLAIN", detail=m.group(0))


# A SASL handshake the listener ended with EOF: it did not answer Kafka's SaslHandshake at all, which is what a TLS
# listener does with plaintext (Confluent Cloud and MSK's SASL ports are SASL_SSL) -- the likely reading.
def _sasl_handshake_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(PLAINTEXT_ON_TLS, ANY, detail=m.group(0),
                   guess=f"{m.group(0)} (the listener hung up instead of answering the SASL handshake)")


# (Sarama's "Failed to read SASL handshake header : EOF"; a caller that drops the error after it, as Dapr's "fail to
# read SASL handshake header.", is the same read of a SaslHandshake answer that never came.)
_SASL_HANDSHAKE_EOF = (r"SASL handshake (?:failed: |header : )(?:unexpected )?EOF|"
                       r"[Ff]ail(?:ed)? to read SASL handshake header\s*\.?\s*$")
for _needle, _example in (("SASL handshake failed: ", "could not successfully authenticate to broker.example:9092 "
                           "with SASL: SASL handshake failed: EOF"),
                          ("SASL handshake header", "Failed to read SASL handshake header : unexpected EOF")):
    pattern(f"any.sasl_handshake_eof.{len(PATTERNS)}", ANY, _needle, _SASL_HANDSHAKE_EOF, _example)(_sasl_handshake_eof)


# Go's io.EOF on a Kafka request: the broker hung up (segmentio/kafka-go's writer and reader, Sarama's requests).
def _go_request_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # segmentio/kafka-go reads a TLS alert's first byte and says so: a plaintext client at a TLS listener.
    if "broker appears to be expecting TLS" in m.string:
        yield Sighting(PLAINTEXT_ON_TLS, ANY, detail="broker appears to be expecting TLS")
        return
    yield Sighting(CONNECTION_CLOSED, ANY, detail=m.group(0))


_REQUEST_EOF = (r"(?:[Ff]ailed to (?:write|read|produce|fetch|get topic metadata|read message)\w*(?: messages?)?|"
                r"kafka\.\(\*\w+\)\.\w+|[Ww]rite msg to kafka error|error (?:while )?(?:reading|writing) messages?)"
                r": (?:unexpected )?EOF\b|"
                # Go's log.Fatal(err) / panic(err) of a bare io.EOF: the whole line is the error (after Go's timestamp)
                r"^(?:\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? )?(?:panic: |[Ee]rror: )?(?:unexpected )?EOF\s*$|"
                # io.ErrClosedPipe: kafka-go's transport lost the connection under a request
                r"io: read/write on closed pipe")
for _needle, _example in ((": EOF", "failed to write messages: EOF"), ("unexpected EOF", "failed to write messages: "
                          "unexpected EOF"), ("EOF", "2026/11/26 10:00:00 EOF"), ("closed pipe", "error writing messages: "
                          "io: read/write on closed pipe")):
    pattern(f"go.request_eof.{len(PATTERNS)}", ANY, _needle, _REQUEST_EOF, _example)(_go_request_eof)


# Any tool's error line that ends in Go's io.EOF (a wrapper's "Error creating topic: EOF", topicctl's "ERROR EOF",
# "OriginalError: EOF", "err: EOF", "error : EOF"): the broker hung up, whatever the tool was doing. A parser's EOF
# (a YAML, JSON or config file cut short) is not a connection's.
_ERROR_WORD = re.compile(r"\b(?:[Ee]rr(?:or)?|ERRO(?:R)?|FATAL|[Ff]ail(?:ed|ure)?|OriginalError|WARN(?:ING)?|"
                         r"FEHLER|ERREUR|错误|エラー)\b")  # a logger's level, also in German, French, Chinese, Japanese
_PARSER_WORD = re.compile(r"\b(?:yaml|json|toml|xml|parse|parsing|unmarshal|decode|decoding|file|line \d+)\b")


@pattern("any.error_eof", ANY, "EOF", r"(?:[:=(\[]\s*|\s)(?P<eof>(?:unexpected )?EOF)\]?\)?(?=\s|$)",
         "[2021-05-19 13:34:01] ERROR EOF")
def _error_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    before = m.string[:m.start()]
    if _ERROR_WORD.search(before) and not _PARSER_WORD.search(m.string):
        yield Sighting(CONNECTION_CLOSED, ANY, detail=m.group("eof"), catch_all=True)


# segmentio/kafka-go dialer.go: fmt.Errorf("failed to dial: failed to open connection to %s: %w", address, err); an
# EOF or a reset there is the listener hanging up on the connection's first exchange (TLS, SASL, ApiVersions).
@pattern("segmentio.dial_closed", ANY, "failed to open connection to ",
         rf"failed to open connection to (?P<hp>{HOSTPORT}): (?:(?:unexpected )?EOF\b|.*?connection reset by peer)",
         "failed to dial: failed to open connection to kafka:9092: EOF")
def _segmentio_dial_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Sighting(CONNECTION_CLOSED, GO, host, port, detail=m.group(0)[-80:])


# The broker (or something in between) hung up: the socket's own words, the same in every client's language.
@pattern("any.connection_reset", ANY, "reset by peer", r"[Cc]onnection reset by peer",
         "read tcp 10.0.0.5:53412->10.0.0.9:9092: read: connection reset by peer")
def _connection_reset(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, ANY, *_go_peer(m.string), detail="connection reset by peer")


@pattern("any.broken_pipe", ANY, "broken pipe", r"write: broken pipe", "write tcp 10.0.0.5:53412->10.0.0.9:9092: "
         "write: broken pipe")
def _broken_pipe(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, ANY, *_go_peer(m.string), detail="broken pipe")


# Go's net.OpError names both ends: ``read tcp LOCAL->REMOTE: read: ...``; the remote is the address that hung up.
_GO_PEER = re.compile(rf"\b(?:read|write) tcp\d? \S+->(?P<hp>{HOSTPORT}): (?:read|write):")


def _go_peer(line: str) -> tuple[str | None, int | None]:
    """The remote end of the one Go read or write on ``line`` that failed, (None, None) when it names none
    or several (which one hung up is then not said)."""
    peers = {m.group("hp") for m in _GO_PEER.finditer(line)}
    return split_endpoint(peers.pop()) if len(peers) == 1 else (None, None)


@pattern("node.econnreset", ANY, "ECONNRESET", r"\b(?:read ECONNRESET|write EPIPE|ECONNRESET)\b",
         "KafkaJSConnectionError: Connection error: read ECONNRESET")
@pattern("node.epipe", ANY, "EPIPE", r"\bwrite EPIPE\b", "KafkaJSConnectionError: Connection error: write EPIPE")
def _node_econnreset(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, ANY, detail=m.group(0))


# Sarama reading a TLS alert (0x15 0x03 ...) as a response: a plaintext client at a TLS listener, most likely.
@pattern("go.sarama_insufficient_data", ANY, "insufficient data to decode packet",
         r"insufficient data to decode packet, more bytes expected",
         "kafka: insufficient data to decode packet, more bytes expected")
def _sarama_insufficient_data(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(PLAINTEXT_ON_TLS, ANY, detail=m.group(0), guess="insufficient data to decode packet (the answer "
                   "does not frame as Kafka: a TLS alert does not)", alternatives=("BROKER_TOO_OLD",))  # nor an older
    # version's answer to a request Sarama's config.Version says the broker speaks


# kafkajs's words for LEADER_NOT_AVAILABLE.
@pattern("kafkajs.leader_election", ANY, "in the middle of a leadership election",
         r"There is no leader for this topic-partition as we are in the middle of a leadership election",
         "KafkaJSProtocolError: There is no leader for this topic-partition as we are in the middle of a leadership "
         "election")
def _kafkajs_leader_election(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_LEADER, ANY, detail="LEADER_NOT_AVAILABLE")


# Sarama's words for ErrLeaderNotAvailable (errors.go). Its client.cachedLeader returns it when the metadata names no
# leader, and also when the leader's broker is no longer registered: a broker whose connection failed (its advertised
# address does not resolve or does not connect from the client) is deregistered, so an unusable leader reads as none.
@pattern("sarama.leader_not_available", GO, "there is currently no leader for this partition",
         r"there is currently no leader for this partition",
         "kafka server: In the middle of a leadership election, there is currently no leader for this partition and "
         "hence it is unavailable for writes.")
def _sarama_leader_not_available(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_LEADER, GO, detail="LEADER_NOT_AVAILABLE", guess=m.string[m.start():].strip()[:160],
                   alternatives=("ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE"))
