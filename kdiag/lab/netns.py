"""Declarative, self-cleaning network-namespace topologies for the kdiag lab.

A :class:`Topology` is plain data: hosts (one network namespace each), veth
links between them, routes, DNS servers, Docker-style port publishing (DNAT)
and firewall rules. :func:`lab_up` turns it into a live lab and tears it all
down again when the ``with`` block ends, when a step fails halfway through,
on an exception, on Ctrl-C and on SIGTERM/SIGHUP::

    topology = Topology(
        name="pub",
        hosts=(Host("client"), Host("docker", forward=True), Host("broker")),
        links=(
            Link("client", "192.0.2.10", "docker", "192.0.2.1"),
            Link("docker", "198.51.100.1", "broker", "198.51.100.2"),
        ),
        dnats=(Dnat("docker", "192.0.2.1", 29092, "198.51.100.2", 19092),),
    )
    with lab_up(topology) as live:
        live.run("client", ["kdiag", "bootstrap", "192.0.2.1:29092"], timeout=60)

Safety: every address must lie in the documentation ranges 192.0.2.0/24,
198.51.100.0/24, 203.0.113.0/24 or on loopback, and no namespace is ever
connected to the root namespace, so lab traffic cannot leave the lab. The
root namespace's routes, iptables rules, sysctls and ``/etc/hosts`` are never
touched: every iptables rule and sysctl lives inside a lab namespace, and
name-service files go to ``/etc/netns/<ns>/``, which ``ip netns exec``
bind-mounts over ``/etc/<file>`` for the commands it runs (ip-netns(8)).

Names. A lab's namespaces are called ``<prefix><topology>-<tag>-<host>``
(``kd-pub-3f9a-client``) where ``tag`` is random per run, so two runs of the
same topology never collide. Inside a namespace, the k-th link the host takes
part in (in ``Topology.links`` order) is the interface ``eth<k>``.

Name resolution inside a host (what ``socket.getaddrinfo`` and dnspython see):

* ``/etc/hosts`` holds ``127.0.0.1 localhost``, ``::1 localhost``,
  ``127.0.1.1 <machine hostname>`` (as Debian does, so a JVM can resolve its
  own hostname) and the host's ``hosts`` entries. dnspython never reads it.
* ``nsswitch.conf`` is the machine's with ``hosts: files dns``, so no NSS
  module (systemd-resolved, mDNS, ...) can carry a lookup out of the lab.
* ``resolv.conf`` has ``options timeout:1 attempts:1``. With ``resolv=None``
  its nameserver is 127.0.0.1, served by a private dnsmasq that answers
  NXDOMAIN for every name: an unknown name fails in about a millisecond,
  ``gaierror(EAI_NONAME, -2)`` and ``dns.resolver.NXDOMAIN``. With ``resolv``
  given, those nameservers are used (a lab :class:`Dns`, or an address
  nothing answers on to model a dead resolver: nothing listening gives
  ``EAI_AGAIN`` (-3) at once from getaddrinfo while dnspython waits out its
  lifetime; an on-link address nobody owns gives ``EAI_AGAIN`` after 1 s).

What a :class:`Dns` server answers (verified with dnsmasq 2.90):

==========================  ============  =========================  =======================================
name                        DNS answer    ``getaddrinfo``            dnspython ``resolve``
==========================  ============  =========================  =======================================
in ``records``              A record      the address                the address
under ``nxdomain_zones``    NXDOMAIN      ``EAI_NONAME`` (-2), ~1ms  ``NXDOMAIN``
under ``servfail_names``    SERVFAIL      ``EAI_AGAIN`` (-3), ~1ms   ``NoNameservers`` ("answered SERVFAIL")
under ``timeout_names``     no answer     ``EAI_AGAIN`` after 1 s    ``LifetimeTimeout`` after its lifetime
anything else               REFUSED       ``EAI_AGAIN`` (-3), ~1ms   ``NoNameservers`` ("answered REFUSED")
==========================  ============  =========================  =======================================

dnsmasq turns a dead or looping upstream into REFUSED, never SERVFAIL. The
SERVFAIL comes from DNSSEC instead: the server holds a (made-up) trust anchor
for each servfail name and forwards it to an unsigned upstream in the same
namespace, so every answer fails validation (BOGUS), as a broken DNSSEC
zone does in real life.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal, Union

__all__ = [
    "DEFAULT_PREFIX",
    "Dnat",
    "Dns",
    "Firewall",
    "Host",
    "LabError",
    "Link",
    "LiveTopology",
    "Route",
    "Topology",
    "cleanup_stale",
    "lab_up",
    "require_root",
]

DEFAULT_PREFIX = "kd-"
"""Every namespace, ``/etc/netns`` entry and state directory of a lab starts with this."""

LAB_NETWORKS = tuple(
    ipaddress.ip_network(cidr) for cidr in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
)
"""The only non-loopback addresses a lab may use (RFC 5737 documentation ranges)."""

STATE_ROOT = Path("/run/kdiag-lab")
NETNS_ETC = Path("/etc/netns")
NETNS_RUN = Path("/run/netns")

COMMAND_TIMEOUT = 10.0
"""Seconds any one setup or teardown command may take."""
DNS_READY_TIMEOUT = 5.0
"""Seconds a dnsmasq may take to bind its port."""
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL when stopping processes inside a lab."""

