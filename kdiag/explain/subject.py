"""What one explain finding rests on: ``Subject`` (the groups of lines about one endpoint, topic or listener)
and ``Context`` (what the whole log says around it: the bootstrap list, the brokers, the consequences, and
the report the log implies). Every builder (``kdiag.explain.builders``) takes one of each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kdiag.explain.implied import Implied, broker
from kdiag.explain.observations import MAX_EXAMPLES, Facts, Group
from kdiag.explain.sightings import BOOTSTRAP, UNKNOWN
from kdiag.report import BrokerReport, Endpoint
from probes.hostport import hostport

BOOTSTRAP_LIST = "<bootstrap.servers>"  # in a command: the client's whole list
BOOTSTRAP_HOST = "<bootstrap host>"  # in a broker setting: the address clients use
_THIS_MACHINE = "(In the fix below, \"this machine\" is the client's machine, where the log comes from.)"


# --- one finding's lines ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """The groups of lines one finding rests on, and the endpoint (or topic) they concern."""

    finding_id: str
    groups: tuple[Group, ...]
    host: str | None = None
    port: int | None = None
    node_id: int | None = None
    role: str = UNKNOWN
    role_from: str | None = None  # how the role was worked out when no line said it
    role_guessed: bool = False  # no line and no fact says the role: it is a guess, and both readings are given

    @property
    def guessed(self) -> bool:
        """Every line is the client's own guess (librdkafka's ``might be caused by``)."""
        return all(g.first.guess for g in self.groups)

    @property
    def count(self) -> int:
        return sum(g.count for g in self.groups)

    @property
    def examples(self) -> list[tuple[int, str]]:
        return sorted(e for g in self.groups for e in g.examples)[:MAX_EXAMPLES]

    @property
    def first_line(self) -> int:
        return min((g.examples[0][0] for g in self.groups if g.examples), default=0)

    @property
    def clients(self) -> list[str]:
        return list(dict.fromkeys(c for g in self.groups for c in g.clients))

    @property
    def symptoms(self) -> set[str]:
        return {g.symptom for g in self.groups}

    @property
    def status(self) -> str | None:
        statuses: Counter[str] = Counter()
        for g in self.groups:
            statuses.update(g.statuses)
        specific = [s for s, _ in statuses.most_common() if s != "error"]
        return specific[0] if specific else next(iter(statuses), None)

    @property
    def addresses(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for g in self.groups for a in g.addresses))

    @property
    def protocol(self) -> str | None:
        return next((p for g in self.groups for p in sorted(g.protocols)), None)

    @property
    def endpoint(self) -> Endpoint | None:
        return Endpoint(self.host, self.port or 9092) if self.host else None

    @property
    def where(self) -> str:
        if self.host is None:
            return "an address the log does not name"
        return hostport(self.host, self.port) if self.port else self.host

    def first(self, attribute: str) -> Any:
        return next((getattr(g.first, attribute) for g in self.groups if getattr(g.first, attribute)), None)


@dataclass(frozen=True)
class Context:
    """What the whole log says around one finding: the bootstrap list, the brokers, the consequences."""

    facts: Facts
    consequences: tuple[Group, ...]
    protocol: str | None  # the client's security.protocol when a line shows it (ssl://host:port/...)
    line: int = 0  # the finding's first line: the bootstrap list in force there is the one that applies
    failing: tuple[BrokerReport, ...] = ()  # every advertised broker the log shows failing, as the implied report has it

    @property
    def bootstrap(self) -> tuple[Endpoint, ...]:
        return self.facts.bootstrap_at(self.line)

    @property
    def topic(self) -> str | None:
        named = next((g.first.topic for g in self.consequences if g.first.topic), None)
        return named or (self.facts.topics[0] if self.facts.topics else None)

    def bootstrap_text(self, fallback: Endpoint | None = None) -> str:
        if self.bootstrap:
            return ",".join(str(e) for e in self.bootstrap)
        return str(fallback) if fallback is not None else BOOTSTRAP_LIST

    def confirm(self, *, fallback: Endpoint | None = None, protocol: str | None = None,
                settings: Sequence[str] = (), topic: str | None = None) -> str:
        """The ``kdiag bootstrap`` command that checks the finding from the client's machine."""
        words = ["kdiag", "bootstrap", self.bootstrap_text(fallback)]
        protocol = protocol or self.protocol
        if protocol and protocol != "PLAINTEXT":
            words += ["-X", f"security.protocol={protocol}"]
        for setting in settings:
            words += ["-X", setting]
        if topic or self.topic:
            words += ["--topic", topic or self.topic or ""]
        return " ".join(words)

    def known_brokers(self, *, besides: Iterable[BrokerReport] = ()) -> tuple[BrokerReport, ...]:
        """The advertised brokers the log names and no line shows failing."""
        taken = {b.node_id for b in besides}
        return tuple(broker(n, e.host, e.port) for n, e in sorted(self.facts.brokers.items()) if n not in taken)

    def implied(self, subject: Subject | None = None, *, used: Endpoint | None = None,
                brokers: Sequence[BrokerReport] = (), **facts: Any) -> Implied:
        """The report the log implies around ``subject``: its bootstrap (or a placeholder), the
        brokers named, the client's protocol; ``facts`` override what one finding's lines say."""
        if used is None and subject is not None and subject.role == BOOTSTRAP:
            used = subject.endpoint
        port = subject.port if subject is not None and subject.port else 9092
        used = used or (self.bootstrap[0] if self.bootstrap else Endpoint(BOOTSTRAP_HOST, port))
        facts.setdefault("protocol", (subject.protocol if subject else None) or self.protocol or "PLAINTEXT")
        # The other brokers the log shows failing too: a fix for one broker alone would advertise the bootstrap
        # address for it, and then for the next one the same (one round-robin balancer in front of all of them).
        taken = {b.node_id for b in brokers}
        named = tuple(sorted((*brokers, *(b for b in self.failing if b.node_id not in taken)), key=lambda b: b.node_id))
        return Implied(used=used, bootstrap=self.bootstrap, brokers=named + self.known_brokers(besides=named), **facts)
