"""Checks a ``kafka://BOOTSTRAP/TOPIC`` input before Spark reads it: the brokers answer and the topic
exists (Spark's Kafka source would otherwise wait, or read nothing, without saying why)."""

from __future__ import annotations

from collections.abc import Sequence

from kdiag.fleet.inputs import InputError, KafkaInput

TIMEOUT_S = 10.0


def check_topics(topics: Sequence[KafkaInput], *, timeout: float = TIMEOUT_S) -> None:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    for topic in topics:
        admin = AdminClient({"bootstrap.servers": topic.bootstrap, "socket.timeout.ms": int(timeout * 1000),
                             "log_level": 0, "logger": _Silent()})
        try:
            metadata = admin.list_topics(timeout=timeout)
        except KafkaException as exc:
            raise InputError(f"{topic}: cannot reach the brokers ({exc.args[0].str() if exc.args else exc})") from None
        if topic.topic not in metadata.topics or metadata.topics[topic.topic].error is not None:
            raise InputError(f"{topic}: no such topic")


class _Silent:
    """A logger for librdkafka that keeps its connection chatter off the terminal."""

    def log(self, *args: object, **kwargs: object) -> None:
        pass
