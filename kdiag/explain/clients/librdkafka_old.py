"""librdkafka before 1.x (0.8 to 0.11, and the bindings built on it): the words later releases replaced or added a
hint to. ``Failed to connect to broker at h:p`` (and the syslog-like ``RDKAFKA-3-FAIL`` format), a TLS handshake
or a SASL login the other side hung up on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.clients.librdkafka import RdBroker
from kdiag.explain.sightings import (ADVERTISED, CONNECT, LIBRDKAFKA, NOT_KAFKA, SASL_CREDENTIALS, TLS_ON_PLAINTEXT,
                                     Item, Pattern, ScanState, Sighting, registrar, size_sighting, tcp_status)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


# librdkafka before 1.x: "Failed to connect to broker at host:port: why", in the syslog-like format too
# (``RDKAFKA-3-FAIL: rdkafka#producer-0: localhost:9092/0: ...``). The connection's name keeps the address it
# was created with (127.0.0.1:9093/bootstrap) while the address it dials is the one the metadata advertised:
# a name and an address that differ mean the metadata re-pointed the connection.
@pattern("librdkafka.connect_old", LIBRDKAFKA, "Failed to connect to broker at ",
         r"Failed to connect to broker at \[?(?P<host>[^\]\s]+?)\]?:(?P<port>\d{1,5}): (?P<why>[^(]*)",
         "1449192392.132 RDKAFKA-3-FAIL: rdkafka#producer-0: localhost:9092/0: Failed to connect to broker at "
         "localhost:9092: Connection refused")
def _rd_connect_old(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    host, port = m.group("host"), int(m.group("port"))
    role, role_from = broker.role, None
    if broker.host is not None and (normalise_host(broker.host), broker.port) != (normalise_host(host), port):
        role, role_from = ADVERTISED, (f"librdkafka's connection {broker.host}:{broker.port} dials {host}:{port}: the "
                                       "address the cluster's metadata advertised for it")
    yield Sighting(CONNECT, LIBRDKAFKA, host, port, None, broker.node_id, role, status=tcp_status(m.group("why")),
                   protocol=broker.protocol, detail=m.group("why").strip(), role_from=role_from)


# librdkafka before 1.x, where later ones add their hint: a TLS handshake the other side hung up on at once (a
# plaintext listener, most likely), and a SASL login the broker hung up on (the credentials, librdkafka guesses).
@pattern("librdkafka.ssl_handshake_disconnected", LIBRDKAFKA, "SSL handshake failed: Disconnected (after",
         r"SSL handshake failed: Disconnected \(after", "%3|1795731839.479|FAIL|rdkafka#producer-1| "
         "[thrd:ssl://127.0.0.1:33381/bootstrap]: ssl://127.0.0.1:33381/bootstrap: SSL handshake failed: Disconnected "
         "(after 0ms in state CONNECT)")
def _rd_ssl_handshake_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(TLS_ON_PLAINTEXT, detail="SSL handshake failed: Disconnected",
                                           guess="SSL handshake failed: Disconnected (the peer hung up on the "
                                           "ClientHello)")


@pattern("librdkafka.sasl_failure_disconnected", LIBRDKAFKA, "SASL authentication failure: Disconnected",
         r"SASL authentication failure: Disconnected: check client (?P<mech>\S+) credentials",
         "%3|1795731839.390|FAIL|rdkafka#producer-1| [thrd:sasl_plaintext://127.0.0.1:59855/bootstrap]: "
         "sasl_plaintext://127.0.0.1:59855/bootstrap: SASL authentication failure: Disconnected: check client PLAIN "
         "credentials and broker logs")
def _rd_sasl_failure_disconnected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(SASL_CREDENTIALS, mechanism=m.group("mech"),
                                           detail="SASL authentication failure: Disconnected",
                                           guess=f"check client {m.group('mech')} credentials and broker logs")


# librdkafka before 0.11 (rdkafka_broker.c until its 2017 buffer rewrite, which says "Invalid response size"):
# "Invalid message size N (0..M): increase receive.message.max.bytes", N being the frame's size less the four bytes
# of its correlation id. The first four bytes the port sent, read as a size, are N + 4 ("HTTP" is 1213486160, so
# such a line says 1213486156).
@pattern("librdkafka.invalid_message_size_old", LIBRDKAFKA, "Invalid message size",
         r"Invalid message size (?P<size>-?\d+) \(0\.\.(?P<limit>\d+)\)",
         "1527700852.798 RDKAFKA-3-FAIL: rdkafka#consumer-1: [thrd:ssl://b:8082/bootstrap]: ssl://b:8082/bootstrap: "
         "Receive failed: Invalid message size 1213486156 (0..1000000000): increase receive.message.max.bytes")
def _rd_invalid_message_size_old(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    size = int(m.group("size"))
    sighting = size_sighting(RdBroker.find(m.string).sighting(NOT_KAFKA), size + 4, int(m.group("limit")))
    if sighting is not None:  # else a real broker's answer over receive.message.max.bytes
        yield replace(sighting, detail=(sighting.detail or "").replace(f"response size {size + 4}",
                                                                       f"message size {size} (a frame of {size + 4})"))