_NULL_RESOLVER = "127.0.0.1"
"""Where a host with ``resolv=None`` finds its answer-NXDOMAIN-to-everything resolver."""
_UNSIGNED_UPSTREAM = "127.83.0.1"
"""Loopback address of the unsigned upstream that makes servfail names fail DNSSEC validation."""
_SILENT_UPSTREAM = "127.83.0.9#9"
"""A loopback UDP port nobody listens on: dnsmasq ignores the ICMP error and the client times out."""
_RESERVED_LOOPBACK = ipaddress.ip_network("127.83.0.0/16")
_FAKE_DS = "12345,8,2," + "00" * 32
"""A DS record no key can match, for DNSSEC trust anchors that make validation fail."""
_NAME_SYNTAX = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_DNS_NAME_SYNTAX = re.compile(r"(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?")

FirewallAction = Literal["drop", "reject", "reject-host-unreachable"]
_FIREWALL_TARGETS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "drop": ("-j", "DROP"),
        "reject": ("-j", "REJECT"),  # icmp-port-unreachable: the client sees ECONNREFUSED
        "reject-host-unreachable": ("-j", "REJECT", "--reject-with", "icmp-host-unreachable"),  # EHOSTUNREACH
    }
)


class LabError(Exception):
    """The network lab could not be built, used or torn down.

    ``step`` names the setup step that failed, ``argv`` the command it ran and
    ``stderr`` what the command said; all three are empty for errors found
    before anything was created (an invalid topology, missing root).
    """

    def __init__(self, message: str, *, step: str = "", argv: Sequence[str] = (), stderr: str = "") -> None:
        super().__init__(message)
        self.step = step
        self.argv = tuple(argv)
        self.stderr = stderr

    @classmethod
    def step_failed(cls, step: str, argv: Sequence[str], stderr: str) -> LabError:
        reason = stderr.strip() or "failed without error output"
        return cls(f"step {step} failed: {shlex.join(argv)}: {reason}", step=step, argv=argv, stderr=stderr)


# --------------------------------------------------------------------------- declaration


@dataclass(frozen=True)
class Host:
    """One network namespace.

    ``hosts`` maps a name to the addresses ``/etc/hosts`` gives it there;
    ``resolv`` lists the nameservers of its ``resolv.conf`` (``None``: a private
    resolver that answers NXDOMAIN to everything); ``forward`` turns on IPv4
    forwarding (a router, or a Docker host).
    """

    name: str
    hosts: Mapping[str, Sequence[str]] = field(default_factory=dict)
    resolv: Sequence[str] | None = None
    forward: bool = False

    def __post_init__(self) -> None:
        frozen = {
            name: (addresses,) if isinstance(addresses, str) else tuple(addresses) for name, addresses in self.hosts.items()
        }
        object.__setattr__(self, "hosts", MappingProxyType(frozen))
        if self.resolv is not None:
            object.__setattr__(self, "resolv", tuple(self.resolv))


@dataclass(frozen=True)
class Link:
    """A veth pair between hosts ``a`` and ``b``; a bare address gets a /24."""

    a: str
    a_addr: str
    b: str
    b_addr: str


@dataclass(frozen=True)
class Route:
    """``ip route add dest_cidr via via`` in ``host``; ``dest_cidr`` may be ``"default"``."""

    host: str
    dest_cidr: str
    via: str


@dataclass(frozen=True)
class Dns:
    """A dnsmasq in ``host`` answering on ``listen`` port 53 (see the module docstring for what each yields).

    ``records`` maps a name to its IPv4 address. Names under ``nxdomain_zones``
    get NXDOMAIN (``"#"``, the default, means every name not otherwise
    configured; pass ``()`` to have unknown names REFUSED). Names under
    ``servfail_names`` get SERVFAIL, under ``timeout_names`` no answer at all.
    """

    host: str
    listen: str
    records: Mapping[str, str] = field(default_factory=dict)
    nxdomain_zones: Sequence[str] = ("#",)
    servfail_names: Sequence[str] = ()
    timeout_names: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "records", MappingProxyType(dict(self.records)))
        for attribute in ("nxdomain_zones", "servfail_names", "timeout_names"):
            value = getattr(self, attribute)
            if isinstance(value, str):
                raise LabError(f"invalid topology: Dns.{attribute} must be a sequence of names, not the string {value!r}")
            object.__setattr__(self, attribute, tuple(value))


@dataclass(frozen=True)
class Dnat:
    """Publish ``to_addr:to_port`` as ``match_addr:match_port`` from ``host``, as Docker's ``-p`` does.

    Connections arriving at ``host`` (PREROUTING) and made on ``host`` itself
    (OUTPUT; ``match_addr`` may be loopback, like ``localhost:9092``) are
    rewritten. With ``masquerade`` the target sees ``host`` as the peer, so it
    needs no route back to the client.
    """

    host: str
    match_addr: str
    match_port: int
    to_addr: str
    to_port: int
    masquerade: bool = True


