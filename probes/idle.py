"""A connection held idle, then asked again: does something in the path drop idle connections?

Cloud load balancers and NAT gateways forget a TCP flow after it has been idle for a while (Azure's
load balancer after 4 minutes, Event Hubs after 10, an AWS NAT gateway after 350 s, a home router
sooner) and then drop its packets silently. The client learns of it only when its next request
times out: librdkafka `1 request(s) timed out: disconnect (after 240000ms in state UP)`.

``kdiag bootstrap --idle-check`` keeps its bootstrap connection idle for the time asked within the run
(``hold_idle``); ``kdiag watch --idle-check`` keeps one across its probes instead (``HeldConnection``), so a
sidecar can watch for limits of many minutes without a probe lasting that long.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from probes.kafka import ConnectionClosed, KafkaConnection, KafkaProbeError
from probes.results import IdleCheck


def hold_idle(conn: KafkaConnection, *, seconds: float, answer_timeout: float) -> IdleCheck:
    """Keep ``conn`` idle ``seconds``, then ask for Metadata and wait ``answer_timeout`` for the answer."""
    started = time.monotonic()
    time.sleep(max(0.0, seconds))
    return ask(conn, idle_s=time.monotonic() - started, answer_timeout=answer_timeout)


def ask(conn: KafkaConnection, *, idle_s: float, answer_timeout: float) -> IdleCheck:
    """Ask ``conn``, idle for ``idle_s`` seconds, for Metadata (no topics) and say how it went."""
    asked = time.monotonic()
    idle = round(idle_s, 1)
    try:
        conn.metadata(timeout=answer_timeout, topics=())
    except ConnectionClosed as exc:
        return IdleCheck("closed", idle, round((time.monotonic() - asked) * 1000, 1), str(exc))
    except KafkaProbeError as exc:
        status = "timeout" if exc.foreign is not None and exc.foreign.kind == "stalled" else "error"
        return IdleCheck(status, idle, round((time.monotonic() - asked) * 1000, 1), str(exc))
    return IdleCheck("ok", idle, round((time.monotonic() - asked) * 1000, 1))


class HeldConnection:
    """One connection kept idle across runs, asked again once it has been idle ``seconds``.

    Each run offers its bootstrap connection to ``exchange``. While none is held, the offered one is kept
    (the run must then not close it). Once the held one has been idle ``seconds``, the next run asks on it
    (``ask``), closes it and keeps its own instead, so the check repeats every ``seconds`` or so. ``last``
    is the latest check's result, carried by every run until the next: what the path does to an idle
    connection does not change between two checks, and a finding that came and went with each check would
    read as a flapping path. Safe to call from the probe thread and ``close`` from another. ``clock``
    (monotonic seconds) decides when the held connection is due; tests pass one they move by hand.
    """

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.last: IdleCheck | None = None
        self._conn: KafkaConnection | None = None
        self._since = 0.0
        self._lock = threading.Lock()

    def due(self) -> bool:
        with self._lock:
            return self._due()

    def _due(self) -> bool:  # under the lock
        return self._conn is not None and self.clock() - self._since >= self.seconds

    def exchange(self, conn: KafkaConnection | None, *, answer_timeout: float) -> tuple[IdleCheck | None, bool]:
        """Ask the held connection if it is due, keep ``conn`` if none is held then; return ``last`` and
        whether ``conn`` was kept."""
        with self._lock:
            held, since = (self._conn, self._since) if self._due() else (None, 0.0)
            if held is not None:
                self._conn = None
        if held is not None:
            try:
                self.last = ask(held, idle_s=self.clock() - since, answer_timeout=answer_timeout)
            finally:
                held.close()
        with self._lock:
            if conn is None or self._conn is not None:
                return self.last, False
            self._conn, self._since = conn, self.clock()
            return self.last, True

    def close(self) -> None:
        with self._lock:
            held, self._conn = self._conn, None
        if held is not None:
            held.close()
