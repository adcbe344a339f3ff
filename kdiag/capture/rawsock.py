"""Live capture on Linux packet sockets, without scapy: the socket, the BPF filter and the reader.

An ``AF_PACKET`` socket takes every frame (``ETH_P_ALL``) of one interface, or of all of them, and
the kernel runs a classic BPF filter on each before it is queued. The filter is compiled from a
tcpdump expression by libpcap itself, through ctypes (``pcap_open_dead`` + ``pcap_compile``), and
attached with ``SO_ATTACH_FILTER``; nothing else of libpcap is used.

What the kernel hands over, verified on Linux 6.x:

* A named interface (``SOCK_RAW``) gives frames with its own link layer, by ``sll_hatype``: Ethernet
  for Ethernet devices and for loopback (``lo`` delivers 14-byte Ethernet headers with zero MACs,
  ``ARPHRD_LOOPBACK``), bare IP for tun devices and IP tunnels.
* All interfaces (``--iface any``, or no ``--iface``) is one ``SOCK_DGRAM`` socket bound to none:
  frames start at the IP header and the link layer is rebuilt as a Linux cooked (SLL) header from
  the socket address, as tcpdump does for ``-i any``. Its filter is compiled for bare IP.
* Every loopback packet is seen twice, once going out (``PACKET_OUTGOING``) and once coming in.
  A loopback interface's filter keeps ``inbound`` packets only (libpcap compiles that to a load of
  the packet type, ``SKF_AD_PKTTYPE``); on the all-interfaces socket the outgoing copy is dropped
  by its address (packet type and ``ARPHRD_LOOPBACK``), which needs no libpcap 1.10 ``ifindex``.
  The scapy backend relies on the same ``inbound`` filter, with one socket per interface.
* Timestamps are the kernel's receive times (``SO_TIMESTAMPNS``), else the time of ``recvmsg``.

Memory is bounded: one thread reads the sockets into a :class:`PacketRing` (at most
``ring_packets`` packets and ``ring_bytes`` bytes; beyond that new packets are dropped and
counted), a second hands them in order to ``on_packet``. Packets the kernel dropped
(``PACKET_STATISTICS``), the ring dropped or the snap length cut come back as warnings.

Cheap for the probe it watches: the reader wakes once per ``batch_seconds`` (20 ms) of traffic,
not once per packet, since the kernel has timestamped them and holds them meanwhile (4 MB of
receive buffer): on a loaded 2-CPU machine, waking per packet added ~30% to a healthy bootstrap
run, batching ~0%. Closing a packet socket waits for an RCU grace period (8-16 ms here), so
:meth:`PacketSocketSniffer.stop` leaves that to a background thread.

    sniffer = PacketSocketSniffer(["lo"], filter_for=lambda loopback: "tcp", on_packet=print)
    sniffer.open()      # sockets and filters: raises CaptureError and its subclasses
    sniffer.start()     # the threads
    ...
    sniffer.stop()      # reads what is queued, joins, closes; then sniffer.warnings()
    sniffer.closed.wait()  # the sockets are closed in the background (see close())
"""

from __future__ import annotations

import ctypes
import os
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache

from kdiag.capture.pcapio import LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_RAW, CaptureError

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_OUTGOING = 4
PACKET_STATISTICS = 6
ARPHRD_LOOPBACK = 772
SO_ATTACH_FILTER = 26
SO_RCVBUFFORCE = 33
SO_TIMESTAMPNS = 35  # also the ancillary message's type (SCM_TIMESTAMPNS)

# libpcap's DLT_ values for pcap_open_dead (the link type a filter is compiled for). They differ
# from the LINKTYPE_ values of pcap files: bare IP is DLT_RAW 12 on Linux, LINKTYPE_RAW 101.
DLT_EN10MB = 1
DLT_RAW = 12
_DLT_OF_LINKTYPE = {LINKTYPE_ETHERNET: DLT_EN10MB, LINKTYPE_RAW: DLT_RAW}

