"""A record, a batch or a fetch over a size limit, in every client's words: a produce the producer refused itself
(before sending), one the broker refused, a batch over the topic's log segment, a record the consumer cannot fetch
whole. None is a connectivity fault (the cluster takes records within the limits): the finding is ROUNDTRIP_FAILED,
and ``builders.sizes`` says which limit, on which side, and names its setting in the client's family.

The words, from the libraries' sources (each ``Words`` below names its own):

- the producer's own check, certain: the Java producer's ``The message is N bytes when serialized which is larger
  than M, which is the value of the max.request.size configuration.`` (KafkaProducer.ensureValidRecordSize; before
  2.x "... larger than the maximum request size you have configured with the max.request.size configuration.", and
  buffer.memory's twin), kafka-python's and aiokafka's ``... with the max_request_size configuration``, Sarama's
  ``Attempt to produce message larger than configured Producer.MaxMessageBytes: N > M`` (1.41+), franz-go's
  ``MESSAGE_TOO_LARGE: ... (uncompressed_bytes=N)`` (1.21+: a record over ProducerBatchMaxBytes or MaxBufferedBytes),
  kafka-go's ``MessageTooLargeError`` by its type (its Writer's BatchBytes), and log shippers' own: Beats 8.18+
  ``dropping message as it exceeds max_mesage_bytes``, fluent-plugin-kafka ``record size exceeds max_send_limit_bytes``;
- the broker's answer, certain: Kafka's MESSAGE_TOO_LARGE words (``The request included a message larger than the max
  message size the server will accept``: the Java client's Errors, kafkajs, franz-go 1.21+ with
  ``(uncompressed_bytes=N, compressed_bytes=M)``; franz-go before 1.21 returned the same words for its own check, so
  there and alone they name no side), the broker's own ``The record batch size in the append to t-0 is N bytes which exceeds the maximum configured value of
  M`` (UnifiedLog; the Java client passes it on since KIP-467), the code's names (``MESSAGE_TOO_LARGE``,
  kafka-python's ``[Error 10] MessageSizeTooLargeError``, Erlang's ``message_too_large``);
- the same words for both sides: librdkafka's ``Broker: Message size too large`` (MSG_SIZE_TOO_LARGE, which
  rd_kafka_msg_new returns itself for a message over the producer's message.max.bytes: node-rdkafka, .NET
  ``MsgSizeTooLarge``, Python ``KafkaError{code=MSG_SIZE_TOO_LARGE}``, rdkafka-ruby ``(msg_size_too_large)``,
  rust-rdkafka ``MessageSizeTooLarge``), Sarama's ErrMessageSizeTooLarge ``kafka server: Message was too large, server
  rejected it to avoid allocation error`` (before 1.41 also its own Producer.MaxMessageBytes check), segmentio's
  ``[10] Message Size Too Large: ...`` (also its Writer's own BatchBytes check, MessageTooLargeError, which printed
  by its type is the producer's own), the Java client's ``RecordTooLargeException`` alone, a library's
  ``MessageSizeTooLarge`` (lua-resty-kafka, kafka-node) or ``MessageTooLarge`` (rskafka), Beats' ``Kafka (topic=T):
  dropping too large message of size N.`` (on Sarama's ErrMessageSizeTooLarge);
- a batch over the topic's segment.bytes (RECORD_LIST_TOO_LARGE, 18) in each spelling;
- a consumer's fetch: librdkafka's ``Message at offset N might be too large to fetch, try increasing
  receive.message.max.bytes`` (before 1.0 ``is too large to fetch``) and its ``Invalid response size N (0..M)`` just
  over its limit (a real broker's answer: ``sightings.size_sighting``), the Java client's, kafka-python's and
  aiokafka's ``whose size is larger than the fetch size N`` (brokers before 0.10.1), Sarama's ``kafka: message is
  larger than Consumer.Fetch.Max`` (before: ``MaxFetchSize``) and ``message of length N too large or too small``
  (a response over sarama.MaxResponseSize), kafka-python 0.9's ``ConsumerFetchSizeTooSmall``.

Direction: a broker's own ``InvalidReceiveException: Invalid receive (size = N larger than M)`` is the broker reading
a request's first four bytes (``clients.broker``), not this class; and Sarama's ``message of length N`` whose four
bytes are a TLS record or text is a foreign answer, read as such here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kdiag.explain.sightings import (ANY, GO, JAVA, KAFKA_PYTHON, KAFKAJS, LIBRDKAFKA, NOT_KAFKA, OTHER, TOO_LARGE,
                                     Item, Pattern, ScanState, Sighting, registrar, size_sighting)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

# Which limit the words name.
PRODUCER = "producer"  # the producer's own setting refused the record before sending it
BROKER = "broker"  # the broker refused it: message.max.bytes, or the topic's max.message.bytes
EITHER = "either"  # the same words for the producer's own check and the broker's answer
SEGMENT = "segment"  # the broker refused a batch larger than the topic's segment.bytes
FETCH = "fetch"  # a consumer cannot fetch a record (or a response) that large
KINDS = (PRODUCER, BROKER, SEGMENT, FETCH, EITHER)  # the most specific first: a paste's finding takes the first

# The client families whose settings a fix names.
FAMILY_CLIENT = {"java": JAVA, "librdkafka": LIBRDKAFKA, "sarama": GO, "segmentio": GO, "franz-go": GO,
                 "kafkajs": KAFKAJS, "kafka-python": KAFKA_PYTHON, "erlang": OTHER, "beats": GO, "fluentd": OTHER,
                 "other": ANY}


@dataclass(frozen=True)
class Limit:
    """What a line says about a size limit: which one, in which family's words, and the numbers it gives."""

    kind: str
    family: str
    size: int | None = None  # the record's, batch's or response's size in bytes
    limit: int | None = None  # the limit it went over
    setting: str | None = None  # the setting the line names (max.request.size, max_request_size, buffer.memory)
    topic: str | None = None


