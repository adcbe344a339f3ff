"""The researched failure modes (reference/landscape-and-failure-modes.md §2) reproduced with real brokers.

Each scenario here reproduces one failure mode kdiag used to get wrong or had never met on a real
broker: the IPv6/IPv4 split for localhost (#7), one round-robin load balancer in front of all brokers
(#6), and the finding ids no other scenario raises. Every vantage must end as its scenario says; some
have a closer look at their report in the same run. Needs root; never skips.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kdiag.lab.runner import VantageRun
from kdiag.lab.scenarios import get_scenario
from tests.labrun import Checks, assert_run, finding_in

pytestmark = [pytest.mark.netns, pytest.mark.broker]

SCENARIOS = ("localhost-ipv4-only", "one-load-balancer", "bootstrap-out-of-reach", "topic-acl-denied",
             "advertised-unspecified", "leader-down", "listener-missing", "message-too-large", "split-horizon-dns", "sni-ingress",
             "msk-wrong-port", "idle-nat-drop")
CASES = [(name, vantage) for name in SCENARIOS for vantage in get_scenario(name).vantages]
NO_GOLDEN = {
    "localhost-ipv4-only": "the round trip succeeds or times out depending on which address each reconnect draws",
    "one-load-balancer": "which broker each connection through the round-robin balancer reaches depends on the "
                         "connections made before it",
    "idle-nat-drop": "the idle time really held is a measurement, and the finding's words quote it",
    "leader-down": "the round trip's unkeyed message lands on a random partition that has a leader",
    "listener-missing": "the round trip's unkeyed message lands on a random partition",
}
"""Scenarios whose reports vary from run to run beyond what tests/lab_golden.py neutralises, and why."""

CHECKS = Checks()
check = CHECKS.of
finding = finding_in


def stage(run: VantageRun, name: str) -> dict:
    return next(s for s in run.report["stages"] if s["name"] == name)


@check("localhost-ipv4-only", "laptop-localhost")
def every_address_of_localhost_is_tried_and_only_ipv6_fails(run: VantageRun) -> None:
    [broker] = run.report["cluster"]["brokers"]
    statuses = {a["address"]: a["status"] for a in broker["tcp_attempts"]}
    assert statuses == {"::1": "refused", "127.0.0.1": "ok"}
    assert broker["tcp"]["status"] == "ok"  # what a first-success check sees
    evidence = finding(run, "ADVERTISED_ADDRESS_FAMILY_SPLIT")["evidence"]
    assert evidence["working_families"] == ["IPv4"] and evidence["failing_families"] == ["IPv6"]
    assert {e["of"] for e in evidence["endpoints"]} == {"the bootstrap address", "broker 1"}


@check("one-load-balancer", "laptop")
def fresh_connections_to_the_balancer_reach_different_brokers(run: VantageRun) -> None:
    landings = stage(run, "advertised")["detail"]["landings"]
    nodes = {landing["node_id"] for landing in landings}
    assert len(landings) == 4 and len(nodes) >= 2 and nodes <= {0, 1, 2}
    lb = finding(run, "LOAD_BALANCED_BOOTSTRAP")
    assert lb["severity"] == "warning" and len(lb["evidence"]["landed_node_ids"]) >= 2
    assert "advertisedHost: <external name of broker 2>" in lb["fix"]
    assert "name: my-cluster" in lb["fix"] and "namespace: kafka" in lb["fix"]


@check("one-load-balancer", "app-pod")
def inside_the_cluster_the_balancer_is_only_an_info(run: VantageRun) -> None:
    lb = finding(run, "LOAD_BALANCED_BOOTSTRAP")
    assert lb["severity"] == "info" and lb["fix"] == ""


@check("bootstrap-out-of-reach", "client-filtered")
def a_filtered_bootstrap_costs_the_one_second_connect_timeout_not_two_minutes(run: VantageRun) -> None:
    [attempt] = finding(run, "BOOTSTRAP_TIMEOUT")["evidence"]["attempts"]
    assert attempt["status"] == "timeout" and 900 <= attempt["duration_ms"] < 3000
    assert run.seconds < 10  # the process's own start-up included, on a loaded 2-core machine


@check("bootstrap-out-of-reach", "client-no-route")
def no_route_fails_before_a_packet_leaves(run: VantageRun) -> None:
    [attempt] = finding(run, "BOOTSTRAP_UNREACHABLE")["evidence"]["attempts"]
    assert attempt["status"] == "unreachable" and attempt["duration_ms"] < 500


@check("topic-acl-denied", "client-alice")
def alice_is_authenticated_and_only_the_topic_is_denied(run: VantageRun) -> None:
    assert stage(run, "sasl")["status"] == "ok"
    assert finding(run, "TOPIC_AUTHORIZATION_FAILED")["evidence"]["topics"] == ["orders"]


@check("topic-acl-denied", "client-sasl-on-plain-port")
def the_plain_listener_has_no_sasl_mechanism_at_all(run: VantageRun) -> None:
    assert finding(run, "SASL_MECHANISM_MISMATCH")["evidence"]["sasl_mechanisms"] == []


@check("leader-down", "app-server")
def the_stopped_broker_is_gone_and_its_partition_leaderless(run: VantageRun) -> None:
    assert sorted(b["node_id"] for b in run.report["cluster"]["brokers"]) == [1, 2]
    evidence = finding(run, "NO_LEADER")["evidence"]
    assert evidence["partitions"] == {"orders": [2]} and evidence["missing_node_ids"] == [3]


@check("split-horizon-dns", "laptop-vpn")
def the_zonal_name_resolves_privately_and_has_no_route(run: VantageRun) -> None:
    [broker] = run.report["cluster"]["brokers"]
    assert broker["dns"]["addresses"] == ["198.51.100.10"] and broker["tcp"]["status"] == "unreachable"


@check("sni-ingress", "client-by-ip")
def without_sni_the_default_certificate_comes_back(run: VantageRun) -> None:
    [shake] = stage(run, "tls")["detail"]["handshakes"]
    assert shake["sni"] is None and "Fake Certificate" in shake["certificate"]["subject"]


@check("idle-nat-drop", "laptop")
def the_idle_connection_lasted_six_seconds_and_then_got_no_answer(run: VantageRun) -> None:
    idle = run.report["idle"]
    assert idle["status"] == "timeout" and 5.9 <= idle["idle_s"] < 7
    assert finding(run, "IDLE_CONNECTION_DROPPED")["evidence"]["idle_s"] == idle["idle_s"]


@check("idle-nat-drop", "server")
def without_the_nat_the_idle_connection_answers(run: VantageRun) -> None:
    assert run.report["idle"]["status"] == "ok"


def test_every_check_names_a_vantage_that_exists() -> None:
    assert CHECKS.naming_no_case(CASES) == set()


@pytest.mark.parametrize(("scenario", "vantage"), CASES, ids=[f"{name}/{vantage.name}" for name, vantage in CASES])
def test_kdiag_from_each_vantage_ends_as_the_scenario_says(lab, scenario, vantage) -> None:
    assert_run(scenario, lab(scenario).run(vantage), checks=CHECKS, golden=scenario not in NO_GOLDEN)


# --------------------------------------------------------------------------- explain on the real client's words

# librdkafka picks one of localhost's two addresses at random and moves to the next on each reconnect: so the
# producer leaves its connections idle past connections.max.idle.ms between messages, librdkafka closes them,
# and its reconnects alternate between ::1 (refused) and 127.0.0.1. (Producing without a pause kept the first
# connection open: when it was 127.0.0.1, ::1 was never tried and nothing was logged.)
PRODUCER = """
import time
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": "localhost:9092", "reconnect.backoff.ms": 10, "reconnect.backoff.max.ms": 50,
              "connections.max.idle.ms": 200, "message.timeout.ms": 8000})
