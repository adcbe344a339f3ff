"""Live capture during a probe: a capture backend feeds raw frames to the same pipeline as ``kdiag pcap``.

:class:`LiveCapture` takes the frames a backend captures, in order, and hands each to the
:class:`~kdiag.capture.flows.CaptureAnalyzer` (kdiag's own parser, reassembly and codec, exactly as
for ``kdiag pcap``) and, with ``--pcap-out``, to the :class:`~kdiag.capture.pcapio.PcapWriter`.
Two backends, chosen by :func:`default_backend`:

* ``raw``, the default on Linux (:mod:`kdiag.capture.rawsock`): ``AF_PACKET`` sockets with a BPF
  filter compiled by libpcap through ctypes. Without ``--iface`` (or with ``any``) one cooked
  socket takes every interface and ``--pcap-out`` is Linux cooked (SLL), as ``tcpdump -i any``
  writes it; a named interface keeps its own link layer.
* ``scapy``, elsewhere or with ``KDIAG_CAPTURE_BACKEND=scapy``: scapy's ``AsyncSniffer`` over one
  ``conf.L2listen`` socket per interface that is up, the frames handed over undissected (the
  socket's layer class is ``Raw``). scapy is imported here, on this path only.

Both keep one copy of each loopback packet (a packet socket sees it going out and coming in: the
filter takes ``inbound`` only on a loopback interface) and both fail the same way: no privilege is
the one-line :class:`CapturePermissionError`, anything else a one-line :class:`CaptureError`.

Why raw by default: live capture must add at most 10% to a healthy ``kdiag bootstrap``, and with
scapy nearly all it added was start-up (importing scapy, ~0.2 s, then its sockets and sniffer
thread). The raw backend starts in 7 ms. Measured with ``python -m bench.bench_pcap --no-mixed
--live 60`` on a shared 2-CPU machine (a healthy run against a real broker, round trip included,
whole process, median of 60 runs of each, taking turns; BENCHMARKS.md has the latest run):

==============================================  =======  ==============  ===============
kdiag bytecode                                  plain    raw (default)   scapy
==============================================  =======  ==============  ===============
compiled, as installed                          0.246 s  0.263 s, +6.9%  0.496 s, +102%
from source on every run (PYTHONDONTWRITE...)   0.333 s  0.385 s, +16%   0.624 s, +87%
==============================================  =======  ==============  ===============

Two more runs of 60 the same hour gave +6.5% and +10.8% for raw (compiled): the machine's noise
is about as large as the margin. What raw still adds, ~15-20 ms: importing kdiag.capture (4 ms,
of which ctypes 1.4), opening and filtering the socket (3 ms), the probe slowed by packets being
copied and analysed beside it (3-8 ms), stopping with the last batch and the summary (4 ms). From
source, compiling kdiag.capture's modules adds ~30 ms more, which bytecode removes.

    with LiveCapture(iface="lo", pcap_out="run.pcap") as capture:
        report = run_bootstrap(...)
    summary = capture.summary(statuses)
"""

from __future__ import annotations

import os
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, BinaryIO, Protocol

from kdiag.capture.flows import CaptureAnalyzer
from kdiag.capture.model import CaptureSummary, CaptureWarning
from kdiag.capture.pcapio import (
    LINKTYPE_ETHERNET,
    LINKTYPE_LINUX_SLL,
    LINKTYPE_LINUX_SLL2,
    CaptureError,
    PcapWriter,
    to_linux_sll,
)
from kdiag.capture.rawsock import (
    ARPHRD_LINKTYPES,
    SNAPLEN,
    PacketSocketSniffer,
    kernel_drops,
    kernel_drops_warning,
    set_receive_buffer,
)
from kdiag.capture.timeline import Statuses, summarize

CAP_NET_RAW = 13
_IFF_UP, _IFF_LOOPBACK = 0x1, 0x8
PERMISSION_HINT = (
    "live capture needs root or the CAP_NET_RAW capability: run kdiag as root, or grant it "
    "(container: `docker run --cap-add NET_RAW`; Kubernetes: `securityContext.capabilities.add: [NET_RAW]`; "
    "a host: `sudo setcap cap_net_raw+ep $(readlink -f $(command -v python3))`); kdiag works without --capture"
)


