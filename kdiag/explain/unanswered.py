"""The readings of a client that gave up and says no more (``consequences_only``): no broker answered, and the
family's words fit the bootstrap not reached, its listener's security not the client's, or the advertised brokers not
usable (``nobody_answered``); an advertised broker was never reached (``advertised_down``); the broker hung up
(``closing``). Each way that ends so is a *Maybe* reading, with the ``kdiag bootstrap`` command that decides."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from kdiag.diagnose.hosts import LOOPBACK, classify_host
from kdiag.diagnose.wording import join_words
from kdiag.explain.builders import BUILDERS
from kdiag.explain.builders.topics import GAVE_UP_ON_RECORDS, unexplained
from kdiag.explain.clients.librdkafka_errors import NO_BROKER_UP
from kdiag.explain.closing import CLOSING, closed_connection, closing_readings
from kdiag.explain.connection_age import after_use
from kdiag.explain.observations import Group
from kdiag.explain.family_split import loopback_name
from kdiag.explain.readings import MAYBE, Builder, hedged, topic_missing, well_known_port
from kdiag.explain.sightings import (ADVERTISED, ADVERTISED_DOWN, AIOKAFKA, ALL_DOWN, BOOTSTRAP, BOOTSTRAP_DISCONNECTED,
                                     EXPIRED_BATCH, FLUSH_TIMEOUT, GO, JAVA, KAFKA_PYTHON, LIBRDKAFKA, NO_NODE, NOT_IN_METADATA, OTHER, UNKNOWN)
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding


def _readings_of(ids: list[str], groups: tuple[Group, ...], host: str | None, port: int | None, role: str,
                 context: Context, builders: Mapping[str, Builder], said: str, *, node_id: int | None = None,
                 unobserved: bool = False) -> list[Finding]:
    quiet = replace(context, consequences=())
    built = [builders[i](Subject(i, groups, host, port, node_id, role), quiet) for i in ids]
    if unobserved:
        return [_unobserved(replace(f, severity="warning", title=MAYBE + f.title), said, ids) for f in built]
    return [hedged(f, MAYBE, said, readings=list(ids)) for f in built]


# What a builder states as observed (a DNS answer, a TCP outcome, the mechanisms a broker offered): a reading drawn
# from words that say none of it must not carry it.
_OBSERVED = ("dns_status", "tcp_status", "sasl_mechanisms")


def _unobserved(built: Finding, said: str, ids: list[str]) -> Finding:
    """A reading no line observed: its title (the cause) and the hedge that names the others, not the account its
    builder gives of a line that showed the failure ("the DNS answered that <host> does not exist"), and none of the
    facts that account rests on; its fix stays, for when ``kdiag bootstrap`` finds it is this one."""
    evidence = {k: v for k, v in dict(built.evidence).items() if k not in _OBSERVED}
    return replace(built, explanation=said, evidence={**evidence, "certain": False, "readings": list(ids)})


_SASL = ("SASL_REQUIRED", "SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH")


@dataclass(frozen=True)
class GaveUp:
    """What a family's words for "reached no broker" also cover beyond the bootstrap's connect, read from its source:
    the SASL readings that end in the same words, whether they also come after the bootstrap answered (from the brokers
    its metadata advertises), and whether the family sends requests at a configured version without asking the broker
    (an older broker closes the connection on a version it does not know). Each family retries a listener whose
    security differs from the client's, then gives up in the same words."""

    sasl: tuple[str, ...]
    after_metadata: bool = False
    pinned_versions: str = ""  # the setting whose version the family sends unasked ("" when it asks the broker)
    gave_up: re.Pattern[str] | None = None  # the lines' details that are the client giving up (None: every one)
    waits_for_ready: bool = False  # the words also end a wait for a connection that never became ready to send

    def said_by(self, groups: list[Group]) -> bool:
        return self.gave_up is None or any(self.gave_up.fullmatch(g.first.detail or "") for g in groups)


