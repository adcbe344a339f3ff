"""Topics: a broker that does not create topics on first use, and a client asking for one that does not exist.

The office network of ``healthy-single`` (:func:`~kdiag.lab.scenarios.healthy.office_topology`), its one
broker with ``auto.create.topics.enable=false``, as managed clusters (Confluent Cloud, MSK by default)
and most production clusters run.
"""

from __future__ import annotations

from kdiag.lab.scenarios.base import Scenario, Vantage, finding, healthy, problems
from kdiag.lab.scenarios.healthy import SERVER_NAME, office_broker, office_topology

MISSING_TOPIC = "missing"

TOPIC_AUTOCREATE_DISABLED = Scenario(
    name="topic-autocreate-disabled",
    title="Auto-create disabled, and the application's topic does not exist",
    seed="reference/landscape-and-failure-modes.md §3: `Topic X not present in metadata after 60000 ms.`",
    description=f"""\
A healthy broker with auto.create.topics.enable=false. The application produces to a topic nobody
created, {MISSING_TOPIC}. Everything about the connection works: the bootstrap, the metadata, every
advertised broker. But the Metadata answer for {MISSING_TOPIC} is UNKNOWN_TOPIC_OR_PARTITION and the
broker does not create it, so a Java producer blocks for max.block.ms and fails with `Topic
{MISSING_TOPIC} not present in metadata after 60000 ms.`, which reads like a connectivity problem.
kdiag's round trip on --topic {MISSING_TOPIC} says TOPIC_NOT_FOUND, with the kafka-topics.sh command
that creates it. Its default round trip, on its own probe topic, is healthy: kdiag creates that topic
explicitly with the Admin API (CreateTopics is allowed even with auto-create off), which also shows the
cluster is fine and only the topic is missing.""",
    topology=office_topology("autocreate"),
    brokers=(office_broker(overrides={"auto.create.topics.enable": "false"}),),
    vantages=(
        Vantage(
            "client-missing-topic", host="client", bootstrap=f"{SERVER_NAME}:9092", args=("--topic", MISSING_TOPIC),
            expect=problems(finding("TOPIC_NOT_FOUND", title=f"Topic {MISSING_TOPIC} does not exist",
                                    fix=f"--create --topic {MISSING_TOPIC}"),
                            stages={"metadata": "ok", "advertised": "ok", "roundtrip": "fail"}),
            why="The topic is not there and the broker will not create it on first use.",
        ),
        Vantage("client-probe-topic", host="client", bootstrap=f"{SERVER_NAME}:9092", expect=healthy(),
                why="kdiag's own probe topic is created explicitly, which auto.create.topics.enable does not govern."),
    ),
)

SCENARIOS = (TOPIC_AUTOCREATE_DISABLED,)