@dataclass(frozen=True)
class Firewall:
    """Filter ``proto`` traffic to ``port`` in ``host``: addressed to it (INPUT) or forwarded through it (FORWARD).

    ``port`` is the port the client dialled: in FORWARD it is matched before
    any DNAT in the same host, so a firewall on a published port works.
    ``drop`` makes a connect time out, ``reject`` gives ECONNREFUSED and
    ``reject-host-unreachable`` gives EHOSTUNREACH.
    """

    host: str
    port: int
    action: FirewallAction = "drop"
    proto: Literal["tcp", "udp"] = "tcp"


@dataclass(frozen=True)
class Topology:
    """A whole lab. ``name`` is short (up to 12 of ``a-z0-9-``) and appears in every namespace name."""

    name: str
    hosts: Sequence[Host]
    links: Sequence[Link] = ()
    routes: Sequence[Route] = ()
    dns: Sequence[Dns] = ()
    dnats: Sequence[Dnat] = ()
    firewalls: Sequence[Firewall] = ()

    def __post_init__(self) -> None:
        for attribute in ("hosts", "links", "routes", "dns", "dnats", "firewalls"):
            object.__setattr__(self, attribute, tuple(getattr(self, attribute)))


# --------------------------------------------------------------------------- validation


def _is_lab_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(address in network for network in LAB_NETWORKS)


def _parse_address(text: str, what: str, *, loopback_ok: bool) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise LabError(f"invalid topology: {what} {text!r} is not an IP address") from None
    if _is_lab_address(address) or (loopback_ok and address.is_loopback):
        return address
    allowed = ", ".join(str(network) for network in LAB_NETWORKS) + (" or loopback" if loopback_ok else "")
    raise LabError(f"invalid topology: {what} {text} is outside the lab ranges ({allowed})")


