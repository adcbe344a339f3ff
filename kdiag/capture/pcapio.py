"""Streaming pcap/pcapng reading and pcap writing, with struct parsing of link, IP and TCP headers.

No scapy here: offline files go through a raw reader (``open_capture``) that keeps one read chunk
in memory, whatever the size of the file, and ``parse_tcp`` takes one captured frame apart down to
its TCP payload with ``struct`` alone (about a hundred times faster than a full dissection).

Reading never raises on a damaged file once the format is known: a file that ends inside a record
or a block stops the iteration and leaves a :class:`CaptureWarning`-shaped message naming the
packet. A file that is not a capture at all raises :class:`CaptureFormatError` with one line.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from typing import BinaryIO

# --- link types (https://www.tcpdump.org/linktypes.html) --------------------------------------
LINKTYPE_NULL = 0  # BSD loopback: 4-byte address family in the capturing host's byte order
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101  # raw IPv4/IPv6, version in the first nibble
LINKTYPE_LOOP = 108  # OpenBSD loopback: 4-byte address family, big-endian
LINKTYPE_LINUX_SLL = 113
LINKTYPE_IPV4 = 228
LINKTYPE_IPV6 = 229
LINKTYPE_LINUX_SLL2 = 276
# DLT_RAW as some writers leave it in files (12 on most systems, 14 on OpenBSD)
_RAW_LINKTYPES = frozenset((LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6, 12, 14))
SUPPORTED_LINKTYPES = frozenset((LINKTYPE_NULL, LINKTYPE_ETHERNET, LINKTYPE_LOOP, LINKTYPE_LINUX_SLL,
                                 LINKTYPE_LINUX_SLL2)) | _RAW_LINKTYPES

# TCP flags
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10

_ETH_IPV4, _ETH_IPV6 = 0x0800, 0x86DD
_VLAN_TAGS = (0x8100, 0x88A8, 0x9100)
_AF_INET6_VALUES = (10, 24, 28, 30)  # Linux, NetBSD/OpenBSD, FreeBSD, macOS
_IPV6_EXTENSIONS = (0, 43, 60)  # hop-by-hop, routing, destination options: (len + 1) * 8 bytes
_IPV6_FRAGMENT, _IPV6_AH, _IPV6_NO_NEXT, _IPV6_ESP = 44, 51, 59, 50
_PROTO_TCP, _PROTO_ICMP, _PROTO_ICMPV6 = 6, 1, 58

_PCAP_MAGIC = {
    b"\xd4\xc3\xb2\xa1": ("<", 1e-6), b"\xa1\xb2\xc3\xd4": (">", 1e-6),
    b"\x4d\x3c\xb2\xa1": ("<", 1e-9), b"\xa1\xb2\x3c\x4d": (">", 1e-9),
}
_PCAPNG_SHB = b"\x0a\x0d\x0d\x0a"
_PCAPNG_BOM = {b"\x1a\x2b\x3c\x4d": ">", b"\x4d\x3c\x2b\x1a": "<"}
_PCAPNG_IDB, _PCAPNG_PB, _PCAPNG_SPB, _PCAPNG_EPB = 1, 2, 3, 6
# The smallest total length each block type's fixed fields fit in (type, length, fields, trailing length):
# a shorter block is read past its end, or past the file's, if trusted.
_PCAPNG_MIN_LENGTH = {_PCAPNG_IDB: 20, _PCAPNG_PB: 32, _PCAPNG_SPB: 16, _PCAPNG_EPB: 32}

_CHUNK = 1 << 20
# No real capture has a record this large; a larger length means the file is corrupt from here on.
MAX_RECORD = 64 * 1024 * 1024


class CaptureError(Exception):
    """A capture cannot be read or taken; ``str(error)`` is the one line shown to the user."""


class CaptureFormatError(CaptureError):
    """The file is not a pcap or pcapng capture (or its header is damaged)."""


def _preview(data: bytes) -> str:
    return "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in data[:16])


# --- reading ------------------------------------------------------------------------------------


class CaptureReader:
    """Iterates the packets of a pcap or pcapng stream in bounded memory.

    Each item is the plain tuple ``(number, timestamp, linktype, data)``: ``number`` counts from 1
    as Wireshark does, ``timestamp`` is seconds since the epoch. Tuples rather than objects because
    this loop runs once per packet of multi-gigabyte files. ``warnings`` collects
    ``(packet_number, message)`` for damage met on the way (truncation, a corrupt record).
    """

    def __init__(self, stream: BinaryIO, *, name: str = "capture") -> None:
        self.name = name
        self._stream = stream
        self._buf = b""
        self._pos = 0
        self.warnings: list[tuple[int | None, str]] = []
        self.packets = 0
        self.linktypes: set[int] = set()
        head = self._peek(4)
        if len(head) < 4:
            raise CaptureFormatError(f"{name}: not a pcap or pcapng capture (the file is {len(head)} bytes long)")
        if head in _PCAP_MAGIC:
            self.format = "pcap"
            self._iter = self._pcap(*self._pcap_header(head))
        elif head == _PCAPNG_SHB:
            self.format = "pcapng"
            self._check_section_header()
            self._iter = self._pcapng()
        else:
            raise CaptureFormatError(f"{name}: not a pcap or pcapng capture "
                                     f"(starts with {_preview(self._peek(16))!r}, magic {head.hex()})")

    def __iter__(self) -> Iterator[tuple[int, float, int, bytes]]:
        return self._iter

    # The buffer holds the unread tail of one chunk; _need() refills it so that ``size`` bytes
    # from the current position are available, unless the file ends first.
    def _need(self, size: int) -> bool:
        available = len(self._buf) - self._pos
        if available >= size:
            return True
        more = self._stream.read(max(_CHUNK, size - available))
        self._buf = self._buf[self._pos:] + more
        self._pos = 0
        return len(self._buf) >= size

    def _peek(self, size: int) -> bytes:
        self._need(size)
        return self._buf[self._pos:self._pos + size]

    def _truncated(self, what: str) -> None:
        got = len(self._buf) - self._pos
        self.warnings.append((self.packets + 1, f"the capture is truncated: packet {self.packets + 1} "
                                                f"{what}, only {got} bytes left in the file; reading stopped"))

    def _pcap_header(self, magic: bytes) -> tuple[str, float, int, int]:
        endian, scale = _PCAP_MAGIC[magic]
        if not self._need(24):
            raise CaptureFormatError(f"{self.name}: pcap file header is truncated ({len(self._buf)} of 24 bytes)")
        _, _, _, _, snaplen, network = struct.unpack_from(endian + "HHiIII", self._buf, 4)
        self._pos = 24
        linktype = network & 0x03FFFFFF  # upper bits may carry FCS information
        self.linktypes.add(linktype)
        return endian, scale, linktype, max(snaplen, 262144) if snaplen <= MAX_RECORD else MAX_RECORD

    def _check_section_header(self) -> None:
        if not self._need(28):
            raise CaptureFormatError(f"{self.name}: pcapng section header is truncated")
        bom = self._buf[self._pos + 8:self._pos + 12]
        if bom not in _PCAPNG_BOM:
            raise CaptureFormatError(f"{self.name}: pcapng section header has no valid byte-order magic")
        (length,) = struct.unpack_from(_PCAPNG_BOM[bom] + "I", self._buf, self._pos + 4)
        if length < 28 or length % 4 or length > MAX_RECORD:
            raise CaptureFormatError(f"{self.name}: pcapng section header has an invalid length {length}")

    def _pcap(self, endian: str, scale: float, linktype: int, max_record: int
              ) -> Iterator[tuple[int, float, int, bytes]]:
        record = struct.Struct(endian + "IIII").unpack_from
        number = 0
        buf, pos = self._buf, self._pos  # kept local in the loop; written back before each refill
        size = len(buf)
        while True:
            if size - pos < 16:
                self._pos = pos
                if not self._need(16):
                    if len(self._buf) > self._pos:
                        self._truncated("has a partial 16-byte record header")
                    return
                buf, pos = self._buf, self._pos
                size = len(buf)
            seconds, fraction, caplen, _ = record(buf, pos)
            if caplen > max_record:
                self._pos = pos
                self.warnings.append((number + 1, f"packet {number + 1} claims {caplen} captured bytes, above "
                                                  f"the {max_record}-byte snap length: the file is corrupt from "
                                                  f"byte {self._stream_offset()}; reading stopped"))
                return
            end = pos + 16 + caplen
            if end > size:
                self._pos = pos
                if not self._need(16 + caplen):
                    self._truncated(f"needs {caplen} bytes of data")
                    return
                buf, pos = self._buf, self._pos
                size = len(buf)
                end = pos + 16 + caplen
            number += 1
            self.packets = number
            yield number, seconds + fraction * scale, linktype, buf[pos + 16:end]
            pos = end

    def _stream_offset(self) -> int:
        try:
            return self._stream.tell() - (len(self._buf) - self._pos)
        except (OSError, ValueError):
            return -1

    def _pcapng(self) -> Iterator[tuple[int, float, int, bytes]]:
        endian = ">"
        block_header = struct.Struct(">II")
        interfaces: list[tuple[int, float, int, float]] = []  # (linktype, scale, snaplen, offset)
        number = 0
        while True:
            if not self._need(12):
                if len(self._buf) > self._pos:
                    self._truncated("(a pcapng block) has a partial block header")
                return
            buf, pos = self._buf, self._pos
            if buf[pos:pos + 4] == _PCAPNG_SHB:
                bom = buf[pos + 8:pos + 12]
                if bom not in _PCAPNG_BOM:
                    self.warnings.append((number + 1, f"a pcapng section header after packet {number} has no valid "
                                                      "byte-order magic: the file is corrupt; reading stopped"))
                    return
                endian = _PCAPNG_BOM[bom]
                block_header = struct.Struct(endian + "II")
                interfaces = []  # interface ids are per section
            block_type, block_len = block_header.unpack_from(buf, pos)
            if block_len < 12 or block_len % 4 or block_len > MAX_RECORD:
                self.warnings.append((number + 1, f"pcapng block after packet {number} has an invalid length "
                                                  f"{block_len}: the file is corrupt; reading stopped"))
                return
            if not self._need(block_len):
                self._truncated(f"(a pcapng block of {block_len} bytes) is cut short")
                return
            buf, pos = self._buf, self._pos
            self._pos = pos + block_len
            body = pos + 8
            if block_len < _PCAPNG_MIN_LENGTH.get(block_type, 12):
                self.warnings.append((number + 1, f"pcapng block of type {block_type} after packet {number} is "
                                                  f"{block_len} bytes, too short for its own fields; block skipped"))
                continue
            if block_type == _PCAPNG_EPB or block_type == _PCAPNG_PB:
                if block_type == _PCAPNG_EPB:
                    iface, ts_high, ts_low, caplen, _ = struct.unpack_from(endian + "IIIII", buf, body)
                else:
                    iface, _, ts_high, ts_low, caplen, _ = struct.unpack_from(endian + "HHIIII", buf, body)
                data_at = body + 20
                if iface >= len(interfaces):
                    self.warnings.append((number + 1, f"packet {number + 1} names interface {iface}, which no "
                                                      "interface description block declared; packet skipped"))
                    number += 1
                    continue
                caplen = min(caplen, block_len - 32)
            elif block_type == _PCAPNG_SPB:
                if not interfaces:
                    continue
                (orig_len,) = struct.unpack_from(endian + "I", buf, body)
                iface, ts_high, ts_low, data_at = 0, 0, 0, body + 4
                snaplen = interfaces[0][2]
                caplen = min(orig_len, block_len - 16, snaplen or orig_len)
            else:
                if block_type == _PCAPNG_IDB:
                    interfaces.append(self._interface(buf, body, pos + block_len - 4, endian))
                continue
            linktype, scale, _, offset = interfaces[iface]
            number += 1
            self.packets = number
            yield number, ((ts_high << 32) | ts_low) * scale + offset, linktype, buf[data_at:data_at + caplen]

    def _interface(self, buf: bytes, body: int, end: int, endian: str) -> tuple[int, float, int, float]:
        linktype, _, snaplen = struct.unpack_from(endian + "HHI", buf, body)
        self.linktypes.add(linktype)
        scale, offset = 1e-6, 0.0
        at = body + 8
        while at + 4 <= end:
            code, length = struct.unpack_from(endian + "HH", buf, at)
            if code == 0 or at + 4 + length > end:  # end of options, or an option running past its block
                break
            value = buf[at + 4:at + 4 + length]
            if code == 9 and length >= 1:  # if_tsresol
                scale = 2.0 ** -(value[0] & 0x7F) if value[0] & 0x80 else 10.0 ** -value[0]
            elif code == 14 and length == 8:  # if_tsoffset
                offset = float(struct.unpack(endian + "q", value)[0])
            at += 4 + ((length + 3) & ~3)
        return linktype, scale, snaplen, offset


def open_capture(path: str) -> tuple[CaptureReader, BinaryIO]:
    """A reader over the file at ``path`` and the open file (the caller closes it). The file must be a
    regular one (a FIFO or a device is refused with one line: it could block or never end)."""
    from kdiag.inputfile import open_input

    stream = open_input(path, what="", limit=None)
    try:
        return CaptureReader(stream, name=path), stream
    except BaseException:
        stream.close()
        raise


# --- link, IP and TCP headers --------------------------------------------------------------------

_TCP_HEAD = struct.Struct(">HHIIBB")


def parse_tcp(linktype: int, data: bytes) -> tuple | None:
    """Takes one captured frame apart down to TCP.

    Returns ``(src, dst, sport, dport, seq, ack, flags, payload, missing)`` where ``src``/``dst``
    are the packed IP addresses (4 or 16 bytes) and ``missing`` is how many payload bytes the
    capture cut off (snap length), or None for anything that is not an unfragmented TCP segment.
    An ICMP/ICMPv6 destination-unreachable about a TCP segment comes back as the quoted segment
    (client to server) with ``flags`` set to :data:`ICMP_PORT_UNREACHABLE` or
    :data:`ICMP_UNREACHABLE`, so the connection learns the network answered its SYN.
    """
    n = len(data)
    if linktype == LINKTYPE_ETHERNET:
        if n < 14:
            return None
        ethertype = data[12] << 8 | data[13]
        if ethertype == _ETH_IPV4 and n >= 54 and data[14] == 0x45 and data[23] == _PROTO_TCP \
                and not (data[20] & 0x3F or data[21]):
            # The common case inline (Ethernet, IPv4 without options, TCP): what _ipv4 and _tcp do.
            total = data[16] << 8 | data[17]
            end = 14 + total if total >= 20 else n
            sport, dport, seq, ack, offset, flags = _TCP_HEAD.unpack_from(data, 34)
            start = 34 + (offset >> 4) * 4
            if end > n:
                return data[26:30], data[30:34], sport, dport, seq, ack, flags, data[start:], end - max(start, n)
            return data[26:30], data[30:34], sport, dport, seq, ack, flags, data[start:end], 0
        at = 14
        while ethertype in _VLAN_TAGS:
            if n < at + 4:
                return None
            ethertype = data[at + 2] << 8 | data[at + 3]
            at += 4
        if ethertype == _ETH_IPV4:
            return _ipv4(data, at)
        if ethertype == _ETH_IPV6:
            return _ipv6(data, at)
        return None
    if linktype == LINKTYPE_LINUX_SLL or linktype == LINKTYPE_LINUX_SLL2:
        if linktype == LINKTYPE_LINUX_SLL:
            if n < 16:
                return None
            protocol, at = data[14] << 8 | data[15], 16
        else:
            if n < 20:
                return None
            protocol, at = data[0] << 8 | data[1], 20
        if protocol == _ETH_IPV4:
            return _ipv4(data, at)
        if protocol == _ETH_IPV6:
            return _ipv6(data, at)
        return None
    if linktype in _RAW_LINKTYPES:
        at = 0
    elif linktype == LINKTYPE_NULL or linktype == LINKTYPE_LOOP:
        if n < 4:
            return None
        family = struct.unpack_from(">I" if linktype == LINKTYPE_LOOP else "<I", data)[0]
        if linktype == LINKTYPE_NULL and family > 0xFFFF:  # written on a big-endian host
            family = struct.unpack_from(">I", data)[0]
        if family == 2:
            return _ipv4(data, 4)
        if family in _AF_INET6_VALUES:
            return _ipv6(data, 4)
        return None
    else:
        return None
    if n <= at:
        return None
    version = data[at] >> 4
    if version == 4:
        return _ipv4(data, at)
    if version == 6:
        return _ipv6(data, at)
    return None


# ``flags`` of an ICMP "destination unreachable" about a TCP segment (never valid TCP flags)
ICMP_PORT_UNREACHABLE = -1  # what iptables REJECT sends by default: the client sees "refused"
ICMP_UNREACHABLE = -2  # no route to the host or network, or administratively prohibited


def _ipv4(data: bytes, at: int, *, quoted: bool = False) -> tuple | None:
    if len(data) < at + 20 or data[at] >> 4 != 4:
        return None
    ihl = (data[at] & 0x0F) * 4
    total = data[at + 2] << 8 | data[at + 3]
    if ihl < 20 or (data[at + 6] & 0x3F) or data[at + 7]:  # a fragment (MF set or offset != 0)
        return None
    protocol = data[at + 9]
    end = at + total if total >= ihl else len(data)  # total 0: TSO capture, trust the frame
    src, dst = data[at + 12:at + 16], data[at + 16:at + 20]
    if protocol == _PROTO_TCP:
        return _tcp(data, at + ihl, end, src, dst, quoted)
    if protocol == _PROTO_ICMP and not quoted and len(data) >= at + ihl + 8 and data[at + ihl] == 3:
        return _icmp_unreachable(_ipv4(data, at + ihl + 8, quoted=True), data[at + ihl + 1] == 3)
    return None


def _ipv6(data: bytes, at: int, *, quoted: bool = False) -> tuple | None:
    if len(data) < at + 40 or data[at] >> 4 != 6:
        return None
    payload_len = data[at + 4] << 8 | data[at + 5]
    header = data[at + 6]
    src, dst = data[at + 8:at + 24], data[at + 24:at + 40]
    end = at + 40 + payload_len if payload_len else len(data)  # 0: jumbogram or TSO
    at += 40
    for _ in range(8):  # a chain longer than this is hostile, not real
        if header == _PROTO_TCP:
            return _tcp(data, at, end, src, dst, quoted)
        if header == _PROTO_ICMPV6:
            if quoted or len(data) < at + 8 or data[at] != 1:
                return None
            return _icmp_unreachable(_ipv6(data, at + 8, quoted=True), data[at + 1] == 4)
        if len(data) < at + 8:
            return None
        if header in _IPV6_EXTENSIONS:
            header, at = data[at], at + (data[at + 1] + 1) * 8
        elif header == _IPV6_FRAGMENT:
            if (data[at + 2] << 8 | data[at + 3]) & 0xFFF9:  # offset != 0 or more fragments
                return None
            header, at = data[at], at + 8
        elif header == _IPV6_AH:
            header, at = data[at], at + (data[at + 1] + 2) * 4
        else:  # ESP, no next header, or an unknown protocol
            return None
    return None


def _tcp(data: bytes, at: int, end: int, src: bytes, dst: bytes, quoted: bool) -> tuple | None:
    if quoted:  # an ICMP error quotes at least the first 8 bytes: ports and sequence number
        if len(data) < at + 8:
            return None
        sport, dport, seq = struct.unpack_from(">HHI", data, at)
        return src, dst, sport, dport, seq, 0, 0, b"", 0
    if len(data) < at + 20:
        return None
    sport, dport, seq, ack, offset, flags = _TCP_HEAD.unpack_from(data, at)
    start = at + (offset >> 4) * 4
    if end > len(data):
        return src, dst, sport, dport, seq, ack, flags, data[start:], end - max(start, len(data))
    return src, dst, sport, dport, seq, ack, flags, data[start:end], 0


def _icmp_unreachable(quoted: tuple | None, port_unreachable: bool) -> tuple | None:
    if quoted is None:
        return None
    src, dst, sport, dport, seq = quoted[:5]
    flags = ICMP_PORT_UNREACHABLE if port_unreachable else ICMP_UNREACHABLE
    return src, dst, sport, dport, seq, 0, flags, b"", 0


def address_text(packed: bytes) -> str:
    return socket.inet_ntop(socket.AF_INET if len(packed) == 4 else socket.AF_INET6, packed)


# --- writing ------------------------------------------------------------------------------------


class PcapWriter:
    """Writes a classic little-endian microsecond pcap that tcpdump, Wireshark and tshark open."""

    def __init__(self, stream: BinaryIO, linktype: int = LINKTYPE_ETHERNET, *, snaplen: int = 262144,
                 nanoseconds: bool = False) -> None:
        self._stream = stream
        self._scale = 1e9 if nanoseconds else 1e6
        self.linktype = linktype
        magic = 0xA1B23C4D if nanoseconds else 0xA1B2C3D4
        stream.write(struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype))
        self._record = struct.Struct("<IIII")

    def write(self, timestamp: float, data: bytes, *, orig_len: int | None = None) -> None:
        seconds = int(timestamp)
        fraction = int(round((timestamp - seconds) * self._scale))
        if fraction >= self._scale:
            seconds, fraction = seconds + 1, 0
        self._stream.write(self._record.pack(seconds, fraction, len(data), orig_len or len(data)))
        self._stream.write(data)

    def flush(self) -> None:
        self._stream.flush()


class PcapngWriter:
    """A minimal little-endian pcapng writer: one section, any number of interfaces, EPB/SPB."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._interfaces: list[int] = []
        self._block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))

    def _block(self, block_type: int, body: bytes) -> None:
        body += b"\0" * (-len(body) % 4)
        length = len(body) + 12
        self._stream.write(struct.pack("<II", block_type, length) + body + struct.pack("<I", length))

    def add_interface(self, linktype: int, *, snaplen: int = 262144, tsresol: int | None = None) -> int:
        options = b""
        if tsresol is not None:
            options = struct.pack("<HHB3x", 9, 1, tsresol) + struct.pack("<HH", 0, 0)
        self._block(_PCAPNG_IDB, struct.pack("<HHI", linktype, 0, snaplen) + options)
        self._interfaces.append(tsresol if tsresol is not None else 6)
        return len(self._interfaces) - 1

    def write(self, interface: int, timestamp: float, data: bytes) -> None:
        resolution = self._interfaces[interface]
        units = int(round(timestamp * (2 ** (resolution & 0x7F) if resolution & 0x80 else 10 ** resolution)))
        body = struct.pack("<IIIII", interface, units >> 32, units & 0xFFFFFFFF, len(data), len(data)) + data
        self._block(_PCAPNG_EPB, body)

    def write_simple(self, data: bytes) -> None:
        self._block(_PCAPNG_SPB, struct.pack("<I", len(data)) + data)