# The frames a packet socket hands over, by the device's ARPHRD type: Ethernet headers for Ethernet
# and loopback, bare IP for tun devices (NONE) and IP tunnels (IPIP, TUNNEL6, SIT, IPGRE, IP6GRE).
ARPHRD_LINKTYPES = {1: LINKTYPE_ETHERNET, ARPHRD_LOOPBACK: LINKTYPE_ETHERNET, 65534: LINKTYPE_RAW,
                    768: LINKTYPE_RAW, 769: LINKTYPE_RAW, 776: LINKTYPE_RAW, 778: LINKTYPE_RAW, 823: LINKTYPE_RAW}

ANY = "any"  # the all-interfaces socket's name, as tcpdump calls it
SNAPLEN = 262144  # above loopback's 64 KiB MTU plus headers: nothing is cut
RECEIVE_BUFFER = 4 << 20  # the socket's kernel queue while the reader waits or is descheduled
BATCH_SECONDS = 0.02  # how long the reader lets packets queue after the first one (see _read)
_LIBPCAP_SONAMES = ("libpcap.so.0.8", "libpcap.so.1", "libpcap.so")  # Debian/Ubuntu, Fedora/RHEL, -dev
_DROP_ALL = struct.pack("=HBBI", 0x06, 0, 0, 0)  # BPF_RET|BPF_K 0: accept nothing
_SLL_HEADER = struct.Struct(">HHH8sH")
_TIMESPEC = struct.Struct("=qq")
_ANCILLARY_SIZE = socket.CMSG_SPACE(_TIMESPEC.size) if hasattr(socket, "CMSG_SPACE") else 0  # importable anywhere

OnPacket = Callable[[int, float, bytes], None]  # (linktype, timestamp, frame)


class FilterError(CaptureError):
    """A capture filter expression that libpcap does not compile."""


# --- BPF through libpcap -----------------------------------------------------------------------------


class _BpfInstruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _BpfProgram(ctypes.Structure):
    _fields_ = [("bf_len", ctypes.c_uint), ("bf_insns", ctypes.POINTER(_BpfInstruction))]


@cache
def libpcap() -> ctypes.CDLL:
    """libpcap, by its usual sonames first (``ctypes.util.find_library`` runs ldconfig: ~30 ms)."""
    for soname in _LIBPCAP_SONAMES:
        try:
            library = ctypes.CDLL(soname)
            break
        except OSError:
            continue
    else:
        from ctypes.util import find_library  # noqa: PLC0415 - only when no usual soname loads

        found = find_library("pcap")
        try:
            library = ctypes.CDLL(found) if found else None
        except OSError:
            library = None
        if library is None:
            raise CaptureError("live capture needs libpcap to compile its packet filter: install it "
                               "(Debian/Ubuntu: apt-get install libpcap0.8; Fedora/RHEL: dnf install libpcap)")
    library.pcap_open_dead.argtypes = [ctypes.c_int, ctypes.c_int]
    library.pcap_open_dead.restype = ctypes.c_void_p
    library.pcap_compile.argtypes = [ctypes.c_void_p, ctypes.POINTER(_BpfProgram), ctypes.c_char_p, ctypes.c_int,
                                     ctypes.c_uint32]
    library.pcap_geterr.argtypes = [ctypes.c_void_p]
    library.pcap_geterr.restype = ctypes.c_char_p
    library.pcap_freecode.argtypes = [ctypes.POINTER(_BpfProgram)]
    library.pcap_close.argtypes = [ctypes.c_void_p]
    return library


def compile_filter(expression: str, *, dlt: int) -> bytes:
    """``expression`` (tcpdump syntax) as the kernel's ``struct sock_filter[]``: 8 bytes per
    instruction, compiled by libpcap for frames of link type ``dlt`` (:data:`DLT_EN10MB`,
    :data:`DLT_RAW`). Raises :class:`FilterError` with libpcap's reason."""
    pcap = libpcap()
    handle = pcap.pcap_open_dead(dlt, SNAPLEN)
    if not handle:
        raise CaptureError(f"libpcap cannot compile filters for link type {dlt}")
    program = _BpfProgram()
    try:
        if pcap.pcap_compile(handle, ctypes.byref(program), expression.encode(), 1, 0xFFFFFFFF) != 0:
            reason = (pcap.pcap_geterr(handle) or b"unknown error").decode(errors="replace")
            raise FilterError(f"the capture filter {expression!r} does not compile: {reason}")
        try:
            return ctypes.string_at(program.bf_insns, program.bf_len * ctypes.sizeof(_BpfInstruction))
        finally:
            pcap.pcap_freecode(ctypes.byref(program))
    finally:
        pcap.pcap_close(handle)


