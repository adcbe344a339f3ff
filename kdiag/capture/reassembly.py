"""TCP reassembly, sans-I/O: one connection's two byte streams put back in order from captured segments.

A ``TcpConnection`` takes the segments of one TCP connection (``segment(...)``) and keeps, per
direction (a ``Direction``), the byte stream in order by sequence number: out-of-order segments wait
in a bounded set, retransmissions and overlaps are trimmed, and a hole that the capture will not
fill (the peer acknowledged past it, the wait set overflowed, the direction ended) is declared lost.
It also keeps the connection's TCP facts: the handshake (SYN, SYN-ACK, an ICMP error, a refusal), who
reset it and whether it closed.

What reads the streams subclasses it: ``_deliver`` gets the in-order bytes, ``_lost`` the size of a
hole, ``_streams_past`` says which in-order bytes it does not need to see (the fast path of a
capture's bulk). :class:`kdiag.capture.kafka_streams.Connection` frames them as Kafka.
"""

from __future__ import annotations

from typing import Protocol

from kdiag.capture.pcapio import ACK, FIN, ICMP_PORT_UNREACHABLE, RST, SYN, address_text
from kdiag.report import Endpoint

MASK = 0xFFFFFFFF
HALF = 0x80000000
PENDING_CAP = 4 * 1024 * 1024  # out-of-order bytes waiting for a hole to fill, per direction
PENDING_SEGMENTS = 1024


class Observer(Protocol):
    """Where a connection reports its warnings and timeline events (the capture analyzer)."""

    def warn(self, connection: TcpConnection | None, packet: int | None, message: str) -> None: ...

    def event(self, connection: TcpConnection, kind: str, number: int, timestamp: float, src: str, dst: str,
              **fields) -> None: ...


class Direction:
    """One direction of a connection: sequence tracking and the out-of-order set."""

    __slots__ = ("next_seq", "at_start", "pending", "pending_bytes", "bytes", "missing", "fin", "duplicates")

    def __init__(self) -> None:
        self.next_seq: int | None = None
        self.at_start = False  # the SYN was seen: the stream starts at its first byte
        self.pending: dict[int, tuple[bytes, int]] | None = None
        self.pending_bytes = 0
        self.bytes = 0
        self.missing = 0
        self.fin = False
        self.duplicates = 0


