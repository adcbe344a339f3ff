"""kdiag's compatibility matrix: every broker a user runs, each case, and the verdict kdiag must give.

A *target* is a broker implementation at one version: Apache Kafka from the Maven Central jars
(``kdiag.lab.kafka``: ZooKeeper mode for 2.x, KRaft from 3.x), or franz-go's kfake (``tests/compat/kfake``,
an independent implementation of the protocol) capped at an older release's protocol versions. A *case* is
one ``kdiag bootstrap`` run against it; its ``expect`` is written here, per target, before anything runs.

``python3 -m tests.compat`` (through ``scripts/compat``) runs all of it and writes docs/compatibility.md;
``tests/integration/test_compat.py`` runs the slice in ``CI_SLICE`` on every change.
"""

from __future__ import annotations

from dataclasses import dataclass

from kdiag.lab.kafka import uses_zookeeper

KAFKA_VERSIONS = ("2.0.1", "2.1.1", "2.2.2", "2.3.1", "2.4.1", "2.8.2", "3.3.2", "3.6.2", "3.9.2", "4.0.0", "4.4.0")
"""One release each of 2.0-2.3 (the oldest 2.x: 2.0.1 starts on Java 17 with ZooKeeper 3.5's jar; 1.x and
0.x are not 2.x), 2.4-2.8 (ZooKeeper mode), 3.3, 3.6, 3.9, 4.0 and the newest 4.x on Maven Central (KRaft)."""

KFAKE_CAPS = ("0.10", "0.11", "1.0", "2.0", "")
"""kfake capped at the protocol versions of Kafka 0.10, 0.11, 1.0 and 2.0, and uncapped (kfake's own)."""

EC2_NAME = "ip-172-31-18-160.us-west-2.compute.internal"
MISSING_TOPIC = "kdiag-compat-missing"
USER, PASSWORD, WRONG_PASSWORD = "alice", "alice-secret", "not-alices-password"


@dataclass(frozen=True)
class Target:
    kind: str  # kafka | kfake
    version: str  # a Kafka release, or kfake's cap ("" for none)

    @property
    def name(self) -> str:
        if self.kind == "kafka":
            return f"Kafka {self.version} ({'ZooKeeper' if uses_zookeeper(self.version) else 'KRaft'})"
        return f"kfake capped at {self.version}" if self.version else "kfake (uncapped)"

    @property
    def id(self) -> str:
        return f"{self.kind}-{self.version or 'uncapped'}"

    @property
    def release(self) -> tuple[int, int]:
        """The Kafka release whose protocol the target speaks (kfake uncapped: the newest)."""
        if not self.version:
            return (99, 0)
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)

    @property
    def has_scram(self) -> bool:
        """KRaft had no SCRAM before 3.5 (KIP-900); ZooKeeper mode and kfake have it."""
        return self.kind == "kfake" or uses_zookeeper(self.version) or self.release >= (3, 5)


@dataclass(frozen=True)
class Expect:
    """The verdict: the exit status and the one finding (error or warning) that must be there; ``finding``
    None means healthy: no finding of severity error or warning at all."""

    exit: int
    finding: str | None = None

    def __str__(self) -> str:
        return "healthy" if self.finding is None else self.finding


@dataclass(frozen=True)
class Case:
    name: str
    listener: str  # which of the target's endpoints the run bootstraps through: plain | ec2 | sasl | tls | noauto
    args: tuple[str, ...] = ()
    why: str = ""


def sasl_args(mechanism: str, password: str) -> tuple[str, ...]:
    return ("-X", "security.protocol=SASL_PLAINTEXT", "-X", f"sasl.mechanisms={mechanism}",
            "-X", f"sasl.username={USER}", "-X", f"sasl.password={password}")


