"""``kdiag lab`` through its real entry point, and what it leaves behind: nothing.

Held up by ``up`` and torn down by ``down``; interrupted with Ctrl-C while its broker starts; failing to
come up because of a bad broker config or a helper that dies: each time no namespace, /etc/netns entry,
state directory, dnsmasq, helper or broker JVM of that run may remain.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from kdiag.lab import netns
from kdiag.lab.kafka import KAFKA_VERSION, BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Dns, Firewall, Host, LabError, Link, Topology
from kdiag.lab.runner import SCENARIO_RECORD, scenario_up
from kdiag.lab.scenarios.base import LabBroker, LabProcess, Scenario, Vantage, healthy
from tests.kdiag_cli import REPO, run_kdiag
from tests.waiting import wait_until

pytestmark = [pytest.mark.netns]


# --------------------------------------------------------------------------- what a run leaves behind


def processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(f"{entry.name}: {cmdline[:200]}")
    return found


def leftovers(group: str) -> list[str]:
    """Everything named after ``group`` (``kd-<topology>-<tag>`` or just ``kd-<topology>-``) still around."""
    left = [f"namespace {p.name}" for p in netns.NETNS_RUN.glob(f"{group}*")]
    left += [f"/etc/netns/{p.name}" for p in netns.NETNS_ETC.glob(f"{group}*")] if netns.NETNS_ETC.is_dir() else []
    left += [f"state {p}" for p in netns.STATE_ROOT.glob(f"*{group}*")] if netns.STATE_ROOT.is_dir() else []
    left += [f"process {p}" for p in processes_mentioning(group)]  # dnsmasq (pid file), java (workdir)
    return left


def processes_in(namespaces: dict[str, int]) -> list[int]:
    """Live processes in the namespaces open at these file descriptors."""
    return [pid for fd in namespaces.values() for pid in netns.pids_in_netns(netns.netns_identity(fd))]


def hold_namespaces(names: list[str]) -> dict[str, int]:
    """Open each namespace, so its identity stays valid (and unique) after the lab deletes it."""
    return {name: os.open(netns.NETNS_RUN / name, os.O_RDONLY) for name in names}


def veth_count() -> int:
    out = subprocess.run(["ip", "-o", "link", "show", "type", "veth"], capture_output=True, text=True, check=True)
    return len(out.stdout.splitlines())


def kdiag_process(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "kdiag", *args], cwd=REPO, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_until(stream, marker: str, *, timeout: float) -> str:
    """What ``stream`` (a pipe) says up to ``marker``; fails after ``timeout`` seconds."""
    text, deadline, fd = "", time.monotonic() + timeout, stream.fileno()
    while marker not in text:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            pytest.fail(f"no {marker!r} within {timeout:g} s; got:\n{text}")
        chunk = os.read(fd, 65536)  # not the buffered stream: select sees only the pipe
        if not chunk:
            pytest.fail(f"the stream ended before {marker!r}; got:\n{text}")
        text += chunk.decode(errors="replace")
    return text


def stop(process: subprocess.Popen[str]) -> None:
    """End a ``kdiag lab up`` a failed test left running, letting it tear down, then clean up after it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        netns.cleanup_stale()


def run_record(pid: int, *, timeout: float) -> dict:
    """The scenario record of the run owned by ``pid``, once it exists."""
    def recorded() -> dict | None:
        for path in netns.STATE_ROOT.glob(f"*/{SCENARIO_RECORD}") if netns.STATE_ROOT.is_dir() else ():
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if record.get("pid") == pid:
                return {**record, "state_dir": str(path.parent)}
        return None

    return wait_until(recorded, timeout, f"process {pid} recorded a scenario")


# --------------------------------------------------------------------------- the commands


def test_list_json_through_the_entry_point():
    run = run_kdiag("lab", "list", "--json")
    assert run.exit_code == 0, run.stderr
    names = [s["name"] for s in json.loads(run.stdout)["scenarios"]]
    assert {"ec2-internal-hostname", "ec2-option1", "ec2-option2", "docker-listeners"} <= set(names)


