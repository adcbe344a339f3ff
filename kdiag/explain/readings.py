"""Findings that are readings, not certainties: what explain says when its lines fit more than one cause.

A finding is certain when its line says what failed and where (``Failed to resolve 'kafka:9092'`` from the
bootstrap's connection). It is a *reading* when:

- the line is itself a guess (librdkafka's ``broker might require SASL authentication``, ``might be caused
  by incorrect security.protocol``): the finding is shown as *likely*, with the other causes the same line
  has, and the ``kdiag bootstrap`` command that decides (``likely``);
- no line says whether the failing address is the bootstrap or an address the cluster's metadata gave the
  client: both readings are given, each saying so (``both_roles``);
- the client says only that the broker hung up (Sarama's ``EOF``, kafkajs's ``Closed connection``, Java's
  ``Bootstrap broker ... disconnected``): each security setting that ends that way is a reading
  (``closing.closed_connection``); or that it reached no broker at all (``unanswered``);
- the bootstrap address is a port another service is known to use (ZooKeeper's 2181, Schema Registry's
  8081, ...) and the client only gave up: most likely not Kafka there (``well_known_port``).

A reading is a warning, never an error: an error is for what the lines show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from kdiag.diagnose.wording import join_words
from kdiag.diagnose.rule import finding
from kdiag.explain.clients.sasl_answers import OWN_WORDS
from kdiag.explain.shared import consequence_sentence, with_confirm
from kdiag.explain.observations import Group
from kdiag.explain.sightings import ANY, BOOTSTRAP, HEAP_EXHAUSTED, HEDGE, NOT_IN_METADATA, UNKNOWN, Sighting
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

Builder = Callable[[Subject, Context], Finding]

LIKELY, OR, MAYBE = "Likely: ", "Or: ", "Maybe: "

# What else a line that is a guess can mean, per the finding it suggests.
_SLOW_PATH = ("the path is only slow (a VPN, a distant region) and the application gave up before the connect completed: "
              "librdkafka says a connect timed out in its own words after socket.connection.setup.timeout.ms (30 s)")
_JAVA_LOOKUP = ("the name exists but its lookup failed for a moment (a resolver that timed out): the Java client words "
                "any failed lookup of a node's host so (kafka-clients 2.1 and 2.2 as `No entry found for connection N`, "
                "KAFKA-7974, fixed in 2.2.1, losing the name it was)")
OTHER_CAUSES = {
    "SASL_REQUIRED": ("the client and the broker disagree on the protocol's versions (a client release that asks an "
                      "old broker for what it does not answer: librdkafka 2.6.0 against Kafka 2.x did), or the "
                      "listener expects TLS and the client speaks plaintext"),
    "TLS_EXPECTED": ("the listener wants SASL the client does not send, or the broker is older than the client "
                     "expects (before 0.10 it does not answer ApiVersion), or a proxy in between cut the connection"),
    "TLS_EXPECTED+broker": ("the client speaks TLS and gives up on the broker's certificate (a CA it does not trust, "
                            "a name not in it), or the listener wants a client certificate it did not send"),
    "TLS_CLIENT_CERT_REQUIRED": ("the listener refuses the certificate the client sent (one not issued by a CA it "
                                 "trusts), or something in between (a proxy, a TLS-inspecting firewall) breaks the "
                                 "handshake"),
    "TLS_UNEXPECTED": ("the port is TLS but something in between (a proxy, a firewall letting only some TLS through) "
                       "cut the handshake"),
    "BROKER_TOO_OLD": ("the server is a Kafka-compatible one that does not implement the request (Azure Event Hubs, "
                       "Pulsar's KoP, Redpanda, a proxy), or the client's own version setting (Sarama's Version, "
                       "kafka-python's api_version, librdkafka's broker.version.fallback) names another broker release "
                       "than the real one"),
    "SASL_AUTH_FAILED": ("the listener expects TLS (a plaintext SASL login is cut off), or the mechanism is not "
                         "enabled there"),
    "NOT_KAFKA+zookeeper": ("a real ZooKeeper client connects after it saw a newer ensemble member, or one older than "
                         "the server"),
    "ADVERTISED_UNRESOLVABLE": "the name is the client's own bootstrap address, mistyped or not in this network's DNS",
    "ADVERTISED_UNRESOLVABLE+java": _JAVA_LOOKUP, "BOOTSTRAP_UNRESOLVABLE+java": _JAVA_LOOKUP,
    "TLS_CERT_UNTRUSTED": ("the CA is trusted but the name the client connects to is not in the broker's certificate "
                           "(hostname verification)"),
    "TLS_CERT_UNTRUSTED+openssl": ("the client trusts that issuer itself (the intermediate given to it, or a root that "
                                   "signs broker certificates directly, as Strimzi's own cluster CA does)"),
    "TLS_HOSTNAME_MISMATCH": ("the broker's certificate does not chain to a CA the client trusts (a private CA not in "
                              "its trust store, a chain sent without its intermediate)"),
    "NO_LEADER+go": ("the leader exists but Sarama could not connect to it: its client deregisters a broker whose "
                     "connection failed (an advertised address that does not resolve or connect from the client's "
                     "machine) and then reports that broker's partitions as having no leader"),
    "TOPIC_NOT_FOUND": ("the topic exists but none of its partitions has a leader (LEADER_NOT_AVAILABLE: no in-sync "
                        "replica alive to lead it)"),
    "TOPIC_NOT_FOUND+java": ("the topic's describeTopics failed for another reason within the check's timeout (Spring Kafka's "
                             "missingTopicsFatal counts any failure): no broker answered in time, or it is not authorized"),
    "BOOTSTRAP_TIMEOUT+go": ("the connection was made but the TLS handshake never finished within the dial timeout (a "
                             "listener that does not answer TLS, a proxy holding the connection)"),
    "ADVERTISED_UNREACHABLE+go": ("the connection was made but the TLS handshake never finished within the dial "
                                  "timeout (a listener that does not answer TLS, a proxy holding the connection)"),
    "BOOTSTRAP_TIMEOUT+librdkafka": _SLOW_PATH, "ADVERTISED_UNREACHABLE+librdkafka": _SLOW_PATH,
    "SASL_REQUIRED+go": ("the listener expects TLS and the client speaks plaintext, or the client speaks TLS to a "
                         "plaintext listener (franz-go's DialTLSConfig against SASL_PLAINTEXT): each hangs up after "
                         "the first request"),
}

# Ports other services are known to listen on, where a client was pointed instead of a Kafka listener.
OTHER_SERVICES = {2181: "ZooKeeper's client port", 2888: "ZooKeeper's peer port", 3888: "ZooKeeper's election port",
                  8081: "Schema Registry's port", 8082: "the Confluent REST Proxy's port",
                  8083: "Kafka Connect's REST port", 8088: "ksqlDB's port", 9021: "Control Center's port",
                  80: "HTTP's port", 8080: "a usual HTTP port", 22: "SSH's port", 9644: "Redpanda's admin port"}


def hedged(built: Finding, prefix: str, words: str, **evidence: object) -> Finding:
    """``built`` as a reading: a warning whose title says so and whose explanation starts with ``words``."""
    severity = "warning" if built.severity == "error" else built.severity
    data = {**dict(built.evidence), "certain": False, **evidence}
    return replace(built, severity=severity, title=prefix + built.title,
                   explanation=f"{words} {built.explanation}".strip(), evidence=data)


# The catalog ids of the other causes a guess's words also cover (OTHER_CAUSES says them in words): each is an
# "Or" reading beside the client's own guess.
OTHER_READINGS = {
    "SASL_REQUIRED": ("TLS_EXPECTED",),
    "SASL_REQUIRED+go": ("TLS_EXPECTED", "TLS_UNEXPECTED"),
    "TLS_EXPECTED": ("SASL_REQUIRED",),
}


def other_readings(built: Finding, subject: Subject) -> tuple[str, ...]:
    return OTHER_READINGS.get(f"{built.id}+{subject.clients[0]}" if subject.clients else built.id) or \
        OTHER_READINGS.get(built.id, ())


def or_reading(guessed: Finding, other: Finding) -> Finding:
    """Another cause the words of the client's guess cover, as an "Or" reading beside it."""
    confirm = str(guessed.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    words = (f"The client guessed {guessed.id}, but its words also fit this cause. `{confirm}` on the client's "
             "machine decides.")
    return hedged(other, OR, words, readings=[guessed.id, other.id])


def likely(built: Finding, subject: Subject) -> Finding:
    """A finding whose lines are the client's own guess (``subject`` says which words)."""
    guess = subject.first("guess") or ""
    others = OTHER_CAUSES.get(f"{built.id}+{subject.clients[0]}" if subject.clients else built.id) or \
        OTHER_CAUSES.get(built.id, "something else fails at the same step")
    confirm = str(built.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    said = (f"The client's own words are a guess (`{guess}`)" if HEDGE.search(guess) else
            f"The client's words (`{guess}`) do not name the cause, only where it surfaced")
    words = (f"{said}, so this is the likely reading, not a certainty: the same words also come when {others}. "
             f"`{confirm}` on the client's machine decides.")
    if OWN_WORDS in guess:  # the broker's reason, not the client's guess (clients.sasl_answers)
        words = (f"The broker's words (`{guess}`) do not say the credentials were wrong, so this is the likely reading, "
                 f"not a certainty. `{confirm}` on the client's machine shows the broker's answer.")
    return hedged(built, LIKELY, words, guess=guess)


def terminated_during_authentication(built: Finding) -> Finding:
    """Java's "terminated during authentication" with no TLS setting in the paste: its own words list several causes,
    and only a client that authenticates (TLS or SASL) gets there, so TLS to a plaintext listener is the likely one."""
    confirm = str(built.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    words = ("The Java client says the connection ended while it authenticated and lists several causes itself; the "
             "paste does not show its security.protocol. A TLS client at a plaintext listener is the usual one; the "
             "same words come when a SASL client without TLS meets a TLS listener, when a broker before 1.0 refuses "
             f"the SASL credentials, or when a firewall lets only some TLS through. `{confirm}` decides.")
    return hedged(built, LIKELY, words, guess="terminated during authentication")


def or_readings(subject: Subject, context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The other causes a guessed line fits (its sightings' ``alternatives``), each an "Or:" reading beside the likely
    one, so a paste that is the other cause still finds its id."""
    ids = [i for i in dict.fromkeys(a for g in subject.groups for a in g.first.alternatives) if i != subject.finding_id]
    confirm = context.confirm(fallback=subject.endpoint)
    said = (f"The client's words fit more than one cause; the likely reading is {subject.finding_id}, and this one "
            f"ends the same way. `{confirm}` on the client's machine decides.")
    found = [hedged(builders[i](replace(subject, finding_id=i), context), OR, said,
                    readings=[subject.finding_id, *ids]) for i in ids]
    if subject.host is not None:
        return found
    # an address no line names: its builder's account of what a lookup or a connect answered was never observed
    return [replace(f, explanation=said, evidence={k: v for k, v in f.evidence.items() if k not in _OBSERVED})
            if f.id in _ADDRESS_IDS else f for f in found]


_OBSERVED = ("dns_status", "tcp_status")
_ADDRESS_IDS = ("ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE", "ADVERTISED_LOOPBACK", "BOOTSTRAP_UNRESOLVABLE",
                "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT", "BOOTSTRAP_UNREACHABLE")


def likely_or(primary: Finding, other: Finding, said: str, *, more: Sequence[Finding] = (),
              **evidence: object) -> list[Finding]:
    """Readings of one line: ``primary`` likely, ``other`` (and ``more``) beside it; ``said`` names the other
    readings of each as ``{other}``."""
    others = [other, *more]
    readings = [primary.id, *(o.id for o in others)]
    return [hedged(primary, LIKELY, said.format(other=" or ".join(o.id for o in others)), readings=readings,
                   **evidence),
            *(hedged(o, OR, said.format(other=primary.id), readings=readings, **evidence) for o in others)]


def both_roles(primary: Finding, other: Finding, subject: Subject) -> list[Finding]:
    """No line says whether ``subject``'s address is the bootstrap or an advertised broker: both readings."""
    confirm = str(primary.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    why = subject.role_from or "no line says which"
    said = (f"No line says whether {subject.where} is the client's bootstrap address (in bootstrap.servers) or an "
            f"address the cluster's metadata gave it (an advertised broker); {why}. The other reading is {{other}}. "
            f"`{confirm}`, with the client's bootstrap.servers, decides: it connects to the bootstrap address, then "
            "to every broker the metadata advertises.")
    return likely_or(primary, other, said, role=None)


def well_known_port(context: Context) -> Finding | None:
    """The client gave up and its bootstrap address is a port another service listens on: likely not Kafka."""
    endpoint = next((e for e in context.bootstrap if e.port in OTHER_SERVICES), None)
    if endpoint is None:
        return None
    service = OTHER_SERVICES[endpoint.port]
    confirm = context.confirm()
    explanation = (f"The client's bootstrap address is {endpoint}, and {endpoint.port} is {service}, not a Kafka "
                   "listener's: a client pointed there sends Kafka requests that are never answered as Kafka, and "
                   "gives up without saying why (a timeout, no node assigned)." + consequence_sentence(context) +
                   " This is the likely reading from the port alone; the service there may have been moved to "
                   f"another port. `{confirm}` decides: it says what answers on the port.")
    fix = ("Bootstrap with the brokers' Kafka listener (usually port 9092, or 9093/9094 for TLS and SASL), not "
           f"{service}: since Kafka 3.0 the tools take --bootstrap-server host:9092 where they once took "
           "--zookeeper host:2181.")
    lines = [g.examples[0] for g in context.consequences if g.examples][:5]
    data = {"lines": [text for _, text in lines], "line_numbers": [n for n, _ in lines], "host": endpoint.host,
            "port": endpoint.port, "role": "bootstrap", "service": service, "certain": False, "confirm": confirm}
    return finding("NOT_KAFKA", "warning", f"{LIKELY}{endpoint} is {service}, not a Kafka listener", explanation,
                   data, with_confirm(fix, confirm))


def mixed_listeners(context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The bootstrap list names one host at two ports or more, and no line says what failed: two listeners of one
    broker (PLAINTEXT on 9092 beside SSL or SASL on 9093/9094), of which a client with one security protocol speaks
    only one; each mismatch at the other port is a *Maybe* reading."""
    ports: dict[str, list[int]] = {}
    for endpoint in context.bootstrap:
        ports.setdefault(endpoint.host, []).append(endpoint.port)
    host, seen = next(((h, p) for h, p in ports.items() if len(set(p)) > 1), (None, []))
    if host is None:
        return []
    other = next((p for p in seen if p != DEFAULT_PLAINTEXT_PORT), seen[-1])  # Kafka's default listener is 9092's
    facts = context.facts
    ids = ["TLS_UNEXPECTED"] if facts.tls else ["TLS_EXPECTED"] + ([] if facts.sasl else ["SASL_REQUIRED"])
    confirm = context.confirm()
    said = (f"The client's bootstrap list names {host} at ports {join_words(str(p) for p in dict.fromkeys(seen))}: "
            "two listeners of one broker, and a client with one security protocol speaks to only one of them. When "
            f"it picks {host}:{other} and that listener's security is not the client's, it fails there "
            f"({join_words(ids)}). List only the listener the client's settings are for. `{confirm}` decides.")
    quiet = replace(context, consequences=())
    number, text = next((n, t) for n, endpoints, t in facts.bootstrap_runs if any(e.host == host for e in endpoints))
    shown = Group(Sighting(NOT_IN_METADATA, ANY, host, other, role=BOOTSTRAP), 1, [(number, text)], clients=[ANY])
    return [hedged(builders[i](Subject(i, (shown,), host, other, None, BOOTSTRAP), quiet), MAYBE, said, readings=ids)
            for i in ids]


DEFAULT_PLAINTEXT_PORT = 9092


def heap_exhausted(context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """A JVM's ``OutOfMemoryError: Java heap space`` with no frame that says where, and no line that names a cause: a
    Java client without TLS at a TLS listener reads the TLS alert's first bytes as a 352 MB response size and dies so
    (KAFKA-4090), a *Maybe* reading beside the process simply needing more heap."""
    groups = tuple(g for g in context.consequences if g.symptom == HEAP_EXHAUSTED)
    if not groups or context.facts.tls:
        return []
    endpoint = context.bootstrap[0] if context.bootstrap else None
    confirm = context.confirm(fallback=endpoint, protocol="SSL")
    said = ("A JVM ran out of heap and no line says where. A Kafka client in it that speaks plaintext to a TLS "
            "listener reads the listener's TLS alert (0x15 0x03 ...) as a response size of about 352 MB and dies so "
            "(KAFKA-4090: the stack trace, when shown, runs through NetworkReceive.readFrom); otherwise the process "
            f"needs more heap. `{confirm}` decides whether the port speaks TLS.")
    built = builders["TLS_EXPECTED"](Subject("TLS_EXPECTED", groups, endpoint.host if endpoint else None,
                                             endpoint.port if endpoint else None, None, BOOTSTRAP if endpoint else
                                             UNKNOWN), replace(context, consequences=()))
    return [hedged(built, MAYBE, said, readings=["TLS_EXPECTED"])]


def alternative(subject: Subject, role: str, finding_id: str, role_from: str) -> Subject:
    return replace(subject, role=role, finding_id=finding_id, role_from=role_from)


def same_machine(primary: Finding, other: Finding, subject: Subject, *, more: Sequence[Finding] = ()) -> list[Finding]:
    """A broker advertises a loopback address and the log does not show the bootstrap: a client elsewhere sent to
    itself, or a client on the broker's machine whose broker is down there: its one broker, the bootstrap's address
    too (BOOTSTRAP_REFUSED), or, when the metadata named the broker by id, that broker, stopped since while others
    answered (ADVERTISED_UNREACHABLE: a cluster on one machine)."""
    confirm = str(primary.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    there = (" and bootstraps through the same address, the broker there is down" if subject.node_id is None else
             f", broker {subject.node_id} there is down or not listening (and when it is the one broker, the "
             "bootstrap address that names it is refused too), or the client bootstraps through another port published "
             "or forwarded to it (a Docker ports: mapping such as 9091:9092) and the broker advertises its own port, "
             "which nothing publishes")
    said = (f"{subject.where} is loopback and the log does not show the client's bootstrap address: if the client "
            "runs elsewhere, the broker advertises an address that sends it to itself; if it runs on the broker's "
            f"machine{there}. The other reading is {{other}}. `{confirm}`, with the client's bootstrap.servers, "
            "decides.")
    return likely_or(primary, other, said, more=more)


def topic_missing(context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The client waited for a topic's metadata and it never came, and no line says the brokers failed: the topic
    most likely does not exist (and is not created on first use)."""
    groups = tuple(g for g in context.consequences if g.symptom == NOT_IN_METADATA)
    topic = next((g.first.topic for g in groups if g.first.topic), None) or context.topic
    confirm = context.confirm(topic=topic)
    said = ("The client waited for the topic's metadata and never got it; no line says a broker failed, so the likely "
            "reading is that the topic does not exist and the broker does not create it. A bootstrap or advertised "
            f"address the client cannot use ends the same way. `{confirm}` decides.")
    subject = Subject("TOPIC_NOT_FOUND", groups)
    built = builders["TOPIC_NOT_FOUND"](subject, replace(context, consequences=()))
    return [hedged(built, LIKELY, said, readings=["TOPIC_NOT_FOUND"])]
