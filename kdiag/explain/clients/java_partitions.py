"""A Java client that gave up on one partition whose leader it did not know: the client's own words name the
partition, not the cause, so each is a reading.

- the producer before 2.1 (RecordBatch/ProducerBatch.maybeExpire): ``Batch containing 1 record(s) expired due to
  timeout while requesting metadata from brokers for orders-3``: the batch sat in the accumulator because the
  partition had no known leader (records are batched only after the topic's metadata came, so the topic exists and
  the bootstrap answered): a partition without a leader, likely;
- the consumer (KafkaConsumer.position, Fetcher): ``Timeout of 60000ms expired before the position for partition
  orders-1 could be determined``: the offset lookup goes to the partition's leader: no leader, likely, or a leader
  whose advertised address the client cannot reach.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from kdiag.explain.sightings import JAVA, NO_LEADER, Fact, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_PARTITION = r"(?P<topic>[A-Za-z0-9._<>-]{1,249})-(?P<partition>\d{1,6})"


# (name, needle, the words after which the partition comes, an example, what the client waited for)
_GAVE_UP = (
    ("java.batch_expired_metadata", "while requesting metadata from brokers",
     r"expired due to timeout while requesting metadata from brokers for ",
     "org.apache.kafka.common.errors.TimeoutException: Batch containing 1 record(s) expired due to timeout while "
     "requesting metadata from brokers for orders-3",
     "the producer's batch waited for the partition's leader in the metadata"),
    ("java.position_timeout", "could be determined", r"Timeout of \d+ms expired before the position for partition ",
     "org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before the position for "
     "partition orders-1 could be determined",
     "the consumer asked the partition's leader for an offset and got no answer"),
)


def _handler(why: str) -> Callable[[re.Match[str], ScanState], Iterator[Item]]:
    def handler(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        yield from _leaderless(m, why, ("ADVERTISED_UNREACHABLE",))
    return handler


for _name, _needle, _words, _example, _why in _GAVE_UP:
    pattern(_name, JAVA, _needle, _words + _PARTITION, _example)(_handler(_why))


def _leaderless(m: re.Match[str], why: str, alternatives: tuple[str, ...]) -> Iterator[Item]:
    topic, partition = m.group("topic"), int(m.group("partition"))
    if not topic.startswith("<"):
        yield Fact("topic", name=topic)
    yield Sighting(NO_LEADER, JAVA, topic=None if topic.startswith("<") else topic, partition=partition,
                   detail="LEADER_NOT_AVAILABLE", guess=f"{m.group(0)} ({why})", alternatives=alternatives)
