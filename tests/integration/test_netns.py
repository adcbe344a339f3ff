"""The network-namespace lab builder against real namespaces, veths, iptables and dnsmasq.

These tests need root. They fail (never skip) without it: CI must run them as root.
"""

from __future__ import annotations

import errno
import json
import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from kdiag.lab import netns
from kdiag.lab.netns import (
    Dnat,
    Dns,
    Firewall,
    Host,
    LabError,
    Link,
    LiveTopology,
    Route,
    Topology,
    cleanup_stale,
    lab_up,
    require_root,
)

pytestmark = pytest.mark.netns


@pytest.fixture(scope="module", autouse=True)
def netns_lab_available() -> None:
    try:
        require_root()
    except LabError as error:
        pytest.fail(f"{error}. The netns integration tests must run as root (CI runs them with sudo).", pytrace=False)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10, check=False)
    if listed.returncode != 0:
        pytest.fail(f"`ip netns list` failed: {listed.stderr.strip()} (install iproute2; network namespaces needed)", pytrace=False)
    cleanup_stale()


# --------------------------------------------------------------------------- helpers

LISTENER = textwrap.dedent(
    """
    import socket, sys
    server = socket.create_server((sys.argv[1], int(sys.argv[2])))
    print("ready", flush=True)
    while True:
        connection, peer = server.accept()
        connection.sendall(f"hello from {sys.argv[1]}:{sys.argv[2]} to {peer[0]}\\n".encode())
        connection.close()
    """
)

CONNECT = textwrap.dedent(
    """
    import json, socket, sys, time
    started = time.monotonic()
    try:
        with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=float(sys.argv[3])) as connection:
            result = {"outcome": "ok", "greeting": connection.makefile().readline().strip()}
    except TimeoutError:
        result = {"outcome": "timeout"}
    except OSError as error:
        result = {"outcome": "error", "errno": error.errno}
    result["seconds"] = time.monotonic() - started
    print(json.dumps(result))
    """
)

GETADDRINFO = textwrap.dedent(
    """
    import json, socket, sys, time
    started = time.monotonic()
    try:
        infos = socket.getaddrinfo(sys.argv[1], 9092, socket.AF_INET, socket.SOCK_STREAM)
        result = {"outcome": "ok", "addresses": sorted({info[4][0] for info in infos})}
    except socket.gaierror as error:
        result = {"outcome": "gaierror", "errno": error.errno}
    result["seconds"] = time.monotonic() - started
    print(json.dumps(result))
    """
)

DNSPYTHON = textwrap.dedent(
    """
    import json, sys, time
    import dns.exception, dns.message, dns.query, dns.rcode, dns.resolver
    server, name = sys.argv[1], sys.argv[2]
    started = time.monotonic()
    try:
        response = dns.query.udp(dns.message.make_query(name, "A"), server, timeout=1.5)
        result = {"rcode": dns.rcode.to_text(response.rcode()), "answer": [str(rrset) for rrset in response.answer]}
    except dns.exception.Timeout:
        result = {"rcode": None}
    resolver = dns.resolver.Resolver()  # from this namespace's /etc/resolv.conf
    resolver.lifetime = 1.5
    try:
        result["resolver"] = [rdata.address for rdata in resolver.resolve(name, "A")]
    except dns.exception.DNSException as error:
        result["resolver"] = type(error).__name__
        result["resolver_message"] = str(error)
    result["seconds"] = time.monotonic() - started
    print(json.dumps(result))
    """
)


def python_in(live: LiveTopology, host: str, code: str, *args: object, timeout: float = 20.0) -> dict:
    completed = live.run(host, [sys.executable, "-c", code, *map(str, args)], timeout=timeout)
    assert completed.returncode == 0, f"python in {host} failed: {completed.stderr}"
    return json.loads(completed.stdout)


