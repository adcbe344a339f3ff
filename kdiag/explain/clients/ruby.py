"""ruby-kafka (and fluent-plugin-kafka, racecar, phobos, delivery_boy on it): the lines that name its seed brokers
(the bootstrap), the brokers the metadata gave it, and its give-up line. From lib/kafka/cluster.rb:

- ``Fetching cluster metadata from kafka://host:9092`` (a seed broker, tried in turn);
- ``Discovered cluster metadata; nodes: host:9092 (node_id=1), ...`` (the advertised brokers);
- ``Failed to fetch metadata from kafka://host:9092: <error>`` and, in the ConnectionError that ends it, one
  ``- kafka://host:9092: <error>`` line per seed broker, under ``Could not connect to any of the seed brokers:``;
- from lib/kafka/connection.rb, any broker it opens: ``Timed out while trying to connect to host:9092: <error>``
  (its rescue of Errno::ETIMEDOUT around the connect: certain, whatever the words after) and ``Failed to connect to
  host:9092: <error>`` (SocketError, ECONNREFUSED: ``generic`` reads those words). Neither says the address's role:
  a seed line above names it a bootstrap address.

The error words are Ruby's (``Connection refused - connect(2) for "host" port 9092``, ``getaddrinfo: Name or
service not known``), read by ``generic``. ``Connection error Errno::ETIMEDOUT: ...`` is connection.rb's wrapping of
an error *after* the connect (send_request's rescue; the connect's own is ``Timed out while trying to connect``): a
request that got no answer in socket_timeout, not a connect that timed out.

Its SASL words (lib/kafka/sasl_authenticator.rb, lib/kafka/sasl/*.rb): ``PLAIN is not supported.`` when the
SaslHandshake's answer carries an error or lacks the mechanism, and ``FailedScramAuthentication`` for a SCRAM login
the broker ended. Ruby's OpenSSL words for a TLS handshake the peer hung up on (``SSL_connect SYSCALL returned=5``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.generic import failure_at, gave_up, remember
from kdiag.explain.clients.versions import gap
from kdiag.explain.sightings import (BOOTSTRAP, CONNECT, HOST, NO_LEADER, OTHER, SASL_CREDENTIALS, SASL_MECHANISM,
                                     TLS_ON_PLAINTEXT, TOPIC_DENIED, TOPIC_MISSING, Fact, Item, Pattern, ScanState,
                                     Sighting, registrar)
from kdiag.explain.tls_readings import hung_up_in_handshake

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_SEED = rf"kafka(?:\+ssl)?://(?P<host>{HOST}):(?P<port>\d{{1,5}})"


@pattern("ruby_kafka.seed", OTHER, "kafka://",
         rf"(?:Fetching cluster metadata from |Failed to fetch metadata from |^\s*- ){_SEED}(?: \([^)]*\))?(?P<rest>.*)",
         "Failed to fetch metadata from kafka://kafka-1.example:9092: Connection refused - connect(2) for "
         "\"kafka-1.example\" port 9092")
def _seed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    yield Fact(BOOTSTRAP, host, port)
    remember(scan, host, port)  # "- connect(2) for <its IP>:9092" in the same words is about this endpoint
    if "Connection error Errno::ETIMEDOUT" in m.group("rest"):
        return  # a request's answer that did not come, after the connect
    yield from failure_at(scan, m.group("rest"), host, port, role=BOOTSTRAP)


@pattern("ruby_kafka.nodes", OTHER, "Discovered cluster metadata; nodes: ", r"Discovered cluster metadata; nodes: (?P<nodes>.*)",
         "Discovered cluster metadata; nodes: kafka-1.example:9092 (node_id=1), kafka-2.example:9092 (node_id=2)")
def _nodes(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for node in re.finditer(rf"(?P<host>{HOST}):(?P<port>\d{{1,5}}) \(node_id=(?P<id>\d+)\)", m.group("nodes")):
        yield Fact("broker", node.group("host"), int(node.group("port")), int(node.group("id")))


# broker.rb to_s: "#{@connection} (node_id=#{@node_id})" -- a broker the metadata gave, wherever a line names one
# ("Failed to get coordinator info from h:9092 (node_id=1): Timed out while trying to connect to h:9092: ...").
@pattern("ruby_kafka.broker", OTHER, " (node_id=", rf"(?P<host>{HOST}):(?P<port>\d{{1,5}}) \(node_id=(?P<id>\d+)\)",
         "Failed to get coordinator info from kafka-1.example:9092 (node_id=1): Connection error EOFError: end of "
         "file reached")
def _broker(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("broker", m.group("host"), int(m.group("port")), int(m.group("id")))


@pattern("ruby_kafka.connect_timed_out", OTHER, "Timed out while trying to connect to ",
         rf"Timed out while trying to connect to (?P<host>{HOST}):(?P<port>\d{{1,5}})(?:: (?P<why>.{{0,120}}))?",
         "Timed out while trying to connect to kafka-1.example:9092: Connection timed out")
def _connect_timed_out(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    yield Sighting(CONNECT, OTHER, host, port, status="timeout", detail=(m.group("why") or m.group(0)).strip())


_NO_SEED = gave_up("Could not connect to any of the seed brokers")


# Before 0.5 the ConnectionError listed the seeds on its own line: "...seed brokers: kafka://h1:9092, kafka://h2:9092".
@pattern("ruby_kafka.no_seed", OTHER, "Could not connect to any of the seed brokers",
         r"Could not connect to any of the seed brokers:?(?P<seeds>[^\n]{0,1000})", "Kafka::ConnectionError: Could not "
         "connect to any of the seed brokers: kafka://kafka-1.example:9092, kafka://kafka-2.example:9092")
def _no_seed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _NO_SEED(m, scan)
    for seed in re.finditer(_SEED, m.group("seeds")):
        yield Fact(BOOTSTRAP, seed.group("host"), int(seed.group("port")))


# cluster.rb get_coordinator: every broker's FindCoordinator (GroupCoordinator) failed with a ConnectionError -- brokers
# that had just answered Metadata -- then raise Kafka::Error, "Failed to find coordinator" ("Failed to find group
# coordinator" in older releases). A broker before 0.9 does not know the request and closes the connection: likely.
@pattern("ruby_kafka.no_coordinator", OTHER, "Failed to find ", r"Kafka::Error: Failed to find (?:group )?coordinator",
         "Kafka::Error: Failed to find group coordinator")
def _no_coordinator(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(OTHER, "FindCoordinator", m.group(0), guess=f"{m.group(0)} (every broker closed the connection at the "
              "coordinator lookup, after answering Metadata)")


# ruby-kafka (lib/kafka.rb) and Poseidon (Poseidon::Errors) name Kafka's error codes as classes, one per code:
# ``Kafka::UnknownTopicOrPartition`` (3), ``Kafka::LeaderNotAvailable`` (5), ``Kafka::TopicAuthorizationFailed`` (29).
_CODES = {"UnknownTopicOrPartition": (TOPIC_MISSING, "UNKNOWN_TOPIC_OR_PARTITION"),
          "LeaderNotAvailable": (NO_LEADER, "LEADER_NOT_AVAILABLE"),
          "TopicAuthorizationFailed": (TOPIC_DENIED, "TOPIC_AUTHORIZATION_FAILED"),
          "UnsupportedSaslMechanism": (SASL_MECHANISM, "UNSUPPORTED_SASL_MECHANISM"),
          "InvalidSaslState": (SASL_MECHANISM, "ILLEGAL_SASL_STATE")}


@pattern("ruby.kafka_error_class", OTHER, "::", r"\b(?:Kafka|Poseidon::Errors)::(?P<name>UnknownTopicOrPartition|"
         r"LeaderNotAvailable|TopicAuthorizationFailed|UnsupportedSaslMechanism|InvalidSaslState)\b"
         r"(?:: (?:[Uu]nknown topic|[Nn]o topic|[Tt]opic)[: ]+\"?(?P<topic>[\w.-]{1,249}))?",
         "Kafka::UnknownTopicOrPartition: unknown topic payments")
def _kafka_error_class(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    symptom, code = _CODES[m.group("name")]
    # ruby-kafka raises UnknownTopicOrPartition itself too, from the metadata it holds ("unknown topic T" in
    # cluster.rb, 'no topic "T"' in metadata_response.rb): metadata it fetched for other topics only says the same,
    # so the topic missing is the likely reading, not a certainty.
    guess = f"{m.group(0)} (ruby-kafka's lookup in the metadata it holds)" if symptom == TOPIC_MISSING else None
    yield Sighting(symptom, OTHER, topic=m.group("topic") or scan.topic, detail=code, guess=guess,
                   mechanisms=() if code == "ILLEGAL_SASL_STATE" else None)


# sasl_authenticator.rb: raise Kafka::Error, "#{ident} is not supported." when the SaslHandshake's answer has an error
# code or does not list the mechanism: UNSUPPORTED_SASL_MECHANISM, or ILLEGAL_SASL_STATE from a listener without SASL,
# which ``kafka_errors`` reads as the same finding (a listener that enables no mechanism).
@pattern("ruby_kafka.sasl_not_supported", OTHER, " is not supported.",
         r"\b(?P<mech>PLAIN|SCRAM-SHA-256|SCRAM-SHA-512|GSSAPI|OAUTHBEARER|AWS_MSK_IAM) is not supported\.",
         "Kafka::Error: PLAIN is not supported.")
def _sasl_not_supported(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(SASL_MECHANISM, OTHER, mechanism=m.group("mech"), detail=m.group(0))


# sasl/scram.rb: FailedScramAuthentication with the server's "e" attribute, or EOFError's "end of file reached" when
# the broker closed the connection on the login, past a handshake that accepted the mechanism (handshake v0: its
# answer to bad credentials, as for PLAIN's "SASL PLAIN authentication failed: end of file reached"). "Invalid server
# signature" is the client doubting the server, no reading.
@pattern("ruby_kafka.scram_failed", OTHER, "FailedScramAuthentication",
         r"FailedScramAuthentication(?::\s*|\)?\s*)(?P<why>[^()\n]{0,120})", "Kafka::FailedScramAuthentication: end of file "
         "reached")
def _scram_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    why = m.group("why").strip()
    if "server signature" in why:
        return
    yield Sighting(SASL_CREDENTIALS, OTHER, detail=m.group(0).strip()[:120])


# Ruby's OpenSSL (ssl_socket_with_timeout.rb's connect_nonblock): the peer closed during the handshake --
# "SSL_connect SYSCALL returned=5 errno=0 state=..." (OpenSSL 1.x) or "state=error: unexpected eof while reading"
# (3.x). A plaintext Kafka listener reads the ClientHello as a request's length and closes: likely TLS_UNEXPECTED.
@pattern("ruby.ssl_connect_eof", OTHER, "SSL_connect ",
         r"SSL_connect (?:SYSCALL returned=5 errno=0|returned=1 errno=0(?= .*unexpected eof while reading))"
         r"(?: peeraddr=(?P<hp>\S+))?[^\n]{0,80}", "OpenSSL::SSL::SSLError: SSL_connect SYSCALL returned=5 errno=0 "
         "state=SSLv2/v3 read server hello A")
def _ssl_connect_eof(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield hung_up_in_handshake(Sighting(TLS_ON_PLAINTEXT, OTHER, detail=m.group(0)[:120]), m.group(0)[:120])
