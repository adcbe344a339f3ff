"""Checks a ``kafka://BOOTSTRAP/TOPIC`` input before Spark reads it: the brokers answer, the login (the
credential set bound to the source, if any) is accepted, and the topic exists (Spark's Kafka source would
otherwise wait, retry a refused login, or read nothing, without saying why)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from kdiag.fleet.inputs import InputError, KafkaInput
from kdiag.fleet.kafka_security import librdkafka_settings

TIMEOUT_S = 10.0
ATTEMPT_S = 1.0
"""A metadata request waits this long before the errors librdkafka reported meanwhile are looked at."""


def check_topics(topics: Sequence[KafkaInput], *, timeout: float = TIMEOUT_S) -> None:
    for topic in topics:
        check_topic(topic, timeout=timeout)


def check_topic(topic: KafkaInput, *, timeout: float = TIMEOUT_S) -> None:
    """InputError (one line) when the topic cannot be read: brokers unreachable, a login refused (SASL
    authentication, a TLS handshake), no such topic. Bounded by ``timeout``."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient

    errors: list[KafkaError] = []
    admin = AdminClient({**librdkafka_settings(topic.login), "bootstrap.servers": topic.bootstrap,
                         "socket.timeout.ms": int(timeout * 1000), "log_level": 0, "logger": _Silent(),
                         "error_cb": errors.append})
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            metadata = admin.list_topics(timeout=max(0.1, min(ATTEMPT_S, left)))
            break
        except KafkaException as exc:
            admin.poll(0)  # serves error_cb: a refused login is reported there, not by list_topics
            refused = _refused(topic, [*(exc.args[:1]), *errors])
            if refused is not None:
                raise InputError(refused) from None
            if deadline - time.monotonic() <= 0:
                reason = exc.args[0].str() if exc.args else str(exc)
                raise InputError(f"{topic}: cannot reach the brokers ({reason})") from None
    if topic.topic not in metadata.topics or metadata.topics[topic.topic].error is not None:
        raise InputError(f"{topic}: no such topic")


def _refused(topic: KafkaInput, errors: Sequence[object]) -> str | None:
    """The one line for a login the brokers refused, from librdkafka's errors; None if none was."""
    from confluent_kafka import KafkaError

    which = f" (credentials {topic.login.variables})" if topic.login is not None else ""
    for error in errors:
        if not isinstance(error, KafkaError):
            continue
        if error.code() == KafkaError._AUTHENTICATION:
            return f"{topic}: SASL authentication failed{which}: {_first_line(error.str())}"
        if error.code() == KafkaError._SSL:
            return f"{topic}: TLS handshake failed{which}: {_first_line(error.str())}"
    return None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:300] if text.strip() else "no reason given"


class _Silent:
    """A logger for librdkafka that keeps its connection chatter off the terminal."""

    def log(self, *args: object, **kwargs: object) -> None:
        pass
