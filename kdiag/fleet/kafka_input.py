"""Checks a ``kafka://BOOTSTRAP/TOPIC`` input before Spark reads it: the brokers answer, the login (the
credential set bound to the source, if any) is accepted, and the topic exists (Spark's Kafka source would
otherwise wait, retry a refused login, or read nothing, without saying why)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from kdiag.fleet.inputs import InputError, KafkaInput
from kdiag.fleet.kafka_security import librdkafka_settings

TIMEOUT_S = 10.0
MAX_REASON = 300
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
    failures = _Failures()
    admin = AdminClient({**librdkafka_settings(topic.login), "bootstrap.servers": topic.bootstrap,
                         "socket.timeout.ms": int(timeout * 1000), "log_level": 6, "logger": failures,
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
                raise InputError(_unreachable(topic, [*(exc.args[:1]), *errors], failures.last)) from None
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


def _unreachable(topic: KafkaInput, errors: Sequence[object], logged: str | None) -> str:
    """The one line for brokers that never answered: librdkafka's last word on why (the connection
    failure it logged says more than the metadata request's timeout), and, for a source read
    without credentials whose brokers closed the connection, the option that gives it some."""
    from confluent_kafka import KafkaError

    said = [error.str() for error in errors  # "1/1 brokers are down" says nothing of why
            if isinstance(error, KafkaError) and error.code() != KafkaError._ALL_BROKERS_DOWN]
    reason = _first_line(logged) if logged else _first_line(said[-1]) if said else "no answer"
    closed = logged is not None and "Disconnected" in logged  # connected, then closed: not a refused connect
    hint = "; if the cluster needs TLS or a login: --kafka-credentials NAME" if closed and topic.login is None else ""
    return f"{topic}: cannot reach the brokers ({reason}){hint}"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:MAX_REASON] if text.strip() else "no reason given"


class _Failures:
    """A logger for librdkafka that keeps its connection chatter off the terminal and remembers its
    last connection failure (``FAIL``: "Disconnected while requesting ApiVersion: might be caused by
    incorrect security.protocol configuration ..."), the text without librdkafka's thread prefix."""

    def __init__(self) -> None:
        self.last: str | None = None

    def log(self, *args: object, **kwargs: object) -> None:  # confluent-kafka: (level, "%s [%s] %s", fac, name, text)
        if len(args) >= 5 and args[2] == "FAIL" and isinstance(args[4], str):
            self.last = args[4].split("]: ", 1)[-1][:MAX_REASON]