# --- building frames (for --pcap-out conversion, tests and benchmarks) --------------------------


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def build_tcp(src: str, dst: str, sport: int, dport: int, *, seq: int = 0, ack: int = 0, flags: int = ACK | PSH,
              payload: bytes = b"", window: int = 65535, linktype: int = LINKTYPE_ETHERNET,
              ip_id: int = 0, checksum: bool = True) -> bytes:
    """One TCP segment inside IPv4 or IPv6 (chosen by the address) inside the given link layer.
    ``checksum=False`` leaves the TCP checksum 0 (as a capture with checksum offload shows it)."""
    v6 = ":" in src
    family = socket.AF_INET6 if v6 else socket.AF_INET
    s, d = socket.inet_pton(family, src), socket.inet_pton(family, dst)
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags, window, 0, 0)
    if v6:
        pseudo = s + d + struct.pack(">IxxxB", len(tcp) + len(payload), _PROTO_TCP)
    else:
        pseudo = s + d + struct.pack(">xBH", _PROTO_TCP, len(tcp) + len(payload))
    if checksum:
        tcp = tcp[:16] + struct.pack(">H", _checksum(pseudo + tcp + payload)) + tcp[18:]
    if v6:
        ip = struct.pack(">IHBB", 6 << 28, len(tcp) + len(payload), _PROTO_TCP, 64) + s + d
    else:
        header = struct.pack(">BBHHHBBH", 0x45, 0, 20 + len(tcp) + len(payload), ip_id & 0xFFFF, 0x4000, 64,
                             _PROTO_TCP, 0) + s + d
        ip = header[:10] + struct.pack(">H", _checksum(header)) + header[12:]
    return link_header(linktype, _ETH_IPV6 if v6 else _ETH_IPV4) + ip + tcp + payload


