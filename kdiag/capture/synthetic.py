"""Synthetic Kafka conversations on the wire, for the capture's tests and benchmark.

The codec encodes both directions: requests with ``probes.codec.encode_request`` and the brokers'
responses with ``probes.codec.encode_response``, from the same field declarations it decodes them
with. A :class:`TcpConversation` turns byte streams into TCP segments (handshake, MSS-sized
segments, acknowledgements) and can reorder, duplicate or drop them, the way captures go wrong.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable, Iterable, Sequence

from kdiag.capture.pcapio import ACK, FIN, LINKTYPE_ETHERNET, PSH, RST, SYN, PcapWriter, build_tcp
from probes.codec import (
    ApiVersionRange,
    ApiVersionsResponse,
    Coordinator,
    FindCoordinatorResponse,
    MetadataBroker,
    MetadataPartition,
    MetadataRequest,
    MetadataResponse,
    MetadataTopic,
    Writer,
    encode_request,
    encode_response,
    kafka_error,
)

Broker = MetadataBroker  # node_id, host, port, rack: a broker as a Metadata response lists it


def metadata_response(correlation_id: int, brokers: Sequence[Broker], *, version: int = 9,
                      cluster_id: str | None = "MkU3OEVBNTcwNTJENDM2Qg", controller_id: int = 1,
                      topics: Sequence[tuple[str, int, int]] = ()) -> bytes:
    """A Metadata response frame, size prefix included. ``topics``: (name, error_code, partitions);
    partition ``i`` is led by ``brokers[i % len(brokers)]``, its only replica."""

    def partition(index: int) -> MetadataPartition:
        leader = brokers[index % len(brokers)].node_id if brokers else -1
        replicas = (leader,) if brokers else ()
        return MetadataPartition(kafka_error(0), index, leader, replicas, replicas, leader_epoch=0)

    response = MetadataResponse(
        version, tuple(brokers), cluster_id, controller_id,
        topics=tuple(MetadataTopic(kafka_error(error_code), name, tuple(partition(i) for i in range(partitions)))
                     for name, error_code, partitions in topics),
    )  # what a version does not carry (a rack before v1, the cluster id before v2) is not written
    return encode_response(response, correlation_id=correlation_id)


def api_versions_response(correlation_id: int, *, version: int = 3, error_code: int = 0,
                          ranges: Iterable[tuple[int, int, int]] = ((18, 0, 4), (3, 0, 12), (0, 0, 11))) -> bytes:
    api_keys = tuple(ApiVersionRange(*item) for item in ranges)
    return encode_response(ApiVersionsResponse(version, kafka_error(error_code), api_keys),
                           correlation_id=correlation_id)


def find_coordinator_response(correlation_id: int, node_id: int, host: str, port: int, *, version: int = 2,
                              error_code: int = 0) -> bytes:
    coordinator = Coordinator("", node_id, host, port, kafka_error(error_code))
    return encode_response(FindCoordinatorResponse(version, (coordinator,)), correlation_id=correlation_id)


def metadata_request(correlation_id: int, version: int = 9, client_id: str = "kdiag") -> bytes:
    return encode_request(MetadataRequest(version=version), correlation_id=correlation_id, client_id=client_id)


def opaque_request(api_key: int, version: int, correlation_id: int, body_size: int, client_id: str = "bench",
                   fill: bytes = b"\x5a") -> bytes:
    """A request of an API kdiag does not decode (Produce, Fetch): a real header, filler body."""
    w = Writer()
    w.int16(api_key)
    w.int16(version)
    w.int32(correlation_id)
    w.string(client_id)
    body = w.getvalue() + (fill * (body_size // len(fill) + 1))[:body_size]
    return struct.pack(">i", len(body)) + body


def opaque_response(correlation_id: int, body_size: int, fill: bytes = b"\xa5") -> bytes:
    body = struct.pack(">i", correlation_id) + (fill * (body_size // len(fill) + 1))[:body_size]
    return struct.pack(">i", len(body)) + body


class TcpConversation:
    """Builds the packets of one TCP connection: ``handshake()``, ``client(data)``, ``server(data)``,
    ``close()``; ``packets`` holds ``(timestamp, frame)`` in wire order, unless ``sink`` takes each
    packet as it is made (a benchmark's million packets never sit in a list). ``clock`` replaces the
    conversation's own time, so several conversations can share one."""

    def __init__(self, client: tuple[str, int], server: tuple[str, int], *, start: float = 1_700_000_000.0,
                 mss: int = 1448, linktype: int = LINKTYPE_ETHERNET, client_isn: int = 1000,
                 server_isn: int = 5000, step: float = 0.0001, checksum: bool = True,
                 sink: Callable[[float, bytes], None] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.client_end, self.server_end = client, server
        self.mss = mss
        self.linktype = linktype
        self.start = start
        self.step = step
        self.ticks = 0  # time is start + ticks * step: summing steps would drift at epoch magnitudes
        self.checksum = checksum
        self.sink = sink
        self.clock = clock
        self.seq = {True: client_isn, False: server_isn}  # next sequence number per side (True: client)
        self.base: dict[bool, int] = {}  # sequence number of each side's first data byte
        self.sent = {True: bytearray(), False: bytearray()}  # each side's byte stream so far
        self.packets: list[tuple[float, bytes]] = []

    def _packet(self, from_client: bool, flags: int, payload: bytes = b"", *, seq: int | None = None) -> bytes:
        src, dst = (self.client_end, self.server_end) if from_client else (self.server_end, self.client_end)
        frame = build_tcp(src[0], dst[0], src[1], dst[1], seq=self.seq[from_client] if seq is None else seq,
                          ack=self.seq[not from_client], flags=flags, payload=payload, linktype=self.linktype,
                          checksum=self.checksum)
        self.ticks += 1
        timestamp = self.clock() if self.clock else self.start + self.ticks * self.step
        if self.sink is not None:
            self.sink(timestamp, frame)
        else:
            self.packets.append((timestamp, frame))
        return frame

    def handshake(self, *, answer: str = "syn_ack", syns: int = 1) -> TcpConversation:
        """``answer``: syn_ack (completes), rst (refused) or none (no answer to ``syns`` SYNs)."""
        for _ in range(syns):
            self._packet(True, SYN)
        if answer == "rst":
            self.seq[True] += 1
            self._packet(False, RST | ACK, seq=0)
            return self
        if answer == "none":
            return self
        self.seq[True] += 1
        self._packet(False, SYN | ACK)
        self.seq[False] += 1
        self._packet(True, ACK)
        return self

    def send(self, from_client: bool, data: bytes) -> list[int]:
        """Sends ``data`` in MSS-sized segments; returns the indexes of the packets in ``packets``."""
        indexes = []
        self.base.setdefault(from_client, self.seq[from_client])
        for at in range(0, len(data), self.mss):
            chunk = data[at:at + self.mss]
            self._packet(from_client, ACK | PSH, chunk)
            indexes.append(len(self.packets) - 1)
            self.seq[from_client] = (self.seq[from_client] + len(chunk)) & 0xFFFFFFFF
            if self.sink is None:  # kept for resend(); a streamed conversation keeps nothing
                self.sent[from_client] += chunk
        self._packet(not from_client, ACK)  # the receiver acknowledges all of it
        return indexes

    def resend(self, from_client: bool, offset: int, length: int) -> int:
        """Sends bytes ``[offset, offset + length)`` of a side's stream again (a retransmission,
        or an overlap when it spans segment boundaries); returns the packet's index."""
        payload = bytes(self.sent[from_client][offset:offset + length])
        seq = (self.base[from_client] + offset) & 0xFFFFFFFF
        self._packet(from_client, ACK | PSH, payload, seq=seq)
        return len(self.packets) - 1

    def client(self, data: bytes) -> list[int]:
        return self.send(True, data)

    def server(self, data: bytes) -> list[int]:
        return self.send(False, data)

    def close(self) -> TcpConversation:
        self._packet(True, FIN | ACK)
        self.seq[True] += 1
        self._packet(False, FIN | ACK)
        self.seq[False] += 1
        self._packet(True, ACK)
        return self

    def shuffle(self, indexes: Sequence[int], seed: int = 7) -> None:
        """Reorders the packets at ``indexes`` among themselves (out-of-order delivery)."""
        chosen = [self.packets[i] for i in indexes]
        random.Random(seed).shuffle(chosen)
        for i, packet in zip(indexes, chosen):
            self.packets[i] = packet

    def drop(self, indexes: Iterable[int]) -> None:
        for i in sorted(indexes, reverse=True):
            del self.packets[i]

    def duplicate(self, indexes: Iterable[int]) -> None:
        for i in sorted(indexes, reverse=True):
            self.packets.insert(i + 1, self.packets[i])


def icmp_unreachable(segment: bytes, *, v6: bool, code: int) -> bytes:
    """A raw-IP ICMP(v6) destination unreachable from a router, quoting ``segment`` (a raw IP packet):
    ICMP code 3 / ICMPv6 code 4 is port unreachable."""
    if v6:
        body = bytes([1, code]) + b"\0\0\0\0\0\0" + segment
        return (struct.pack(">IHBB", 6 << 28, len(body), 58, 64) + b"\x20\x01\x0d\xb8" + b"\0" * 11 + b"\xfe"
                + segment[8:24]) + body
    body = bytes([3, code]) + b"\0\0\0\0\0\0" + segment[:28]
    return struct.pack(">BBHHHBBH", 0x45, 0, 20 + len(body), 0, 0, 64, 1, 0) + bytes([192, 0, 2, 254]) \
        + segment[12:16] + body


def write_pcap(path: str, packets: Iterable[tuple[float, bytes]], linktype: int = LINKTYPE_ETHERNET) -> None:
    with open(path, "wb") as stream:
        writer = PcapWriter(stream, linktype)
        for timestamp, frame in packets:
            writer.write(timestamp, frame)
