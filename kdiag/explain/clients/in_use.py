"""A connection that had worked, writes that failed after the metadata answered, and a client that retried on new
connections, in the words of the libraries that say so, each from its source:

- Sarama's ``ErrNotConnected`` (errors.go: ``kafka: broker not connected``): broker.go returns it for a send on a
  broker whose connection was closed before it (Sarama closes one after an error on it), so the connection the
  producer or the client had been using is gone; the producer logs ``producer/broker/N state change to [closing]
  because kafka: broker not connected``. What it means is read with every closed connection (``closing``,
  ``connection_age``: a connection that had carried requests was most likely closed while idle);
- the Java client's NetworkClient (``Cancelled in-flight {api} request with correlation id {n} due to node {id} being
  disconnected (elapsed time since creation: ..ms, ...)``): a request on a broker's connection (a node id from the
  metadata) that closed under it. A PRODUCE or a METADATA request is what a quiet producer sends after a pause, on a
  connection that had worked; a consumer's FETCH and heartbeats keep theirs busy (a close there is the broker's, read
  from the lines around it), and the first exchange's API_VERSIONS and SASL requests are no connection in use;
- segmentio/kafka-go's ``WriteErrors`` (error.go: ``kafka write errors (%d/%d)``, since 0.4.x ``Kafka write errors
  (%d/%d), errors: [...]``): the Writer returns it only after its metadata answered with the topic's partitions
  (writer.go WriteMessages returns the metadata's own error before), so the bootstrap worked and the produce to a
  partition's leader, at the address the metadata advertises, failed: the errors it lists say why, and without them
  it is an advertised broker the client did not reach;
- kafkajs's retrier (src/retry/index.js): ``KafkaJSNumberOfRetriesExceeded`` and each failed attempt's ``retryCount``
  (1 and up): the client retried, each time on a new connection, and failed the same way each time, which a
  connection closed while idle does not (the reconnect works).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (ADVERTISED, ADVERTISED_DOWN, ANY, CONNECTION_CLOSED, GO, JAVA, KAFKAJS, Fact,
                                     Item, Pattern, ScanState, Sighting, registrar, role_of)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_AFTER_A_PAUSE = ("PRODUCE", "METADATA")  # what a quiet producer sends when it wakes
_SARAMA_BROKER = re.compile(r"(?:producer/broker/|broker[ #])(?P<id>-?\d+)\b")


@pattern("sarama.not_connected", GO, "broker not connected", r"\bkafka: broker not connected\b",
         "[sarama] producer/broker/1005 state change to [closing] because kafka: broker not connected")
def _sarama_not_connected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    named = _SARAMA_BROKER.search(m.string[:m.start()])
    node_id = int(named.group("id")) if named else None
    yield Sighting(CONNECTION_CLOSED, GO, node_id=node_id, role=role_of(node_id), detail=m.group(0))


@pattern("java.cancelled_in_flight", JAVA, "being disconnected",
         r"Cancelled in-flight (?P<api>[A-Z_]+) request with correlation id \d+ due to node (?P<id>\d+) being disconnected",
         "[Producer clientId=producer-1] Cancelled in-flight PRODUCE request with correlation id 12 due to node 1 being "
         "disconnected (elapsed time since creation: 3ms, elapsed time since send: 3ms, request timeout: 30000ms)")
def _java_cancelled_in_flight(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("api") not in _AFTER_A_PAUSE:
        return
    node_id = int(m.group("id"))
    yield Sighting(CONNECTION_CLOSED, JAVA, node_id=node_id, role=role_of(node_id), detail=m.group(0))


@pattern("segmentio.write_errors", ANY, "write errors (", r"\b[Kk]afka write errors \((?P<failed>\d+)/(?P<all>\d+)\)"
         r"(?P<listed>, errors: \[.+\])?", "pusher.go:47 kafka write errors (1/1)")
def _segmentio_write_errors(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("listed"):
        return  # the errors it lists are read by their own patterns
    yield Sighting(ADVERTISED_DOWN, GO, role=ADVERTISED, detail=m.group(0))


@pattern("kafkajs.retried", KAFKAJS, "NumberOfRetriesExceeded", r"NumberOfRetriesExceeded",
         "  Caused by: KafkaJSNumberOfRetriesExceeded: Closed connection")
@pattern("kafkajs.retry_count", KAFKAJS, "retryCount", r"""\bretryCount["']?\s*[:=]\s*[1-9]""",
         '{"level":"ERROR","logger":"kafkajs","message":"[BrokerPool] Closed connection","retryCount":1}')
def _kafkajs_retried(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("retried")
