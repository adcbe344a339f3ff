"""From what a log's lines say to findings, with the same ids, evidence shape and fixes as a report.

Each group of lines (``engine.Group``) becomes a finding about one endpoint, topic or listener:

1. Its role: a bootstrap address or an advertised broker. librdkafka names it (``host:port/bootstrap``
   vs ``host:port/1``), Java too (node -1 vs node 1); otherwise the facts decide (the address is in
   ``bootstrap.servers``, or in a broker list the log shows), and as a last resort the kind of host
   (an EC2 internal name, a container id, a Kubernetes service name is what brokers advertise). The
   evidence says how the role was decided (``role_from``) when no line said it.
2. Its id, the report's: ``ADVERTISED_UNRESOLVABLE`` for an advertised name that does not resolve,
   ``BOOTSTRAP_REFUSED`` for a refused bootstrap, and so on.
3. Its text: the explanation quotes the client's own words and says what they mean; the evidence
   holds the lines (each distinct line once, with the count of all of them); the fix is the one the
   catalog's rule gives for the report the log implies (``implied``), followed by the ``kdiag
   bootstrap`` command that confirms it from the client's machine.

Lines that only say the client gave up (``Local: Message timed out``, ``Expiring 1 record(s)``, ``Topic
t not present in metadata``) are consequences: they are attached to the findings that explain them,
and only when nothing in the log explains them do they make a finding of their own, which says what
they can mean and what to run to find out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from kdiag.diagnose.hosts import (CONTAINER_ID, EC2_INTERNAL, KUBERNETES, LOOPBACK, SINGLE_LABEL, UNSPECIFIED,
                                  classify_host, normalise_host)
from kdiag.diagnose.wording import join_words
from kdiag.explain.builders import BUILDERS
from kdiag.explain.builders.advertised import from_metadata
from kdiag.explain.builders.sasl import on_reauthentication, reauthentication_refused
from kdiag.explain.builders.ingress import default_backend_reading, http_inside_tls
from kdiag.explain.builders.partial import partial_cluster, partly_down
from kdiag.explain.closing import handshake_cut_after_a_certificate
from kdiag.explain.first_request import cut_at_first_request, first_request_readings
from kdiag.explain.implied import broker
from kdiag.explain.observations import Facts, Group, Observations
from kdiag.explain.family_split import (family_split_reading, ipv6_of_a_name, ipv6_only_refused, ipv6_refused,
                                        loopback_name, split_readings)
from kdiag.explain.readings import (OR, OTHER_SERVICES, alternative, both_roles, hedged, heap_exhausted, likely,
                                    mixed_listeners, or_reading, or_readings, other_readings, same_machine,
                                    terminated_during_authentication)
from kdiag.explain.shared import client_said
from kdiag.explain.sightings import (ADVERTISED, ANSWERED_ELSEWHERE, BOOTSTRAP, BROKER_CLOSED, BROKER_ROLES, CERT_NAME, CERT_UNTRUSTED, CLIENT_CERT_MISSING,
                                     CLIENT_CERT_REFUSED, CONNECT, CONSEQUENCES, COORDINATOR, NONROUTABLE, NOT_KAFKA, NO_LEADER,
                                     KERBEROS_PRINCIPAL, PLAINTEXT_ON_TLS, REQUEST_TIMEOUT, RESOLVE, SASL_CREDENTIALS,
                                     SASL_MECHANISM, SASL_NEEDED, TLS_FAILED, TLS_ON_PLAINTEXT, TOPIC_DENIED,
                                     TOO_LARGE, TOPIC_MISSING, UNKNOWN, VERSION_GAP)
from kdiag.explain.subject import Context, Subject
from kdiag.explain.misdirected import misdirected
from kdiag.explain.unanswered import consequences_only
from kdiag.finding import Finding
from kdiag.report import BrokerReport

# Kinds of host a broker advertises by default and a client elsewhere cannot use.
ADVERTISED_KINDS = (EC2_INTERNAL, CONTAINER_ID, KUBERNETES, SINGLE_LABEL, UNSPECIFIED)
_TCP_ID = {"refused": "BOOTSTRAP_REFUSED", "timeout": "BOOTSTRAP_TIMEOUT", "unreachable": "BOOTSTRAP_UNREACHABLE"}
_CONNECTIVITY = ("BOOTSTRAP_UNRESOLVABLE", "BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT", "BOOTSTRAP_UNREACHABLE",
                 "ADVERTISED_UNRESOLVABLE", "ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE", "ADVERTISED_NONROUTABLE",
                 "TLS_EXPECTED", "TLS_UNEXPECTED", "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH", "SASL_REQUIRED",
                 "SASL_MECHANISM_MISMATCH", "SASL_AUTH_FAILED", "NOT_KAFKA", "TLS_CLIENT_CERT_REQUIRED",
                 "TLS_CLIENT_CERT_REJECTED", "ADVERTISED_ADDRESS_FAMILY_SPLIT", "KERBEROS_PRINCIPAL_UNKNOWN",
                 "INGRESS_DEFAULT_BACKEND")
_ADVERTISED_DOWN = ("ADVERTISED_UNRESOLVABLE", "ADVERTISED_LOOPBACK", "ADVERTISED_UNREACHABLE", "ADVERTISED_NONROUTABLE")
_SYMPTOM_ID = {
    CLIENT_CERT_MISSING: "TLS_CLIENT_CERT_REQUIRED", CLIENT_CERT_REFUSED: "TLS_CLIENT_CERT_REJECTED",
    PLAINTEXT_ON_TLS: "TLS_EXPECTED", TLS_ON_PLAINTEXT: "TLS_UNEXPECTED", CERT_UNTRUSTED: "TLS_CERT_UNTRUSTED",
    CERT_NAME: "TLS_HOSTNAME_MISMATCH", TLS_FAILED: "TLS_CERT_UNTRUSTED", SASL_NEEDED: "SASL_REQUIRED",
    SASL_MECHANISM: "SASL_MECHANISM_MISMATCH", SASL_CREDENTIALS: "SASL_AUTH_FAILED", TOPIC_MISSING: "TOPIC_NOT_FOUND",
    TOPIC_DENIED: "TOPIC_AUTHORIZATION_FAILED", NO_LEADER: "NO_LEADER", NOT_KAFKA: "NOT_KAFKA",
    KERBEROS_PRINCIPAL: "KERBEROS_PRINCIPAL_UNKNOWN", REQUEST_TIMEOUT: "IDLE_CONNECTION_DROPPED",
    BROKER_CLOSED: "BROKER_CLOSED_CONNECTION", VERSION_GAP: "BROKER_TOO_OLD", TOO_LARGE: "ROUNDTRIP_FAILED",
}


# --- from groups to findings ------------------------------------------------------------------------------


def findings_from(seen: Observations) -> list[Finding]:
    ordered = sorted(seen.groups.values(), key=lambda g: g.examples[0][0] if g.examples else 0)
    groups = [g for g in ordered if g.symptom not in ANSWERED_ELSEWHERE]
    causes = [g for g in groups if g.symptom not in CONSEQUENCES]
    protocol = next((p for g in groups for p in sorted(g.protocols)), None)
    subjects = [_at_the_bootstrap(s, seen.facts) for s in _subjects(causes, seen.facts)]
    connectivity = any(s.finding_id in _CONNECTIVITY for s in subjects)
    advertised_down = any(s.finding_id in _ADVERTISED_DOWN for s in subjects)
    specific_tls = any(s.symptoms & {CERT_NAME, CERT_UNTRUSTED, TLS_ON_PLAINTEXT, PLAINTEXT_ON_TLS, CLIENT_CERT_MISSING,
                                     CLIENT_CERT_REFUSED} for s in subjects)
    kept, consequences = [], [g for g in groups if g.symptom in CONSEQUENCES]
    for subject in subjects:
        generic_tls = subject.symptoms == {TLS_FAILED}
        unusable_leader = subject.finding_id == "NO_LEADER" and subject.guessed and advertised_down
        if (generic_tls and specific_tls) or (subject.finding_id == "TOPIC_NOT_FOUND" and connectivity) \
                or unusable_leader or handshake_cut_after_a_certificate(subject, subjects):  # a more specific line
            # says it, no broker could be asked, a leader not reached, a TLS endpoint's later handshake cut off
            consequences.extend(subject.groups)
        else:
            kept.append(subject)
    consequences.sort(key=lambda g: g.examples[0][0] if g.examples else 0)
    context = Context(seen.facts, tuple(consequences), protocol, failing=_failing_brokers(kept))
    connected = {_endpoint_key(s) for s in kept if s.symptoms & _AFTER_CONNECT}
    loopback_refused = {s.port for s in kept if s.finding_id == "ADVERTISED_LOOPBACK"}  # its IPv4 address refused too
    findings = []
    for subject in kept:
        read = _read(subject, replace(context, line=subject.first_line), seen.facts, connected, loopback_refused)
        findings.extend(read + default_backend_reading(read, subject, context))
    findings.extend(from_metadata(context, kept))
    findings.extend(misdirected([g for g in ordered if g.symptom in ANSWERED_ELSEWHERE], context))
    if not findings:  # what the client gave up on; a bootstrap list that mixes one broker's listeners; a heap gone
        findings.extend(consequences_only(context) + mixed_listeners(context, BUILDERS)
                        + heap_exhausted(context, BUILDERS))
    return findings


def _read(subject: Subject, context: Context, facts: Facts, connected: set[tuple[str | None, int | None]],
          loopback_refused: set[int | None]) -> list[Finding]:
    """One subject's finding: certain, or a reading (the line is a guess, or its address's role is unknown)."""
    built = BUILDERS[subject.finding_id](subject, context)
    if CONNECT in subject.symptoms and _endpoint_key(subject) in connected:
        return [_one_address_refused(built, subject)]
    if subject.finding_id == "ADVERTISED_LOOPBACK" and not context.bootstrap and subject.status in (None, "refused"):
        refused = BUILDERS["BOOTSTRAP_REFUSED"](alternative(subject, BOOTSTRAP, "BOOTSTRAP_REFUSED", ""), context)
        if subject.node_id is None:
            return same_machine(built, refused, subject)
        # a line naming the broker's node id: that broker is down, and, when it is the one broker, the bootstrap too
        down = BUILDERS["ADVERTISED_UNREACHABLE"](alternative(subject, subject.role, "ADVERTISED_UNREACHABLE", ""), context)
        return same_machine(built, down, subject, more=[refused])
    if built.id == "ADVERTISED_ADDRESS_FAMILY_SPLIT":  # ::1 refused: what the paste shows of the bootstrap decides
        return split_readings(built, subject, context, BUILDERS, subject.port in loopback_refused)
    if CONNECT in subject.symptoms and ipv6_of_a_name(subject):
        split = BUILDERS["ADVERTISED_ADDRESS_FAMILY_SPLIT"](subject, context)
        return ipv6_refused(built, split, subject)
    if subject.finding_id == "BOOTSTRAP_REFUSED" and loopback_name(subject.host) and not subject.addresses \
            and not subject.role_guessed:
        split = BUILDERS["ADVERTISED_ADDRESS_FAMILY_SPLIT"](subject, context)
        return family_split_reading(built, split, subject)
    if subject.role_guessed:
        role = ADVERTISED if subject.role == BOOTSTRAP else BOOTSTRAP
        other_id = _finding_id(subject.groups[0], role, facts)
        if other_id != subject.finding_id:
            other = alternative(subject, role, other_id, subject.role_from or "")
            return both_roles(built, BUILDERS[other_id](other, context), subject)
    if subject.finding_id == "SASL_MECHANISM_MISMATCH" and on_reauthentication(subject, context):
        return [reauthentication_refused(built, subject)]
    if subject.finding_id == "TLS_UNEXPECTED" and subject.first("detail") == "terminated during authentication" \
            and not facts.tls:
        return [terminated_during_authentication(built)]
    if subject.finding_id == "KERBEROS_PRINCIPAL_UNKNOWN" and \
            subject.first("detail") == "terminated during authentication":
        return [built]  # Java's Kerberos login saying only this (_finding_id): the TLS hang-up's guess is not its
    if subject.finding_id == "TLS_UNEXPECTED" and cut_at_first_request(subject):
        return first_request_readings(built, subject, context, BUILDERS, tls=facts.tls)
    if subject.guessed:
        guessed, shown = likely(built, subject), or_readings(subject, context, BUILDERS)  # the pattern's alternatives
        others = [] if any(g.first.alternatives for g in subject.groups) else [  # else the known other causes
            or_reading(guessed, BUILDERS[i](alternative(subject, subject.role, i, subject.role_from or ""), context))
            for i in other_readings(built, subject) if not (i == "SASL_REQUIRED" and facts.sasl)]
        return [guessed, *shown, *others]
    if partly_down(subject, context):  # a refused broker while another answered
        return [built, hedged(partial_cluster(subject, context), OR, "", readings=[built.id, "PARTIAL_CLUSTER"])]
    return [built]


def _failing_brokers(subjects: Iterable[Subject]) -> tuple[BrokerReport, ...]:
    """The advertised brokers whose address the log shows failing (by node id), as an implied report holds them."""
    failing: dict[int, BrokerReport] = {}
    for subject in subjects:
        if subject.role not in BROKER_ROLES or subject.node_id is None or subject.host is None:
            continue
        if subject.finding_id == "ADVERTISED_UNRESOLVABLE":
            checks = {"dns": subject.status or "nxdomain"}
        elif subject.finding_id in ("ADVERTISED_UNREACHABLE", "ADVERTISED_LOOPBACK"):
            checks = {"tcp": subject.status or "refused"}
        else:
            continue
        failing.setdefault(subject.node_id, broker(subject.node_id, subject.host, subject.port or 9092, **checks))
    return tuple(failing.values())


# Symptoms that prove the TCP connection to an endpoint came up.
_AFTER_CONNECT = frozenset({PLAINTEXT_ON_TLS, TLS_ON_PLAINTEXT, CERT_UNTRUSTED, CERT_NAME, TLS_FAILED, SASL_NEEDED,
                            SASL_MECHANISM, SASL_CREDENTIALS, NOT_KAFKA, CLIENT_CERT_MISSING, CLIENT_CERT_REFUSED,
                            KERBEROS_PRINCIPAL, REQUEST_TIMEOUT, VERSION_GAP})


# Findings about what one connection spoke: with no address in its lines, it is the bootstrap's.
_ABOUT_A_CONNECTION = ("TLS_EXPECTED", "TLS_UNEXPECTED", "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH",
                       "TLS_CLIENT_CERT_REQUIRED", "TLS_CLIENT_CERT_REJECTED",
                       "SASL_REQUIRED", "SASL_MECHANISM_MISMATCH", "SASL_AUTH_FAILED", "NOT_KAFKA",
                       "KERBEROS_PRINCIPAL_UNKNOWN", "INGRESS_DEFAULT_BACKEND", "BROKER_TOO_OLD",
                       "BOOTSTRAP_REFUSED")  # (a bootstrap connection's line without its address: Java before 2.0)


def _at_the_bootstrap(subject: Subject, facts: Facts) -> Subject:
    """A connection's failure whose lines name no address (a Java stack trace, a broker log line) is about
    the first connection a client makes, its bootstrap, when the log shows exactly one."""
    bootstrap = facts.bootstrap_at(subject.first_line)
    if subject.host is not None or subject.finding_id not in _ABOUT_A_CONNECTION or len(bootstrap) != 1:
        return subject
    return replace(subject, host=bootstrap[0].host, port=bootstrap[0].port, role=BOOTSTRAP,
                   role_from="no line names the address: the client's one bootstrap address")


def _endpoint_key(subject: Subject) -> tuple[str | None, int | None]:
    return (normalise_host(subject.host) if subject.host else None), subject.port


def _one_address_refused(built: Finding, subject: Subject) -> Finding:
    """A connect failed on one address of an endpoint that another address then reached (localhost is
    ::1 first, and the broker listens on IPv4 only): a note, not the failure."""
    addresses = join_words(subject.addresses) or "one of its addresses"
    explanation = (f"{client_said(subject)} That was {addresses}; the client then reached {subject.where} on "
                   "another address (the lines about the same endpoint that follow show the conversation going "
                   "on), so this is not what failed. The name resolves to several addresses (for localhost, "
                   "IPv6 ::1 before IPv4 127.0.0.1) and the broker listens on only one of them: harmless but slow. "
                   "librdkafka's broker.address.family=v4, or 127.0.0.1 instead of localhost, avoids it.")
    return Finding(built.id, "info", f"{built.title.split(' on ')[0]} on {addresses} of {subject.where} only: "
                   "another address then connected",
                   explanation, built.evidence, "")


def _subjects(groups: Iterable[Group], facts: Facts) -> list[Subject]:
    """Groups → subjects: the role and id of each, groups of the same id and endpoint merged."""
    # a group that names no address or topic joins one of the same id that does, whichever line came first
    groups = sorted(groups, key=lambda g: (g.first.host is None and g.first.topic is None, g.first.port is None))
    metadata_seen = bool(facts.brokers) or any(ADVERTISED in g.roles for g in groups)
    merged: dict[tuple[object, ...], Subject] = {}
    for group in groups:
        role, node_id, role_from, guessed = _role(group, facts, metadata_seen)
        finding_id = _finding_id(group, role, facts)
        first = group.first
        key = (finding_id, normalise_host(first.host) if first.host else first.topic, first.port)
        if first.host is None and first.topic is None:  # "No resolvable bootstrap urls", a PKIX error
            key = next((k for k in merged if k[0] == finding_id), key)  # joins the finding that names the host
        elif first.host is not None and first.port is None:  # a name alone (Java's Selector: host/ip): joins its port's
            key = next((k for k in merged if k[:2] == key[:2]), key)
        subject = merged.get(key)
        host, port = first.host, first.port
        if host is None and node_id is not None and node_id in facts.brokers:  # "node with id 1001": its address
            host, port = facts.brokers[node_id].host, facts.brokers[node_id].port
            finding_id = _finding_id(replace(group, first=replace(first, host=host, port=port)), role, facts)
        elif port is None and node_id in facts.brokers:  # a name alone (a resolver's words): the port listed with it
            port = facts.brokers[node_id].port
        if subject is None:
            merged[key] = Subject(finding_id, (group,), host, port, node_id, role, role_from, guessed)
        else:
            merged[key] = Subject(subject.finding_id, subject.groups + (group,), subject.host or first.host,
                                  subject.port or first.port,
                                  subject.node_id if subject.node_id is not None else node_id,
                                  subject.role if subject.role != UNKNOWN else role, subject.role_from,
                                  subject.role_guessed and guessed)
    return list(merged.values())


def _role(group: Group, facts: Facts, metadata_seen: bool) -> tuple[str, int | None, str | None, bool]:
    """The role of the group's address, how it was worked out when no line names it, and whether that is a
    guess (then both readings are given)."""
    first = group.first
    node_ids = sorted(n for n in group.node_ids if n >= 0)
    node_id = node_ids[0] if node_ids else _node_of(facts, first.host, first.port)
    if BOOTSTRAP in group.roles:
        return BOOTSTRAP, None, first.role_from, False
    for role in (COORDINATOR, ADVERTISED):
        if role in group.roles:
            return role, node_id, first.role_from, False
    if first.host is None:
        return _unnamed_role(first.symptom, facts, node_id)
    host = normalise_host(first.host)
    if any(normalise_host(e.host) == host and (first.port is None or e.port == first.port)
           for e in facts.bootstrap):
        return BOOTSTRAP, None, "it is in the client's bootstrap.servers", False
    if node_id is not None:
        return ADVERTISED, node_id, f"the cluster's metadata lists it as broker {node_id}", False
    if first.symptom not in (RESOLVE, CONNECT, NONROUTABLE):
        return UNKNOWN, None, None, False
    if facts.bootstrap:
        return ADVERTISED, None, "it is not in the client's bootstrap.servers", False
    if metadata_seen:
        return ADVERTISED, None, "the client had fetched the cluster's metadata", False
    kind = classify_host(first.host)
    if kind.kind in ADVERTISED_KINDS:
        return ADVERTISED, None, f"it is {kind.description}, the kind of name brokers advertise", True
    return BOOTSTRAP, None, "nothing in the address says which, so kdiag reads it first as a bootstrap address", True


def _unnamed_role(symptom: str, facts: Facts, node_id: int | None) -> tuple[str, int | None, str | None, bool]:
    """A name that did not resolve, with no line naming it (Python's bare ``socket.gaierror``): an IP literal
    never fails to resolve, so with every bootstrap address one it is a name the metadata gave; else both."""
    if symptom not in (RESOLVE, CONNECT) or node_id is not None:
        return UNKNOWN, node_id, None, False
    if symptom == CONNECT:  # a refused or timed-out connect to an address no line names: either role
        return BOOTSTRAP, None, "no line names the address that failed", True
    if facts.bootstrap and all(classify_host(e.host).is_ip for e in facts.bootstrap):
        return ADVERTISED, None, "every bootstrap address is an IP address, which never fails to resolve", False
    return BOOTSTRAP, None, "no line names the name that did not resolve", True


def _node_of(facts: Facts, host: str | None, port: int | None) -> int | None:
    if host is None:
        return None
    for node_id, endpoint in facts.brokers.items():
        if normalise_host(endpoint.host) == normalise_host(host) and (port is None or endpoint.port == port):
            return node_id
    return None


def _finding_id(group: Group, role: str, facts: Facts) -> str:
    first = group.first
    kind = classify_host(first.host).kind if first.host is not None else None  # "": a broker that advertised no host
    bootstrap = BOOTSTRAP in group.roles or (first.host is not None and not group.roles & set(BROKER_ROLES) and any(
        normalise_host(e.host) == normalise_host(first.host) for e in facts.bootstrap))  # the client's own setting
    if first.symptom == NONROUTABLE or (first.symptom in (RESOLVE, CONNECT) and kind == UNSPECIFIED and not bootstrap):
        return "ADVERTISED_NONROUTABLE"
    if first.symptom == RESOLVE:
        return "BOOTSTRAP_UNRESOLVABLE" if role == BOOTSTRAP else "ADVERTISED_UNRESOLVABLE"
    if first.symptom == CONNECT:
        if ipv6_only_refused(group, kind, first.host):
            return "ADVERTISED_ADDRESS_FAMILY_SPLIT"
        if role == BOOTSTRAP:
            return _TCP_ID.get(first.status or "", "BOOTSTRAP_REFUSED")
        line = group.examples[0][0] if group.examples else 0
        bootstrap_loopback = any(classify_host(e.host).kind == LOOPBACK for e in facts.bootstrap_at(line))
        return "ADVERTISED_LOOPBACK" if kind == LOOPBACK and not bootstrap_loopback else "ADVERTISED_UNREACHABLE"
    if first.symptom == TLS_ON_PLAINTEXT and facts.kerberos and first.detail == "terminated during authentication":
        return "KERBEROS_PRINCIPAL_UNKNOWN"  # Java retries a Kerberos error quietly and says only this
    if first.symptom == NOT_KAFKA and http_inside_tls(group) and first.port not in OTHER_SERVICES:
        return "INGRESS_DEFAULT_BACKEND"  # HTTP inside TLS: an ingress's default backend, not a known HTTPS service
    return _SYMPTOM_ID[first.symptom]
