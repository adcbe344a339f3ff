"""The raw live-capture backend without a network: the BPF filter libpcap compiles for it, the bounded
ring between its reader and the analysis, and what it reports when packets are lost.

A compiled filter is checked by running it: libpcap's own userspace BPF interpreter (``bpf_filter``)
takes the same ``struct bpf_insn[]`` the kernel is given, so these tests see what the socket will keep.
"""

from __future__ import annotations

import ctypes
import socket
import struct
import subprocess
import sys
import threading

import pytest

from kdiag.capture import rawsock
from kdiag.capture.live import bpf_filter
from kdiag.capture.pcapio import LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_RAW, SYN, CaptureError, build_tcp
from kdiag.capture.synthetic import icmp_unreachable

SKF_AD_PKTTYPE = 0xFFFFF004  # SKF_AD_OFF + SKF_AD_PKTTYPE: the kernel's "packet type" load
BPF_LD_ABS_H = 0x28  # BPF_LD | BPF_H | BPF_ABS
BPF_RET_K = 0x06


def instructions(program: bytes) -> list[tuple[int, int, int, int]]:
    return list(struct.iter_unpack("=HBBI", program))


def keeps(program: bytes, frame: bytes) -> bool:
    """Runs ``program`` over ``frame`` in libpcap's BPF interpreter: True when the filter accepts it."""
    pcap = rawsock.libpcap()
    pcap.bpf_filter.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint, ctypes.c_uint]
    pcap.bpf_filter.restype = ctypes.c_uint
    return pcap.bpf_filter(program, frame, len(frame), len(frame)) != 0


def udp_frame() -> bytes:
    """An Ethernet/IPv4/UDP datagram (DNS), which the capture must not take."""
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28, 0, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + struct.pack(">HHHH", 5353, 53, 8, 0)


# --- the BPF filter, compiled by libpcap -----------------------------------------------------------------


def test_kdiag_filter_compiles_for_ethernet_and_keeps_tcp_to_the_broker_but_not_udp():
    program = rawsock.compile_filter(bpf_filter((9092,), loopback=False), dlt=rawsock.DLT_EN10MB)
    assert len(program) % 8 == 0 and instructions(program)[-1][0] == BPF_RET_K
    assert keeps(program, build_tcp("10.0.0.1", "10.0.0.2", 40000, 9092, flags=SYN))
    assert keeps(program, build_tcp("10.0.0.2", "10.0.0.1", 9092, 40000))  # the broker's answer
    assert keeps(program, build_tcp("fd00::1", "fd00::2", 40000, 9092, flags=SYN))
    assert not keeps(program, build_tcp("10.0.0.1", "10.0.0.2", 40000, 22))
    assert not keeps(program, udp_frame())


def test_kdiag_filter_for_bare_ip_keeps_tcp_and_the_icmp_unreachable_answering_a_syn():
    program = rawsock.compile_filter(bpf_filter((), loopback=False), dlt=rawsock.DLT_RAW)
    syn = build_tcp("10.0.0.1", "10.0.0.2", 40000, 9092, flags=SYN, linktype=LINKTYPE_RAW)
    assert keeps(program, syn)
    assert keeps(program, icmp_unreachable(syn, v6=False, code=3))
    assert not keeps(program, udp_frame()[14:])


def test_loopback_filter_keeps_inbound_copies_by_the_kernel_packet_type():
    """Every loopback packet reaches a packet socket twice; ``inbound`` makes the kernel drop the
    outgoing copy: libpcap compiles it to a load of the packet type, first thing in the program."""
    program = rawsock.compile_filter(bpf_filter((9092,), loopback=True), dlt=rawsock.DLT_EN10MB)
    code, _, _, k = instructions(program)[0]
    assert (code, k) == (BPF_LD_ABS_H, SKF_AD_PKTTYPE)


def test_a_filter_that_does_not_compile_is_one_line_with_libpcaps_reason():
    with pytest.raises(rawsock.FilterError) as error:
        rawsock.compile_filter("tcp and (port 9092", dlt=rawsock.DLT_EN10MB)
    assert isinstance(error.value, CaptureError)  # kdiag's boundary prints it as one line, exit 2
    message = str(error.value)
    assert message.startswith("the capture filter 'tcp and (port 9092' does not compile: ")
    assert message.endswith("syntax error") and "\n" not in message  # libpcap 1.10: "can't parse ...: syntax error"


