"""A tiny scripted Kafka peer for unit tests of the odd protocol corners (the real broker is used elsewhere),
and the hostile-peer fixture: a peer that declares a 63 MiB answer (``send_huge``), trickles bytes
(``send_slowly``), sends a length and then nothing, answers with the wrong correlation id, a negative
array length or invalid UTF-8 (``answer`` with a hand-made ``frame``), or closes after ApiVersions.

    with FakeBroker(
        [respond(API_VERSIONS, answer_api_versions()), expect_request(METADATA), close()],
        [respond(SASL_HANDSHAKE, lambda header, body: sasl_handshake_response(0, ["PLAIN"]))],
    ) as broker:
        ...connect to ("127.0.0.1", broker.port)...
    broker.requests  # (connection index, RequestHeader) for every request the broker read

The broker binds 127.0.0.1 on a free port. Accepted connection number ``n`` runs script ``n`` on its
own thread, one step after the other. After its last step the connection is held open (what the
client sends is read and dropped) until the client hangs up or the broker stops.

A step that does not go as written (another API key arrives, the client hangs up before the request
a step waits for, a connection no script was written for) is recorded in ``failures`` and raised as
``AssertionError`` when the ``with`` block ends: a script that did not run cannot let a test pass.
A client hanging up while the broker sends or sleeps is not a failure: giving up is what clients
under test do.

The response builders write the upstream schema's fields (``*Response.json``) with the codec's
``Writer``; they never use the codec's decoders or version tables, so they do not share its mistakes.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from probes.codec import MetadataBroker, MetadataTopic, RequestHeader, Writer

API_VERSIONS = 18
METADATA = 3
FIND_COORDINATOR = 10
LIST_OFFSETS = 2
SASL_HANDSHAKE = 17

# First version whose *response header* is v1 (flexible), per API; ApiVersions always answers with
# header v0 (KIP-511) and SaslHandshake is never flexible.
_FLEXIBLE_RESPONSE_HEADER_FROM = {METADATA: 9, FIND_COORDINATOR: 3, LIST_OFFSETS: 6}
# The same for the request header (v2), so the broker can find where a request body starts.
_FLEXIBLE_REQUEST_HEADER_FROM = {API_VERSIONS: 3, METADATA: 9, FIND_COORDINATOR: 3, LIST_OFFSETS: 6}

# What a Kafka 3.9 broker offers for the APIs kdiag speaks.
DEFAULT_API_KEYS: tuple[tuple[int, int, int], ...] = (
    (LIST_OFFSETS, 1, 9), (METADATA, 0, 12), (FIND_COORDINATOR, 0, 6), (SASL_HANDSHAKE, 0, 1),
    (API_VERSIONS, 0, 4),
)

_MAX_REQUEST = 1 << 20
_POLL = 0.05
_SEND_TIMEOUT = 2.0

Handler = Callable[[RequestHeader, bytes], bytes]


class _Peer:
    """One accepted connection as the steps see it."""

    def __init__(self, broker: FakeBroker, sock: socket.socket, index: int) -> None:
        self.broker = broker
        self.sock = sock
        self.index = index
        self.hung_up = False
        self._buffer = bytearray()
        sock.settimeout(_POLL)

    @property
    def stopping(self) -> bool:
        return self.broker._stop.is_set()

    def recv_some(self) -> bytes | None:
        """Up to 64 KiB, b"" when nothing came within a poll interval, None when the client hung up."""
        try:
            chunk = self.sock.recv(65536)
        except TimeoutError:
            return b""
        except OSError:
            chunk = b""
        if not chunk:
            self.hung_up = True
            return None
        return chunk

    def read_request(self, waiting_for: str) -> tuple[RequestHeader, bytes]:
        while not self.stopping:
            if len(self._buffer) >= 4:
                size = struct.unpack_from(">i", self._buffer)[0]
                if not 0 <= size <= _MAX_REQUEST:
                    raise AssertionError(f"{waiting_for}: the client sent a frame of size {size}")
                if len(self._buffer) >= 4 + size:
                    frame = bytes(self._buffer[4 : 4 + size])
                    del self._buffer[: 4 + size]
                    header, body = split_request(frame)
                    self.broker._record(self.index, header)
                    return header, body
            chunk = self.recv_some()
            if chunk is None:
                raise AssertionError(f"{waiting_for}: the client hung up first")
            self._buffer += chunk
        raise AssertionError(f"{waiting_for}: the broker was stopped first")

    def send(self, data: bytes) -> bool:
        """False once the client is gone."""
        try:
            self.sock.settimeout(_SEND_TIMEOUT)
            self.sock.sendall(data)
        except OSError:
            self.hung_up = True
            return False
        finally:
            if not self.hung_up:
                self.sock.settimeout(_POLL)
        return True

    def hold(self) -> None:
        """After the script: keep the connection open, dropping what arrives, until either side ends it."""
        while not self.stopping and not self.hung_up:
            if self.recv_some() is None:
                return

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        self.hung_up = True


def split_request(frame: bytes) -> tuple[RequestHeader, bytes]:
    """Request header v1/v2 parsed here, independently of the codec under test."""
    api_key, api_version, correlation_id, client_id_size = struct.unpack_from(">hhih", frame)
    offset = 10
    client_id = None
    if client_id_size >= 0:
        client_id = frame[offset : offset + client_id_size].decode("utf-8")
        offset += client_id_size
    flexible_from = _FLEXIBLE_REQUEST_HEADER_FROM.get(api_key)
    if flexible_from is not None and api_version >= flexible_from:
        if frame[offset] != 0:
            raise AssertionError(f"request header carries tagged fields: {frame[offset:].hex(' ')}")
        offset += 1
    return RequestHeader(api_key, api_version, correlation_id, client_id), frame[offset:]


def response_frame(header: RequestHeader, body: bytes) -> bytes:
    """``body`` framed as the answer to ``header``: size, correlation id, tags when the header is v1."""
    w = Writer()
    w.int32(header.correlation_id)
    flexible_from = _FLEXIBLE_RESPONSE_HEADER_FROM.get(header.api_key)
    if flexible_from is not None and header.api_version >= flexible_from:
        w.uvarint(0)
    w.raw(body)
    payload = w.getvalue()
    return struct.pack(">i", len(payload)) + payload


# --- the steps ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectRequest:
    api_key: int

    def run(self, peer: _Peer) -> bool:
        header, _body = peer.read_request(f"waiting for api key {self.api_key}")
        if header.api_key != self.api_key:
            raise AssertionError(f"expected api key {self.api_key}, got {header.api_key} v{header.api_version}")
        return True


@dataclass(frozen=True)
class Respond:
    api_key: int
    handler: Handler

    def run(self, peer: _Peer) -> bool:
        header, body = peer.read_request(f"waiting for api key {self.api_key}")
        if header.api_key != self.api_key:
            raise AssertionError(f"expected api key {self.api_key}, got {header.api_key} v{header.api_version}")
        return peer.send(response_frame(header, self.handler(header, body)))


@dataclass(frozen=True)
class Send:
    data: bytes

    def run(self, peer: _Peer) -> bool:
        return peer.send(self.data)


@dataclass(frozen=True)
class SendSlowly:
    data: bytes
    interval: float

    def run(self, peer: _Peer) -> bool:
        for i in range(len(self.data)):
            if not peer.send(self.data[i : i + 1]) or peer.broker._stop.wait(self.interval):
                return False
        return True


@dataclass(frozen=True)
class Sleep:
    seconds: float

    def run(self, peer: _Peer) -> bool:
        return not peer.broker._stop.wait(self.seconds)


@dataclass(frozen=True)
class Close:
    def run(self, peer: _Peer) -> bool:
        peer.close()
        return False


@dataclass(frozen=True)
class SendHuge:
    """A response frame declaring ``size`` bytes for the request just read, then filler for as long as
    the client reads (at most ``size``): a 63 MiB ApiVersions answer without holding 63 MiB here."""

    size: int

    def run(self, peer: _Peer) -> bool:
        header, _body = peer.read_request("waiting for the request to answer hugely")
        if not peer.send(struct.pack(">ii", self.size, header.correlation_id)):
            return False
        filler, sent = b"\0" * 65536, 4
        while sent < self.size and not peer.stopping:
            if not peer.send(filler[: self.size - sent]):
                return False
            sent += len(filler)
        return True


@dataclass(frozen=True)
class Answer:
    """Read one request of ``api_key`` and answer it with ``make(header)``: whole frame bytes, so a
    hostile answer may get the size, the correlation id or anything else wrong on purpose."""

    api_key: int
    make: Callable[[RequestHeader], bytes]

    def run(self, peer: _Peer) -> bool:
        header, _body = peer.read_request(f"waiting for api key {self.api_key}")
        if header.api_key != self.api_key:
            raise AssertionError(f"expected api key {self.api_key}, got {header.api_key} v{header.api_version}")
        return peer.send(self.make(header))


Step = ExpectRequest | Respond | Send | SendSlowly | Sleep | Close | SendHuge | Answer


def expect_request(api_key: int) -> Step:
    """Read one request and check its API key; nothing is answered."""
    return ExpectRequest(api_key)


def respond(api_key: int, handler: Handler) -> Step:
    """Read one request of ``api_key``; answer ``handler(header, body)`` (a response body) framed to it."""
    return Respond(api_key, handler)


def send(data: bytes) -> Step:
    return Send(data)


def send_slowly(data: bytes, interval: float) -> Step:
    """One byte, then ``interval`` seconds, then the next byte."""
    return SendSlowly(data, interval)


def sleep(seconds: float) -> Step:
    return Sleep(seconds)


def close() -> Step:
    return Close()


def send_huge(size: int) -> Step:
    """Read a request; answer with a frame declaring ``size`` bytes, streamed while the client reads."""
    return SendHuge(size)


def answer(api_key: int, make: Callable[[RequestHeader], bytes]) -> Step:
    """Read a request of ``api_key``; send ``make(header)`` as it is (a whole frame, size included)."""
    return Answer(api_key, make)


def frame(correlation_id: int, body: bytes) -> bytes:
    """A response frame with a header v0: size, ``correlation_id``, ``body``."""
    return struct.pack(">ii", len(body) + 4, correlation_id) + body


# --- the broker ---------------------------------------------------------------------------------


class FakeBroker:
    """``default``: the script of every connection beyond ``scripts`` (else such a connection is a
    failure); ``strict=False``: failures are kept in ``failures`` but not raised (a hostile-peer test
    cares about kdiag's answer, not about which requests it chose to send)."""

    def __init__(self, *scripts: Sequence[Step], default: Sequence[Step] | None = None, strict: bool = True) -> None:
        self.scripts = [tuple(script) for script in scripts]
        self.default = tuple(default) if default is not None else None
        self.strict = strict
        self.requests: list[tuple[int, RequestHeader]] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._peers: list[_Peer] = []
        self._threads: list[threading.Thread] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(_POLL)
        self.port: int = self._listener.getsockname()[1]
        self._acceptor = threading.Thread(target=self._accept_loop, name="fakebroker-accept", daemon=True)

    @property
    def connections(self) -> int:
        return len(self._peers)

    def requests_on(self, connection: int) -> list[RequestHeader]:
        return [header for index, header in self.requests if index == connection]

    def __enter__(self) -> FakeBroker:
        self._acceptor.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.stop()
        if exc_type is None and self.failures and self.strict:
            raise AssertionError("fake broker: " + "; ".join(self.failures))

    def stop(self) -> None:
        self._stop.set()
        self._acceptor.join(timeout=2)
        self._listener.close()
        for thread in self._threads:
            thread.join(timeout=2)
        for peer in self._peers:
            peer.close()

    def _record(self, index: int, header: RequestHeader) -> None:
        with self._lock:
            self.requests.append((index, header))

    def _fail(self, index: int, message: str) -> None:
        with self._lock:
            self.failures.append(f"connection {index}: {message}")

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _address = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            peer = _Peer(self, sock, len(self._peers))
            self._peers.append(peer)
            thread = threading.Thread(target=self._serve, args=(peer,), name=f"fakebroker-{peer.index}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, peer: _Peer) -> None:
        if peer.index >= len(self.scripts) and self.default is None:
            self._fail(peer.index, f"no script for connection {peer.index} ({len(self.scripts)} written)")
            peer.close()
            return
        script = self.scripts[peer.index] if peer.index < len(self.scripts) else self.default
        try:
            for step in script:
                if not step.run(peer):
                    break
            else:
                peer.hold()
        except AssertionError as exc:
            self._fail(peer.index, str(exc))
        finally:
            peer.close()


# --- response bodies, field by field as the upstream schemas list them -------------------------


def api_versions_response(version: int, *, error_code: int = 0,
                          api_keys: Iterable[tuple[int, int, int]] = DEFAULT_API_KEYS,
                          throttle_time_ms: int = 0) -> bytes:
    """ApiVersionsResponse at ``version`` (v0 is also what a broker sends for an unsupported version)."""
    flexible = version >= 3
    w = Writer()
    w.int16(error_code)

    def api_range(item: tuple[int, int, int]) -> None:
        api_key, min_version, max_version = item
        w.int16(api_key)
        w.int16(min_version)
        w.int16(max_version)
        w.empty_tags_if(flexible)

    w.array(list(api_keys), api_range, flexible)
    if version >= 1:
        w.int32(throttle_time_ms)
    w.empty_tags_if(flexible)
    return w.getvalue()


def unsupported_api_versions_response(max_version: int) -> bytes:
    """What a broker answers to an ApiVersions version it does not know: a v0 body, error 35
    UNSUPPORTED_VERSION, listing only its own ApiVersions range (KIP-511)."""
    return api_versions_response(0, error_code=35, api_keys=[(API_VERSIONS, 0, max_version)])


def answer_api_versions(api_keys: Iterable[tuple[int, int, int]] = DEFAULT_API_KEYS) -> Handler:
    """A handler answering ApiVersions at the version it was asked in."""
    keys = tuple(api_keys)
    return lambda header, _body: api_versions_response(header.api_version, api_keys=keys)


def metadata_response(version: int, *, brokers: Sequence[MetadataBroker], cluster_id: str | None = None,
                      controller_id: int = -1, topics: Sequence[MetadataTopic] = (),
                      error_code: int = 0) -> bytes:
    """MetadataResponse at ``version``; ``*_authorized_operations`` are sent as "not requested"."""
    flexible = version >= 9
    w = Writer()
    if version >= 3:
        w.int32(0)  # throttle_time_ms

    def broker(b: MetadataBroker) -> None:
        w.int32(b.node_id)
        w.string(b.host, flexible)
        w.int32(b.port)
        if version >= 1:
            w.string(b.rack, flexible)
        w.empty_tags_if(flexible)

    def int32_array(values: Sequence[int]) -> None:
        w.array(list(values), w.int32, flexible)

    def partition(p) -> None:
        w.int16(p.error.code)
        w.int32(p.partition_index)
        w.int32(p.leader_id)
        if version >= 7:
            w.int32(p.leader_epoch)
        int32_array(p.replica_nodes)
        int32_array(p.isr_nodes)
        if version >= 5:
            int32_array(p.offline_replicas)
        w.empty_tags_if(flexible)

    def topic(t: MetadataTopic) -> None:
        w.int16(t.error.code)
        w.string(t.name, flexible)
        if version >= 10:
            w.uuid(t.topic_id)
        if version >= 1:
            w.boolean(t.is_internal)
        w.array(list(t.partitions), partition, flexible)
        if version >= 8:
            w.int32(-2147483648)  # topic_authorized_operations
        w.empty_tags_if(flexible)

    w.array(list(brokers), broker, flexible)
    if version >= 2:
        w.string(cluster_id, flexible)
    if version >= 1:
        w.int32(controller_id)
    w.array(list(topics), topic, flexible)
    if 8 <= version <= 10:
        w.int32(-2147483648)  # cluster_authorized_operations
    if version >= 13:
        w.int16(error_code)
    w.empty_tags_if(flexible)
    return w.getvalue()


def answer_metadata(**fields) -> Handler:
    """A handler answering Metadata at the version it was asked in (see ``metadata_response``)."""
    return lambda header, _body: metadata_response(header.api_version, **fields)


def sasl_handshake_response(error_code: int, mechanisms: Sequence[str]) -> bytes:
    w = Writer()
    w.int16(error_code)
    w.array(list(mechanisms), w.string, flexible=False)
    return w.getvalue()
