"""A Java client that gave up on one partition whose leader it did not know: the client's own words name the
partition, not the cause, so each is a reading.

- the producer before 2.1 (RecordBatch/ProducerBatch.maybeExpire): ``Batch containing 1 record(s) expired due to
  timeout while requesting metadata from brokers for orders-3``: the batch sat in the accumulator because the
  partition had no known leader (records are batched only after the topic's metadata came, so the topic exists and
  the bootstrap answered): a partition without a leader, likely;
- the client's Metadata on partitions that carry LISTENER_NOT_FOUND: ``4 partitions have leader brokers without a
  matching listener, including [orders-1, ...]``: the metadata answer came (a broker answered), and the leaders named
  have no endpoint on the client's listener: certain for those partitions (NO_LEADER), the cause not in the words;
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


@pattern("java.leaders_without_listener", JAVA, "leader brokers without a matching listener",
         rf"(?P<n>\d+) partitions? have leader brokers without a matching listener, including \[?(?:{_PARTITION})?",
         "[2026-12-07 10:30:02,871] WARN [Consumer clientId=lag-1, groupId=lag] 3 partitions have leader brokers without "
         "a matching listener, including [orders-1, orders-4, orders-7] (org.apache.kafka.clients.NetworkClient)")
def _leaders_without_listener(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("metadata")  # a broker answered the metadata request
    topic = m.group("topic")
    partition = m.group("partition")
    if topic is not None:
        yield Fact("topic", name=topic)
    yield Sighting(NO_LEADER, JAVA, topic=topic, partition=int(partition) if partition else None,
                   detail="LISTENER_NOT_FOUND")