def test_without_root_kdiag_lab_says_so_in_one_line_with_exit_2():
    # setpriv --reuid=65534 cannot run this interpreter when it lives under a 0700 /root (as on the CI
    # image); a user namespace mapping us to 65534 gives the same euid with our file access.
    done = subprocess.run(
        ["unshare", "--user", "--map-user=65534", "--map-group=65534", sys.executable, "-m", "kdiag", "lab", "run",
         "ec2-option1"], cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == ["kdiag lab needs root (network namespaces and iptables): run it with sudo"]


@pytest.mark.broker
def test_up_holds_the_scenario_until_down_and_its_printed_commands_work():
    veths = veth_count()
    up = kdiag_process("lab", "up", "ec2-option1")
    try:
        shown = read_until(up.stdout, "Held up until", timeout=120)
        record = run_record(up.pid, timeout=5)
        held = hold_namespaces(list(record["namespaces"].values()))
        try:
            assert all(ns in shown for ns in record["namespaces"].values())
            # The printed command for the laptop, run as printed: the bootstrap through the public name works.
            command = next(line.strip() for line in shown.splitlines()
                           if line.strip().startswith("ip netns exec") and "-laptop " in line)
            tried = subprocess.run(f"{command} --json", shell=True, capture_output=True, text=True, timeout=60, cwd=REPO)
            assert tried.returncode == 0, tried.stderr + tried.stdout
            assert json.loads(tried.stdout)["findings"] == []

            down = run_kdiag("lab", "down", "ec2-option1")
            assert down.exit_code == 0, down.stderr
            assert f"tore down ec2-option1 (kdiag lab up, pid {up.pid})" in down.stdout
            assert up.wait(timeout=30) == 0
            assert "ec2-option1 is torn down" in up.stderr.read()
            assert processes_in(held) == []
        finally:
            for fd in held.values():
                os.close(fd)
        group = Path(record["state_dir"]).name
        assert leftovers(group) == []
        assert veth_count() == veths
        again = run_kdiag("lab", "down", "ec2-option1")  # idempotent
        assert again.exit_code == 0, again.stderr
        assert "tore down" not in again.stdout
    finally:
        stop(up)


@pytest.mark.broker
def test_ctrl_c_while_the_broker_starts_tears_everything_down():
    up = kdiag_process("lab", "up", "docker-listeners")
    try:
        record = run_record(up.pid, timeout=30)
        held = hold_namespaces(list(record["namespaces"].values()))
        try:
            # The broker JVM is on its way up (its workdir is in the state dir) when Ctrl-C comes.
            def broker_starting() -> list[str]:
                assert up.poll() is None, f"kdiag lab up exited {up.returncode}"
                return processes_mentioning(f"{record['state_dir']}/kafka/node-1/server.properties")

            wait_until(broker_starting, 60, "the broker's JVM started")
            up.send_signal(signal.SIGINT)
            assert up.wait(timeout=60) == 130
            assert processes_in(held) == []
        finally:
            for fd in held.values():
                os.close(fd)
        assert leftovers(Path(record["state_dir"]).name) == []
    finally:
        stop(up)


# --------------------------------------------------------------------------- failing to come up


def broken(name: str, **changes) -> Scenario:
    """A small lab with one of everything netns makes (veth, dnsmasq, DNAT, firewall) plus a helper and a broker."""
    spec = BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),), controller_port=9093)
    fields = dict(
        name=f"broken-{name}", title="A scenario that cannot come up", description="Injected failure: " + name,
        topology=Topology(
            name=name, hosts=(Host("client", resolv=["192.0.2.1"]), Host("router", forward=True), Host("broker")),
            links=(Link("client", "192.0.2.10", "router", "192.0.2.1"),
                   Link("router", "198.51.100.1", "broker", "198.51.100.2")),
            dns=(Dns("router", "192.0.2.1", records={"broker.lab.test": "192.0.2.1"}),),
            dnats=(Dnat("router", "192.0.2.1", 9092, "198.51.100.2", 9092),),
            firewalls=(Firewall("router", 9999, "reject"),),
        ),
        brokers=(LabBroker("broker", spec),),
        processes=(LabProcess("sleeper", "client", ("sleep", "600")),),
        vantages=(Vantage("client", host="client", bootstrap="broker.lab.test:9092", expect=healthy()),),
    )
    fields.update(changes)
    return Scenario(**fields)


@pytest.mark.broker
def test_a_broker_that_cannot_start_is_named_and_nothing_is_left_behind():
    veths = veth_count()
    scenario = broken("badconf")
    # A listener on an address the broker's machine does not have: Kafka cannot bind it and exits.
    bad = replace(scenario.brokers[0].spec, listeners=(Listener("PLAINTEXT", "203.0.113.99", 9092),))
    scenario = replace(scenario, brokers=(LabBroker("broker", bad),))
    with pytest.raises(LabError) as raised:
        with scenario_up(scenario):
            pytest.fail("the scenario came up")
    error = raised.value
    assert error.step == f"start Kafka {KAFKA_VERSION} broker 1 in broker"
    assert "broker 1 exited with status" in str(error)
    assert "203.0.113.99" in str(error)  # the broker's own words, from its log
    assert leftovers("kd-badconf-") == []
    assert processes_mentioning("sleep 600") == []
    assert veth_count() == veths


def test_a_helper_that_dies_is_named_and_nothing_is_left_behind():
    scenario = broken("baddaemon", processes=(LabProcess("http-server", "client", ("false",), listens_on=(80,)),))
    with pytest.raises(LabError) as raised:
        with scenario_up(scenario):
            pytest.fail("the scenario came up")
    assert raised.value.step == "start http-server in client"
    assert "it exited with status 1" in str(raised.value)
    assert leftovers("kd-baddaemon-") == []
