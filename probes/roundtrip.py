"""Stage ``roundtrip``: produce one message and consume it back, the way a real client does.

confluent-kafka (librdkafka) bootstraps, follows the advertised addresses, produces, and a consumer
reads the message back with ``assign()`` (no group rebalance to wait for). librdkafka's own error and
log lines are kept as evidence, with every secret value scrubbed out.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from probes.advertised import wait_time
from probes.codec import ApiVersionRange, ApiVersionsResponse
from probes.codec.errors import LEADER_NOT_AVAILABLE
from probes.deadline import Deadline, elapsed_ms
from probes.kafka import KafkaConnection, KafkaProbeError
from probes.results import RoundtripResult, TopicInfo

PROBE_TOPIC = "kdiag-probe"
MAX_LOG_LINES = 40


class _LogCollector(logging.Handler):
    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self._secrets = [s for s in secrets if s]

    def scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.lines) < MAX_LOG_LINES:
            self.lines.append(self.scrub(record.getMessage()))


def default_group() -> str:
    return f"kdiag-probe-{socket.gethostname()}"


def client_config(bootstrap: str, settings: dict[str, str], *, timeout: float, logger: logging.Logger) -> dict:
    config = {
        "socket.connection.setup.timeout.ms": max(int(timeout * 1000), 1000),
        "socket.timeout.ms": max(int(timeout * 1000), 10),
        "reconnect.backoff.ms": 20,
        "reconnect.backoff.max.ms": 200,
        **settings,
        "bootstrap.servers": bootstrap,
        "logger": logger,
    }
    return config


def run_roundtrip(bootstrap: str, *, topic: str, settings: dict[str, str], deadline: Deadline,
                  group: str | None = None, secrets: Iterable[str] = ()) -> RoundtripResult:
    """Produce one uniquely-valued message to ``topic`` and read it back before the deadline."""
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

    collector = _LogCollector(secrets)
    logger = _client_logger("kdiag.librdkafka", collector)
    logger.setLevel(logging.DEBUG)
    errors: list[str] = []
    payload = f"kdiag roundtrip {uuid.uuid4()} from {socket.gethostname()} pid {os.getpid()}".encode()
    delivered: dict = {}

    def on_error(err) -> None:
        if len(errors) < MAX_LOG_LINES:
            errors.append(collector.scrub(f"{err.name()}: {err.str()}"))

    def on_delivery(err, msg) -> None:
        delivered["err"] = err
        if err is None:
            delivered["partition"], delivered["offset"] = msg.partition(), msg.offset()

    def outcome(**kwargs) -> RoundtripResult:
        log = tuple(errors) + tuple(line for line in collector.lines if line not in errors)
        return RoundtripResult(topic=topic, client_log=log[:MAX_LOG_LINES], **kwargs)

    started = time.monotonic()
    try:
        producer_config = client_config(bootstrap, settings, timeout=deadline.remaining(), logger=logger)
        producer_config.update({"message.timeout.ms": max(int(deadline.remaining() * 1000) - 50, 1),
                                "linger.ms": 0, "error_cb": on_error, "client.id": "kdiag-roundtrip"})
        producer = Producer(producer_config)
        producer.produce(topic, value=payload, key=b"kdiag", on_delivery=on_delivery)
        producer.flush(max(deadline.remaining(), 0.001))
        produce_ms = elapsed_ms(started)
        err = delivered.get("err")
        if "err" not in delivered:
            return outcome(produce_ms=produce_ms, error_code="_MSG_TIMED_OUT",
                           error="the message was not delivered before the deadline")
        if err is not None:
            return outcome(produce_ms=produce_ms, error_code=err.name(),
                           error=collector.scrub(f"produce failed: {err.str()}"))
        partition, offset = delivered["partition"], delivered["offset"]
        consumer_config = client_config(bootstrap, settings, timeout=deadline.remaining(), logger=logger)
        consumer_config.update({"group.id": group or default_group(), "enable.auto.commit": False,
                                "enable.partition.eof": False, "fetch.wait.max.ms": 20, "error_cb": on_error,
                                "client.id": "kdiag-roundtrip"})
        consume_started = time.monotonic()
        consumer = Consumer(consumer_config)
        try:
            consumer.assign([TopicPartition(topic, partition, offset)])
            while not deadline.expired:
                message = consumer.poll(deadline.cap(0.2))
                if message is None:
                    continue
                if message.error():
                    errors.append(collector.scrub(f"consume: {message.error().str()}"))
                    continue
                if message.value() == payload:
                    return outcome(partition=partition, offset=offset, produce_ms=produce_ms,
                                   consume_ms=elapsed_ms(consume_started))
        finally:
            _close_within(consumer, deadline.within(1.0))
        return outcome(partition=partition, offset=offset, produce_ms=produce_ms,
                       consume_ms=elapsed_ms(consume_started), error_code="_TIMED_OUT",
                       error="the message was produced but not read back before the deadline")
    except KafkaException as exc:
        err = exc.args[0] if exc.args else None
        name = err.name() if hasattr(err, "name") else "KafkaException"
        text = err.str() if hasattr(err, "str") else str(exc)
        return outcome(error_code=name, error=collector.scrub(text))
    finally:
        _silence(logger, collector)


def _close_within(client, deadline: Deadline) -> None:
    """Close a librdkafka client, waiting at most until ``deadline`` (leaving a group can block on an
    unreachable coordinator; the process must still answer in time)."""
    import threading

    closer = threading.Thread(target=client.close, name="kdiag-close", daemon=True)
    closer.start()
    closer.join(deadline.remaining())


CREATE_TOPICS = 19  # the CreateTopics API key
BROKER_DEFAULT_REPLICATION_FROM = 4
"""CreateTopics v4 (Kafka 2.4, KIP-464) is the first to take replication factor -1, "the broker's
default.replication.factor"; librdkafka refuses -1 for a broker that does not offer it."""
EXPLICIT_REPLICATION_MAX = 3


