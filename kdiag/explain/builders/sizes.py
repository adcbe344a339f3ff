"""ROUNDTRIP_FAILED for a record, a batch or a fetch over a size limit (``clients.sizes`` reads the words): which
limit, on which side (the producer's own, the broker's or the topic's, the consumer's fetch), and its setting in the
client's family, with the broker-side settings and the commands that show and raise them.

It is a warning, not an error: the round trip fails for these records only, over a limit that is a setting of the
data path (records within it go through), and no connectivity cause is read into it; what the words say of the side
is stated in the text, as sure as they are.
"""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.explain.clients.sizes import BROKER, FETCH, KINDS, PRODUCER, SEGMENT, Limit, limit_of
from kdiag.explain.shared import client_said, consequence_sentence, evidence
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

# The producer's own limit in each family: (the setting, what to know about it).
PRODUCER_LIMIT = {
    "java": ("max.request.size", "default 1048576; a Kafka Connect worker takes it as max.request.size for its internal "
             "topics (the connector and task configurations it writes), producer.max.request.size for its source tasks "
             "and a connector as producer.override.max.request.size; Kafka Streams and Spring as "
             "producer.max.request.size / spring.kafka.producer.properties.max.request.size"),
    "librdkafka": ("message.max.bytes", "default 1000000; it caps each batch too, with batch.size"),
    "sarama": ("Producer.MaxMessageBytes", "default 1000000, 1 MiB from 1.43; it caps each batch Sarama builds too"),
    "segmentio": ("Writer.BatchBytes", "default 1048576"),
    "franz-go": ("ProducerBatchMaxBytes", "default 1000012; MaxBufferedBytes bounds a record too"),
    "kafka-python": ("max_request_size", "default 1048576"),
    "beats": ("output.kafka.max_message_bytes", "default 1000000, Sarama's Producer.MaxMessageBytes underneath"),
}
FETCH_LIMIT = {
    "java": "max.partition.fetch.bytes and fetch.max.bytes",
    "librdkafka": "fetch.max.bytes and max.partition.fetch.bytes, with receive.message.max.bytes at least fetch.max.bytes "
                  "+ 512",
    "sarama": "Consumer.Fetch.Max (0: no limit) and Consumer.Fetch.Default, with a whole response under "
              "sarama.MaxResponseSize (bound the fetch with Consumer.Fetch.Max)",
    "segmentio": "ReaderConfig.MaxBytes",
    "franz-go": "FetchMaxBytes, FetchMaxPartitionBytes and BrokerMaxReadBytes",
    "kafkajs": "maxBytesPerPartition and maxBytes",
    "kafka-python": "max_partition_fetch_bytes and fetch_max_bytes (before 1.0: fetch_message_max_bytes and "
                    "max_buffer_size)",
}
_BROKER_LIMIT = ("the topic's max.message.bytes, or for every topic without it the broker's message.max.bytes (default "
                 "1048588)")
# The words both sides return, in each family: who may have said them.
_EITHER_WORDS = {
    "librdkafka": "librdkafka returns MSG_SIZE_TOO_LARGE (`Broker: Message size too large`) in two cases: for a message "
                  "over the producer's own message.max.bytes, refused before it is sent although the words name the "
                  "broker, and for the broker's answer to a batch over its limit.",
    "sarama": "Sarama's ErrMessageSizeTooLarge (`kafka server: Message was too large, server rejected it ...`) is the "
              "broker's answer to a batch over its limit and, before Sarama 1.41, also Sarama's own refusal of a message "
              "over Producer.MaxMessageBytes, before sending it, although the words name the server.",
    "segmentio": "kafka-go returns MessageSizeTooLarge (`[10] Message Size Too Large`) for the broker's answer to a batch "
                 "over its limit, and, as a MessageTooLargeError, for a message over its Writer's own BatchBytes, refused "
                 "before sending.",
    "java": "The Java client throws RecordTooLargeException for a record over the producer's own max.request.size or "
            "buffer.memory (before sending), for the broker's answer to a batch over its limit, and, with brokers before "
            "0.10.1, for a record over the consumer's max.partition.fetch.bytes; the lines here do not say which.",
    "beats": "Beats' Kafka output logs this for Sarama's ErrMessageSizeTooLarge: the broker's answer to a batch over "
             "its limit, or, with Sarama before 1.41 underneath (Beats before 8.18), the output's own max_message_bytes "
             "check, before sending; either way the event is dropped, not retried.",
    "franz-go": "franz-go before 1.21 returns kerr.MessageTooLarge (`MESSAGE_TOO_LARGE: The request included a message "
                "larger than the max message size the server will accept`) for the broker's answer to a batch over its "
                "limit and for a record over its own ProducerBatchMaxBytes or MaxBufferedBytes, refused before sending "
                "(1.21 on adds `(uncompressed_bytes=N)` to its own, and the compressed size too to the broker's).",
}
_EITHER_OTHER = ("These are Kafka's words for error code 10 (MESSAGE_TOO_LARGE), the broker's answer to a batch over its "
                 "limit; a client may also refuse a message over a limit of its own with them, before sending it "
                 "(franz-go before 1.21 did, over ProducerBatchMaxBytes).")


