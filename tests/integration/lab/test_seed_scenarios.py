"""Every seed scenario, up for real (namespaces, dnsmasq, iptables, a real Kafka broker), and kdiag from
every one of its vantages: each run must end exactly as the scenario says.

Each scenario comes up once per module and serves all its vantages: the tests run scenario by scenario,
and the ``lab`` fixture (conftest.py) keeps one scenario up at a time. Needs root; never skips.
"""

from __future__ import annotations

import pytest

from kdiag.lab.scenarios import get_scenario
from kdiag.lab.scenarios.ec2 import INTERNAL_NAME, PUBLIC_NAME
from tests.labrun import assert_run

pytestmark = [pytest.mark.netns, pytest.mark.broker]

# ec2-internal-hostname last: the test after the parametrised one looks closer at it while it is still up.
SEED_SCENARIOS = ("docker-listeners", "ec2-option1", "ec2-option2", "ec2-internal-hostname")
CASES = [(name, vantage) for name in SEED_SCENARIOS for vantage in get_scenario(name).vantages]


@pytest.mark.parametrize(("scenario", "vantage"), CASES, ids=[f"{name}/{vantage.name}" for name, vantage in CASES])
def test_kdiag_from_each_vantage_ends_as_the_scenario_says(lab, scenario, vantage) -> None:
    assert_run(scenario, lab(scenario).run(vantage))


def test_the_ec2_broker_advertises_its_internal_hostname_by_default(lab) -> None:
    """Nothing sets advertised.listeners: the broker itself comes up with the internal name (seen on the wire)."""
    live = lab("ec2-internal-hostname")
    [cluster] = live.clusters
    properties = (cluster.brokers[0].workdir / "server.properties").read_text()
    assert "advertised.listeners" not in properties
    assert "listeners=PLAINTEXT://:9092,CONTROLLER://" in properties
    # The Metadata answer, as the laptop's kdiag decoded it.
    run = live.run(next(v for v in live.scenario.vantages if v.name == "laptop"))
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["host"], broker["port"], broker["dns"]["status"]) == (INTERNAL_NAME, 9092, "nxdomain")
    assert run.report["bootstrap"] == [{"host": PUBLIC_NAME, "port": 9092}]
    fix = next(f for f in run.report["findings"] if f["id"] == "ADVERTISED_UNRESOLVABLE")["fix"]
    assert f"advertised.listeners=PLAINTEXT://{PUBLIC_NAME}:9092" in fix  # Option 1
    assert f"advertised.listeners=INTERNAL://{INTERNAL_NAME}:9092,EXTERNAL://{PUBLIC_NAME}:" in fix  # Option 2
