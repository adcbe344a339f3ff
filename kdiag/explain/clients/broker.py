"""The broker's own log: what a listener says about a client that speaks the wrong protocol to it, and
what the broker refuses to advertise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import classify_host
from kdiag.diagnose.rule import finding
from kdiag.explain.builders import Context, Subject, _who, client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.implied import broker, rule_fix
from kdiag.explain.sightings import (ADVERTISED, JAVA, NONROUTABLE, PLAINTEXT_ON_TLS, SASL_CREDENTIALS, SASL_MECHANISM,
                                     SASL_NEEDED, Item, Pattern, ScanState, Sighting, parse_mechanisms, registrar,
                                     with_connection)
from kdiag.finding import Finding

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("broker.unrecognized_ssl", JAVA, "Unrecognized SSL message", r"Unrecognized SSL message, plaintext connection\?",
         "javax.net.ssl.SSLException: Unrecognized SSL message, plaintext connection?")
def _broker_unrecognized_ssl(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # The side that expects TLS got plaintext: a broker's TLS listener, in a broker log (most often).
    yield with_connection(scan, Sighting(PLAINTEXT_ON_TLS, JAVA, detail="Unrecognized SSL message"))


@pattern("broker.unexpected_request", JAVA, "during SASL handshake",
         r"Unexpected Kafka request of type (?P<api>\w+) during SASL handshake",
         "[2026-11-21 14:31:46,729] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
         "/127.0.0.1 (channelId=127.0.0.1:9094-127.0.0.1:51234-0) (Unexpected Kafka request of type METADATA during "
         "SASL handshake.) (org.apache.kafka.common.network.Selector)")
def _broker_unexpected_request(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_NEEDED, JAVA, detail=f"broker: Unexpected Kafka request of type {m.group('api')} during SASL "
                   "handshake")


@pattern("broker.failed_authentication", JAVA, "Failed authentication with",
         r"Failed authentication with /?(?P<peer>[0-9A-Fa-f:.]+) \((?:channelId=[^)]*\) \()?(?P<why>.*?)\)"
         r"(?:\s+\(org\.apache[\w.$]*\))?\s*$",
         "[2026-11-25 11:40:02,118] INFO [SocketServer listenerType=BROKER, nodeId=1] Failed authentication with "
         "/192.0.2.10 (channelId=198.51.100.10:9094-192.0.2.10:40112-3) (Unsupported SASL mechanism SCRAM-SHA-256) "
         "(org.apache.kafka.common.network.Selector)")
def _broker_failed_authentication(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """The broker's word on a client's SASL login: an unsupported mechanism, or rejected credentials."""
    why = m.group("why").strip()
    detail = f"broker: Failed authentication with /{m.group('peer')} ({why})"
    mechanism = re.match(r"Unsupported SASL mechanism (\S+)", why)
    if mechanism is not None:
        yield Sighting(SASL_MECHANISM, JAVA, mechanism=mechanism.group(1).upper(), detail=detail)
    elif why.startswith("Authentication failed"):
        yield Sighting(SASL_CREDENTIALS, JAVA, detail=detail)


@pattern("broker.unexpected_handshake", JAVA, "Unexpected handshake request",
         r"Unexpected handshake request with client mechanism (?P<mech>\S+), enabled mechanisms are \[(?P<enabled>[^\]]*)\]",
         "Unexpected handshake request with client mechanism PLAIN, enabled mechanisms are []")
def _broker_unexpected_handshake(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_MECHANISM, JAVA, mechanism=m.group("mech").rstrip(",").upper(),
                   mechanisms=parse_mechanisms(m.group("enabled")))


@pattern("broker.nonroutable", JAVA, "nonroutable meta-address",
         r"advertised\.listeners cannot use the nonroutable meta-address (?P<address>\S+?)\.?(?:\s|$)",
         "java.lang.IllegalArgumentException: requirement failed: advertised.listeners cannot use the nonroutable "
         "meta-address 0.0.0.0. Use a routable IP address.")
def _broker_nonroutable(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(NONROUTABLE, JAVA, host=m.group("address").rstrip("."), role=ADVERTISED)


def _advertised_nonroutable(subject: Subject, context: Context) -> Finding:
    host = subject.host or "0.0.0.0"
    broker_log = NONROUTABLE in subject.symptoms
    who = _who(subject) if subject.node_id is not None else "The broker"
    parts = [client_said(subject), f"{who} {'was configured to advertise' if broker_log else 'advertises'} "
             f"{subject.where}, {classify_host(host).description}. Kafka refuses to start with it "
             "(`advertised.listeners cannot use the nonroutable meta-address 0.0.0.0.`); a client that sees it got "
             "it from a proxy, or from a bind address copied into the advertised one.",
             consequence_sentence(context).strip()]
    target = broker(subject.node_id, host, subject.port or 9092)
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_NONROUTABLE")
    confirm = context.confirm()
    return finding("ADVERTISED_NONROUTABLE", "error", f"{host} is advertised: no client can connect to it",
                   " ".join(p for p in parts if p), evidence(subject, context, confirm), with_confirm(fix, confirm))