def _parse_interface(text: str, what: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    try:
        interface = ipaddress.ip_interface(text if "/" in text else f"{text}/24")
    except ValueError:
        raise LabError(f"invalid topology: {what} {text!r} is not an address with an optional /prefix") from None
    _parse_address(str(interface.ip), what, loopback_ok=False)
    return interface


def _check_name(text: str, what: str, max_length: int) -> None:
    if len(text) > max_length or not _NAME_SYNTAX.fullmatch(text):
        raise LabError(f"invalid topology: {what} {text!r} must be 1-{max_length} of a-z, 0-9 and inner '-'")


def _check_dns_name(text: str, what: str) -> None:
    if not _DNS_NAME_SYNTAX.fullmatch(text):
        raise LabError(f"invalid topology: {what} {text!r} is not a DNS name")
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(text)
        raise LabError(f"invalid topology: {what} {text!r} is an address; map names to addresses, not the reverse")


def _check_port(port: int, what: str) -> None:
    if not isinstance(port, int) or not 0 < port < 65536:
        raise LabError(f"invalid topology: {what} {port!r} is not a port number")


def validate(topology: Topology) -> None:
    """Raise :class:`LabError` if ``topology`` is malformed or uses an address outside the lab ranges."""
    _check_name(topology.name, "topology name", 12)
    names = [host.name for host in topology.hosts]
    if not names:
        raise LabError("invalid topology: it has no hosts")
    for name in names:
        _check_name(name, "host name", 15)
    if len(set(names)) != len(names):
        raise LabError(f"invalid topology: duplicate host names in {names}")

    def known(host: str, what: str) -> None:
        if host not in names:
            raise LabError(f"invalid topology: {what} names unknown host {host!r} (hosts: {', '.join(names)})")

    for host in topology.hosts:
        for name, addresses in host.hosts.items():
            _check_dns_name(name, f"host {host.name}: hosts entry")
            if not addresses:
                raise LabError(f"invalid topology: host {host.name}: hosts entry {name} has no address")
            for address in addresses:
                _parse_address(address, f"host {host.name}: hosts entry {name} ->", loopback_ok=True)
        for address in host.resolv or ():
            _parse_address(address, f"host {host.name}: nameserver", loopback_ok=True)
    subnets: dict[str, list[ipaddress.IPv4Network | ipaddress.IPv6Network]] = {}
    for link in topology.links:
        known(link.a, "a link")
        known(link.b, "a link")
        if link.a == link.b:
            raise LabError(f"invalid topology: link from {link.a} to itself")
        for host, address in ((link.a, link.a_addr), (link.b, link.b_addr)):
            network = _parse_interface(address, f"link {link.a}<->{link.b}: address of {host}").network
            for other in subnets.setdefault(host, []):
                if network.overlaps(other):  # replies would leave by whichever interface routes first
                    raise LabError(f"invalid topology: host {host} has two links in overlapping subnets {other} and {network}")
            subnets[host].append(network)
    for route in topology.routes:
        known(route.host, "a route")
        if route.dest_cidr != "default":
            try:
                destination = ipaddress.ip_network(route.dest_cidr)
            except ValueError:
                raise LabError(f"invalid topology: route destination {route.dest_cidr!r} is not a network") from None
            if not any(destination.subnet_of(network) for network in LAB_NETWORKS if network.version == destination.version):
                raise LabError(f"invalid topology: route destination {route.dest_cidr} is outside the lab ranges")
        _parse_address(route.via, f"route {route.dest_cidr} in {route.host}: gateway", loopback_ok=False)
    listeners: set[tuple[str, str]] = set()
    for server in topology.dns:
        known(server.host, "a Dns server")
        listen = _parse_address(server.listen, f"Dns in {server.host}: listen address", loopback_ok=True)
        if listen.version != 4 or listen in _RESERVED_LOOPBACK:
            raise LabError(f"invalid topology: Dns in {server.host}: listen address {listen} must be IPv4 outside {_RESERVED_LOOPBACK}")
        if (server.host, server.listen) in listeners:
            raise LabError(f"invalid topology: two Dns servers on {server.listen} in {server.host}")
        listeners.add((server.host, server.listen))
        for name, address in server.records.items():
            _check_dns_name(name, f"Dns in {server.host}: record")
            if _parse_address(address, f"Dns in {server.host}: record {name} ->", loopback_ok=True).version != 4:
                raise LabError(f"invalid topology: Dns in {server.host}: record {name} -> {address} must be IPv4")
        for zone in server.nxdomain_zones:
            if zone != "#":
                _check_dns_name(zone, f"Dns in {server.host}: nxdomain zone")
        for name in (*server.servfail_names, *server.timeout_names):
            _check_dns_name(name, f"Dns in {server.host}: servfail/timeout name")
    for dnat in topology.dnats:
        known(dnat.host, "a Dnat")
        match = _parse_address(dnat.match_addr, f"Dnat in {dnat.host}: match address", loopback_ok=True)
        target = _parse_address(dnat.to_addr, f"Dnat in {dnat.host}: target address", loopback_ok=True)
        if match.version != 4 or target.version != 4:
            raise LabError(f"invalid topology: Dnat in {dnat.host}: IPv4 addresses only")
        _check_port(dnat.match_port, f"Dnat in {dnat.host}: match port")
        _check_port(dnat.to_port, f"Dnat in {dnat.host}: target port")
    for firewall in topology.firewalls:
        known(firewall.host, "a Firewall")
        _check_port(firewall.port, f"Firewall in {firewall.host}: port")
        if firewall.action not in _FIREWALL_TARGETS:
            raise LabError(f"invalid topology: Firewall action {firewall.action!r} is not one of {', '.join(_FIREWALL_TARGETS)}")
        if firewall.proto not in ("tcp", "udp"):
            raise LabError(f"invalid topology: Firewall proto {firewall.proto!r} is not tcp or udp")


# --------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class RunStep:
    """Run one command in the root namespace (it enters a lab namespace itself, via ``ip -n``/``ip netns exec``)."""

    step: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class WriteStep:
    """Write one file under ``/etc/netns/<ns>/``."""

    step: str
    path: Path
    text: str


@dataclass(frozen=True)
class DnsmasqStep:
    """Start a dnsmasq (``argv``, run inside ``ns``) and wait until it listens on ``listen`` port 53."""

    step: str
    ns: str
    listen: str
    pid_file: Path
    argv: tuple[str, ...]


Step = Union[RunStep, WriteStep, DnsmasqStep]


@dataclass(frozen=True)
class Layout:
    """Where a run of a topology lives: its namespace names and its state directory."""

    group: str
    namespaces: Mapping[str, str]
    state_dir: Path

    @classmethod
    def for_run(cls, topology: Topology, prefix: str, tag: str) -> Layout:
        group = f"{prefix}{topology.name}-{tag}"
        namespaces = MappingProxyType({host.name: f"{group}-{host.name}" for host in topology.hosts})
        return cls(group=group, namespaces=namespaces, state_dir=STATE_ROOT / group)


def _in_ns(ns: str, *argv: str) -> tuple[str, ...]:
    return ("ip", "netns", "exec", ns, *argv)


def _iptables(ns: str, *rule: str) -> tuple[str, ...]:
    return _in_ns(ns, "iptables", "-w", "5", *rule)


def _sysctl(ns: str, setting: str) -> tuple[str, ...]:
    return _in_ns(ns, "sysctl", "-q", "-w", setting)


def _hosts_text(host: Host, machine_hostname: str) -> str:
    lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost"]
    if machine_hostname not in host.hosts and machine_hostname != "localhost":
        lines.append(f"127.0.1.1\t{machine_hostname}")
    lines += [f"{address}\t{name}" for name, addresses in host.hosts.items() for address in addresses]
    return "\n".join(lines) + "\n"


def _resolv_text(host: Host) -> str:
    nameservers = (_NULL_RESOLVER,) if host.resolv is None else host.resolv
    lines = [f"nameserver {address}" for address in nameservers]
    lines.append("options timeout:1 attempts:1")
    return "\n".join(lines) + "\n"


def _nsswitch_text(machine_nsswitch: str) -> str:
    """The machine's nsswitch.conf with hosts from files and DNS only, so no NSS module leaves the lab."""
    kept = [line for line in machine_nsswitch.splitlines() if not re.match(r"\s*hosts\s*:", line)]
    return "\n".join([*kept, "hosts:          files dns"]) + "\n"


def _dnsmasq_step(step: str, layout: Layout, host: str, label: str, listen: str, *options: str) -> DnsmasqStep:
    """A dnsmasq answering only from its command line; ``label`` names its pid file and query log in the state dir."""
    pid_file = layout.state_dir / f"dnsmasq-{label}.pid"
    argv = (
        "dnsmasq",
        "--keep-in-foreground",
        "--conf-file=/dev/null",
        "--no-resolv",
        "--no-hosts",
        "--bind-interfaces",
        f"--listen-address={listen}",
        "--port=53",
        f"--pid-file={pid_file}",
        "--log-queries",
        f"--log-facility={layout.state_dir / f'dnsmasq-{label}.log'}",
        *options,
    )
    return DnsmasqStep(step, layout.namespaces[host], listen, pid_file, argv)


def _dns_steps(topology: Topology, layout: Layout) -> list[Step]:
    steps: list[Step] = []
    local_servers = {server.host for server in topology.dns if server.listen == _NULL_RESOLVER}
    for host in topology.hosts:
        if host.resolv is None and host.name not in local_servers:
            steps.append(
                _dnsmasq_step(
                    f"start the NXDOMAIN-to-everything resolver of {host.name}",
                    layout, host.name, f"{host.name}-null", _NULL_RESOLVER, "--local=/#/",
                )
            )
    for name in sorted({server.host for server in topology.dns if server.servfail_names}):
        steps.append(
            _dnsmasq_step(
                f"start the unsigned upstream for servfail names in {name}",
                layout, name, f"{name}-unsigned", _UNSIGNED_UPSTREAM, "--local=/#/",
            )
        )
    for index, server in enumerate(topology.dns):
        options = [f"--host-record={name},{address}" for name, address in server.records.items()]
        options += [f"--local=/{zone}/" for zone in server.nxdomain_zones]
        if server.servfail_names:
            options += ["--dnssec", f"--trust-anchor=.,{_FAKE_DS}"]
            for name in server.servfail_names:
                options += [f"--trust-anchor={name},{_FAKE_DS}", f"--server=/{name}/{_UNSIGNED_UPSTREAM}"]
        options += [f"--server=/{name}/{_SILENT_UPSTREAM}" for name in server.timeout_names]
        steps.append(
            _dnsmasq_step(f"start Dns {server.listen} in {server.host}", layout, server.host, f"{server.host}-{index}", server.listen, *options)
        )
    return steps


def plan(topology: Topology, layout: Layout, *, machine_hostname: str, machine_nsswitch: str | None) -> tuple[Step, ...]:
    """Every step that brings ``topology`` up, in order. Pure: nothing is run."""
    ns = layout.namespaces
    steps: list[Step] = []
    forwarding = {host.name for host in topology.hosts if host.forward} | {dnat.host for dnat in topology.dnats}
    for host in topology.hosts:
        etc = NETNS_ETC / ns[host.name]
        steps.append(RunStep(f"create namespace for {host.name}", ("ip", "netns", "add", ns[host.name])))
        steps.append(WriteStep(f"write hosts of {host.name}", etc / "hosts", _hosts_text(host, machine_hostname)))
        steps.append(WriteStep(f"write resolv.conf of {host.name}", etc / "resolv.conf", _resolv_text(host)))
        if machine_nsswitch is not None:
            steps.append(WriteStep(f"write nsswitch.conf of {host.name}", etc / "nsswitch.conf", _nsswitch_text(machine_nsswitch)))
        steps.append(RunStep(f"bring up lo in {host.name}", ("ip", "-n", ns[host.name], "link", "set", "lo", "up")))
        if host.name in forwarding:
            steps.append(RunStep(f"enable forwarding in {host.name}", _sysctl(ns[host.name], "net.ipv4.ip_forward=1")))

    interface_count: dict[str, int] = {}
    for link in topology.links:
        label = f"link {link.a}<->{link.b}"
        ends = []
        for host, address in ((link.a, link.a_addr), (link.b, link.b_addr)):
            index = interface_count.get(host, 0)
            interface_count[host] = index + 1
            ends.append((ns[host], f"eth{index}", str(_parse_interface(address, label))))
        (ns_a, if_a, _), (ns_b, if_b, _) = ends
        steps.append(RunStep(f"{label}: create veth", ("ip", "-n", ns_a, "link", "add", if_a, "type", "veth", "peer", "name", if_b, "netns", ns_b)))
        for end_ns, interface, address in ends:
            steps.append(RunStep(f"{label}: address {address}", ("ip", "-n", end_ns, "addr", "add", address, "dev", interface)))
            steps.append(RunStep(f"{label}: bring up {interface}", ("ip", "-n", end_ns, "link", "set", interface, "up")))

    for route in topology.routes:
        steps.append(
            RunStep(f"route {route.dest_cidr} via {route.via} in {route.host}", ("ip", "-n", ns[route.host], "route", "add", route.dest_cidr, "via", route.via))
        )

    for firewall in topology.firewalls:
        target = _FIREWALL_TARGETS[firewall.action]
        label = f"firewall {firewall.action} {firewall.proto}/{firewall.port} in {firewall.host}"
        steps.append(RunStep(f"{label} (INPUT)", _iptables(ns[firewall.host], "-A", "INPUT", "-p", firewall.proto, "--dport", str(firewall.port), *target)))
        steps.append(
            RunStep(
                f"{label} (FORWARD)",
                _iptables(ns[firewall.host], "-A", "FORWARD", "-p", firewall.proto, "-m", "conntrack", "--ctorigdstport", str(firewall.port), *target),
            )
        )

    for dnat in topology.dnats:
        label = f"dnat {dnat.match_addr}:{dnat.match_port} -> {dnat.to_addr}:{dnat.to_port} in {dnat.host}"
        match = ("-p", "tcp", "-d", dnat.match_addr, "--dport", str(dnat.match_port))
        to = ("-j", "DNAT", "--to-destination", f"{dnat.to_addr}:{dnat.to_port}")
        host_ns = ns[dnat.host]
        if ipaddress.ip_address(dnat.match_addr).is_loopback:
            steps.append(RunStep(f"{label}: route_localnet", _sysctl(host_ns, "net.ipv4.conf.all.route_localnet=1")))
        else:
            steps.append(RunStep(f"{label} (PREROUTING)", _iptables(host_ns, "-t", "nat", "-A", "PREROUTING", *match, *to)))
        steps.append(RunStep(f"{label} (OUTPUT)", _iptables(host_ns, "-t", "nat", "-A", "OUTPUT", *match, *to)))
        if dnat.masquerade:
            translated = ("-p", "tcp", "-d", dnat.to_addr, "--dport", str(dnat.to_port), "-m", "conntrack", "--ctstate", "DNAT",
                          "--ctorigdst", dnat.match_addr, "--ctorigdstport", str(dnat.match_port))
            steps.append(RunStep(f"{label} (MASQUERADE)", _iptables(host_ns, "-t", "nat", "-A", "POSTROUTING", *translated, "-j", "MASQUERADE")))

    steps += _dns_steps(topology, layout)
    return tuple(steps)


# --------------------------------------------------------------------------- processes and namespaces


def _run_step(step: str, argv: Sequence[str], *, timeout: float = COMMAND_TIMEOUT) -> str:
    try:
        completed = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise LabError.step_failed(step, argv, f"timed out after {timeout:g} s") from None
    except FileNotFoundError:
        raise LabError.step_failed(step, argv, f"{argv[0]} is not installed") from None
    if completed.returncode != 0:
        raise LabError.step_failed(step, argv, completed.stderr or f"exit status {completed.returncode}")
    return completed.stdout


def _process_start_time(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot, ``None`` if it is gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
    return None if fields[0] == "Z" else int(fields[19])


def netns_identity(fd: int) -> tuple[int, int]:
    """The (device, inode) identity of the network namespace open at ``fd``.

    Compare identities only while ``fd`` is open: once a namespace is freed,
    the kernel hands its inode number to the next new namespace.
    """
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def pids_in_netns(identity: tuple[int, int]) -> list[int]:
    """Live processes whose network namespace has this identity (see :func:`netns_identity`)."""
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = os.stat(f"{entry.path}/ns/net")
        except OSError:
            continue  # exited, or a kernel thread
        if (status.st_dev, status.st_ino) == identity and _process_start_time(int(entry.name)) is not None:
            pids.append(int(entry.name))
    return pids


def _stop_pids(pids: Sequence[int]) -> None:
    """SIGTERM, then SIGKILL after :data:`KILL_GRACE` whatever of ``pids`` is still running."""
    started = {pid: _process_start_time(pid) for pid in pids}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = [pid for pid, start in started.items() if start is not None and _process_start_time(pid) == start]
        for pid in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + KILL_GRACE
        while alive and time.monotonic() < deadline:
            alive = [pid for pid in alive if _process_start_time(pid) == started[pid]]
            time.sleep(0.02)
        if not alive:
            return


def _stop_popen(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(KILL_GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(KILL_GRACE)


def _udp_bound(pid: int, address: str, port: int) -> bool:
    """Whether the network namespace of ``pid`` has a UDP socket bound to ``address:port``."""
    wanted = f"{int.from_bytes(socket.inet_aton(address), sys.byteorder):08X}:{port:04X}"
    try:
        lines = Path(f"/proc/{pid}/net/udp").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(line.split()[1] == wanted for line in lines)


def _pid_file_written(path: Path) -> bool:
    try:
        return path.read_text().strip().isdigit()
    except OSError:
        return False


def _remove_netns(ns: str) -> None:
    """Stop the processes in ``ns``, delete it and its ``/etc/netns`` entry; a namespace already gone is fine."""
    try:
        held = os.open(NETNS_RUN / ns, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        pass  # already deleted, by a concurrent cleanup_stale
    else:
        try:
            _stop_pids(pids_in_netns(netns_identity(held)))
        finally:
            os.close(held)
        try:
            _run_step(f"delete namespace {ns}", ("ip", "netns", "delete", ns))
        except LabError:
            if (NETNS_RUN / ns).exists():  # not merely deleted by a concurrent cleanup_stale
                raise
    shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)


def _stop_recorded_dnsmasq(state_dir: Path) -> None:
    """Stop each dnsmasq whose pid file is in ``state_dir`` and whose command line names that pid file."""
    for pid_file in state_dir.glob("dnsmasq-*.pid"):
        try:
            pid = int(pid_file.read_text().split()[0])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if f"--pid-file={pid_file}".encode() in cmdline:
            _stop_pids([pid])


def _write_netns_file(path: Path, text: str) -> None:
    """Write ``/etc/netns/<ns>/<file>``, creating the directories.

    A concurrent run's teardown removes ``/etc/netns`` when it is empty, so
    between our making it and making ``<ns>`` in it, it can vanish: try again.
    Once ``<ns>`` exists, ``/etc/netns`` is not empty and stays.
    """
    for attempt in range(3):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            break
        except FileNotFoundError:
            if attempt == 2:
                raise
    path.write_text(text)


def _rmdir_if_empty(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """Hold off SIGINT/SIGTERM/SIGHUP (they are delivered afterwards) so a second Ctrl-C cannot cut teardown short."""
    blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def _termination_raises() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into ``SystemExit(128 + signal)`` so ``finally`` blocks run; main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def exit_on(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            previous[sig] = signal.signal(sig, exit_on)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# --------------------------------------------------------------------------- owner records


_DRAFT = ".draft-"
"""State directories are written under this prefix, then renamed into place; cleanup_stale never sees them half-made."""


def _claim(layout: Layout) -> bool:
    """Create the run's state directory holding ``owner.json``, atomically; ``False`` if the group name is taken.

    The state directory is the lock on the group name, and so on every
    namespace name of the run: it exists before any of them is created.
    """
    pid = os.getpid()
    record = {"pid": pid, "start_time": _process_start_time(pid), "namespaces": sorted(layout.namespaces.values())}
    draft = STATE_ROOT / f"{_DRAFT}{layout.group}.{pid}"
    try:
        draft.mkdir(parents=True)  # retries once if a concurrent teardown removes an empty STATE_ROOT meanwhile
        (draft / "owner.json").write_text(json.dumps(record))
        draft.rename(layout.state_dir)  # fails if the directory exists: it always holds an owner.json
    except OSError:
        shutil.rmtree(draft, ignore_errors=True)
        if layout.state_dir.exists():
            return False
        raise
    return True


def owner_alive(state_dir: Path) -> bool:
    try:
        record = json.loads((state_dir / "owner.json").read_text())
        return _process_start_time(int(record["pid"])) == record["start_time"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _live_groups(prefix: str) -> set[str]:
    if not STATE_ROOT.is_dir():
        return set()
    return {entry.name for entry in STATE_ROOT.iterdir() if entry.name.startswith(prefix) and owner_alive(entry)}


def _owned_by(name: str, groups: set[str]) -> bool:
    return any(name.startswith(f"{group}-") for group in groups)


def cleanup_stale(prefix: str = DEFAULT_PREFIX) -> list[str]:
    """Remove what crashed runs left behind; return the namespaces removed.

    Stale means: a namespace, ``/etc/netns`` entry or state directory whose
    name starts with ``prefix`` and that belongs to no run whose owner process
    is still alive. Processes inside stale namespaces and dnsmasqs recorded in
    stale state directories are stopped. Labs of live runs are left alone.
    """
    require_root()
    # Namespaces are listed before owner records are read: a run writes its record before it
    # creates anything, so every namespace listed here whose run is alive is protected.
    namespaces = sorted(entry.name for entry in NETNS_RUN.iterdir() if entry.name.startswith(prefix)) if NETNS_RUN.is_dir() else []
    etc_dirs = sorted(entry.name for entry in NETNS_ETC.iterdir() if entry.name.startswith(prefix)) if NETNS_ETC.is_dir() else []
    live = _live_groups(prefix)
    removed = []
    for ns in namespaces:
        if not _owned_by(ns, live):
            _remove_netns(ns)
            removed.append(ns)
    for name in etc_dirs:
        if not _owned_by(name, live):
            shutil.rmtree(NETNS_ETC / name, ignore_errors=True)
    if STATE_ROOT.is_dir():
        for state_dir in STATE_ROOT.iterdir():
            # Judged now, not from ``live``: a run may have registered since.
            if state_dir.name.removeprefix(_DRAFT).startswith(prefix) and not owner_alive(state_dir):
                _stop_recorded_dnsmasq(state_dir)
                shutil.rmtree(state_dir, ignore_errors=True)
    _rmdir_if_empty(NETNS_ETC)
    _rmdir_if_empty(STATE_ROOT)
    return removed


# --------------------------------------------------------------------------- live topology


def require_root() -> None:
    """Raise :class:`LabError` unless this process may create namespaces and iptables rules."""
    if os.geteuid() != 0:
        raise LabError("kdiag lab needs root (network namespaces and iptables): run it with sudo")


_TOOLS = {"ip": "iproute2", "iptables": "iptables", "dnsmasq": "dnsmasq-base", "sysctl": "procps"}


def _require_tools() -> None:
    missing = [f"{tool} (apt package {package})" for tool, package in _TOOLS.items() if shutil.which(tool) is None]
    if missing:
        raise LabError(f"kdiag lab needs {', '.join(missing)}")


class LiveTopology:
    """A topology that is up. Use it only inside :func:`lab_up`'s ``with`` block."""

    def __init__(self, topology: Topology, layout: Layout) -> None:
        self.topology = topology
        self.layout = layout
        self._processes: list[subprocess.Popen] = []
        self._down = False

    @property
    def state_dir(self) -> Path:
        """Run state: owner record, dnsmasq pid files and query logs (``dnsmasq-<host>-*.log``)."""
        return self.layout.state_dir

    def ns(self, host: str) -> str:
        """The real namespace name of ``host``."""
        try:
            return self.layout.namespaces[host]
        except KeyError:
            raise LabError(f"no host {host!r} in topology {self.topology.name} (hosts: {', '.join(self.layout.namespaces)})") from None

    def exec_argv(self, host: str, argv: Sequence[str]) -> list[str]:
        """``argv`` prefixed with ``ip netns exec <ns>``: run it yourself to run it in ``host``."""
        return list(_in_ns(self.ns(host), *argv))

    def run(self, host: str, argv: Sequence[str], *, timeout: float = 30.0, check: bool = False, input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in ``host`` to completion, capturing text output; ``subprocess.TimeoutExpired`` after ``timeout``."""
        return subprocess.run(
            self.exec_argv(host, argv), input=input, capture_output=True, text=True, timeout=timeout, check=check,
            stdin=None if input is not None else subprocess.DEVNULL,
        )

    def popen(self, host: str, argv: Sequence[str], **kwargs: object) -> subprocess.Popen:
        """Start ``argv`` in ``host``; it is stopped (SIGTERM, then SIGKILL) when the lab goes down."""
        process = subprocess.Popen(self.exec_argv(host, argv), **kwargs)  # type: ignore[call-overload]
        self._processes.append(process)
        return process

    def _up(self) -> None:
        nsswitch = Path("/etc/nsswitch.conf")
        steps = plan(
            self.topology,
            self.layout,
            machine_hostname=socket.gethostname(),
            machine_nsswitch=nsswitch.read_text() if nsswitch.exists() else None,
        )
        for step in steps:
            if isinstance(step, RunStep):
                _run_step(step.step, step.argv)
            elif isinstance(step, WriteStep):
                try:
                    _write_netns_file(step.path, step.text)
                except OSError as error:
                    raise LabError.step_failed(step.step, ("write", str(step.path)), str(error)) from None
            else:
                self._start_dnsmasq(step)

    def _start_dnsmasq(self, step: DnsmasqStep) -> None:
        argv = _in_ns(step.ns, *step.argv)
        errors = step.pid_file.with_suffix(".stderr")
        with errors.open("w") as stderr:
            # Its own session: a Ctrl-C at the terminal reaches us, and we stop dnsmasq in teardown.
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
        self._processes.append(process)
        deadline = time.monotonic() + DNS_READY_TIMEOUT
        while not (_udp_bound(process.pid, step.listen, 53) and _pid_file_written(step.pid_file)):
            if process.poll() is not None:
                raise LabError.step_failed(step.step, argv, errors.read_text() or f"exit status {process.returncode}")
            if time.monotonic() > deadline:
                raise LabError.step_failed(step.step, argv, f"not listening on {step.listen}:53 after {DNS_READY_TIMEOUT:g} s")
            time.sleep(0.01)

    def down(self) -> None:
        """Stop every process, delete every namespace and file of this run. Idempotent.

        Raises :class:`LabError` listing what could not be removed, after trying all of it.
        """
        if self._down:
            return
        problems: list[str] = []
        with _signals_blocked():
            for process in reversed(self._processes):
                _stop_popen(process)
            for ns in self.layout.namespaces.values():
                try:
                    _remove_netns(ns)
                except LabError as error:
                    problems.append(str(error))
            shutil.rmtree(self.state_dir, ignore_errors=True)
            _rmdir_if_empty(NETNS_ETC)
            _rmdir_if_empty(STATE_ROOT)
            self._down = True
        if problems:
            raise LabError("teardown incomplete: " + "; ".join(problems))


@contextlib.contextmanager
def lab_up(topology: Topology, *, prefix: str = DEFAULT_PREFIX) -> Iterator[LiveTopology]:
    """Bring ``topology`` up for the ``with`` block, and always tear it down afterwards.

    Raises :class:`LabError` for an invalid topology (before anything is
    created) or for a setup step that failed (after tearing down what was
    made). SIGTERM and SIGHUP raise ``SystemExit`` while the lab is up, so the
    teardown runs for them as it does for Ctrl-C.
    """
    require_root()
    _require_tools()
    validate(topology)
    for _attempt in range(5):
        layout = Layout.for_run(topology, prefix, secrets.token_hex(2))
        if _claim(layout):
            break
    else:
        raise LabError(f"could not claim a free run name for topology {topology.name} under {STATE_ROOT}")
    live = LiveTopology(topology, layout)
    with _termination_raises():
        try:
            live._up()
            yield live
        except BaseException as error:
            try:
                live.down()
            except LabError as teardown:
                error.add_note(str(teardown))
            raise
        live.down()
