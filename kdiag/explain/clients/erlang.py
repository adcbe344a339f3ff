"""Erlang and Elixir clients (brod and its Elixir wrappers kaffe and broadway_kafka, kafka_ex, klife): what their
lines say about the client's roles. The failures themselves are the runtime's inet atoms (``generic``).

- the bootstrap list is a list of ``{Host, Port}`` tuples: ``brod:start_client([{"localhost", 9092}], client1)``,
  ``KafkaEx.create_worker(:w, uris: [{"localhost", 9092}])``, a ``config :kafka_ex, brokers: [{"b1", 9092}]``;
- kafka_ex names a broker the metadata gave it by node id: ``Establishing connection to broker 1001: "host" on port
  9092`` (lib/kafka_ex/server*.ex), its bootstrap connections by address only;
- brod's ``{failed_to_connect,[{{Host,Port},Reason}]}`` lists the bootstrap endpoints it could not reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.generic import gave_up, remember
from kdiag.explain.sightings import BOOTSTRAP, OTHER, SASL_CREDENTIALS, Fact, Item, Pattern, ScanState, Sighting, registrar

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
# ("Authentication failed: ..."), are read as every client's; any other reason (the connection closed, an unsupported
# mechanism) is a rejected login most likely, or a mechanism the listener does not enable.
@pattern("kafka_protocol.sasl_auth_error", OTHER, "sasl_auth_error", r"sasl_auth_error,\s*(?P<reason>[^}]{0,160})",
         "{failed_to_connect,[{{\"kafka-1.example\",9096},{{sasl_auth_error,closed},[]}}]}")
def _sasl_auth_error(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    reason = m.group("reason")
    if "Authentication failed" not in reason:
        yield Sighting(SASL_CREDENTIALS, OTHER, detail=f"sasl_auth_error: {reason.strip()[:100]}",
                       guess=f"sasl_auth_error, {reason.strip()[:100]}", alternatives=("SASL_MECHANISM_MISMATCH",))