class CapturePermissionError(CaptureError):
    """Capturing packets is not permitted to this process."""


def has_capture_permission() -> bool:
    """CAP_NET_RAW in the effective set (root in a container can lack it); elsewhere, root."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_NET_RAW & 1)
    except OSError:
        pass
    return hasattr(os, "geteuid") and os.geteuid() == 0


def check_capture_permission() -> None:
    if not has_capture_permission():
        raise CapturePermissionError(PERMISSION_HINT)


def _interface_flags(name: str) -> int:
    try:
        with open(f"/sys/class/net/{name}/flags", encoding="ascii") as flags:
            return int(flags.read().strip(), 16)
    except (OSError, ValueError):
        return _IFF_UP | (_IFF_LOOPBACK if name == "lo" else 0)


def interfaces_up() -> list[str]:
    return [name for _, name in socket.if_nameindex() if _interface_flags(name) & _IFF_UP]


def bpf_filter(ports: Iterable[int], *, loopback: bool) -> str:
    """TCP (on ``ports`` if given) plus the ICMP errors that answer a SYN; inbound only on loopback."""
    ports = sorted(set(ports))
    tcp = "tcp" if not ports else "tcp and (" + " or ".join(f"port {p}" for p in ports) + ")"
    expression = f"({tcp}) or icmp[icmptype] == icmp-unreach or icmp6"
    return f"inbound and ({expression})" if loopback else expression


BACKEND_ENV = "KDIAG_CAPTURE_BACKEND"
RAW, SCAPY = "raw", "scapy"


def default_backend() -> str:
    """``$KDIAG_CAPTURE_BACKEND`` if set, else ``raw`` on Linux and ``scapy`` elsewhere."""
    return os.environ.get(BACKEND_ENV) or (RAW if sys.platform.startswith("linux") else SCAPY)


class _Sniffer(Protocol):
    """What :class:`LiveCapture` needs of a backend. ``open`` raises ``CaptureError`` (and leaves
    ``PermissionError`` as it is); ``on_packet(linktype, timestamp, frame)`` runs on a thread."""

    linktypes: dict[str, int]

    def open(self) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...
    def warnings(self) -> list[str]: ...


class LiveCapture:
    """Sniffs TCP on ``iface`` (default, or ``any``: every interface) while a probe runs.

    ``ports``: restrict the BPF filter to these ports (default: all TCP, since advertised ports are
    not known before the metadata arrives). ``kafka_ports``: server ports to treat as Kafka whatever
    the bytes (the bootstrap ports). ``pcap_out``: also write every captured frame to this pcap.
    ``backend``: ``raw`` or ``scapy`` (default: :func:`default_backend`).
    """

    def __init__(self, *, iface: str | Sequence[str] | None = None, ports: Iterable[int] = (),
                 kafka_ports: Iterable[int] = (), pcap_out: str | None = None, keep_events: int = 5000,
                 start_timeout: float = 3.0, backend: str | None = None) -> None:
        self.ifaces = [name for name in ([iface] if isinstance(iface, str) else list(iface or ())) if name != "any"]
        self.ports = tuple(ports)
        self.pcap_out = pcap_out
        self.start_timeout = start_timeout
        self.backend = backend or default_backend()
        self.kafka_ports = tuple(kafka_ports)
        self.analyzer = CaptureAnalyzer(ports=self.kafka_ports, keep_events=keep_events)
        self._sniffer: _Sniffer | None = None
        self._linktypes: dict[str, int] = {}
        self._writer: PcapWriter | None = None
        self._out: BinaryIO | None = None
        self._number = 0
        self._lock = threading.Lock()
        self.warnings: list[CaptureWarning] = []

    def __enter__(self) -> LiveCapture:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def source(self) -> str:
        return "live capture on " + ", ".join(self._linktypes or self.ifaces or ["(not started)"])

    def start(self) -> None:
        """Opens the sockets and starts capturing; returns once packets are being captured.

        Raises :class:`CapturePermissionError` without the privilege, :class:`CaptureError` when an
        interface cannot be captured on, ``pcap_out`` cannot be written or the backend is unknown.
        """
        check_capture_permission()
        if self.backend not in (RAW, SCAPY):
            raise CaptureError(f"{BACKEND_ENV}={self.backend}: the capture backends are {RAW} (Linux packet "
                               f"sockets) and {SCAPY}")
        if self.backend == RAW and not sys.platform.startswith("linux"):
            raise CaptureError(f"the {RAW} capture backend needs Linux packet sockets: set {BACKEND_ENV}={SCAPY}")
        known = [name for _, name in socket.if_nameindex()]
        missing = [name for name in self.ifaces if name not in known]
        if missing:
            raise CaptureError(f"no network interface {missing[0]} here (there are: {', '.join(known)})")
        if self.pcap_out is not None:
            try:
                self._out = open(self.pcap_out, "wb")  # noqa: SIM115 - closed in stop()
            except OSError as exc:
                raise CaptureError(f"cannot write --pcap-out {self.pcap_out}: {exc.strerror or exc}") from exc
        try:
            self._sniffer = self._new_sniffer()
            try:
                self._sniffer.open()
            except PermissionError as exc:
                raise CapturePermissionError(PERMISSION_HINT) from exc
            self._linktypes = dict(self._sniffer.linktypes)
            if self._out is not None:  # one link type for the file: the interfaces', or Linux cooked if they differ
                kinds = set(self._linktypes.values())
                self._writer = PcapWriter(self._out, kinds.pop() if len(kinds) == 1 else LINKTYPE_LINUX_SLL)
            self._sniffer.start()
        except BaseException:
            self.stop()
            raise

    def _new_sniffer(self) -> _Sniffer:
        def filter_for(loopback: bool) -> str:
            return bpf_filter(self.ports, loopback=loopback)

        if self.backend == RAW:
            return PacketSocketSniffer(self.ifaces or None, filter_for=filter_for, on_packet=self._packet)
        return ScapySniffer(self.ifaces or interfaces_up(), filter_for=filter_for, on_packet=self._packet,
                            start_timeout=self.start_timeout)

    def _packet(self, linktype: int, timestamp: float, data: bytes) -> None:
        """Runs on the backend's thread for every frame, in capture order."""
        with self._lock:
            self._number += 1
            self.analyzer.feed(self._number, timestamp, linktype, data)
            writer = self._writer
            if writer is not None:
                if writer.linktype != linktype:
                    data = to_linux_sll(linktype, data) or b""
                if data:
                    writer.write(timestamp, data)

    def stop(self) -> None:
        """Stops capturing (idempotent): the packets already queued are analysed, the sockets and
        ``pcap_out`` closed."""
        sniffer, self._sniffer = self._sniffer, None
        if sniffer is not None:
            sniffer.stop()
            self.warnings.extend(CaptureWarning(None, line) for line in sniffer.warnings())
            with self._lock:
                self.analyzer.finish()
        if self._out is not None:
            self._out.close()
            self._out = None
            self._writer = None

    def summary(self, statuses: Statuses | None = None,
                resolutions: Mapping[str, Iterable[str]] | None = None) -> CaptureSummary:
        """What was captured, with advertised hosts marked by what the same run found for them."""
        with self._lock:
            return summarize(self.analyzer, source=self.source, statuses=statuses, resolutions=resolutions,
                             warnings=self.warnings, scope_ports=self.kafka_ports or None)


