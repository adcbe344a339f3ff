"""The own words of clients of no family that no runtime module reads whole: Rust's rskafka and kafka-rust,
Node's kafka-node, .NET's kafka-net. Their runtimes' socket words are ``generic``'s; here, what each library says
itself, from its source:

- rskafka (src/client/error.rs, src/connection.rs, src/messenger.rs, src/protocol/frame.rs): Kafka's codes as its
  ``ProtocolError`` variants (``Server error UnknownTopicOrPartition ...``, ``API error: SaslAuthenticationFailed``),
  ``unsupported sasl mechanism`` (the handshake's list lacks it), a frame over ``max_message_size`` whose length is a
  TLS record's first bytes, and rustls's certificate words;
- kafka-rust (src/error.rs, src/client/mod.rs): ``Kafka Error (UnknownTopicOrPartition)``, ``Topic Partition Error
  ("t", 0, LeaderNotAvailable)``, ``No host reachable``;
- kafka-node (lib/errors/*.js, lib/kafkaClient.js, lib/baseClient.js, lib/protocol/protocol.js);
- kafka-net (src/kafka-net/*.cs): its exceptions' messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.generic import RECENT_LINES, gave_up
from kdiag.explain.clients.kafka_errors import SPELLINGS
from kdiag.explain.clients.versions import gap
from kdiag.explain.sightings import (BOOTSTRAP, CERT_NAME, CERT_UNTRUSTED, CONNECT, NOT_KAFKA, NO_LEADER, OTHER,
                                     RESOLVE, SASL_MECHANISM, TLS_ON_PLAINTEXT, TOPIC_MISSING, UNKNOWN, Item, Pattern,
                                     ScanState, Sighting, registrar, size_sighting)
from kdiag.explain.tls_readings import hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# Kafka's codes as Rust enum variants (rskafka's ProtocolError, kafka-rust's KafkaCode): the code each is.
_VARIANTS = {"".join(word.capitalize() for word in code.split("_")): code for code in SPELLINGS}
_VARIANTS["NotLeaderForPartition"] = "NOT_LEADER_OR_FOLLOWER"


# rskafka: "Server error {code:?} with message ..., virtual: {bool}" (a virtual one the client made up itself) and
# "API error: {code:?}" (the SASL handshake's); kafka-rust: "Kafka Error ({code:?})", its Debug "Kafka({code:?})",
# and "Topic Partition Error ({topic:?}, {partition:?}, {code:?})". kafka-rust answers UnknownTopicOrPartition
# itself for a topic its metadata does not hold (client/mod.rs): likely, as ruby-kafka's.
_KAFKA_CODE = (rf'(?P<how>Server error |API error: |Kafka Error \(|Kafka\(|Topic Partition Error \("(?P<topic>[^"]{{1,249}})", '
               rf'(?P<partition>\d+), )(?P<code>{"|".join(_VARIANTS)})\b(?P<rest>[^\n]{{0,160}})')


def _kafka_code(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    code = _VARIANTS[m.group("code")]
    symptom = SPELLINGS[code][0]
    client_side = "virtual: true" in m.group("rest") or (m.group("how") in ("Kafka Error (", "Kafka(") and
                                                        symptom == TOPIC_MISSING)
    words = m.group(0)[:160]
    yield Sighting(symptom, OTHER, topic=m.group("topic"), mechanisms=() if code == "ILLEGAL_SASL_STATE" else None,
                   partition=int(m.group("partition")) if m.group("partition") else None,
                   detail=code if symptom == NO_LEADER else f"{code}: {words}",
                   guess=f"{words} (the client's lookup in the metadata it holds)" if client_side else None)


for _head in ("Server error ", "API error: ", "Kafka Error (", "Kafka(", "Topic Partition Error ("):
    pattern(f"rust.kafka_code.{len(PATTERNS)}", OTHER, _head, _KAFKA_CODE,
            f"Error: {_head}LeaderNotAvailable" if "Topic" not in _head else
            'Error: Topic Partition Error ("orders", 0, LeaderNotAvailable)')(_kafka_code)


# rskafka messenger.rs: SaslError::UnsupportedSaslMechanism when the handshake's list of enabled mechanisms lacks the
# client's.
@pattern("rskafka.unsupported_mechanism", OTHER, "unsupported sasl mechanism",
         r"Sasl handshake failed: unsupported sasl mechanism", 'Error: Connection error: error connecting to broker '
         '"b1.example:9093": Sasl handshake failed: unsupported sasl mechanism')
def _rskafka_unsupported_mechanism(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_MECHANISM, OTHER, detail=m.group(0))


# rskafka frame.rs: "Message too large, limit is {limit} bytes but got {actual} bytes". The length read as every
# client's bogus response size is (sightings.size_sighting): a TLS record's first bytes (a TLS listener answering
# plaintext), another protocol's text, or a real answer just over the limit (nothing said).
@pattern("rskafka.frame_too_large", OTHER, "Message too large, limit is ",
         r"Message too large, limit is (?P<limit>\d+) bytes but got (?P<size>\d{1,10}) bytes",
         "Cannot read framed message: Message too large, limit is 104857600 bytes but got 352518912 bytes")
def _rskafka_frame_too_large(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    sighting = size_sighting(Sighting(NOT_KAFKA, OTHER), int(m.group("size")), int(m.group("limit")))
    if sighting is not None:
        yield sighting


# rustls (rskafka's transport-tls): "invalid peer certificate: UnknownIssuer" / "NotValidForName" (rustls before
# 0.23.x prints the variant; later "certificate not valid for name ..."), and tokio-rustls's "tls handshake eof" when
# the peer hung up on the ClientHello, as a plaintext listener does: likely.
@pattern("rustls.peer_certificate", OTHER, "invalid peer certificate: ",
         r"invalid peer certificate: (?P<why>UnknownIssuer|NotValidForName|certificate not valid for name)",
         "IO Error: invalid peer certificate: UnknownIssuer")
def _rustls_peer_certificate(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CERT_UNTRUSTED if m.group("why") == "UnknownIssuer" else CERT_NAME, OTHER, detail=m.group(0))


@pattern("rustls.handshake_eof", OTHER, "tls handshake eof", r"\btls handshake eof\b",
         'error connecting to broker "b1.example:9092": IO Error: tls handshake eof')
def _rustls_handshake_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield hung_up_in_handshake(Sighting(TLS_ON_PLAINTEXT, OTHER, detail=m.group(0)), m.group(0))


# The give-ups: kafka-rust's Error::NoHostReachable as Display, kafka-node's connectToBrokers and its broker list,
# kafka-net's KafkaMetadataProvider.
for _words in ("No host reachable", "failed to connect to brokers", "Unable to find available brokers to try",
               "Unable to query for metadata from any of the default Kafka servers"):
    pattern(f"other.gave_up.{len(PATTERNS)}", OTHER, _words, rf"\b{re.escape(_words)}\b",
            f"Error: {_words}")(gave_up(_words))


# kafka-node TopicsNotExistError: "The topic(s) a,b do not exist" (the metadata answered UNKNOWN_TOPIC_OR_PARTITION).
@pattern("kafka_node.topics_not_exist", OTHER, "do not exist", r"The topic\(s\) (?P<topics>[\w.,-]{1,500}) do not exist",
         "TopicsNotExistError: The topic(s) orders do not exist")
def _kafka_node_topics(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for topic in m.group("topics").split(",")[:8]:
        yield Sighting(TOPIC_MISSING, OTHER, topic=topic, detail=m.group(0)[:160])


# kafka-node BrokerNotAvailableError('Could not find the leader'): no leader in the metadata it holds for the
# partition -- none elected, or the topic not in it at all.
@pattern("kafka_node.no_leader", OTHER, "Could not find the leader", r"BrokerNotAvailableError\W+Could not find the leader",
         "BrokerNotAvailableError: Could not find the leader")
def _kafka_node_no_leader(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_LEADER, OTHER, detail="LEADER_NOT_AVAILABLE", guess=m.group(0),
                   alternatives=("TOPIC_NOT_FOUND",))


# kafka-node protocol.js: SaslAuthenticationError(errorCode, 'Handshake failed.') -- the SaslHandshake answered
# UNSUPPORTED_SASL_MECHANISM or ILLEGAL_SASL_STATE, both one finding (``kafka_errors``); kafkaClient.js: 'Broker does
# not support SASL authentication' -- its ApiVersions lists no SaslHandshake: a broker before 0.10.
@pattern("kafka_node.sasl_handshake", OTHER, "SaslAuthenticationError", r"SaslAuthenticationError\W+Handshake failed\.",
         "SaslAuthenticationError: Handshake failed.")
def _kafka_node_sasl_handshake(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_MECHANISM, OTHER, detail=m.group(0))


@pattern("kafka_node.no_sasl", OTHER, "Broker does not support SASL authentication",
         r"Broker does not support SASL authentication", "SaslAuthenticationError: Broker does not support SASL "
         "authentication")
def _kafka_node_no_sasl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(OTHER, "SaslHandshake", m.group(0))


# kafka-node kafkaClient.js: TimeoutError(`Connection timeout of ${timeout}ms exceeded`) -- its connectTimeout, cleared
# on the socket's 'connect' (TCP). The endpoint is the one a line above named, if any.
@pattern("kafka_node.connect_timeout", OTHER, "Connection timeout of ", r"Connection timeout of \d+ms exceeded",
         "TimeoutError: Connection timeout of 10000ms exceeded")
def _kafka_node_connect_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = scan.recent_endpoint(RECENT_LINES) or (None, None)
    yield Sighting(CONNECT, OTHER, host, port, status="timeout", detail=m.group(0))


# kafka-net: BrokerRouter's "None of the provided Kafka servers are resolvable." (its bootstrap URIs) and
# LeaderNotFoundException's "Lead broker cannot be found for parition: 0, leader: -1" (sic).
@pattern("kafka_net.unresolvable", OTHER, "None of the provided Kafka servers are resolvable",
         r"None of the provided Kafka servers are resolvable", "KafkaNet.Protocol.ServerUnreachableException: None of "
         "the provided Kafka servers are resolvable.")
def _kafka_net_unresolvable(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(RESOLVE, OTHER, role=BOOTSTRAP, status="nxdomain", detail=m.group(0))


# kafka-net's (and its successor KafkaClient's) endpoint resolver: "Could not resolve the following hostname: {0}",
# raised for a bootstrap URI and for a broker of the metadata alike (an UnresolvedHostnameException, later a
# (Kafka)ConnectionException): the role is not in the words, so both readings, by the kind of host.
@pattern("kafka_net.hostname", OTHER, "Could not resolve the following hostname: ",
         r"Could not resolve the following hostname: (?P<host>[\w.-]+?)\.?(?:\s|$)",
         "KafkaNet.Protocol.UnresolvedHostnameException: Could not resolve the following hostname: kafka.example")
def _kafka_net_hostname(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(RESOLVE, OTHER, m.group("host"), scan.port_of(m.group("host")), role=UNKNOWN, status="nxdomain",
                   detail=m.group(0).strip())


@pattern("kafka_net.no_leader", OTHER, "Lead broker cannot be found for par",
         r"Lead broker cannot be found for par(?:t)?ition: (?P<partition>\d+), leader: -1",
         "KafkaNet.Protocol.LeaderNotFoundException: Lead broker cannot be found for parition: 0, leader: -1")
def _kafka_net_no_leader(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NO_LEADER, OTHER, partition=int(m.group("partition")), detail="LEADER_NOT_AVAILABLE")
