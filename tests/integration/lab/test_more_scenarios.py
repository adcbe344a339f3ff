"""The lab's scenarios beyond the seeds, up for real, and kdiag from every one of their vantages.

Kubernetes, NAT, firewalls (DROP and REJECT), clusters with one broker wrong (partial, duplicate, wrong
broker, coordinator), the wrong protocol (HTTP, TLS, SASL), a missing topic, and healthy clusters: each
run must end exactly as its scenario says. Each scenario comes up once and serves all its vantages (the
``lab`` fixture keeps one up at a time); some vantages have a closer look at their report, in the same
run. Then a scenario whose setup step fails must leave nothing behind. Needs root; never skips.
"""

from __future__ import annotations

import pytest

from kdiag.lab import netns
from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Host, LabError, Link, Topology
from kdiag.lab.runner import VantageRun, scenario_up
from kdiag.lab.scenarios import cluster, firewall, kubernetes, nat, protocol, topics
from kdiag.lab.scenarios import healthy as healthy_scenarios
from kdiag.lab.scenarios.base import LabBroker, LabStep, Scenario, Vantage, healthy, python_module
from tests.labrun import Checks, assert_run, finding_in

pytestmark = [pytest.mark.netns, pytest.mark.broker]

MODULES = (healthy_scenarios, kubernetes, nat, firewall, protocol, topics, cluster)
CASES = [(scenario.name, vantage) for module in MODULES for scenario in module.SCENARIOS
         for vantage in scenario.vantages]


# --------------------------------------------------------------------------- closer looks, in the same run

CHECKS = Checks()
check = CHECKS.of
finding = finding_in


def brokers(run: VantageRun) -> dict[int, dict]:
    return {b["node_id"]: b for b in run.report["cluster"]["brokers"]}


@check("partial-cluster", "app-server")
def partial_cluster_names_broker_3s_partition(run: VantageRun) -> None:
    evidence = finding(run, "PARTIAL_CLUSTER")["evidence"]
    assert evidence["usable_node_ids"] == [1, 2] and evidence["unusable_node_ids"] == [3]
    assert evidence["affected_partitions"] == {"orders": [2]}
    assert "orders [2]" in finding(run, "PARTIAL_CLUSTER")["explanation"]
    assert brokers(run)[3]["host"] == "kafka-3" and brokers(run)[3]["dns"]["status"] == "nxdomain"
    # The fix gives broker 3 an address of its own, never broker 1's (the bootstrap's).
    assert "://kafka-1.example.test:" not in finding(run, "ADVERTISED_UNRESOLVABLE")["fix"]


@check("coordinator-unreachable", "app-server")
def coordinator_is_broker_2_which_leads_no_partition_of_orders(run: VantageRun) -> None:
    coordinator = run.report["cluster"]["coordinator"]
    assert (coordinator["group"], coordinator["node_id"]) == ("kdiag-probe-app-server", 2)
    assert coordinator["dns"]["status"] == "nxdomain"
    leaders = {t["name"]: {p["leader_id"] for p in t["partitions"]} for t in run.report["cluster"]["topics"]}
    assert leaders == {"orders": {1}, "__consumer_offsets": {2}}
    assert finding(run, "PARTIAL_CLUSTER")["evidence"]["affected_partitions"] == {}


@check("duplicate-advertised", "app-server")
@check("wrong-broker-port-mapping", "app-server")
def broker_2s_endpoint_is_proven_to_be_broker_1(run: VantageRun) -> None:
    identity = brokers(run)[2]["identity"]
    assert (identity["status"], identity["topic"], identity["partition"]) == ("wrong_broker", "orders", 1)
    assert brokers(run)[1]["identity"]["status"] == "ok"
    assert finding(run, "PARTIAL_CLUSTER")["evidence"]["affected_partitions"] == {"orders": [1]}


