"""The bootstrap host's other listeners: is there a port whose advertised addresses work from here?

A broker usually has several listeners (the seed's INTERNAL and EXTERNAL, Docker's BOB, FRED and
ALICE), but a Metadata response only lists the listener the request arrived on. So when the
advertised brokers fail from here, or nothing listens on the bootstrap port, kdiag tries a short
list of other ports on the same address: the ports Kafka is usually given, the ones next to the
bootstrap port, and the ports the brokers advertise. Each port that accepts a connection gets the
client's own TLS and SASL settings, ApiVersions and Metadata (:func:`probes.advertised.check_endpoint`),
and every broker its metadata advertises is resolved and connected to from here.

The scan has its own small budget (:data:`SCAN_BUDGET`) inside the run's deadline, and is only run
where it can change the advice: a run that is healthy never scans.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from probes import tcp
from probes.advertised import check_address, check_endpoint
from probes.deadline import Deadline
from probes.kafka import Security
from probes.results import AdvertisedAddress, DnsResult, KafkaBroker, ListenerProbe, ListenerScan, TcpResult

COMMON_PORTS = (9092, 9093, 9094, 9095, 9096, 9192, 9292, 9392, 19092, 19093, 19094, 29092, 29093, 29094,
                39092, 49092)
"""Ports Kafka listeners are commonly given: the defaults, and the 1xxxx/2xxxx/3xxxx families of the
Docker images' and the seed's examples."""
SCAN_BUDGET = 1.5
"""Seconds the whole scan may take (never past the run's deadline)."""
CONNECT_CAP = 1.0
"""Seconds one connect may take in the scan: a filtered port must not eat the budget of the rest."""
NEIGHBOURS = (-2, -1, 1, 2)
"""Offsets from the bootstrap port that are tried too (a second listener is often the next port)."""


def candidate_ports(bootstrap_port: int, *, advertised: Iterable[int] = ()) -> tuple[int, ...]:
    """The ports to try besides ``bootstrap_port``, in ascending order."""
    ports = {*COMMON_PORTS, *(bootstrap_port + offset for offset in NEIGHBOURS), *advertised}
    return tuple(sorted(p for p in ports if 0 < p < 65536 and p != bootstrap_port))


Known = Mapping[tuple[str, int], tuple[DnsResult, TcpResult]]
"""(host, port) -> how it resolved and connected, for endpoints the run already checked."""


def scan_listeners(host: str, address: str, ports: Sequence[int], *, deadline: Deadline, connect_timeout: float,
                   cluster_id: str | None, security: Security = Security(), metadata_version: int | None = None,
                   known: Known | None = None) -> ListenerScan:
    """Try ``ports`` on ``address`` (the address ``host`` resolved to) within :data:`SCAN_BUDGET`."""
    budget = deadline.within(SCAN_BUDGET)
    if not ports:
        return ListenerScan(host, address)
    connect_cap = min(connect_timeout, CONNECT_CAP)
    with ThreadPoolExecutor(max_workers=min(len(ports), 32)) as pool:
        swept = list(pool.map(lambda port: _sweep(address, port, budget.cap(connect_cap)), ports))
        open_ports = [port for port, accepted in zip(ports, swept) if accepted]
        # The listener is asked under the name the client used when TLS has to check it; else by address.
        name = host if security.tls is not None else address
        checks = list(pool.map(lambda port: _listener(name, port, budget, connect_cap, cluster_id, security,
                                                      metadata_version), open_ports))
        listeners = _advertised_checked(checks, pool, budget, connect_cap, known or {})
    reason = None
    if budget.expired:
        reason = f"the scan's {SCAN_BUDGET:g} s budget ran out: ports that did not answer in time are not listed"
    return ListenerScan(host, address, tuple(ports), tuple(listeners), reason)


def _sweep(address: str, port: int, timeout: float) -> bool:
    if timeout <= 0:
        return False
    result, sock = tcp.connect(address, port, timeout=timeout)
    if sock is not None:
        sock.close()
    return result.ok


def _listener(name: str, port: int, budget: Deadline, connect_cap: float, cluster_id: str | None,
              security: Security, metadata_version: int | None) -> tuple[ListenerProbe, tuple[KafkaBroker, ...]]:
    check = check_endpoint(KafkaBroker(-1, name, port), deadline=budget, connect_timeout=connect_cap,
                           metadata_version=metadata_version, led=None, cluster_id=cluster_id, security=security)
    if check.tls is not None and not check.tls.ok:
        return ListenerProbe(port, "tls_failed", error=check.tls.error or check.tls.status), ()
    kafka = check.kafka
    if kafka.status == "wrong_broker":  # the only identity failure without a led partition: another cluster
        return ListenerProbe(port, "other_cluster", kafka.cluster_id, error=kafka.error), ()
    if not kafka.ok:
        return ListenerProbe(port, kafka.status, kafka.cluster_id, error=kafka.error), ()
    return ListenerProbe(port, "ok", kafka.cluster_id), kafka.brokers


def _advertised_checked(checks: Sequence[tuple[ListenerProbe, tuple[KafkaBroker, ...]]], pool: ThreadPoolExecutor,
                        budget: Deadline, connect_cap: float, known: Known) -> list[ListenerProbe]:
    """Each listener with the brokers it advertises resolved and connected to (each address once)."""
    todo = list(dict.fromkeys((b.host, b.port) for _probe, brokers in checks for b in brokers
                              if (b.host, b.port) not in known))
    found = dict(known)
    found.update(zip(todo, pool.map(lambda hp: check_address(hp[0], hp[1], deadline=budget,
                                                             connect_timeout=connect_cap), todo)))
    listeners = []
    for probe, brokers in checks:
        addresses = tuple(AdvertisedAddress(b.node_id, b.host, b.port, found[b.host, b.port][0].status,
                                            found[b.host, b.port][1].status) for b in brokers)
        listeners.append(ListenerProbe(probe.port, probe.status, probe.cluster_id, addresses, probe.error)
                         if addresses else probe)
    return listeners
