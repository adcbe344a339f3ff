"""The client and the broker share no version of a request (BROKER_TOO_OLD), in every client's words and the
broker's own: a broker older than the request a client sends (a consumer group against 0.8, ListOffsets v2 against
0.10, IncrementalAlterConfigs against 2.2), or a client older than what the broker still speaks.

Certain where an old broker's own log says it (``Wrong request type 16``, ``Error getting request for apiKey: 18 and
apiVersion: 2``). *Likely* where a client says it (the Java client's ``UnsupportedVersionException: The broker does
not support LIST_OFFSETS with version in range [2,5]. The supported range is [0,1].``, Kafka's error 35
UNSUPPORTED_VERSION in each spelling): a Kafka-compatible server that does not implement the request (Event Hubs,
Pulsar's KoP, Redpanda) says the same, and it is not too old. Likely too where a line only fits it among other causes
(librdkafka's ``Protocol parse failure``, a broker that cannot parse a request, kafka-python's
``IncompatibleBrokerVersion``); those name the other readings as ``alternatives``.

The detail of each sighting is ``"<API>: <the words>"`` (the API when the line names it, else ``a request``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (ANY, BROKER, GO, JAVA, KAFKA_PYTHON, LIBRDKAFKA, OTHER, VERSION_GAP, Item, Pattern,
                                     ScanState, Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# Kafka's API keys a version gap names by number (the protocol's table), for the broker's ``apiKey: 18``.
API_NAMES = {0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit", 9: "OffsetFetch",
             10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup",
             15: "DescribeGroups", 16: "ListGroups", 17: "SaslHandshake", 18: "ApiVersions", 19: "CreateTopics",
             20: "DeleteTopics", 22: "InitProducerId", 32: "DescribeConfigs", 33: "AlterConfigs",
             36: "SaslAuthenticate", 37: "CreatePartitions", 44: "IncrementalAlterConfigs"}

A_REQUEST = "a request"



def gap(client: str, api: str | None, words: str, **extra: object) -> Sighting:
    """A client's words are a likely reading (``guess``): a Kafka-compatible server (Event Hubs, Pulsar's KoP,
    Redpanda) that does not implement a request answers the same as an old broker. An old broker's own log is certain."""
    if client != BROKER:
        extra.setdefault("guess", words.strip()[:200])
    return Sighting(VERSION_GAP, client, detail=f"{api or A_REQUEST}: {words.strip()[:200]}", **extra)  # type: ignore[arg-type]


def _api_name(key: str | None) -> str | None:
    if key is None:
        return None
    return API_NAMES.get(int(key), f"API key {key}")


# --- the clients' own words ---------------------------------------------------------------------------------

# Java clients: NodeApiVersions.latestUsableVersion throws UnsupportedVersionException("The broker does not support "
# + apiKey + " with version in range [" + min + "," + max + "]. The supported range is [" + ... + "].") and, for an
# API the broker does not list at all, "The broker does not support " + apiKey (older releases: "The node does not
# support "). A listener that offers no METADATA (or no API_VERSIONS) is not an old broker but something else answering
# Kafka's ApiVersions, such as a KRaft controller's listener: likely, not certain.
@pattern("java.unsupported_version", JAVA, "does not support ",
         r"The (?:broker|node) does not support (?P<api>[A-Z][A-Z_]+[A-Z])\b(?: with version in range \[(?P<cmin>\d+),"
         r"(?P<cmax>\d+)\]\. The supported range is \[(?P<bmin>\d+),(?P<bmax>\d+)\])?",
         "org.apache.kafka.common.errors.UnsupportedVersionException: The broker does not support LIST_OFFSETS with "
         "version in range [2,5]. The supported range is [0,1].")