def listen(live: LiveTopology, host: str, address: str, port: int) -> subprocess.Popen:
    process = live.popen(host, [sys.executable, "-c", LISTENER, address, str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    readable, _, _ = select.select([process.stdout], [], [], 10)
    assert readable and process.stdout.readline() == "ready\n", f"listener {address}:{port} in {host} did not start: {process.stderr.read() if process.poll() is not None else 'no output'}"
    return process


def connect(live: LiveTopology, host: str, address: str, port: int, timeout: float = 2.0) -> dict:
    return python_in(live, host, CONNECT, address, port, timeout)


_HELD_NAMESPACES: list[int] = []


@pytest.fixture(autouse=True)
def release_held_namespaces() -> Iterator[None]:
    yield
    while _HELD_NAMESPACES:
        os.close(_HELD_NAMESPACES.pop())


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(exited)"


@dataclass(frozen=True)
class Footprint:
    """Everything a live lab has on the machine, to check afterwards that none of it is left.

    It holds each namespace open, so that its inode number (the namespace's
    identity) is not handed to another run's new namespace before the check.
    """

    namespaces: tuple[str, ...]
    held: tuple[int, ...]
    state_dir: str
    dnsmasq_pids: tuple[int, ...]

    @classmethod
    def take(cls, namespaces: Sequence[str], state_dir: Path) -> Footprint:
        held = []
        for ns in namespaces:
            held.append(os.open(f"/run/netns/{ns}", os.O_RDONLY))
            _HELD_NAMESPACES.append(held[-1])
        pids = tuple(int(path.read_text()) for path in state_dir.glob("dnsmasq-*.pid"))
        return cls(tuple(namespaces), tuple(held), str(state_dir), pids)

    @classmethod
    def of(cls, live: LiveTopology) -> Footprint:
        return cls.take(tuple(live.layout.namespaces.values()), live.state_dir)

    def leftovers(self) -> list[str]:
        found = []
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10, check=True).stdout
        found += [f"namespace {ns}" for ns in self.namespaces if ns in listed.split()]
        found += [f"/etc/netns/{ns}" for ns in self.namespaces if Path("/etc/netns", ns).exists()]
        for fd in self.held:
            pids = netns.pids_in_netns(netns.netns_identity(fd))
            found += [f"process {pid} still in a lab namespace: {cmdline(pid)}" for pid in pids]
        dnsmasq = subprocess.run(["pgrep", "-a", "dnsmasq"], capture_output=True, text=True, timeout=10, check=False).stdout
        found += [f"dnsmasq {line}" for line in dnsmasq.splitlines() if self.state_dir in line]
        found += [f"dnsmasq pid {pid}" for pid in self.dnsmasq_pids if self.state_dir in cmdline(pid)]
        if Path(self.state_dir).exists():
            found.append(f"state dir {self.state_dir}")
        return found


def root_veths() -> set[str]:
    shown = subprocess.run(["ip", "-o", "link", "show", "type", "veth"], capture_output=True, text=True, timeout=10, check=True).stdout
    return {line.split(":")[1].strip() for line in shown.splitlines()}


def pair(name: str, **extra: object) -> Topology:
    return Topology(name, hosts=(Host("client"), Host("server")), links=(Link("client", "192.0.2.10", "server", "192.0.2.20"),), **extra)


# --------------------------------------------------------------------------- connectivity


def test_client_reaches_tcp_listener_in_other_namespace_across_veth() -> None:
    with lab_up(pair("veth")) as live:
        listen(live, "server", "192.0.2.20", 19092)
        result = connect(live, "client", "192.0.2.20", 19092)
    assert result["outcome"] == "ok"
    assert result["greeting"] == "hello from 192.0.2.20:19092 to 192.0.2.10"


def test_namespace_names_are_prefixed_and_interfaces_are_eth_n() -> None:
    with lab_up(pair("names")) as live:
        assert live.ns("client").startswith("kd-names-") and live.ns("client").endswith("-client")
        assert live.exec_argv("client", ["true"]) == ["ip", "netns", "exec", live.ns("client"), "true"]
        shown = live.run("client", ["ip", "-o", "-4", "addr", "show", "dev", "eth0"], timeout=10, check=True).stdout
        assert "192.0.2.10/24" in shown
        with pytest.raises(LabError, match="no host 'nosuch'"):
            live.ns("nosuch")


# --------------------------------------------------------------------------- name resolution


def test_hosts_file_name_resolves_only_in_its_namespace_and_fails_fast_elsewhere() -> None:
    machine_hosts = Path("/etc/hosts").read_text()
    topology = Topology(
        "hosts",
        hosts=(
            Host("inside", hosts={"kafka-0.internal": ["192.0.2.20"]}),
            Host("outside"),
            Host("deadns", resolv=["127.0.0.1"]),
        ),
    )
    with lab_up(topology) as live:
        inside = python_in(live, "inside", GETADDRINFO, "kafka-0.internal")
        outside = python_in(live, "outside", GETADDRINFO, "kafka-0.internal")
        outside_dns = python_in(live, "outside", DNSPYTHON, "127.0.0.1", "kafka-0.internal")
        dead = python_in(live, "deadns", GETADDRINFO, "kafka-0.internal")
        localhost = python_in(live, "outside", GETADDRINFO, "localhost")
    assert inside == {"outcome": "ok", "addresses": ["192.0.2.20"], "seconds": inside["seconds"]}
    # No name leaks to the machine's resolver: the lab's own resolver says NXDOMAIN at once.
    assert outside["outcome"] == "gaierror" and outside["errno"] == socket.EAI_NONAME
    assert outside["seconds"] < 2.0
    assert outside_dns["rcode"] == "NXDOMAIN" and outside_dns["resolver"] == "NXDOMAIN"
    # A nameserver nobody listens on is "resolver unreachable", also fast.
    assert dead["outcome"] == "gaierror" and dead["errno"] == socket.EAI_AGAIN
    assert dead["seconds"] < 2.0
    assert localhost["addresses"] == ["127.0.0.1"]
    assert Path("/etc/hosts").read_text() == machine_hosts


def test_dns_server_gives_record_nxdomain_servfail_refused_and_timeout() -> None:
    topology = Topology(
        "dns",
        hosts=(Host("client", resolv=["192.0.2.53"]), Host("dns"), Host("strict", resolv=["198.51.100.54"])),
        links=(Link("client", "192.0.2.10", "dns", "192.0.2.53"), Link("strict", "198.51.100.11", "dns", "198.51.100.54")),
        dns=(
            Dns(
                "dns",
                "192.0.2.53",
                records={"broker.lab.test": "192.0.2.20"},
                servfail_names=["broken.lab.test"],
                timeout_names=["slow.lab.test"],
            ),
            Dns("dns", "198.51.100.54", records={"broker.lab.test": "192.0.2.20"}, nxdomain_zones=["lab.test"]),
        ),
    )
    with lab_up(topology) as live:
        def both(host: str, server: str, name: str) -> tuple[dict, dict]:
            return python_in(live, host, DNSPYTHON, server, name), python_in(live, host, GETADDRINFO, name)

        record, record_gai = both("client", "192.0.2.53", "broker.lab.test")
        missing, missing_gai = both("client", "192.0.2.53", "kafka-1.lab.test")
        servfail, servfail_gai = both("client", "192.0.2.53", "kafka-0.broken.lab.test")
        slow, slow_gai = both("client", "192.0.2.53", "kafka-0.slow.lab.test")
        refused, refused_gai = both("strict", "198.51.100.54", "kafka.other.example")
        strict_missing, _ = both("strict", "198.51.100.54", "kafka-1.lab.test")

    assert record["rcode"] == "NOERROR" and record["resolver"] == ["192.0.2.20"]
    assert record_gai["addresses"] == ["192.0.2.20"]

    assert missing["rcode"] == "NXDOMAIN" and missing["resolver"] == "NXDOMAIN"
    assert missing_gai["errno"] == socket.EAI_NONAME and missing_gai["seconds"] < 2.0

    assert servfail["rcode"] == "SERVFAIL"
    assert servfail["resolver"] == "NoNameservers" and "SERVFAIL" in servfail["resolver_message"]
    assert servfail_gai["errno"] == socket.EAI_AGAIN and servfail_gai["seconds"] < 2.0

    assert slow["rcode"] is None and slow["resolver"] == "LifetimeTimeout"
    assert slow_gai["errno"] == socket.EAI_AGAIN and 0.8 < slow_gai["seconds"] < 2.5

    assert refused["rcode"] == "REFUSED" and "REFUSED" in refused["resolver_message"]
    assert refused_gai["errno"] == socket.EAI_AGAIN and refused_gai["seconds"] < 2.0
    assert strict_missing["rcode"] == "NXDOMAIN"


# --------------------------------------------------------------------------- DNAT and firewalls


def docker_host(name: str, **extra: object) -> Topology:
    """client 192.0.2.10 -- 192.0.2.1 docker 198.51.100.1 -- 198.51.100.2 broker, as with `docker run -p`."""
    return Topology(
        name,
        hosts=(Host("client"), Host("docker"), Host("broker")),
        links=(Link("client", "192.0.2.10", "docker", "192.0.2.1"), Link("docker", "198.51.100.1", "broker", "198.51.100.2")),
        dnats=(Dnat("docker", "192.0.2.1", 29092, "198.51.100.2", 19092), Dnat("docker", "127.0.0.1", 9092, "198.51.100.2", 19092)),
        **extra,
    )


def test_dnat_publishes_broker_port_in_third_namespace() -> None:
    with lab_up(docker_host("dnat")) as live:
        listen(live, "broker", "198.51.100.2", 19092)
        published = connect(live, "client", "192.0.2.1", 29092)
        internal = connect(live, "client", "198.51.100.2", 19092)
        from_docker_localhost = connect(live, "docker", "127.0.0.1", 9092)
    assert published["outcome"] == "ok"
    assert published["greeting"] == "hello from 198.51.100.2:19092 to 198.51.100.1"  # masqueraded
    # The "container" address the broker would advertise is not reachable from the client.
    assert internal == {"outcome": "error", "errno": errno.ENETUNREACH, "seconds": internal["seconds"]}
    assert from_docker_localhost["outcome"] == "ok"


def test_firewall_drop_times_out_and_reject_is_refused() -> None:
    firewalls = (Firewall("server", 19092, "drop"), Firewall("server", 19093, "reject"), Firewall("server", 19094, "reject-host-unreachable"))
    with lab_up(pair("fw", firewalls=firewalls)) as live:
        for port in (19092, 19093, 19094, 19095):
            listen(live, "server", "192.0.2.20", port)
        dropped = connect(live, "client", "192.0.2.20", 19092, timeout=1.0)
        rejected = connect(live, "client", "192.0.2.20", 19093, timeout=1.0)
        unreachable = connect(live, "client", "192.0.2.20", 19094, timeout=1.0)
        open_port = connect(live, "client", "192.0.2.20", 19095, timeout=1.0)
    assert dropped["outcome"] == "timeout" and dropped["seconds"] >= 0.9
    assert rejected["outcome"] == "error" and rejected["errno"] == errno.ECONNREFUSED and rejected["seconds"] < 0.5
    assert unreachable["outcome"] == "error" and unreachable["errno"] == errno.EHOSTUNREACH
    assert open_port["outcome"] == "ok"


def test_firewall_in_forwarding_host_filters_the_port_the_client_dialled() -> None:
    topology = docker_host("fwfwd", firewalls=(Firewall("docker", 29092, "reject"),))
    routed = Topology(
        "fwroute",
        hosts=(Host("client"), Host("router", forward=True), Host("server")),
        links=(Link("client", "192.0.2.10", "router", "192.0.2.1"), Link("router", "203.0.113.1", "server", "203.0.113.20")),
        routes=(Route("client", "203.0.113.0/24", "192.0.2.1"), Route("server", "default", "203.0.113.1")),
        firewalls=(Firewall("router", 19092, "drop"),),
    )
    with lab_up(topology) as live:
        listen(live, "broker", "198.51.100.2", 19092)
        published = connect(live, "client", "192.0.2.1", 29092, timeout=1.0)
    with lab_up(routed) as live:
        for port in (19092, 19093):
            listen(live, "server", "203.0.113.20", port)
        filtered = connect(live, "client", "203.0.113.20", 19092, timeout=1.0)
        routed_ok = connect(live, "client", "203.0.113.20", 19093, timeout=1.0)
    assert published["outcome"] == "error" and published["errno"] == errno.ECONNREFUSED
    assert filtered["outcome"] == "timeout"
    assert routed_ok["outcome"] == "ok" and routed_ok["greeting"].endswith("to 192.0.2.10")


def test_lab_rules_and_sysctls_stay_inside_lab_namespaces() -> None:
    """The namespace the lab is built from (the machine's, or the test sandbox's) keeps its rules and sysctls."""
    outer_rules = subprocess.run(["iptables-save"], capture_output=True, text=True, timeout=10, check=True).stdout
    outer_forward = Path("/proc/sys/net/ipv4/ip_forward").read_text()
    with lab_up(docker_host("inside", firewalls=(Firewall("docker", 29092, "drop"),))) as live:
        lab_rules = live.run("docker", ["iptables-save"], timeout=10, check=True).stdout
        assert "--to-destination 198.51.100.2:19092" in lab_rules
        assert live.run("docker", ["sysctl", "-n", "net.ipv4.ip_forward"], timeout=10, check=True).stdout == "1\n"
        assert subprocess.run(["iptables-save"], capture_output=True, text=True, timeout=10, check=True).stdout == outer_rules
        assert Path("/proc/sys/net/ipv4/ip_forward").read_text() == outer_forward


# --------------------------------------------------------------------------- teardown


def dns_topology(name: str, *extra_routes: Route) -> Topology:
    return Topology(
        name,
        hosts=(Host("client", resolv=["192.0.2.53"]), Host("dns")),
        links=(Link("client", "192.0.2.10", "dns", "192.0.2.53"),),
        routes=extra_routes,
        dns=(Dns("dns", "192.0.2.53", records={"broker.lab.test": "192.0.2.20"}, servfail_names=["broken.lab.test"]),),
    )


def test_teardown_after_the_with_block_leaves_nothing() -> None:
    veths_before = root_veths()
    with lab_up(dns_topology("clean")) as live:
        live.popen("client", ["sleep", "600"])
        footprint = Footprint.of(live)
        assert len(footprint.dnsmasq_pids) == 3  # the dns host's NXDOMAIN resolver, the unsigned upstream, the Dns
        assert footprint.leftovers() != []  # the check does see a live lab
    assert footprint.leftovers() == []
    assert root_veths() <= veths_before
    live.down()  # idempotent


def test_teardown_after_exception_in_the_with_block_leaves_nothing() -> None:
    with pytest.raises(RuntimeError, match="scenario broke"):
        with lab_up(dns_topology("raise")) as live:
            footprint = Footprint.of(live)
            raise RuntimeError("scenario broke")
    assert footprint.leftovers() == []


def lab_entries(prefix: str) -> list[str]:
    """Namespaces, /etc/netns entries, state dirs and dnsmasqs whose names start with ``prefix``."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10, check=True).stdout
    found = [line for line in listed.splitlines() if line.startswith(prefix)]
    for directory in (Path("/etc/netns"), netns.STATE_ROOT):
        found += [str(path) for path in directory.glob(f"{prefix}*")] if directory.exists() else []
    dnsmasq = subprocess.run(["pgrep", "-a", "dnsmasq"], capture_output=True, text=True, timeout=10, check=False).stdout
    return found + [line for line in dnsmasq.splitlines() if f"/{prefix}" in line]


UNIQUE = os.getpid() % 100000  # concurrent test runs must not see each other's failing labs


@pytest.mark.parametrize(
    ("topology", "step"),
    [
        (dns_topology(f"route{UNIQUE}", Route("client", "203.0.113.0/24", "198.51.100.1")), "route 203.0.113.0/24 via 198.51.100.1 in client"),
        (
            Topology(f"dns{UNIQUE}", hosts=(Host("dns"),), dns=(Dns("dns", "203.0.113.53"),)),
            "start Dns 203.0.113.53 in dns",
        ),
    ],
    ids=["gateway-not-on-link", "dns-address-not-on-host"],
)
def test_failed_step_during_up_names_the_step_and_tears_down(topology: Topology, step: str) -> None:
    with pytest.raises(LabError) as raised:
        with lab_up(topology):
            pytest.fail("the lab came up although a step must fail")
    assert raised.value.step == step
    assert str(raised.value).startswith(f"step {step} failed: ")
    assert raised.value.stderr  # the command's own explanation
    assert lab_entries(f"kd-{topology.name}-") == []


def test_address_outside_lab_ranges_is_refused_before_anything_is_created() -> None:
    topology = Topology("unsafe", hosts=(Host("a"), Host("b")), links=(Link("a", "10.0.0.1", "b", "192.0.2.2"),))
    with pytest.raises(LabError, match=r"10\.0\.0\.1 is outside the lab ranges"):
        with lab_up(topology):
            pass
    assert lab_entries(f"kd-{topology.name}-") == []


def test_two_links_of_one_host_in_the_same_subnet_are_refused() -> None:
    topology = Topology(
        "overlap",
        hosts=(Host("a"), Host("b"), Host("c")),
        links=(Link("a", "192.0.2.1", "b", "192.0.2.2"), Link("a", "192.0.2.3", "c", "192.0.2.4")),
    )
    with pytest.raises(LabError, match=r"host a has two links in overlapping subnets 192\.0\.2\.0/24 and 192\.0\.2\.0/24"):
        with lab_up(topology):
            pass


CHILD = textwrap.dedent(
    """
    import json, sys, time
    from kdiag.lab.netns import Dns, Host, Link, Topology, lab_up
    topology = Topology(
        sys.argv[1],
        hosts=(Host("client", resolv=["192.0.2.53"]), Host("dns")),
        links=(Link("client", "192.0.2.10", "dns", "192.0.2.53"),),
        dns=(Dns("dns", "192.0.2.53", records={"broker.lab.test": "192.0.2.20"}),),
    )
    with lab_up(topology) as live:
        live.popen("client", ["sleep", "600"])
        print(json.dumps({"namespaces": list(live.layout.namespaces.values()), "state_dir": str(live.state_dir)}), flush=True)
        time.sleep(600)
    """
)


def start_child_lab(name: str) -> tuple[subprocess.Popen, Footprint]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    readable, _, _ = select.select([child.stdout], [], [], 20)
    line = child.stdout.readline() if readable else ""
    if not line:
        child.kill()
        pytest.fail(f"child lab did not come up: {child.stderr.read()}")
    reported = json.loads(line)
    return child, Footprint.take(reported["namespaces"], Path(reported["state_dir"]))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_to_the_owner_tears_the_lab_down(sig: signal.Signals) -> None:
    child, footprint = start_child_lab(f"sig{sig.value}")
    assert footprint.leftovers() != []
    child.send_signal(sig)
    try:
        child.wait(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode in (128 + sig.value, -sig.value), child.stderr.read()
    assert footprint.leftovers() == []


def test_cleanup_stale_removes_a_killed_run_and_spares_a_live_one() -> None:
    child, crashed = start_child_lab("crash")
    up = crashed.leftovers()
    assert any(item.startswith("namespace") for item in up) and any(item.startswith("dnsmasq") for item in up)
    child.kill()  # SIGKILL: no teardown runs
    child.wait(timeout=10)
    with lab_up(dns_topology("alive")) as live:
        removed = cleanup_stale()  # a concurrent test run may have removed some of them first
        assert crashed.leftovers() == []
        assert not set(live.layout.namespaces.values()) & set(removed)
        assert python_in(live, "client", GETADDRINFO, "broker.lab.test")["addresses"] == ["192.0.2.20"]


def test_require_root_explains_how_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(LabError, match=r"^kdiag lab needs root \(network namespaces and iptables\): run it with sudo$"):
        require_root()
