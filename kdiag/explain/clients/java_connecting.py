"""The Java client's ``Error connecting to node HOST:PORT (id: N rack: R)``: NetworkClient.initiateConnect's WARN for
an IOException raised before any byte went out. initiateConnect resolves the node's host there (ClusterConnectionStates
.connecting, since 2.1; Selector.connect's ``Can't resolve address`` before) and starts a non-blocking connect, whose
own failure (refused, timed out) comes later, as ``Connection to node N (...) could not be established``. So the
exception under this line is nearly always the name not resolving (UnknownHostException), or a connect that failed at
once (no route). A paste that cut the exception off keeps what the host's kind decides: a name brokers advertise by
default (a container id, an EC2 private DNS name, a Kubernetes service name, a bare container name) resolves only
inside its own network, so it is likely the name; an address needs no lookup, so it is the connect (loopback: the
client's own machine). Any other name leaves the cause open: an advertised broker never reached, its readings hedged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.diagnose.hosts import CONTAINER_ID, EC2_INTERNAL, KUBERNETES, LOOPBACK, SINGLE_LABEL, classify_host
from kdiag.explain.clients.java_states import node_role
from kdiag.explain.sightings import (ADVERTISED_DOWN, BOOTSTRAP, BROKER_ROLES, CONNECT, COORDINATOR, HOSTPORT, JAVA,
                                     RESOLVE, Fact, Item, JavaConnection, Pattern, ScanState, Sighting, registrar,
                                     split_endpoint)

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

NAMES_RESOLVED_INSIDE = (CONTAINER_ID, EC2_INTERNAL, KUBERNETES, SINGLE_LABEL)
"""The kinds of name a broker advertises by default, which the client's machine usually cannot resolve."""


@pattern("java.error_connecting", JAVA, "Error connecting to node",
         rf"Error connecting to node (?:(?P<hp>{HOSTPORT})|(?P<v6>[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*):(?P<v6port>\d{{1,5}})) "
         r"\(id: (?P<id>-?\d+) rack: [^)]*\)",
         "[2026-11-21 14:27:00,444] WARN [Producer clientId=console-producer] Error connecting to node "
         "ip-172-31-18-160.us-west-2.compute.internal:9092 (id: 1 rack: null) (org.apache.kafka.clients.NetworkClient)")
def _java_error_connecting(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    # Node.toString: host:port, an IPv6 address unbracketed; "(id: 1 rack: null isFenced: false)" since 4.0
    host, port = split_endpoint(m.group("hp")) if m.group("hp") else (m.group("v6"), int(m.group("v6port")))
    connection = int(m.group("id"))
    scan.java = JavaConnection(host, port, connection, None, scan.line)
    role = node_role(connection)
    node_id = 2**31 - 1 - connection if role == COORDINATOR else connection  # a coordinator's: its broker's id
    yield Fact(BOOTSTRAP if role == BOOTSTRAP else "broker", host, port, node_id if node_id >= 0 else None)
    if host is None:
        return
    words = m.group(0)
    where = {"host": host, "port": port, "node_id": node_id if node_id >= 0 else None, "role": role,
             "role_from": (f"connection {connection} is Integer.MAX_VALUE - {node_id}: the coordinator of a group, "
                           f"broker {node_id}") if role == COORDINATOR else None}
    kind = classify_host(host)
    if kind.kind in NAMES_RESOLVED_INSIDE:  # the exception below, when a paste keeps it, is UnknownHostException
        yield Sighting(RESOLVE, JAVA, status="error", detail=words, guess=words, **where)  # type: ignore[arg-type]
    elif kind.is_ip or kind.kind == LOOPBACK:  # nothing to resolve (localhost neither): the connect failed at once
        status = "refused" if kind.kind == LOOPBACK else "error"  # loopback: nothing listens on this machine
        yield Sighting(CONNECT, JAVA, status=status, detail=words, guess=words, **where)  # type: ignore[arg-type]
    elif role in BROKER_ROLES:  # a name of no telling kind: an advertised broker never reached, the cause open
        yield Sighting(ADVERTISED_DOWN, JAVA, detail=words, **where)  # type: ignore[arg-type]