def link_header(linktype: int, ethertype: int) -> bytes:
    """The link-layer header that carries an IP packet of ``ethertype`` (0x0800/0x86DD)."""
    if linktype == LINKTYPE_ETHERNET:
        return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + struct.pack(">H", ethertype)
    if linktype == LINKTYPE_LINUX_SLL:
        return struct.pack(">HHH8sH", 0, 772, 6, b"", ethertype)
    if linktype == LINKTYPE_LINUX_SLL2:
        return struct.pack(">HHIHBB8s", ethertype, 0, 1, 772, 0, 6, b"")
    if linktype == LINKTYPE_NULL:
        return struct.pack("<I", 30 if ethertype == _ETH_IPV6 else 2)
    if linktype == LINKTYPE_LOOP:
        return struct.pack(">I", 24 if ethertype == _ETH_IPV6 else 2)
    if linktype in _RAW_LINKTYPES:
        return b""
    raise ValueError(f"cannot build link type {linktype}")


def to_linux_sll(linktype: int, data: bytes) -> bytes | None:
    """Re-frames a captured packet as Linux cooked (SLL), so packets of several link types can
    share one pcap file; None when the packet carries no IP."""
    if linktype == LINKTYPE_LINUX_SLL:
        return data
    if linktype == LINKTYPE_ETHERNET and len(data) >= 14:
        ethertype, at = data[12] << 8 | data[13], 14
        while ethertype in _VLAN_TAGS and len(data) >= at + 4:
            ethertype, at = data[at + 2] << 8 | data[at + 3], at + 4
    elif linktype == LINKTYPE_LINUX_SLL2 and len(data) >= 20:
        ethertype, at = data[0] << 8 | data[1], 20
    elif linktype in _RAW_LINKTYPES and data:
        ethertype, at = {4: _ETH_IPV4, 6: _ETH_IPV6}.get(data[0] >> 4, 0), 0
    else:
        return None
    if ethertype not in (_ETH_IPV4, _ETH_IPV6):
        return None
    return link_header(LINKTYPE_LINUX_SLL, ethertype) + data[at:]
