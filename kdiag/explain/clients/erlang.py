"""Erlang and Elixir clients (brod and its Elixir wrappers kaffe and broadway_kafka, kafka_ex, klife): what their
lines say about the client's roles. The failures themselves are the runtime's inet atoms (``generic``).

- the bootstrap list is a list of ``{Host, Port}`` tuples: ``brod:start_client([{"localhost", 9092}], client1)``,
  ``KafkaEx.create_worker(:w, uris: [{"localhost", 9092}])``, a ``config :kafka_ex, brokers: [{"b1", 9092}]``;
- kafka_ex names a broker the metadata gave it by node id: ``Establishing connection to broker 1001: "host" on port
  9092`` (lib/kafka_ex/server*.ex), its bootstrap connections by address only;
- brod's ``{failed_to_connect,[{{Host,Port},Reason}]}`` lists the bootstrap endpoints it could not reach;
  ``client c1 failed to connect to h:p`` (brod_client's connect/2) is a leader's or a coordinator's: advertised;
- kafka_protocol's reasons for a connection it could not set up (kpro_connection.erl, kpro_sasl.erl): the TLS
  upgrade closed, the broker's answer to the SASL handshake, and the hint it logs itself (``Make sure ...``);
- kafka_ex's SASL reasons (lib/kafka_ex/auth/sasl*.ex) and its give-up raises;
- Kafka's error codes as Erlang and Elixir atoms (``{error,unknown_topic_or_partition}``), read as ``kafka_errors``
  reads each code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.generic import failure_at, gave_up, remember
from kdiag.explain.clients.kafka_errors import SPELLINGS
from kdiag.explain.clients.versions import gap
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, CONNECT, NO_LEADER, OTHER, PLAINTEXT_ON_TLS, SASL_CREDENTIALS,
                                     SASL_MECHANISM, TLS_ON_PLAINTEXT, TOPIC_MISSING, Fact, Item, Pattern, ScanState,
                                     Sighting, registrar)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_TUPLE = re.compile(r'\{\s*"(?P<host>[^"\s]{1,255})"\s*,\s*(?P<port>\d{1,5})\s*\}')


@pattern("erlang.bootstrap_tuples", OTHER, '[{"', r'\[\{"[^"\s]{1,255}"\s*,\s*\d{1,5}\s*\}(?:\s*,\s*\{[^}]{1,300}\})*\s*\]',
         'brod:start_client([{"kafka-1.example", 9092}, {"kafka-2.example", 9092}], client1)')
def _bootstrap_tuples(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for endpoint in _TUPLE.finditer(m.group(0)):
        yield Fact(BOOTSTRAP, endpoint.group("host"), int(endpoint.group("port")))


@pattern("kafka_ex.establishing", OTHER, "Establishing connection to broker ",
         r'Establishing connection to broker (?P<id>\d+): "?(?P<host>[^"\s]{1,255})"? on port (?P<port>\d{1,5})',
         '[debug] Establishing connection to broker 1001: "kafka-1.example" on port 9092')
def _kafka_ex_establishing(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("broker", m.group("host"), int(m.group("port")), int(m.group("id")))


# brod_client's error when no bootstrap endpoint answered: {failed_to_connect,[{{"kafka",9092},Reason}, ...]}, each
# endpoint with the reason it failed (an inet atom ``generic`` reads): the endpoints are the bootstrap list.
@pattern("brod.failed_to_connect", OTHER, "failed_to_connect", r'failed_to_connect,\s*\[\{\{"(?P<host>[^"\s]{1,255})",\s*(?P<port>\d{1,5})\}',
         '{failed_to_connect,[{{"kafka-1.example",9092},{{badmatch,{error,econnrefused}},[]}}]}')
def _brod_failed_to_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    remember(scan, host, port)
    yield Fact(BOOTSTRAP, host, port)


# kafka_ex (lib/kafka_ex/server*.ex): raise "Unable to fetch metadata from any brokers. Timeout is #{timeout}."
pattern("kafka_ex.no_metadata", OTHER, "Unable to fetch metadata from any brokers",
        r"Unable to fetch metadata from any brokers", "** (RuntimeError) Unable to fetch metadata from any brokers.  "
        "Timeout is 1000.")(gave_up("Unable to fetch metadata from any brokers"))


# kafka_protocol's kpro_sasl: erlang:error({sasl_auth_error, Reason}). The broker's own words, when Reason carries them
# ("Authentication failed: ..."), are read as every client's; kpro_sasl's own words for a mechanism the handshake
# refused are certain; ``bad_credentials`` is its reading of a close after the PLAIN token (handshake v0), past a
# handshake that accepted the mechanism: likely. ``IllegalSaslState`` is Kafka's code (``kafka_errors``), and
# ``{badmatch,{error,enomem}}`` a TLS listener's alert read as a frame's length (kpro_connection's own hint: "Make sure
# 'ssl' option is in client config"): likely TLS_EXPECTED. Any other reason (the connection closed) is a rejected
# login most likely, or a mechanism the listener does not enable.
_MECHANISM_REFUSED = re.compile(r"sasl mechanism (?P<mech>[\w-]+) is not enabled in kafka, enabled mechanism\(s\): "
                                r"(?P<enabled>[\w,\[\] -]*)")


@pattern("kafka_protocol.sasl_auth_error", OTHER, "sasl_auth_error", r"sasl_auth_error,\s*(?P<reason>[^}]{0,160})",
         "{failed_to_connect,[{{\"kafka-1.example\",9096},{{sasl_auth_error,closed},[]}}]}")
def _sasl_auth_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    reason = m.group("reason").strip()
    refused = _MECHANISM_REFUSED.search(reason)
    if refused:
        enabled = tuple(x for x in re.split(r"[,\[\] ]+", refused.group("enabled")) if x)
        yield Sighting(SASL_MECHANISM, OTHER, mechanism=refused.group("mech"), mechanisms=enabled,
                       detail=f"sasl_auth_error: {refused.group(0)}")
    elif reason.startswith("bad_credentials"):
        yield Sighting(SASL_CREDENTIALS, OTHER, detail="sasl_auth_error: bad_credentials",
                       guess="sasl_auth_error, bad_credentials (kafka_protocol's reading of a close after the PLAIN "
                             "token)")
    elif "enomem" in reason:
        yield Sighting(PLAINTEXT_ON_TLS, OTHER, detail=f"sasl_auth_error: {reason[:100]}",
                       guess=f"sasl_auth_error, {reason[:100]} (a TLS alert read as a frame's length)")
    elif not re.search(r"Authentication failed|IllegalSaslState|illegal_sasl_state", reason):
        yield Sighting(SASL_CREDENTIALS, OTHER, detail=f"sasl_auth_error: {reason[:100]}",
                       guess=f"sasl_auth_error, {reason[:100]}", alternatives=("SASL_MECHANISM_MISMATCH",))


# kpro_connection: a TLS upgrade the listener closed or never answered ({failed_to_upgrade_to_ssl, closed | timeout}),
# a TLS client at a plaintext listener most likely; and the hints its hint_msg logs ("Failed to connect to h:p~n<hint>"):
# - "Make sure connecting to a 'SSL://' listener": that upgrade, no SASL configured: likely TLS_UNEXPECTED;
# - "Make sure connecting to 'SASL_SSL://' listener": that upgrade with SASL, or IllegalSaslState over TLS (a TLS
#   listener without SASL, which ``kafka_errors`` reads as SASL_MECHANISM_MISMATCH): TLS_UNEXPECTED, or that;
# - "Make sure connecting to 'SASL_PLAINTEXT://' listener" alone: IllegalSaslState without TLS, certain;
# - "Make sure 'ssl' option is in client config, or make sure connecting to 'SASL_PLAINTEXT://' listener" (``hangups``).
@pattern("kafka_protocol.ssl_upgrade", OTHER, "failed_to_upgrade_to_ssl",
         r"failed_to_upgrade_to_ssl,\s*(?P<why>closed|timeout)\b",
         '{failed_to_connect,[{{"kafka-1.example",9092},{{failed_to_upgrade_to_ssl,closed},[]}}]}')
def _ssl_upgrade(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(TLS_ON_PLAINTEXT, OTHER, detail=m.group(0), guess=f"{m.group(0)} (the listener did not answer TLS)")


@pattern("kafka_protocol.listener_hint", OTHER, "Make sure connecting to ",
         r"(?<!or )Make sure connecting to (?:a )?'(?P<scheme>SSL|SASL_SSL|SASL_PLAINTEXT)://' listener",
         "Make sure connecting to a 'SSL://' listener")
def _listener_hint(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = scan.recent_endpoint(1) or (None, None)
    scheme = m.group("scheme")
    if scheme == "SASL_PLAINTEXT":
        yield Sighting(SASL_MECHANISM, OTHER, host, port, mechanisms=(), detail="IllegalSaslState: " + m.group(0))
        return
    yield Sighting(TLS_ON_PLAINTEXT, OTHER, host, port, detail=m.group(0), guess=f"{m.group(0)} (kafka_protocol's hint)",
                   alternatives=("SASL_MECHANISM_MISMATCH",) if scheme == "SASL_SSL" else ())


# kpro_connection:connect: gen_tcp:connect's {error, timeout} raised as the reason itself, its stack at connect.
@pattern("kafka_protocol.connect_timeout", OTHER, "{timeout,[{kpro_connection,connect",
         r'\{\{"(?P<host>[^"\s]{1,255})",\s*(?P<port>\d{1,5})\},\s*\{timeout,\[\{kpro_connection,connect\b',
         '{failed_to_connect,[{{"kafka-1.example",9092},{timeout,[{kpro_connection,connect,4,[]}]}}]}')
def _connect_timeout(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(CONNECT, OTHER, m.group("host"), int(m.group("port")), role=BOOTSTRAP, status="timeout",
                   detail="{timeout,[{kpro_connection,connect,...}]}")


# brod_client's connect/2 and maybe_connect/3: the endpoints of its payload connections, every one a partition
# leader's or a group coordinator's the metadata gave it (the bootstrap goes through kpro:connect_any, above).
@pattern("brod.payload_connect", OTHER, "connect to ",
         r"(?:client \S+ failed to connect to |\(re\)connect to )(?P<host>[^\s:]{1,255}):(?P<port>\d{1,5})"
         r"(?P<rest>.{0,200})", "client client1 failed to connect to kafka-1.example:9092 reason:econnrefused")
def _brod_payload_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    remember(scan, host, port)
    scan.brod_payload = scan.line
    yield from failure_at(scan, m.group("rest"), host, port, role=ADVERTISED)


# Its reason on the line below ("~nreason:~p", "~nlast failure: ~p"), about the endpoint the line above named.
def _brod_payload_reason(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if scan.brod_payload == scan.line - 1 and scan.recent is not None and scan.recent[0] == scan.line - 1:
        yield from failure_at(scan, m.group("why"), None, None, role=ADVERTISED)


for _head in ("reason:", "last failure: "):
    pattern(f"brod.payload_reason.{len(PATTERNS)}", OTHER, _head, rf"^\s*{_head}(?P<why>.{{1,200}})",
            f"{_head}econnrefused")(_brod_payload_reason)


# kafka_ex (lib/kafka_ex/auth/sasl*.ex): "SASL authentication failed: #{inspect(reason)}".
_KAFKA_EX_SASL = {"auth_failed, :sasl_authentication_failed": SASL_CREDENTIALS,
                  "handshake_failed, :unsupported_sasl_mechanism": SASL_MECHANISM,
                  "unsupported_mechanism_on_broker": SASL_MECHANISM}


@pattern("kafka_ex.sasl_failed", OTHER, "SASL authentication failed",
         r'SASL authentication failed(?: for [^:]+:\d+\}?)?: \{:(?P<reason>auth_failed, :sasl_authentication_failed|'
         r'handshake_failed, :unsupported_sasl_mechanism|unsupported_mechanism_on_broker)(?:, "(?P<mech>[\w-]+)")?',
         "[error] SASL authentication failed: {:auth_failed, :sasl_authentication_failed}")
def _kafka_ex_sasl_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(_KAFKA_EX_SASL[m.group("reason")], OTHER, mechanism=m.group("mech"), detail=m.group(0)[-100:])


# kafka_ex (lib/kafka_ex/network/network_client.ex): "Could not connect to broker \"h\":9092 because of error R",
# R from socket.ex's :gen_tcp.connect or, with use_ssl, :ssl.connect. :timeout is the connect_timeout (``generic``
# reads the inet atoms, not this bare one); :closed comes only from :ssl.connect, the peer hanging up on the
# handshake, as a plaintext listener does with a ClientHello: likely TLS_UNEXPECTED.
@pattern("kafka_ex.connect_failed", OTHER, "because of error :",
         r'Could not connect to broker "?(?P<host>[^"\s]{1,255})"?:(?P<port>\d{1,5}) because of error '
         r':(?P<why>timeout|closed)\b', '[error] Could not connect to broker "kafka-1.example":9092 because of error :timeout')
def _kafka_ex_connect_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host"), int(m.group("port"))
    if m.group("why") == "timeout":
        yield Sighting(CONNECT, OTHER, host, port, status="timeout", detail=":timeout")
    else:
        yield Sighting(TLS_ON_PLAINTEXT, OTHER, host, port, detail=":closed", guess=f"{m.group(0)} (:ssl.connect's "
                       "handshake closed by the listener)")


# kafka_ex (lib/kafka_ex/client/client.ex; server*.ex before 1.0): the raises when no broker answered; request_builder.ex: an API the broker's
# ApiVersions does not list.
for _words in ("Brokers sockets are not opened", "Brokers sockets are closed",
               "ApiVersions negotiation failed: no broker available"):
    pattern(f"kafka_ex.gave_up.{len(PATTERNS)}", OTHER, _words, re.escape(_words),
            f"** (RuntimeError) {_words}")(gave_up(_words))


@pattern("kafka_ex.api_not_supported", OTHER, "is not supported by the connected broker",
         r"Kafka API (?P<api>\w+) is not supported by the connected broker",
         "[error] Kafka API produce is not supported by the connected broker.")
def _kafka_ex_api_not_supported(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield gap(OTHER, m.group("api"), m.group(0))


# kafka_ex api.ex resolve_partition: the metadata it asked for (allowing the topic's creation) holds no such topic
# ({:error, :topic_not_found}), or the topic with no partition leader in it ({:error, :no_partitions_available}):
# the likely readings, from metadata the client holds.
_KAFKA_EX_METADATA = {"topic_not_found": (TOPIC_MISSING, None), "no_partitions_available": (NO_LEADER, "TOPIC_NOT_FOUND")}


def _kafka_ex_metadata(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    symptom, other = _KAFKA_EX_METADATA[m.group("atom")]
    yield Sighting(symptom, OTHER, topic=scan.topic, detail="LEADER_NOT_AVAILABLE" if symptom == NO_LEADER else
                   m.group(0), guess=f"{m.group(0)} (kafka_ex's lookup in the metadata it holds)",
                   alternatives=(other,) if other else ())


for _atom in _KAFKA_EX_METADATA:
    pattern(f"kafka_ex.{_atom}", OTHER, _atom, rf"\{{:error,\s*:(?P<atom>{_atom})\}}",
            f"{{:error, :{_atom}}}")(_kafka_ex_metadata)


# Kafka's error codes as brod, kafka_protocol and kafka_ex return them: snake-case atoms, ``{error,X}``,
# ``{:error, :X}``, brod's "Error: X". The code means what it means in every client (``kafka_errors``).
_ATOMS = {code.lower(): code for code in SPELLINGS}


def _kafka_error_atom(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    code = _ATOMS[m.group("atom")]
    symptom = SPELLINGS[code][0]
    yield Sighting(symptom, OTHER, mechanisms=() if code == "ILLEGAL_SASL_STATE" else None,
                   detail=code if symptom == NO_LEADER else f"{code}: {m.group(0)}")


for _atom in _ATOMS:
    pattern(f"erlang.kafka_error_atom.{_atom}", OTHER, _atom, rf"(?:\{{error,\s*|\{{:error,\s*:|Error: |\breason[=:]\s*:?|"
            rf"sasl_auth_error,\s*|_failed,\s*:)(?P<atom>{_atom})\b", f"{{error,{_atom}}}")(_kafka_error_atom)
