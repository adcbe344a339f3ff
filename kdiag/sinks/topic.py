"""The topic sink: reports produced to a Kafka topic from the spool, in order, at least once.

``deliver`` only spools the report (``kdiag.sinks.spool``); a sender thread produces the oldest
waiting reports with an idempotent producer (``acks=all``), keyed by the agent id so one agent's
reports stay in order on one partition, and removes each from the spool once the broker has
acknowledged it. While the topic is unreachable the reports wait in the spool and the sender retries
with a growing pause (at most ``MAX_BACKOFF`` seconds); when it returns they are replayed oldest
first. A report acknowledged but not yet removed when the agent dies is sent again at the next start:
readers de-duplicate by ``report_id``.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable

from kdiag.sinks import FailureLog, Log, ReportLine, SinkStats
from kdiag.sinks.spool import Spool

BATCH = 50
MESSAGE_TIMEOUT = 15.0  # seconds librdkafka keeps trying one batch before it reports the failure
MAX_BACKOFF = 5.0
FLUSH_AT_CLOSE = 0.3  # what is not acknowledged by then stays in the spool


class TopicSink:
    name = "topic"

    def __init__(self, topic: str, *, bootstrap: str, settings: dict[str, str], key: str, spool: Spool,
                 stats: SinkStats, log: Log, scrub: Callable[[str], str]) -> None:
        self.topic = topic
        self.stats = stats
        self._bootstrap = bootstrap
        self._settings = settings
        self._key = key.encode()
        self._spool = spool
        self._log = log
        self._scrub = scrub
        self._failures = FailureLog(log, f"report topic {topic} at {bootstrap}")
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._producer = None
        self._fatal = False
        self._thread = threading.Thread(target=self._run, name="kdiag-topic-sink", daemon=True)
        self._thread.start()

    def deliver(self, line: ReportLine) -> None:
        if self._spool.put(line):
            self._wake.set()

    # --- the sender thread -------------------------------------------------------------------------

    def _run(self) -> None:
        backoff = 0.2
        while not self._stop.is_set():
            batch = self._spool.take(BATCH)
            if not batch:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            sent = self._send(batch)
            if sent == len(batch):
                backoff = 0.2
                continue
            self._stop.wait(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    def _send(self, batch) -> int:
        """Produce ``batch`` and wait for each acknowledgement; how many were delivered, in order."""
        from confluent_kafka import KafkaException

        results: dict[int, object] = {}
        try:
            producer = self._get_producer()
            for index, (_path, data) in enumerate(batch):
                producer.produce(self.topic, value=data, key=self._key,
                                 on_delivery=lambda err, msg, index=index: results.__setitem__(index, err))
        except (KafkaException, BufferError) as exc:
            for path, _data in batch:
                self._spool.done(path, delivered=False)
            self._failures.failed(self._scrub(f"cannot produce: {exc}"))
            return 0
        until = time.monotonic() + MESSAGE_TIMEOUT + 2.0
        while len(results) < len(batch) and time.monotonic() < until and not self._stop.is_set():
            producer.poll(0.1)
        delivered = 0
        for index, (path, _data) in enumerate(batch):
            ok = index in results and results[index] is None and delivered == index
            self._spool.done(path, delivered=ok)
            if ok:
                delivered += 1
        if delivered:
            self.stats.count_delivered(delivered)
        if delivered == len(batch):
            self._failures.recovered()
        else:
            err = next((results[i] for i in sorted(results) if results[i] is not None), None)
            reason = f"{err.name()}: {err.str()}" if err is not None else "no acknowledgement yet"
            self._failures.failed(self._scrub(f"reports wait in the spool ({reason})"))
            if err is not None and err.fatal():
                self._fatal = True
        if self._fatal:
            self._producer, self._fatal = None, False
        return delivered

    def _get_producer(self):
        if self._producer is None:
            from confluent_kafka import Producer

            logger = logging.getLogger(f"kdiag.sink.librdkafka.{uuid.uuid4().hex[:8]}")
            logger.propagate = False
            logger.addHandler(logging.NullHandler())  # its connection errors reach us through the deliveries
            self._producer = Producer({
                "reconnect.backoff.ms": 100,
                "reconnect.backoff.max.ms": 1000,
                **self._settings,
                "bootstrap.servers": self._bootstrap,
                "enable.idempotence": True,
                "acks": "all",
                "message.timeout.ms": int(MESSAGE_TIMEOUT * 1000),
                "linger.ms": 5,
                "client.id": "kdiag-watch-sink",
                "logger": logger,
                "error_cb": self._on_error,
            })
        return self._producer

    def _on_error(self, err) -> None:
        if err.fatal():
            self._fatal = True

    # --- stop --------------------------------------------------------------------------------------

    def close(self, timeout: float) -> None:
        """Stop the sender; reports still waiting stay in the spool for the next start."""
        deadline = time.monotonic() + timeout
        self._stop.set()
        self._wake.set()
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._producer is not None and not self._thread.is_alive() and len(self._producer):
            # acknowledgements still coming: what arrives now saves a duplicate at the next start
            self._producer.flush(min(FLUSH_AT_CLOSE, max(0.0, deadline - time.monotonic())))
