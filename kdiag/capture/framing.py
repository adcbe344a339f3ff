"""TCP reassembly per connection and Kafka framing on top of it, sans-I/O.

``CaptureAnalyzer.feed(number, timestamp, linktype, data)`` takes captured frames one at a time
(from a file through :mod:`kdiag.capture.pcapio`, or live from :mod:`kdiag.capture.live`) and
keeps, per TCP connection:

* the byte stream of each direction, put in order by sequence number: out-of-order segments wait
  in a bounded set, retransmissions and overlaps are trimmed, and a hole that the capture will not
  fill (the peer acknowledged past it, the wait set overflowed, the direction ended) is declared
  lost with a warning naming the packet;
* the Kafka frames in that stream. A request's header is all the capture needs from it; a response
  is decoded (by ``probes.codec``, the decoder the active probe uses) only when it answers an API
  kdiag decodes, and only up to ``decode_cap`` bytes. Everything else streams past without being
  buffered, so memory stays bounded whatever the capture holds, including a 2 GB declared length;
* whether it is Kafka at all: on any port, a client frame whose header is a plausible request
  followed by a server frame that starts with one of those correlation ids. ``ports`` forces Kafka
  on given server ports. Bytes of another protocol (a TLS record, an HTTP answer) are recognised
  with ``identify_foreign`` and kept as evidence.

Framing state per direction: SYNC (at a frame boundary), HUNT (lost it: scanning for a plausible
frame start, keeping only a short tail), DETECT (not yet known to be Kafka: buffering up to
``DETECT_CAP`` bytes) or OFF (not parsed any more).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kdiag.capture.model import (
    KAFKA,
    NOT_KAFKA,
    TLS,
    UNKNOWN,
)
from kdiag.capture.pcapio import (
    ACK,
    FIN,
    ICMP_PORT_UNREACHABLE,
    RST,
    SYN,
    address_text,
)
from kdiag.report import Endpoint
from probes.codec import (
    SPECS,
    ApiVersionsRequest,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    ForeignProtocol,
    MalformedFrame,
    MetadataRequest,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    api_name,
    decode_request,
    decode_request_header,
    decode_response,
    foreign_or_garbage,
    identify_foreign,
)
from probes.codec.messages import API_NAMES
from probes.results import ForeignBytes

if TYPE_CHECKING:
    from kdiag.capture.flows import CaptureAnalyzer


MASK = 0xFFFFFFFF
HALF = 0x80000000

# Kafka's own limits: socket.request.max.bytes is 100 MiB, fetch.max.bytes 50 MiB. A larger
# declared length is not a frame but a desynchronised stream or another protocol.
FRAME_MAX = 128 * 1024 * 1024
DECODE_CAP = 16 * 1024 * 1024  # the largest response buffered whole to be decoded
REQUEST_BUFFER = 64 * 1024  # larger requests are read from their first HEADER_PEEK bytes
HEADER_PEEK = 2048
PENDING_CAP = 4 * 1024 * 1024  # out-of-order bytes waiting for a hole to fill, per direction
PENDING_SEGMENTS = 1024
DETECT_CAP = 64 * 1024  # bytes per direction looked at before deciding a flow is not Kafka
IN_FLIGHT_CAP = 1024  # per connection; acks=0 producers never get answers
MAX_API_VERSION = 20

SYNC, HUNT, DETECT, OFF = range(4)
_INT32 = struct.Struct(">i")
_TWO_INT32 = struct.Struct(">ii")
_HEADER_HEAD = struct.Struct(">h6xh")  # a request header's api_key and client_id length

# A request frame start: size 10..FRAME_MAX, api_key 0..92, api_version 0..20, correlation id >= 0,
# client_id length 0..255 or -1. The regex finds candidates at C speed; _plausible_request checks.
_REQUEST_START = re.compile(
    rb"(?:[\x01-\x07][\x00-\xff]{3}|\x00[\x01-\xff][\x00-\xff]{2}|\x00\x00[\x01-\xff][\x00-\xff]|\x00\x00\x00[\x0a-\xff])"
    rb"\x00[\x00-\x5c]\x00[\x00-\x14][\x00-\x7f][\x00-\xff]{3}(?:\x00[\x00-\xff]|\xff\xff)",
    re.DOTALL,
)


def plausible_request(frame_head: bytes):  # -> RequestHeader | None
    """The request header at the start of a frame (size prefix removed), if it looks like one a
    Kafka client would send: a known api_key, a version 0-20, a non-negative correlation id and a
    printable client_id. Used to recognise Kafka on any port and to resynchronise after a loss."""
    try:
        header, _ = decode_request_header(frame_head)
    except MalformedFrame:
        return None
    return header if _plausible(header) else None


def _plausible(header) -> bool:
    return (header.api_key in API_NAMES and 0 <= header.api_version <= MAX_API_VERSION and header.correlation_id >= 0
            and (header.client_id is None or (len(header.client_id) <= 255 and header.client_id.isprintable())))


def _request_at(buf: bytearray | bytes, at: int, frame_max: int) -> tuple[bool | None, int]:
    """Is there a plausible request frame at ``at``? (True/False, or None: its header has not all
    arrived yet), and its size. The rest of the frame need not be there."""
    if len(buf) - at < 4:
        return None, 0
    size = _INT32.unpack_from(buf, at)[0]
    if not 10 <= size <= frame_max:
        return False, size
    wanted = min(size, HEADER_PEEK)
    head = bytes(buf[at + 4:at + 4 + wanted])
    try:
        header, _ = decode_request_header(head)
    except MalformedFrame:
        return (None if len(head) < wanted else False), size  # cut short: wait; whole and broken: no
    return _plausible(header), size


def find_request_start(buf: bytearray | bytes, frame_max: int = FRAME_MAX) -> tuple[int | None, bool]:
    """The offset of the first plausible request frame in ``buf`` and whether it can be checked
    already (False: a candidate near the end waits for more bytes)."""
    at = 0
    while True:
        match = _REQUEST_START.search(buf, at)
        if match is None:
            return None, True
        start = match.start()
        verdict, _ = _request_at(buf, start, frame_max)
        if verdict:
            return start, True
        if verdict is None:
            return start, False
        at = start + 1


def find_response_start(buf: bytearray | bytes, correlation_ids: Iterable[int],
                        frame_max: int = FRAME_MAX) -> int | None:
    """The offset of the first frame in ``buf`` that starts with one of ``correlation_ids``."""
    best = None
    for correlation_id in correlation_ids:
        pattern = _INT32.pack(correlation_id)
        at = buf.find(pattern, 4)
        while at >= 4 and (best is None or at - 4 < best):
            if 4 <= _INT32.unpack_from(buf, at - 4)[0] <= frame_max:
                best = at - 4
                break
            at = buf.find(pattern, at + 1)
    return best


class _Half:
    """One direction of a connection: sequence tracking, out-of-order set and framing state."""

    __slots__ = ("next_seq", "at_start", "pending", "pending_bytes", "buf", "skip", "state", "bytes",
                 "missing", "frames", "head", "fin", "hunted", "duplicates", "marks")

    def __init__(self) -> None:
        self.next_seq: int | None = None
        self.at_start = False  # the SYN was seen: the stream starts at a frame boundary
        self.pending: dict[int, tuple[bytes, int]] | None = None
        self.pending_bytes = 0
        self.buf = bytearray()
        self.skip = 0  # bytes of a frame that stream past unbuffered
        self.state = DETECT
        self.bytes = 0
        self.missing = 0
        self.frames = 0
        self.head = b""  # the first bytes, kept as evidence
        self.fin = False
        self.hunted = 0  # bytes skipped while hunting for a frame start
        self.duplicates = 0
        # while detecting: (buffer length after a delivery, packet, timestamp), so frames found
        # later are dated by the packet that completed them
        self.marks: list[tuple[int, int, float]] = []


class Connection:
    """One TCP connection as the capture saw it."""

    __slots__ = ("analyzer", "key", "a_is_client", "ends", "client_ip", "client_port", "server_ip", "server_port",
                 "client", "server", "first_packet", "first_time", "c2s", "s2c", "roles_known", "expected_kafka",
                 "protocol", "syn_packets", "syn_ack_packet", "handshake_done", "refused_packet", "icmp",
                 "reset_by", "in_flight", "requests", "responses", "unmatched", "client_id", "apis", "foreign",
                 "foreign_from", "request_seen", "closed", "given_up", "last_time", "coordinator_keys")

    def __init__(self, analyzer: CaptureAnalyzer, key: tuple, a: tuple[bytes, int], b: tuple[bytes, int],
                 a_is_client: bool, roles_known: bool, number: int, timestamp: float) -> None:
        self.analyzer = analyzer
        self.key = key
        self.a_is_client = a_is_client
        self._set_roles(*((a, b) if a_is_client else (b, a)))
        self.first_packet = number
        self.first_time = timestamp
        self.last_time = timestamp
        self.c2s, self.s2c = _Half(), _Half()
        self.roles_known = roles_known
        self.expected_kafka = self.server_port in analyzer.ports
        self.protocol = UNKNOWN
        self.syn_packets = 0
        self.syn_ack_packet: int | None = None
        self.handshake_done = False
        self.refused_packet: int | None = None
        self.icmp: str | None = None  # refused | unreachable, from an ICMP error about our SYN
        self.reset_by: str | None = None
        self.in_flight: dict[int, tuple[int, int, int, float]] = {}
        self.coordinator_keys: dict[int, str] = {}  # correlation id -> the FindCoordinator request's key
        self.requests = self.responses = self.unmatched = 0
        self.client_id: str | None = None
        self.apis: dict[str, None] = {}
        self.foreign: ForeignBytes | None = None
        self.foreign_from: str | None = None
        self.request_seen = False
        self.closed = False
        self.given_up = False

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

    # --- what the summary reads ------------------------------------------------------------------

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
    def server_answer(self) -> str | None:
        """What the server's first bytes were: kafka, tls, another protocol's kind, or None (nothing)."""
        head = self.s2c.head
        if not head:
            return None
        foreign = identify_foreign(head)
        if foreign is not None:
            return "tls" if foreign.is_tls else foreign.kind
        return "kafka" if self.responses else "unknown"

    @property
    def missing(self) -> int:
        return self.c2s.missing + self.s2c.missing

    def _warn(self, packet: int, message: str) -> None:
        self.analyzer.warn(self, packet, message)

    def describe(self, half: _Half) -> str:
        return f"{self.client} > {self.server}" if half is self.c2s else f"{self.server} > {self.client}"

    # --- segments ----------------------------------------------------------------------------------

    def segment(self, from_client: bool, seq: int, ack: int, flags: int, payload: bytes, missing: int,
                number: int, timestamp: float) -> None:
        half, other = (self.c2s, self.s2c) if from_client else (self.s2c, self.c2s)
        self.last_time = timestamp
        size = len(payload)
        if (size and seq == half.next_seq and flags > 0 and not flags & 0x07 and not missing and not half.pending
                and not other.pending and (half.skip >= size or half.state == OFF) and len(half.head) >= 64):
            # The bulk of a capture: the next in-order bytes of a frame body kdiag streams past, or of
            # a connection it no longer reads. Nothing to buffer, parse or decide.
            half.next_seq = (seq + size) & MASK
            half.bytes += size
            if half.skip:
                half.skip -= size
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
        """The capture ended: holes still waiting are lost, a lone unanswered request still makes
        it Kafka, and a response cut off at the end is said."""
        for half in (self.c2s, self.s2c):
            if half.pending:
                self._flush_pending(half, last_packet)
        if self.protocol == UNKNOWN and self.request_seen and not self.given_up:
            self._confirm(find_request_start(self.c2s.buf, self.analyzer.frame_max)[0], None, last_packet,
                          self.last_time)
        response = self.s2c
        if self.protocol == KAFKA and response.state == SYNC and len(response.buf) >= 8:
            size = _INT32.unpack_from(response.buf)[0]
            self._warn(last_packet, f"{self.server} > {self.client}: the capture ends inside "
                                    f"{self._frame_label(response, response.buf)}: {len(response.buf) - 4} of {size} "
                                    "bytes seen")

    def _endpoints(self, from_client: bool) -> tuple[str, str]:
        return (self.client, self.server) if from_client else (self.server, self.client)

    def _data(self, half: _Half, seq: int, payload: bytes, missing: int, number: int, timestamp: float) -> None:
        if half.next_seq is None:  # the capture starts mid-stream in this direction
            half.next_seq = seq
        if half.state == DETECT and (self.expected_kafka or self.protocol == KAFKA):
            half.state = SYNC if half.at_start else HUNT
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

    def _accept(self, half: _Half, seq: int, payload: bytes, missing: int, number: int, timestamp: float) -> bool:
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

    def _drain(self, half: _Half, number: int, timestamp: float) -> None:
        pending = half.pending
        start = half.next_seq
        for seq in sorted(pending, key=lambda s: (s - start) & MASK):  # stream order
            if 0 < ((seq - half.next_seq) & MASK) < HALF:
                break  # a hole before this one: wait
            payload, missing = pending.pop(seq)
            half.pending_bytes -= len(payload)
            self._accept(half, seq, payload, missing, number, timestamp)

    def _skip_hole(self, half: _Half, number: int, timestamp: float, why: str) -> None:
        start = half.next_seq
        first = min(half.pending, key=lambda s: (s - start) & MASK)
        gap = (first - start) & MASK
        half.next_seq = first
        self._lost(half, gap, number, f"missing ({why})")
        self._drain(half, number, timestamp)

    def _flush_pending(self, half: _Half, number: int) -> None:
        while half.pending:
            self._skip_hole(half, number, self.last_time, "the direction ended before it was filled")

    def _acknowledged(self, half: _Half, ack: int, number: int) -> None:
        """The peer acknowledged bytes of ``half``: if past a hole, the capture lost them."""
        start = half.next_seq
        if start is None:
            return
        first = min(half.pending, key=lambda s: (s - start) & MASK)
        if ((ack - first) & MASK) < HALF and ack != start:
            self._skip_hole(half, number, self.last_time, "the receiver acknowledged them")

    def _lost(self, half: _Half, size: int, number: int, why: str) -> None:
        """``size`` bytes of the stream will never be seen: keep the framing if the frame lengths
        allow it, otherwise hunt for the next frame start."""
        half.missing += size
        where = self.describe(half)
        if half.state == OFF:
            return
        warn = self._warn
        if half.state == DETECT:
            half.buf.clear()
            half.marks.clear()
            half.at_start = False
            warn(number, f"{where}: {size} bytes {why}")
            return
        if half.skip >= size:
            half.skip -= size
            warn(number, f"{where}: {size} bytes {why}, inside a frame kdiag skips anyway; framing kept")
            return
        size -= half.skip
        half.skip = 0
        buf = half.buf
        if half.state == SYNC and len(buf) >= 4:
            remaining = 4 + _INT32.unpack_from(buf)[0] - len(buf)
            what = self._frame_label(half, buf)
            if size <= remaining:
                half.skip = remaining - size
                buf.clear()
                warn(number, f"{where}: {size} bytes {why}; {what} lost, framing kept")
                return
        buf.clear()
        if half.state == SYNC:
            half.state = HUNT
        warn(number, f"{where}: {size} bytes {why}; searching for the next frame start")

    def _frame_label(self, half: _Half, buf: bytearray) -> str:
        if half is self.s2c and len(buf) >= 8:
            correlation_id = _INT32.unpack_from(buf, 4)[0]
            request = self.in_flight.get(correlation_id)
            if request is not None:
                return f"the {api_name(request[0])} v{request[1]} response (correlation id {correlation_id})"
            return f"a response (correlation id {correlation_id})"
        return "a request" if half is self.c2s else "a response"

    # --- framing -----------------------------------------------------------------------------------

    def _deliver(self, half: _Half, data: bytes, number: int, timestamp: float) -> None:
        if len(half.head) < 64:
            half.head += data[:64 - len(half.head)]
        self._consume(half, data, number, timestamp)

    def _consume(self, half: _Half, data: bytes, number: int, timestamp: float) -> None:
        state = half.state
        if state == OFF:
            return
        if half.skip:
            if len(data) <= half.skip:
                half.skip -= len(data)
                return
            data = data[half.skip:]
            half.skip = 0
        half.buf += data
        if state == SYNC:
            self._frames(half, number, timestamp)
        elif state == HUNT:
            self._hunt(half, number, timestamp)
        else:
            half.marks.append((len(half.buf), number, timestamp))
            self._detect(number, timestamp)

    def _frames(self, half: _Half, number: int, timestamp: float) -> None:
        buf = half.buf
        n = len(buf)
        pos = 0
        requests = half is self.c2s
        analyzer = self.analyzer
        frame_max = analyzer.frame_max
        while n - pos >= 4:
            size = _INT32.unpack_from(buf, pos)[0]
            if size < (10 if requests else 4) or size > frame_max:
                del buf[:pos]
                self._implausible(half, size, number, timestamp)
                return
            end = pos + 4 + size
            if requests:
                if end <= n:
                    self._request(bytes(buf[pos + 4:end]), True, number, timestamp)
                    pos = end
                    continue
                # Only the header matters (api_key, api_version, correlation_id, client_id): read it
                # as soon as it is in, and stream the body past. The small requests of the APIs kdiag
                # decodes are kept whole for the timeline's detail.
                available = n - pos - 4
                if available < 10:
                    break
                api_key, client_id_size = _HEADER_HEAD.unpack_from(buf, pos + 4)
                if api_key in SPECS and size <= REQUEST_BUFFER:
                    break
                header_size = min(10 + max(client_id_size, 0), HEADER_PEEK)
                if available < header_size:
                    break
                self._request(bytes(buf[pos + 4:pos + 4 + min(available, HEADER_PEEK)]), False, number, timestamp)
            else:
                if n - pos < 8:
                    break
                correlation_id = _INT32.unpack_from(buf, pos + 4)[0]
                if end <= n:
                    self._response(correlation_id, buf, pos + 4, end, number, timestamp)
                    pos = end
                    continue
                request = self.in_flight.get(correlation_id)
                if request is not None and request[0] in SPECS and size <= analyzer.decode_cap \
                        and SPECS[request[0]].min_version <= request[1] <= SPECS[request[0]].max_version:
                    break  # a response kdiag decodes: wait for all of it
                self._response(correlation_id, None, pos + 4, end, number, timestamp)
            half.skip = end - n
            pos = n
            break
        if pos:
            del buf[:pos]

    def _implausible(self, half: _Half, size: int, number: int, timestamp: float) -> None:
        """The stream declares a frame length no Kafka frame has: another protocol, or lost sync."""
        head = bytes(half.buf[:64])
        if half.frames == 0 and (half.at_start or identify_foreign(head) is not None):
            self._foreign(half, identify_foreign(head) or foreign_or_garbage(head), number, timestamp)
            return
        self._warn(number, f"{self.describe(half)}: declared frame length {size & MASK} (bytes {head[:8].hex(' ')}) "
                           "is not a plausible Kafka frame; searching for the next frame start")
        half.state = HUNT
        self._hunt(half, number, timestamp)

    def _hunt(self, half: _Half, number: int, timestamp: float) -> None:
        buf = half.buf
        if half is self.c2s:
            start, ready = find_request_start(buf, self.analyzer.frame_max)
            keep = 12
        else:
            start, ready = find_response_start(buf, list(self.in_flight)[-32:], self.analyzer.frame_max), True
            keep = 8
        if start is None:
            if len(buf) > keep:
                half.hunted += len(buf) - keep
                del buf[:len(buf) - keep]
            return
        half.hunted += start
        del buf[:start]
        if not ready:
            return
        if half.hunted:
            self._warn(number, f"{self.describe(half)}: frame boundary found again after skipping {half.hunted} bytes")
        half.hunted = 0
        half.state = SYNC
        self._frames(half, number, timestamp)

    # --- recognising Kafka -------------------------------------------------------------------------

    def _detect(self, number: int, timestamp: float) -> None:
        """Decides whether this (not forced) connection speaks Kafka, from the bytes so far."""
        c, s = self.c2s, self.s2c
        frame_max = self.analyzer.frame_max
        if (not self.roles_known and s.buf and find_request_start(c.buf, frame_max)[0] is None
                and find_request_start(s.buf, frame_max)[0] is not None):
            self._swap_roles()  # the side guessed to be the server is the one sending requests
            c, s = self.c2s, self.s2c
        if s.buf and s.at_start and not c.buf:  # the server spoke first
            foreign = identify_foreign(bytes(s.buf[:64]))
            if foreign is not None:
                self._foreign(s, foreign, number, timestamp)
            return
        if not c.buf:
            return
        if c.at_start:
            verdict, _ = _request_at(c.buf, 0, frame_max)
            if verdict is False:
                head = bytes(c.buf[:64])
                self._foreign(c, identify_foreign(head) or foreign_or_garbage(head), number, timestamp)
                return
            request_start = 0 if verdict else None
        else:
            request_start, ready = find_request_start(c.buf, frame_max)
            if not ready:
                request_start = None
        if request_start is None:
            self._give_up_if_too_long()
            return
        self.request_seen = True
        correlation_ids = self._correlation_ids(c.buf, request_start)
        if len(correlation_ids) >= 3:  # consecutive well-framed requests: Kafka, answered or not
            self._confirm(request_start, None, number, timestamp)
            return
        if not s.buf:
            return
        if s.at_start:
            if len(s.buf) < 8:  # a TLS alert is 7 bytes: recognise it without waiting for more
                foreign = identify_foreign(bytes(s.buf))
                if foreign is not None:
                    self._foreign(s, foreign, number, timestamp)
                return
            size, correlation_id = _TWO_INT32.unpack_from(s.buf)
            if 4 <= size <= frame_max and correlation_id in correlation_ids:
                self._confirm(request_start, 0, number, timestamp)
            else:
                head = bytes(s.buf[:64])
                self._foreign(s, identify_foreign(head) or foreign_or_garbage(head), number, timestamp)
            return
        response_start = find_response_start(s.buf, correlation_ids, frame_max)
        if response_start is not None:
            self._confirm(request_start, response_start, number, timestamp)
        else:
            self._give_up_if_too_long()

    def _correlation_ids(self, buf: bytearray, at: int) -> list[int]:
        """The correlation ids of the consecutive plausible requests from ``at`` (at most 16)."""
        ids = []
        while len(ids) < 16:
            verdict, size = _request_at(buf, at, self.analyzer.frame_max)
            if not verdict:
                break
            ids.append(_INT32.unpack_from(buf, at + 8)[0])
            at += 4 + size
        return ids

    def _give_up_if_too_long(self) -> None:
        if len(self.c2s.buf) > DETECT_CAP or len(self.s2c.buf) > DETECT_CAP:
            self.given_up = True
            for half in (self.c2s, self.s2c):
                half.state = OFF
                half.buf = bytearray()
                half.marks = []

    def _confirm(self, request_start: int, response_start: int | None, number: int, timestamp: float) -> None:
        """It is Kafka: frame both directions, from the frame starts detection found (None: not
        found yet, so the server's bytes are searched once the requests are known)."""
        self.protocol = KAFKA
        self.roles_known = True
        for half, start in ((self.c2s, request_start), (self.s2c, response_start)):
            data, marks = bytes(half.buf), half.marks
            half.buf, half.marks = bytearray(), []
            if start is None:
                half.state = SYNC if half.at_start and not data else HUNT
                start = 0
            else:
                half.state = SYNC
                if start:
                    first_packet = marks[0][1] if marks else number
                    self._warn(first_packet, f"{self.describe(half)}: the capture starts inside the stream; {start} "
                                             "bytes before the first frame boundary skipped")
            done = start
            for end, at_packet, at_time in marks:  # replay, dated by the packets that carried the bytes
                if end > done:
                    self._consume(half, data[done:end], at_packet, at_time)
                    done = end

    def _foreign(self, half: _Half, foreign: ForeignProtocol, number: int, timestamp: float) -> None:
        self.protocol = TLS if foreign.is_tls else NOT_KAFKA
        self.foreign = ForeignBytes(foreign.kind, foreign.description, foreign.preview)
        self.foreign_from = "client" if half is self.c2s else "server"
        for each in (self.c2s, self.s2c):
            each.state = OFF
            each.buf = bytearray()
            each.skip = 0
        src, dst = self._endpoints(half is self.c2s)
        self.analyzer.event(self, "foreign", number, timestamp, src, dst, detail=foreign.description)

    # --- Kafka messages ----------------------------------------------------------------------------

    def _request(self, frame: bytes, whole: bool, number: int, timestamp: float) -> None:
        header = plausible_request(frame)
        self.c2s.frames += 1
        if header is None:
            self._warn(number, f"{self.client} > {self.server}: a {len(frame)}-byte frame does not start with a "
                               f"plausible request header (bytes {frame[:8].hex(' ')}); skipped")
            return
        self.protocol = KAFKA
        self.request_seen = True
        self.requests += 1
        if self.client_id is None:
            self.client_id = header.client_id
        if len(self.in_flight) >= IN_FLIGHT_CAP:
            del self.in_flight[next(iter(self.in_flight))]
        self.in_flight[header.correlation_id] = (header.api_key, header.api_version, number, timestamp)
        if header.api_key == FindCoordinatorRequest.API_KEY and whole:  # answers below v4 do not repeat the key
            self.coordinator_keys[header.correlation_id] = _find_coordinator_key(frame)
        self.apis[f"{header.api_name} v{header.api_version}"] = None
        analyzer = self.analyzer
        if analyzer.keep_events:
            analyzer.event(self, "request", number, timestamp, self.client, self.server, api=header.api_name,
                           api_version=header.api_version, correlation_id=header.correlation_id,
                           detail=_request_detail(header, frame if whole else None))

    def _response(self, correlation_id: int, buf: bytearray | None, start: int, end: int, number: int,
                  timestamp: float) -> None:
        self.s2c.frames += 1
        self.responses += 1
        request = self.in_flight.pop(correlation_id, None)
        analyzer = self.analyzer
        if request is None:
            self.unmatched += 1
            if analyzer.keep_events:
                analyzer.event(self, "response", number, timestamp, self.server, self.client,
                               correlation_id=correlation_id, detail="answers no request seen in the capture")
            return
        api_key, api_version, _, requested_at = request
        key = self.coordinator_keys.pop(correlation_id, None)
        body = None
        if api_key in SPECS and analyzer.decodes(self, api_key, api_version, number):
            if buf is None:
                self._warn(number, f"{self.server} > {self.client}: {api_name(api_key)} v{api_version} response "
                                   f"(correlation id {correlation_id}) of {end - start} bytes is above the "
                                   f"{analyzer.decode_cap}-byte decode limit; not decoded")
            else:
                body = self._decode(bytes(buf[start:end]), api_key, api_version, correlation_id, number)
        index = analyzer.decoded(self, api_key, api_version, correlation_id, body, number, timestamp, key) \
            if body is not None else None
        if analyzer.keep_events:
            analyzer.event(self, "response", number, timestamp, self.server, self.client, api=api_name(api_key),
                           api_version=api_version, correlation_id=correlation_id,
                           detail=_response_detail(body, (timestamp - requested_at) * 1000), metadata=index)

    def _decode(self, frame: bytes, api_key: int, api_version: int, correlation_id: int, number: int):
        try:
            return decode_response(frame, api_key=api_key, api_version=api_version)[1]
        except MalformedFrame as exc:
            self._warn(number, f"{self.server} > {self.client}: {api_name(api_key)} v{api_version} response "
                               f"(correlation id {correlation_id}) does not decode: {exc}")
            return None


def _find_coordinator_key(frame: bytes) -> str:
    try:
        _, body = decode_request(frame)
    except MalformedFrame:
        return ""
    return body.key if isinstance(body, FindCoordinatorRequest) else ""


def _request_detail(header, frame: bytes | None) -> str | None:
    """What a timeline line says about a request: its client_id and, for the APIs kdiag decodes,
    the interesting body field."""
    parts = [f"client_id={header.client_id}"] if header.client_id else []
    if frame is not None and header.api_key in SPECS:
        try:
            _, body = decode_request(frame)
        except MalformedFrame:
            body = None
        if isinstance(body, ApiVersionsRequest) and body.client_software_name:
            parts.append(f"software={body.client_software_name}/{body.client_software_version}")
        elif isinstance(body, SaslHandshakeRequest):
            parts.append(f"mechanism={body.mechanism}")
        elif isinstance(body, MetadataRequest):
            if body.topics is None:
                parts.append("topics=all")
            else:
                parts.append(f"topics={','.join(body.topics[:3]) or 'none'}" + ("..." if len(body.topics) > 3 else ""))
        elif isinstance(body, FindCoordinatorRequest):
            parts.append(f"key={body.key}")
    return " ".join(parts) or None


def _response_detail(body, latency_ms: float) -> str:
    parts = [f"{latency_ms:.1f} ms"]
    error = getattr(body, "error", None)
    if error is not None and not error.ok:
        parts.append(f"error={error.name}")
    if isinstance(body, SaslHandshakeResponse) and body.mechanisms:
        parts.append(f"mechanisms={','.join(body.mechanisms)}")
    if isinstance(body, FindCoordinatorResponse):
        parts.extend(f"coordinator={c.node_id}@{Endpoint(c.host, c.port)}" if c.error.ok else f"error={c.error.name}"
                     for c in body.coordinators)
    return " ".join(parts)
