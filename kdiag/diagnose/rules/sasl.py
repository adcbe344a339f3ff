"""Rules for SASL: a listener that wants SASL from a client that sends none, a mechanism the listener does not
enable, credentials the broker rejects. They read the ``sasl`` stage and each broker's ``sasl`` exchange: the
broker's SASL error code, its enabled mechanisms and its own error message.
"""

from __future__ import annotations

from collections.abc import Iterator

from kdiag.diagnose.facts import (bootstrap_used, client_sasl_mechanism, client_uses_sasl, parse_endpoint,
                                  security_protocol)
from kdiag.diagnose.fixes import client_settings_fix, secure_protocol_for
from kdiag.diagnose.hosts import normalise_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.protocol import Secured, probed, routable_brokers
from kdiag.diagnose.wording import join_words
from kdiag.finding import Finding
from kdiag.report import Endpoint, Report, RoundtripDetail, SaslDetail
from probes.hostport import hostport

_SASL_PREFERENCE = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER", "AWS_MSK_IAM", "GSSAPI")
_AUTH_FAILED_CODES = ("SASL_AUTHENTICATION_FAILED", "_AUTHENTICATION")


# --- SASL ---------------------------------------------------------------------------------------


def _choose_mechanism(enabled: tuple[str, ...] | None) -> str | None:
    if not enabled:
        return None
    upper = [m.upper() for m in enabled]
    return next((m for m in _SASL_PREFERENCE if m in upper), upper[0])


def _sasl_required(report: Report) -> tuple[Finding, ...]:
    if client_uses_sasl(report):
        return ()
    findings = []
    for target in probed(report):
        if target.kafka.status != "auth_required":
            continue
        enabled = target.kafka.sasl_mechanisms
        listed = f" It offers {join_words(enabled)}." if enabled else ""
        where = hostport(target.endpoint.host, target.endpoint.port)
        title = (f"The listener at {where} requires SASL authentication, and the client sends none"
                 if target.node_id is None else
                 f"Broker {target.node_id}'s advertised listener {where} requires SASL, and the client sends none")
        explanation = (f"The listener at {where} wants a SASL handshake before any other request (its security "
                       f"protocol is SASL_PLAINTEXT or SASL_SSL), and the client has "
                       f"security.protocol={security_protocol(report)}.{listed} The broker closes the connection "
                       "without an answer, so clients see only a disconnect: librdkafka `Disconnected: verify that "
                       "security.protocol is correctly configured, broker might require SASL authentication`, and "
                       "the broker logs `Unexpected Kafka request of type METADATA during SASL handshake.`")
        fix = client_settings_fix(report, protocol=secure_protocol_for(report, sasl=True),
                                  mechanism=_choose_mechanism(enabled) or "<mechanism>")
        findings.append(finding("SASL_REQUIRED", "error", title, explanation,
                                {**target.evidence, "sasl_mechanisms": list(enabled) if enabled else None}, fix))
    return tuple(findings)


def sasl_targets(report: Report) -> Iterator[Secured]:
    """Each endpoint's SASL exchange that got an answer from the broker; an endpoint once."""
    seen: set[tuple[str, int]] = set()
    detail = report.detail("sasl")
    for result in detail.attempts if isinstance(detail, SaslDetail) else ():
        endpoint = parse_endpoint(result.endpoint)
        if endpoint is None or result.status == "skip":
            continue
        key = (normalise_host(endpoint.host), endpoint.port)
        if key not in seen:
            seen.add(key)
            yield Secured(endpoint, sasl=result)
    for broker in routable_brokers(report):
        key = (normalise_host(broker.host), broker.port)
        if broker.sasl is None or broker.sasl.status == "skip" or key in seen:
            continue
        seen.add(key)
        yield Secured(broker.endpoint, broker.node_id, sasl=broker.sasl)


def _mechanism_mismatch(report: Report) -> tuple[Finding, ...]:
    mechanism, explicit = client_sasl_mechanism(report)
    if mechanism is None:
        return ()
    findings = []
    seen: set[tuple[str, int]] = set()
    for target in sasl_targets(report):
        result = target.sasl
        if result is None or result.status not in ("unsupported_mechanism", "not_sasl"):
            continue
        seen.add((normalise_host(target.endpoint.host), target.endpoint.port))
        findings.append(_mismatch_finding(report, target.endpoint, target.node_id, mechanism, explicit,
                                          tuple(result.enabled_mechanisms or ()), result.status == "not_sasl",
                                          {"sasl_status": result.status, "error_code": result.error_code,
                                           "error_name": result.error_name}))
    for target in probed(report):  # a listener that asked for SASL on a plaintext probe listed its mechanisms
        enabled = tuple(m.upper() for m in (target.kafka.sasl_mechanisms or ()))
        key = (normalise_host(target.endpoint.host), target.endpoint.port)
        if enabled and mechanism not in enabled and key not in seen:
            findings.append(_mismatch_finding(report, target.endpoint, target.node_id, mechanism, explicit, enabled,
                                              False, {"kafka_status": target.kafka.status}))
    return tuple(findings)