def test_missing_libpcap_is_one_line_saying_what_to_install(monkeypatch):
    rawsock.libpcap.cache_clear()
    monkeypatch.setattr(rawsock, "_LIBPCAP_SONAMES", ("libpcap-kdiag-absent.so.9",))
    monkeypatch.setattr("ctypes.util.find_library", lambda name: None)
    try:
        with pytest.raises(CaptureError, match=r"^live capture needs libpcap .*apt-get install libpcap0\.8"):
            rawsock.compile_filter("tcp", dlt=rawsock.DLT_EN10MB)
    finally:
        rawsock.libpcap.cache_clear()


def test_the_kernel_is_given_a_sock_fprog_pointing_at_the_instructions():
    program = rawsock.compile_filter("tcp", dlt=rawsock.DLT_EN10MB)
    given = {}

    class Socket:
        def setsockopt(self, level, option, value):
            count, address = struct.unpack("@HP", value)
            given.update(level=level, option=option, instructions=ctypes.string_at(address, count * 8))

    rawsock.attach_filter(Socket(), program)
    assert given == {"level": 1, "option": rawsock.SO_ATTACH_FILTER, "instructions": program}


# --- the ring between the reader and the analysis --------------------------------------------------------


def packet(size: int, n: int = 0) -> tuple[int, float, bytes]:
    return LINKTYPE_ETHERNET, float(n), bytes(size)


def test_ring_drops_packets_beyond_its_packet_bound_and_counts_them():
    ring = rawsock.PacketRing(max_packets=3, max_bytes=1 << 20)
    assert ring.put_many([packet(60, n) for n in range(5)]) == 2
    assert len(ring) == 3 and ring.dropped == 2
    assert [p[1] for p in ring.take_all()] == [0.0, 1.0, 2.0]  # the first ones, in order
    assert ring.put_many([packet(60, 9)]) == 0  # room again once drained
    assert ring.dropped == 2


def test_ring_drops_packets_beyond_its_byte_bound_and_keeps_smaller_ones_that_fit():
    ring = rawsock.PacketRing(max_packets=100, max_bytes=1000)
    assert ring.put_many([packet(600, 0), packet(600, 1), packet(300, 2)]) == 1
    assert ring.queued_bytes == 900 and [p[1] for p in ring.take_all()] == [0.0, 2.0]
    assert ring.queued_bytes == 0


def test_ring_memory_stays_bounded_under_a_flood():
    ring = rawsock.PacketRing(max_packets=1000, max_bytes=64 * 1024)
    for _ in range(200):
        ring.put_many([packet(1500) for _ in range(100)])
        assert ring.queued_bytes <= 64 * 1024 and len(ring) <= 1000
    assert len(ring) == 64 * 1024 // 1500
    assert ring.dropped == 200 * 100 - len(ring)


def test_closed_ring_gives_what_is_left_then_nothing_without_waiting():
    ring = rawsock.PacketRing(max_packets=10, max_bytes=1 << 20)
    ring.put_many([packet(60, 1)])
    ring.close()
    assert [p[1] for p in ring.take_all(timeout=5)] == [1.0]
    assert ring.take_all(timeout=5) == []


def test_ring_wakes_a_waiting_consumer_when_packets_arrive():
    ring = rawsock.PacketRing(max_packets=10, max_bytes=1 << 20)
    taken: list = []
    consumer = threading.Thread(target=lambda: taken.extend(ring.take_all(timeout=10)))
    consumer.start()
    ring.put_many([packet(60, 7)])
    consumer.join(timeout=5)
    assert not consumer.is_alive() and [p[1] for p in taken] == [7.0]


def test_sniffer_reports_packets_the_ring_dropped_and_interfaces_it_could_not_read():
    sniffer = rawsock.PacketSocketSniffer(["lo"], filter_for=lambda loopback: "tcp", on_packet=lambda *p: None,
                                          ring_packets=2, ring_bytes=1 << 20)
    sniffer.ring.put_many([packet(60) for _ in range(5)])
    sniffer.skipped.append("can0")
    assert sniffer.warnings() == [
        "interface can0: its link layer is not one kdiag reads; not captured",
        "3 packets were dropped because the analysis fell behind (over 2 packets or 1 MB waiting): "
        "the timeline may miss some",
    ]


def test_any_means_every_interface_on_one_cooked_socket():
    sniffer = rawsock.PacketSocketSniffer(["any"], filter_for=lambda loopback: "tcp", on_packet=lambda *p: None)
    assert sniffer.ifaces == []


