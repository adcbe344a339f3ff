"""The Go clients' words that suggest a cause without showing it, each from the library's source, read as a likely
reading with the other causes the same words fit:

- franz-go's ErrFirstReadEOF for the api versions exchange (errors.go, broker.go since 1.19: ``read from broker
  received EOF during api versions discovery, which often happens when the broker requires TLS and the client is not
  using it``; the error: ``broker closed the connection immediately during api versions negotiation, ... is TLS
  missing?``): a plaintext client at a TLS listener, its own guess. A broker before 0.10 (no ApiVersions) and a
  broker or proxy turning the connection away close at the same request;
- a connection closed on the SASL login's token after the handshake accepted the mechanism: Sarama's SaslHandshake v0
  flow (broker.go ``Failed to read response while authenticating with SASL to broker %s: EOF``, and ``response header``
  for SCRAM), and its SaslAuthenticate (v1) flow's ``Error while performing SASL Auth %s: EOF``. A broker that speaks
  the v0 login (before 1.0, or a client that asks for it) closes the connection on credentials it rejects instead of answering; a broker going away at that moment ends the same (kafka-go reads that
  EOF as SASLAuthenticationFailed itself, dialer.go, so its ``[58]`` is read with the broker's answers);
- kafka-go's ``failed to dial: EOF`` (dialer.go since 0.4.31: ``failed to dial: %w`` around dialContext, which wraps
  the lookup's and the TCP connect's errors in words of their own and returns the TLS handshake's bare): the listener
  closed the connection on the client's TLS ClientHello, read with the closed connections and TLS on, as Sarama's
  ``Failed to connect to broker h:p: EOF`` is;
- Sarama's ``client/metadata found some partitions to be leaderless`` (client.go: the metadata answered with
  UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE for a topic, and Sarama retries): a topic not there, or a
  partition without a leader;
- and the words a Go client writes only when it logs in with SASL, which take "the listener wants SASL" out of the
  readings of a close they report.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.explain.sightings import (BOOTSTRAP, CONNECTION_CLOSED, GO, HOSTPORT, PLAINTEXT_ON_TLS, SASL_CREDENTIALS, TOPIC_DENIED, TOPIC_MISSING, Fact, Item, Pattern,
                                     ScanState, Sighting, UNKNOWN, registrar, split_endpoint)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

AT_API_VERSIONS = ("BROKER_TOO_OLD", "BROKER_CLOSED_CONNECTION")
"""What else closes a plaintext client's connection at its ApiVersions request: a broker that does not know it, or a
broker (max.connections.per.ip) or a proxy without a backend turning the connection away."""

LEADERLESS = ("NO_LEADER",)
"""Sarama retries the metadata on UNKNOWN_TOPIC_OR_PARTITION (a topic not there) and LEADER_NOT_AVAILABLE alike."""

ON_THE_LOGIN = ("BROKER_CLOSED_CONNECTION",)
"""What else closes a connection on the SASL token: the broker or something between going away then."""

_FRANZ_ADDR = re.compile(rf"\baddr: (?P<hp>{HOSTPORT})")
_FRANZ_SEED = re.compile(r"\bbroker: seed_\d+")


@pattern("go.franz_api_versions_eof", GO, "api versions ",
         r"received EOF during api versions discovery|closed the connection immediately during api versions negotiation",
         "[WARN] read from broker received EOF during api versions discovery, which often happens when the broker "
         "requires TLS and the client is not using it (is TLS misconfigured?); addr: kafka:9093, broker: seed_0, err: EOF")
def _franz_api_versions_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    named = _FRANZ_ADDR.search(m.string)
    host, port = split_endpoint(named.group("hp")) if named else (None, None)
    role = BOOTSTRAP if _FRANZ_SEED.search(m.string) else UNKNOWN
    yield Sighting(PLAINTEXT_ON_TLS, GO, host, port, role=role, detail="EOF at the ApiVersions request",
                   guess="the broker requires TLS and the client is not using it (franz-go's own guess)",
                   alternatives=AT_API_VERSIONS)


@pattern("go.sasl_token_eof", GO, "while authenticating with SASL",
         rf"Failed to read response(?: header| payload)? while authenticating with SASL to broker (?P<hp>{HOSTPORT}): "
         r"(?:unexpected )?EOF\b",
         "[sarama] 2026/12/07 21:00:00 Failed to read response while authenticating with SASL to broker kafka:9092: EOF")
@pattern("go.sasl_authenticate_eof", GO, "Error while performing SASL Auth",
         rf"Error while performing SASL Auth (?P<hp>{HOSTPORT}): (?:unexpected )?EOF\b",
         "[sarama] 2026/12/07 21:00:00 Error while performing SASL Auth kafka:9092: EOF")
def _sasl_token_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    sighting = Sighting(SASL_CREDENTIALS, GO, host, port, detail="the connection closed on the SASL login's token")
    yield replace(sighting, guess="the broker closed the connection on the login instead of answering it, as a broker "
                  "speaking the v0 login does on credentials it rejects", alternatives=ON_THE_LOGIN)


@pattern("segmentio.dial_eof", GO, "failed to dial: ",
         r"\bfailed to dial: (?P<why>(?:unexpected )?EOF|(?:read|write) tcp\S* \S+: (?:read|write): connection reset by "
         r"peer)\s*$", "failed to dial: EOF")
def _segmentio_dial_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    peer = re.search(rf"->(?P<hp>{HOSTPORT}):", m.group("why"))
    host, port = split_endpoint(peer.group("hp") if peer else None)
    yield Fact("tls")
    yield Sighting(CONNECTION_CLOSED, GO, host, port, detail=f"failed to dial: {m.group('why')[-60:]}")


@pattern("sarama.leaderless", GO, "found some partitions to be leaderless",
         r"client/metadata found some partitions to be leaderless",
         "[sarama] 2026/12/07 21:00:00 client/metadata found some partitions to be leaderless")
def _sarama_leaderless(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TOPIC_MISSING, GO, topic=scan.topic, detail="UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE",
                   guess="found some partitions to be leaderless (the metadata had the topic unknown or without a "
                   "leader)", alternatives=LEADERLESS)


# Words a Go client writes only when it logs in with SASL: kafka-go's dialer.go "could not successfully authenticate to
# %s:%d with SASL" (d.SASLMechanism set), Sarama's broker.go SASL handshake lines (Net.SASL.Enable), franz-go's
# broker.go "unable to initialize sasl" (a SASL mechanism configured).
# A close they report is then not a listener wanting SASL from a client without it.
@pattern("segmentio.sasl_on", GO, " with SASL: ", r"could not successfully authenticate to \S+ with SASL: ",
         "could not successfully authenticate to kafka:9092 with SASL: SASL handshake failed: EOF")
@pattern("go.franz_sasl_on", GO, "unable to initialize sasl", r"unable to initialize sasl",
         "[ERROR] unable to initialize sasl; broker: seed_0, err: EOF")
@pattern("sarama.sasl_on", GO, "SASL handshake", r"(?:Failed to (?:send|read) SASL handshake|Error while performing SASL "
         r"handshake|Error while handling SASL handshake response)", "Failed to read SASL handshake header : EOF")
def _go_sasl_on(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("sasl")


@pattern("go.sarama_unknown_topic", GO, "topic or partition that does not exist",
         r"(?:(?P<topic>[A-Za-z0-9._-]+): )?kafka server: Request was for a topic or partition that does not exist",
         "2026/11/21 17:27:09 missing-topic: kafka server: Request was for a topic or partition that does not exist "
         "on this broker")
def _go_sarama_unknown_topic(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """Sarama asks for every topic's metadata (Metadata.Full, the default) and the broker leaves out the topics the
    principal may not Describe, so a topic missing from the answer may be hidden rather than absent. An internal topic
    exists on any cluster where a group has committed offsets: missing, it is likely hidden by the ACLs."""
    topic = scan.topic = _sarama_topic(m) or scan.topic  # for an app's next line about the same error, naming none
    if topic in INTERNAL_TOPICS:
        yield Sighting(TOPIC_DENIED, GO, topic=topic, detail="UNKNOWN_TOPIC_OR_PARTITION",
                       guess=f"{topic} (an internal topic) missing from the metadata",
                       alternatives=("TOPIC_NOT_FOUND",))
        return
    yield Sighting(TOPIC_MISSING, GO, topic=topic, detail="UNKNOWN_TOPIC_OR_PARTITION")


INTERNAL_TOPICS = ("__consumer_offsets", "__transaction_state")
_TOPIC_FIELD = re.compile(r"\btopic(?:=|\":)\"?(?P<topic>[A-Za-z0-9._-]+)")  # topic=T (normalize's), "topic":"T"
_PROSE_BEFORE = re.compile(r"[A-Za-z]+ $")  # "failed to get partition count: ...": the app's words, not a topic


def _sarama_topic(m: re.Match[str]) -> str | None:
    """The topic the app's line names: a record's field (``topic=T``, or JSON kept in a line), else the word
    before ``: kafka server:`` (an app's ``"%s: %v"``) unless it ends a phrase of the app's prose."""
    field = _TOPIC_FIELD.search(m.string)
    if field:
        return field.group("topic")
    word, before = m.group("topic"), m.string[:m.start("topic")] if m.group("topic") else ""
    if word and (not word.isalpha() or not _PROSE_BEFORE.search(before) or before.endswith("topic ")):
        return word
    return None
