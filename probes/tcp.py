"""Stage ``tcp``: one connect with a deadline, classified the way an operator thinks of it.

refused: a RST came back (nothing listening, or a firewall REJECT); timeout: nothing came back
(filtered: firewall DROP, security group); unreachable: no route to the host or network.
"""

from __future__ import annotations

import errno
import socket
import time

from probes.deadline import elapsed_ms
from probes.results import TcpResult

_UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EADDRNOTAVAIL, errno.ENETDOWN, errno.EHOSTDOWN}


def classify_os_error(exc: OSError) -> tuple[str, str]:
    if isinstance(exc, ConnectionRefusedError):
        return "refused", "connection refused"
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return "timeout", "no answer (filtered?)"
    if exc.errno in _UNREACHABLE:
        return "unreachable", exc.strerror or errno.errorcode.get(exc.errno, str(exc.errno))
    name = errno.errorcode.get(exc.errno or 0, "")
    return "error", f"{exc.strerror or exc} ({name})" if name else str(exc.strerror or exc)


def connect(address: str, port: int, *, timeout: float) -> tuple[TcpResult, socket.socket | None]:
    """Connect to ``address:port``; returns the result and, when it worked, the open socket."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    started = time.monotonic()
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(max(timeout, 0.001))
    try:
        sock.connect((address, port))
    except OSError as exc:
        sock.close()
        status, error = classify_os_error(exc)
        if status == "timeout":
            error = f"no answer within {timeout:g}s (filtered: a firewall or security group drops the SYN?)"
        return TcpResult(status, address, port, error, elapsed_ms(started)), None
    return TcpResult("ok", address, port, None, elapsed_ms(started)), sock


def connect_all(addresses: list[tuple[str, int]], *, timeout: float
                ) -> list[tuple[TcpResult, socket.socket | None]]:
    """``connect`` to each ``(address, port)`` at once (at most 32 in flight), in their order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(len(addresses), 32))) as pool:
        return list(pool.map(lambda a: connect(a[0], a[1], timeout=timeout), addresses))
