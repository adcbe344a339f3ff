"""Scenarios as data: declaration checks, the judge of a run (compare), and the seed scenarios' promises.

No namespace, no broker: what a scenario says must be right before the lab ever runs it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Host, LabError, Link, Topology
from kdiag.lab.scenarios import all_scenarios, get_scenario
from kdiag.lab.scenarios.base import (Expect, LabBroker, LabProcess, Scenario, Vantage, compare, finding, healthy,
                                      problems)

# --------------------------------------------------------------------------- compare


def report(*findings: tuple[str, str], stages: dict[str, str] | None = None, fixes: dict[str, str] | None = None) -> dict:
    stages = stages or {"dns": "ok", "tcp": "ok", "metadata": "ok", "advertised": "ok", "roundtrip": "ok"}
    return {
        "stages": [{"name": name, "status": status, "summary": f"{name} summary"} for name, status in stages.items()],
        "findings": [{"id": fid, "severity": severity, "title": f"title of {fid} naming kafka0",
                      "fix": (fixes or {}).get(fid, "")} for fid, severity in findings],
    }


def test_a_healthy_report_matches_healthy():
    assert compare(healthy(), 0, report()) == []


def test_info_findings_do_not_count_against_healthy():
    assert compare(healthy(), 0, report(("CLUSTER_NOTE", "info"))) == []


def test_a_different_exit_status_is_reported():
    assert compare(healthy(), 1, report()) == ["exit status 1, expected 0"]


def test_missing_and_unexpected_findings_are_both_named():
    expect = problems("ADVERTISED_UNRESOLVABLE")
    differences = compare(expect, 1, report(("ADVERTISED_LOOPBACK", "warning")))
    assert differences[0] == "missing finding ADVERTISED_UNRESOLVABLE"
    assert differences[1].startswith("unexpected finding ADVERTISED_LOOPBACK (warning): title of ADVERTISED_LOOPBACK")


def test_the_finding_set_must_be_exact_not_a_subset():
    expect = problems("ADVERTISED_UNRESOLVABLE")
    got = report(("ADVERTISED_UNRESOLVABLE", "error"), ("PARTIAL_CLUSTER", "error"))
    assert compare(expect, 1, got) == [
        "unexpected finding PARTIAL_CLUSTER (error): title of PARTIAL_CLUSTER naming kafka0"]


def test_title_and_fix_text_are_checked():
    expect = problems(finding("ADVERTISED_UNRESOLVABLE", title="kafka0", fix=("Option 1", "Option 2")))
    got = report(("ADVERTISED_UNRESOLVABLE", "error"), fixes={"ADVERTISED_UNRESOLVABLE": "Option 1: ..."})
    assert compare(expect, 1, got) == ["ADVERTISED_UNRESOLVABLE: its fix lacks 'Option 2'"]
    expect = problems(finding("ADVERTISED_UNRESOLVABLE", title="ip-172-31-18-160"))
    assert compare(expect, 1, got) == ["ADVERTISED_UNRESOLVABLE: its title lacks 'ip-172-31-18-160'"]


def test_hints_are_info_findings_that_must_be_there_with_their_text():
    expect = problems("ADVERTISED_UNRESOLVABLE", hints=(finding("OTHER_LISTENER_WORKS", fix="kafka0:29092"),))
    got = report(("ADVERTISED_UNRESOLVABLE", "error"))
    assert compare(expect, 1, got) == ["missing info finding OTHER_LISTENER_WORKS"]
    got = report(("ADVERTISED_UNRESOLVABLE", "error"), ("OTHER_LISTENER_WORKS", "info"),
                 fixes={"OTHER_LISTENER_WORKS": "kdiag bootstrap kafka0:9092"})
    assert compare(expect, 1, got) == ["OTHER_LISTENER_WORKS: its fix lacks 'kafka0:29092'"]
    got = report(("ADVERTISED_UNRESOLVABLE", "error"), ("OTHER_LISTENER_WORKS", "info"),
                 fixes={"OTHER_LISTENER_WORKS": "kdiag bootstrap kafka0:29092"})
    assert compare(expect, 1, got) == []


def test_pinned_stages_are_checked_with_the_stage_summary():
    expect = problems("BOOTSTRAP_REFUSED", stages={"tcp": "fail"})
    got = report(("BOOTSTRAP_REFUSED", "error"), stages={"dns": "ok", "tcp": "warn"})
    assert compare(expect, 1, got) == ["stage tcp is warn, expected fail (tcp summary)"]
    assert compare(healthy(), 0, report(stages={"dns": "ok"}))[0] == "stage tcp is absent, expected ok"


def test_no_report_is_a_difference():
    assert compare(healthy(), 0, None) == ["no JSON report was written"]


def test_healthy_without_roundtrip_expects_it_skipped():
    assert healthy(roundtrip=False).stages["roundtrip"] == "skip"
    assert healthy().summary() == "exit 0, healthy"
    assert problems("B", "A").summary() == "exit 1, A, B"


# --------------------------------------------------------------------------- declaration checks


def tiny(**changes) -> Scenario:
    fields = dict(
        name="tiny", title="A tiny scenario", description="One client, one broker.",
        topology=Topology(name="tiny", hosts=(Host("client"), Host("broker")),
                          links=(Link("client", "192.0.2.10", "broker", "192.0.2.1"),)),
        brokers=(LabBroker("broker", BrokerSpec(node_id=1, listeners=(Listener("PLAINTEXT", "", 9092),),
                                                controller_port=9093)),),
        vantages=(Vantage("client", host="client", bootstrap="192.0.2.1:9092", expect=healthy()),),
    )
    fields.update(changes)
    return Scenario(**fields)


def test_a_well_formed_scenario_is_accepted():
    scenario = tiny()
    assert scenario.addresses("client") == ["192.0.2.10"]
    assert [len(group) for group in scenario.broker_groups()] == [1]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "Tiny Scenario"}, "the name must be"),
        ({"description": " "}, "needs a title and a description"),
        ({"brokers": ()}, "has no broker"),
        ({"vantages": ()}, "has no vantage"),
        ({"vantages": (Vantage("v", host="nowhere", bootstrap="x:1", expect=healthy()),)}, "unknown host 'nowhere'"),
        ({"vantages": (Vantage("v", host="client", bootstrap="x:1", expect=healthy()),) * 2}, "duplicate vantage"),
        ({"vantages": (Vantage("v", host="client", bootstrap="x:1", expect=healthy(), args=("--json",)),)},
         "the lab chooses the output format"),
        ({"vantages": (Vantage("v", host="client", bootstrap="x:1", expect=Expect(0, ("NOT_KAFKA",))),)},
         "exit 0 goes with no error/warning finding"),
        ({"vantages": (Vantage("v", host="client", bootstrap="x:1", expect=Expect(1)),)},
         "exit 0 goes with no error/warning finding"),
        ({"vantages": (Vantage("v", host="client", bootstrap="x:1", expect=problems("A", stages={"dns": "good"})),)},
         "stage dns=good"),
        ({"processes": (LabProcess("http", "nowhere", ("true",)),)}, "process 'http' runs in unknown host"),
    ],
)
def test_a_malformed_scenario_is_refused_with_the_reason(changes, message):
    with pytest.raises(LabError, match=message):
        tiny(**changes)


def test_a_broker_in_an_unknown_host_is_refused():
    broker = tiny().brokers[0]
    with pytest.raises(LabError, match="broker 1 runs in unknown host 'elsewhere'"):
        tiny(brokers=(replace(broker, host="elsewhere"),))


def test_brokers_sharing_quorum_voters_form_one_cluster():
    spec = tiny().brokers[0].spec
    voters = "1@192.0.2.1:9093,2@192.0.2.1:9094"
    one, two = replace(spec, quorum_voters=voters), replace(spec, node_id=2, quorum_voters=voters)
    alone = replace(spec, node_id=3)
    scenario = tiny(brokers=(LabBroker("broker", one), LabBroker("broker", alone), LabBroker("broker", two)))
    assert [[b.spec.node_id for b in group] for group in scenario.broker_groups()] == [[1, 2], [3]]


def test_from_takes_a_vantage_name_or_a_host():
    scenario = get_scenario("docker-listeners")
    assert [v.name for v in scenario.vantages_from("outside-fred")] == ["outside-fred"]
    assert [v.name for v in scenario.vantages_from("docker-host")] == [
        "docker-host-bob", "docker-host-fred", "docker-host-alice"]
    assert scenario.vantages_from("mars") == ()
    assert len(scenario.vantages_from(None)) == len(scenario.vantages)


def test_an_unknown_scenario_names_the_known_ones():
    with pytest.raises(LabError, match="no scenario 'nope' \\(known: .*ec2-internal-hostname"):
        get_scenario("nope")


# --------------------------------------------------------------------------- the seed scenarios


def problem_ids(scenario: str) -> dict[str, frozenset[str]]:
    return {v.name: v.expect.finding_ids for v in get_scenario(scenario).vantages}


def test_every_scenario_is_registered_once_with_a_description_and_a_seed():
    scenarios = all_scenarios()
    names = [s.name for s in scenarios]
    assert {"ec2-internal-hostname", "ec2-option1", "ec2-option2", "docker-listeners"} <= set(names)
    assert len(set(names)) == len(names)
    for scenario in scenarios:
        assert len(scenario.description) > 200 and scenario.seed
        assert all(v.why for v in scenario.vantages), scenario.name


def test_ec2_seed_promises_unresolvable_from_the_laptop_with_both_options_and_health_inside():
    scenario = get_scenario("ec2-internal-hostname")
    assert problem_ids(scenario.name) == {"laptop": {"ADVERTISED_UNRESOLVABLE"}, "ec2": frozenset(),
                                          "vpc-app": frozenset()}
    [broker] = scenario.brokers
    # The seed's broker: listener host left to default, nothing advertised, host name = the internal name.
    assert broker.spec.advertised is None and broker.spec.listeners[0].url == "PLAINTEXT://:9092"
    assert broker.spec.hostname == "ip-172-31-18-160.us-west-2.compute.internal"
    [unresolvable] = scenario.vantages[0].expect.findings
    assert unresolvable.title_contains == ("ip-172-31-18-160.us-west-2.compute.internal",)
    assert {"Option 1", "Option 2"} <= set(unresolvable.fix_contains)


def test_ec2_options_are_healthy_through_the_right_ports():
    assert set(problem_ids("ec2-option1").values()) == {frozenset()}
    assert problem_ids("ec2-option2") == {
        "laptop": frozenset(), "vpc-app": frozenset(), "ec2": frozenset(),
        "laptop-internal-port": {"ADVERTISED_UNRESOLVABLE"}, "vpc-app-external-name": {"BOOTSTRAP_UNRESOLVABLE"},
    }


def test_docker_covers_the_nine_place_and_listener_cases():
    expected = {
        "other-container-bob": set(), "other-container-fred": {"ADVERTISED_LOOPBACK"},
        "other-container-alice": {"ADVERTISED_UNRESOLVABLE"},
        "docker-host-bob": {"ADVERTISED_UNRESOLVABLE"}, "docker-host-fred": set(),
        "docker-host-alice": {"ADVERTISED_UNRESOLVABLE"},
        "outside-bob": {"BOOTSTRAP_UNRESOLVABLE"}, "outside-fred": {"ADVERTISED_LOOPBACK"},
        "outside-alice": {"ADVERTISED_UNRESOLVABLE"},
        "outside-bob-port": {"BOOTSTRAP_REFUSED"}, "laptop-alice": set(),
    }
    assert problem_ids("docker-listeners") == expected
    docker = get_scenario("docker-listeners")
    bob = next(v for v in docker.vantages if v.name == "docker-host-bob")
    assert bob.expect.findings[0].title_contains == ("kafka0",)
    hosts_with_alice = {h.name for h in docker.topology.hosts if "never-gonna-give-you-up" in h.hosts}
    assert hosts_with_alice == {"laptop"}
