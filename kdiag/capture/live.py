"""Live capture during a probe: scapy's ``AsyncSniffer`` feeds raw frames to the same pipeline.

scapy is imported here and only here, when a live capture starts. Its job is the socket and the
BPF filter (compiled through libpcap); the bytes are handed over undissected (the socket's layer
class is set to ``Raw``) and kdiag's own parser, reassembly and codec do the rest, exactly as for
``kdiag pcap``. One socket per interface: Linux packet sockets cannot bind to "any", and on a
loopback interface the filter keeps only inbound copies, since every loopback packet is seen
twice (going out and coming in).

    with LiveCapture(iface="lo", pcap_out="run.pcap") as capture:
        report = run_bootstrap(...)
    summary = capture.summary(statuses)
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, BinaryIO

from kdiag.capture.flows import CaptureAnalyzer
from kdiag.capture.model import CaptureSummary, CaptureWarning
from kdiag.capture.pcapio import (
    LINKTYPE_ETHERNET,
    LINKTYPE_LINUX_SLL,
    LINKTYPE_LINUX_SLL2,
    LINKTYPE_RAW,
    CaptureError,
    PcapWriter,
    to_linux_sll,
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


# The frames a Linux packet socket hands over, by the device's ARPHRD type: Ethernet headers for
# Ethernet and loopback, bare IP for tun devices and IP tunnels.
_ARPHRD_LINKTYPES = {1: LINKTYPE_ETHERNET, 772: LINKTYPE_ETHERNET, 65534: LINKTYPE_RAW, 768: LINKTYPE_RAW,
                     769: LINKTYPE_RAW, 776: LINKTYPE_RAW, 778: LINKTYPE_RAW, 823: LINKTYPE_RAW}


def _linktype(sock: Any) -> int | None:
    try:
        hatype = sock.ins.getsockname()[3]
    except (AttributeError, OSError, IndexError):  # not a Linux packet socket: trust scapy's layer
        return {"Ether": LINKTYPE_ETHERNET, "CookedLinux": LINKTYPE_LINUX_SLL,
                "CookedLinuxV2": LINKTYPE_LINUX_SLL2}.get(sock.LL.__name__)
    return _ARPHRD_LINKTYPES.get(hatype)


class LiveCapture:
    """Sniffs TCP on ``iface`` (default: every interface that is up) while a probe runs.

    ``ports``: restrict the BPF filter to these ports (default: all TCP, since advertised ports are
    not known before the metadata arrives). ``kafka_ports``: server ports to treat as Kafka whatever
    the bytes (the bootstrap ports). ``pcap_out``: also write every captured frame to this pcap.
    """

    def __init__(self, *, iface: str | Sequence[str] | None = None, ports: Iterable[int] = (),
                 kafka_ports: Iterable[int] = (), pcap_out: str | None = None, keep_events: int = 5000,
                 start_timeout: float = 3.0) -> None:
        self.ifaces = [iface] if isinstance(iface, str) else list(iface or ())
        self.ports = tuple(ports)
        self.pcap_out = pcap_out
        self.start_timeout = start_timeout
        self.kafka_ports = tuple(kafka_ports)
        self.analyzer = CaptureAnalyzer(ports=self.kafka_ports, keep_events=keep_events)
        self._sniffer: Any = None
        self._sockets: list[Any] = []  # AsyncSniffer does not close sockets it was given: stop() does
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
        """Opens the sockets and starts sniffing; returns once the sniffer is running.

        Raises :class:`CapturePermissionError` without the privilege, :class:`CaptureError` when an
        interface cannot be captured on or ``pcap_out`` cannot be written.
        """
        check_capture_permission()
        if self.pcap_out is not None:
            try:
                self._out = open(self.pcap_out, "wb")  # noqa: SIM115 - closed in stop()
            except OSError as exc:
                raise CaptureError(f"cannot write --pcap-out {self.pcap_out}: {exc.strerror or exc}") from exc
        try:
            sockets = self._open_sockets(self.ifaces or interfaces_up())
            self._sockets = list(sockets)
            if self._out is not None:  # one link type for the file: the interfaces', or Linux cooked if they differ
                kinds = set(self._linktypes.values())
                self._writer = PcapWriter(self._out, kinds.pop() if len(kinds) == 1 else LINKTYPE_LINUX_SLL)
            from scapy.sendrecv import AsyncSniffer  # noqa: PLC0415 - scapy only when capturing

            started = threading.Event()
            self._sniffer = AsyncSniffer(opened_socket=sockets, prn=self._packet, store=False,
                                         started_callback=started.set)
            self._sniffer.start()
            if not started.wait(self.start_timeout):
                raise CaptureError(f"the packet capture did not start within {self.start_timeout:g} s")
        except BaseException:
            self.stop()
            raise

    def _open_sockets(self, ifaces: list[str]) -> dict[Any, str]:
        known = [name for _, name in socket.if_nameindex()]
        missing = [name for name in ifaces if name not in known]
        if missing:
            raise CaptureError(f"no network interface {missing[0]} here (there are: {', '.join(known)})")
        import scapy.layers.l2  # noqa: F401, PLC0415 - link types scapy knows (else it warns on lo)
        import scapy.sendrecv  # noqa: F401, PLC0415 - loads scapy's arch layer, which sets conf.L2listen
        from scapy.config import conf  # noqa: PLC0415
        from scapy.error import Scapy_Exception  # noqa: PLC0415

        sockets: dict[Any, str] = {}
        for name in ifaces:
            loopback = bool(_interface_flags(name) & _IFF_LOOPBACK)
            try:
                sock = conf.L2listen(iface=name, filter=bpf_filter(self.ports, loopback=loopback))
            except (OSError, Scapy_Exception) as exc:
                for opened in sockets:
                    opened.close()
                if isinstance(exc, PermissionError):
                    raise CapturePermissionError(PERMISSION_HINT) from exc
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise CaptureError(f"cannot capture on interface {name}: {reason}"
                                   + (" (install libpcap: the BPF filter is compiled with it)"
                                      if "libpcap" in reason else "")) from exc
            linktype = _linktype(sock)
            if linktype is None:
                sock.close()
                self.warnings.append(CaptureWarning(None, f"interface {name}: its link layer is not one kdiag "
                                                          "reads; not captured"))
                continue
            sock.LL = conf.raw_layer  # hand the frame over undissected
            sockets[sock] = name
            self._linktypes[name] = linktype
        if not sockets:
            raise CaptureError("no interface to capture on")
        return sockets

    def _packet(self, packet: Any) -> None:
        """Runs on the sniffer's thread for every frame."""
        data = bytes(packet)
        linktype = self._linktypes.get(packet.sniffed_on, LINKTYPE_ETHERNET)
        timestamp = float(packet.time)
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
        """Stops sniffing (idempotent), closes the sockets and ``pcap_out``."""
        sniffer, self._sniffer = self._sniffer, None
        if sniffer is not None:
            from scapy.error import Scapy_Exception  # noqa: PLC0415

            try:
                sniffer.stop(join=True)
            except Scapy_Exception as exc:  # the sniffer thread already ended (its socket failed)
                self.warnings.append(CaptureWarning(None, f"stopping the capture: {exc}"))
            with self._lock:
                self.analyzer.finish()
        sockets, self._sockets = self._sockets, []
        for sock in sockets:
            sock.close()
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
