"""Frames, headers and the sans-I/O client protocol.

``KafkaClientProtocol`` turns requests into bytes (``send_request``) and bytes into
``(correlation_id, response)`` pairs (``receive_bytes``); it never opens a socket, so the active
probe and the packet capture decode with the very same code.  Bytes that are not Kafka at all (a TLS
alert, an HTTP status line, an SSH banner, a ZooKeeper reply) are recognised and raised as
:class:`NotKafka` carrying what was seen: evidence for a finding, never a traceback.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from probes.codec.messages import api_name, spec_for
from probes.codec.reader import MalformedFrame, Reader
from probes.codec.writer import Writer
from probes.results import ForeignBytes

MAX_FRAME_SIZE = 128 * 1024 * 1024
"""The largest length a Kafka frame declares, either way: one cap for the probe and the capture.

Why 128 MiB: a broker accepts requests up to ``socket.request.max.bytes`` (100 MiB by default) and
answers fetches up to ``fetch.max.bytes`` (50 MiB), so every real frame a capture sees fits under it;
a larger declared length is a desynchronised stream or another protocol (a TLS record's first bytes
read as 352 MiB, ``HTTP`` as 1.2 GiB). It is a plausibility line, not a memory bound: the probe reads
each answer under its API's own cap (``probes.limits``) and the capture buffers at most ``DECODE_CAP``.
"""


class NotKafka(MalformedFrame):
    """The peer answered with bytes of another protocol."""

    def __init__(self, foreign: ForeignBytes) -> None:
        super().__init__(f"not Kafka: {foreign.description}")
        self.foreign = foreign


class FrameTooLarge(MalformedFrame):
    """A frame declared a size beyond the maximum; nothing of it is buffered."""

    def __init__(self, size: int, maximum: int, preview: str) -> None:
        super().__init__(f"frame of {size} bytes declared, above the {maximum}-byte maximum (starts {preview})")
        self.size = size
        self.maximum = maximum
        self.preview = preview


def preview_bytes(data: bytes, limit: int = 24) -> str:
    return "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else f"\\x{b:02x}" for b in data[:limit])


_TLS_ALERT_DESCRIPTIONS = {0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac",
                           40: "handshake_failure", 42: "bad_certificate", 46: "certificate_unknown",
                           48: "unknown_ca", 70: "protocol_version", 80: "internal_error",
                           112: "unrecognized_name", 116: "certificate_required"}


def identify_foreign(data: bytes) -> ForeignBytes | None:
    """Recognise the first bytes a peer sent as another protocol, or None if they may be Kafka.

    Called on the start of a stream (where Kafka would put a 4-byte size) or on a whole frame.
    """
    preview = preview_bytes(data)
    if len(data) >= 3 and data[0] in (0x15, 0x16) and data[1] == 0x03 and data[2] <= 0x04:
        if data[0] == 0x15:
            detail = ""
            if len(data) >= 7:
                detail = f", {_TLS_ALERT_DESCRIPTIONS.get(data[6], f'alert {data[6]}')}"
            return ForeignBytes("tls_alert", f"a TLS alert record (0x15 0x03{detail}): this port speaks TLS", preview)
        return ForeignBytes("tls_handshake", "a TLS handshake record (0x16 0x03): this port speaks TLS", preview)
    if data.startswith((b"HTTP/1.", b"HTTP/2", b"HTTP/0.")):
        status = data.split(b"\r\n", 1)[0].decode("latin-1")[:60]
        return ForeignBytes("http", f"an HTTP response ({status!r})", preview)
    if data.startswith(b"SSH-"):
        banner = data.split(b"\r\n", 1)[0].decode("latin-1")[:60]
        return ForeignBytes("ssh", f"an SSH banner ({banner!r})", preview)
    if len(data) in (40, 41) and data[:4] in (b"\x00\x00\x00\x24", b"\x00\x00\x00\x25") and data[4:8] == b"\0\0\0\0":
        return ForeignBytes("zookeeper", "a ZooKeeper ConnectResponse (protocol version 0, session id, password)",
                               preview)
    if data[:4] == b"imok" or data.startswith(b"This ZooKeeper instance"):
        return ForeignBytes("zookeeper", "a ZooKeeper four-letter-word reply", preview)
    if data.startswith((b"-ERR", b"+OK", b"220 ", b"AMQP", b"* OK", b"RFB ", b"\x00\x00\x00\x00\x0aN")):
        return ForeignBytes("text", f"a text protocol greeting ({preview!r})", preview)
    return None


def foreign_or_garbage(data: bytes) -> ForeignBytes:
    return identify_foreign(data) or ForeignBytes(
        "text" if data[:8].isascii() and all(0x20 <= b < 0x7F or b in (9, 10, 13) for b in data[:8]) else "binary",
        f"bytes that do not frame as Kafka ({preview_bytes(data)!r})",
        preview_bytes(data),
    )


# --- headers ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RequestHeader:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None

    @property
    def api_name(self) -> str:
        return api_name(self.api_key)


def encode_request(request: Any, *, correlation_id: int, client_id: str | None = "kdiag") -> bytes:
    """A size-prefixed request frame: header v1 (v2 for flexible versions), then the body."""
    spec = spec_for(request.API_KEY, request.version)
    flexible = spec.is_flexible(request.version)
    w = Writer()
    w.int16(spec.key)
    w.int16(request.version)
    w.int32(correlation_id)
    w.string(client_id)  # client_id is a classic string even in header v2 (KIP-482)
    w.empty_tags_if(flexible)
    spec.encode_request(w, request, request.version)
    body = w.getvalue()
    return struct.pack(">i", len(body)) + body


def decode_request_header(frame: bytes) -> tuple[RequestHeader, Reader]:
    """The header of a request frame (size prefix already removed) and a reader at its body."""
    r = Reader(frame)
    header = RequestHeader(r.int16(), r.int16(), r.int32(), r.nullable_string())
    spec = None
    try:
        spec = spec_for(header.api_key, header.api_version)
    except MalformedFrame:
        pass
    if spec is not None and spec.is_flexible(header.api_version):
        r.tagged_fields()
    return header, r


def decode_request(frame: bytes) -> tuple[RequestHeader, Any]:
    """A whole request frame; the body is decoded where kdiag knows the API, else ``None``."""
    header, r = decode_request_header(frame)
    try:
        spec = spec_for(header.api_key, header.api_version)
    except MalformedFrame:
        return header, None
    return header, spec.decode_request(r, header.api_version)


def decode_response(frame: bytes, *, api_key: int, api_version: int) -> tuple[int, Any]:
    """A response frame (size prefix removed) to the request ``(api_key, api_version)``."""
    spec = spec_for(api_key, api_version)
    r = Reader(frame)
    correlation_id = r.int32()
    if spec.response_header_flexible(api_version):
        r.tagged_fields()
    return correlation_id, spec.decode_response(r, api_version)


def encode_response(response: Any, *, correlation_id: int) -> bytes:
    """A size-prefixed response frame, as a broker sends it: header v0 (v1 for flexible versions,
    except ApiVersions, KIP-511), then the body in the version the response carries."""
    spec = spec_for(response.API_KEY, response.version)
    w = Writer()
    w.int32(correlation_id)
    w.empty_tags_if(spec.response_header_flexible(response.version))
    spec.encode_response(w, response, response.version)
    body = w.getvalue()
    return struct.pack(">i", len(body)) + body


def response_correlation_id(frame: bytes) -> int:
    return Reader(frame).int32()


# --- framing ------------------------------------------------------------------------------------


class FrameBuffer:
    """Splits a byte stream into Kafka frames (without their size prefix), sans-I/O.

    ``max_frame_size`` bounds memory: a larger declared size raises before anything is buffered,
    and if the first bytes of the stream look like another protocol, :class:`NotKafka` says which.

    A bad frame never costs the good ones before it: when one read holds complete frames and then a
    bad size or foreign bytes, ``feed`` returns the complete frames and keeps the error, which the
    next ``feed`` raises (``feed(b"")`` raises it at once; ``error`` shows it). The stream is out of
    step after a bad frame, so what that next call brings is dropped with the buffer.
    """

    def __init__(self, *, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        self.max_frame_size = max_frame_size
        self._buffer = bytearray()
        self._seen_any = False
        self._error: MalformedFrame | None = None

    @property
    def pending(self) -> int:
        return len(self._buffer)

    @property
    def error(self) -> MalformedFrame | None:
        """The error the next ``feed`` raises: a bad frame that came after frames already returned."""
        return self._error

    @property
    def declared(self) -> int:
        """The size the frame being assembled declared (0 while fewer than 4 bytes are buffered)."""
        return max(struct.unpack_from(">i", self._buffer)[0], 0) if len(self._buffer) >= 4 else 0

    def feed(self, data: bytes) -> list[bytes]:
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        self._buffer += data
        frames: list[bytes] = []
        try:
            while len(self._buffer) >= 4:
                size = struct.unpack_from(">i", self._buffer)[0]
                self._check_start(size)
                if len(self._buffer) < 4 + size:
                    break
                frames.append(bytes(self._buffer[4 : 4 + size]))
                del self._buffer[: 4 + size]
                self._seen_any = True
        except MalformedFrame as exc:
            self._buffer.clear()
            if not frames:
                raise
            self._error = exc
        return frames

    def _check_start(self, size: int) -> None:
        """Raises if the frame starting the buffer, of declared ``size``, is not one to buffer."""
        if size < 0 or size > self.max_frame_size:
            head = bytes(self._buffer[:64])
            foreign = identify_foreign(head)
            if foreign is not None:
                raise NotKafka(foreign)
            raise FrameTooLarge(size & 0xFFFFFFFF, self.max_frame_size, preview_bytes(head))
        if not self._seen_any:
            foreign = identify_foreign(bytes(self._buffer[:64]))
            if foreign is not None and foreign.kind not in ("zookeeper",):
                raise NotKafka(foreign)


class KafkaClientProtocol:
    """The client side of one Kafka connection, without the connection.

    ``send_request(request) -> (correlation_id, bytes)``; ``receive_bytes(data) -> [(correlation_id,
    response)]``. Responses are matched to requests in flight by correlation id; a frame that
    matches none is either another protocol (raised as :class:`NotKafka`) or a desynchronised stream.
    """

    def __init__(self, *, client_id: str | None = "kdiag", max_frame_size: int = MAX_FRAME_SIZE,
                 first_correlation_id: int = 1) -> None:
        self.client_id = client_id
        self._frames = FrameBuffer(max_frame_size=max_frame_size)
        self._next_id = first_correlation_id
        self._in_flight: dict[int, tuple[int, int]] = {}
        self._error: MalformedFrame | None = None

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def max_frame_size(self) -> int:
        """The largest response frame accepted; the caller may lower it per request (an ApiVersions
        answer is a few KB, a Metadata answer may be MBs)."""
        return self._frames.max_frame_size

    @max_frame_size.setter
    def max_frame_size(self, size: int) -> None:
        self._frames.max_frame_size = size

    @property
    def incoming_size(self) -> int:
        """Bytes the response being received will hold once complete (its declared size), 0 if unknown."""
        return self._frames.declared

    def send_request(self, request: Any) -> tuple[int, bytes]:
        correlation_id = self._next_id
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF or 1
        data = encode_request(request, correlation_id=correlation_id, client_id=self.client_id)
        self._in_flight[correlation_id] = (request.API_KEY, request.version)
        return correlation_id, data

    def receive_bytes(self, data: bytes) -> list[tuple[int, Any]]:
        """The responses completed by ``data``. A bad frame after good ones (foreign bytes, a size
        beyond the maximum, an answer to no request) does not cost the responses before it: they
        are returned and the error is raised by the next call (``receive_bytes(b"")`` at once)."""
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        responses: list[tuple[int, Any]] = []
        try:
            for frame in self._frames.feed(data):
                responses.append(self._response(frame))
        except MalformedFrame as exc:
            if not responses:
                raise
            self._error = exc
        return responses

    def _response(self, frame: bytes) -> tuple[int, Any]:
        correlation_id = response_correlation_id(frame)
        expected = self._in_flight.pop(correlation_id, None)
        if expected is None:
            foreign = identify_foreign(struct.pack(">i", len(frame)) + frame)
            if foreign is not None:
                raise NotKafka(foreign)
            raise MalformedFrame(f"response correlation id {correlation_id} matches no request in flight")
        api_key, version = expected
        return decode_response(frame, api_key=api_key, api_version=version)
