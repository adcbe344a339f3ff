"""librdkafka before 1.x (0.8 to 0.11, and the bindings built on it): the words later releases replaced or added a
hint to. ``Failed to connect to broker at h:p`` (and the syslog-like ``RDKAFKA-3-FAIL`` format), a TLS handshake
or a SASL login the other side hung up on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import normalise_host
from kdiag.explain.clients.librdkafka import RdBroker
from kdiag.explain.sightings import (ADVERTISED, CONNECT, LIBRDKAFKA, SASL_CREDENTIALS, TLS_ON_PLAINTEXT, Item,
                                     Pattern, ScanState, Sighting, registrar, tcp_status)

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
