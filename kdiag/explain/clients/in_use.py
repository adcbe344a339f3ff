"""A connection that had worked, and a client that retried on new connections, in the words of the libraries that say
so, each from its source:

- Sarama's ``ErrNotConnected`` (errors.go: ``kafka: broker not connected``): broker.go returns it for a send on a
  broker whose connection was closed before it (Sarama closes one after an error on it), so the connection the
  producer or the client had been using is gone; the producer logs ``producer/broker/N state change to [closing]
  because kafka: broker not connected``. What it means is read with every closed connection (``closing``,
  ``connection_age``: a connection that had carried requests was most likely closed while idle);
- kafkajs's retrier (src/retry/index.js): ``KafkaJSNumberOfRetriesExceeded`` and each failed attempt's ``retryCount``
  (1 and up): the client retried, each time on a new connection, and failed the same way each time, which a
  connection closed while idle does not (the reconnect works).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (CONNECTION_CLOSED, GO, KAFKAJS, Fact, Item, Pattern, ScanState, Sighting, registrar,
                                     role_of)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_SARAMA_BROKER = re.compile(r"(?:producer/broker/|broker[ #])(?P<id>-?\d+)\b")


@pattern("sarama.not_connected", GO, "broker not connected", r"\bkafka: broker not connected\b",
         "[sarama] producer/broker/1005 state change to [closing] because kafka: broker not connected")
def _sarama_not_connected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    named = _SARAMA_BROKER.search(m.string[:m.start()])
    node_id = int(named.group("id")) if named else None
    yield Sighting(CONNECTION_CLOSED, GO, node_id=node_id, role=role_of(node_id), detail=m.group(0))


@pattern("kafkajs.retried", KAFKAJS, "NumberOfRetriesExceeded", r"NumberOfRetriesExceeded",
         "  Caused by: KafkaJSNumberOfRetriesExceeded: Closed connection")
@pattern("kafkajs.retry_count", KAFKAJS, "retryCount", r"""\bretryCount["']?\s*[:=]\s*[1-9]""",
         '{"level":"ERROR","logger":"kafkajs","message":"[BrokerPool] Closed connection","retryCount":1,"retryTime":614}')
def _kafkajs_retried(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("retried")