def _java_unsupported(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    api = m.group("api")
    if api in ("METADATA", "API_VERSIONS"):
        yield gap(JAVA, api, m.group(0), guess=f"{m.group(0)} (every broker since 0.8 speaks {api}: what answered is "
                   "likely not a broker's client listener, a KRaft controller's for one)")
        return
    yield gap(JAVA, api, m.group(0))


# Kafka's error 35, UNSUPPORTED_VERSION, as each client spells it: the protocol's name (franz-go, Java's metadata
# warnings), its text "The version of API is not supported." (Sarama's and kafkajs's messages), the exception classes
# (Java's UnsupportedVersionException, kafka-python's UnsupportedVersionError, ruby-kafka's Kafka::UnsupportedVersion),
# librdkafka's rd_kafka_err2str "Broker: Unsupported version", and kafka_protocol's atom (brod) unsupported_version.
for _needle in ("UNSUPPORTED_VERSION", "The version of API is not supported", "UnsupportedVersion",
                "Broker: Unsupported version", "unsupported_version"):
    @pattern(f"any.unsupported_version.{len(PATTERNS)}", ANY, _needle, re.escape(_needle) + r".{0,160}",
             {"UNSUPPORTED_VERSION": "err: UNSUPPORTED_VERSION: The version of API is not supported.",
              "The version of API is not supported": "kafka server: The version of API is not supported.",
              "UnsupportedVersion": "kafka.errors.UnsupportedVersionError: [Error 35] UnsupportedVersionError",
              "Broker: Unsupported version": "Failed to commit offsets: Broker: Unsupported version",
              "unsupported_version": "{error,unsupported_version}"}[_needle])
    def _unsupported(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        if "retry" not in m.string.lower():  # an ApiVersions v3 refused, retried at v0: the negotiation, not a gap
            yield gap(ANY, None, m.group(0))


def _words(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(ANY, None, m.group(0))


# franz-go broker.go: errBrokerTooOld, returned before sending a request the broker's ApiVersions did not list.
pattern("go.franz_broker_too_old", GO, "broker is too old",
        r"broker is too old; the broker has already indicated it will not know how to handle the request",
        "unable to describe producers: broker is too old; the broker has already indicated it will not know how to "
        "handle the request")(_words)


# Java's MemoryRecordsBuilder: "Magic v" + magic + " does not support record headers". The producer builds batches at
# the highest record format every broker's ApiVersions allows (Produce v3+: magic 2, Kafka 0.11), so magic 0 or 1 says
# a broker (or a server posing as one) speaks no Produce version that carries headers, and the records have headers.
@pattern("java.magic_headers", JAVA, "does not support record headers", r"Magic v[01] does not support record headers",
         "java.lang.IllegalArgumentException: Magic v1 does not support record headers")
def _java_magic_headers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(JAVA, "PRODUCE", m.group(0), guess=f"{m.group(0)} (record headers need Produce v3, Kafka 0.11)")


# Sarama's words for a broker that hung up on a request after the connection had served others (metadata, offsets):
# consumer.go's "consumer/broker/%d disconnecting due to error processing FetchRequest: %s", async_producer.go's
# "producer/broker/%d state change to [closing] because %s", and ConsumerError's "kafka: error while consuming %s/%d:
# %s". Sarama sends each request at the version config.Version implies, without asking the broker (V2_1_0 by default
# since 1.41: Fetch v10, Produce v7), and a server that does not speak that version (Azure Event Hubs, an older broker,
# a Kafka facade) closes the connection, hence EOF: likely. A broker restarting or a proxy cutting the connection ends
# the same way (BROKER_CLOSED_CONNECTION); a TLS or SASL mismatch would have failed the first request, not this one.
SARAMA_AFTER_USE = ("BROKER_CLOSED_CONNECTION",)
_ENDS = r'(?:\\n)?(?:"|\s*$)'  # the error is EOF alone: the line ends, or a logger's quoted msg="...EOF\n" does


@pattern("go.sarama_fetch_eof", GO, "due to error processing",
         r"consumer/broker/(?P<id>\d+) disconnecting due to error processing (?P<api>Fetch)Request: (?:unexpected )?EOF"
         rf"{_ENDS}", "[sarama] 2023/05/30 16:50:14 consumer/broker/0 disconnecting due to error processing FetchRequest: "
         "EOF")
@pattern("go.sarama_produce_eof", GO, "state change to [closing] because",
         rf"producer/broker/(?P<id>\d+) state change to \[closing\] because (?:unexpected )?EOF{_ENDS}",
         "[sarama] 2024/05/01 10:00:00 producer/broker/1 state change to [closing] because EOF")
@pattern("go.sarama_consuming_eof", GO, "error while consuming ",
         rf"kafka: error while consuming \S+/\d+: (?:unexpected )?EOF{_ENDS}",
         "2024/05/01 10:00:00 kafka: error while consuming orders/0: EOF")
def _sarama_request_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    api = m.groupdict().get("api") or ("Produce" if "producer/" in m.group(0) else "Fetch")
    node = m.groupdict().get("id")
    words = m.group(0).rstrip('"\\n ')
    yield gap(GO, api, words, node_id=int(node) if node else None, alternatives=SARAMA_AFTER_USE,
              guess=f"{words} (Sarama sends {api} at the version its config.Version names, unasked)")


# librdkafka before 1.0: "ApiVersionRequest failed: <err>: probably due to broker version < 0.10 (see api.version.request
# configuration)" (0.9.x: "... probably due to old broker version"): its own guess; a TLS listener read as plaintext
# ends the same (later releases say both).
@pattern("librdkafka.api_version_old_broker", LIBRDKAFKA, "probably due to ",
         r"probably due to (?:broker version < 0\.10|old broker version)", "%3|1480000000.000|FAIL|rdkafka#producer-1| "
         "b1.example:9092/"
         "bootstrap: ApiVersionRequest failed: Local: Broker transport failure: probably due to broker version < 0.10 "
         "(see api.version.request configuration)")
def _librdkafka_old_broker(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(LIBRDKAFKA, "ApiVersions", m.group(0), alternatives=("TLS_EXPECTED",))


# librdkafka rd_kafka_err2str(RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE): a feature the broker's ApiVersions lacks.
pattern("librdkafka.unsupported_feature", LIBRDKAFKA, "Required feature not supported by broker",
        r"Required feature not supported by broker", "Failed to create topics: Local: Required feature not supported "
        "by broker")(_words)


# librdkafka rdkafka_buf.h: "Protocol parse failure for %s v%hd%s at %d/%d (%s:%i) (incorrect broker.version.fallback?)"
# (older releases: "Protocol parse failure at %s:%d"): a response it could not read, what a request of a version the
# broker does not speak gets (broker.version.fallback, api.version.request) -- likely, not certain.
@pattern("librdkafka.protocol_parse", LIBRDKAFKA, "Protocol parse failure",
         r"Protocol parse failure(?: for (?P<api>\w+?)(?:Request)? v\d+)?",
         "%4|1716973405.627|PROTOERR|rdkafka#consumer-1| [thrd:b1.example:9092/0]: b1.example:9092/0: Protocol parse "
         "failure for Fetch v4 at 12/40 (rd_kafka_fetch_reply_handle:3218) (incorrect broker.version.fallback?)")
def _librdkafka_parse(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(LIBRDKAFKA, m.group("api"), m.group(0), guess=f"{m.group(0)} (a response the client could not read)")


# kafka-python/aiokafka: IncompatibleBrokerVersion("Kafka broker does not support the '{}' Kafka protocol.") when the
# versions known (from ApiVersions, or from the client's own api_version setting) lack the request: likely. (Its
# UnrecognizedBrokerVersion is not read here: against a TLS listener a plaintext kafka-python 2.x says just that.)
@pattern("python.incompatible_broker", KAFKA_PYTHON, "Kafka broker does not support the",
         r"Kafka broker does not support the '(?P<api>\w+?)(?:Request)?(?:_v\d+)?' Kafka protocol",
         "kafka.errors.IncompatibleBrokerVersion: IncompatibleBrokerVersion: Kafka broker does not support the "
         "'CreateTopicsRequest_v0' Kafka protocol.")
def _python_incompatible(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(KAFKA_PYTHON, m.group("api"), m.group(0), guess=f"{m.group(0)} (or the client's api_version setting "
               "names an older broker than the real one)")


# Elixir klife (connection/message_versions.ex): raise "Could not agree on API version for #{inspect(mod)} api_key
# #{api_key} for client #{client_name}."; the same words in any client that says "no common version".
_NO_COMMON = (r"(?:[Cc]ould not agree on API version for \S*?(?P<name>\w+) api_key (?P<key>\d+)|"
              r"\bno common (?:API |api )?version\b)")


def _no_common_version(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(OTHER, _api_name(m.group("key")), m.group(0))


for _needle in ("agree on API version", "common version", "common API version", "common api version"):
    pattern(f"other.no_common_version.{len(PATTERNS)}", OTHER, _needle, _NO_COMMON,
            "** (RuntimeError) Could not agree on API version for KlifeProtocol.Messages.Produce api_key 0 for client "
            "Elixir.MyApp.Client." if _needle.startswith("agree") else f"error: no {_needle} with the broker")(
        _no_common_version)


# rskafka src/messenger.rs: RequestError::NoVersionMatch "Cannot find matching version for: {api_key:?}" and
# SyncVersionsError::NoWorkingVersion "Did not found a version for ApiVersion that works with that broker".
def _rskafka_no_version(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(OTHER, m.group("api") or "ApiVersions", m.group(0))


for _needle, _example in (("Cannot find matching version for", "Error: Cannot find matching version for: Produce"),
                          ("Did not found a version for ApiVersion", "cannot sync versions: Did not found a version for "
                           "ApiVersion that works with that broker")):
    pattern(f"rust.no_version_match.{len(PATTERNS)}", OTHER, _needle,
            r"Cannot find matching version for: (?P<api>\w+)|Did not found a version for ApiVersion that works",
            _example)(_rskafka_no_version)


# --- the broker's own log, about a request it cannot read ------------------------------------------------------

# 0.8 kafka.api.RequestKeys.deserializerForKey: KafkaException("Wrong request type %d"); 0.9-0.10
# RequestChannel.Request: InvalidRequestException(s"Error getting request for apiKey: $apiKey and apiVersion:
# $apiVersion"). Both mean the broker does not know that request or version: certain.
@pattern("broker.wrong_request_type", BROKER, "Wrong request type", r"Wrong request type (?P<key>\d+)",
         "kafka.common.KafkaException: Wrong request type 16")
def _broker_wrong_type(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(BROKER, _api_name(m.group("key")), m.group(0))


@pattern("broker.unknown_api_version", BROKER, "Error getting request for apiKey",
         r"Error getting request for apiKey: ?(?P<key>\w+)(?: and|,) apiVersion: ?(?P<version>\d+)",
         "kafka.network.InvalidRequestException: Error getting request for apiKey: 18 and apiVersion: 2")
def _broker_unknown_version(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    key = m.group("key")
    yield gap(BROKER, _api_name(key) if key.isdigit() else key, m.group(0))


# Kafka 2.x-4.x RequestContext/KafkaApis: InvalidRequestException("Received request api key METADATA with version 13
# which is not enabled") (UnsupportedVersionException in some releases): a client newer, or older, than this broker.
@pattern("broker.version_not_enabled", BROKER, "which is not enabled",
         r"Received request (?:api key|for api with key) (?P<key>\w+)(?: \(\w+\))? (?:with|and unsupported) version "
         r"(?P<version>\d+)(?: which is not enabled)?",
         "org.apache.kafka.common.errors.InvalidRequestException: Received request api key METADATA with version 13 "
         "which is not enabled")
def _broker_not_enabled(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    key = m.group("key")
    yield gap(BROKER, _api_name(key) if key.isdigit() else key, m.group(0))


# A request the broker read past its end (Schema.read's SchemaException "Error reading field 'topics':
# java.nio.BufferUnderflowException"): most often a version of it the broker does not know -- likely, not certain.
@pattern("broker.request_parse", BROKER, "Error reading field",
         r"Error reading field '(?P<field>[\w-]+)': java\.nio\.BufferUnderflowException",
         "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'topics': "
         "java.nio.BufferUnderflowException")
def _broker_parse(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("field") in RESPONSE_FIELDS:  # a client reading an answer: java.response_parse
        return
    request = re.search(r"(\w+)Request(?:AndHeader)?\.(?:parse|readFrom)", m.string)
    yield gap(BROKER, request.group(1) if request else None, m.group(0),
               guess=f"{m.group(0)} (a request the broker could not read)")


# The Java client's side of the broker's BufferUnderflowException: a *response* read past its end, named by a field
# only responses have (Protocol.java's schemas: MetadataResponse's 'topic_metadata' and 'brokers', 'responses',
# 'api_versions', 'coordinator', ...): a broker of another release answered in another layout -- likely, not certain.
# (ArrayOf.read's words for the same, "Error reading array of size N", are java.array_parse's, either side.)
RESPONSE_FIELDS = frozenset({"topic_metadata", "brokers", "responses", "partition_responses", "api_versions",
                             "coordinator", "throttle_time_ms", "error_code", "enabled_mechanisms", "high_watermark",
                             "base_offset", "record_set", "group_protocol", "leader_id"})


@pattern("java.response_parse", JAVA, "Error reading field",
         r"Error reading field '(?P<field>\w+)': java\.nio\.BufferUnderflowException",
         "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'brokers': "
         "java.nio.BufferUnderflowException")
def _java_response_parse(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("field") in RESPONSE_FIELDS:
        yield gap(JAVA, None, m.group(0), guess=f"{m.group(0)} (a response the client could not read)")


# The Scala consumer's fetcher (kafka.server.AbstractFetcherThread, 0.8 to 0.10): warn("Error in fetch %s. Possible
# cause: %s".format(fetchRequest, t.toString)). A BufferUnderflowException there is the fetch response read past its
# end: laid out as an older version than the consumer asked for, a broker older than the client (a 0.9 consumer against
# 0.8.2) -- likely, not certain. Only the consumer's fetcher (ConsumerFetcherThread): a broker's ReplicaFetcherThread
# says the same of another broker, which is no client's version gap.
@pattern("java.old_consumer_fetch_underflow", JAVA, "Possible cause: java.nio.BufferUnderflowException",
         r"Error in fetch (?P<request>\S+?)\.? Possible cause: java\.nio\.BufferUnderflowException",
         "WARN  [ConsumerFetcherThread] Error in fetch kafka.consumer.ConsumerFetcherThread$FetchRequest@1b2c3d4e. "
         "Possible cause: java.nio.BufferUnderflowException")
def _old_consumer_fetch_underflow(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if "ConsumerFetcherThread" not in m.string or "ReplicaFetcherThread" in m.string:
        return
    yield gap(JAVA, "Fetch", m.group(0), guess=f"{m.group(0)} (a fetch response the consumer could not read)")


# A message Java's protocol reader ran out of bytes in (ArrayOf.read's SchemaException "Error reading array of size " +
# size + ", only " + remaining + " bytes available", wrapped by Schema.read in "Error reading field 'name': ..."): it is
# laid out as another version than the reader expects -- a client reading an older broker's answer (a Java client
# before 0.10.2 asks no versions first), or a broker reading a newer client's request. Likely, not certain.
@pattern("java.array_parse", JAVA, "Error reading array of size",
         r"(?:Error reading field '(?P<field>[\w-]+)': )?Error reading array of size -?\d+, only \d+ bytes available",
         "org.apache.kafka.common.protocol.types.SchemaException: Error reading field 'topic_metadata': Error reading "
         "array of size 3027513, only 100 bytes available")
def _java_array_parse(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(JAVA, None, m.group(0), guess=f"{m.group(0)} (a message laid out as another version than its reader "
              "expects)")
