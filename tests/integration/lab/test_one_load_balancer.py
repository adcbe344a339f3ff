"""Failure mode #6, one round-robin load balancer in front of all brokers: what real clients print, and
``kdiag explain`` on it.

``one-load-balancer`` (:mod:`kdiag.lab.scenarios.loadbalancer`) comes up once: three brokers advertising their
Strimzi pod names, behind one round-robin TCP balancer at kafka.example.test:9092. From the laptop (outside the
cluster), kcat -L, kcat -P, a confluent-kafka producer and the Java console producer bootstrap through the balancer.
``KDIAG_CAPTURE_FIXTURES=1`` writes the pastes to ``tests/fixtures/client_logs/one_load_balancer.*.log``.
Needs root; never skips.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from kdiag.explain.engine import explain_text
from kdiag.lab.scenarios.loadbalancer import CLIENT_PORT, LB_NAME, ONE_LOAD_BALANCER, TOPIC, pod_name
from tests.integration.lab.clients import Command, confluent_producer, console_producer

pytestmark = [pytest.mark.netns, pytest.mark.broker]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"
BOOTSTRAP = f"{LB_NAME}:{CLIENT_PORT}"
CLIENT_SECONDS = 60.0


def kcat_list_three_times(state_dir: Path) -> Command:
    """kcat -L three times over: each run's bootstrap connection lands on the balancer's next broker."""
    kcat = shlex.join(["kcat", "-b", BOOTSTRAP, "-L", "-m", "5"])
    shown = f"for i in 1 2 3; do {kcat}; done"
    return ["sh", "-c", f"{shown} 2>&1"], shown


def kcat_list_debug(state_dir: Path) -> Command:
    argv = ["kcat", "-b", BOOTSTRAP, "-L", "-m", "5", "-d", "broker,metadata"]
    return argv, shlex.join(argv)


def kcat_produce(state_dir: Path) -> Command:
    kcat = ["kcat", "-b", BOOTSTRAP, "-P", "-t", TOPIC, "-X", "message.timeout.ms=5000"]
    shown = f"echo hello | {shlex.join(kcat)}"
    return ["sh", "-c", shown], shown


def confluent_produce(state_dir: Path) -> Command:
    return confluent_producer(BOOTSTRAP, TOPIC, {"message.timeout.ms": 5000})


def console_produce(state_dir: Path) -> Command:
    return console_producer(BOOTSTRAP, TOPIC, ("max.block.ms=10000", "request.timeout.ms=1500",
                                               "delivery.timeout.ms=5000", "linger.ms=0", "enable.idempotence=false"),
                            state_dir)


CLIENTS = {"kcat_list_three_times": kcat_list_three_times, "kcat_list_debug": kcat_list_debug,
           "kcat_produce": kcat_produce, "confluent_producer": confluent_produce, "console_producer": console_produce}


@pytest.fixture(scope="module")
def pastes(lab) -> dict[str, str]:
    live = lab(ONE_LOAD_BALANCER.name)
    captured = {}
    for name, command in CLIENTS.items():
        argv, shown = command(live.live.state_dir)
        done = live.live.run("laptop", argv, timeout=CLIENT_SECONDS)
        captured[name] = f"$ {shown}\n{done.stdout}{done.stderr}"
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, paste in captured.items():
            (FIXTURES / f"one_load_balancer.{name}.log").write_text(paste)
    return captured


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_the_clients_show_the_pod_names_but_never_which_broker_the_balancer_picked(pastes, name) -> None:
    """Every client fails on the pod names (ADVERTISED_UNRESOLVABLE, with Strimzi's fix), and none prints a line
    that shows the balancer: the bootstrap connection is node -1 to them, and all three brokers are one cluster."""
    paste = pastes[name]
    assert any(f"{word}{pod_name(node)}" in paste for node in (0, 1, 2)
               for word in ("Failed to resolve '", f"broker {node} at ", "UnknownHostException: ")), paste
    findings = explain_text(paste).findings
    assert findings and findings[0].id == "ADVERTISED_UNRESOLVABLE", findings
    assert "LOAD_BALANCED_BOOTSTRAP" not in {f.id for f in findings}
    assert all("Assumed Strimzi" in f.fix for f in findings)


@pytest.mark.parametrize("name", ["confluent_producer", "console_producer"])
def test_a_producer_that_fails_on_every_broker_gets_a_fix_with_an_address_per_broker(pastes, name) -> None:
    """Never the bootstrap address for each broker in turn: that would put all three behind the balancer."""
    findings = explain_text(pastes[name]).findings
    assert sorted(f.evidence["node_id"] for f in findings) == [0, 1, 2], findings
    for finding in findings:
        assert f"://{LB_NAME}:" not in finding.fix, finding.fix
        assert all(f"<address clients outside use for broker {n}>" in finding.fix for n in (0, 1, 2))