def attach_filter(sock: socket.socket, program: bytes) -> None:
    """Attaches compiled BPF (``struct sock_filter[]``) to ``sock``: ``SO_ATTACH_FILTER`` takes a
    ``struct sock_fprog {unsigned short len; struct sock_filter *filter;}``; the kernel copies it."""
    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("@HP", len(program) // 8, ctypes.addressof(instructions))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)


def set_receive_buffer(sock: socket.socket, size: int = RECEIVE_BUFFER) -> None:
    """Room for ``size`` bytes of queued frames (the default, ~200 KB, holds three 64 KiB loopback
    frames). Beyond ``net.core.rmem_max`` needs CAP_NET_ADMIN; without it the kernel caps the size."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, size)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, size)


def kernel_drops(sock: socket.socket) -> int:
    """Frames the kernel dropped on this packet socket (its queue was full) since the last call."""
    try:
        return struct.unpack("=II", sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))[1]
    except OSError:
        return 0


def kernel_drops_warning(count: int) -> str:
    return f"the kernel dropped {count} packets the capture could not read in time: the timeline may miss some"


# --- the ring between the reader and the analysis ------------------------------------------------------


class PacketRing:
    """A bounded FIFO of ``(linktype, timestamp, frame)``: at most ``max_packets`` packets and
    ``max_bytes`` bytes of frames. A packet that does not fit is dropped and counted in
    ``dropped``: the reader never blocks and memory never grows past the bound."""

    def __init__(self, *, max_packets: int, max_bytes: int) -> None:
        self.max_packets = max_packets
        self.max_bytes = max_bytes
        self.dropped = 0
        self._items: deque[tuple[int, float, bytes]] = deque()
        self._bytes = 0
        self._closed = False
        self._ready = threading.Condition(threading.Lock())

    def __len__(self) -> int:
        return len(self._items)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    def put_many(self, packets: Sequence[tuple[int, float, bytes]]) -> int:
        """Queues what fits, in order; returns how many were dropped."""
        dropped = 0
        with self._ready:
            items = self._items
            for packet in packets:
                size = len(packet[2])
                if len(items) >= self.max_packets or self._bytes + size > self.max_bytes:
                    dropped += 1
                    continue
                items.append(packet)
                self._bytes += size
            self.dropped += dropped
            if items:
                self._ready.notify()
        return dropped

    def take_all(self, timeout: float | None = None) -> list[tuple[int, float, bytes]]:
        """Everything queued, waiting up to ``timeout`` for something; [] once closed and empty."""
        with self._ready:
            if not self._items and not self._closed:
                self._ready.wait(timeout)
            taken = list(self._items)
            self._items.clear()
            self._bytes = 0
            return taken

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """No more packets will come: wakes the consumer so that it drains the rest and ends."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()


# --- the sockets ---------------------------------------------------------------------------------------


class _Source:
    """One open packet socket and what its frames are (a plain class: a dataclass costs 0.5 ms to import)."""

    __slots__ = ("name", "sock", "linktype", "cooked")

    def __init__(self, name: str, sock: socket.socket, linktype: int, *, cooked: bool) -> None:
        self.name = name
        self.sock = sock
        self.linktype = linktype  # the frames handed to on_packet
        self.cooked = cooked  # all interfaces: SLL header built from the address, loopback's outgoing copy dropped


@contextmanager
def _closed_if_setup_fails(sock: socket.socket, what: str) -> Iterator[None]:
    """Closes ``sock`` when setting it up fails. An ``OSError`` becomes one line naming ``what``,
    except ``PermissionError``, left to the caller to say how to grant the capability."""
    try:
        yield
    except PermissionError:
        sock.close()
        raise
    except OSError as exc:
        sock.close()
        raise CaptureError(f"cannot capture on {what}: {exc.strerror or exc}") from exc
    except BaseException:
        sock.close()
        raise


class PacketSocketSniffer:
    """Captures on ``ifaces`` (None or ``["any"]``: all interfaces, one cooked socket).

    ``filter_for(loopback)`` gives the tcpdump expression for an interface (``loopback``: keep one
    copy of each packet, i.e. add ``inbound``); ``on_packet(linktype, timestamp, frame)`` runs on
    the analysis thread, once per packet, in capture order.
    """

    def __init__(self, ifaces: Sequence[str] | None, *, filter_for: Callable[[bool], str], on_packet: OnPacket,
                 ring_packets: int = 65536, ring_bytes: int = 64 << 20, batch_seconds: float = BATCH_SECONDS) -> None:
        self.ifaces = [name for name in ifaces or () if name != ANY]
        self.filter_for = filter_for
        self.on_packet = on_packet
        self.batch_seconds = batch_seconds
        self.ring = PacketRing(max_packets=ring_packets, max_bytes=ring_bytes)
        self.linktypes: dict[str, int] = {}  # what each source's frames are, by interface name
        self.skipped: list[str] = []  # interfaces whose link layer kdiag does not read
        self.truncated = 0
        self._sources: list[_Source] = []
        self._threads: list[threading.Thread] = []
        self._wake_r, self._wake_w = -1, -1
        self._read_errors: list[str] = []
        self._kernel_drops = 0
        self.closed = threading.Event()

    # -- opening

    def open(self) -> None:
        """Opens and filters the sockets. Raises :class:`CaptureError` (``PermissionError`` from the
        socket is left to the caller as it is, so it can say how to grant the capability)."""
        try:
            if self.ifaces:
                for name in self.ifaces:
                    source = self._open_interface(name)
                    if source is not None:
                        self._sources.append(source)
            else:
                self._sources.append(self._open_all())
        except BaseException:
            self.close()
            raise
        if not self._sources:
            raise CaptureError("no interface to capture on")
        for source in self._sources:
            self.linktypes[source.name] = source.linktype

    def _open_interface(self, name: str) -> _Source | None:
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)  # protocol 0: nothing queued yet
        with _closed_if_setup_fails(sock, f"interface {name}"):
            sock.bind((name, 0))  # the device, still receiving nothing: its hardware type first
            hatype = sock.getsockname()[3]
            linktype = ARPHRD_LINKTYPES.get(hatype)
            if linktype is None:
                sock.close()
                self.skipped.append(name)
                return None
            program = compile_filter(self.filter_for(hatype == ARPHRD_LOOPBACK), dlt=_DLT_OF_LINKTYPE[linktype])
            attach_filter(sock, program)
            self._tune(sock)
            sock.bind((name, ETH_P_ALL))  # from here on, filtered frames are queued
            error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)  # ENETDOWN: the interface is down
            if error:
                raise OSError(error, os.strerror(error))
        return _Source(name, sock, linktype, cooked=False)

    def _open_all(self) -> _Source:
        # Unbound, the socket takes every interface's frames from its creation on: accept nothing,
        # drop what slipped in before that, then attach the real filter.
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
        with _closed_if_setup_fails(sock, "all interfaces"):
            attach_filter(sock, _DROP_ALL)
            sock.setblocking(False)
            try:
                while True:
                    sock.recv(1)
            except BlockingIOError:
                pass
            attach_filter(sock, compile_filter(self.filter_for(False), dlt=DLT_RAW))
            self._tune(sock)
        return _Source(ANY, sock, LINKTYPE_LINUX_SLL, cooked=True)

    @staticmethod
    def _tune(sock: socket.socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        set_receive_buffer(sock)
        sock.setblocking(False)

    # -- running

    def start(self) -> None:
        """Starts the reader and the analysis threads; the sockets already queue packets."""
        self._wake_r, self._wake_w = os.pipe()
        self._threads = [threading.Thread(target=self._read, name="kdiag-capture-read", daemon=True),
                         threading.Thread(target=self._analyse, name="kdiag-capture-analyse", daemon=True)]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        """The reader thread: wait for a packet, let more queue for up to ``batch_seconds`` (the kernel
        has timestamped them), take all the sockets hold, put it in the ring. Batching keeps the
        thread's wake-ups, and the GIL hand-offs they cost the probe, to a few per run."""
        poller = select.poll()
        by_fd = {source.sock.fileno(): source for source in self._sources}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        stop_poller = select.poll()
        stop_poller.register(self._wake_r, select.POLLIN)
        buffer = bytearray(SNAPLEN)
        try:
            while by_fd:
                ready = poller.poll()
                stopping = any(fd == self._wake_r for fd, _ in ready)
                if not stopping and self.batch_seconds > 0:
                    stopping = bool(stop_poller.poll(self.batch_seconds * 1000))
                for fd, source in list(by_fd.items()):
                    if not self._receive(source, buffer):
                        poller.unregister(fd)
                        del by_fd[fd]
                if stopping:  # everything queued before stop() was called has been read
                    return
        finally:
            self.ring.close()

    def _receive(self, source: _Source, buffer: bytearray) -> bool:
        """Moves everything ``source`` has queued into the ring; False when the socket failed."""
        packets: list[tuple[int, float, bytes]] = []
        sock, linktype, cooked = source.sock, source.linktype, source.cooked
        healthy = True
        while True:
            try:
                size, ancillary, flags, address = sock.recvmsg_into((buffer,), _ANCILLARY_SIZE)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:  # the interface went away, or down
                self._read_errors.append(f"reading {source.name} stopped: {exc.strerror or exc}")
                healthy = False
                break
            timestamp = None
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
                    seconds, nanoseconds = _TIMESPEC.unpack_from(data)
                    timestamp = seconds + nanoseconds * 1e-9
            if flags & socket.MSG_TRUNC:
                self.truncated += 1
            frame = bytes(buffer[:size])
            if cooked:
                _, protocol, pkttype, hatype, hwaddr = address
                if pkttype == PACKET_OUTGOING and hatype == ARPHRD_LOOPBACK:
                    continue  # its inbound copy follows
                frame = _SLL_HEADER.pack(pkttype, hatype, len(hwaddr), hwaddr[:8], protocol) + frame
            packets.append((linktype, timestamp if timestamp is not None else time.time(), frame))
        if packets:
            self.ring.put_many(packets)
        return healthy

    def _analyse(self) -> None:
        """The analysis thread: hands the ring's packets to ``on_packet`` until it is closed and empty."""
        ring, on_packet = self.ring, self.on_packet
        while True:
            packets = ring.take_all()
            for linktype, timestamp, frame in packets:
                on_packet(linktype, timestamp, frame)
            if not packets and ring.closed:
                return

    def stop(self) -> None:
        """Reads what is queued, ends both threads and closes the sockets (idempotent)."""
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
        for thread in self._threads:
            thread.join()
        self._threads = []
        self.close(wait=False)

    def close(self, *, wait: bool = True) -> None:
        """Closes the sockets; with ``wait=False`` on a background thread. Closing a packet socket
        waits for an RCU grace period in the kernel (``synchronize_net``: 8-16 ms measured here, per
        socket), time the caller can spend printing its report instead. :attr:`closed` is set once
        they all are."""
        sources, self._sources = self._sources, []
        for source in sources:
            self._kernel_drops += kernel_drops(source.sock)
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r, self._wake_w = -1, -1

        def close_sockets() -> None:
            for source in sources:
                source.sock.close()
            self.closed.set()

        if wait or not sources:
            close_sockets()
        else:
            threading.Thread(target=close_sockets, name="kdiag-capture-close", daemon=True).start()

    def warnings(self) -> list[str]:
        """What the capture may have missed, one line each."""
        lines = [f"interface {name}: its link layer is not one kdiag reads; not captured" for name in self.skipped]
        lines += self._read_errors
        if self._kernel_drops:
            lines.append(kernel_drops_warning(self._kernel_drops))
        if self.ring.dropped:
            lines.append(f"{self.ring.dropped} packets were dropped because the analysis fell behind "
                         f"(over {self.ring.max_packets} packets or {self.ring.max_bytes >> 20} MB waiting): "
                         "the timeline may miss some")
        if self.truncated:
            lines.append(f"{self.truncated} packets were longer than {SNAPLEN} bytes and were cut")
        return lines
