"""What brokers say they advertise, in the broker's own output and an operator's or a chart's: each broker's id
beside the addresses its advertised.listeners gives clients. Several ids at one address is ADVERTISED_DUPLICATE
(``builders.advertised.from_metadata``), the mistake a copied configuration or a chart's one shared value makes.

Message families, from the sources:

- the broker's configuration dump at start (``KafkaConfig values:`` then ``advertised.listeners = PLAINTEXT://
  kafka:9092`` ... ``broker.id = 1`` ... ``node.id = 1``, alphabetical: the listeners come before the ids),
  server.properties as ``cat`` shows it, and the images' environment (Bitnami's ``KAFKA_CFG_ADVERTISED_LISTENERS``
  and ``KAFKA_CFG_NODE_ID``, Confluent's ``KAFKA_ADVERTISED_LISTENERS`` and ``KAFKA_BROKER_ID``, as ``env``, a
  compose file or a chart's values print them, in either order): an id and the next listeners (or listeners and
  the next id) are one broker's;
- ZooKeeper mode's registration (``Registered broker 1 at path /brokers/ids/1 with addresses: PLAINTEXT://kafka:
  9092, czxid ...``, older ``ArrayBuffer(EndPoint(kafka,9092,ListenerName(PLAINTEXT),PLAINTEXT))``, KafkaZkClient);
- KRaft's controller (``RegisterBrokerRecord(brokerId=1, ... endPoints=[BrokerEndpoint(name='PLAINTEXT',
  host='kafka', port=9092, ...`` and ``BrokerRegistration(id=1, ... listeners=[Endpoint(listenerName='PLAINTEXT',
  securityProtocol=PLAINTEXT, host='kafka', port=9092)``).

A controller's own listener (``CONTROLLER://``) is not one clients are given, and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import BROKER, HOST, Fact, Item, Pattern, ScanState, registrar, split_endpoint

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_LISTENER = re.compile(rf"(?P<name>[A-Za-z_][\w-]*)://(?P<host>{HOST})?:(?P<port>\d{{1,5}})")
_CONTROLLER_NAMES = ("CONTROLLER",)


def _endpoints(value: str) -> list[tuple[str, int]]:
    return [(m.group("host"), int(m.group("port"))) for m in _LISTENER.finditer(value)
            if m.group("host") and m.group("name").upper() not in _CONTROLLER_NAMES]


def _paired(scan: ScanState) -> Iterator[Item]:
    """One broker's id and its listeners, once both are known; the pair is then spent."""
    node_id, endpoints = scan.config_id, scan.config_listeners
    if node_id is None and endpoints is not None:  # listeners no id goes with (yet): one value a chart may share
        for host, port in endpoints:
            yield Fact("unpaired_listener", host, port)
        return
    if node_id is None or endpoints is None:  # half of a broker: read, nothing to list yet
        yield Fact("broker", None, None, node_id)
        return
    for host, port in endpoints:
        yield Fact("broker", host, port, node_id)
    scan.config_paired, scan.config_id, scan.config_listeners = node_id, None, None


@pattern("broker.protocol_map", BROKER, "ROTOCOL_MAP",
         r"\bKAFKA_(?:CFG_)?LISTENER_SECURITY_PROTOCOL_MAP\"?\s*[=:]\s*[\"']?(?P<value>[^\s\"']+)",
         "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL")
@pattern("broker.protocol_map_property", BROKER, "protocol.map",
         r"\blistener\.security\.protocol\.map\s*[=:]\s*(?P<value>\S+)",
         "\tlistener.security.protocol.map = INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL")