def _mismatch_finding(report: Report, endpoint: Endpoint, node_id: int | None, mechanism: str, explicit: bool,
                      enabled: tuple[str, ...], no_sasl: bool, facts: dict[str, object]) -> Finding:
    where = hostport(endpoint.host, endpoint.port)
    chosen = "sets" if explicit else "sets no SASL mechanism, so it uses the default,"
    evidence = {"node_id": node_id, "host": endpoint.host, "port": endpoint.port, "client_mechanism": mechanism,
                "client_mechanism_explicit": explicit, "sasl_mechanisms": list(enabled), **facts}
    if no_sasl:
        protocol = security_protocol(report)
        plain = secure_protocol_for(report, sasl=False)
        explanation = (f"The client uses SASL (security.protocol={protocol}, mechanism {mechanism}), but the "
                       f"listener at {where} has no SASL at all: it answered the SASL handshake with "
                       "ILLEGAL_SASL_STATE, so its security protocol is PLAINTEXT or SSL. Java clients fail with "
                       f"`IllegalSaslStateException: Unexpected handshake request with client mechanism "
                       f"{mechanism}, enabled mechanisms are []`; librdkafka with a SASL handshake failure. "
                       "Either the client is pointed at the wrong listener, or the broker's SASL listener is not "
                       "there.")
        fix = ("Use the listener's protocol without SASL (or bootstrap with the port of the SASL listener):\n\n"
               + client_settings_fix(report, protocol=plain))
        title = f"The client uses SASL, but the listener at {where} has none"
        return finding("SASL_MECHANISM_MISMATCH", "error", title, explanation, evidence, fix)
    listed = join_words(enabled) if enabled else "not reported"
    explanation = (f"The client {chosen} {mechanism}; the listener at {where} enables {listed}. The handshake "
                   f"fails before any credentials are checked: Java `UnsupportedSaslMechanismException: Client "
                   f"SASL mechanism '{mechanism}' not enabled in the server, enabled mechanisms are "
                   f"[{', '.join(enabled)}]`, librdkafka `SASL {mechanism} mechanism handshake failed: Broker: "
                   f"Unsupported SASL mechanism: broker's supported mechanisms: {','.join(enabled)}`.")
    if not explicit:
        explanation += " librdkafka's sasl.mechanisms defaults to GSSAPI (Kerberos), a common surprise."
    fix = client_settings_fix(report, protocol=security_protocol(report),
                              mechanism=_choose_mechanism(enabled) or "<an enabled mechanism>")
    title = f"The client's SASL mechanism {mechanism} is not enabled on {where}" + (
        f" (enabled: {listed})" if enabled else "")
    return finding("SASL_MECHANISM_MISMATCH", "error", title, explanation, evidence, fix)


def _auth_failed(report: Report) -> Finding | None:
    mechanism, _ = client_sasl_mechanism(report)
    failures: list[dict[str, object]] = []
    for target in sasl_targets(report):
        result = target.sasl
        if result is not None and result.status == "auth_failed":
            failures.append({"where": target.label, "node_id": target.node_id, "error_code": result.error_code,
                             "error_name": result.error_name, "error_message": result.error_message,
                             "username": result.username})
    roundtrip = report.detail("roundtrip")
    if isinstance(roundtrip, RoundtripDetail) and (roundtrip.error_code or "").upper() in _AUTH_FAILED_CODES:
        failures.append({"where": "the round trip", "error_name": roundtrip.error_code,
                         "error_message": roundtrip.error})
    if not failures:
        return None
    used = bootstrap_used(report)
    where = hostport(used.host, used.port) if used else "<bootstrap>"
    mech = mechanism or "<mechanism>"
    said = next((f["error_message"] for f in failures if f.get("error_message")), None) or "SASL_AUTHENTICATION_FAILED"
    user = next((f["username"] for f in failures if f.get("username")), None)
    who = f"user {user}" if user else "the client's user"
    explanation = (f"The listener accepted the {mech} handshake and then rejected the credentials of {who}; the "
                   f"broker said: `{said}`. The user name or password is wrong, or the user does not exist on this "
                   "cluster (SCRAM users are created per cluster; PLAIN users are the user_<name> entries of the "
                   "broker's JAAS configuration). Java clients log `Authentication failed during authentication "
                   f"due to invalid credentials with SASL mechanism {mech}`; librdkafka `SASL authentication "
                   "error` / `Local: Authentication failure`.")
    scram = mech if mech.startswith("SCRAM") else "SCRAM-SHA-512"
    fix = ("Check the credentials the client sends (never paste the password into a ticket):\n\n"
           + client_settings_fix(report, protocol=security_protocol(report), mechanism=mechanism)
           + "\n\nFor SCRAM, see whether the user exists on the cluster, and (re)create it:\n"
           f"  kafka-configs.sh --bootstrap-server {where} --describe --entity-type users --entity-name <user>\n"
           f"  kafka-configs.sh --bootstrap-server {where} --alter --entity-type users --entity-name <user> "
           f"--add-config '{scram}=[password=<password>]'\n"
           "For PLAIN, the broker's listener.name.<listener>.plain.sasl.jaas.config must hold "
           'user_<user>="<password>".')
    return finding("SASL_AUTH_FAILED", "error", f"The broker rejected the client's SASL credentials ({mech})",
                   explanation, {"mechanism": mechanism, "username": user, "error_message": said,
                                 "failures": failures}, fix)


def _closed_during_login(report: Report) -> Finding | None:
    """The peer closed the connection instead of answering SaslAuthenticate (or SaslHandshake): hedged."""
    closes = [(target, target.sasl) for target in sasl_targets(report)
              if target.sasl is not None and target.sasl.status == "closed"]
    if not closes:
        return None
    target, result = closes[0]
    mechanism, _ = client_sasl_mechanism(report)
    mech = mechanism or "<mechanism>"
    user = result.username or "the client's user"
    sent = (f"kdiag sent its {result.closed_after} request ({result.sent_bytes} bytes) and the connection was "
            f"closed {result.closed_after_ms:g} ms later, without an answer" if result.closed_after_ms is not None
            else f"the connection was closed while kdiag sent its {result.closed_after} request")
    used = bootstrap_used(report)
    where = hostport(used.host, used.port) if used else "<bootstrap>"
    if result.closed_after == "SaslAuthenticate":
        title = f"The broker closed the connection on the {mech} login: likely rejected credentials"
        likely = (f"Most likely the broker rejected the credentials of user {user}: some brokers end a failed login "
                  "by closing the connection instead of answering SASL_AUTHENTICATION_FAILED (Apache Kafka before "
                  "1.0, KIP-152; franz-go's kfake; some proxies in front of Kafka). Less likely: a proxy or load "
                  "balancer that cuts SASL traffic, or a broker that failed while checking the login.")
    else:
        title = f"The broker closed the connection on the SASL handshake for {mech}: likely no SASL for this client"
        likely = ("Most likely this listener does not accept a SASL handshake from this client (a proxy in front "
                  "of Kafka that allows no SASL, or a listener whose security protocol differs from the client's); "
                  "less likely, a broker that failed while answering.")
    explanation = (f"At {target.label}, {sent}. {likely} librdkafka reports the same moment as `SASL "
                   "authentication error ... Broker transport failure`, a Java client as a disconnect during "
                   "authentication.")
    fix = ("To make it certain, look in the broker's log at the time of the run: Apache Kafka logs `Failed "
           "authentication with /<this machine's address> (Authentication failed: Invalid username or password)` "
           "for rejected credentials. Then check what the client sends (never paste the password into a ticket):"
           "\n\n" + client_settings_fix(report, protocol=security_protocol(report), mechanism=mechanism)
           + f"\n\nFor SCRAM, see whether the user exists on the cluster:\n"
           f"  kafka-configs.sh --bootstrap-server {where} --describe --entity-type users --entity-name <user>")
    evidence = {"where": target.label, "node_id": target.node_id, "closed_after": result.closed_after,
                "sent_bytes": result.sent_bytes, "closed_after_ms": result.closed_after_ms,
                "username": result.username, "mechanism": mechanism, "endpoints": len(closes)}
    return finding("SASL_CONNECTION_CLOSED", "error", title, explanation, evidence, fix)


RULES = (
    Rule("SASL_REQUIRED", "The listener wants SASL and the client has none", "error", _sasl_required),
    Rule("SASL_MECHANISM_MISMATCH", "The client's SASL mechanism is not enabled on the listener", "error",
         _mechanism_mismatch),
    Rule("SASL_AUTH_FAILED", "The broker rejected the SASL credentials", "error", _auth_failed),
    Rule("SASL_CONNECTION_CLOSED", "The broker closed the connection on the SASL login (likely rejected "
         "credentials)", "error", _closed_during_login),
)
