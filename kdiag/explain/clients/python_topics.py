"""kafka-python's and aiokafka's words about one topic, read from their sources (kafka-python 2.3.2
``kafka/cluster.py``, ``kafka/consumer/fetcher.py``, ``kafka/errors.py``; aiokafka ``cluster.py``,
``consumer/fetcher.py``): the metadata's error for a named topic, and TopicAuthorizationFailedError with the topics
it carries. Kafka's error names alone are read by ``kafka_errors``; these name the topic too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (KAFKA_PYTHON, NO_LEADER, TOPIC_DENIED, TOPIC_MISSING, Item, Pattern, ScanState,
                                     Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_TOPIC = r"[A-Za-z0-9._-]+"


# cluster.py update_metadata: log.error("Topic %s is not authorized for this client", topic); fetcher.py:
# log.warning("Not authorized to read from topic %s.", tp.topic) (both clients).
@pattern("python.topic_not_authorized", KAFKA_PYTHON, "uthorized ",
         rf"Topic (?P<a>{_TOPIC}) is not authorized for this client|"
         rf"Not authorized to read from topic (?P<b>{_TOPIC})\.",
         "ERROR:kafka.cluster:Topic t1 is not authorized for this client")
def _python_topic_not_authorized(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TOPIC_DENIED, KAFKA_PYTHON, topic=m.group("a") or m.group("b"), detail=m.group(0))


# cluster.py: log.error("Error fetching metadata for topic %s: %s", topic, error_type), the error as its class prints
# (kafka-python: "[Error 5] LeaderNotAvailableError"; a class repr in aiokafka).
_METADATA_ERRORS = {"UnknownTopicOrPartitionError": TOPIC_MISSING, "TopicAuthorizationFailedError": TOPIC_DENIED,
                    "LeaderNotAvailableError": NO_LEADER}


@pattern("python.topic_metadata_error", KAFKA_PYTHON, "Error fetching metadata for topic ",
         rf"Error fetching metadata for topic (?P<topic>{_TOPIC}): [^:]*?(?P<error>{'|'.join(_METADATA_ERRORS)})",
         "ERROR:kafka.cluster:Error fetching metadata for topic t1: [Error 3] UnknownTopicOrPartitionError")
def _python_topic_metadata_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    symptom = _METADATA_ERRORS[m.group("error")]
    yield Sighting(symptom, KAFKA_PYTHON, topic=m.group("topic"),
                   detail="LEADER_NOT_AVAILABLE" if symptom == NO_LEADER else m.group("error"))


# TopicAuthorizationFailedError(set([topic])) in kafka-python prints "{'t1'}"; aiokafka's TopicAuthorizationFailedError(
# topic) the name alone.
@pattern("python.topic_authorization_error", KAFKA_PYTHON, "TopicAuthorizationFailedError: ",
         rf"TopicAuthorizationFailedError: (?:\{{(?P<set>'{_TOPIC}'(?:, '{_TOPIC}')*)\}}|(?P<one>{_TOPIC})$)",
         "kafka.errors.TopicAuthorizationFailedError: [Error 29] TopicAuthorizationFailedError: {'t1'}")
def _python_topic_authorization_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for topic in re.findall(r"'([^']+)'", m.group("set")) if m.group("set") else [m.group("one")]:
        yield Sighting(TOPIC_DENIED, KAFKA_PYTHON, topic=topic, detail="TopicAuthorizationFailedError")
