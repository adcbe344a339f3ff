"""librdkafka's error codes as its bindings surface them, when the paste holds the exception and not librdkafka's
log: the error string (``rd_kafka_err2str``, src/rdkafka.c: ``Local: Host resolution failure``) that
confluent-kafka-dotnet's ``KafkaException``, node-rdkafka's ``Error`` (``code: -193``), php-rdkafka's
``RdKafka\\Exception`` and confluent-kafka-python's ``KafkaError{...,str="..."}`` carry; rdkafka-ruby's
``RdkafkaError`` adds the code's name in parentheses (``(resolve)``, lib/rdkafka/error.rb); rust-rdkafka's
``RDKafkaErrorCode`` names it in CamelCase (``BrokerTransportFailure``, src/error.rs).

None of these names an address: a name that did not resolve gives both readings (bootstrap or advertised), a
transport failure is the client giving up (with the readings its bootstrap list allows), a TLS error with no
reason is a TLS reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (ALL_DOWN, JAVA, LIBRDKAFKA, RESOLVE, SASL_CREDENTIALS, TLS_FAILED, TOPIC_MISSING,
                                     UNKNOWN, Item, Pattern, ScanState, Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("librdkafka.err_resolve", LIBRDKAFKA, "Host resolution failure",
         r"Local: Host resolution failure|HostResolutionFailure", "Confluent.Kafka.KafkaException: Local: Host "
         "resolution failure")
@pattern("librdkafka.err_resolve_ruby", LIBRDKAFKA, "(resolve)", r"\(resolve\)",
         "Rdkafka::RdkafkaError: Local: Host resolution failure (resolve)")
def _err_resolve(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(RESOLVE, LIBRDKAFKA, role=UNKNOWN, status="nxdomain", detail="Local: Host resolution failure")


@pattern("librdkafka.err_transport", LIBRDKAFKA, "ransport failure",
         r"Local: Broker transport failure|\(transport\)",
         "PHP Fatal error:  Uncaught RdKafka\\Exception: Local: Broker transport failure in /app/consumer.php:12")
@pattern("librdkafka.err_transport_rust", LIBRDKAFKA, "TransportFailure", r"\bBrokerTransportFailure\b",
         "KafkaError (Message consumption error: BrokerTransportFailure (Local: Broker transport failure))")
@pattern("librdkafka.err_all_down_rust", LIBRDKAFKA, "AllBrokersDown", r"\bAllBrokersDown\b",
         "KafkaError (Message consumption error: AllBrokersDown)")
def _err_transport(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    up = _METADATA_REQUEST.search(m.string)  # rd_kafka_metadata(): no broker came up within its timeout
    yield Sighting(ALL_DOWN, LIBRDKAFKA, detail=NO_BROKER_UP if up else m.group(0))


# rd_kafka_metadata() (src/rdkafka_metadata.c) returns _TRANSPORT when rd_kafka_broker_any_usable() found no broker up
# within the call's timeout: none connected (and logged in). kcat words it "Failed to acquire metadata" (-L) and "Failed
# to query metadata for topic t", confluent-kafka-python's list_topics() "Failed to get metadata". Alone, "Local: Broker
# transport failure" is one connection's failure (the error callback's, once per failed or closed connection).
_METADATA_REQUEST = re.compile(r"Failed to (?:acquire|query|get) metadata\b[^:]*: Local: Broker transport failure")
NO_BROKER_UP = "no broker up for a metadata request"


@pattern("librdkafka.err_ssl", LIBRDKAFKA, "Local: SSL error", r"Local: SSL error",
         "Confluent.Kafka.KafkaException: Local: SSL error")
def _err_ssl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TLS_FAILED, LIBRDKAFKA, detail="Local: SSL error", guess="Local: SSL error (no reason given)")


@pattern("librdkafka.err_sasl", LIBRDKAFKA, "Broker: SASL ", r"Broker: SASL [Aa]uthentication failed",
         "Confluent.Kafka.KafkaException: Broker: SASL authentication failed")
@pattern("librdkafka.err_sasl_name", LIBRDKAFKA, "SaslAuthenticationFailed", r"\bSaslAuthenticationFailed\b",
         "KafkaError (Client creation error: SaslAuthenticationFailed)")
def _err_sasl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, LIBRDKAFKA, detail=m.group(0))


# Kafka Streams (MissingSourceTopicException, streams/errors) and Kafka Connect's worker at start
# (ConnectUtils.lookupKafkaClusterId: it asks the cluster for its id through an Admin client and gives up).
@pattern("streams.missing_source_topic", JAVA, "MissingSourceTopicException",
         r"MissingSourceTopicException(?::\s*(?P<why>.*))?",
         "org.apache.kafka.streams.errors.MissingSourceTopicException: One or more source topics were missing during "
         "rebalance")
def _streams_missing_source_topic(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TOPIC_MISSING, JAVA, detail=(m.group("why") or "a source topic is missing")[:200])


@pattern("connect.describe_cluster", JAVA, "Failed to connect to and describe Kafka cluster",
         r"Failed to connect to and describe Kafka cluster",
         "org.apache.kafka.connect.errors.ConnectException: Failed to connect to and describe Kafka cluster. Check "
         "worker's broker connection and security properties.")
def _connect_describe_cluster(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(ALL_DOWN, JAVA, detail="Failed to connect to and describe Kafka cluster")