class TcpConnection:
    """One TCP connection as the capture saw it: its ends, its handshake and its two ordered streams."""

    __slots__ = ("analyzer", "key", "a_is_client", "ends", "client_ip", "client_port", "server_ip", "server_port",
                 "client", "server", "first_packet", "first_time", "last_time", "c2s", "s2c", "roles_known",
                 "syn_packets", "syn_ack_packet", "handshake_done", "refused_packet", "icmp", "reset_by", "closed")

    def __init__(self, analyzer: Observer, key: tuple, a: tuple[bytes, int], b: tuple[bytes, int],
                 a_is_client: bool, roles_known: bool, number: int, timestamp: float) -> None:
        self.analyzer = analyzer
        self.key = key
        self.a_is_client = a_is_client
        self._set_roles(*((a, b) if a_is_client else (b, a)))
        self.first_packet = number
        self.first_time = timestamp
        self.last_time = timestamp
        self.c2s, self.s2c = self._direction(), self._direction()
        self.roles_known = roles_known
        self.syn_packets = 0
        self.syn_ack_packet: int | None = None
        self.handshake_done = False
        self.refused_packet: int | None = None
        self.icmp: str | None = None  # refused | unreachable, from an ICMP error about our SYN
        self.reset_by: str | None = None
        self.closed = False

    # --- what the reader of the streams provides ---------------------------------------------------

    def _direction(self) -> Direction:
        """A new direction's state (a subclass adds its own to it)."""
        return Direction()

    def _arriving(self, half: Direction) -> None:
        """Data (or a hole) is about to be accepted into ``half``."""

    def _deliver(self, half: Direction, data: bytes, number: int, timestamp: float) -> None:
        """The next in-order bytes of ``half``."""

    def _lost(self, half: Direction, size: int, number: int, why: str) -> None:
        """``size`` bytes of ``half`` will never be seen."""
        half.missing += size

    def _streams_past(self, half: Direction, size: int) -> bool:
        """Whether the next ``size`` in-order bytes of ``half`` can go by unread (counted, not delivered)."""
        return False

    # --- the connection's ends ------------------------------------------------------------------

    def _set_roles(self, client: tuple[bytes, int], server: tuple[bytes, int]) -> None:
        self.ends = (client, server)
        self.client_ip, self.client_port = address_text(client[0]), client[1]
        self.server_ip, self.server_port = address_text(server[0]), server[1]
        self.client = str(Endpoint(self.client_ip, self.client_port))
        self.server = str(Endpoint(self.server_ip, self.server_port))

    def _swap_roles(self) -> None:
        self.a_is_client = not self.a_is_client
        self._set_roles(self.ends[1], self.ends[0])
        self.c2s, self.s2c = self.s2c, self.c2s

    def _endpoints(self, from_client: bool) -> tuple[str, str]:
        return (self.client, self.server) if from_client else (self.server, self.client)

    def _warn(self, packet: int, message: str) -> None:
        self.analyzer.warn(self, packet, message)

    def describe(self, half: Direction) -> str:
        return f"{self.client} > {self.server}" if half is self.c2s else f"{self.server} > {self.client}"

    @property
    def handshake(self) -> str:
        if self.handshake_done or (self.syn_ack_packet is not None and self.c2s.bytes):
            return "completed"
        if self.syn_packets == 0:
            return "syn_ack_only" if self.syn_ack_packet is not None else "not_seen"
        if self.refused_packet is not None or self.icmp == "refused":
            return "refused"
        if self.icmp == "unreachable":
            return "unreachable"
        if self.syn_ack_packet is None:
            return "no_answer"
        return "syn_ack_only"

    @property
    def missing(self) -> int:
        return self.c2s.missing + self.s2c.missing

    # --- segments ----------------------------------------------------------------------------------

    def segment(self, from_client: bool, seq: int, ack: int, flags: int, payload: bytes, missing: int,
                number: int, timestamp: float) -> None:
        half, other = (self.c2s, self.s2c) if from_client else (self.s2c, self.c2s)
        self.last_time = timestamp
        size = len(payload)
        if (size and seq == half.next_seq and flags > 0 and not flags & 0x07 and not missing and not half.pending
                and not other.pending and self._streams_past(half, size)):
            # The bulk of a capture: the next in-order bytes, which the reader above streams past.
            # Nothing to buffer, reorder or deliver.
            half.next_seq = (seq + size) & MASK
            half.bytes += size
            if from_client and not self.handshake_done and self.syn_ack_packet is not None:
                self.handshake_done = True
            return
        if flags < 0:  # an ICMP error quoting our SYN
            if from_client and self.syn_ack_packet is None:
                self.icmp = "refused" if flags == ICMP_PORT_UNREACHABLE else "unreachable"
                self.analyzer.event(self, "icmp", number, timestamp, self.server, self.client,
                                    detail=f"ICMP {'port' if self.icmp == 'refused' else 'destination'} unreachable")
            return
        if flags & SYN:
            if flags & ACK:
                if not from_client and self.syn_ack_packet is None:
                    self.syn_ack_packet = number
                    self.analyzer.event(self, "syn_ack", number, timestamp, self.server, self.client)
            elif from_client:
                self.syn_packets += 1
                self.analyzer.event(self, "syn", number, timestamp, self.client, self.server,
                                    detail=None if self.syn_packets == 1 else f"retransmission {self.syn_packets - 1}")
            if not half.at_start:
                half.next_seq = (seq + 1) & MASK
                half.at_start = True
            seq = (seq + 1) & MASK
        elif from_client and self.syn_ack_packet is not None:
            self.handshake_done = True
        if flags & RST:
            side = "client" if from_client else "server"
            if self.reset_by is None:
                self.reset_by = side
                self.analyzer.event(self, "rst", number, timestamp, *self._endpoints(from_client))
            if not from_client and self.syn_ack_packet is None and self.syn_packets:
                self.refused_packet = number
        if flags & ACK and other.pending:
            self._acknowledged(other, ack, number)
        if payload or missing:
            self._data(half, seq, payload, missing, number, timestamp)
        if flags & (FIN | RST):
            half.fin = True
            if half.pending:
                self._flush_pending(half, number)
            if flags & RST or other.fin:
                self.closed = True

    def finish(self, last_packet: int) -> None:
        """The capture ended: holes still waiting are lost."""
        for half in (self.c2s, self.s2c):
            if half.pending:
                self._flush_pending(half, last_packet)

    def _data(self, half: Direction, seq: int, payload: bytes, missing: int, number: int, timestamp: float) -> None:
        if half.next_seq is None:  # the capture starts mid-stream in this direction
            half.next_seq = seq
        self._arriving(half)
        if self._accept(half, seq, payload, missing, number, timestamp):
            if half.pending:
                self._drain(half, number, timestamp)
            return
        pending = half.pending
        if pending is None:
            pending = half.pending = {}
        old = pending.get(seq)
        if old is None or len(old[0]) + old[1] < len(payload) + missing:
            half.pending_bytes += len(payload) - (len(old[0]) if old else 0)
            pending[seq] = (payload, missing)
        if half.pending_bytes > PENDING_CAP or len(pending) > PENDING_SEGMENTS:
            self._skip_hole(half, number, timestamp, "the capture never filled it")

    def _accept(self, half: Direction, seq: int, payload: bytes, missing: int, number: int, timestamp: float) -> bool:
        """Delivers a segment at or behind the expected sequence number; False if it is ahead."""
        delta = (seq - half.next_seq) & MASK
        if delta >= HALF:  # behind: a retransmission, maybe carrying some new bytes
            overlap = MASK + 1 - delta
            if overlap >= len(payload) + missing:
                half.duplicates += 1
                return True
            if overlap >= len(payload):
                payload, missing = b"", missing - (overlap - len(payload))
            else:
                payload = payload[overlap:]
        elif delta:
            return False
        if payload:
            half.next_seq = (half.next_seq + len(payload)) & MASK
            half.bytes += len(payload)
            self._deliver(half, payload, number, timestamp)
        if missing:
            half.next_seq = (half.next_seq + missing) & MASK
            self._lost(half, missing, number, "cut off by the capture's snap length")
        return True

    def _drain(self, half: Direction, number: int, timestamp: float) -> None:
        pending = half.pending
        start = half.next_seq
        for seq in sorted(pending, key=lambda s: (s - start) & MASK):  # stream order
            if 0 < ((seq - half.next_seq) & MASK) < HALF:
                break  # a hole before this one: wait
            payload, missing = pending.pop(seq)
            half.pending_bytes -= len(payload)
            self._accept(half, seq, payload, missing, number, timestamp)

    def _skip_hole(self, half: Direction, number: int, timestamp: float, why: str) -> None:
        start = half.next_seq
        first = min(half.pending, key=lambda s: (s - start) & MASK)
        gap = (first - start) & MASK
        half.next_seq = first
        self._lost(half, gap, number, f"missing ({why})")
        self._drain(half, number, timestamp)

    def _flush_pending(self, half: Direction, number: int) -> None:
        while half.pending:
            self._skip_hole(half, number, self.last_time, "the direction ended before it was filled")

    def _acknowledged(self, half: Direction, ack: int, number: int) -> None:
        """The peer acknowledged bytes of ``half``: if past a hole, the capture lost them."""
        start = half.next_seq
        if start is None:
            return
        first = min(half.pending, key=lambda s: (s - start) & MASK)
        if ((ack - first) & MASK) < HALF and ack != start:
            self._skip_hole(half, number, self.last_time, "the receiver acknowledged them")
