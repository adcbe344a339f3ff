"""librdkafka's name for a broker connection at the head of its lines: ``[proto://]host:port/(bootstrap|node id)``
(``RdBroker``), and the ``(after Nms in state S)`` it ends its lines with."""

from __future__ import annotations

import re
from dataclasses import dataclass

from collections.abc import Iterator

from kdiag.diagnose.hosts import LOOPBACK, classify_host
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, CONNECT, COORDINATOR, HOST, LIBRDKAFKA, REDACTED, RESOLVE,
                                     UNKNOWN, Fact, Item, ScanState, Sighting, dns_status, split_endpoint, tcp_status)

# librdkafka's name for a broker connection: [proto://]host:port/(bootstrap|node id)
# (an empty host, ``:9092/1``, is a broker that advertised none: librdkafka names it so, after the thread's ``thrd:``,
# a space or ``proto://``)
_RD_BROKER = re.compile(rf"(?:(?P<proto>[a-z_]+)://)?(?P<host>{HOST}(?:\.\*+\.{HOST})?|(?:(?<=thrd:)|(?<=\s)|(?<=//)))"
                        r":(?P<port>\d{1,5})/(?P<id>bootstrap|-?\d+)\b")  # b-1.***.kafka.x
AFTER_STATE = re.compile(r"\s*\(after \d+ms in state [A-Z_]+(?:, \d+ identical error\(s\) suppressed)?\)\s*$")
CLOSED_HOW = (r"(?:(?:connection (?:closed|reset) by peer|SSL connection closed by peer)(?:: receive 0 after POLLIN"
              r"|: POLLHUP)?|hung up from peer in state [A-Z_]+)")
"""How a connection closed, in the words librdkafka >= 2.11.1 puts after ``Disconnected:`` (rdkafka_transport.c, ..._ssl.c);
1.x and 2.0-2.10 said ``Disconnected`` alone."""
CUT_NEAR = 2
"""How far below a line cut after its broker's name the rest may come (a structured logger may put a line between)."""
_PROTOCOLS = {"plaintext": "PLAINTEXT", "ssl": "SSL", "sasl_plaintext": "SASL_PLAINTEXT", "sasl_ssl": "SASL_SSL"}


@dataclass(frozen=True)
class RdBroker:
    """The librdkafka broker name at the head of a line: what endpoint, which role, which protocol."""

    host: str | None = None
    port: int | None = None
    node_id: int | None = None
    role: str = UNKNOWN
    protocol: str | None = None

    @classmethod
    def find(cls, line: str, scan: ScanState | None = None) -> RdBroker:
        """The name after the thread's (``[thrd:a:9092/bootstrap]: a:9092/1: ...``): kcat's librdkafka 2.0 logs
        broker 1's failures from the bootstrap's thread when both are one address. With ``scan``, a line that names
        none goes on a line just above that a paste cut after its name (``librdkafka_cut``)."""
        after_thread = line.find("]: ")
        m = _RD_BROKER.match(line, after_thread + 3) if after_thread >= 0 else None
        m = m or _RD_BROKER.search(line)
        if m is None:  # the consumer group's coordinator: librdkafka names its connection GroupCoordinator
            if "GroupCoordinator" in line:
                return cls(role=COORDINATOR)
            return cls.cut_above(scan) if scan is not None else cls()
        ident = m.group("id")
        node_id = None if ident == "bootstrap" else int(ident)
        role = BOOTSTRAP if ident == "bootstrap" or (node_id is not None and node_id < 0) else ADVERTISED
        protocol = _PROTOCOLS.get(m.group("proto") or "", None)
        return cls(m.group("host").strip("[]"), int(m.group("port")), node_id, role, protocol)

    @classmethod
    def cut_above(cls, scan: ScanState) -> RdBroker:
        """The broker whose name a line just above ends with, its message cut there (``librdkafka_cut``), else none."""
        cut = scan.rd_cut
        if cut is not None and 0 < scan.line - cut[0] <= CUT_NEAR and isinstance(cut[1], RdBroker):
            return cut[1]
        return cls()

    def sighting(self, symptom: str, **extra: object) -> Sighting:
        values: dict[str, object] = {"host": self.host, "port": self.port, "node_id": self.node_id,
                                     "role": self.role, "protocol": self.protocol}
        values.update({k: v for k, v in extra.items() if v is not None})
        return Sighting(symptom, LIBRDKAFKA, **values)  # type: ignore[arg-type]


def resolve_failed(m: re.Match[str], scan: ScanState, role: str | None = None) -> Iterator[Item]:
    """``... resolve 'h:p': why``, whole (``Failed to resolve``) or its rest below a line cut after the broker's name:
    the name that did not resolve, from the broker connection the line (or the cut line above) names; ``role`` the
    role the line's facility gives a line that names no connection."""
    broker = RdBroker.find(m.string, scan)
    if role is not None and broker.host is None:
        broker = RdBroker(role=role)
    host, port = split_endpoint(m.group("hp"))
    why = AFTER_STATE.sub("", m.group("why") or "")
    yield broker.sighting(RESOLVE, host=host or broker.host, port=port or broker.port,
                          status=dns_status(why, "nxdomain"), detail=why or None)


def connect_failed(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """``Connect to ipv4#a:p failed: why``, whole or its rest below a line cut after the broker's name: the connection
    the line (or the cut line above) names, at the address it tried; a hidden address (``<ip-address-1>``, ``***``,
    ``xxx.xxx.xxx.xxx``) is no address, the broker's name stays."""
    broker = RdBroker.find(m.string, scan)
    if broker.node_id is not None and broker.node_id >= 0:  # a connection by node id: the metadata named it
        yield Fact("metadata")
    address = None if re.fullmatch(REDACTED, m.group("addr")) else m.group("addr").strip("[]")
    status, guess = connect_status(m.group("why"), address), None
    after = re.search(r"\(after (\d+)ms in state CONNECT", m.string)
    # (an advertised broker's failed connect is ADVERTISED_UNREACHABLE whatever its status; a bootstrap's is not)
    if status == "error" and m.group("why").strip().startswith("Unknown error") and after and broker.role == BOOTSTRAP:
        status, guess = windows_connect(int(after.group(1)))
    other = {"refused": "BOOTSTRAP_TIMEOUT", "timeout": "BOOTSTRAP_REFUSED"}.get(status)
    yield broker.sighting(CONNECT, address=address, port=broker.port or int(m.group("port")),
                          host=address if broker.host is None else broker.host, status=status,
                          detail=m.group("why").strip(), guess=guess, alternatives=(other,) if guess else None)


WINDOWS_REFUSED_MS = 5000
"""Windows answers a refused connect after retrying its SYN twice (about 2 s) and gives up on an unanswered one after
21 s (three SYNs): an ``Unknown error`` sooner than this is likely the refusal, later the timeout."""


def windows_connect(after_ms: int) -> tuple[str, str]:
    """The likely TCP status of librdkafka's ``Unknown error`` (a Winsock code strerror does not know) at a bootstrap
    address that is not loopback, from how long the connect took, and the words that say so."""
    if after_ms < WINDOWS_REFUSED_MS:
        return "refused", (f"Unknown error after {after_ms} ms: on Windows a refused connect, answered after two SYN "
                           "retries (or another Winsock error)")
    return "timeout", (f"Unknown error after {after_ms} ms: on Windows a connect no SYN answered gives up after 21 s "
                       "(or another Winsock error)")


def connect_status(why: str, address: str | None) -> str:
    """The TCP status of a failed connect's words. rdkafka_transport.c words a non-blocking connect's SO_ERROR with
    rd_strerror, the C runtime's strerror, which on Windows knows no Winsock code: WSAECONNREFUSED prints ``Unknown
    error`` (after about 2 s: Windows retries a refused SYN twice). On a loopback address nothing between can drop the
    SYN or lack a route, so there it is a refusal; elsewhere it says nothing more."""
    status = tcp_status(why)
    if status == "error" and why.strip().startswith("Unknown error") and address is not None \
            and classify_host(address).kind == LOOPBACK:
        return "refused"
    return status
