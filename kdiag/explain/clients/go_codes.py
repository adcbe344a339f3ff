"""The Go clients' own words for what a broker answered, in the spellings no shared module reads, each from the
library's source:

- segmentio/kafka-go's error codes (error.go: ``[%d] %s: %s``, the code, its Title, its Description): 6 ``Not Leader
  For Partition``, 16 ``Not Coordinator For Group``, 35 ``Unsupported Version`` and 72 ``Listener Not Found``, whose
  titles differ from the Java names and Sarama's words ``kafka_errors`` and ``versions`` read;
- franz-go's response size over its limit (broker.go: ``invalid large response size %d > limit %d``, with its own note
  when the four bytes are a TLS alert or ``HTTP``): the first bytes of a peer that does not speak Kafka, or a real
  answer over BrokerMaxReadBytes;
- Sarama's ``client/metadata failed SASL authentication`` (client.go: logged for ErrSASLAuthenticationFailed, the
  broker's SASL_AUTHENTICATION_FAILED answer), and 1.24 to 1.34's ``Broker rejected authentication token`` (the
  OAUTHBEARER server's error challenge);
- Sarama's ``client/coordinator coordinator for G is #N (host:port)`` (client.go, the FindCoordinator answer): broker
  N of the metadata is the group's coordinator, so a failure at that address is an advertised broker's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.versions import gap
from kdiag.explain.sightings import (GO, HOSTPORT, NO_LEADER, NOT_COORDINATOR, NOT_KAFKA, NOT_LEADER, SASL_CREDENTIALS,
                                     TOO_LARGE, Fact, Item, Pattern, ScanState, Sighting, registrar, size_sighting,
                                     split_endpoint)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# kafka-go error.go Title() for the codes whose words no other module reads; the Description follows ": ".
_KAFKA_GO_CODES = {"[6] Not Leader For Partition": (NOT_LEADER, "NOT_LEADER_OR_FOLLOWER"),
                   "[16] Not Coordinator For Group": (NOT_COORDINATOR, "NOT_COORDINATOR"),
                   "[72] Listener Not Found": (NO_LEADER, "LISTENER_NOT_FOUND")}

for _words in _KAFKA_GO_CODES:
    @pattern(f"segmentio.code_words.{len(PATTERNS)}", GO, _words, re.escape(_words) + r"\b", _words)
    def _segmentio_code_words(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
        symptom, name = _KAFKA_GO_CODES[m.group(0)]
        if symptom == NO_LEADER:
            yield Sighting(NO_LEADER, GO, topic=scan.topic, detail=name)
            return
        yield Sighting(symptom, GO, detail=f"{name}: {m.string[m.start():m.start() + 120].strip()}")


# kafka-go error.go: UnsupportedVersion's "[35] Unsupported Version: the version of API is not supported", also inside
# transport.go's "negotating API versions with kafka broker at %s: %w" (its spelling).
@pattern("segmentio.unsupported_version", GO, "[35] Unsupported Version", r"\[35\] Unsupported Version\b.{0,120}",
         "negotating API versions with kafka broker at kafka:9092: [35] Unsupported Version: the version of API is not "
         "supported")
def _segmentio_unsupported_version(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(GO, None, m.group(0))


@pattern("go.franz_response_size", GO, "invalid large response size",
         r"invalid large response size (?P<size>\d+) > limit (?P<limit>\d+)(?!; the first three bytes)",
         "[ERROR] unable to request api versions; broker: seed_0, err: invalid large response size 1213486160 > limit "
         "104857600; the four size bytes are 'HTTP' in ascii, the beginning of an HTTP response; is your broker port "
         "correct?")
def _franz_response_size(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """A TLS alert's bytes are go.franz_tls_alert's; other foreign bytes are NOT_KAFKA; a Kafka frame over the limit
    is an answer larger than BrokerMaxReadBytes (a fetch), a size setting, unless it answers ApiVersions, which no
    broker's does."""
    size, limit = int(m.group("size")), int(m.group("limit"))
    first_answer = "api versions" in m.string  # broker.go: "unable to request api versions"
    foreign = size_sighting(Sighting(NOT_KAFKA, GO), size, None if first_answer else limit)
    if foreign is not None:
        yield foreign
    elif size > limit:
        yield Sighting(TOO_LARGE, GO, detail=f"fetch: response size {size} over franz-go's BrokerMaxReadBytes {limit}")


@pattern("sarama.metadata_sasl_failed", GO, "failed SASL authentication", r"client/metadata failed SASL authentication",
         "[sarama] 2026/12/07 21:00:00 client/metadata failed SASL authentication")
def _sarama_metadata_sasl_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, GO, detail="SASL_AUTHENTICATION_FAILED (client/metadata failed SASL authentication)")


@pattern("sarama.coordinator_is", GO, "client/coordinator coordinator for ",
         rf"client/coordinator coordinator for \S+ is #(?P<id>\d+) \((?P<hp>{HOSTPORT})\)",
         "[sarama] 2026/12/07 21:00:00 client/coordinator coordinator for my-group is #1 (b1.internal.example:9092)")
def _sarama_coordinator_is(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = split_endpoint(m.group("hp"))
    yield Fact("broker", host, port, int(m.group("id")))


# Sarama 1.24 to 1.34 (broker.go sendSASLOAuthBearerClientMessage): the OAUTHBEARER server's error challenge, logged
# when the answer also carried an error: the broker refused the token.
@pattern("sarama.token_rejected", GO, "Broker rejected authentication token", r"Broker rejected authentication token: "
         r"(?P<why>.{0,120})", '[sarama] 2021/06/01 10:00:00 Broker rejected authentication token: {"status":"invalid_token"}')
def _sarama_token_rejected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_CREDENTIALS, GO, detail=f"OAUTHBEARER token rejected: {m.group('why').strip()}")