# --- the scapy backend ------------------------------------------------------------------------------


class ScapySniffer:
    """scapy's ``AsyncSniffer`` over one ``conf.L2listen`` socket per interface.

    scapy compiles the filter (through libpcap) and reads the sockets; the frames are handed over
    undissected (the socket's layer class is set to ``Raw``) and kdiag's own parser does the rest.
    """

    def __init__(self, ifaces: Sequence[str], *, filter_for: Callable[[bool], str],
                 on_packet: Callable[[int, float, bytes], None], start_timeout: float) -> None:
        self.ifaces = list(ifaces)
        self.filter_for = filter_for
        self.on_packet = on_packet
        self.start_timeout = start_timeout
        self.linktypes: dict[str, int] = {}
        self._sockets: dict[Any, str] = {}  # AsyncSniffer does not close sockets it was given: stop() does
        self._sniffer: Any = None
        self._warnings: list[str] = []
        self._kernel_drops = 0

    def open(self) -> None:
        try:
            import scapy.layers.l2  # noqa: F401, PLC0415 - link types scapy knows (else it warns on lo)
            import scapy.sendrecv  # noqa: F401, PLC0415 - loads scapy's arch layer, which sets conf.L2listen
            from scapy.config import conf  # noqa: PLC0415
            from scapy.error import Scapy_Exception  # noqa: PLC0415
        except ImportError as exc:
            raise CaptureError(f"the {SCAPY} capture backend needs scapy: pip install 'kdiag[capture]'") from exc

        for name in self.ifaces:
            loopback = bool(_interface_flags(name) & _IFF_LOOPBACK)
            try:
                sock = conf.L2listen(iface=name, filter=self.filter_for(loopback))
            except (OSError, Scapy_Exception) as exc:
                self.close()
                if isinstance(exc, PermissionError):
                    raise
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise CaptureError(f"cannot capture on interface {name}: {reason}"
                                   + (" (install libpcap: the BPF filter is compiled with it)"
                                      if "libpcap" in reason else "")) from exc
            linktype = _scapy_linktype(sock)
            if linktype is None:
                sock.close()
                self._warnings.append(f"interface {name}: its link layer is not one kdiag reads; not captured")
                continue
            sock.LL = conf.raw_layer  # hand the frame over undissected
            if isinstance(getattr(sock, "ins", None), socket.socket):
                set_receive_buffer(sock.ins)
            self._sockets[sock] = name
            self.linktypes[name] = linktype
        if not self._sockets:
            raise CaptureError("no interface to capture on")

    def start(self) -> None:
        from scapy.sendrecv import AsyncSniffer  # noqa: PLC0415

        started = threading.Event()
        self._sniffer = AsyncSniffer(opened_socket=self._sockets, prn=self._packet, store=False,
                                     started_callback=started.set)
        self._sniffer.start()
        if not started.wait(self.start_timeout):
            raise CaptureError(f"the packet capture did not start within {self.start_timeout:g} s")

    def _packet(self, packet: Any) -> None:
        self.on_packet(self.linktypes.get(packet.sniffed_on, LINKTYPE_ETHERNET), float(packet.time), bytes(packet))

    def stop(self) -> None:
        sniffer, self._sniffer = self._sniffer, None
        if sniffer is not None:
            from scapy.error import Scapy_Exception  # noqa: PLC0415

            try:
                sniffer.stop(join=True)
            except Scapy_Exception as exc:  # the sniffer thread already ended (its socket failed)
                self._warnings.append(f"stopping the capture: {exc}")
            self._drain()
        self.close()

    def _drain(self) -> None:
        """What the sockets still hold: AsyncSniffer stops without reading it (the probe's last
        packets, or more when its thread fell behind)."""
        for sock, name in self._sockets.items():
            linktype = self.linktypes[name]
            try:
                while select.select([sock], [], [], 0)[0]:
                    _, data, timestamp = sock.recv_raw(SNAPLEN)
                    if data:
                        self.on_packet(linktype, float(timestamp or time.time()), bytes(data))
            except OSError as exc:
                self._warnings.append(f"reading {name} stopped: {exc.strerror or exc}")

    def close(self) -> None:
        sockets, self._sockets = self._sockets, {}
        for sock in sockets:
            if isinstance(getattr(sock, "ins", None), socket.socket):
                self._kernel_drops += kernel_drops(sock.ins)
            sock.close()

    def warnings(self) -> list[str]:
        return self._warnings + ([kernel_drops_warning(self._kernel_drops)] if self._kernel_drops else [])


def _scapy_linktype(sock: Any) -> int | None:
    try:
        hatype = sock.ins.getsockname()[3]
    except (AttributeError, OSError, IndexError):  # not a Linux packet socket: trust scapy's layer
        return {"Ether": LINKTYPE_ETHERNET, "CookedLinux": LINKTYPE_LINUX_SLL,
                "CookedLinuxV2": LINKTYPE_LINUX_SLL2}.get(sock.LL.__name__)
    return ARPHRD_LINKTYPES.get(hatype)
