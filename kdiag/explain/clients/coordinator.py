"""COORDINATOR_NOT_AVAILABLE (15), in every client's spelling: the broker asked for a group's coordinator (or a
transactional id's) cannot name one. The coordinator is the leader of the partition of ``__consumer_offsets``
(``__transaction_state``) the group hashes to, so the answer says that partition has no leader: a broker holding its
replicas is down, or the topic was never created (``offsets.topic.replication.factor`` above the brokers alive, 3
against a single broker). It is NO_LEADER, of that internal topic; for a moment while a cluster starts it is normal.

The spellings: Errors.java's ``COORDINATOR_NOT_AVAILABLE`` and "The coordinator is not available." (before 2.0
``GROUP_COORDINATOR_NOT_AVAILABLE``, "The group coordinator is not available."; CoordinatorNotAvailableException),
librdkafka's ``Broker: Coordinator not available`` (``Broker: Group coordinator not available`` before 1.x), Sarama's
"kafka server: The coordinator is not available" ("Offset's topic has not yet been created." before, and its log's
``client/coordinator coordinator for consumer group G is not available``), franz-go's and kafkajs's code name and
Errors.java's words, kafka-go's ``[15] Group Coordinator Not Available``, kafka-python's and brod's
``GroupCoordinatorNotAvailable(Error)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import ANY, NO_LEADER, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

COORDINATOR_NOT_AVAILABLE = "COORDINATOR_NOT_AVAILABLE"
OFFSETS_TOPIC, TRANSACTIONS_TOPIC = "__consumer_offsets", "__transaction_state"

# the code's name also right after an underscore: librdkafka's enum, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE
_WORDS = (r"(?<![A-Za-z])(?:GROUP_)?COORDINATOR_NOT_AVAILABLE\b|CoordinatorNotAvailable|[Cc]oordinator not available"
          r"|Coordinator Not Available|[Cc]oordinator is not available|Offset's topic has not yet been created"
          r"|client/coordinator coordinator for consumer group \S+ is not available")

_EXAMPLES = (("COORDINATOR_NOT_AVAILABLE", "[ERROR] unable to join group; group: orders, err: COORDINATOR_NOT_AVAILABLE: "
              "The coordinator is not available."),
             ("CoordinatorNotAvailable", "org.apache.kafka.common.errors.CoordinatorNotAvailableException: The "
              "coordinator is not available."),
             ("oordinator not available", "%4|1700000000.000|CGRPCOORD|rdkafka#consumer-1| [thrd:main]: "
              "kafka-1.example:9092/1: Group \"orders\" GroupCoordinator response error: Broker: Group coordinator "
              "not available"),
             ("Coordinator Not Available", "[15] Group Coordinator Not Available: the broker returns this error code "
              "for group coordinator requests"),
             ("oordinator is not available", "kafka server: The coordinator is not available"),
             ("Offset's topic has not yet been created", "kafka: error while consuming orders/0: kafka server: "
              "Offset's topic has not yet been created."),
             ("client/coordinator coordinator for consumer group", "[sarama] client/coordinator coordinator for "
              "consumer group orders is not available"))

for _needle, _example in _EXAMPLES:
    @pattern(f"any.coordinator_not_available.{len(PATTERNS)}", ANY, _needle, _WORDS, _example)
    def _coordinator_not_available(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        topic = TRANSACTIONS_TOPIC if re.search(r"transaction", m.string, re.IGNORECASE) else OFFSETS_TOPIC
        yield Sighting(NO_LEADER, ANY, topic=topic, detail=COORDINATOR_NOT_AVAILABLE)
