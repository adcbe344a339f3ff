"""OTHER_LISTENER_WORKS, and what the bootstrap host's other listeners change in the other fixes."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose import diagnose, run_rule
from kdiag.report import report_from_dict, report_to_dict
from probes.results import AdvertisedAddress, ListenerProbe, ListenerScan

from .builders import EC2_PUBLIC, bootstrap_failure, docker_bob_from_host, ec2_seed, tcp_fail

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"


def external_listener(port: int = 9092, *, works: bool = True) -> ListenerProbe:
    """The seed's Option 2 EXTERNAL listener, advertising the public name (usable from here or not)."""
    tcp = "ok" if works else "timeout"
    return ListenerProbe(port, "ok", CLUSTER_ID, (AdvertisedAddress(0, EC2_PUBLIC, port, "ok", tcp),))


def with_scan(report, *listeners: ListenerProbe, host: str = EC2_PUBLIC, address: str = "54.191.84.122"):
    return replace(report, other_listeners=ListenerScan(host, address, (9092, 9093, 29092), tuple(listeners)))


def ec2_internal_port_from_the_laptop():
    """Option 2's INTERNAL port (19092) reached from the laptop: the metadata names the internal host."""
    report = ec2_seed()
    stages = tuple(replace(s, detail=replace(s.detail, endpoint=f"{EC2_PUBLIC}:19092")) if s.name == "metadata" else s
                   for s in report.stages)
    return replace(report, bootstrap=(replace(report.bootstrap[0], port=19092),), stages=stages)


def test_a_usable_listener_on_another_port_is_an_info_finding_with_the_bootstrap_to_use():
    report = with_scan(ec2_internal_port_from_the_laptop(), external_listener())
    (found,) = run_rule(report, "OTHER_LISTENER_WORKS")
    assert found.severity == "info"
    assert found.title == f"{EC2_PUBLIC}:9092 is another listener of this cluster, and it works from here"
    assert f"advertises {EC2_PUBLIC}:9092, and it resolves and connects from this machine" in found.explanation
    assert f"bootstrap.servers={EC2_PUBLIC}:9092" in found.fix
    assert found.fix.endswith(f"kdiag bootstrap {EC2_PUBLIC}:9092")
    assert found.evidence["port"] == 9092 and found.evidence["advertised"][0]["tcp_status"] == "ok"


def test_the_advertised_fix_points_to_the_working_listener_first_and_keeps_the_options():
    report = with_scan(ec2_internal_port_from_the_laptop(), external_listener())
    fix = next(f for f in diagnose(report) if f.id == "ADVERTISED_UNRESOLVABLE").fix
    assert fix.startswith(f"Quickest, with no broker change: the bootstrap host has a listener that works from here. "
                          f"Bootstrap with {EC2_PUBLIC}:9092 instead (see OTHER_LISTENER_WORKS)")
    assert "Option 1" in fix and "Option 2" in fix


def test_option_two_does_not_propose_a_port_another_listener_already_uses():
    without = next(f for f in diagnose(ec2_internal_port_from_the_laptop()) if f.id == "ADVERTISED_UNRESOLVABLE")
    assert "EXTERNAL://0.0.0.0:29092" in without.fix  # 9092 and 19092 are the broker's and the bootstrap's
    something = ListenerProbe(29092, "not_kafka", error="HTTP/1.1 400 Bad Request")
    report = with_scan(ec2_internal_port_from_the_laptop(), something)
    fix = next(f for f in diagnose(report) if f.id == "ADVERTISED_UNRESOLVABLE").fix
    assert "EXTERNAL://0.0.0.0:29092" not in fix and "EXTERNAL://0.0.0.0:39092" in fix


def test_a_listener_whose_advertised_brokers_fail_here_too_is_no_way_out():
    report = with_scan(ec2_internal_port_from_the_laptop(), external_listener(works=False))
    assert run_rule(report, "OTHER_LISTENER_WORKS") == ()
    fix = next(f for f in diagnose(report) if f.id == "ADVERTISED_UNRESOLVABLE").fix
    assert "Quickest" not in fix


def test_a_listener_of_another_cluster_is_no_way_out():
    other = ListenerProbe(9092, "other_cluster", "another-cluster", error="belongs to cluster another-cluster")
    assert run_rule(with_scan(ec2_internal_port_from_the_laptop(), other), "OTHER_LISTENER_WORKS") == ()


def test_docker_bob_from_the_host_is_pointed_to_fred():
    fred = ListenerProbe(9092, "ok", CLUSTER_ID, (AdvertisedAddress(0, "localhost", 9092, "ok", "ok"),))
    report = with_scan(docker_bob_from_host(), fred, host="localhost", address="127.0.0.1")
    findings = {f.id: f for f in diagnose(report)}
    assert findings["OTHER_LISTENER_WORKS"].title.startswith("localhost:9092 is another listener")
    assert "Bootstrap with localhost:9092 instead" in findings["ADVERTISED_UNRESOLVABLE"].fix


def test_a_refused_bootstrap_port_is_pointed_to_the_port_kafka_answers_on():
    report = bootstrap_failure("kafka.example.com:9092", attempts=(tcp_fail("refused", "203.0.113.7", 9092),))
    listener = ListenerProbe(19092, "ok", CLUSTER_ID, (AdvertisedAddress(1, "kafka.example.com", 19092, "ok", "ok"),))
    report = with_scan(report, listener, host="kafka.example.com", address="203.0.113.7")
    findings = {f.id: f for f in diagnose(report)}
    assert findings["OTHER_LISTENER_WORKS"].title == ("Kafka answers on kafka.example.com:19092, and the brokers it "
                                                      "advertises work from here")
    assert findings["BOOTSTRAP_REFUSED"].fix.startswith("Quickest, with no broker change")


def test_no_scan_no_finding_and_the_report_round_trips_through_json():
    assert run_rule(ec2_seed(), "OTHER_LISTENER_WORKS") == ()
    report = with_scan(ec2_internal_port_from_the_laptop(), external_listener())
    data = report_to_dict(report)
    assert data["other_listeners"]["listeners"][0]["brokers"][0] == {
        "node_id": 0, "host": EC2_PUBLIC, "port": 9092, "dns": "ok", "tcp": "ok"}
    assert report_from_dict(data).other_listeners == report.other_listeners
