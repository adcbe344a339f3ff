"""``kdiag lab`` through the real entry point, where no namespace is needed: list, the root check, bad
input, and how a vantage's verdict reads. Plus the userland proxy the Docker scenario uses, on loopback."""

from __future__ import annotations

import io
import json
import socket
import threading

import pytest

from kdiag.cli import Environment, main
from kdiag.exitstatus import ExitStatus
from kdiag.render.lab import render_run, summary_line, verdict
from kdiag.lab.kafka import KAFKA_VERSION
from kdiag.lab.runner import VantageRun
from kdiag.lab.scenarios import all_scenarios, get_scenario
from kdiag.lab.scenarios._tcp_proxy import main as proxy_main
from kdiag.lab.relay import parse_hostport
from kdiag.render import Format


def kdiag(*args: str) -> tuple[int, str, str]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    status = main(list(args), env=env)
    return status, env.stdout.getvalue(), env.stderr.getvalue()


def test_list_prints_each_scenario_name_and_title():
    status, out, err = kdiag("lab", "list")
    assert status == ExitStatus.OK and err == ""
    lines = out.splitlines()
    assert len(lines) == len(all_scenarios())
    ec2 = next(line for line in lines if line.startswith("ec2-internal-hostname "))
    assert ec2.endswith(get_scenario("ec2-internal-hostname").title)


def test_list_json_carries_every_vantage_with_its_expected_outcome():
    status, out, _ = kdiag("lab", "list", "--json")
    assert status == ExitStatus.OK
    document = json.loads(out)
    assert document["schema"] == "kdiag.lab-list/1"
    docker = next(s for s in document["scenarios"] if s["name"] == "docker-listeners")
    fred = next(v for v in docker["vantages"] if v["name"] == "outside-fred")
    assert fred["host"] == "outside" and fred["bootstrap"] == "192.0.2.1:9092"
    assert fred["expected"]["exit_code"] == 1
    assert [f["id"] for f in fred["expected"]["findings"]] == ["ADVERTISED_LOOPBACK"]
    assert {"name": "container", "addresses": ["198.51.100.2"]} in docker["hosts"]


@pytest.mark.parametrize("command", [["run", "ec2-option1"], ["up", "ec2-option1"], ["down"]])
def test_without_root_the_lab_says_so_in_one_line_and_exits_2(monkeypatch, command):
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    status, out, err = kdiag("lab", *command)
    assert status == ExitStatus.USAGE
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("kdiag lab needs root")


def test_an_unknown_scenario_is_a_usage_error(monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 0)
    status, _, err = kdiag("lab", "run", "no-such-scenario")
    assert status == ExitStatus.USAGE
    assert err.startswith("kdiag: error: no scenario 'no-such-scenario' (known: ")


def test_an_unknown_vantage_lists_the_places_to_choose_from(monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 0)
    status, _, err = kdiag("lab", "run", "ec2-option1", "--from", "mars")
    assert status == ExitStatus.USAGE
    assert "--from mars: ec2-option1 has no such vantage or host (try: laptop, ec2, vpc-app)" in err


def vantage_run(name: str, exit_code: int, ids: list[str], differences: tuple[str, ...] = ()) -> VantageRun:
    vantage = next(v for v in get_scenario("docker-listeners").vantages if v.name == name)
    report = {"findings": [{"id": i, "severity": "error", "title": "t", "fix": ""} for i in ids], "stages": []}
    return VantageRun(vantage, "kd-docker-1a2b-outside", f"ip netns exec kd-docker-1a2b-outside kdiag bootstrap {vantage.bootstrap}",
                      exit_code, "the kdiag report\n", "", report, 0.4, differences)


def test_a_vantage_as_expected_says_so():
    run = vantage_run("outside-fred", 1, ["ADVERTISED_LOOPBACK"])
    assert verdict(run) == ["as expected: exit 1, ADVERTISED_LOOPBACK"]
    text = render_run(run, Format.TEXT)
    assert "outside-fred: from outside\n$ ip netns exec kd-docker-1a2b-outside kdiag bootstrap 192.0.2.1:9092\n" in text
    assert "the kdiag report\n\n» as expected: exit 1, ADVERTISED_LOOPBACK\n" in text


def test_a_vantage_not_as_expected_says_what_differs():
    run = vantage_run("outside-fred", 0, [], ("exit status 0, expected 1", "missing finding ADVERTISED_LOOPBACK"))
    assert verdict(run) == [
        "NOT as expected: got exit 0, healthy, expected exit 1, ADVERTISED_LOOPBACK",
        "  - exit status 0, expected 1",
        "  - missing finding ADVERTISED_LOOPBACK",
    ]
    assert summary_line("docker-listeners", [run, vantage_run("outside-fred", 1, ["ADVERTISED_LOOPBACK"])], Format.TEXT) == (
        "docker-listeners: 1 of 2 vantages as expected; not as expected: outside-fred\n")
    assert "**NOT as expected" in render_run(run, Format.MARKDOWN)


def test_the_userland_proxy_pipes_both_ways():
    with socket.create_server(("127.0.0.1", 0)) as upstream:
        target = upstream.getsockname()[1]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            listen = probe.getsockname()[1]
        threading.Thread(target=proxy_main, args=([f"127.0.0.1:{listen}=127.0.0.1:{target}"],), daemon=True).start()
        for _ in range(100):
            try:
                client = socket.create_connection(("127.0.0.1", listen), timeout=2)
                break
            except ConnectionRefusedError:
                threading.Event().wait(0.02)
        with client:
            served, _ = upstream.accept()
            with served:
                client.sendall(b"ping")
                assert served.recv(4) == b"ping"
                served.sendall(b"pong")
                assert client.recv(4) == b"pong"


def test_proxy_addresses_take_brackets_for_ipv6():
    assert parse_hostport("[::1]:9092") == ("::1", 9092)
    assert parse_hostport("198.51.100.2:29094") == ("198.51.100.2", 29094)
    with pytest.raises(ValueError):
        parse_hostport("9092")


def test_a_bad_kafka_version_is_a_usage_error(monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 0)
    status, _, err = kdiag("lab", "run", "ec2-option1", "--kafka-version", "latest")
    assert status == ExitStatus.USAGE
    assert "--kafka-version 'latest' is not a Kafka release version" in err


def test_a_scenario_that_does_not_come_up_names_the_step_and_says_it_is_torn_down(monkeypatch):
    from contextlib import contextmanager

    from kdiag.lab import runner
    from kdiag.lab.netns import LabError

    @contextmanager
    def failing(scenario, **_options):
        raise LabError("step start Kafka 4.4.0 broker 1 in ec2 failed: broker 1 exited with status 1\n"
                       "--- last 1 lines of the log ---\nERROR Exiting Kafka", step="start Kafka 4.4.0 broker 1 in ec2")
        yield

    monkeypatch.setattr("os.geteuid", lambda: 0)
    monkeypatch.setattr(runner, "scenario_up", failing)
    status, out, err = kdiag("lab", "run", "ec2-option1")
    assert status == ExitStatus.PROBLEMS and out == ""
    assert err.splitlines() == [
        f"kdiag lab: bringing up ec2-option1: 4 namespaces, 1 Kafka {KAFKA_VERSION} broker",
        "kdiag lab: ec2-option1 did not come up: step start Kafka 4.4.0 broker 1 in ec2 failed: broker 1 exited with status 1",
        "  --- last 1 lines of the log ---",
        "  ERROR Exiting Kafka",
        "kdiag lab: everything it had made is torn down",
    ]
