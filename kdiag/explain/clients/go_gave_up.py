"""A Go client's lines that say it gave up waiting, not why: segmentio/kafka-go's ``DialLeader`` (and
``LookupPartition``, ``LookupLeader``) at its context's deadline. ``findings`` attaches them to the cause another line
names, or reads what they can mean when none does (``readings.topic_missing``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import GO, NOT_IN_METADATA, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# kafka-go dialer.go: DialLeader is LookupPartition, then a dial of the leader. LookupPartition dials the bootstrap
# address, then reads the topic's partitions again and again (UNKNOWN_TOPIC_OR_PARTITION and LEADER_NOT_AVAILABLE are
# temporary errors: it backs off and retries) until the partition shows up with a leader or the context ends, and then
# returns ctx.Err(), bare: "context deadline exceeded". A TCP connect or a lookup the deadline cuts says so in Go's net
# words instead ("dial tcp 10.0.0.1:9092: i/o timeout"), and kafka-go's own "failed to dial: " wraps every error of
# the connect itself (a TLS handshake the deadline cut included). So the bare words after an application's "dial"
# (its README's `log.Fatal("failed to dial leader:", err)`) are the client waiting for a topic's metadata that never
# came. A call named in the line (a stack frame, a wrapped error) says the same.
_DIAL = re.compile(r"\b(?:DialLeader|LookupPartition|LookupLeader)\b|\bdial(?:ing|ed)?\b(?! tcp)(?P<app>[\w -]{1,40}?)"
                   r"\s*:\s*context deadline exceeded", re.IGNORECASE)


@pattern("go.kafka_go_dial_deadline", GO, "context deadline exceeded", r"context deadline exceeded",
         "2024/06/05 14:20:40 failed to dial leader: context deadline exceeded")
def _kafka_go_dial_deadline(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    line = m.string
    if "dial tcp" in line or re.search(r"failed to dial: context deadline exceeded", line):
        return  # the connect itself: Go's net words, or kafka-go's wrapper around the connect
    dialled = _DIAL.search(line)
    if dialled is None or (dialled.group("app") is not None and not dialled.group("app").strip()):
        return
    yield Sighting(NOT_IN_METADATA, GO, topic=scan.topic,
                   detail="kafka-go's DialLeader waited for the topic's partition until its deadline")