def too_large(subject: Subject, context: Context) -> Finding:
    limit = _limit(subject)
    topic = subject.first("topic") or limit.topic or context.topic
    bootstrap = context.bootstrap_text()
    confirm = context.confirm(topic=topic)
    title, meaning, fix = _reading(limit, topic, bootstrap)
    explanation = (f"{client_said(subject)} {meaning} It is a size limit, not the path to the cluster: records within "
                   f"the limits go through.{consequence_sentence(context)}")
    fix += (f"\n\nkdiag bootstrap, run on the client's machine, checks that the cluster takes a small record"
            f"{' on ' + topic if topic else ''}, which leaves the size as the cause:\n  {confirm}")
    data = evidence(subject, context, confirm, topic=topic, limit=limit.kind, size=limit.size, max_bytes=limit.limit,
                    setting=limit.setting)
    return finding("ROUNDTRIP_FAILED", "warning", title, explanation, data, fix)


def _limit(subject: Subject) -> Limit:
    """The most specific limit the subject's lines name (the producer's own, over a line that names no side)."""
    limits = [found for _, line in subject.examples if (found := limit_of(line)) is not None]
    fetch = next((g.first.detail for g in subject.groups if str(g.first.detail).startswith(FETCH)), None)
    if not limits:  # a response just over the client's limit: the line's numbers are not a record's
        return Limit(FETCH, "sarama" if "sarama" in str(fetch) else "librdkafka")
    return min(limits, key=lambda found: KINDS.index(found.kind))


def _reading(limit: Limit, named: str | None, bootstrap: str) -> tuple[str, str, str]:
    """(title, what the words mean, fix) for one limit."""
    setting, about = PRODUCER_LIMIT.get(limit.family, (None, None))
    fetch = FETCH_LIMIT.get(limit.family, "its fetch size settings")
    size = f" of {limit.size} bytes" if limit.size else ""
    over = f" ({limit.limit} bytes)" if limit.limit else ""
    topic, topics = named or "<topic>", f"{named}'s" if named else "the topic's"
    commands = _commands(bootstrap, topic, limit.size)
    broker_side = (f"The broker must then take it too: {_BROKER_LIMIT}. Consumers must fetch it as well (their "
                   f"{fetch}).\n{commands}")
    if limit.kind == PRODUCER:
        own = limit.setting or setting or "size setting"
        about = f" ({about})" if about and own == setting else ""
        return (f"A record is larger than the producer's own {own}",
                f"The producer refused a record{size} itself, before sending it: it is over its own {own}{over}. The "
                "broker never saw it, so raising the broker's message.max.bytes alone does not help.",
                f"Raise the producer's {own}{about} above the largest record, or send smaller records.\n{broker_side}")
    if limit.kind == BROKER:
        own = (f" Keep the producer's own {setting} ({about}) at most the topic's limit, so it sends batches the broker "
               "takes." if setting else " kafkajs has no limit of its own: the messages of one send to a partition go "
               "in one batch, so many small messages can make a batch too large." if limit.family == "kafkajs" else "")
        return (f"The broker refused a record batch over {topics} max.message.bytes",
                f"The broker refused the produce: a record batch{size} is over {_BROKER_LIMIT}{over}.{own}",
                f"Raise the topic's max.message.bytes (or the broker's message.max.bytes) above the largest batch, and "
                f"the consumers' {fetch} with it; or send smaller records or batches.\n{commands}")
    if limit.kind == SEGMENT:
        return (f"The broker refused a record batch larger than {topics} segment.bytes",
                "The broker refused a record batch larger than the topic's log segment (segment.bytes): no segment "
                "can hold it.",
                f"Lower the producer's batch size (its {setting or 'batch size setting'}, batch.size), or raise the "
                f"topic's segment.bytes:\n  kafka-configs.sh --bootstrap-server {bootstrap} --describe --entity-type "
                f"topics --entity-name {topic}")
    if limit.kind == FETCH:
        return ("A record is larger than the consumer's fetch size",
                f"The consumer met a record or a fetch response{size} larger than it lets itself read{over} ({fetch}). "
                "The broker took the record, so it stays in the log until the consumer's limit is raised.",
                f"Raise the consumer's fetch settings above the largest record batch: {fetch}. The batches it may "
                f"meet are bounded by {_BROKER_LIMIT}:\n{commands.splitlines()[0]}")
    said = _EITHER_WORDS.get(limit.family, _EITHER_OTHER)
    who = f"the producer's own {setting}" if setting else "the client's own limit"
    own = f"{who} ({about})" if setting else "the client's own limit, if it has one"
    return (f"A message is over a size limit: {who} or the broker's (the topic's max.message.bytes)",
            f"{said} Either way the message is over a size limit.",
            f"Find the smaller limit and raise it above the largest message, or send smaller messages or batches: "
            f"{own}, or {_BROKER_LIMIT}. Consumers must fetch it as well (their {fetch}).\n{commands}")


def _commands(bootstrap: str, topic: str, size: int | None) -> str:
    value = -(-(size + 1) // 1048576) * 1048576 if size else "<bytes>"  # the next MiB above the record
    return (f"  kafka-configs.sh --bootstrap-server {bootstrap} --describe --entity-type topics --entity-name {topic}\n"
            f"  kafka-configs.sh --bootstrap-server {bootstrap} --alter --entity-type topics --entity-name {topic} "
            f"--add-config max.message.bytes={value}")