_GAVE_UP = {
    # kafka-python, client_async.check_version: NoBrokersAvailable once no node least_loaded_node() offers (the brokers
    # the bootstrap's metadata named, else the bootstrap) answered its ApiVersions in time; a refused login closes first.
    KAFKA_PYTHON: GaveUp(_SASL, after_metadata=True),
    # aiokafka, client.bootstrap: "Unable to bootstrap from [...]" once every bootstrap address failed to connect, log in
    # or answer the metadata request.
    AIOKAFKA: GaveUp(_SASL),
    # Sarama, client.go: ErrOutOfBrokers once every seed broker failed to open (its SASL login included) or to answer;
    # it sends each request at the version config.Version implies (V2_1_0 by default since 1.41), unasked.
    GO: GaveUp(_SASL, pinned_versions="config.Version"),
    # ruby-kafka, cluster.rb: "Could not connect to any of the seed brokers" over each seed's error (a SASL one too).
    OTHER: GaveUp(_SASL),
    # librdkafka: rd_kafka_metadata() returns _TRANSPORT (kcat's "Failed to acquire metadata: Local: Broker transport
    # failure") when no broker came up within its timeout, and "All broker connections are down" comes once every
    # connection failed: to connect, in its TLS handshake, or in its SASL login (each its own FAIL line, not pasted).
    # Not its bare "Local: Broker transport failure": one connection failed or closed; nor "1/3 brokers are down".
    LIBRDKAFKA: GaveUp(_SASL, gave_up=re.compile(rf"All broker connections are down|AllBrokersDown|{NO_BROKER_UP}"
                                                 r"|(?P<n>\d+)/(?P=n)")),
    # Java: the admin's "Timed out waiting for a node assignment" (and "waiting to send the call") and the consumer's
    # "Timeout expired while fetching topic metadata" once no node became ready (the bootstrap, or a broker its metadata
    # named); a refused login raises its own SaslAuthenticationException, so only a login never made ends so. A node
    # becomes ready once its ApiVersions is answered: a listener that accepts and never answers ends the same way.
    JAVA: GaveUp(("SASL_REQUIRED",), after_metadata=True, waits_for_ready=True),
}


def bootstrap_ids(context: Context) -> list[str]:
    """Each way a bootstrap connection fails: its name not resolving (a name, or no address shown), nothing listening,
    a filtered port; and for localhost by name, a broker bound to IPv4 only refusing ::1."""
    host = context.bootstrap[0].host if context.bootstrap else None
    ids = [] if host is not None and classify_host(host).is_ip else ["BOOTSTRAP_UNRESOLVABLE"]
    ids += ["BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT"]
    return ids + (["ADVERTISED_ADDRESS_FAMILY_SPLIT"] if loopback_name(host) else [])