for i in range(6):
    p.produce("kdiag-explain", b"x")
    p.flush(5)
    time.sleep(1.5)
p.flush(10)
"""


def test_explain_reads_the_real_producers_refused_ipv6_lines_as_the_family_split(lab) -> None:
    """A real confluent-kafka producer on the laptop of localhost-ipv4-only: its librdkafka stderr, pasted
    into kdiag explain, is ADVERTISED_ADDRESS_FAMILY_SPLIT, not a refused bootstrap."""
    live = lab("localhost-ipv4-only")
    done = live.live.run("laptop", [sys.executable, "-c", PRODUCER], timeout=90)
    assert "Connect to ipv6#[::1]:9092 failed: Connection refused" in done.stderr, done.stderr[-2000:]
    explained = subprocess.run([sys.executable, "-m", "kdiag", "explain", "--json"], input=done.stderr,
                               capture_output=True, text=True, timeout=60)
    ids = [f["id"] for f in json.loads(explained.stdout)["findings"] if f["severity"] in ("error", "warning")]
    assert ids == ["ADVERTISED_ADDRESS_FAMILY_SPLIT"], explained.stdout[-3000:]


def test_explain_reads_the_brokers_own_log_of_sasl_failures(lab) -> None:
    """Support engineers are often handed the broker's log: its `Failed authentication with /IP (...)` lines, as
    the real broker of topic-acl-denied writes them for a wrong password and an unsupported mechanism."""
    live = lab("topic-acl-denied")
    login = ("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.username=alice")
    for settings in (("-X", "sasl.mechanisms=PLAIN", "-X", "sasl.password=wrong"),
                     ("-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.password=alice-secret")):
        live.live.run("client", [sys.executable, "-m", "kdiag", "bootstrap", "kafka.example.test:9094", *login,
                                 *settings, "--no-roundtrip", "--json"], timeout=60)
    [cluster] = live.clusters
    log = (cluster.brokers[0].workdir / "server.log").read_text(errors="replace")
    lines = [line for line in log.splitlines() if "Failed authentication with" in line]
    assert any("Unsupported SASL mechanism SCRAM-SHA-256" in line for line in lines), "\n".join(lines[-10:])
    explained = subprocess.run([sys.executable, "-m", "kdiag", "explain", "--json"], input="\n".join(lines) + "\n",
                               capture_output=True, text=True, timeout=60)
    ids = {f["id"] for f in json.loads(explained.stdout)["findings"]}
    assert {"SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"} <= ids, explained.stdout[-3000:]
