"""kafka-sharp (Criteo's .NET client) in its own words, from Routing/ProducerRouter.cs: ``[Producer] No partition
available for topic {0}, postponing messages.`` when its routing table, the partitions the metadata gave a leader,
has none for the topic: the topic does not exist (kafka-sharp never asks for it to be created), or none of its
partitions has a leader."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids


@pytest.mark.parametrize("line, topic", [
    ("[Producer] No partition available for topic orders, postponing messages.", "orders"),
    # a paste whose topic the user replaced with a placeholder
    ("[Producer] No partition available for topic <topic_name> postponing messages.", "<topic_name>"),
])
def test_no_partition_available_is_likely_a_missing_topic_or_one_without_a_leader(line, topic):
    explanation = explained(line)
    assert ids(explanation) == ["TOPIC_NOT_FOUND", "NO_LEADER"]
    missing = explanation.findings[0]
    assert missing.title == f"Likely: Topic {topic} does not exist" and missing.severity == "warning"
    assert "LEADER_NOT_AVAILABLE" in missing.explanation
    assert explanation.findings[1].title.startswith("Or: ")
