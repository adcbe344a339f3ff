"""kafka-python's words for records it gave up on before a broker took them, read from its source (2.3.2
``kafka/producer/sender.py``; 1.4.7 ``kafka/producer/record_accumulator.py``): a consequence, its cause in other lines
(a leader never reached, a partition without one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import EXPIRED_BATCH, KAFKA_PYTHON, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_PARTITION = r"TopicPartition\(topic='(?P<topic>[^']+)', partition=(?P<partition>\d+)\)"


# 2.x: "Expiring %d record(s) for %s: %s ms has passed since batch creation" (the Java client's words, its
# TopicPartition in Python's repr); 1.4: "Batch for %s containing %s record(s) expired: %d seconds have passed since
# batch creation plus linger time".
@pattern("kafka_python.expiring", KAFKA_PYTHON, "TopicPartition(topic=",
         rf"Expiring (?P<n>\d+) record\(s\) for {_PARTITION}: (?P<ms>\d+) ms has passed|"
         rf"Batch for {_PARTITION.replace('topic>', 'topic2>').replace('partition>', 'partition2>')} containing "
         r"(?P<n2>\d+) record\(s\) expired: (?P<s>\d+) seconds have passed",
         "kafka.errors.KafkaTimeoutError: KafkaTimeoutError: Expiring 1 record(s) for TopicPartition(topic='t1', "
         "partition=0): 120000 ms has passed since batch creation")
def _kafka_python_expiring(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    topic = m.group("topic") or m.group("topic2")
    partition = int(m.group("partition") or m.group("partition2"))
    waited = f"{m.group('ms')} ms" if m.group("ms") else f"{m.group('s')} s"
    yield Sighting(EXPIRED_BATCH, KAFKA_PYTHON, topic=topic, partition=partition,
                   detail=f"{m.group('n') or m.group('n2')} record(s), {waited}")