def test_the_raw_backend_does_not_import_scapy():
    code = ("import sys; from kdiag.capture import live, rawsock; "
            "rawsock.compile_filter(live.bpf_filter((9092,), loopback=True), dlt=rawsock.DLT_EN10MB); "
            "print(any(m == 'scapy' or m.startswith('scapy.') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


# --- what the reader makes of what a packet socket hands over ---------------------------------------------


class FakePacketSocket:
    """``recvmsg_into`` as a Linux packet socket answers it: the frame, the SO_TIMESTAMPNS message,
    the flags and the ``(ifname, protocol, pkttype, hatype, addr)`` address; then EAGAIN."""

    def __init__(self, packets):
        self.packets = list(packets)

    def recvmsg_into(self, buffers, ancillary_size):
        if not self.packets:
            raise BlockingIOError
        data, address, timestamp, flags = self.packets.pop(0)
        buffers[0][:len(data)] = data
        ancillary = [] if timestamp is None else [
            (1, rawsock.SO_TIMESTAMPNS, struct.pack("=qq", int(timestamp), round(timestamp % 1 * 1e9)))]
        return len(data), ancillary, flags, address


def read_all(fake: FakePacketSocket, *, cooked: bool, linktype: int):
    sniffer = rawsock.PacketSocketSniffer(None, filter_for=lambda loopback: "tcp", on_packet=lambda *p: None)
    source = rawsock._Source("any" if cooked else "lo", fake, linktype, cooked=cooked)
    assert sniffer._receive(source, bytearray(rawsock.SNAPLEN))
    return sniffer.ring.take_all(timeout=0), sniffer


LOOPBACK = ("lo", 0x0800, 0, rawsock.ARPHRD_LOOPBACK, bytes(6))
LOOPBACK_OUT = ("lo", 0x0800, rawsock.PACKET_OUTGOING, rawsock.ARPHRD_LOOPBACK, bytes(6))
ETH0_OUT = ("eth0", 0x0800, rawsock.PACKET_OUTGOING, 1, bytes.fromhex("02fc00000001"))


def test_all_interfaces_socket_keeps_one_copy_of_loopback_packets_and_every_outgoing_one_elsewhere():
    segment = build_tcp("127.0.0.1", "127.0.0.1", 40000, 9092, flags=SYN, linktype=LINKTYPE_RAW)
    out = build_tcp("192.0.2.2", "192.0.2.1", 40001, 9092, flags=SYN, linktype=LINKTYPE_RAW)
    fake = FakePacketSocket([(segment, LOOPBACK_OUT, 1.5, 0), (segment, LOOPBACK, 1.5, 0), (out, ETH0_OUT, 2.25, 0)])
    packets, _ = read_all(fake, cooked=True, linktype=LINKTYPE_LINUX_SLL)
    assert [(linktype, timestamp) for linktype, timestamp, _ in packets] == [
        (LINKTYPE_LINUX_SLL, 1.5), (LINKTYPE_LINUX_SLL, 2.25)]
    loopback, outgoing = (frame for _, _, frame in packets)
    # Linux cooked header: packet type, ARPHRD type, address length, address (8 bytes), protocol
    assert loopback[:16] == bytes.fromhex("0000" "0304" "0006" "0000000000000000" "0800")
    assert outgoing[:16] == bytes.fromhex("0004" "0001" "0006" "02fc000000010000" "0800")
    assert loopback[16:] == segment and outgoing[16:] == out


def test_named_interface_frames_are_kept_as_captured_with_the_kernel_timestamp():
    frame = build_tcp("127.0.0.1", "127.0.0.1", 40000, 9092, flags=SYN)
    packets, sniffer = read_all(FakePacketSocket([(frame, LOOPBACK, 1700000000.25, 0)]), cooked=False,
                                linktype=LINKTYPE_ETHERNET)
    assert packets == [(LINKTYPE_ETHERNET, 1700000000.25, frame)]
    assert sniffer.truncated == 0


def test_a_packet_longer_than_the_snap_length_is_kept_cut_and_counted():
    frame = build_tcp("127.0.0.1", "127.0.0.1", 40000, 9092)
    packets, sniffer = read_all(FakePacketSocket([(frame, LOOPBACK, 3.0, socket.MSG_TRUNC)]), cooked=False,
                                linktype=LINKTYPE_ETHERNET)
    assert len(packets) == 1 and sniffer.truncated == 1
    assert sniffer.warnings() == [f"1 packets were longer than {rawsock.SNAPLEN} bytes and were cut"]
