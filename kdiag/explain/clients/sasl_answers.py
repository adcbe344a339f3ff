"""The broker's answer to a SASL login (SaslAuthenticate), in each client's words, and what a Kafka error code in
such a line means.

The answer carries an error code and the broker's own words. Apache Kafka answers a refused login with
SASL_AUTHENTICATION_FAILED (58) and words about the credentials; a Kafka-compatible service may answer with another
code and words of its own (Azure Event Hubs: TOPIC_AUTHORIZATION_FAILED and "The request was rejected by firewall
checks." for a namespace firewall that does not admit the client's address). The clients pass both on:

- librdkafka (rdkafka_request.c, rd_kafka_handle_SaslAuthenticate): ``SASL authentication error: <the broker's
  words>``, the code being the error's (58 becomes ``Local: Authentication failure``, another stays itself, and a
  binding may print its name beside the line: ``(TOPIC_AUTHORIZATION_FAILED)``); ``SaslAuthenticateRequest failed:
  <a local error>`` and ``SaslAuthenticateResponse parsing failed`` when no answer came;
- Sarama (broker.go, sendAndReceiveV1SASLPlainAuth): ``Error returned from broker during SASL flow <addr>: <err>``
  (before 1.33) and ``Error returned from broker <addr> during SASL authentication: <err>``, err being a KError's
  words (``kafka server: SASL Authentication failed``), wrapped with the broker's (``: <words>``) since 1.33, or the
  read's own error (``EOF``, an i/o timeout) when no answer came.

So a Kafka error code in such a line is the login's answer, not a topic's or a group's (``kafka_errors`` leaves it);
and the login was refused for the credentials only when the words say so: otherwise the broker said no for a reason
of its own (a network rule, a service's policy), and SASL_AUTH_FAILED is the likely reading, not a certainty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import (GO, HOSTPORT, SASL_CREDENTIALS, Item, Pattern, ScanState, Sighting, registrar,
                                     split_endpoint)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

SASL_ANSWER = re.compile(r"SASL authentication error: |SASL v[01] auth error: |Error returned from broker (?:during "
                         r"SASL flow |\S+ during SASL authentication: )")
"""A line that reports the broker's answer to a SASL login (librdkafka's and Sarama's words)."""

# Words of a refused login that speak of the credentials themselves: Kafka's SaslServer implementations (PLAIN's
# "Authentication failed: Invalid username or password", SCRAM's "Authentication failed during authentication due
# to invalid credentials with SASL mechanism ...", OAUTHBEARER's invalid tokens), Kafka's own code's message ("SASL
# Authentication failed"), Sarama's KError words, a Kerberos/SSPI token that does not decrypt.
_CREDENTIAL_WORDS = re.compile(r"authentication fail|invalid (?:credentials|username|user|password|token)|password|"
                               r"credential|token|nonce|signature|principal|SCRAM|SASL Authentic", re.IGNORECASE)


def credentials_said(words: str) -> bool:
    """The broker's (or the client's) words for a refused login speak of the credentials."""
    return bool(_CREDENTIAL_WORDS.search(words))


OWN_WORDS = "the broker refused the login in words of its own"
"""How a sighting's guess says its words are the broker's own reason, not the credentials (builders.sasl reads it)."""


def refused_for_its_own_reason(words: str) -> str | None:
    """The guess to record when a refused login's ``words`` do not speak of the credentials, else None."""
    if not words or credentials_said(words):
        return None
    return f"{words.strip()} ({OWN_WORDS}, not about the credentials)"


# Sarama: the SaslAuthenticate answer's error. "kafka server: SASL Authentication failed" (ErrSASLAuthenticationFailed),
# maybe cut short in a paste, is the credentials; another KError's words are the broker's reason of its own; the
# read's own errors (EOF, a reset, a timeout) are the connection's, which the hang-up patterns read.
@pattern("sarama.sasl_authenticate_error", GO, "Error returned from broker",
         rf"Error returned from broker (?:during SASL flow (?P<flow>\S+?)|(?P<auth>{HOSTPORT}) during SASL "
         r"authentication): (?P<why>.*)",
         "[sarama] 2021/01/23 10:18:38 Error returned from broker during SASL flow kafka-0:9092: kafka server: SASL "
         "Authentication failed")
def _sarama_sasl_authenticate(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    why = m.group("why").strip()
    if not why.startswith("kafka server:"):
        return  # no answer came: the read's own error (EOF, i/o timeout), read by the hang-up patterns
    named = m.group("flow") or m.group("auth")
    host, port = split_endpoint(named) if ":" in named else (named, None)  # a paste that lost the colon
    yield Sighting(SASL_CREDENTIALS, GO, host, port, detail=why,
                   guess=refused_for_its_own_reason(why.removeprefix("kafka server:")))
