"""Broker lists a client or an operator's tool prints: each broker's node id and the address it advertises.

Message families: the Java client's ``Node.toString()`` (``host:port (id: 1 rack: null)``), in its DEBUG metadata
dumps (``MetadataCache{... nodes={1=kafka:9092 (id: 1 rack: null), ...}``), in ``kafka-broker-api-versions``'
output (``kafka:9092 (id: 1 rack: null) -> (``) and in its connection lines (``Connection to node 1
(kafka/172.18.0.3:9092)``); kafkajs's metadata response at debug level (``"brokers":[{"nodeId":1,"host":"kafka",
"port":9092,...}]``). Several node ids at one address is ADVERTISED_DUPLICATE (from the broker lists).

A consumer group's coordinator is a broker under a second id (Java: Integer.MAX_VALUE - its id): not listed,
or it would look like a second broker at the same address.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import ANY, HOST, JAVA, KAFKAJS, Fact, Item, Pattern, ScanState, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_COORDINATOR_IDS = 2**31 - 2**20  # Java's coordinator node ids count down from Integer.MAX_VALUE


def _broker(host: str, port: str, node_id: str) -> Iterator[Fact]:
    if 0 <= int(node_id) < _COORDINATOR_IDS:
        yield Fact("broker", host, int(port), int(node_id))
    elif int(node_id) < 0:  # the Java client numbers its bootstrap.servers -1, -2, ... (Metadata.bootstrap)
        yield Fact("bootstrap", host, int(port))


@pattern("java.node", ANY, "(id: ", rf"({HOST}):(\d{{1,5}}) \(id: (-?\d+) rack: ",
         "kafka:9092 (id: 1 rack: null) -> (")
def _java_node(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for host, port, node_id in re.findall(rf"({HOST}):(\d{{1,5}}) \(id: (-?\d+) rack: ", m.string):
        yield from _broker(host, port, node_id)


@pattern("java.connection_node", JAVA, "Connection to node ",
         rf"Connection to node (?P<id>\d+) \((?P<host>{HOST})/[^()\s]*:(?P<port>\d{{1,5}})\)",
         "[2026-11-26 10:00:00,000] WARN [Producer clientId=p] Connection to node 1 (kafka/172.18.0.3:9092) could not "
         "be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)")
def _java_connection_node(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _broker(m.group("host"), m.group("port"), m.group("id"))


@pattern("kafkajs.metadata_brokers", KAFKAJS, '"nodeId":',
         rf'"nodeId":(\d+),"host":"({HOST})","port":(\d{{1,5}})',
         '{"level":"DEBUG","logger":"kafkajs","message":"[Connection] Response Metadata(key: 3, version: 6)",'
         '"data":{"brokers":[{"nodeId":1,"host":"kafka","port":9092,"rack":null}]}}')
def _kafkajs_metadata_brokers(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    for node_id, host, port in re.findall(rf'"nodeId":(\d+),"host":"({HOST})","port":(\d{{1,5}})', m.string):
        yield from _broker(host, port, node_id)
