"""Rules for what a port speaks once the TCP connection is up: Kafka or not, TLS or not, SASL or not.

They look at the bootstrap endpoint the metadata came through and at every advertised broker the
probe spoke Kafka to; an endpoint is reported once even if it is both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kdiag.diagnose.facts import (bootstrap_kafka, bootstrap_used, client_sasl_mechanism, client_uses_sasl,
                                  client_uses_tls, hostport, join_words, loopback_from_elsewhere, security_protocol)
from kdiag.diagnose.fixes import (KRAFT_NOTE, client_settings_fix, listener_protocol, property_lines,
                                  secure_protocol_for)
from kdiag.diagnose.hosts import is_nonroutable, normalise_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.report import Endpoint, Finding, Report, RoundtripDetail
from probes.results import ForeignBytes, KafkaCheck

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
            mechanism = None
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


def _mechanism_mismatch(report: Report) -> tuple[Finding, ...]:
    mechanism, explicit = client_sasl_mechanism(report)
    if mechanism is None:
        return ()
    findings = []
    for target in probed(report):
        enabled = tuple(m.upper() for m in (target.kafka.sasl_mechanisms or ()))
        unsupported = "UNSUPPORTED_SASL_MECHANISM" in (target.kafka.error or "").upper()
        if not ((enabled and mechanism not in enabled) or unsupported):
            continue
        where = hostport(target.endpoint.host, target.endpoint.port)
        listed = join_words(enabled) if enabled else "not reported"
        chosen = "sets" if explicit else "sets no SASL mechanism, so it uses the default,"
        explanation = (f"The client {chosen} {mechanism}; the listener at {where} enables {listed}. The handshake "
                       f"fails before any credentials are checked: Java `UnsupportedSaslMechanismException: Client "
                       f"SASL mechanism '{mechanism}' not enabled in the server, enabled mechanisms are "
                       f"[{', '.join(enabled)}]`, librdkafka `SASL {mechanism} mechanism handshake failed: Broker: "
                       f"Unsupported SASL mechanism: broker's supported mechanisms: {','.join(enabled)}`.")
        if not explicit:
            explanation += " librdkafka's sasl.mechanisms defaults to GSSAPI (Kerberos), a common surprise."
        fix = client_settings_fix(report, protocol=security_protocol(report),
                                  mechanism=_choose_mechanism(enabled) or "<an enabled mechanism>")
        findings.append(finding("SASL_MECHANISM_MISMATCH", "error",
                                f"The client's SASL mechanism {mechanism} is not enabled on {where}"
                                + (f" (enabled: {listed})" if enabled else ""),
                                explanation, {**target.evidence, "client_mechanism": mechanism,
                                              "client_mechanism_explicit": explicit,
                                              "sasl_mechanisms": list(enabled)}, fix))
    return tuple(findings)


def _auth_failed(report: Report) -> Finding | None:
    mechanism, _ = client_sasl_mechanism(report)
    failures = [(t.label, t.kafka.error or "") for t in probed(report)
                if "SASL_AUTHENTICATION_FAILED" in (t.kafka.error or "").upper()
                or "AUTHENTICATION FAILED" in (t.kafka.error or "").upper()]
    roundtrip = report.detail("roundtrip")
    if isinstance(roundtrip, RoundtripDetail) and (roundtrip.error_code or "").upper() in _AUTH_FAILED_CODES:
        failures.append(("the round trip", roundtrip.error or roundtrip.error_code or ""))
    if not failures:
        return None
    used = bootstrap_used(report)
    where = hostport(used.host, used.port) if used else "<bootstrap>"
    mech = mechanism or "<mechanism>"
    explanation = (f"The listener accepted the {mech} handshake and then rejected the credentials "
                   f"({failures[0][1] or 'SASL_AUTHENTICATION_FAILED'}): the user name or password is wrong, or "
                   "the user does not exist on this cluster (SCRAM users are created per cluster). Java clients "
                   f"log `Authentication failed during authentication due to invalid credentials with SASL "
                   f"mechanism {mech}`; librdkafka `SASL authentication error` / `Local: Authentication failure`.")
    fix = ("Check sasl.username / sasl.password (Java: sasl.jaas.config) against the cluster's users. For SCRAM, "
           "see whether the user exists, and (re)create it:\n"
           f"  kafka-configs.sh --bootstrap-server {where} --describe --entity-type users --entity-name <user>\n"
           f"  kafka-configs.sh --bootstrap-server {where} --alter --entity-type users --entity-name <user> "
           f"--add-config '{mech if mech.startswith('SCRAM') else 'SCRAM-SHA-512'}=[password=<password>]'")
    return finding("SASL_AUTH_FAILED", "error", f"The broker rejected the client's SASL credentials ({mech})",
                   explanation, {"mechanism": mechanism, "failures": [{"where": w, "error": e} for w, e in failures]},
                   fix)


RULES = (
    Rule("NOT_KAFKA", "The port answers, but not with Kafka", "error", _not_kafka),
    Rule("TLS_EXPECTED", "A plaintext client on a TLS listener", "error", _tls_expected),
    Rule("SASL_REQUIRED", "The listener wants SASL and the client has none", "error", _sasl_required),
    Rule("SASL_MECHANISM_MISMATCH", "The client's SASL mechanism is not enabled on the listener", "error",
         _mechanism_mismatch),
    Rule("SASL_AUTH_FAILED", "The broker rejected the SASL credentials", "error", _auth_failed),
)