@dataclass(frozen=True)
class Words:
    needle: str
    regex: str
    kind: str
    family: Callable[[str], str]  # the family, from the whole line
    example: str
    shared: bool = False  # Kafka's MESSAGE_TOO_LARGE words, which some producers return for their own check too


def _always(family: str) -> Callable[[str], str]:
    return lambda line: family


def _serialized_family(line: str) -> str:
    return "kafka-python" if "max_request_size" in line or "buffer_memory" in line else "java"


def _fetch_size_family(line: str) -> str:
    return "kafka-python" if "max_partition_fetch_bytes" in line or "cannot be ever returned" in line else "java"


def _server_words_family(line: str) -> str:
    """Kafka's MESSAGE_TOO_LARGE words: kafkajs's and the Java client's are the broker's answer; franz-go before 1.21
    returned them for its own ProducerBatchMaxBytes check too (``MESSAGE_TOO_LARGE: ...``); alone, whose is not said."""
    if "MESSAGE_TOO_LARGE:" in line:
        return "franz-go"
    if "KafkaJS" in line:
        return "kafkajs"
    return "java" if re.search(r"org\.apache\.kafka|Exception\b|\bError: MESSAGE_TOO_LARGE", line) else "other"


# Families whose producer returns the broker's words for its own check too: their words name no side.
_OWN_CHECK_IN_BROKER_WORDS = ("franz-go", "other")


def _segment_family(line: str) -> str:
    return ("librdkafka" if "Broker: Message batch" in line else "sarama" if "kafka server:" in line else
            "franz-go" if "RECORD_LIST_TOO_LARGE:" in line else "kafkajs" if "KafkaJS" in line else
            "segmentio" if "Record List Too Large" in line else
            "kafka-python" if "RecordListTooLargeError" in line else "java")


