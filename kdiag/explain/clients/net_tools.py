"""The tools a user tries a broker's port with before (or beside) a Kafka client: telnet, netcat, curl. Their lines
say whether the address resolved and the port connected, in their own words, and name the address but not its role:
a user tries the address the client was given (the bootstrap) as often as the one a broker advertises, so the role
comes from the rest of the paste, else both readings are given.

- telnet (netkit, GNU inetutils, BSD, busybox): ``Trying 192.0.2.1...``, then ``Connected to host.`` (a ``connected``
  fact: the port answered on that address) or ``telnet:
  Unable to connect to remote host: Connection refused``; BSD and netkit say ``telnet: connect to address 192.0.2.1:
  Connection refused`` per address, and ``telnet: could not resolve host/9092: Name or service not known``; busybox
  ``telnet: can't connect to remote host (192.0.2.1): Connection refused`` and ``telnet: bad address 'host'``;
- netcat: OpenBSD's ``nc: connect to host port 9092 (tcp) failed: Connection refused`` (macOS: ``connectx to``) and
  ``nc: getaddrinfo for host "host" port 9092: Name or service not known``; nmap's ncat ``Ncat: Connection refused.``,
  ``Ncat: TIMEOUT.``, ``Ncat: Could not resolve hostname "host": Name or service not known. QUITTING.``;
- curl: ``curl: (7) Failed to connect to host port 9092: Connection refused`` (7.x ``... after 3 ms: ...``, RHEL 7's
  ``Failed connect to host:9092; Connection refused``), ``curl: (6) Could not resolve host: host``, ``curl: (28)
  Connection timed out after 5001 milliseconds``.

The endpoint a line does not name is the one the command line or telnet's ``Trying`` just above named (``remember``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from kdiag.explain.clients.generic import failure_at, remember
from kdiag.explain.readings import OTHER_SERVICES
from kdiag.explain.sightings import HOST, TOOL, Fact, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_IP = r"[0-9A-Fa-f.:]*[0-9A-Fa-f]"
NEAR = 3
"""How many lines below a command line telnet's ``Trying`` may come and still be the same attempt."""


def _port(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() and 0 < int(text) < 65536 else None


def _said(scan: ScanState, words: str, host: str | None = None, port: int | None = None) -> Iterator[Item]:
    """A tool's words for a failed lookup or connect: ncat's bare ``TIMEOUT`` is a timed-out connect. A port another
    service listens on (Schema Registry's 8081, Connect's 8083, ZooKeeper's 2181: what curl and nc are most often
    pointed at beside Kafka) says nothing about a broker."""
    recent = scan.recent
    if (port or (recent[2] if host is None and recent is not None else None)) in OTHER_SERVICES:
        return
    yield from failure_at(scan, "timed out" if words.strip(" .") == "TIMEOUT" else words, host, port, client=TOOL)


# --- the command lines and telnet's "Trying": which endpoint the next lines are about ------------------------

_COMMAND = (rf"(?:^|[\s$#>])(?:telnet|nc|ncat|netcat)(?: -[A-Za-z]+(?: \d+)?)* (?P<host>{HOST})[ :](?P<port>\d{{1,5}})\b")


def _command(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    remember(scan, m.group("host"), _port(m.group("port")))
    return iter(())


for _tool in ("telnet", "nc", "ncat", "netcat"):
    pattern(f"tools.command.{_tool}", TOOL, f"{_tool} ", _COMMAND, f"$ {_tool} kafka-1.example 9092")(_command)


@pattern("telnet.trying", TOOL, "Trying ", rf"^\s*Trying (?P<addr>{_IP})\.\.\.\s*$", "Trying 192.0.2.10...")
def _trying(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    recent = scan.recent
    if recent is None or scan.line - recent[0] > NEAR:
        remember(scan, m.group("addr"), None)
    else:  # the command's name and port stay the endpoint, for each address telnet tries in turn
        remember(scan, recent[1], recent[2])
    return iter(())


@pattern("telnet.connected", TOOL, "Connected to ", rf"^\s*Connected to (?P<host>{HOST})\.\s*$", "Connected to kafka-1.")
def _connected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """The port connected, on the address ``Trying`` named last: the command's name and port, when it is the one."""
    recent, host = scan.recent, m.group("host").strip("[]")
    near = recent is not None and scan.line - recent[0] <= NEAR and recent[1] == host
    yield Fact("connected", host, recent[2] if near and recent is not None else None)


# --- what each tool says ---------------------------------------------------------------------------------------

@pattern("telnet.unable", TOOL, "Unable to connect to remote host",
         r"telnet: Unable to connect to remote host(?:: (?P<why>.+))?",
         "telnet: Unable to connect to remote host: Connection timed out")
def _telnet_unable(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _said(scan, m.group("why") or "")


def _at_address(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """One address of the endpoint refused or timed out (telnet tries each address of the name in turn): the name the
    command gave is the endpoint, the address the one tried (localhost's ::1 refused, then 127.0.0.1 connected: a
    listener bound to IPv4 only)."""
    recent = scan.recent
    address = m.group("addr").strip("[]")
    host = recent[1] if recent is not None and scan.line - recent[0] <= NEAR else address
    for sighting in _said(scan, m.group("why"), host, recent[2] if recent is not None and host == recent[1] else None):
        yield replace(sighting, address=address) if isinstance(sighting, Sighting) else sighting


pattern("telnet.address", TOOL, "connect to address ", r"telnet: connect to address (?P<addr>\S+): (?P<why>.+)",
        "telnet: connect to address 192.0.2.10: Connection refused")(_at_address)


@pattern("telnet.resolve", TOOL, "could not resolve ", rf"telnet: could not resolve (?P<host>{HOST})/(?P<port>\S+): "
         r"(?P<why>.+)", "telnet: could not resolve kafka-1.example/9092: Name or service not known")
def _telnet_resolve(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _said(scan, m.group("why"), m.group("host"), _port(m.group("port")))


@pattern("busybox.cannot_connect", TOOL, "can't connect to remote host",
         rf"(?:telnet|nc): can't connect to remote host \((?P<addr>{_IP})\): (?P<why>.+)",
         "telnet: can't connect to remote host (192.0.2.10): Connection refused")
def _busybox_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _at_address(m, scan)


@pattern("busybox.bad_address", TOOL, "bad address '", rf"(?:telnet|nc): bad address '(?P<host>{HOST})'",
         "telnet: bad address 'kafka-1.example'")
def _busybox_bad_address(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _said(scan, "Name or service not known", m.group("host"))


@pattern("nc.connect", TOOL, " port ", rf"\bnc: connectx? to (?P<host>{HOST}) port (?P<port>\d{{1,5}}) \((?:tcp|udp)\) "
         r"failed: (?P<why>.+)", "nc: connect to kafka-1.example port 9092 (tcp) failed: Connection refused")
def _nc_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _said(scan, m.group("why"), m.group("host"), _port(m.group("port")))


@pattern("nc.getaddrinfo", TOOL, "getaddrinfo for host ", rf'getaddrinfo for host "(?P<host>{HOST})" port '
         r"(?P<port>\d{1,5}): (?P<why>.+)", 'nc: getaddrinfo for host "kafka-1.example" port 9092: Name or service '
         "not known")
def _nc_getaddrinfo(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _said(scan, m.group("why"), m.group("host"), _port(m.group("port")))


@pattern("ncat.said", TOOL, "Ncat: ", rf'Ncat: (?:Could not resolve hostname "(?P<host>{HOST})": (?P<lookup>[^.]+)'
         r"|(?P<why>Connection refused|Connection timed out|TIMEOUT|No route to host|Network is unreachable))",
         "Ncat: Connection refused.")
def _ncat(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("host"):
        yield from _said(scan, m.group("lookup"), m.group("host"))
    else:
        yield from _said(scan, m.group("why"))


@pattern("curl.connect", TOOL, "curl: (", rf"curl: \((?:7|28)\) (?:Failed to connect to (?P<host>{HOST}) port "
         rf"(?P<port>\d{{1,5}})(?: after \d+ ms)?: (?P<why>.+)|Failed connect to (?P<host2>{HOST}):(?P<port2>\d{{1,5}}); "
         r"(?P<why2>.+)|(?P<timeout>Connection timed out) after \d+ milliseconds)",
         "curl: (7) Failed to connect to kafka-1.example port 9092 after 3 ms: Connection refused")
def _curl_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    host, port = m.group("host") or m.group("host2"), _port(m.group("port") or m.group("port2"))
    yield from _said(scan, m.group("why") or m.group("why2") or m.group("timeout"), host, port)


@pattern("curl.resolve", TOOL, "Could not resolve host: ", rf"curl: \(6\) Could not resolve host: (?P<host>{HOST})",
         "curl: (6) Could not resolve host: kafka-1.example")
def _curl_resolve(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _said(scan, "Failed host lookup", m.group("host"))
