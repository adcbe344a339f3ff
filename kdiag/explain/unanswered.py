"""The readings of a client that gave up reaching brokers and says no more: no bootstrap address answered
(``bootstrap_down``), or one answered and refused the login (``sasl_down``), or an advertised broker was never reached
(``advertised_down``), or the broker hung up (``closing``). Each way that ends so is a *Maybe* reading, with the ``kdiag bootstrap`` command that decides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from kdiag.diagnose.hosts import classify_host
from kdiag.diagnose.wording import join_words
from kdiag.explain.builders import BUILDERS
from kdiag.explain.builders.topics import GAVE_UP_ON_RECORDS, unexplained
from kdiag.explain.closing import CLOSING, closed_connection, closing_readings
from kdiag.explain.observations import Group
from kdiag.explain.readings import MAYBE, Builder, hedged, loopback_name, topic_missing, well_known_port
from kdiag.explain.sightings import (ADVERTISED, ADVERTISED_DOWN, ALL_DOWN, BOOTSTRAP, BOOTSTRAP_DISCONNECTED,
                                     NO_NODE, NOT_IN_METADATA, UNKNOWN)
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding


def _readings_of(ids: list[str], groups: tuple[Group, ...], host: str | None, port: int | None, role: str,
                 context: Context, builders: Mapping[str, Builder], said: str, *, node_id: int | None = None
                 ) -> list[Finding]:
    quiet = replace(context, consequences=())
    built = [builders[i](Subject(i, groups, host, port, node_id, role), quiet) for i in ids]
    return [hedged(f, MAYBE, said, readings=list(ids)) for f in built]


def bootstrap_down(groups: list[Group], context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The client reached no bootstrap address and no line says why: each way a bootstrap connection fails."""
    endpoint = context.bootstrap[0]
    ids = ([] if classify_host(endpoint.host).is_ip else ["BOOTSTRAP_UNRESOLVABLE"]) + ["BOOTSTRAP_REFUSED",
                                                                                        "BOOTSTRAP_TIMEOUT"]
    if loopback_name(endpoint.host):  # localhost resolves to ::1 too, and a broker bound to IPv4 refuses it
        ids.append("ADVERTISED_ADDRESS_FAMILY_SPLIT")
    confirm = context.confirm()
    said = (f"The client says only that it reached no broker, bootstrapping through {context.bootstrap_text()}; "
            f"the name not resolving, nothing listening, and a filtered port each end so ({join_words(ids)}). "
            f"`{confirm}` on the client's machine decides.")
    return _readings_of(ids, tuple(groups), endpoint.host, endpoint.port, BOOTSTRAP, context, builders, said)


def sasl_down(groups: list[Group], context: Context, builders: Mapping[str, Builder]) -> list[Finding]:
    """The client authenticates (the paste shows SASL settings) and reached no broker, and no line says why: a login the
    listener refuses ends the same as a bootstrap it cannot reach (Sarama and franz-go say only that they ran out of
    brokers): rejected credentials, or a mechanism (a SCRAM variant) the listener does not enable."""
    ids = ["SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"]
    endpoint = context.bootstrap[0] if context.bootstrap else None
    confirm = context.confirm()
    said = (f"The client logs in with SASL and says only that it reached no broker; a listener that refuses the login "
            f"({join_words(ids)}) ends the same as an address it cannot reach. `{confirm}` with the client's SASL "
            "settings decides.")
    return _readings_of(ids, tuple(groups), endpoint.host if endpoint else None, endpoint.port if endpoint else None,
                        BOOTSTRAP, context, builders, said)


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


def consequences_only(context: Context) -> list[Finding]:
    """No line names a cause: what the client gave up on, and the readings the lines allow (each security
    mismatch that makes a broker hang up; a port another service uses)."""
    if context.consequences and context.consequences[0].examples:  # the bootstrap list in force where it gave up
        context = replace(context, line=context.consequences[0].examples[0][0])
    symptoms = {g.symptom for g in context.consequences}
    found = [unexplained(context)] if symptoms & GAVE_UP_ON_RECORDS else []  # what is certain: records were lost
    closing = [g for g in context.consequences if g.symptom in CLOSING]
    down = [g for g in context.consequences if g.symptom in (ALL_DOWN, NO_NODE)]
    if down and context.bootstrap and not closing:  # no bootstrap address answered: each way that happens
        found.extend(bootstrap_down(down, context, BUILDERS))
    if down and context.facts.sasl and not closing:  # or it answered and refused the login
        found.extend(sasl_down(down, context, BUILDERS))
    node_down = [g for g in context.consequences if g.symptom == ADVERTISED_DOWN]
    if node_down:  # an advertised broker the client never reached, and no line says why
        found.extend(advertised_down(node_down, context, BUILDERS))
    if NOT_IN_METADATA in symptoms and not (closing or down or node_down):  # the topic, or the brokers, never came
        found.extend(topic_missing(context, BUILDERS))
    if closing:
        first = closing[0].first
        host, port = first.host, first.port
        if host is None and len(context.bootstrap) == 1:
            host, port = context.bootstrap[0].host, context.bootstrap[0].port
        readings = closing_readings(context.facts, first.client)
        if BOOTSTRAP_DISCONNECTED in symptoms:  # Java logs a filtered connect's timeout only at INFO
            readings.append("BOOTSTRAP_TIMEOUT")
        built = {}
        for finding_id in readings:
            subject = Subject(finding_id, tuple(closing), host, port, None, BOOTSTRAP if host else UNKNOWN)
            built[finding_id] = BUILDERS[finding_id](subject, replace(context, consequences=()))
        found.extend(closed_connection(Subject("", tuple(closing), host, port), context, built))
    port_reading = well_known_port(context)
    if port_reading is not None:
        found.append(port_reading)
    return found or ([unexplained(context)] if context.consequences else [])