_TOPIC_PARTITION = r"(?P<topic>[\w.-]{1,249}?)-\d+"
WORDS: tuple[Words, ...] = (
    # The producer's own check.
    Words("when serialized", r"The message is (?P<size>\d+) bytes when serialized which is larger than (?:(?P<limit>\d+), "
          r"which is the value of the |the maximum request size you have configured with the |the total memory buffer "
          r"you have configured with the )(?P<setting>max[._]request[._]size|buffer[._]memory)", PRODUCER,
          _serialized_family, "org.apache.kafka.common.errors.RecordTooLargeException: The message is 1430798 bytes when "
          "serialized which is larger than 1048576, which is the value of the max.request.size configuration."),
    Words("Producer.MaxMessageBytes", r"Attempt to produce message larger than configured Producer\.MaxMessageBytes"
          r"(?:: (?P<size>\d+) > (?P<limit>\d+))?", PRODUCER, _always("sarama"), "kafka: invalid configuration "
          "(Attempt to produce message larger than configured Producer.MaxMessageBytes: 1048600 > 1048576)"),
    Words("uncompressed_bytes=", r"MESSAGE_TOO_LARGE\b.{0,200}?\(uncompressed_bytes=(?P<size>\d+)\)", PRODUCER,
          _always("franz-go"), "MESSAGE_TOO_LARGE: The request included a message larger than the max message size the "
          "server will accept (uncompressed_bytes=1400000)"),
    # franz-go 1.21+: the broker's answer with the batch's sizes (sink.go)
    Words("uncompressed_bytes=", r"MESSAGE_TOO_LARGE\b.{0,200}?\(uncompressed_bytes=\d+, compressed_bytes=(?P<size>\d+)\)",
          BROKER, _always("franz-go"), "MESSAGE_TOO_LARGE: The request included a message larger than the max message "
          "size the server will accept (uncompressed_bytes=1400000, compressed_bytes=1200000)"),
    # log shippers' own checks: Beats' Kafka output 8.18+ (libbeat client.go, its max_message_bytes, the key misspelt
    # in the line until fixed), fluent-plugin-kafka's max_send_limit_bytes
    Words("as it exceeds max_mes", r"dropping message as it exceeds max_mes?sage_bytes", PRODUCER, _always("beats"),
          "Kafka (topic=logs): dropping message as it exceeds max_mesage_bytes"),
    Words("exceeds max_send_limit_bytes", r"record size exceeds (?P<setting>max_send_limit_bytes)", PRODUCER,
          _always("fluentd"), "[warn]: #0 record size exceeds max_send_limit_bytes. Skip event: time=1700000000"),
    Words("MessageTooLargeError", r"\bMessageTooLargeError\b", PRODUCER, _always("segmentio"),
          "kafka.MessageTooLargeError{Message:kafka.Message{Topic:\"logs\"}}"),
    # A consumer's fetch.
    Words("too large to fetch", r"(?:might be|is) too large to fetch", FETCH, _always("librdkafka"),
          'KafkaError{code=MSG_SIZE_TOO_LARGE,val=10,str="Message at offset 42 might be too large to fetch, try '
          'increasing receive.message.max.bytes"}'),
    Words("larger than the fetch size", r"whose size is larger than the fetch size (?P<limit>\d+)", FETCH,
          _fetch_size_family, "org.apache.kafka.common.errors.RecordTooLargeException: There are some messages at "
          "[Partition=Offset]: {orders-0=1234} whose size is larger than the fetch size 1048576 and hence cannot be "
          "returned."),
    Words("Fetch.Max", r"message is larger than Consumer\.Fetch\.Max", FETCH, _always("sarama"),
          "kafka: message is larger than Consumer.Fetch.Max"),
    Words("MaxFetchSize", r"Message is larger than MaxFetchSize", FETCH, _always("sarama"),
          "kafka: Message is larger than MaxFetchSize"),
    Words("FetchSizeTooSmall", r"\bConsumerFetchSizeTooSmall\b", FETCH, _always("kafka-python"),
          "    raise ConsumerFetchSizeTooSmall()"),
    Words("RecordTooLargeError", r"\bRecordTooLargeError\b", FETCH, _always("kafka-python"),
          "kafka.errors.RecordTooLargeError: [Error -1] RecordTooLargeError"),
    # A batch over the topic's log segment (RECORD_LIST_TOO_LARGE).
    Words("segment size", r"message batch larger than the configured segment size|Message batch larger than configured "
          r"server segment size|exceeds the maximum configured segment size", SEGMENT, _segment_family,
          "kafka server: The request included message batch larger than the configured segment size on the server"),
    Words("RECORD_LIST_TOO_LARGE", r"\bRECORD_LIST_TOO_LARGE\b", SEGMENT, _segment_family,
          "Error: RECORD_LIST_TOO_LARGE"),
    Words("Record List Too Large", r"Record List Too Large", SEGMENT, _always("segmentio"),
          "[18] Record List Too Large: a message batch in a produce request exceeds the maximum configured segment size"),
    Words("RecordListTooLarge", r"\bRecordListTooLarge(?:Error)?\b", SEGMENT, _segment_family,
          "kafka.errors.RecordListTooLargeError: [Error 18] RecordListTooLargeError"),
    Words("RecordBatchTooLarge", r"\bRecordBatchTooLargeException\b", SEGMENT, _always("java"),
          "org.apache.kafka.common.errors.RecordBatchTooLargeException"),
    # The broker's answer.
    Words("exceeds the maximum configured", r"The record batch size in the append to " + _TOPIC_PARTITION +
          r" is (?P<size>\d+) bytes which exceeds the maximum configured value of (?P<limit>\d+)", BROKER,
          _always("java"), "org.apache.kafka.common.errors.RecordTooLargeException: The record batch size in the "
          "append to orders-0 is 2000000 bytes which exceeds the maximum configured value of 1048588."),
    Words("exceeds the maximum configured", r"Message batch size is (?P<size>\d+) bytes in append to ?partition "
          + _TOPIC_PARTITION + r" which exceeds the maximum configured size of (?P<limit>\d+)", BROKER, _always("java"),
          "RecordTooLargeException: Message batch size is 2000000 bytes in append topartition orders-0 which exceeds "
          "the maximum configured size of 1048588."),
    Words("the server will accept", r"larger than the max message size the server will accept", BROKER,
          _server_words_family, "KafkaJSProtocolError: The request included a message larger than the max message "
          "size the server will accept", shared=True),
    Words("MESSAGE_TOO_LARGE", r"\bMESSAGE_TOO_LARGE\b", BROKER, _server_words_family,
          "[Producer clientId=producer-1] Got error produce response in correlation id 12 on topic-partition orders-0, "
          "splitting and retrying (2147483647 attempts left). Error: MESSAGE_TOO_LARGE", shared=True),
    Words("MESSAGE_SIZE_TOO_LARGE", r"\bMESSAGE_SIZE_TOO_LARGE\b", BROKER, _always("kafka-python"),
          "KafkaError: MESSAGE_SIZE_TOO_LARGE"),
    Words("[Error 10] ", r"\[Error 10\] MessageSizeTooLargeError", BROKER, _always("kafka-python"),
          "kafka.errors.MessageSizeTooLargeError: [Error 10] MessageSizeTooLargeError"),
    Words("message_too_large", r"\bmessage_too_large\b", BROKER, _always("erlang"),  # kafka_protocol's atom
          "{error,message_too_large}"),
    # The same words for the producer's own check and the broker's answer.
    Words("Message size too large", r"Message size too large", EITHER, _always("librdkafka"),
          "Error: Broker: Message size too large"),
    Words("MSG_SIZE_TOO_LARGE", r"\bMSG_SIZE_TOO_LARGE\b", EITHER, _always("librdkafka"),
          'cimpl.KafkaException: KafkaError{code=MSG_SIZE_TOO_LARGE,val=10,str="Unable to produce message: Broker: '
          'Message size too large"}'),
    Words("msg_size_too_large", r"\(msg_size_too_large\)", EITHER, _always("librdkafka"),
          "Rdkafka::RdkafkaError: Broker: Message size too large (msg_size_too_large)"),
    Words("MsgSizeTooLarge", r"\bMsgSizeTooLarge\b", EITHER, _always("librdkafka"),
          "Confluent.Kafka.ProduceException`2[System.String,System.String]: ErrorCode.MsgSizeTooLarge"),
    # Beats' Kafka output on Sarama's ErrMessageSizeTooLarge (libbeat outputs/kafka/client.go)
    Words("dropping too large message", r"(?:Kafka \(topic=(?P<topic>[^)\s]{1,249})\): )?dropping too large message of "
          r"size (?P<size>\d+)", EITHER, _always("beats"), "ERROR\tkafka/client.go:233\tKafka (topic=was_system_out): "
          "dropping too large message of size 666."),
    Words("Message was too large", r"Message was too large, server rejected it to avoid allocation error", EITHER,
          _always("sarama"), "kafka server: Message was too large, server rejected it to avoid allocation error."),
    Words("Message Size Too Large", r"Message Size Too Large", EITHER, _always("segmentio"),
          "panic: permanent error on Kafka side [10] Message Size Too Large"),
    Words("RecordTooLargeException", r"\bRecordTooLargeException\b", EITHER, _always("java"),
          "org.apache.kafka.common.errors.RecordTooLargeException"),
    Words("MessageSizeTooLarge", r"\bMessageSizeTooLarge(?:Error)?\b", EITHER, _always("other"),
          "producer.lua:258: buffered messages send to kafka err: MessageSizeTooLarge, retryable: false"),
    Words("MessageTooLarge", r"\bMessageTooLarge\b", EITHER, _always("other"),  # rskafka's ProtocolError
          "ServerError { protocol_error: MessageTooLarge, error_message: None }"),
)
_COMPILED = tuple((words, re.compile(words.regex)) for words in WORDS)


