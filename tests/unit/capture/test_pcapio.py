"""The raw capture reader and the link/IP/TCP parser: formats, link types, damage."""

from __future__ import annotations

import io
import struct

import pytest

from kdiag.capture import pcapio
from kdiag.capture.pcapio import (
    ACK,
    ICMP_PORT_UNREACHABLE,
    ICMP_UNREACHABLE,
    LINKTYPE_ETHERNET,
    LINKTYPE_LINUX_SLL,
    LINKTYPE_LINUX_SLL2,
    LINKTYPE_LOOP,
    LINKTYPE_NULL,
    LINKTYPE_RAW,
    PSH,
    SYN,
    CaptureFormatError,
    CaptureReader,
    PcapngWriter,
    PcapWriter,
    address_text,
    build_tcp,
    parse_tcp,
    to_linux_sll,
)
from kdiag.capture.synthetic import icmp_unreachable

SEGMENT = build_tcp("192.0.2.10", "192.0.2.1", 50000, 9092, seq=7, ack=9, payload=b"kafka")


def pcap_bytes(packets, *, linktype=LINKTYPE_ETHERNET, nanoseconds=False) -> bytes:
    out = io.BytesIO()
    writer = PcapWriter(out, linktype, nanoseconds=nanoseconds)
    for timestamp, frame in packets:
        writer.write(timestamp, frame)
    return out.getvalue()


def read_all(data: bytes) -> tuple[list, CaptureReader]:
    reader = CaptureReader(io.BytesIO(data))
    return list(reader), reader


# --- pcap -------------------------------------------------------------------------------------


def test_pcap_round_trips_packets_with_numbers_timestamps_and_link_type():
    packets, reader = read_all(pcap_bytes([(1700000000.25, SEGMENT), (1700000001.5, SEGMENT)]))
    assert reader.format == "pcap"
    assert [(n, round(ts, 6), link, data) for n, ts, link, data in packets] == [
        (1, 1700000000.25, LINKTYPE_ETHERNET, SEGMENT), (2, 1700000001.5, LINKTYPE_ETHERNET, SEGMENT)]
    assert reader.warnings == []


def test_nanosecond_pcap_keeps_sub_microsecond_timestamps():
    packets, _ = read_all(pcap_bytes([(1700000000.123456789, SEGMENT)], nanoseconds=True))
    assert packets[0][1] == pytest.approx(1700000000.123456789, abs=1e-6)


