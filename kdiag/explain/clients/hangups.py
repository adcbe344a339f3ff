"""A listener that hung up, and a plaintext client at a TLS listener, in the words of clients no family module reads
whole: each library's own wording, from its sources.

- ruby-kafka (lib/kafka/connection.rb) wraps a socket error as ``Kafka::ConnectionError, "Connection error
  #{e.class}: #{e}"``: ``Connection error EOFError: EOFError`` / ``end of file reached`` is the broker closing the
  connection on the client's request (``Errno::ECONNRESET``'s words are read by ``kafka_errors``);
- no-kafka (lib/connection.js): ``NoKafkaConnectionError: Kafka server has closed connection``;
- kafka-node (lib/kafkaClient.js): ``ApiVersions failed with unexpected error`` and a BrokerNotAvailableError
  (``Broker not available (socket closed)``): the broker hung up on the first request a connection sends, which a TLS
  listener does to plaintext (a SASL listener answers ApiVersions; a broker before 0.10 does not know it);
  ``Broker closed connection during SASL auth: bad credentials?``: its own guess;
- Go's multi-error lists (hashicorp/go-multierror: ``3 errors occurred:`` then one ``* <error>`` line per broker, as
  Sarama's callers and terraform-provider-kafka print them): an ``* EOF`` item is a broker that hung up;
- kafka_protocol (brod, kaffe, broadway_kafka) appends its own hint to a SASL failure it has seen come from a TLS
  listener: ``Make sure 'ssl' option is in client config, or make sure connecting to 'SASL_PLAINTEXT://' listener``
  (kpro_connection.erl hint_msg, for ``{sasl_auth_error, {badmatch, {error, enomem}}}``): a likely plaintext client at a
  TLS listener, its own guess;
- a connect that failed to the meta-address 0.0.0.0 or ``::`` (kafka_ex's ``Could not connect to broker
  "0.0.0.0":9093``, with no reason after it): no client can connect there, whatever the error was, so the address
  is the broker's advertised one (a bootstrap address the user typed is never 0.0.0.0 in these logs).

And two old formats that name a cause only as the client's guess: the Java client before 2.0's connection lines
(``Connection to node -1 could not be established`` with no address; 1.0's ``terminated during authentication. This
may indicate that authentication failed due to invalid credentials``), and fluent-bit's ``cannot configure
'security.protocol' property`` (its librdkafka built without OpenSSL: the client goes on in plaintext).

What each hang-up means is decided where every closed connection is (``closing.closed_connection``): a reading per
security mismatch that ends so, never one certain cause.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.generic import remember, runtime_failure
from kdiag.explain.sightings import (ADVERTISED, ANY, CONNECT, CONNECTION_CLOSED, GO, JAVA, LIBRDKAFKA, OTHER,
                                     PLAINTEXT_ON_TLS, SASL_CREDENTIALS, Fact, Item, Pattern, ScanState, Sighting,
                                     registrar, role_of)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("ruby_kafka.connection_eof", OTHER, "Connection error ",
         r"Connection error (?:EOFError: (?:EOFError|end of file reached)|Errno::EPIPE\b|IOError: closed stream)",
         "Failed to fetch metadata from kafka://kafka-1.example:9094: Connection error EOFError: end of file reached")
def _ruby_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    seed = re.search(r"kafka(?:\+ssl)?://(?P<host>[^\s:/]{1,255}):(?P<port>\d{1,5})", m.string[:m.start()])
    host, port = (seed.group("host"), int(seed.group("port"))) if seed else (None, None)
    yield Sighting(CONNECTION_CLOSED, OTHER, host, port, detail=m.group(0))


@pattern("no_kafka.closed", OTHER, "Kafka server has closed connection", r"Kafka server has closed connection",
         "{ [NoKafkaConnectionError: Kafka server has closed connection] name: 'NoKafkaConnectionError', server: "
         "'kafka-1.example:9092' }")
def _no_kafka_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, OTHER, detail=m.group(0))


@pattern("go.multierror_eof", GO, "EOF", r"(?:^|\s)\* (?:unexpected )?EOF\s*$", "\t* EOF")
def _multierror_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECTION_CLOSED, GO, detail=m.group(0).strip())


@pattern("kafka_protocol.ssl_hint", OTHER, "Make sure 'ssl' option is in client config",
         r"Make sure 'ssl' option is in client config",
         "Failed to connect to kafka-1.example:9092 Make sure 'ssl' option is in client config, or make sure "
         "connecting to 'SASL_PLAINTEXT://' listener")
def _kafka_protocol_ssl_hint(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    recent = scan.recent
    host, port = (recent[1], recent[2]) if recent is not None else (None, None)
    yield Sighting(PLAINTEXT_ON_TLS, OTHER, host, port, detail=m.group(0),
                   guess="Make sure 'ssl' option is in client config (kafka_protocol's hint: a TLS listener's bytes "
                         "read as a SASL answer)", alternatives=("SASL_AUTH_FAILED",))


_META = r'"?(?P<host>0\.0\.0\.0|\[?::\]?)"?'


@pattern("any.connect_meta_address", ANY, "onnect to ",
         rf"(?:[Cc]ould not|[Ff]ailed to|[Uu]nable to) connect to (?:broker )?(?:at )?{_META}:(?P<port>\d{{1,5}})",
         '15:53:49.546 [error] Could not connect to broker "0.0.0.0":9093')
def _connect_meta_address(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if runtime_failure(m.string[m.end():]) is not None:
        return  # the runtime's words say how it failed: ``generic`` reads the line whole
    host, port = m.group("host").strip("[]") or "::", int(m.group("port"))
    remember(scan, host, port)
    yield Fact("broker", host, port)
    yield Sighting(CONNECT, ANY, host, port, role=ADVERTISED, detail=m.group(0)[-120:])


# The Java client before 2.0 (NetworkClient): "Connection to node -1 could not be established. Broker may not be
# available." names no address: node -1 (any negative id) is a bootstrap connection, a positive one an advertised
# broker's; the line is the same refused or unroutable connect as the later format's (``java.connection_failed``).
@pattern("java.connection_failed_old", JAVA, "could not be established",
         r"Connection to node (?P<id>-?\d+) could not be established\. (?:Broker|Node) may not be available",
         "[2017-06-01 10:00:00,000] WARN Connection to node -1 could not be established. Broker may not be available. "
         "(org.apache.kafka.clients.NetworkClient)")
def _java_connection_failed_old(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    node_id = int(m.group("id"))
    yield Sighting(CONNECT, JAVA, node_id=node_id, role=role_of(node_id), status="refused",
                   detail="could not be established")


# The Java client 1.0 (NetworkClient, KAFKA-4764): "Connection to node -2 terminated during authentication. This may
# indicate that authentication failed due to invalid credentials." -- its own guess: a broker before 1.0 closes the
# connection on rejected credentials, and a TLS handshake cut short (a TLS client at a plaintext listener) ends in the
# same state. (Later releases list the reasons: ``java``.)
@pattern("java.terminated_invalid_credentials", JAVA, "may indicate that authentication failed",
         r"Connection to node (?P<id>-?\d+)(?: \((?P<host>[^/\s()]*)/(?P<addr>[^()\s]+):(?P<port>\d{1,5})\))? "
         r"terminated during authentication\. This may indicate that authentication failed due to invalid credentials",
         "WARN Connection to node -1 terminated during authentication. This may indicate that authentication failed "
         "due to invalid credentials. (org.apache.kafka.clients.NetworkClient)")
def _java_terminated_credentials(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    node_id = int(m.group("id"))
    host, port = (m.group("host") or m.group("addr"), int(m.group("port"))) if m.group("port") else (None, None)
    yield Sighting(SASL_CREDENTIALS, JAVA, host, port, node_id=node_id, role=role_of(node_id),
                   detail="terminated during authentication",
                   guess="terminated during authentication. This may indicate that authentication failed due to "
                         "invalid credentials", alternatives=("TLS_UNEXPECTED",))


# fluent-bit's out_kafka (plugins/out_kafka/kafka_config.c): flb_plg_error(ins, "cannot configure '%s' property", key)
# when librdkafka refuses a setting, and goes on with the rest. A librdkafka built without OpenSSL refuses
# security.protocol=ssl/sasl_ssl, so the client connects in plaintext, to the listener meant for TLS: likely.
@pattern("fluent_bit.security_protocol", LIBRDKAFKA, "cannot configure 'security.protocol' property",
         r"cannot configure 'security\.protocol' property",
         "[2026/11/26 10:00:00] [error] [out_kafka] cannot configure 'security.protocol' property")
def _fluent_bit_security_protocol(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(PLAINTEXT_ON_TLS, LIBRDKAFKA, detail=m.group(0),
                   guess="cannot configure 'security.protocol' property (fluent-bit goes on without it: in plaintext, "
                         "if its librdkafka was built without OpenSSL)", alternatives=("SASL_REQUIRED",))


# kafka-node's initializeBroker: the ApiVersions request, its first on a connection, failed other than by a timeout
# (which it reads as a broker before 0.10); its socket's close gives "Broker not available (socket closed)".
@pattern("kafka_node.api_versions_failed", OTHER, "ApiVersions failed with unexpected error",
         r"ApiVersions failed with unexpected error:?\s*(?P<why>BrokerNotAvailableError.*|.*socket closed.*)",
         "ApiVersions failed with unexpected error BrokerNotAvailableError: Broker not available (socket closed)")
def _kafka_node_api_versions(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(PLAINTEXT_ON_TLS, OTHER, detail=m.group(0)[:160],
                   guess="ApiVersions failed with unexpected error BrokerNotAvailableError (the broker hung up on the "
                         "first request)", alternatives=("BROKER_TOO_OLD",))


@pattern("kafka_node.sasl_closed", OTHER, "Broker closed connection during SASL auth",
         r"Broker closed connection during SASL auth: bad credentials\?",
         "SaslAuthenticationError: Broker closed connection during SASL auth: bad credentials?")
def _kafka_node_sasl_closed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, OTHER, detail=m.group(0), guess=m.group(0), alternatives=("TLS_EXPECTED",))
