"""The client error lines kdiag recognises, all families together, and the ``Scanner`` that runs them.

Each client family declares its patterns in its own module (``kdiag.explain.clients``): the client
family a line comes from, a literal ``needle`` that every matching line contains (checked first, so the
regex runs only on lines that can match), the precompiled regex, and a handler that turns the match into
``Sighting``s (a failure the line reports) and ``Fact``s (a bootstrap address or an advertised broker the
line reveals); ``kdiag.explain.sightings`` says what those are. ``PATTERNS`` here is every family's, in a
fixed order, which is also the order one line's sightings come out in.

The strings are the real ones: captured from kcat, confluent-kafka, the Java console producer, kafkajs,
Sarama and franz-go against real brokers (tests/fixtures/client_logs). The few that no lab situation
produces (Go's "first record does not look like a TLS handshake", x509 expiry, Node's altnames error,
kafka-python) come from the clients' sources and the reference (landscape §2), and say so.

``Scanner`` keeps the little state a Java log needs (``ScanState``): the connection a stack trace belongs
to (``Connection to node -1 (localhost/127.0.0.1:9093) failed authentication`` followed by ``Caused
by: ... No subject alternative DNS name matching localhost found.``) and an ``OutOfMemoryError``
waiting for the ``NetworkReceive.readFrom`` frame that makes it a TLS listener read as plaintext.
"""

from __future__ import annotations

import itertools

from collections.abc import Iterable
from dataclasses import dataclass, field

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.clients import (broker, broker_configs, broker_lists, command_line, coordinator, erlang, framework_topics, generic, go,
                                   go_gave_up, hangups, in_use, java, java_connecting, java_gave_up, java_partitions,
                                   java_states, kafka_errors, kafka_python, kafkajs, kerberos, librdkafka, librdkafka_cut,
                                   librdkafka_debug, librdkafka_errors, librdkafka_handshake, librdkafka_old, lua,
                                   net_tools, openssl, other_servers, python_connecting, python_gave_up, python_topics,
                                   ruby, sasl_answers, scheme_addresses, sizes, unfamiliar_libraries, versions)
from kdiag.explain.clients import go_codes, go_guesses
from kdiag.explain.sightings import Item, Pattern, ScanState, Sighting

PATTERNS: list[Pattern] = [*librdkafka.PATTERNS, *librdkafka_cut.PATTERNS, *openssl.PATTERNS, *librdkafka_old.PATTERNS,
                           *librdkafka_debug.PATTERNS, *librdkafka_errors.PATTERNS, *librdkafka_handshake.PATTERNS, *sasl_answers.PATTERNS,
                           *framework_topics.PATTERNS, *java_connecting.PATTERNS, *java.PATTERNS,
                           *java_gave_up.PATTERNS, *java_states.PATTERNS, *java_partitions.PATTERNS,
                           *broker.PATTERNS, *command_line.PATTERNS, *kafkajs.PATTERNS, *go.PATTERNS, *scheme_addresses.PATTERNS,
                           *go_gave_up.PATTERNS, *go_codes.PATTERNS, *go_guesses.PATTERNS, *python_connecting.PATTERNS,
                           *kafka_python.PATTERNS, *python_gave_up.PATTERNS, *python_topics.PATTERNS, *kafka_errors.PATTERNS,
                           *coordinator.PATTERNS,
                           *sizes.PATTERNS, *versions.PATTERNS, *other_servers.PATTERNS, *broker_lists.PATTERNS,
                           *broker_configs.PATTERNS, *ruby.PATTERNS, *erlang.PATTERNS,
                           *unfamiliar_libraries.PATTERNS, *lua.PATTERNS, *hangups.PATTERNS,
                           *in_use.PATTERNS, *kerberos.PATTERNS, *net_tools.PATTERNS, *generic.PATTERNS]
"""Every pattern, in the order a line's sightings come out: librdkafka, Java, the broker's log, command lines,
kafkajs, Go, the Python clients, Kafka's own error names as every client spells them, a record, batch or fetch over a
size limit in every client's words, a version gap in every client's words, the logs of servers that are not Kafka
(ZooKeeper's) about a client that spoke Kafka to them, and last the clients of no family above (ruby-kafka's and the
Erlang clients' roles, lua-resty-kafka's (OpenResty's resolver and its printed brokers), a hang-up in the words of
libraries no family module reads whole, a connection that had worked or a client that retried (``in_use``), the KDC's principal-unknown in each Kerberos library's words,
then any runtime's socket errors)."""


REMEMBERED_HOSTS = 256
"""How many hosts the scanner remembers the port of (for lines that name a host without its port)."""


# --- the scanner -----------------------------------------------------------------------------------------


MATCHES_PER_LINE = 8
"""A pattern read at most this many times in one line (a folded record repeats its causes; a hostile line
cannot make one pattern's handler run without bound)."""


@dataclass
class Scanner(ScanState):
    """Runs every pattern whose needle is in a line; keeps the few facts the next lines need."""

    patterns: tuple[Pattern, ...] = field(default_factory=lambda: tuple(PATTERNS))

    def scan(self, number: int, text: str, needles: set[str] | None = None) -> list[Item]:
        """What line ``number`` says; ``needles``: those known to be in it (else each is looked for)."""
        self.line, self.text = number, text
        found: list[Item] = []
        if needles is None:
            candidates: Iterable[Pattern] = (p for p in self.patterns if p.needle in text)
        elif len(needles) == 1:
            candidates = _BY_NEEDLE.get(next(iter(needles)), ())
        else:
            candidates = sorted((p for n in needles for p in _BY_NEEDLE.get(n, ())), key=_ORDER.__getitem__)
        for candidate in candidates:  # every match: a stack trace folded onto one line names each cause's host
            for m in itertools.islice(candidate.regex.finditer(text), MATCHES_PER_LINE):
                found.extend(candidate.handler(m, self))
        for item in found:
            if item.host and item.port and (item.host in self.ports or len(self.ports) < REMEMBERED_HOSTS):
                self.ports[normalise_host(item.host)] = item.port
        return _unique(found)



NEEDLES: tuple[str, ...] = tuple(dict.fromkeys(p.needle for p in PATTERNS))
"""Every pattern's needle, once: a line holding none of them matches no pattern."""

_BY_NEEDLE: dict[str, tuple[Pattern, ...]] = {n: tuple(p for p in PATTERNS if p.needle == n) for n in NEEDLES}
_ORDER: dict[Pattern, int] = {p: i for i, p in enumerate(PATTERNS)}


def _unique(items: list[Item]) -> list[Item]:
    """What one line says, each thing once: two patterns may read the same failure in one line (kcat's
    ``% ERROR: Local: Authentication failure: ...: SASL authentication error: ...``); the first wins."""
    seen: set[tuple[object, ...]] = set()
    unique = []
    # A failure read without its topic or endpoint, beside the same failure read with one (Kafka's error words
    # read by kafka_errors, in a line a family's pattern also reads), says less: it goes.
    placed = {item.symptom for item in items if isinstance(item, Sighting) and (item.topic or item.host is not None)}
    items = [item for item in items
             if not (isinstance(item, Sighting) and item.topic is None and item.host is None and item.symptom in placed)]
    # What a catch-all pattern read (any.error_eof) says less than what a family's own pattern read in the line.
    if any(isinstance(item, Sighting) and not item.catch_all for item in items):
        items = [item for item in items if not (isinstance(item, Sighting) and item.catch_all)]
    for item in items:
        key = ((item.symptom, item.host, item.port, item.node_id, item.topic) if isinstance(item, Sighting)
               else (item.kind, item.host, item.port, item.node_id, item.name))
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique
