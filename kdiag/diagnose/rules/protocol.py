"""Rules for what a port speaks once the TCP connection is up: Kafka or not, TLS or not, SASL or not.

They look at the bootstrap endpoint the metadata came through and at every advertised broker the
probe spoke Kafka to; an endpoint is reported once even if it is both. The TLS and SASL rules read
the handshakes the probe did the way the client would (the ``tls`` and ``sasl`` stages, and each
broker's ``tls`` and ``sasl``): verify codes, the certificate's names, the broker's SASL error code,
its enabled mechanisms and its own error message.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kdiag.diagnose.facts import (bootstrap_kafka, bootstrap_used, client_sasl_mechanism, client_uses_sasl,
                                  client_uses_tls, hostport, join_words, loopback_from_elsewhere, parse_endpoint,
                                  security_protocol)
from kdiag.diagnose.fixes import (KRAFT_NOTE, client_settings_fix, free_port_base, listener_protocol,
                                  property_lines, secure_protocol_for)
from kdiag.diagnose.hosts import classify_host, is_nonroutable, normalise_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.finding import Finding
from kdiag.report import Endpoint, Report, RoundtripDetail, SaslDetail, TlsDetail
from probes.results import ForeignBytes, KafkaCheck, SaslResult, TlsResult

_SPEAKS = {"http": "HTTP", "ssh": "SSH", "zookeeper": "ZooKeeper", "text": "a text protocol"}
_PORT_HINTS = {
    22: "SSH's port", 80: "an HTTP port", 443: "an HTTPS port", 2181: "ZooKeeper's client port",
    2888: "ZooKeeper's quorum port", 3888: "ZooKeeper's election port", 8080: "an HTTP port, often a UI",
    8081: "Schema Registry's usual port", 8082: "the REST Proxy's usual port", 8083: "Kafka Connect's usual port",
    8088: "ksqlDB's usual port", 9021: "Control Center's usual port", 9644: "Redpanda's admin API port",
}
_MSK_TLS_PORTS = {9094: "MSK's TLS port", 9194: "MSK's public TLS port",
                  9096: "MSK's SASL/SCRAM port (SASL_SSL, SCRAM-SHA-512)",
                  9196: "MSK's public SASL/SCRAM port (SASL_SSL, SCRAM-SHA-512)",
                  9098: "MSK's IAM port (SASL_SSL, AWS_MSK_IAM)", 9198: "MSK's public IAM port (SASL_SSL, AWS_MSK_IAM)"}
_SASL_PREFERENCE = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER", "AWS_MSK_IAM", "GSSAPI")
_AUTH_FAILED_CODES = ("SASL_AUTHENTICATION_FAILED", "_AUTHENTICATION")


@dataclass(frozen=True)
class Probed:
    """An endpoint the probe spoke Kafka to: the bootstrap (node_id None) or an advertised broker."""

    endpoint: Endpoint
    kafka: KafkaCheck
    node_id: int | None = None

    @property
    def label(self) -> str:
        where = hostport(self.endpoint.host, self.endpoint.port)
        if self.node_id is None:
            return f"bootstrap address {where}"
        return f"broker {self.node_id}'s advertised address {where}"

    @property
    def evidence(self) -> dict[str, object]:
        return {"node_id": self.node_id, "host": self.endpoint.host, "port": self.endpoint.port,
                "kafka_status": self.kafka.status, "error": self.kafka.error}


def probed(report: Report) -> Iterator[Probed]:
    seen: set[tuple[str, int]] = set()
    used, kafka = bootstrap_used(report), bootstrap_kafka(report)
    if used is not None and kafka is not None and kafka.status != "skip":
        seen.add((normalise_host(used.host), used.port))
        yield Probed(used, kafka)
    for broker in report.cluster.brokers if report.cluster else ():
        key = (normalise_host(broker.host), broker.port)
        if broker.kafka.status == "skip" or key in seen or is_nonroutable(broker.host):
            continue
        if loopback_from_elsewhere(report, broker):
            continue  # what answered is this machine, not the broker: ADVERTISED_LOOPBACK says it
        seen.add(key)
        yield Probed(broker.endpoint, broker.kafka, broker.node_id)


def is_tls(foreign: ForeignBytes | None) -> bool:
    return foreign is not None and foreign.kind in ("tls_alert", "tls_handshake")


def frame_size(preview: str) -> int | None:
    """The "response size" a Kafka client reads from the first four bytes of a foreign reply."""
    raw, i = bytearray(), 0
    while i < len(preview) and len(raw) < 4:
        if preview.startswith("\\x", i) and len(preview) >= i + 4:
            raw.append(int(preview[i + 2:i + 4], 16))
            i += 4
        else:
            raw.append(ord(preview[i]) & 0xFF)
            i += 1
    return int.from_bytes(raw, "big") if len(raw) == 4 else None


# --- NOT_KAFKA ----------------------------------------------------------------------------------


def _not_kafka(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in probed(report):
        foreign = target.kafka.foreign
        if target.kafka.status != "not_kafka" or is_tls(foreign):
            continue
        port = target.endpoint.port
        speaks = _SPEAKS.get(foreign.kind) if foreign else None
        title = (f"{target.label[0].upper()}{target.label[1:]} speaks {speaks}, not Kafka" if speaks else
                 f"{target.label[0].upper()}{target.label[1:]} does not answer in Kafka's protocol")
        said = foreign.description if foreign else (target.kafka.error or "bytes that do not frame as Kafka")
        explanation = [f"kdiag connected to {hostport(target.endpoint.host, port)} and sent a Kafka ApiVersions "
                       f"request; what came back was {said}"]
        if foreign and foreign.preview and foreign.kind not in ("http", "ssh"):
            explanation[-1] += f" (first bytes `{foreign.preview}`)"
        explanation[-1] += "."
        if port in _PORT_HINTS:
            explanation.append(f"Port {port} is {_PORT_HINTS[port]}.")
        size = frame_size(foreign.preview) if foreign else None
        if size is not None and foreign is not None and foreign.kind != "ssh":
            explanation.append(f"A Kafka client reads the first four bytes as a response size ({size:,} bytes) and "
                               f"gives up: librdkafka with `Invalid response size {size}` or a disconnect while "
                               "requesting ApiVersion, while a Java client may try to allocate it and die with "
                               "`java.lang.OutOfMemoryError: Java heap space`.")
        else:
            explanation.append("A Kafka client waits for a Kafka response that never comes and reports a "
                               "disconnect or a timeout, not the real cause.")
        if foreign and foreign.kind == "zookeeper":
            explanation.append("bootstrap.servers must list Kafka brokers, not the zookeeper.connect address.")
        if target.node_id is None:
            fix = ("Point bootstrap.servers at a Kafka listener (9092 by default). The broker's listeners and their "
                   "ports are in its configuration:\n"
                   "  grep -E '^(advertised\\.)?listeners' config/server.properties\n"
                   "  docker exec <broker container> env | grep -E 'KAFKA_(ADVERTISED_)?LISTENERS'\n"
                   f"Then check:  kdiag bootstrap {target.endpoint.host}:<Kafka listener port>")
        else:
            fix = _advertised_port_fix(report, target, f"the port of broker {target.node_id}'s Kafka listener")
        findings.append(finding("NOT_KAFKA", "error", title, " ".join(explanation),
                                {**target.evidence, "speaks": foreign.kind if foreign else None,
                                 "description": foreign.description if foreign else None,
                                 "preview": foreign.preview if foreign else None}, fix))
    return tuple(findings)


def _advertised_port_fix(report: Report, target: Probed, what: str) -> str:
    node, host = target.node_id, target.endpoint.host
    line = f"{listener_protocol(report)}://{f'[{host}]' if ':' in host else host}:<port>"
    return (f"Broker {node} advertises port {target.endpoint.port}, which is not that listener. Advertise {what} "
            f"instead:\n\n{property_lines(node, [('advertised.listeners', line)])}\n\n{KRAFT_NOTE}")


# --- TLS_EXPECTED -------------------------------------------------------------------------------


def _tls_expected(report: Report) -> tuple[Finding, ...]:
    if client_uses_tls(report):
        return ()  # a TLS client that still fails is a TLS_* problem, not this one
    findings = []
    for target in probed(report):
        kafka = target.kafka
        if not (kafka.status == "tls_expected" or (kafka.status == "not_kafka" and is_tls(kafka.foreign))):
            continue
        port = target.endpoint.port
        seen = kafka.foreign.description if kafka.foreign else "a TLS record"
        explanation = (f"kdiag sent a plaintext Kafka request to {hostport(target.endpoint.host, port)} and got "
                       f"back {seen}. The listener expects a TLS handshake first; a client with "
                       f"security.protocol={security_protocol(report)} fails in misleading ways: librdkafka logs "
                       "`Disconnected while requesting ApiVersion: might be caused by incorrect security.protocol "
                       "configuration (connecting to a SSL listener?) or broker version is < 0.10 (see "
                       "api.version.request)`, and a Java client reads the TLS alert bytes as a ~352 MB response "
                       "size and dies with `java.lang.OutOfMemoryError: Java heap space`.")
        if port in _MSK_TLS_PORTS:
            explanation += f" Port {port} is {_MSK_TLS_PORTS[port]}."
        if target.node_id is None:
            title = (f"{hostport(target.endpoint.host, port)} is a TLS listener, but the client connects without TLS "
                     f"(security.protocol={security_protocol(report)})")
            mechanism = client_sasl_mechanism(report)[0]
            if port in (9096, 9196):
                mechanism = "SCRAM-SHA-512"
            elif port in (9098, 9198):
                mechanism = "AWS_MSK_IAM"
            fix = client_settings_fix(report, protocol=secure_protocol_for(report, tls=True, sasl=(
                client_uses_sasl(report) or mechanism is not None)), mechanism=mechanism, ca_needed=True)
        else:
            title = (f"Broker {target.node_id} advertises {hostport(target.endpoint.host, port)}, a TLS port, to "
                     "clients that came in without TLS")
            explanation += (" The bootstrap answered in plaintext, so this broker's advertised address names the "
                            "port of a different listener than the one the client uses.")
            fix = _advertised_port_fix(report, target, "the port of its plaintext listener")
        findings.append(finding("TLS_EXPECTED", "error", title, explanation,
                                {**target.evidence, "client_security_protocol": security_protocol(report),
                                 "preview": kafka.foreign.preview if kafka.foreign else None}, fix))
    return tuple(findings)


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


@dataclass(frozen=True)
class Secured:
    """One endpoint's TLS handshake or SASL exchange: the bootstrap (node_id None) or an advertised broker."""

    endpoint: Endpoint
    node_id: int | None = None
    tls: TlsResult | None = None
    sasl: SaslResult | None = None

    @property
    def where(self) -> str:
        return hostport(self.endpoint.host, self.endpoint.port)

    @property
    def label(self) -> str:
        return Probed(self.endpoint, KafkaCheck("skip"), self.node_id).label

    @property
    def evidence(self) -> dict[str, object]:
        return {"node_id": self.node_id, "host": self.endpoint.host, "port": self.endpoint.port}


def _advertised(report: Report):  # type: ignore[no-untyped-def]
    """The advertised brokers a client would use from here (not 0.0.0.0, not someone else's loopback)."""
    for broker in report.cluster.brokers if report.cluster else ():
        if is_nonroutable(broker.host) or loopback_from_elsewhere(report, broker):
            continue
        yield broker


def tls_targets(report: Report) -> Iterator[Secured]:
    """Each endpoint's TLS handshake that failed: a bootstrap endpoint only when none of its addresses
    worked, each advertised broker's own; an endpoint once."""
    seen: set[tuple[str, int]] = set()
    detail = report.detail("tls")
    handshakes = detail.handshakes if isinstance(detail, TlsDetail) else ()
    by_endpoint: dict[tuple[str, int], list[TlsResult]] = {}
    for result in handshakes:
        if result.host is not None and result.port is not None:
            by_endpoint.setdefault((result.host, result.port), []).append(result)
    for (host, port), results in by_endpoint.items():
        failed = [r for r in results if r.status not in ("ok", "skip")]
        if failed and len(failed) == len(results):
            seen.add((normalise_host(host), port))
            yield Secured(Endpoint(host, port), tls=failed[0])
    for broker in _advertised(report):
        key = (normalise_host(broker.host), broker.port)
        if broker.tls is None or broker.tls.status in ("ok", "skip") or key in seen:
            continue
        seen.add(key)
        yield Secured(broker.endpoint, broker.node_id, tls=broker.tls)


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
    for broker in _advertised(report):
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


# --- TLS ----------------------------------------------------------------------------------------

_SOCKET_REQUEST_MAX_BYTES = 104857600  # socket.request.max.bytes
_SASL_MAX_RECEIVE = 524288  # sasl.server.max.receive.size
_EXPIRED, _NOT_YET_VALID = 10, 9  # X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID


def _tls_evidence(target: Secured, result: TlsResult) -> dict[str, object]:
    cert = result.certificate
    return {**target.evidence, "tls_status": result.status, "sni": result.sni, "verify_code": result.verify_code,
            "verify_error": result.verify_error, "trust": result.trust, "error": result.error,
            "subject": cert.subject if cert else None, "issuer": cert.issuer if cert else None,
            "dns_names": list(cert.dns_names) if cert else None,
            "ip_addresses": list(cert.ip_addresses) if cert else None,
            "not_after": cert.not_after if cert else None}


def _tls_unexpected(report: Report) -> tuple[Finding, ...]:
    findings = []
    protocol = security_protocol(report)
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status not in ("not_tls", "closed"):
            continue
        confirmed = result.status == "not_tls"
        size = result.client_hello_size or 0x16030100
        where = target.where
        if result.plaintext_kafka:
            seen = ("closed the connection right after kdiag's TLS ClientHello, and the same port answered a "
                    "plaintext Kafka ApiVersions on a new connection: it is a plaintext listener")
        elif result.received:
            seen = f"answered kdiag's TLS ClientHello with bytes that are not TLS (`{result.received}`)"
        else:
            seen = ("closed the connection right after kdiag's TLS ClientHello without a TLS answer. That is what a "
                    "plaintext Kafka listener does, but a firewall or proxy that cuts TLS connections (PrivateLink, "
                    "an SNI router without a route for this name) looks the same")
        explanation = (f"The client has security.protocol={protocol}, so it starts with a TLS handshake; {where} "
                       f"{seen}. A plaintext Kafka listener reads the ClientHello's first four bytes as a request "
                       f"size of {size:,} bytes, logs `Invalid receive (size = {size} larger than "
                       f"{_SOCKET_REQUEST_MAX_BYTES})` (on a SASL_PLAINTEXT listener the limit is "
                       f"sasl.server.max.receive.size, {_SASL_MAX_RECEIVE}) and closes. librdkafka reports "
                       "`SSL handshake failed: Disconnected: connecting to a PLAINTEXT broker listener?`; Java "
                       "clients `... terminated during authentication. This may happen due to any of the following "
                       "reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) "
                       "Transient network issue.`")
        if target.node_id is None:
            title = (f"{where} is a plaintext listener, but the client speaks TLS (security.protocol={protocol})"
                     if confirmed else f"The TLS handshake with {where} was cut off: a plaintext listener?")
            plain, secure = secure_protocol_for(report, tls=False), secure_protocol_for(report, tls=True)
            host, port = hostport_parts(target.endpoint)
            tls_port = free_port_base(report, 1)
            broker_side = property_lines(None, [
                ("listeners", f"{plain}://0.0.0.0:{port},{secure}://0.0.0.0:{tls_port}"),
                ("advertised.listeners", f"{plain}://{host}:{port},{secure}://{host}:{tls_port}"),
                ("listener.security.protocol.map", f"{plain}:{plain},{secure}:{secure}"),
                ("ssl.keystore.type", "PEM"),
                ("ssl.keystore.location", "<the broker's private key and certificate chain, PEM>"),
            ], comment="a TLS listener next to the plaintext one (keep your other listeners and the CONTROLLER)")
            fix = ("Either connect without TLS, as this listener expects:\n\n"
                   + client_settings_fix(report, protocol=secure_protocol_for(report, tls=False),
                                         mechanism=client_sasl_mechanism(report)[0])
                   + "\n\nor bootstrap with the port of the broker's TLS listener; if it has none yet, add one:\n\n"
                   + broker_side + f"\n\n{KRAFT_NOTE}")
        else:
            title = (f"Broker {target.node_id} advertises {where}, a plaintext listener, to clients that use TLS"
                     if confirmed else f"The TLS handshake with broker {target.node_id}'s advertised address {where} "
                     "was cut off: a plaintext listener?")
            explanation += (" The bootstrap connection did TLS, so this broker advertises the port of a different "
                            "listener than the one the client uses.")
            fix = _advertised_port_fix(report, Probed(target.endpoint, KafkaCheck("skip"), target.node_id),
                                       "the port of its TLS listener")
        findings.append(finding("TLS_UNEXPECTED", "error" if confirmed else "warning", title, explanation,
                                {**target.evidence, "client_security_protocol": protocol, "tls_status": result.status,
                                 "plaintext_kafka": result.plaintext_kafka, "received": result.received,
                                 "client_hello_size": result.client_hello_size, "error": result.error}, fix))
    return tuple(findings)


def _cert_untrusted(report: Report) -> tuple[Finding, ...]:
    findings = []
    bootstrap_issuer = _bootstrap_issuer(report)
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status != "untrusted":
            continue
        cert = result.certificate
        issuer = cert.issuer if cert else None
        where = target.where
        who = f"the broker at {where}" if target.node_id is None else f"broker {target.node_id} at {where}"
        if result.verify_code in (_EXPIRED, _NOT_YET_VALID):
            when = cert.not_after if result.verify_code == _EXPIRED and cert else (cert.not_before if cert else None)
            state = "expired" if result.verify_code == _EXPIRED else "is not valid yet"
            title = f"The certificate of {who} {state}" + (f" ({when})" if when else "")
            explanation = (f"The chain {who} presents fails verification: {result.verify_error}. Every client "
                           "refuses the connection (librdkafka `SSL handshake failed: ... certificate verify "
                           "failed`; Java `CertificateExpiredException` / `CertificateNotYetValidException`)."
                           + (" Check this machine's clock too." if result.verify_code == _NOT_YET_VALID else ""))
            fix = ("Renew the broker's certificate and load it (the broker's ssl.keystore.location, or "
                   "listener.name.<listener>.ssl.keystore.location; a dynamic update avoids a restart):\n"
                   f"  kafka-configs.sh --bootstrap-server {where} --entity-type brokers --entity-name "
                   f"{target.node_id if target.node_id is not None else '<node id>'} --alter --add-config "
                   "listener.name.<listener>.ssl.keystore.location=<renewed keystore>")
        else:
            signed = f"issued by {issuer}" if issuer else "whose issuer kdiag could not read"
            title = (f"The certificate of {who} ({signed}) is not trusted by the client's "
                     f"{_trust_words(result.trust)}")
            explanation = (f"OpenSSL could not build a chain from the certificate {who} presents to a CA the client "
                           f"trusts: {result.verify_error} (verified against {result.trust}).")
            if cert is not None and cert.self_signed:
                explanation += " The certificate is self-signed: the client must trust that very certificate."
            if target.node_id is not None and bootstrap_issuer and issuer and issuer != bootstrap_issuer:
                explanation += (f" The bootstrap broker's certificate, issued by {bootstrap_issuer}, verified: this "
                                "broker's comes from a different CA.")
            explanation += (" librdkafka logs `SSL handshake failed: error:0A000086:SSL routines::certificate verify "
                            "failed: broker certificate could not be verified, verify that ssl.ca.location is "
                            "correctly configured or root CA certificates are installed`; Java `PKIX path building "
                            "failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find "
                            "valid certification path to requested target`.")
            host = target.endpoint.host
            fix = (f"Give the client the CA certificate that issued the broker's ({issuer or 'see below'}), as a PEM "
                   "file:\n\n"
                   "librdkafka clients (confluent-kafka, kcat, kdiag -X):\n"
                   "ssl.ca.location=<ca.pem>\n\n"
                   "Java clients (client.properties, --command-config):\n"
                   "ssl.truststore.type=PEM\n"
                   "ssl.truststore.location=<ca.pem>\n\n"
                   "(or a JKS truststore: keytool -importcert -alias kafka-ca -file <ca.pem> -keystore "
                   "truststore.jks, then ssl.truststore.location=truststore.jks and ssl.truststore.password)\n\n"
                   "To see the chain the broker sends (its last certificate names the CA):\n"
                   f"  openssl s_client -connect {where} -servername {host} -showcerts </dev/null\n"
                   f"Check with:  kdiag bootstrap {_used(report)} -X security.protocol={security_protocol(report)} "
                   "-X ssl.ca.location=<ca.pem>")
        findings.append(finding("TLS_CERT_UNTRUSTED", "error", title, explanation, _tls_evidence(target, result), fix))
    return tuple(findings)


def _hostname_mismatch(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status != "hostname_mismatch":
            continue
        cert = result.certificate
        host, where = target.endpoint.host, target.where
        names = [*(f"DNS:{n}" for n in (cert.dns_names if cert else ())),
                 *(f"IP:{a}" for a in (cert.ip_addresses if cert else ()))]
        listed = ", ".join(names) if names else (f"no subject alternative names (subject {cert.subject})" if cert
                                                 else "names kdiag could not read")
        is_ip = classify_host(host).is_ip
        wanted = f"IP:{normalise_host(host)}" if is_ip else f"DNS:{host}"
        if target.node_id is None:
            title = f"{host} is not in the certificate of the broker at {where} ({listed})"
            named = f"The client connects to {host} and checks"
        else:
            title = f"Broker {target.node_id} advertises {host}, which is not in its certificate ({listed})"
            named = (f"Broker {target.node_id} advertises {where}: clients connect to exactly that name for the "
                     "partitions it leads, and check")
        explanation = (f"{named} that the name is among the certificate's subject alternative names (hostname "
                       "verification is on by default: librdkafka since v2.0.0, "
                       "ssl.endpoint.identification.algorithm=https; Java clients since Kafka 2.0). The certificate "
                       f"holds {listed}; {wanted} is not among them.")
        if is_ip:
            explanation += (" For an IP address only an IP SAN counts (a DNS SAN spelling the address does not), and "
                            "librdkafka builds with an OpenSSL older than 3.0 do not match IP SANs at all: advertise "
                            "a DNS name where you can. Java clients log `java.security.cert.CertificateException: No "
                            f"subject alternative names matching IP address {host} found`.")
        else:
            explanation += (" Java clients log `java.security.cert.CertificateException: No subject alternative DNS "
                            f"name matching {host} found.`")
        explanation += (" librdkafka: `SSL handshake failed: ... certificate verify failed` (OpenSSL: "
                        f"{(result.verify_error or 'hostname mismatch').rstrip('.')}).")
        san = ",".join(dict.fromkeys([*names, wanted]))
        options = [f"Reissue the broker's certificate with {wanted} among its subject alternative names (keep the "
                   "ones it has), signed by the same CA, e.g.:\n"
                   f'  openssl req -new -key broker.key -subj "/CN={host}" -addext "subjectAltName={san}" '
                   "-out broker.csr\n"
                   f"  keytool -certreq ... -ext SAN={san.replace('DNS:', 'dns:').replace('IP:', 'ip:')}"]
        dns_names = [n for n in (cert.dns_names if cert else ()) if "*" not in n]
        if dns_names and target.node_id is not None:
            options.append(f"or advertise a name the certificate already holds, if it resolves and connects from the "
                           "clients:\n\n" + property_lines(target.node_id, [(
                               "advertised.listeners", f"{listener_protocol(report)}://{dns_names[0]}:"
                               f"{target.endpoint.port}")]) + f"\n\n{KRAFT_NOTE}")
        elif dns_names:
            options.append(f"or bootstrap with a name the certificate holds: kdiag bootstrap "
                           f"{hostport(dns_names[0], target.endpoint.port)}")
        options.append("Only to confirm the diagnosis, never as the fix (it turns off a protection against "
                       "impersonation): librdkafka ssl.endpoint.identification.algorithm=none; Java "
                       "ssl.endpoint.identification.algorithm= (empty).")
        findings.append(finding("TLS_HOSTNAME_MISMATCH", "error", title, explanation,
                                {**_tls_evidence(target, result), "name_in_certificate": result.name_in_certificate},
                                "\n\n".join(options)))
    return tuple(findings)


# --- client certificates (mTLS) ---------------------------------------------------------------------

# What a server that wants a client certificate answers a client without one: TLS 1.3 defines
# certificate_required; Java (the Kafka broker) sends bad_certificate under TLS 1.2 and 1.3 alike.
_NO_CERTIFICATE_ALERTS = ("certificate_required", "bad_certificate", "handshake_failure", "certificate_unknown")
# ... and a client whose certificate it does not accept (Java: certificate_unknown for a chain it
# cannot verify).
_REJECTED_ALERTS = ("unknown_ca", "bad_certificate", "certificate_unknown", "certificate_expired",
                    "certificate_revoked", "unsupported_certificate", "access_denied")


def _cert_alert_evidence(target: Secured, result: TlsResult) -> dict[str, object]:
    mine = result.client_certificate
    return {**target.evidence, "tls_status": result.status, "tls_version": result.version, "alert": result.alert,
            "alert_after_handshake": result.alert_after_handshake,
            "client_certificate_requested": result.client_certificate_requested,
            "client_certificate": mine.subject if mine else None,
            "client_certificate_issuer": mine.issuer if mine else None,
            "client_certificate_not_after": mine.not_after if mine else None, "error": result.error}


def _alert_story(result: TlsResult) -> str:
    """How the refusal showed itself, in the words of the version it happened under."""
    version = result.version or "TLS"
    if result.alert_after_handshake:
        return (f"the {version} handshake completed on the client's side, and the broker's answer to the first "
                f"request was the TLS alert {result.alert}: under TLS 1.3 the server checks the client's "
                "certificate only after the client's Finished, so a client sees the handshake succeed and then a "
                "failure on its first read")
    requested = (" after its CertificateRequest (sent in the clear under TLS 1.2)"
                 if result.client_certificate_requested else "")
    return f"the broker refused the {version} handshake with the TLS alert {result.alert}{requested}"


def _client_keystore_fix(report: Report, *, why: str) -> str:
    return (f"Give the client {why}:\n\n"
            "librdkafka clients (confluent-kafka, kcat, kdiag -X), PEM files:\n"
            "ssl.certificate.location=<client.pem>\n"
            "ssl.key.location=<client.key>\n"
            "ssl.key.password=<key password, if the key is encrypted>\n"
            "or a PKCS#12 keystore:\n"
            "ssl.keystore.location=<client.p12>\n"
            "ssl.keystore.password=<keystore password>\n\n"
            "Java clients (client.properties, --command-config):\n"
            "ssl.keystore.type=PKCS12\n"
            "ssl.keystore.location=<client.p12>\n"
            "ssl.keystore.password=<keystore password>\n"
            "ssl.key.password=<key password>\n\n"
            f"Check with:  kdiag bootstrap {_used(report)} -X security.protocol={security_protocol(report)} "
            "-X ssl.certificate.location=<client.pem> -X ssl.key.location=<client.key>")


def _refused_for_no_certificate(result: TlsResult) -> bool:
    """A handshake refused because the client sent no certificate: the alert says so, and the server
    had asked for one (TLS 1.2) or refused after the handshake (TLS 1.3). A handshake_failure needs
    that proof: before the ServerHello it means no common cipher or version."""
    if result.status != "alert" or result.client_certificate is not None or result.alert not in _NO_CERTIFICATE_ALERTS:
        return False
    if result.client_certificate_requested is False:
        return False  # a TLS 1.2 server that did not ask refused for another reason
    if result.alert == "handshake_failure":
        return bool(result.client_certificate_requested or result.alert_after_handshake)
    return True


def _client_cert_required(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in tls_targets(report):
        result = target.tls
        if result is None or not _refused_for_no_certificate(result):
            continue
        where = target.where
        if target.node_id is None:
            title = f"The listener at {where} requires a client certificate, and the client has none"
        else:
            title = (f"Broker {target.node_id}'s advertised listener {where} requires a client certificate, and the "
                     "client has none")
        explanation = (f"The listener at {where} authenticates clients by TLS certificate (ssl.client.auth=required) "
                       "and the client presents none (no ssl.certificate.location / ssl.key.location, no "
                       f"ssl.keystore.location): {_alert_story(result)}. The broker logs `Failed authentication with "
                       "/<client address> (SSL handshake failed)`.")
        if target.node_id is not None:
            explanation += (" The bootstrap connection did not ask for one: this broker advertises a listener that "
                            "does, so the client fails only once it follows the metadata.")
        fix = (_client_keystore_fix(report, why="a certificate signed by a CA the listener trusts (the broker's "
                                    "ssl.truststore.location for that listener), with its private key")
               + "\n\nOr, if this listener should not demand client certificates, on the broker:\n\n"
               + property_lines(target.node_id, [("listener.name.<listener>.ssl.client.auth", "requested")],
                                comment="requested: ask for a certificate, accept a client without one; none: never "
                                        "ask"))
        findings.append(finding("TLS_CLIENT_CERT_REQUIRED", "error", title, explanation,
                                _cert_alert_evidence(target, result), fix))
    return tuple(findings)


def _client_cert_rejected(report: Report) -> tuple[Finding, ...]:
    findings = []
    for target in tls_targets(report):
        result = target.tls
        mine = result.client_certificate if result is not None else None
        if result is None or result.status != "alert" or mine is None or result.alert not in _REJECTED_ALERTS:
            continue
        where = target.where
        who = f"the listener at {where}" if target.node_id is None else f"broker {target.node_id}'s listener {where}"
        title = f"{who[0].upper()}{who[1:]} rejects the client's certificate ({mine.subject}, issued by {mine.issuer})"
        explanation = (f"The client presents the certificate {mine.subject}, issued by {mine.issuer}, valid until "
                       f"{mine.not_after}, and {_alert_story(result)}. The broker verifies client certificates "
                       "against the truststore of that listener (ssl.truststore.location): the issuing CA is not in "
                       "it, the chain is incomplete (the client must send its intermediate CAs), or the certificate "
                       "has expired or lacks the clientAuth extended key usage. A Java broker answers a chain it "
                       "cannot verify with certificate_unknown and logs `PKIX path building failed`.")
        fix = (_client_keystore_fix(report, why="a certificate the broker trusts: one signed by the CA in the "
                                    "listener's truststore, with its intermediate CAs in the same file or keystore")
               + "\n\nOr make the broker trust the client's CA: add it to the listener's truststore (a PEM "
               "truststore: append it to the file; JKS/PKCS#12: keytool -importcert -alias client-ca -file "
               "<client-ca.pem> -keystore <broker truststore>) and point the listener at it:\n\n"
               + property_lines(target.node_id, [("listener.name.<listener>.ssl.truststore.location",
                                                  "<truststore with the client's CA>")])
               + "\n\nWhat the client sends:  openssl x509 -in <client.pem> -noout -subject -issuer -dates "
               "-ext extendedKeyUsage")
        findings.append(finding("TLS_CLIENT_CERT_REJECTED", "error", title, explanation,
                                _cert_alert_evidence(target, result), fix))
    return tuple(findings)


def hostport_parts(endpoint: Endpoint) -> tuple[str, int]:
    """The host as a listener URL writes it (brackets around IPv6) and the port."""
    return (f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host), endpoint.port


def _bootstrap_issuer(report: Report) -> str | None:
    detail = report.detail("tls")
    for result in detail.handshakes if isinstance(detail, TlsDetail) else ():
        if result.ok and result.certificate is not None:
            return result.certificate.issuer
    return None


def _trust_words(trust: str | None) -> str:
    if not trust:
        return "CA certificates"
    if trust.startswith("the system"):
        return "system CA store (no ssl.ca.location)"
    return f"CA ({trust})"


def _used(report: Report) -> str:
    used = bootstrap_used(report)
    return hostport(used.host, used.port) if used else "<bootstrap>"


RULES = (
    Rule("NOT_KAFKA", "The port answers, but not with Kafka", "error", _not_kafka),
    Rule("TLS_EXPECTED", "A plaintext client on a TLS listener", "error", _tls_expected),
    Rule("TLS_UNEXPECTED", "A TLS client on a plaintext listener", "error", _tls_unexpected),
    Rule("TLS_CERT_UNTRUSTED", "The broker's certificate chain does not verify against the client's CA", "error",
         _cert_untrusted),
    Rule("TLS_HOSTNAME_MISMATCH", "The name the client connects to is not in the broker's certificate", "error",
         _hostname_mismatch),
    Rule("TLS_CLIENT_CERT_REQUIRED", "The listener wants a client certificate and the client has none", "error",
         _client_cert_required),
    Rule("TLS_CLIENT_CERT_REJECTED", "The listener does not accept the client's certificate", "error",
         _client_cert_rejected),
    Rule("SASL_REQUIRED", "The listener wants SASL and the client has none", "error", _sasl_required),
    Rule("SASL_MECHANISM_MISMATCH", "The client's SASL mechanism is not enabled on the listener", "error",
         _mechanism_mismatch),
    Rule("SASL_AUTH_FAILED", "The broker rejected the SASL credentials", "error", _auth_failed),
)