@check("firewall-drop", "laptop")
def a_dropped_port_is_a_timeout_after_the_one_second_connect_timeout(run: VantageRun) -> None:
    assert finding(run, "ADVERTISED_UNREACHABLE")["evidence"]["tcp_status"] == "timeout"
    assert brokers(run)[1]["tcp"]["duration_ms"] >= 900
    assert run.seconds < 5


@check("firewall-reject", "laptop")
def a_rejected_port_is_refused_at_once(run: VantageRun) -> None:
    assert finding(run, "ADVERTISED_UNREACHABLE")["evidence"]["tcp_status"] == "refused"
    assert brokers(run)[1]["tcp"]["duration_ms"] < 500


@check("nat-port-mismatch", "laptop")
def the_nat_case_is_the_port_mismatch(run: VantageRun) -> None:
    evidence = finding(run, "ADVERTISED_UNREACHABLE")["evidence"]
    assert (evidence["case"], evidence["tcp_status"], evidence["bootstrap_port"]) == ("port", "refused", 19092)


@check("http-on-bootstrap-port", "client-registry-port")
def the_registry_answers_http_at_once(run: VantageRun) -> None:
    assert finding(run, "NOT_KAFKA")["evidence"]["speaks"] == "http"
    assert run.seconds < 5  # an answer, not a silent port waited out


@check("tls-listener-plaintext-client", "client-tls")
def the_right_client_trusts_the_ca_made_in_this_runs_state_directory(run: VantageRun) -> None:
    assert "{state_dir}" not in run.command and "/pki/ca.pem" in run.command
    assert [s["status"] for s in run.report["stages"] if s["name"] == "tls"] == ["ok"]


@check("sasl-listener-no-credentials", "client-no-credentials")
def the_sasl_listener_offers_its_mechanisms(run: VantageRun) -> None:
    assert finding(run, "SASL_REQUIRED")["evidence"]["sasl_mechanisms"] == ["PLAIN", "SCRAM-SHA-512"]


@check("k8s-headless-service", "app-pod")
def inside_the_cluster_the_pod_name_resolves(run: VantageRun) -> None:
    assert brokers(run)[1]["host"] == kubernetes.POD_NAME and brokers(run)[1]["dns"]["status"] == "ok"


def test_every_check_names_a_vantage_that_exists() -> None:
    assert CHECKS.naming_no_case(CASES) == set()


@pytest.mark.parametrize(("scenario", "vantage"), CASES, ids=[f"{name}/{vantage.name}" for name, vantage in CASES])
def test_kdiag_from_each_vantage_ends_as_the_scenario_says(lab, scenario, vantage) -> None:
    assert_run(scenario, lab(scenario).run(vantage), checks=CHECKS)


# --------------------------------------------------------------------------- setup steps


def test_a_failing_setup_step_is_named_and_leaves_nothing_behind() -> None:
    """A before-brokers step that fails stops the scenario before any broker starts, and tears down the lab."""
    broker = BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),), controller_port=9093)
    certificates = python_module("kdiag.lab.certs", "{state_dir}/pki", "not-a-san")
    failing = Scenario(
        name="failing-setup", title="A setup step that fails", description="Its certificates cannot be made.",
        topology=Topology(name="failstep", hosts=(Host("a"), Host("b")),
                          links=(Link("a", "192.0.2.1", "b", "192.0.2.2"),)),
        brokers=(LabBroker("b", broker),),
        setup=(LabStep("make the certificates", "b", certificates, when="before-brokers"),),
        vantages=(Vantage("a", host="a", bootstrap="192.0.2.2:9092", expect=healthy()),),
    )
    with pytest.raises(LabError) as raised:
        with scenario_up(failing):
            pytest.fail("the scenario came up")
    assert raised.value.step == "make the certificates in b"
    assert "each server is NAME=SAN" in str(raised.value)
    assert "{state_dir}" not in str(raised.value) and "/run/kdiag-lab/kd-failstep-" in str(raised.value)
    assert not list(netns.NETNS_RUN.glob("kd-failstep-*"))
    assert not (netns.STATE_ROOT.is_dir() and list(netns.STATE_ROOT.glob("kd-failstep-*")))