def nobody_answered(groups: list[Group], context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The client reached no broker and no line says why: each way that ends so, for the family that said it
    (``_GAVE_UP``), steered by the settings the paste shows: the bootstrap not reached, its listener's security not the
    client's (TLS; SASL missing, refused, or a mechanism not enabled), older than the versions the client sends unasked,
    the advertised brokers not usable."""
    facts, client = context.facts, groups[0].first.client
    family = _GAVE_UP.get(client, GaveUp(()))
    gave_up = client in _GAVE_UP and family.said_by(groups)
    family = family if gave_up else GaveUp(())
    reach = bootstrap_ids(context) if context.bootstrap or gave_up else []
    tls = [] if not gave_up else ["TLS_UNEXPECTED"] if facts.tls else ["TLS_EXPECTED"]
    sasl = ["SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"] if facts.sasl else \
        [] if facts.security is not None else list(family.sasl)
    older = ["BROKER_TOO_OLD"] if family.pinned_versions else []
    stalled = ["BROKER_STALLED"] if gave_up and family.waits_for_ready else []
    advertised = ["ADVERTISED_UNRESOLVABLE", "ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE"] if family.after_metadata \
        else []
    if context.bootstrap and all(classify_host(e.host).kind == LOOPBACK for e in context.bootstrap):
        advertised = [i for i in advertised if i != "ADVERTISED_LOOPBACK"]  # the client is on the broker's machine
    if not reach + tls + sasl:
        return []
    endpoint = context.bootstrap[0] if context.bootstrap else None
    host, port = (endpoint.host, endpoint.port) if endpoint else (None, None)
    where = f", bootstrapping through {context.bootstrap_text()}" if endpoint else ""
    confirm = context.confirm()
    stages = [f"the bootstrap address not reached ({join_words(reach)})" if reach else "",
              f"the bootstrap reached, but its listener's security not the client's ({join_words(tls + sasl)})"
              if tls + sasl else "",
              f"the bootstrap reached, but older than the request versions the client sends unasked (its "
              f"{family.pinned_versions}; {older[0]})"
              if older else "",
              "the bootstrap's connection accepted, but never answered (a frozen broker, or a proxy without a "
              f"backend; {stalled[0]})" if stalled else "",
              f"the bootstrap answered, but the brokers its metadata advertises not usable from the client's machine "
              f"({join_words(advertised)})" if advertised else ""]
    said = (f"The client says only that it reached no broker{where}, and no line says why; each of these ends so: "
            f"{'; '.join(s for s in stages if s)}. `{confirm}` on the client's machine decides: it connects to the "
            "bootstrap, logs in, then connects to every advertised broker, and says which step fails.")
    found = _readings_of(reach + tls + sasl + older + stalled, tuple(groups), host, port, BOOTSTRAP, context, builders,
                         said,
                         unobserved=True)
    return found + _readings_of(advertised, tuple(groups), None, None, ADVERTISED, context, builders, said,
                                unobserved=True)


def task_producer_stalled(groups: list[Group], context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """A Kafka Connect source task's producer did not flush and no line says why. The worker's own connections work
    (it started the task); the task's producer takes only the worker's producer.-prefixed settings, so a listener's TLS
    or SASL set for the worker alone is missing there; or its connections, idle between flushes, were dropped by a NAT
    or load balancer (Event Hubs', Azure's) and the flush hangs."""
    facts = context.facts
    ids = ["SASL_AUTH_FAILED"] if facts.sasl else ["TLS_EXPECTED", "SASL_REQUIRED"]
    ids.append("IDLE_CONNECTION_DROPPED")
    confirm = context.confirm()
    said = ("The Connect worker started the task, so its own connections work; the task's producer is configured "
            "apart, from the worker's producer.-prefixed settings (producer.security.protocol, producer.ssl.*, "
            "producer.sasl.*), not the worker's own, and delivered nothing before offset.flush.timeout.ms. A producer "
            "left without the listener's TLS or SASL settings never delivers, and one whose connections sat idle "
            f"between flushes and were dropped by a NAT or load balancer hangs until the flush times out "
            f"({join_words(ids)}). `{confirm}` with the producer's settings decides.")
    return _readings_of(ids, tuple(groups), None, None, UNKNOWN, context, builders, said)


def advertised_down(groups: list[Group], context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The client never reached an advertised broker and no line says why: its address does not resolve or does
    not connect from the client's machine (the advertised-listener case)."""
    node_id = groups[0].first.node_id
    endpoint = context.facts.brokers.get(node_id) if node_id is not None else None
    ids = ["ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE"]
    confirm = context.confirm()
    who = f"broker {node_id}" if node_id is not None else "a broker"
    said = (f"The client bootstrapped, then found no connection to {who}, an address the cluster's metadata gave "
            f"it; no line says why. Advertised addresses fail from a client's machine when they do not resolve "
            f"there or do not connect ({join_words(ids)}). `{confirm}` on the client's machine decides.")
    return _readings_of(ids, tuple(groups), endpoint.host if endpoint else None, endpoint.port if endpoint else None,
                        ADVERTISED, context, builders, said, node_id=node_id)


def leader_unusable(groups: list[Group], context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The Java producer's records expired in a partition's batch (``Expiring N record(s) for T-P``) and no line
    says why. It batches records for a partition only once the metadata named the topic's partitions, so the
    bootstrap answered; the batch then waits for the partition's leader, at the address the metadata gave: one that
    does not resolve or connect from the client's machine (or is its own loopback) never takes it."""
    ids = ["ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE", "ADVERTISED_LOOPBACK"]
    if context.bootstrap and all(classify_host(e.host).kind == LOOPBACK for e in context.bootstrap):
        ids.remove("ADVERTISED_LOOPBACK")  # the client is on the broker's machine
    first = groups[0].first
    partition = f"{first.topic}-{first.partition}" if first.topic and first.partition is not None else "the partition"
    said = (f"The producer had the metadata for {partition} (it batches records only for a partition the metadata "
            "named), so the bootstrap answered; the records then waited for the partition's leader at the address the "
            f"metadata gave, and no line says why it never took them. The usual cause is that address unusable from "
            f"the client's machine ({join_words(ids)}). `{context.confirm()}` on the client's machine decides: it "
            "connects to every advertised broker and produces to the topic.")
    return _readings_of(ids, tuple(groups), None, None, ADVERTISED, context, builders, said, unobserved=True)


def consequences_only(context: Context) -> list[Finding]:
    """No line names a cause: what the client gave up on, and the readings the lines allow (each security
    mismatch that makes a broker hang up; a port another service uses)."""
    if context.consequences and context.consequences[0].examples:  # the bootstrap list in force where it gave up
        context = replace(context, line=context.consequences[0].examples[0][0])
    symptoms = {g.symptom for g in context.consequences}
    found = [unexplained(context)] if symptoms & GAVE_UP_ON_RECORDS else []  # what is certain: records were lost
    closing = [g for g in context.consequences if g.symptom in CLOSING]
    down = [g for g in context.consequences if g.symptom in (ALL_DOWN, NO_NODE)]
    if down and not closing:  # no broker answered: each way that happens
        found.extend(nobody_answered(down, context, BUILDERS))
    stalled = [g for g in context.consequences if g.symptom == FLUSH_TIMEOUT]
    if stalled and not (closing or down):  # a Connect task's producer, configured apart from its worker
        found.extend(task_producer_stalled(stalled, context, BUILDERS))
    node_down = [g for g in context.consequences if g.symptom == ADVERTISED_DOWN]
    if node_down:  # an advertised broker the client never reached, and no line says why
        found.extend(advertised_down(node_down, context, BUILDERS))
    expired = [g for g in context.consequences if g.symptom == EXPIRED_BATCH]
    if expired and not (closing or down or node_down):  # the bootstrap answered; the leader never took the records
        found.extend(leader_unusable(expired, context, BUILDERS))
    if NOT_IN_METADATA in symptoms and not (closing or down or node_down):  # the topic, or the brokers, never came
        found.extend(topic_missing(context, BUILDERS))
    if closing:
        first = closing[0].first
        host, port = first.host, first.port
        if host is None and len(context.bootstrap) == 1:
            host, port = context.bootstrap[0].host, context.bootstrap[0].port
        words = " ".join([*(g.first.detail or "" for g in closing), *(t for g in closing for _, t in g.examples)])
        used = after_use(context.consequences, context.facts.retried)
        readings = closing_readings(context.facts, first.client, words, used)
        if BOOTSTRAP_DISCONNECTED in symptoms:  # Java logs a filtered connect's timeout only at INFO
            readings.append("BOOTSTRAP_TIMEOUT")
        built = {}
        for finding_id in readings:
            subject = Subject(finding_id, tuple(closing), host, port, first.node_id, BOOTSTRAP if host else first.role)
            built[finding_id] = BUILDERS[finding_id](subject, replace(context, consequences=()))
        found.extend(closed_connection(Subject("", tuple(closing), host, port), context, built, used))
    port_reading = well_known_port(context)
    if port_reading is not None:
        found.append(port_reading)
    return found or ([unexplained(context)] if context.consequences else [])
