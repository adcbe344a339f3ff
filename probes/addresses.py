"""Every resolved address of a host, connected to: the one a client uses first, and the ones it alternates to.

A name often resolves to more than one address: ``localhost`` to ``::1`` and ``127.0.0.1``, a dual-stack
name to an AAAA and an A record, round-robin DNS to several A records. Clients do not stop at the first
address that works: librdkafka takes the next address on every reconnect (and fails every other connect
when one family is dead: `Connect to ipv6#[::1]:9093 failed: Connection refused`, then `1/1 brokers are
down`), the Java client (``client.dns.lookup=use_all_dns_ips``) tries them in turn. So stopping at the
first success, as a connectivity check usually does, hides a broker that listens on one family only.

:func:`connect_every` connects to all of them side by side (a dead address costs one connect timeout,
not one each) and keeps the socket of the first that worked, in resolution order.
"""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor

from probes import tcp
from probes.deadline import Deadline
from probes.results import DnsResult, TcpResult

MAX_ADDRESSES = 8
"""At most this many addresses of one name are tried (round-robin DNS can list dozens)."""


def connect_every(resolved: DnsResult, port: int, *, deadline: Deadline, connect_timeout: float
                  ) -> tuple[TcpResult, socket.socket | None, tuple[TcpResult, ...]]:
    """Connect to every address of ``resolved`` on ``port``, in parallel.

    Returns the result a client's first connect gets (the first address, in resolution order, that
    connected; else the first failure), its open socket (None when none connected), and every
    attempt when the name had more than one address (``()`` for a single address: nothing to compare).
    """
    addresses = list(dict.fromkeys(resolved.addresses))[:MAX_ADDRESSES]
    if not addresses or deadline.expired:
        return TcpResult("timeout", None, port, "the run's deadline passed before connecting"), None, ()
    timeout = deadline.cap(connect_timeout)
    if len(addresses) == 1:
        result, sock = tcp.connect(addresses[0], port, timeout=timeout)
        return result, sock, ()
    with ThreadPoolExecutor(max_workers=len(addresses)) as pool:
        outcomes = list(pool.map(lambda address: tcp.connect(address, port, timeout=timeout), addresses))
    chosen: tuple[TcpResult, socket.socket | None] | None = None
    for result, sock in outcomes:
        if sock is None:
            continue
        if chosen is None:
            chosen = (result, sock)
        else:
            sock.close()
    attempts = tuple(result for result, _sock in outcomes)
    if chosen is None:
        return attempts[0], None, attempts
    return chosen[0], chosen[1], attempts