def _protocol_map(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _listener_protocols(re.findall(r"[:,](SASL_SSL|SASL_PLAINTEXT|SSL|PLAINTEXT)\b", m.group("value")))


def _listener_protocols(protocols: list[str]) -> Iterator[Item]:
    """What the cluster's listeners want, as a hint for a connection the client only says was closed: a listener
    with SASL (``listener_sasl``), one with TLS (``listener_tls``)."""
    if any(p.startswith("SASL_") for p in protocols):
        yield Fact("listener_sasl")
    if any(p.endswith("SSL") for p in protocols):
        yield Fact("listener_tls")


@pattern("broker.advertised_listeners", BROKER, "advertised.listeners",
         r"\badvertised\.listeners\s*[=:]\s*(?P<value>\S+)", "\tadvertised.listeners = PLAINTEXT://kafka:9092")
@pattern("broker.advertised_listeners_env", BROKER, "ADVERTISED_LISTENERS",
         r"\bKAFKA_(?:CFG_)?ADVERTISED_LISTENERS\"?\s*[=:]\s*[\"']?(?P<value>[^\s\"']+)",
         "KAFKA_CFG_ADVERTISED_LISTENERS=PLAINTEXT://kafka-0.kafka-headless.default.svc.cluster.local:9092")
def _advertised_listeners(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    endpoints = _endpoints(m.group("value"))
    yield from _listener_protocols([name.upper() for name in re.findall(r"([A-Za-z_]+)://", m.group("value"))])
    if endpoints:
        scan.config_listeners = tuple(endpoints)
        yield from _paired(scan)


@pattern("broker.config_id", BROKER, "_ID", r"\bKAFKA_(?:CFG_)?(?:BROKER|NODE)_ID\"?\s*[=:]\s*[\"']?(?P<id>\d+)\b",
         "KAFKA_CFG_NODE_ID=1")
@pattern("broker.config_id_property", BROKER, ".id", r"(?:^|\s)(?:broker|node)\.id\s*[=:]\s*(?P<id>\d+)\s*$",
         "\tbroker.id = 1")
def _config_id(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    node_id = int(m.group("id"))
    if node_id == scan.config_paired:  # the dump's node.id after its broker.id, or the same broker's next dump
        yield Fact("broker", None, None, node_id)
        return
    scan.config_id = node_id
    yield from _paired(scan)


@pattern("broker.zk_registered", BROKER, "Registered broker ",
         r"Registered broker (?P<id>\d+) at path /brokers/ids/\d+ with addresses: (?P<value>.*)",
         "INFO Registered broker 1 at path /brokers/ids/1 with addresses: PLAINTEXT://kafka:9092, czxid (broker epoch): 25")
def _zk_registered(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    value = m.group("value")
    endpoints = _endpoints(value) or [(h, int(p)) for h, p in re.findall(rf"EndPoint\(({HOST}),(\d{{1,5}}),", value)]
    for host, port in endpoints:
        yield Fact("broker", host, port, int(m.group("id")))


# KafkaServer's registration check (ZooKeeper mode): require(..., s"Configured end points ${...} in advertised listeners
# are already registered by broker ${id}") -- another broker id holds the address this broker advertises; it stops.
@pattern("broker.endpoints_taken", BROKER, "in advertised listeners are already registered by broker",
         r"Configured end ?points (?P<value>.+?) in advertised listeners are already registered by broker (?P<id>\d+)",
         "java.lang.IllegalArgumentException: requirement failed: Configured end points kafka:9092 in advertised "
         "listeners are already registered by broker 1001")
def _endpoints_taken(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for element in m.group("value").split(","):
        host, port = split_endpoint(element.strip().split("://")[-1])
        if host:
            yield Fact("taken_endpoint", host, port, int(m.group("id")))


@pattern("broker.kraft_registration", BROKER, "host='",
         r"(?:RegisterBrokerRecord\(brokerId|BrokerRegistration\(id)=(?P<id>\d+),",
         "Replayed RegisterBrokerRecord(brokerId=1, isMigratingZkBroker=false, incarnationId=x, brokerEpoch=5, "
         "endPoints=[BrokerEndpoint(name='PLAINTEXT', host='kafka', port=9092, securityProtocol=0)], features=[])")
def _kraft_registration(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for name, host, port in re.findall(rf"(?:name|listenerName)='([\w-]+)'[^)]*?host='({HOST})', port=(\d{{1,5}})",
                                       m.string):
        if name.upper() not in _CONTROLLER_NAMES:
            yield Fact("broker", host, int(port), int(m.group("id")))


# A chart's or a manifest's replica count (Helm values' replicaCount, a StatefulSet's or compose's replicas): with one
# advertised.listeners value and no id beside it, every replica advertises that value (builders.advertised).
@pattern("operator.replicas", BROKER, "eplica", r"^\s*(?:replicaCount|replicas)\s*:\s*(?P<n>\d{1,3})\s*$",
         "replicaCount: 3")
def _replicas(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("replicas", name=m.group("n"))


# A Kubernetes manifest's env entry: the name, then its value on the next line (or both in one flow-style line).
_ENV_NAME = r"name:\s*[\"']?KAFKA_(?:CFG_)?(?P<key>ADVERTISED_LISTENERS|BROKER_ID|NODE_ID)[\"']?"


@pattern("operator.env_name", BROKER, "name: ", rf"^\s*-?\s*{_ENV_NAME}\s*$", "        - name: KAFKA_CFG_ADVERTISED_LISTENERS")
def _env_name(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.env_pending = (m.group("key"), scan.line)
    yield Fact("broker")


@pattern("operator.env_value", BROKER, "value:", r"\bvalue:\s*[\"']?(?P<value>[^\s\"'},]+)",
         '- {name: KAFKA_ADVERTISED_LISTENERS, value: "PLAINTEXT://kafka.example.com:9092"}')
def _env_value(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    named = re.search(_ENV_NAME, m.string)
    pending, scan.env_pending = scan.env_pending, None
    if named is not None:
        key = named.group("key")
    elif pending is not None and scan.line - pending[1] <= 2:
        key = pending[0]
    else:
        return
    if key == "ADVERTISED_LISTENERS":
        yield from _advertised_listeners(m, scan)
    elif m.group("value").isdigit():
        scan.config_id = int(m.group("value"))
        yield from _paired(scan)