CASES = (
    Case("healthy, --no-roundtrip", "plain", ("--no-roundtrip",)),
    Case("healthy, full", "plain", (), "the probe topic created, produced to and consumed"),
    Case("EC2 advertised name", "ec2", ("--no-roundtrip",), f"the listener advertises {EC2_NAME}"),
    Case("SASL PLAIN, right password", "sasl", sasl_args("PLAIN", PASSWORD)),
    Case("SASL PLAIN, wrong password", "sasl", sasl_args("PLAIN", WRONG_PASSWORD)),
    Case("SASL SCRAM-SHA-512, right password", "sasl", sasl_args("SCRAM-SHA-512", PASSWORD)),
    Case("SASL SCRAM-SHA-512, wrong password", "sasl", sasl_args("SCRAM-SHA-512", WRONG_PASSWORD)),
    Case("TLS", "tls", ()),
    Case("topic that does not exist", "plain", ("--topic", MISSING_TOPIC), "auto-create on: the broker creates it"),
    Case("auto-create off", "noauto", ("--topic", MISSING_TOPIC)),
)
CASE_BY_NAME = {case.name: case for case in CASES}


def expect(target: Target, case: Case) -> Expect | None:
    """What kdiag must say for ``case`` on ``target``; None: the case does not apply (the reason is
    ``not_applicable``)."""
    if not_applicable(target, case) is not None:
        return None
    if case.listener == "ec2":
        return Expect(1, "ADVERTISED_UNRESOLVABLE")
    if case.listener == "noauto":
        return Expect(1, "TOPIC_NOT_FOUND")
    if case.listener == "sasl":
        if target.release < (1, 0):
            return Expect(1, "BROKER_TOO_OLD")  # SaslHandshake v0 only: raw tokens, no SaslAuthenticate
        if any(WRONG_PASSWORD in arg for arg in case.args):
            # Kafka answers SASL_AUTHENTICATION_FAILED (KIP-152); kfake closes the connection instead.
            return Expect(1, "SASL_CONNECTION_CLOSED" if target.kind == "kfake" else "SASL_AUTH_FAILED")
    if target.kind == "kfake" and target.release < (0, 11) and case.name in ("healthy, full",
                                                                            "topic that does not exist"):
        # Kafka 0.10.0 has no CreateTopics, and kfake creates a topic on Metadata only when the request
        # allows it (v4+), where Kafka itself creates on any older Metadata: the topic is never made.
        return Expect(1, "TOPIC_NOT_FOUND")
    return Expect(0)


def not_applicable(target: Target, case: Case) -> str | None:
    if target.kind == "kfake" and case.listener in ("ec2", "tls"):
        return "kfake advertises where it listens and serves no TLS here"
    if "SCRAM-SHA-512" in " ".join(case.args) and not target.has_scram:
        return "KRaft before 3.5 has no SCRAM (KIP-900)"
    return None


def targets() -> tuple[Target, ...]:
    return tuple(Target("kafka", v) for v in KAFKA_VERSIONS) + tuple(Target("kfake", c) for c in KFAKE_CAPS)


CI_SLICE: tuple[tuple[Target, str], ...] = (
    (Target("kafka", "2.3.1"), "healthy, full"),  # before 2.4: the probe topic's explicit replication factor
    (Target("kafka", "2.3.1"), "SASL SCRAM-SHA-512, wrong password"),
    (Target("kfake", "0.10"), "healthy, full"),  # no CreateTopics at all: the broker's auto-create
    (Target("kfake", "0.11"), "SASL PLAIN, right password"),  # SaslHandshake v0 only: BROKER_TOO_OLD
    (Target("kfake", "1.0"), "SASL PLAIN, wrong password"),  # a close on the wrong password
    (Target("kfake", "2.0"), "healthy, full"),
    (Target("kafka", "4.4.0"), "topic that does not exist"),  # KRaft answers UNKNOWN_TOPIC_OR_PARTITION at first
)
"""What CI runs on every change (tests/integration/test_compat.py): one ZooKeeper-mode Kafka before 2.4,
kfake's protocol caps and a topic the newest KRaft broker auto-creates, about a minute; the newest 4.x
and 3.9 KRaft brokers are what every other integration test runs against."""