def _int(m: re.Match[str], name: str) -> int | None:
    value = m.groupdict().get(name)
    return int(value) if value else None


def limit_of(line: str) -> Limit | None:
    """The most specific size limit ``line`` names (the first of ``WORDS`` that reads it), or None."""
    for words, regex in _COMPILED:
        if words.needle not in line:
            continue
        m = regex.search(line)
        if m is not None:
            setting, family = m.groupdict().get("setting"), words.family(line)
            kind = EITHER if words.shared and family in _OWN_CHECK_IN_BROKER_WORDS else words.kind
            return Limit(kind, family, _int(m, "size"), _int(m, "limit"), setting,
                         m.groupdict().get("topic"))
    return None


def _too_large(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    limit = limit_of(m.string)
    if limit is not None:
        yield Sighting(TOO_LARGE, FAMILY_CLIENT[limit.family], topic=limit.topic,
                       detail=f"{limit.kind}: {m.string[m.start():m.start() + 160].strip()}")


for _words in WORDS:
    pattern(f"any.too_large.{len(PATTERNS)}", ANY, _words.needle, _words.regex, _words.example)(_too_large)


# A response over the client's own limit: a real broker's answer just over it is a fetch too large for the consumer's
# settings; bytes that are not a Kafka frame (a TLS record, text) are a foreign answer (``size_sighting``).
@pattern("librdkafka.response_over_limit", LIBRDKAFKA, "Invalid response size",
         r"Invalid response size (?P<size>-?\d+) \(0\.\.(?P<limit>\d+)\)",
         "%3|1514941148.962|FAIL|rdkafka#consumer-1| [thrd:172.20.51.38:9092/bootstrap]: 172.20.51.38:9092/1: Receive "
         "failed: Invalid response size 100000039 (0..100000000): increase receive.message.max.bytes")
def _rd_response_over_limit(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    size, limit = int(m.group("size")), int(m.group("limit"))
    if size_sighting(Sighting(NOT_KAFKA, LIBRDKAFKA), size, limit) is None:  # else librdkafka's own pattern reads it
        yield Sighting(TOO_LARGE, LIBRDKAFKA, detail=f"{FETCH}: response size {size} over receive.message.max.bytes "
                       f"{limit}")


SARAMA_MAX_RESPONSE = 100 * 1024 * 1024
"""sarama.MaxResponseSize's default: a response longer than this is refused as ``too large``."""


@pattern("go.sarama_response_length", GO, "too large or too small",
         r"message of length (?P<size>-?\d+) too large or too small",
         "consumer/broker/1 disconnecting due to error processing FetchRequest: kafka: error decoding packet: message "
         "of length 104857903 too large or too small")
def _sarama_response_length(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    size = int(m.group("size"))
    first = (size & 0xFFFFFFFF).to_bytes(4, "big")
    if 0 < size and first[0] < 0x15:  # a Kafka frame's length over MaxResponseSize: a fetch grown that large
        if size > SARAMA_MAX_RESPONSE:
            yield Sighting(TOO_LARGE, GO, detail=f"{FETCH}: response length {size} over sarama.MaxResponseSize")
        return
    foreign = size_sighting(Sighting(NOT_KAFKA, GO), size)  # a TLS record's or a text protocol's first bytes
    if foreign is not None:
        yield foreign