def test_big_endian_pcap_is_read_like_little_endian():
    header = struct.pack(">IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_ETHERNET)
    record = struct.pack(">IIII", 1700000000, 500000, len(SEGMENT), len(SEGMENT)) + SEGMENT
    packets, _ = read_all(header + record)
    assert packets == [(1, 1700000000.5, LINKTYPE_ETHERNET, SEGMENT)]


def test_reader_streams_in_chunks_across_buffer_boundaries(monkeypatch):
    monkeypatch.setattr(pcapio, "_CHUNK", 37)  # records straddle every refill
    frames = [build_tcp("192.0.2.10", "192.0.2.1", 50000, 9092, seq=i, payload=bytes([i]) * i) for i in range(1, 40)]
    packets, _ = read_all(pcap_bytes([(1.0 + i, f) for i, f in enumerate(frames)]))
    assert [p[3] for p in packets] == frames


def test_file_that_is_not_a_capture_is_one_line_format_error():
    with pytest.raises(CaptureFormatError) as error:
        CaptureReader(io.BytesIO(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"), name="notes.txt")
    assert str(error.value) == ("notes.txt: not a pcap or pcapng capture (starts with 'GET / HTTP/1.1..', "
                                "magic 47455420)")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("data", [b"", b"\xd4\xc3"], ids=["empty", "two-bytes"])
def test_empty_or_tiny_file_is_a_format_error(data):
    with pytest.raises(CaptureFormatError, match="not a pcap or pcapng capture"):
        CaptureReader(io.BytesIO(data))


def test_pcap_with_truncated_global_header_is_a_format_error():
    with pytest.raises(CaptureFormatError, match="pcap file header is truncated"):
        CaptureReader(io.BytesIO(pcap_bytes([])[:10]))


def test_truncated_last_packet_stops_reading_with_a_warning_naming_it():
    data = pcap_bytes([(1.0, SEGMENT), (2.0, SEGMENT), (3.0, SEGMENT)])
    packets, reader = read_all(data[:-10])
    assert len(packets) == 2
    assert reader.warnings == [(3, f"the capture is truncated: packet 3 needs {len(SEGMENT)} bytes of data, "
                                   f"only {16 + len(SEGMENT) - 10} bytes left in the file; reading stopped")]


def test_truncated_record_header_stops_reading_with_a_warning():
    data = pcap_bytes([(1.0, SEGMENT), (2.0, SEGMENT)])
    packets, reader = read_all(data[:24 + 16 + len(SEGMENT) + 5])
    assert len(packets) == 1
    assert reader.warnings[0][0] == 2 and "partial 16-byte record header" in reader.warnings[0][1]


def test_corrupt_record_length_stops_reading_instead_of_allocating_it():
    data = bytearray(pcap_bytes([(1.0, SEGMENT), (2.0, SEGMENT)]))
    struct.pack_into("<I", data, 24 + 16 + len(SEGMENT) + 8, 0x7FFFFFFF)  # packet 2's incl_len
    packets, reader = read_all(bytes(data))
    assert len(packets) == 1
    assert reader.warnings[0][0] == 2 and "claims 2147483647 captured bytes" in reader.warnings[0][1]


# --- pcapng ----------------------------------------------------------------------------------------


def test_pcapng_with_two_interfaces_of_different_link_types_and_resolutions():
    out = io.BytesIO()
    writer = PcapngWriter(out)
    ethernet = writer.add_interface(LINKTYPE_ETHERNET)
    cooked = writer.add_interface(LINKTYPE_LINUX_SLL, tsresol=9)
    sll_frame = build_tcp("192.0.2.10", "192.0.2.1", 50001, 9092, payload=b"x", linktype=LINKTYPE_LINUX_SLL)
    writer.write(ethernet, 1700000000.5, SEGMENT)
    writer.write(cooked, 1700000001.000000250, sll_frame)
    packets, reader = read_all(out.getvalue())
    assert reader.format == "pcapng"
    assert [(n, link, data) for n, _, link, data in packets] == [
        (1, LINKTYPE_ETHERNET, SEGMENT), (2, LINKTYPE_LINUX_SLL, sll_frame)]
    assert packets[0][1] == pytest.approx(1700000000.5)
    assert packets[1][1] == pytest.approx(1700000001.00000025, abs=1e-6)
    assert parse_tcp(LINKTYPE_LINUX_SLL, packets[1][3])[2] == 50001


def test_pcapng_simple_packet_block_uses_the_first_interface():
    out = io.BytesIO()
    writer = PcapngWriter(out)
    writer.add_interface(LINKTYPE_ETHERNET)
    writer.write_simple(SEGMENT)
    packets, _ = read_all(out.getvalue())
    assert [(n, link, data) for n, _, link, data in packets] == [(1, LINKTYPE_ETHERNET, SEGMENT)]


def test_pcapng_skips_unknown_blocks_and_reads_a_second_section():
    out = io.BytesIO()
    writer = PcapngWriter(out)
    writer.add_interface(LINKTYPE_ETHERNET)
    writer._block(0x00000BAD, b"custom block body")  # noqa: SLF001 - a block kdiag does not know
    writer.write(0, 1.0, SEGMENT)
    second = PcapngWriter(out)  # a new section restarts interface numbering
    second.add_interface(LINKTYPE_RAW)
    raw = build_tcp("192.0.2.10", "192.0.2.1", 50002, 9092, payload=b"y", linktype=LINKTYPE_RAW)
    second.write(0, 2.0, raw)
    packets, reader = read_all(out.getvalue())
    assert [(link, data) for _, _, link, data in packets] == [(LINKTYPE_ETHERNET, SEGMENT), (LINKTYPE_RAW, raw)]
    assert reader.warnings == []


def test_truncated_pcapng_block_stops_with_a_warning():
    out = io.BytesIO()
    writer = PcapngWriter(out)
    writer.add_interface(LINKTYPE_ETHERNET)
    writer.write(0, 1.0, SEGMENT)
    writer.write(0, 2.0, SEGMENT)
    packets, reader = read_all(out.getvalue()[:-8])
    assert len(packets) == 1
    assert reader.warnings[0][0] == 2 and "truncated" in reader.warnings[0][1]


def test_pcapng_packet_naming_an_undeclared_interface_is_skipped_with_a_warning():
    out = io.BytesIO()
    writer = PcapngWriter(out)
    writer.add_interface(LINKTYPE_ETHERNET)
    writer._interfaces.append(6)  # noqa: SLF001 - write for interface 1 without declaring it
    writer.write(1, 1.0, SEGMENT)
    writer.write(0, 2.0, SEGMENT)
    packets, reader = read_all(out.getvalue())
    assert [n for n, *_ in packets] == [2]
    assert reader.warnings == [(1, "packet 1 names interface 1, which no interface description block declared; "
                                   "packet skipped")]


# --- link layers, IP, TCP -------------------------------------------------------------------------------


@pytest.mark.parametrize("linktype", [LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2, LINKTYPE_RAW,
                                      LINKTYPE_NULL, LINKTYPE_LOOP])
@pytest.mark.parametrize("src,dst", [("192.0.2.10", "192.0.2.1"), ("2001:db8::10", "2001:db8::1")],
                         ids=["ipv4", "ipv6"])
def test_every_link_type_and_ip_version_yields_the_tcp_segment(linktype, src, dst):
    frame = build_tcp(src, dst, 50000, 9092, seq=123, ack=456, flags=ACK | PSH, payload=b"payload",
                      linktype=linktype)
    got = parse_tcp(linktype, frame)
    assert (address_text(got[0]), address_text(got[1])) == (src, dst)
    assert got[2:] == (50000, 9092, 123, 456, ACK | PSH, b"payload", 0)


def test_null_link_type_written_on_a_big_endian_host():
    frame = build_tcp("192.0.2.10", "192.0.2.1", 1, 2, payload=b"z", linktype=LINKTYPE_RAW)
    assert parse_tcp(LINKTYPE_NULL, struct.pack(">I", 2) + frame)[7] == b"z"


def test_ethernet_vlan_and_qinq_tags_are_skipped():
    frame = build_tcp("192.0.2.10", "192.0.2.1", 1, 2, payload=b"v")
    tagged = frame[:12] + b"\x88\xa8\x00\x01" + b"\x81\x00\x00\x64" + frame[12:]  # QinQ: outer, inner
    assert parse_tcp(LINKTYPE_ETHERNET, tagged)[7] == b"v"


def test_ethernet_padding_after_the_ip_packet_is_not_payload():
    frame = build_tcp("192.0.2.10", "192.0.2.1", 1, 2, flags=SYN)
    assert parse_tcp(LINKTYPE_ETHERNET, frame + b"\0" * 6)[7] == b""


def test_ipv6_extension_headers_are_walked_to_tcp():
    frame = build_tcp("2001:db8::10", "2001:db8::1", 50000, 9092, payload=b"six", linktype=LINKTYPE_RAW)
    fixed, tcp = frame[:40], frame[40:]
    hop_by_hop = bytes([60, 0]) + b"\x01\x04\0\0\0\0"  # next: destination options; 8 bytes (PadN)
    destination = bytes([44, 0]) + b"\x01\x04\0\0\0\0"  # next: fragment
    fragment = bytes([6, 0, 0, 0]) + b"\0\0\0\x01"  # offset 0, no more fragments: a whole packet
    extensions = hop_by_hop + destination + fragment
    header = bytearray(fixed)
    header[6] = 0  # next header: hop-by-hop
    struct.pack_into(">H", header, 4, len(extensions) + len(tcp))
    got = parse_tcp(LINKTYPE_RAW, bytes(header) + extensions + tcp)
    assert got[2:4] == (50000, 9092) and got[7] == b"six"


def test_ipv6_esp_and_later_fragments_are_not_tcp():
    frame = bytearray(build_tcp("2001:db8::10", "2001:db8::1", 1, 2, payload=b"x", linktype=LINKTYPE_RAW))
    frame[6] = 50  # ESP: encrypted, nothing to read
    assert parse_tcp(LINKTYPE_RAW, bytes(frame)) is None


def test_ipv4_fragments_are_skipped():
    frame = bytearray(build_tcp("192.0.2.10", "192.0.2.1", 1, 2, payload=b"x", linktype=LINKTYPE_RAW))
    frame[6] = 0x20  # more fragments
    assert parse_tcp(LINKTYPE_RAW, bytes(frame)) is None


def test_snap_length_cut_reports_the_missing_payload_bytes():
    frame = build_tcp("192.0.2.10", "192.0.2.1", 1, 2, payload=b"a" * 100)
    got = parse_tcp(LINKTYPE_ETHERNET, frame[:-30])
    assert got[7] == b"a" * 70 and got[8] == 30


def test_non_tcp_and_garbage_frames_are_none():
    udp = bytearray(build_tcp("192.0.2.10", "192.0.2.1", 1, 2, linktype=LINKTYPE_RAW))
    udp[9] = 17
    assert parse_tcp(LINKTYPE_RAW, bytes(udp)) is None
    assert parse_tcp(LINKTYPE_ETHERNET, b"\xff" * 20) is None
    assert parse_tcp(LINKTYPE_ETHERNET, b"") is None
    assert parse_tcp(147, SEGMENT) is None  # a link type kdiag does not read


@pytest.mark.parametrize("v6,code,flags", [(False, 3, ICMP_PORT_UNREACHABLE), (False, 1, ICMP_UNREACHABLE),
                                           (True, 4, ICMP_PORT_UNREACHABLE), (True, 0, ICMP_UNREACHABLE)])
def test_icmp_unreachable_about_a_syn_names_the_quoted_connection(v6, code, flags):
    src, dst = ("2001:db8::10", "2001:db8::1") if v6 else ("192.0.2.10", "192.0.2.1")
    syn = build_tcp(src, dst, 50000, 9092, seq=99, flags=SYN, linktype=LINKTYPE_RAW)
    got = parse_tcp(LINKTYPE_RAW, icmp_unreachable(syn, v6=v6, code=code))
    assert (address_text(got[0]), address_text(got[1]), got[2], got[3], got[4], got[6]) == (
        src, dst, 50000, 9092, 99, flags)


def test_to_linux_sll_reframes_ethernet_and_raw_ip():
    raw = build_tcp("192.0.2.10", "192.0.2.1", 1, 2, payload=b"s", linktype=LINKTYPE_RAW)
    for linktype in (LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LINUX_SLL2):
        frame = build_tcp("192.0.2.10", "192.0.2.1", 1, 2, payload=b"s", linktype=linktype)
        cooked = to_linux_sll(linktype, frame)
        assert cooked[16:] == raw and parse_tcp(LINKTYPE_LINUX_SLL, cooked)[7] == b"s"
    assert to_linux_sll(LINKTYPE_ETHERNET, b"\0" * 12 + b"\x08\x06" + b"\0" * 28) is None  # ARP