def probe_replication_factor(offered: ApiVersionRange | None, *, brokers: int) -> int | None:
    """The replication factor kdiag creates its probe topic with, from the CreateTopics versions the broker
    offers (``offered``; None: the broker has no CreateTopics at all, and None is returned: let the broker
    auto-create the topic, as clients before CreateTopics did).

    -1 (the broker's own default.replication.factor) where CreateTopics v4+ allows it; else an explicit
    min(3, the number of advertised brokers): the broker's default cannot be read without DescribeConfigs
    (which an ACL may forbid), and three is the replication Kafka itself gives its internal topics, capped
    by the brokers there are. A topic with fewer replicas than min.insync.replicas would still take writes
    only with acks=1, so fewer than three is used only on a smaller cluster."""
    if offered is None:
        return None
    if offered.max_version >= BROKER_DEFAULT_REPLICATION_FROM:
        return -1
    return max(1, min(EXPLICIT_REPLICATION_MAX, brokers))


def create_topic(bootstrap: str, topic: str, *, settings: dict[str, str], deadline: Deadline,
                 secrets: Iterable[str] = (), replication_factor: int = -1) -> str | None:
    """Create ``topic`` (one partition, ``replication_factor`` replicas; -1: the broker's default) through
    the admin API; None on success (or if it exists), else the error."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import NewTopic

    with _admin(bootstrap, settings, deadline, secrets) as (admin, collector):
        futures = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=replication_factor)],
                                      request_timeout=max(deadline.remaining(), 0.1))
        try:
            futures[topic].result(timeout=max(deadline.remaining(), 0.1))
        except KafkaException as exc:
            err = exc.args[0]
            if err.name() == "TOPIC_ALREADY_EXISTS":
                return None
            return collector.scrub(f"{err.name()}: {err.str()}")
        except Exception as exc:  # noqa: BLE001 - concurrent.futures timeout or a client-side failure
            return collector.scrub(f"{type(exc).__name__}: {exc}")
    return None


def count_brokers(bootstrap: str, *, settings: dict[str, str], deadline: Deadline,
                  secrets: Iterable[str] = ()) -> int | None:
    """How many brokers the cluster's metadata lists, asked through the client library (which logs in
    where kdiag cannot); None when it does not answer within a few seconds."""
    from confluent_kafka import KafkaException

    with _admin(bootstrap, settings, deadline, secrets) as (admin, _collector):
        try:
            return len(admin.list_topics(timeout=max(min(deadline.remaining(), 5.0), 0.1)).brokers) or None
        except KafkaException:
            return None


@contextmanager
def _admin(bootstrap: str, settings: dict[str, str], deadline: Deadline,
           secrets: Iterable[str]) -> Iterator[tuple[Any, _LogCollector]]:
    """An admin client whose log is collected (scrubbed of ``secrets``) while it is used, then silenced."""
    from confluent_kafka.admin import AdminClient

    collector = _LogCollector(secrets)
    logger = _client_logger("kdiag.librdkafka.admin", collector)
    try:
        yield AdminClient(client_config(bootstrap, settings, timeout=deadline.remaining(), logger=logger)), collector
    finally:
        _silence(logger, collector)


def _client_logger(name: str, collector: _LogCollector) -> logging.Logger:
    """A logger of its own for one librdkafka client, outside logging's registry: a long-running
    process (kdiag watch) makes one per probe, and registered loggers are never freed."""
    logger = logging.Logger(f"{name}.{uuid.uuid4().hex[:8]}")
    logger.propagate = False
    logger.addHandler(collector)
    return logger


def _silence(logger: logging.Logger, collector: _LogCollector) -> None:
    """Stop collecting; what the client still logs while it closes goes nowhere. (A logger left with
    no handler would hand it to logging's last resort: unscrubbed, on stderr.)"""
    logger.addHandler(logging.NullHandler())
    logger.removeHandler(collector)


SETTLE_FOR = 5.0
"""Seconds a topic just created (by kdiag, or by auto-create) is given to get a leader for every partition."""
AUTO_CREATE_WAIT = 2.0
"""Seconds a topic the broker was asked to auto-create may stay unknown (KRaft creates it through its
controller, in well under a second) before kdiag says the broker does not create it."""


def topic_state(conn: KafkaConnection, topic: str, *, timeout: float, auto_create: bool) -> str | None:
    """None when every partition of ``topic`` has a leader, else the error name that says why not (Metadata
    over ``conn``; ``auto_create``: let the broker create the topic, as a client's first request would)."""
    try:
        response = conn.metadata(timeout=timeout, topics=(topic,), allow_auto_topic_creation=auto_create)
    except KafkaProbeError as exc:
        return f"metadata: {exc}"
    found = next((t for t in response.topics if t.name == topic), None)
    if found is None:
        return "UNKNOWN_TOPIC_OR_PARTITION"
    if found.error.code and found.error.code != LEADER_NOT_AVAILABLE:
        return found.error.name
    if found.error.code or not found.partitions or any(p.leader_id < 0 for p in found.partitions):
        return "LEADER_NOT_AVAILABLE"
    return None


def ensure_topic(conn: KafkaConnection | None, topic: str, *, known: Iterable[TopicInfo], create: bool, bootstrap: str,
                 settings: dict[str, str], deadline: Deadline, secrets: Iterable[str] = (),
                 brokers: int = 1, versions_before_login: ApiVersionsResponse | None = None) -> bool | RoundtripResult:
    """Make sure ``topic`` exists with a leader for every partition before the round trip.

    ``known``: the topics the metadata stage listed; ``create``: kdiag's own probe topic, created through the
    admin API when missing (a topic the user named is left to the broker's auto-create). True if kdiag
    created the topic, False if it was there; a failure detail otherwise. Without ``conn`` (kdiag could not
    log in to read the metadata) the probe topic is only created, and the client library finds it.

    The topic's replication factor follows the CreateTopics versions the broker offers on ``conn``
    (``probe_replication_factor``, over ``brokers`` advertised brokers); a broker with no CreateTopics is
    left to create it on the Metadata request, as its own clients' first request would. Without ``conn``,
    the versions the broker offered before a login kdiag cannot do itself (GSSAPI, OAUTHBEARER:
    ``versions_before_login``) decide, the brokers counted by the client library that does log in; with
    neither, -1."""
    existing = next((t for t in known if t.name == topic), None)
    if existing is not None and existing.partitions and all(p.leader_id >= 0 for p in existing.partitions):
        return False
    versions = conn.api_versions if conn is not None else versions_before_login
    if conn is None and versions is None:
        replication = -1  # nothing known of the broker's versions: its default
    else:
        offered = versions.range_for(CREATE_TOPICS) if versions is not None else None
        if conn is None and create and offered is not None and offered.max_version < BROKER_DEFAULT_REPLICATION_FROM:
            brokers = count_brokers(bootstrap, settings=settings, deadline=deadline, secrets=secrets) or brokers
        replication = probe_replication_factor(offered, brokers=brokers)
    if replication is None:
        create = False  # no CreateTopics: Metadata with auto-creation allowed asks the broker instead
    created = False
    if existing is None and create:
        error = create_topic(bootstrap, topic, settings=settings, deadline=deadline, secrets=secrets,
                             replication_factor=replication)
        if error is not None:
            return RoundtripResult(topic, error=f"kdiag could not create its probe topic {topic}: {error}",
                                   error_code=error.split(":", 1)[0])
        created = True
    if conn is None:
        return False
    auto_create = not create
    settle_until = deadline.within(SETTLE_FOR)
    # A KRaft broker asked to auto-create answers UNKNOWN_TOPIC_OR_PARTITION until its controller has made
    # the topic; with auto-creation off it answers so for good: so that answer is asked again only briefly.
    unknown_until = settle_until if created else deadline.within(AUTO_CREATE_WAIT if auto_create else 0.0)
    state = topic_state(conn, topic, timeout=deadline.cap(2.0), auto_create=auto_create)
    while (state == "LEADER_NOT_AVAILABLE" and not settle_until.expired
           or state == "UNKNOWN_TOPIC_OR_PARTITION" and not unknown_until.expired):
        wait_time(settle_until, 0.05)
        state = topic_state(conn, topic, timeout=deadline.cap(2.0), auto_create=auto_create)
    if state is None:
        return created
    if state == "UNKNOWN_TOPIC_OR_PARTITION":
        return RoundtripResult(topic, error=f"topic {topic} does not exist and the broker did not create it "
                               "(auto.create.topics.enable=false?)", error_code=state)
    return RoundtripResult(topic, error=f"topic {topic}: {state}", error_code=state)
