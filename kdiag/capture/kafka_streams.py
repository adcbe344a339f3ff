"""Kafka framing of a connection's reassembled streams, sans-I/O.

A ``Connection`` is a :class:`~kdiag.capture.reassembly.TcpConnection` whose two ordered byte
streams are read as Kafka:

* the Kafka frames in each stream. A request's header is all the capture needs from it; a response
  is decoded (by ``probes.codec``, the decoder the active probe uses) only when it answers an API
  kdiag decodes, and only up to ``decode_cap`` bytes. Everything else streams past without being
  buffered, so memory stays bounded whatever the capture holds, including a 2 GB declared length;
* whether it is Kafka at all: on any port, a client frame whose header is a plausible request
  followed by a server frame that starts with one of those correlation ids. ``ports`` forces Kafka
  on given server ports. Bytes of another protocol (a TLS record, an HTTP answer) are recognised
  with ``identify_foreign`` and kept as evidence;
* a hole the reassembly declares lost keeps the framing when the frame lengths allow it, and
  otherwise starts a hunt for the next frame start.

Framing state per direction: SYNC (at a frame boundary), HUNT (lost it: scanning for a plausible
frame start, keeping only a short tail), DETECT (not yet known to be Kafka: buffering up to
``DETECT_CAP`` bytes) or OFF (not parsed any more).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from typing import Protocol

from kdiag.capture.model import KAFKA, NOT_KAFKA, TLS, UNKNOWN
from kdiag.capture.reassembly import MASK, Direction, Observer, TcpConnection
from kdiag.report import Endpoint
from probes.codec import (MAX_FRAME_SIZE, SPECS, ApiVersionsRequest, FindCoordinatorRequest, FindCoordinatorResponse,
                          MalformedFrame, MetadataRequest, SaslHandshakeRequest, SaslHandshakeResponse, api_name,
                          decode_request, decode_request_header, decode_response, foreign_or_garbage, identify_foreign)
from probes.codec.messages import API_NAMES
from probes.results import ForeignBytes

DECODE_CAP = 16 * 1024 * 1024  # the largest response buffered whole to be decoded
REQUEST_BUFFER = 64 * 1024  # larger requests are read from their first HEADER_PEEK bytes
HEADER_PEEK = 2048
DETECT_CAP = 64 * 1024  # bytes per direction looked at before deciding a flow is not Kafka
IN_FLIGHT_CAP = 1024  # per connection; acks=0 producers never get answers
MAX_API_VERSION = 20

SYNC, HUNT, DETECT, OFF = range(4)
_INT32 = struct.Struct(">i")
_TWO_INT32 = struct.Struct(">ii")
_HEADER_HEAD = struct.Struct(">h6xh")  # a request header's api_key and client_id length

# A request frame start: size 10..MAX_FRAME_SIZE (128 MiB, so a first byte 0x00..0x07), api_key 0..92,
# api_version 0..20, correlation id >= 0, client_id length 0..255 or -1. The regex finds candidates at
# C speed; _plausible_request checks.
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


def find_request_start(buf: bytearray | bytes, frame_max: int = MAX_FRAME_SIZE) -> tuple[int | None, bool]:
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
                        frame_max: int = MAX_FRAME_SIZE) -> int | None:
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


class _Half(Direction):
    """One direction of a connection: its reassembly (``Direction``) and its framing state."""

    __slots__ = ("buf", "skip", "state", "frames", "head", "hunted", "marks")

    def __init__(self) -> None:
        super().__init__()
        self.buf = bytearray()
        self.skip = 0  # bytes of a frame that stream past unbuffered
        self.state = DETECT
        self.frames = 0
        self.head = b""  # the first bytes, kept as evidence
        self.hunted = 0  # bytes skipped while hunting for a frame start
        # while detecting: (buffer length after a delivery, packet, timestamp), so frames found
        # later are dated by the packet that completed them
        self.marks: list[tuple[int, int, float]] = []


class Analyzer(Observer, Protocol):
    """What a connection asks of the capture analyzer besides warnings and events."""

    ports: frozenset[int]
    keep_events: int
    decode_cap: int
    frame_max: int

    def decodes(self, connection: Connection, api_key: int, api_version: int, packet: int) -> bool: ...

    def decoded(self, connection: Connection, api_key: int, api_version: int, correlation_id: int, body,
                number: int, timestamp: float, key: str | None = None) -> int | None: ...


class Connection(TcpConnection):
    """One TCP connection as the capture saw it: its reassembled streams framed as Kafka (or not)."""

    __slots__ = ("expected_kafka", "protocol", "in_flight", "requests", "responses", "unmatched", "client_id",
                 "apis", "foreign", "foreign_from", "request_seen", "given_up", "coordinator_keys")

    analyzer: Analyzer
    c2s: _Half
    s2c: _Half

    def __init__(self, analyzer: Analyzer, key: tuple, a: tuple[bytes, int], b: tuple[bytes, int],
                 a_is_client: bool, roles_known: bool, number: int, timestamp: float) -> None:
        super().__init__(analyzer, key, a, b, a_is_client, roles_known, number, timestamp)
        self.expected_kafka = self.server_port in analyzer.ports
        self.protocol = UNKNOWN
        self.in_flight: dict[int, tuple[int, int, int, float]] = {}
        self.coordinator_keys: dict[int, str] = {}  # correlation id -> the FindCoordinator request's key
        self.requests = self.responses = self.unmatched = 0
        self.client_id: str | None = None
        self.apis: dict[str, None] = {}
        self.foreign: ForeignBytes | None = None
        self.foreign_from: str | None = None
        self.request_seen = False
        self.given_up = False

    # --- what the summary reads ------------------------------------------------------------------

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

    # --- the streams, from the reassembly ------------------------------------------------------------

    def _direction(self) -> _Half:
        return _Half()

    def _arriving(self, half: _Half) -> None:
        if half.state == DETECT and (self.expected_kafka or self.protocol == KAFKA):
            half.state = SYNC if half.at_start else HUNT

    def _streams_past(self, half: _Half, size: int) -> bool:
        """The bulk of a capture: the next bytes of a frame body kdiag streams past, or of a connection it no
        longer reads."""
        if (half.skip >= size or half.state == OFF) and len(half.head) >= 64:
            if half.skip:
                half.skip -= size
            return True
        return False

    def finish(self, last_packet: int) -> None:
        """The capture ended: holes still waiting are lost, a lone unanswered request still makes
        it Kafka, and a response cut off at the end is said."""
        super().finish(last_packet)
        if self.protocol == UNKNOWN and self.request_seen and not self.given_up:
            self._confirm(find_request_start(self.c2s.buf, self.analyzer.frame_max)[0], None, last_packet,
                          self.last_time)
        response = self.s2c
        if self.protocol == KAFKA and response.state == SYNC and len(response.buf) >= 8:
            size = _INT32.unpack_from(response.buf)[0]
            self._warn(last_packet, f"{self.server} > {self.client}: the capture ends inside "
                                    f"{self._frame_label(response, response.buf)}: {len(response.buf) - 4} of {size} "
                                    "bytes seen")

    def _lost(self, half: _Half, size: int, number: int, why: str) -> None:
        """``size`` bytes of the stream will never be seen: keep the framing if the frame lengths
        allow it, otherwise hunt for the next frame start."""
        super()._lost(half, size, number, why)
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

    def _foreign(self, half: _Half, foreign: ForeignBytes, number: int, timestamp: float) -> None:
        self.protocol = TLS if foreign.is_tls else NOT_KAFKA
        self.foreign = foreign
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
