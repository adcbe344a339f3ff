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
- the Java client (Selector.pollSelectionKeys): ``Failed authentication with <host>/<ip> (<the exception's words>)``
  at INFO for any AuthenticationException, before NetworkClient's ERROR ``Connection to node N (...) failed
  authentication due to: <the same words>``: an SSL handshake that failed (SslAuthenticationException) or the
  broker's answer to the login (SaslAuthenticationException, MSK's IAM prefixing a request id: ``[uuid]: Access
  denied``);
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

from kdiag.explain.clients.broker import broker_context
from kdiag.explain.clients.java_states import client_side_sasl
from kdiag.explain.sightings import (GO, HOSTPORT, JAVA, SASL_CREDENTIALS, TLS_FAILED, Item, Pattern, ScanState, Sighting,
                                     registrar, split_endpoint)

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


# Java's Selector, on the client's side: the socket's description is the host the client connected to and its address
# (a broker's own log describes a client as "/ip", read by clients.broker). The words are the exception's message:
# "SSL handshake failed" (the Caused by: lines under NetworkClient's line say why), the broker's refusal of the
# login, or what other patterns read in the same line (a mechanism not enabled, a Kerberos principal unknown) or no
# refusal at all: the JVM's own SASL set-up, MSK's connection-rate quota ("Too many connects").
@pattern("java.selector_failed_authentication", JAVA, "authentication with ",
         r"Failed (?:re-)?authentication with (?P<host>[^\s/()]+)/(?P<addr>[^\s()]*) \((?:channelId=[^)]*\) \()?"
         r"(?:\[[0-9A-Fa-f-]{8,40}\]: )?(?P<why>.*?)\)(?:\s+\(org\.apache[\w.$]*\)(?: \[.*)?)?\s*$",
         "[2026-12-07 09:20:11,402] INFO [Consumer clientId=orders-1, groupId=orders] Failed authentication with "
         "b-2.orders.a1b2c3.c4.kafka.eu-west-1.amazonaws.com/10.12.4.77 ([5f0c2d9e-1b7a-4c3e-9d21-7e6a0b4f8c11]: "
         "Access denied) (org.apache.kafka.common.network.Selector)")
def _java_selector_failed_authentication(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if broker_context(m.string):  # the broker naming a client it knows a name for (clients.broker reads it)
        return
    why, host = m.group("why").strip(), m.group("host")
    where = {"host": host, "port": scan.port_of(host), "address": m.group("addr") or None}
    if why.startswith(("SSL handshake failed", "Failed to process post-handshake")):
        yield Sighting(TLS_FAILED, JAVA, detail=why, guess=why, alternatives=("TLS_HOSTNAME_MISMATCH",),
                       **where)  # type: ignore[arg-type]
    elif not (_NOT_A_REFUSED_LOGIN.search(why) or client_side_sasl(why)):
        yield Sighting(SASL_CREDENTIALS, JAVA, detail=why, guess=refused_for_its_own_reason(why),
                       **where)  # type: ignore[arg-type]


_NOT_A_REFUSED_LOGIN = re.compile(r"not enabled in the server|Unexpected handshake request|Unsupported SASL mechanism"
                                  r"|Too many connects|Kerberos|GSS|when evaluating SASL token")
"""Words other patterns read (a mechanism, a Kerberos principal), or no refused login (MSK's connection-rate quota)."""
