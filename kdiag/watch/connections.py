"""The HTTP server's connections, bounded in number and in time.

The standard library's threading server gives every connection a thread for as long as the client
keeps it open: a thousand clients that each send half a request hold a thousand threads. Here every
connection first takes one of ``limit`` slots (its thread). A connection is *reading* from its accept
(TLS handshake included) until its request head has arrived, and again while a kept-alive connection
waits for its next request; in between it is *answering*. A connection that has read for
``read_timeout``, or answered for ``answer_timeout`` (a client that takes its answer a byte at a time),
is shut down (``reap``, run by the server loop a few times a second); and when every slot is taken, a
new connection takes the slot of the oldest reading one (``admit``). So a slow or hostile client costs
at most ``limit`` threads, each for a bounded time, and a request that arrives whole, such as the
kubelet's ``/livez``, is served.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_CONNECTIONS = 64
READ_TIMEOUT = 10.0  # seconds from accept (or the last answer) to a whole request head
ANSWER_TIMEOUT = 60.0  # seconds to answer, the longest /probe included (the server passes its own)
EVICT_WAIT = 2.0  # seconds a new connection waits for an evicted one's slot


@dataclass(eq=False)
class Connection:
    """One admitted connection: its socket (the TLS one once wrapped), whether it is reading a request,
    and when it must be done with that (or with its answer)."""

    sock: socket.socket
    deadline: float
    reading: bool = True

    def shut(self) -> None:
        """Shut the socket down under its thread, which then sees the end of the stream and ends."""
        try:
            socket.socket.shutdown(self.sock, socket.SHUT_RDWR)  # the plain method: not TLS's, which unwraps
        except OSError:
            pass


class ConnectionLimiter:
    def __init__(self, limit: int = MAX_CONNECTIONS, read_timeout: float = READ_TIMEOUT,
                 answer_timeout: float = ANSWER_TIMEOUT, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.read_timeout = read_timeout
        self.answer_timeout = answer_timeout
        self.clock = clock
        self._slots = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self._open: dict[int, Connection] = {}  # by id of the accepted socket
        self.evicted = 0  # connections shut down to make room or for taking too long

    def admit(self, sock: socket.socket) -> Connection | None:
        """A slot for ``sock``, taking the oldest reading connection's when none is free; None if every
        connection is answering (the caller closes ``sock``)."""
        if not self._slots.acquire(blocking=False):
            with self._lock:
                reading = [c for c in self._open.values() if c.reading]
            if not reading:
                return None
            self._evict(min(reading, key=lambda c: c.deadline))
            if not self._slots.acquire(timeout=EVICT_WAIT):
                return None
        conn = Connection(sock, self.clock() + self.read_timeout)
        with self._lock:
            self._open[id(sock)] = conn
        return conn

    def connection(self, sock: socket.socket) -> Connection | None:
        with self._lock:
            return self._open.get(id(sock))

    def reading(self, conn: Connection) -> None:
        """``conn`` waits for a request (again): it has ``read_timeout`` from now."""
        with self._lock:
            conn.reading, conn.deadline = True, self.clock() + self.read_timeout

    def answering(self, conn: Connection) -> None:
        """A whole request head arrived on ``conn``: it has ``answer_timeout`` to be answered."""
        with self._lock:
            conn.reading, conn.deadline = False, self.clock() + self.answer_timeout

    def release(self, sock: socket.socket) -> None:
        with self._lock:
            conn = self._open.pop(id(sock), None)
        if conn is not None:
            self._slots.release()

    def reap(self) -> None:
        """Shut down every connection past its deadline."""
        now = self.clock()
        with self._lock:
            late = [c for c in self._open.values() if c.deadline <= now]
        for conn in late:
            self._evict(conn)

    def _evict(self, conn: Connection) -> None:
        with self._lock:
            conn.reading, conn.deadline = False, float("inf")  # once: its thread is ending
            self.evicted += 1
        conn.shut()

    @property
    def open(self) -> int:
        with self._lock:
            return len(self._open)
