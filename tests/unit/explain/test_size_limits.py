"""A record, a batch or a fetch over a size limit, in every client's words: ROUNDTRIP_FAILED (a warning: a size
setting, not the path), with the limit's side and its setting in the client's family. Each line is the library's own
format string (its source), not a pasted case's line; the direction guard keeps the broker's own size words apart."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only


def size_finding(text: str):
    finding = only(explained(text), "ROUNDTRIP_FAILED")
    assert finding.severity == "warning" and ids(explained(text)) == ["ROUNDTRIP_FAILED"], ids(explained(text))
    return finding


# --- the producer's own check: certain, and its setting named -------------------------------------------------

@pytest.mark.parametrize("line, setting", [
    # KafkaProducer.ensureValidRecordSize, 2.x on, and before
    ("org.apache.kafka.common.errors.RecordTooLargeException: The message is 5565219 bytes when serialized which is "
     "larger than 1048576, which is the value of the max.request.size configuration.", "max.request.size"),
    ("org.apache.kafka.common.errors.RecordTooLargeException: The message is 75017198 bytes when serialized which is "
     "larger than the maximum request size you have configured with the max.request.size configuration.",
     "max.request.size"),
    ("RecordTooLargeException: The message is 40000000 bytes when serialized which is larger than the total memory "
     "buffer you have configured with the buffer.memory configuration.", "buffer.memory"),
    # kafka-python's and aiokafka's _ensure_valid_record_size
    ("kafka.errors.MessageSizeTooLargeError: [Error 10] MessageSizeTooLargeError: The message is 13561908 bytes when "
     "serialized which is larger than the maximum request size you have configured with the max_request_size "
     "configuration", "max_request_size"),
])
def test_the_producers_own_check_names_its_setting(line, setting):
    finding = size_finding(line)
    assert finding.evidence["limit"] == "producer" and finding.evidence["setting"] == setting
    assert f"producer's own {setting}" in finding.title
    assert "never saw it" in finding.explanation and setting in finding.fix and "message.max.bytes" in finding.fix


def test_the_java_producers_numbers_are_read_and_the_fix_suggests_the_next_mebibyte():
    finding = size_finding("The message is 1430798 bytes when serialized which is larger than 1048576, which is the "
                           "value of the max.request.size configuration.")
    assert (finding.evidence["size"], finding.evidence["max_bytes"]) == (1430798, 1048576)
    assert "max.message.bytes=2097152" in finding.fix
    assert "producer.override.max.request.size" in finding.fix  # a Connect connector's own producer setting


def test_saramas_own_check_since_1_41_names_producer_max_message_bytes():
    # async_producer.go: ConfigurationError(fmt.Sprintf("Attempt to produce message larger than configured
    # Producer.MaxMessageBytes: %d > %d", ...)); ConfigurationError.Error() wraps it in "kafka: invalid configuration (...)"
    finding = size_finding("kafka: Failed to produce message to topic logs: kafka: invalid configuration (Attempt to "
                           "produce message larger than configured Producer.MaxMessageBytes: 1048600 > 1048576)")
    assert finding.evidence["limit"] == "producer" and "Producer.MaxMessageBytes" in finding.title
    assert finding.evidence["size"] == 1048600


@pytest.mark.parametrize("line, setting", [
    ("2025-06-03T10:00:00.000Z\tERROR\tkafka/client.go:240\tKafka (topic=logs): dropping message as it exceeds "
     "max_mesage_bytes", "output.kafka.max_message_bytes"),  # Beats 8.18+, the key misspelt in its line
    ("2024-12-23 10:00:00 +0000 [warn]: #0 record size exceeds max_send_limit_bytes. Skip event: time=1734948000",
     "max_send_limit_bytes"),  # fluent-plugin-kafka
])
def test_a_log_shippers_own_check_is_the_producers(line, setting):
    finding = size_finding(line)
    assert finding.evidence["limit"] == "producer" and setting in finding.title


def test_beats_dropping_a_too_large_message_names_its_topic_and_both_sides():
    finding = size_finding("2018-10-27T13:28:45.322+0800\tERROR\tkafka/client.go:233\tKafka (topic=was_system_out): "
                           "dropping too large message of size 666.")
    assert finding.evidence["limit"] == "either" and finding.evidence["topic"] == "was_system_out"
    assert "output.kafka.max_message_bytes" in finding.title and "--entity-name was_system_out" in finding.fix


def test_franz_gos_record_over_its_batch_max_is_the_producers_own():
    # pkg/kgo/producer.go and sink.go: fmt.Errorf("%w (uncompressed_bytes=%d)", kerr.MessageTooLarge, size)
    finding = size_finding("MESSAGE_TOO_LARGE: The request included a message larger than the max message size the "
                           "server will accept (uncompressed_bytes=1400000)")
    assert finding.evidence["limit"] == "producer" and "ProducerBatchMaxBytes" in finding.title


# --- the broker's answer: certain -----------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # Errors.MESSAGE_TOO_LARGE's message (the Java client), kafkajs's error.js, franz-go's kerr (no uncompressed_bytes)
    "org.apache.kafka.common.errors.RecordTooLargeException: The request included a message larger than the max "
    "message size the server will accept.",
    "KafkaJSProtocolError: The request included a message larger than the max message size the server will accept",
    "MESSAGE_TOO_LARGE: The request included a message larger than the max message size the server will accept "
    "(uncompressed_bytes=1400000, compressed_bytes=1200000)",  # franz-go 1.21+ (sink.go)
    # the Java producer splitting a batch the broker refused (Sender)
    "[Producer clientId=producer-1] Got error produce response in correlation id 12 on topic-partition orders-0, "
    "splitting and retrying (2147483647 attempts left). Error: MESSAGE_TOO_LARGE",
    # kafka-python's BrokerResponseError str(): "[Error 10] MessageSizeTooLargeError"
    "kafka.errors.MessageSizeTooLargeError: [Error 10] MessageSizeTooLargeError",
    # kafka_protocol's error atom (brod)
    "{error,message_too_large}",
])
def test_the_brokers_answer_names_the_topics_limit(line):
    finding = size_finding(line)
    assert finding.evidence["limit"] == "broker"
    assert "max.message.bytes" in finding.title and "message.max.bytes" in finding.explanation
    assert "kafka-configs.sh" in finding.fix and "--add-config max.message.bytes=" in finding.fix


def test_the_brokers_own_append_words_name_the_topic_and_the_numbers():
    # UnifiedLog: "The record batch size in the append to $topicPartition is $batchSize bytes which exceeds the maximum
    # configured value of ${config.maxMessageSize}." (the Java client passes it on since KIP-467)
    finding = size_finding("org.apache.kafka.common.errors.RecordTooLargeException: The record batch size in the "
                           "append to orders.v2-3 is 2000000 bytes which exceeds the maximum configured value of 1048588.")
    assert finding.evidence["topic"] == "orders.v2" and finding.evidence["size"] == 2000000
    assert "orders.v2's max.message.bytes" in finding.title and "--entity-name orders.v2" in finding.fix


def test_kafka_gos_writer_refusing_a_message_over_batch_bytes_is_the_producers_own():
    # writer.go: WriteMessages returns MessageTooLargeError for a message over Writer.BatchBytes, before sending
    finding = size_finding("write failed: kafka.MessageTooLargeError{Message:kafka.Message{Topic:\"logs\"}}")
    assert finding.evidence["limit"] == "producer" and "Writer.BatchBytes" in finding.title


def test_kafkajs_has_no_limit_of_its_own_so_the_batch_is_what_to_split():
    finding = size_finding("KafkaJSProtocolError: The request included a message larger than the max message size the "
                           "server will accept")
    assert "kafkajs has no limit of its own" in finding.explanation


# --- the same words for both sides: which side is not said --------------------------------------------------

@pytest.mark.parametrize("line, setting", [
    # librdkafka's rd_kafka_err2str(MSG_SIZE_TOO_LARGE), which rd_kafka_msg_new returns itself over message.max.bytes
    ("Error: Broker: Message size too large", "message.max.bytes"),
    ('cimpl.KafkaException: KafkaError{code=MSG_SIZE_TOO_LARGE,val=10,str="Unable to produce message: Broker: Message '
     'size too large"}', "message.max.bytes"),
    ("Confluent.Kafka.ProduceException`2[System.String,System.String]: Broker: Message size too large", "message.max.bytes"),
    ("Rdkafka::RdkafkaError: Broker: Message size too large (msg_size_too_large)", "message.max.bytes"),
    ("KafkaError (Message production error: MessageSizeTooLarge (Broker: Message size too large))", "message.max.bytes"),
    ("Error: ServerError { protocol_error: MessageTooLarge, error_message: None }", "client's own limit"),
    # Sarama's ErrMessageSizeTooLarge (before 1.41 also its own Producer.MaxMessageBytes check)
    ("kafka server: Message was too large, server rejected it to avoid allocation error.", "Producer.MaxMessageBytes"),
    ("kafka: Failed to produce message to topic t: kafka server: Message was too large, server rejected it to avoid "
     "allocation error", "Producer.MaxMessageBytes"),
    # segmentio/kafka-go's Error.Error(): "[%d] %s: %s" (also its Writer's MessageTooLargeError over BatchBytes)
    ("[10] Message Size Too Large: the server has a configurable maximum message size to avoid unbounded memory "
     "allocation and the client attempted to produce a message larger than this maximum", "Writer.BatchBytes"),
])
def test_words_both_sides_return_name_the_producers_setting_and_the_brokers(line, setting):
    finding = size_finding(line)
    assert finding.evidence["limit"] == "either"
    assert setting in finding.title and "max.message.bytes" in finding.title
    assert setting in finding.fix and "message.max.bytes (default 1048588)" in finding.fix


def test_franz_go_before_1_21_and_the_bare_words_name_no_side():
    # kerr.MessageTooLarge was also franz-go's own refusal over ProducerBatchMaxBytes before 1.21 (no sizes added)
    for line, setting in (("MESSAGE_TOO_LARGE: The request included a message larger than the max message size the "
                           "server will accept.", "ProducerBatchMaxBytes"),
                          ("The request included a message larger than the max message size the server will accept.",
                           "franz-go before 1.21")):
        finding = size_finding(line)
        assert finding.evidence["limit"] == "either" and setting in finding.title + finding.explanation


def test_a_java_record_too_large_alone_names_each_side_it_is_thrown_for():
    finding = size_finding("Caused by: org.apache.kafka.common.errors.RecordTooLargeException")
    assert finding.evidence["limit"] == "either"
    assert "max.request.size" in finding.explanation and "max.partition.fetch.bytes" in finding.explanation


def test_the_specific_line_of_a_paste_decides_over_the_bare_exception_name():
    finding = size_finding("RecordTooLargeException\nThe message is 4021051 bytes when serialized which is larger than "
                           "1048576, which is the value of the max.request.size configuration.")
    assert finding.evidence["limit"] == "producer"


def test_a_library_of_no_family_passing_on_the_codes_name_is_read_too():
    finding = size_finding("[lua] producer.lua:258: buffered messages send to kafka err: MessageSizeTooLarge, "
                           "retryable: false, topic: t, partition_id: 2, length: 111")
    assert finding.evidence["limit"] == "either" and "message.max.bytes" in finding.fix


# --- a batch over the topic's log segment -----------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "org.apache.kafka.common.errors.RecordBatchTooLargeException: The request included message batch larger than the "
    "configured segment size on the server.",
    "Broker: Message batch larger than configured server segment size",
    "[18] Record List Too Large: a message batch in a produce request exceeds the maximum configured segment size",
    "kafka.errors.RecordListTooLargeError: [Error 18] RecordListTooLargeError",
])
def test_a_batch_over_the_segment_names_segment_bytes(line):
    finding = size_finding(line)
    assert finding.evidence["limit"] == "segment" and "segment.bytes" in finding.title


# --- a consumer's fetch ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, setting", [
    # rdkafka_msgset_reader.c (before 1.0: "is too large to fetch")
    ('KafkaError{code=MSG_SIZE_TOO_LARGE,val=10,str="Message at offset 42 might be too large to fetch, try increasing '
     'receive.message.max.bytes"}', "fetch.max.bytes"),
    # the Java consumer's FetchCollector (brokers before 0.10.1), kafka-python's and aiokafka's fetcher
    ("org.apache.kafka.common.errors.RecordTooLargeException: There are some messages at [Partition=Offset]: "
     "{orders-0=1234} whose size is larger than the fetch size 1048576 and hence cannot be returned.",
     "max.partition.fetch.bytes"),
    ("kafka.consumer.fetcher.RecordTooLargeError: There are some messages at [Partition=Offset]: {TopicPartition(topic="
     "'t', partition=0): 5}  whose size is larger than the fetch size 1048576 and hence cannot be ever returned.",
     "max_partition_fetch_bytes"),
    # Sarama's ErrMessageTooLarge, now and before
    ("kafka: message is larger than Consumer.Fetch.Max", "Consumer.Fetch.Max"),
    ("kafka: Message is larger than MaxFetchSize", "Consumer.Fetch.Max"),
    # kafka-python 0.9's protocol.py
    ("kafka.common.ConsumerFetchSizeTooSmall", "fetch_message_max_bytes"),
    # Sarama's response header over sarama.MaxResponseSize: a Kafka frame's length
    ("consumer/broker/1 disconnecting due to error processing FetchRequest: kafka: error decoding packet: message of "
     "length 104857903 too large or too small", "sarama.MaxResponseSize"),
])
def test_a_consumers_fetch_names_its_fetch_settings(line, setting):
    finding = size_finding(line)
    assert finding.evidence["limit"] == "fetch" and "fetch size" in finding.title
    assert setting in finding.explanation + finding.fix


# --- direction and foreign bytes: not this class ------------------------------------------------------------

def test_the_brokers_own_invalid_receive_is_not_a_record_too_large():
    # The broker's socket server reading a request's first four bytes (socket.request.max.bytes): another class
    for line in ("org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 111338035 larger "
                 "than 104857600)", "WARN [SocketServer listenerType=ZK_BROKER, nodeId=0] Unexpected error from "
                 "/10.0.0.7 (channelId=...); closing connection (org.apache.kafka.common.network.Selector)"):
        assert "ROUNDTRIP_FAILED" not in ids(explained(line))


def test_saramas_length_words_over_text_or_a_tls_record_are_a_foreign_answer():
    http = "kafka: error decoding packet: message of length 1213486160 too large or too small"  # "HTTP"
    assert only(explained(http), "NOT_KAFKA").evidence["lines"] == [http]
    tls = "kafka: error decoding packet: message of length 352518912 too large or too small"  # 0x15 0x03: a TLS alert
    assert ids(explained(tls)) == ["TLS_EXPECTED"]


def test_other_too_large_words_are_not_a_record_size():
    for line in ("kafka: error decoding packet: SASL response of length 600000 too large",  # Sarama's SASL frame
                 "Broker: Offset metadata string too large", "kafka server: Specified a string larger than the "
                 "configured maximum for offset metadata", "Client sent a push telemetry request larger than the "
                 "maximum size the broker will accept."):
        assert "ROUNDTRIP_FAILED" not in ids(explained(line)), line


def test_a_size_error_explains_the_records_the_client_then_gave_up_on():
    text = ("%3|1700000000.000|ERROR|rdkafka#producer-1| delivery failed: Broker: Message size too large\n"
            'KafkaError{code=_MSG_TIMED_OUT,val=-192,str="Local: Message timed out"}')
    finding = size_finding(text)
    assert "Local: Message timed out" in finding.explanation
