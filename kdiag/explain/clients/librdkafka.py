"""librdkafka's lines (confluent-kafka in Python, Go and .NET, kcat, rdkafka-based clients).

A librdkafka line names its broker connection ``[proto://]host:port/(bootstrap|node id)`` (``RdBroker``);
kcat's ``-L`` output lists the advertised brokers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.librdkafka_names import AFTER_STATE, CLOSED_HOW, RdBroker, connect_failed, resolve_failed
from kdiag.explain.clients.sasl_answers import refused_for_its_own_reason
from kdiag.explain.sightings import (ALL_DOWN, ANY, BOOTSTRAP, CONNECT, CONNECTION_CLOSED, HOST, HOSTPORT,
                                     KERBEROS_PRINCIPAL, LIBRDKAFKA, MESSAGE_TIMEOUT, METADATA_FAILED, NOT_KAFKA,
                                     NO_LEADER, PLAINTEXT_ON_TLS, REDACTED, REQUEST_TIMEOUT, SASL_CREDENTIALS,
                                     SASL_MECHANISM, SASL_NEEDED, TLS_FAILED, TLS_ON_PLAINTEXT, TOPIC_DENIED,
                                     TOPIC_MISSING, Fact, Item, Pattern, ScanState, Sighting,
                                     client_certificate_symptom, parse_mechanisms, registrar, size_sighting,
                                     split_endpoint)
from kdiag.explain.tls_readings import hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# --- librdkafka (confluent-kafka, kcat) ----------------------------------------------------------


@pattern("librdkafka.resolve", LIBRDKAFKA, "Failed to resolve",
         r"Failed to resolve '(?P<hp>[^']+)'(?::\s*(?P<why>.*))?",
         "%3|1795271143.024|FAIL|rdkafka#producer-1| [thrd:ip-172-31-18-160.us-west-2.compute.internal:9092/1]: "
         "ip-172-31-18-160.us-west-2.compute.internal:9092/1: Failed to resolve "
         "'ip-172-31-18-160.us-west-2.compute.internal:9092': Name or service not known (after 0ms in state CONNECT)")
def _rd_resolve(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from resolve_failed(m, scan, BOOTSTRAP if _BROKER_FACILITY.search(m.string) else None)


# rd_kafka_brokers_add0 (rdkafka_broker.c) logs its own "Failed to resolve" under the BROKER facility, no broker's
# name before it: a name of bootstrap.servers it resolved up front (client.dns.lookup=resolve_canonical_...).
_BROKER_FACILITY = re.compile(r"^%\d\|[\d.]+\|BROKER\||\[BROKER\]\[\d\]|\|BROKER\| ")


@pattern("librdkafka.connect", LIBRDKAFKA, "Connect to ipv",
         rf"Connect to ipv[46]#(?P<addr>{HOST}|{REDACTED}):(?P<port>\d{{1,5}}) failed: (?P<why>[^(]*)",
         "%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: "
         "Connect to ipv4#127.0.0.1:9092 failed: Connection refused (after 0ms in state CONNECT)")
def _rd_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from connect_failed(m, scan)


@pattern("librdkafka.connect_timeout", LIBRDKAFKA, "Connection setup timed out",
         r"Connection setup timed out in state (?P<state>[A-Z_]+)",
         "%4|1795271434.720|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: "
         "Connection setup timed out in state CONNECT (after 1001ms in state CONNECT)")
def _rd_connect_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    state = m.group("state")
    if state in ("CONNECT", "TRY_CONNECT"):
        yield broker.sighting(CONNECT, status="timeout", detail="Connection setup timed out in state CONNECT")
    # SSL_HANDSHAKE: connected, then no answer to the ClientHello for socket.connection.setup.timeout.ms. Not a refused
    # certificate (OpenSSL fails that at once) nor a plaintext Kafka listener (it hangs up on the ClientHello read as a
    # size): a path or a peer that stalled, which no finding names from these words alone.


# A request on a connection that was up got no answer within socket.timeout.ms (a produce: or what is left of
# message.timeout.ms): something in the path forgot the idle connection, or the broker stopped answering.
# librdkafka >= 1.x disconnects after socket.max.fails (1) such timeouts; 2.16 logged only the REQTMOUT line here.
@pattern("librdkafka.request_timeout_disconnect", LIBRDKAFKA, "request(s) timed out: disconnect",
         r"(?P<count>\d+) request\(s\) timed out: disconnect(?:.*\(after (?P<up>\d+)ms in state UP)?",
         "%3|1795610693.528|FAIL|rdkafka#producer-1| [thrd:203.0.113.10:9092/bootstrap]: 203.0.113.10:9092/1: "
         "1 request(s) timed out: disconnect (after 8002ms in state UP)")
def _rd_request_timeout_disconnect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    up = m.group("up")
    yield RdBroker.find(m.string).sighting(REQUEST_TIMEOUT, detail=f"{m.group('count')} request(s) timed out",
                                           up_ms=int(up) if up else None)


@pattern("librdkafka.request_in_flight_timeout", LIBRDKAFKA, "Request in flight",
         r"Timed out (?P<request>[A-Za-z]+Request) in flight \(after (?P<ms>\d+)ms",
         "%5|1795610694.403|REQTMOUT|rdkafka#producer-1| [thrd:203.0.113.10:9092/1]: 203.0.113.10:9092/1: Timed out "
         "ProduceRequest in flight (after 2006ms, timeout #0)")
def _rd_request_in_flight_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(REQUEST_TIMEOUT,
                                           detail=f"{m.group('request')} unanswered for {m.group('ms')} ms")


@pattern("librdkafka.ssl_listener", LIBRDKAFKA, "connecting to a SSL listener",
         r"Disconnected(?: while|: [^:]*(?:: receive 0 after POLLIN|: POLLHUP)?:) requesting ApiVersion: might be caused "
         r"by incorrect security\.protocol",
         "%6|1795271460.076|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9093/bootstrap]: 127.0.0.1:9093/bootstrap: "
         "Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol configuration "
         "(connecting to a SSL listener?) or broker version is < 0.10 (see api.version.request) "
         "(after 26ms in state APIVERSION_QUERY)")
def _rd_ssl_listener(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(PLAINTEXT_ON_TLS, guess="might be caused by incorrect security.protocol "
                                           "configuration (connecting to a SSL listener?) or broker version is < 0.10",
                                           alternatives=("BROKER_TOO_OLD",))


# What OpenSSL says when the other side of a handshake does not speak TLS: bytes that are not TLS (certain), or a
# hang-up with no byte (librdkafka's own "connecting to a PLAINTEXT broker listener?" guess included): likely, as a
# plaintext listener and a proxy or a broker turning connections away end the same.
_NOT_TLS = (r"(?:unexpected eof while reading|wrong version number|packet length too long|record layer failure"
            r"|http request)")
_HANG_UP = ("unexpected eof while reading", "connecting to a PLAINTEXT broker listener")


def _not_tls(m: re.Match[str], detail: str) -> Sighting:
    sighting = RdBroker.find(m.string).sighting(TLS_ON_PLAINTEXT, detail=detail)
    return hung_up_in_handshake(sighting, detail) if any(h in detail for h in _HANG_UP) else sighting


@pattern("librdkafka.plaintext_listener", LIBRDKAFKA, "SSL handshake failed",
         rf"SSL handshake failed: (?P<why>.*?(?:connecting to a PLAINTEXT broker listener|{_NOT_TLS}).*)",
         "%3|1795271483.966|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:9092/bootstrap]: "
         "ssl://127.0.0.1:9092/bootstrap: SSL handshake failed: error:0A000126:SSL routines::unexpected eof while "
         "reading (after 3ms in state SSL_HANDSHAKE)")
def _rd_plaintext_listener(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield _not_tls(m, AFTER_STATE.sub("", m.group("why")))


# The same failure without the "SSL handshake failed:" prefix: librdkafka words it this way when the
# broker's close reaches it as a socket event rather than from inside SSL_do_handshake (which of the two
# depends on timing; both were seen from kcat against the same plaintext listener).
@pattern("librdkafka.plaintext_listener_eof", LIBRDKAFKA, "in state SSL_HANDSHAKE",
         rf"^(?!.*SSL handshake failed)(?=.*in state SSL_HANDSHAKE).*?SSL routines:[^:]*:(?P<why>{_NOT_TLS}[^(]*)",
         "%3|1795281179.385|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:56719/bootstrap]: "
         "ssl://127.0.0.1:56719/bootstrap: error:0A000126:SSL routines::unexpected eof while reading "
         "(after 2ms in state SSL_HANDSHAKE)")
def _rd_plaintext_listener_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield _not_tls(m, f"SSL handshake: {m.group('why').strip()}")


# The error alone, as the bindings raise it (.NET's KafkaException, Python's KafkaError): the handshake failed and
# the words do not say why, so which TLS failure it was is a reading.
@pattern("librdkafka.ssl_handshake_failed_alone", LIBRDKAFKA, "Local: SSL handshake failed",
         r"Local: SSL handshake failed(?!:)", "Confluent.Kafka.KafkaException: Local: SSL handshake failed")
def _rd_ssl_handshake_failed_alone(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(TLS_FAILED, detail="Local: SSL handshake failed",
                                           guess="Local: SSL handshake failed (no reason given)")


@pattern("librdkafka.client_certificate_alert", LIBRDKAFKA, "SSL alert number",
         r"alert (?P<alert>bad certificate|certificate unknown|certificate required|unknown ca|certificate expired"
         r"|certificate revoked|unsupported certificate|access denied"
         r"|handshake failure(?=: SSL alert number \d+: client SSL authentication might be required)): "
         r"SSL alert number \d+",
         "%3|1795282952.464|FAIL|rdkafka#producer-1| [thrd:ssl://127.0.0.1:38609/bootstrap]: "
         "ssl://127.0.0.1:38609/bootstrap: Receive failed: error:0A000412:SSL routines::sslv3 alert bad certificate: "
         "SSL alert number 42 (after 1ms in state APIVERSION_QUERY)")
def _rd_client_certificate_alert(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    alert = m.group("alert").replace(" ", "_")
    yield RdBroker.find(m.string).sighting(client_certificate_symptom(alert, scan), detail=alert)


@pattern("any.client_certificate_setting", ANY, ".location",
         r"ssl\.(?:keystore|certificate)\.location\s*=\s*(?P<value>[^\s,]*)",
         "--producer-property ssl.keystore.location=/etc/kafka/client.p12")
def _client_certificate_setting(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """A command line or a client's config dump that gives the client a keystore or a certificate file
    (librdkafka's ``ssl.certificate.location``, a Java ``ssl.keystore.location``; Java prints ``= null``)."""
    if m.group("value") not in ("", "null"):
        scan.client_certificate = True
    return ()


@pattern("librdkafka.sasl_required", LIBRDKAFKA, "broker might require SASL authentication",
         r"verify that security\.protocol is correctly configured, broker might require SASL authentication",
         "%4|1795271500.500|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:9094/bootstrap]: 127.0.0.1:9094/bootstrap: "
         "Disconnected: verify that security.protocol is correctly configured, broker might require SASL "
         "authentication (after 2ms in state UP)")
def _rd_sasl_required(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_NEEDED, guess="broker might require SASL authentication")


# A connection the broker (or something between) closed, in librdkafka's words. One that was up for minutes is the
# broker's connections.max.idle.ms (10 min) closing an idle connection: normal, and librdkafka reconnects.
@pattern("librdkafka.send_on_closed", LIBRDKAFKA, "Send failed: ",  # rd_kafka_send: a write the peer had hung up on
         r"Send failed: (?:SSL transport error: )?(?:Broken pipe|Connection reset by peer) \(after (?P<ms>\d+)ms in state (?P<state>[A-Z_]+)",
         "%3|1796677200.123|FAIL|rdkafka#producer-1| [thrd:b:9092/1]: b:9092/1: Send failed: Broken pipe (after 20ms in "
         "state UP)")
@pattern("librdkafka.disconnected", LIBRDKAFKA, "Disconnected",
         rf"\bDisconnected(?:: {CLOSED_HOW})? \(after (?P<ms>\d+)ms in state (?P<state>[A-Z_]+)",
         "%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:b:9092/bootstrap]: b:9092/bootstrap: Disconnected (after "
         "3ms in state APIVERSION_QUERY)")
def _rd_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("state") == "UP" and int(m.group("ms")) >= 60000:
        return
    broker = RdBroker.find(m.string)
    if m.group("state").startswith("AUTH_"):  # past TLS and ApiVersion, during the SASL login: no security mismatch
        yield broker.sighting(SASL_CREDENTIALS, detail=m.group(0), alternatives=("BROKER_CLOSED_CONNECTION",),
                              guess=f"the broker hung up during the SASL login (state {m.group('state')})")
        return
    yield broker.sighting(CONNECTION_CLOSED, detail=m.group(0))


@pattern("librdkafka.all_connections_down", LIBRDKAFKA, "All broker connections are down",
         r"Local: All broker connections are down(?!: \d+/\d+ brokers are down)",
         "KafkaError{code=_ALL_BROKERS_DOWN,val=-187,str=\"Local: All broker connections are down\"}")
def _rd_all_connections_down(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, LIBRDKAFKA, detail="All broker connections are down")


@pattern("librdkafka.sasl_mechanism", LIBRDKAFKA, "mechanism handshake failed",
         r"SASL (?P<mech>\S+) mechanism handshake failed: Broker: (?P<why>[^:]+): broker's supported mechanisms:"
         r"(?P<enabled>[^(]*)",
         "%3|1795271515.960|FAIL|rdkafka#producer-1| [thrd:sasl_plaintext://127.0.0.1:9094/bootstrap]: "
         "sasl_plaintext://127.0.0.1:9094/bootstrap: SASL SCRAM-SHA-512 mechanism handshake failed: Broker: "
         "Unsupported SASL mechanism: broker's supported mechanisms: PLAIN (after 301ms in state AUTH_HANDSHAKE)")
def _rd_sasl_mechanism(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_MECHANISM, mechanism=m.group("mech").upper(),
                                           mechanisms=parse_mechanisms(m.group("enabled")), detail=m.group("why"))


@pattern("librdkafka.sasl_authentication", LIBRDKAFKA, "SASL authentication error",
         r"SASL authentication error: (?!.*Broker handle destroyed)(?P<why>.*)",  # destroyed: the client shutting down
         "%3|1795271509.801|FAIL|rdkafka#producer-1| [thrd:sasl_plaintext://127.0.0.1:9094/bootstrap]: "
         "sasl_plaintext://127.0.0.1:9094/bootstrap: SASL authentication error: Authentication failed: Invalid "
         "username or password (after 311ms in state AUTH_REQ)")
def _rd_sasl_authentication(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    why = AFTER_STATE.sub("", _CODE_NAME.sub("", m.group("why")))  # the code a binding names beside it: sasl_answers
    yield RdBroker.find(m.string).sighting(SASL_CREDENTIALS, detail=why, guess=refused_for_its_own_reason(why))


_CODE_NAME = re.compile(r"\s*\([A-Z][A-Z_]+\)\s*$")


@pattern("librdkafka.authentication_failure", LIBRDKAFKA, "Local: Authentication failure",
         r"Local: Authentication failure",
         "% ERROR: Local: Authentication failure: sasl_ssl://b-1.example.kafka.us-east-1.amazonaws.com:9096/"
         "bootstrap: SASL authentication error: Authentication failed during authentication due to invalid "
         "credentials with SASL mechanism SCRAM-SHA-512")
def _rd_authentication_failure(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_CREDENTIALS)


@pattern("librdkafka.kerberos_principal_unknown", LIBRDKAFKA, "not found in Kerberos database",
         r"Server (?P<principal>\S+) not found in Kerberos database",
         "%2|1795607387.750|LIBSASL|rdkafka#producer-1| [thrd:sasl_plaintext://kafka.example.test:9094/bootstrap]: "
         "sasl_plaintext://kafka.example.test:9094/bootstrap: GSSAPI Error: Unspecified GSS failure.  Minor code may "
         "provide more information (Server kafka/server1.example.test@EXAMPLE.TEST not found in Kerberos database)")
def _rd_kerberos_principal(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # Cyrus SASL's GSSAPI plugin (LIBSASL), then librdkafka's FAIL line quoting it: the KDC's own words.
    yield RdBroker.find(m.string).sighting(KERBEROS_PRINCIPAL, detail=m.group("principal"))


@pattern("librdkafka.invalid_response_size", LIBRDKAFKA, "Invalid response size",
         r"Invalid response size (?P<size>-?\d+)(?: \(0\.\.(?P<limit>\d+)\))?",
         "%3|1795270000.100|FAIL|rdkafka#producer-1| [thrd:127.0.0.1:8080/bootstrap]: 127.0.0.1:8080/bootstrap: "
         "Receive failed: Invalid response size 1213486160 (0..100000000): increase receive.message.max.bytes "
         "(after 3ms in state APIVERSION_QUERY)")
def _rd_invalid_size(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    sighting = size_sighting(RdBroker.find(m.string).sighting(NOT_KAFKA), int(m.group("size")),
                             int(m.group("limit")) if m.group("limit") else None)
    if sighting is not None:  # else a real broker's answer over receive.message.max.bytes: no connectivity cause
        yield sighting


@pattern("librdkafka.message_timeout", LIBRDKAFKA, "Message timed out", r"Local: Message timed out|_MSG_TIMED_OUT",
         'delivery: KafkaError{code=_MSG_TIMED_OUT,val=-192,str="Local: Message timed out"}')
def _rd_message_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(MESSAGE_TIMEOUT, LIBRDKAFKA)


@pattern("librdkafka.brokers_down", LIBRDKAFKA, "brokers are down", r"(?P<down>\d+)/(?P<all>\d+) brokers are down",
         "% ERROR: Local: All broker connections are down: 1/1 brokers are down: terminating")
def _rd_brokers_down(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, LIBRDKAFKA, detail=f"{m.group('down')}/{m.group('all')}")


@pattern("librdkafka.metadata", LIBRDKAFKA, "Failed to", r"Failed to (?:acquire metadata|query metadata for topic "
         r"(?P<topic>\S+?)):\s*(?P<why>Local: [^(]*)",
         "% ERROR: Failed to acquire metadata: Local: Broker transport failure (Are the brokers reachable? Also try "
         "increasing the metadata timeout with -m <timeout>?)")
def _rd_metadata(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(METADATA_FAILED, LIBRDKAFKA, topic=m.group("topic"), detail=m.group("why").strip())


@pattern("librdkafka.unknown_topic", LIBRDKAFKA, "nknown topic",
         r"(?:Broker: Unknown topic or partition|Local: Unknown topic)",
         "% ERROR: Topic missing-topic error: Broker: Unknown topic or partition")
def _rd_unknown_topic(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    topic = re.search(r"Topic (\S+?)(?: \[\d+\])? error", m.string)
    yield Sighting(TOPIC_MISSING, LIBRDKAFKA, topic=topic.group(1) if topic else None)


@pattern("librdkafka.topic_authorization", LIBRDKAFKA, "Topic authorization failed",
         r"Broker: Topic authorization failed",
         "% ERROR: Topic orders error: Broker: Topic authorization failed")
def _rd_topic_authorization(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    topic = re.search(r"Topic (\S+?)(?: \[\d+\])? error", m.string)
    yield Sighting(TOPIC_DENIED, LIBRDKAFKA, topic=topic.group(1) if topic else None)


@pattern("librdkafka.leader_not_available", LIBRDKAFKA, "Leader not available", r"Broker: Leader not available",
         "% ERROR: Topic orders [2] error: Broker: Leader not available")
def _rd_leader(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    topic = re.search(r"Topic (\S+?)(?: \[\d+\])? error", m.string)
    yield Sighting(NO_LEADER, LIBRDKAFKA, topic=topic.group(1) if topic else None, detail="LEADER_NOT_AVAILABLE")


@pattern("kcat.metadata_header", LIBRDKAFKA, "Metadata for",
         rf"Metadata for (?:all topics|[^(]*)\(from broker (?P<id>-?\d+): (?:[a-z_]+://)?(?P<hp>{HOSTPORT})/"
         r"(?P<name>bootstrap|-?\d+)\)",
         "Metadata for all topics (from broker -1: ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092/bootstrap):")
def _kcat_header(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    if m.group("name") == "bootstrap" or int(m.group("id")) < 0:
        yield Fact(BOOTSTRAP, host, port)
    else:
        yield Fact("broker", host, port, int(m.group("id")))


def _listed_broker(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


pattern("kcat.broker", LIBRDKAFKA, "broker ", rf"(?:^|[\s|])broker (?P<id>-?\d+) at (?P<hp>{HOSTPORT})\b",
        "  broker 0 at ip-172-31-18-160.us-west-2.compute.internal:9092 (controller)")(_listed_broker)
pattern("librdkafka.metadata_broker", LIBRDKAFKA, "NodeId", rf"Broker #\d+/\d+: (?P<hp>{HOSTPORT}) NodeId (?P<id>-?\d+)",
        "%7|1795270000.100|METADATA|rdkafka#producer-1| [thrd:main]: 127.0.0.1:9092/bootstrap: Broker #0/1: "
        "kafka-1.internal:9092 NodeId 1")(_listed_broker)
