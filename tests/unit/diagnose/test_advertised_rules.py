"""The advertised-broker rules: each fires on its case and stays quiet on a healthy cluster."""

from __future__ import annotations

import pytest

from kdiag.diagnose import run_rule
from kdiag.report import BrokerReport
from probes.results import DnsResult, IdentityCheck, KafkaCheck

from .builders import (CLUSTER_ID, SKIPPED_IDENTITY, SKIPPED_KAFKA, SKIPPED_TCP, broker, cluster_report, dns_fail,
                       dns_ok, healthy, tcp_fail, tcp_ok, topics_for, unresolvable, with_broker,
                       with_coordinator)

ADVERTISED_RULES = ("ADVERTISED_NONROUTABLE", "ADVERTISED_LOOPBACK", "ADVERTISED_UNRESOLVABLE",
                    "ADVERTISED_UNREACHABLE", "ADVERTISED_DUPLICATE", "ADVERTISED_WRONG_BROKER", "PARTIAL_CLUSTER",
                    "COORDINATOR_UNREACHABLE")


def literal(address: str) -> DnsResult:
    return DnsResult(host=address, status="ok", addresses=(address,), source="literal")


def broken(report, node_id: int, **changes):  # type: ignore[no-untyped-def]
    """A broker that failed at some step: later steps were skipped."""
    defaults = {"tcp": SKIPPED_TCP, "kafka": SKIPPED_KAFKA, "identity": SKIPPED_IDENTITY}
    return with_broker(report, node_id, **{**defaults, **changes})


@pytest.mark.parametrize("brokers", [1, 3])
@pytest.mark.parametrize("rule_id", ADVERTISED_RULES)
def test_advertised_rules_are_silent_on_a_healthy_cluster(rule_id: str, brokers: int) -> None:
    assert run_rule(healthy(brokers), rule_id) == ()


# --- ADVERTISED_UNRESOLVABLE ----------------------------------------------------------------------


@pytest.mark.parametrize(("status", "words"), [
    ("nxdomain", "no such name"),
    ("no_answer", "no address record"),
    ("servfail", "SERVFAIL"),
    ("timeout", "resolver itself is unreachable"),
])
def test_unresolvable_explanation_tells_no_such_name_from_resolver_trouble(status: str, words: str) -> None:
    report = broken(healthy(3), 2, dns=dns_fail("kafka2.example.com", status))
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert words in found.explanation
    assert found.evidence["dns_status"] == status


def test_unresolvable_servfail_notes_the_bootstrap_resolved_so_the_zone_is_private() -> None:
    report = broken(healthy(3), 2, dns=dns_fail("kafka2.example.com", "servfail"))
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "split-horizon" in found.explanation


def test_unresolvable_groups_several_brokers_into_one_finding_with_a_block_each() -> None:
    brokers = [unresolvable(n, f"ip-10-0-1-{10 + n}.ec2.internal") for n in (1, 2, 3)]
    report = cluster_report("kafka.example.com:9092", ["203.0.113.11"], brokers)
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert found.title.startswith("Brokers 1, 2 and 3 advertise names this machine cannot resolve")
    assert found.evidence["node_ids"] == [1, 2, 3]
    assert "node_id" not in found.evidence
    for n in (1, 2, 3):
        assert f"# broker {n} (node.id={n}): server.properties" in found.fix
        assert f"INTERNAL://ip-10-0-1-{10 + n}.ec2.internal:9092" in found.fix
    assert "ec2-A-B-C-D.us-east-1.compute.amazonaws.com" in found.fix  # what to put there, for EC2


def test_unresolvable_docker_brokers_behind_localhost_get_one_external_port_each() -> None:
    brokers = [unresolvable(n, f"kafka{n}", 29091 + n) for n in (1, 2, 3)]
    report = cluster_report("localhost:9092", ["127.0.0.1"], brokers)
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "KAFKA_ADVERTISED_LISTENERS: INTERNAL://kafka1:29092,EXTERNAL://localhost:19092" in found.fix
    assert "KAFKA_ADVERTISED_LISTENERS: INTERNAL://kafka2:29093,EXTERNAL://localhost:19093" in found.fix
    assert "KAFKA_ADVERTISED_LISTENERS: INTERNAL://kafka3:29094,EXTERNAL://localhost:19094" in found.fix
    assert "<" not in found.fix


def test_one_broker_advertising_a_short_name_among_brokers_with_their_own_names_is_not_sent_to_the_bootstrap() -> None:
    """Broker 3 of a cluster whose brokers 1 and 2 advertise names of their own: the bootstrap host is
    broker 1, not a Docker host in front of them all, so neither the fix nor the /etc/hosts stopgap may
    send broker 3's traffic there (that would make it a duplicate of broker 1)."""
    report = broken(healthy(3), 3, host="kafka-3", dns=dns_fail("kafka-3"))
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "://kafka1.example.com:" not in found.fix  # neither Option 1 nor Option 2 advertises broker 1's name
    assert "/etc/hosts" not in found.fix
    assert "<address clients outside use for broker 3>" in found.fix


def test_unresolvable_kubernetes_names_point_at_the_operator_settings() -> None:
    brokers = [unresolvable(n, f"kafka-{n}.kafka-headless.kafka.svc.cluster.local") for n in (0, 1, 2)]
    report = cluster_report("203.0.113.80:9094", ["203.0.113.80"], brokers)
    (found,) = run_rule(report, "ADVERTISED_UNRESOLVABLE")
    assert "Kubernetes cluster DNS name" in found.explanation
    assert "advertisedHost" in found.fix


def test_unresolvable_does_not_fire_for_a_broker_that_was_not_probed() -> None:
    report = with_broker(healthy(3), 2, dns=DnsResult(host="", status="skip"), tcp=SKIPPED_TCP)
    assert run_rule(report, "ADVERTISED_UNRESOLVABLE") == ()


# --- ADVERTISED_LOOPBACK --------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "::1"])
def test_loopback_fires_for_every_loopback_spelling(host: str) -> None:
    address = "127.0.0.1" if host != "::1" else "::1"
    report = broken(healthy(1), 1, host=host, dns=dns_ok(host, address), tcp=tcp_fail("refused", address, 9092))
    (found,) = run_rule(report, "ADVERTISED_LOOPBACK")
    assert found.severity == "error"
    assert found.evidence["host"] == host


def test_loopback_answering_locally_is_still_not_the_broker() -> None:
    report = with_broker(healthy(1), 1, host="localhost", dns=dns_ok("localhost", "127.0.0.1"),
                         tcp=tcp_ok("127.0.0.1", 9092), kafka=KafkaCheck("ok"),
                         identity=IdentityCheck("wrong_broker", cluster_id="SOMEOTHERCLUSTER"))
    (found,) = run_rule(report, "ADVERTISED_LOOPBACK")
    assert found.severity == "error"
    assert "it is this machine, not broker 1" in found.explanation
    assert run_rule(report, "ADVERTISED_WRONG_BROKER") == ()


def test_loopback_that_works_because_this_is_the_broker_host_is_only_a_warning() -> None:
    report = with_broker(healthy(1), 1, host="localhost", dns=dns_ok("localhost", "127.0.0.1"),
                         tcp=tcp_ok("127.0.0.1", 9092))
    (found,) = run_rule(report, "ADVERTISED_LOOPBACK")
    assert found.severity == "warning"
    assert "from anywhere else it fails" in found.explanation


def test_loopback_is_fine_when_the_client_bootstrapped_through_loopback_too() -> None:
    local = BrokerReport(1, "localhost", 9092, dns=dns_ok("localhost", "127.0.0.1"), tcp=tcp_ok("127.0.0.1", 9092),
                         kafka=KafkaCheck("ok"), identity=IdentityCheck("ok"))
    report = cluster_report("localhost:9092", ["127.0.0.1"], [local])
    assert run_rule(report, "ADVERTISED_LOOPBACK") == ()


# --- ADVERTISED_UNREACHABLE -----------------------------------------------------------------------


@pytest.mark.parametrize(("status", "words"), [
    ("refused", "refuses connections"), ("timeout", "filtered"), ("unreachable", "no route"),
])
def test_unreachable_names_how_the_connect_failed(status: str, words: str) -> None:
    report = broken(healthy(3), 3, tcp=tcp_fail(status, "203.0.113.13", 9092))
    (found,) = run_rule(report, "ADVERTISED_UNREACHABLE")
    assert words in found.title
    assert found.evidence["tcp_status"] == status
    assert "nc -vz kafka3.example.com 9092" in found.fix


def test_unreachable_refused_says_refused_is_ambiguous() -> None:
    report = broken(healthy(3), 3, tcp=tcp_fail("refused", "203.0.113.13", 9092))
    (found,) = run_rule(report, "ADVERTISED_UNREACHABLE")
    assert "nothing listens" in found.explanation and "REJECT" in found.explanation


def test_unreachable_timeout_fix_opens_the_port_for_this_machine() -> None:
    report = broken(healthy(3), 3, tcp=tcp_fail("timeout", "203.0.113.13", 9092))
    (found,) = run_rule(report, "ADVERTISED_UNREACHABLE")
    assert "--port 9092 --cidr 192.0.2.10/32" in found.fix
    assert "Connection setup timed out in state CONNECT" in found.explanation


def test_unreachable_port_mismatch_suggests_advertising_the_published_port() -> None:
    natted = BrokerReport(0, "203.0.113.50", 9092, dns=literal("203.0.113.50"),
                          tcp=tcp_fail("refused", "203.0.113.50", 9092))
    report = cluster_report("203.0.113.50:29092", ["203.0.113.50"], [natted], topics=topics_for([0]))
    (found,) = run_rule(report, "ADVERTISED_UNREACHABLE")
    assert "reached the cluster on port 29092" in found.title
    assert found.evidence["case"] == "port" and found.evidence["bootstrap_port"] == 29092
    assert "advertised.listeners=PLAINTEXT://203.0.113.50:29092" in found.fix
    assert "listeners=PLAINTEXT://0.0.0.0:9092" in found.fix
    assert "Connection to node 0 (/203.0.113.50:9092) could not be established" in found.explanation


def test_unreachable_private_address_from_outside_gets_the_listener_fix() -> None:
    private = BrokerReport(1, "10.0.1.11", 9092, dns=literal("10.0.1.11"), tcp=tcp_fail("timeout", "10.0.1.11", 9092))
    report = cluster_report("kafka.example.com:9092", ["203.0.113.11"], [private])
    (found,) = run_rule(report, "ADVERTISED_UNREACHABLE")
    assert "a private address this machine cannot reach" in found.title
    assert "advertised.listeners=INTERNAL://10.0.1.11:9092,EXTERNAL://kafka.example.com:19092" in found.fix


def test_unreachable_does_not_fire_for_an_unresolvable_broker() -> None:
    report = broken(healthy(3), 2, dns=dns_fail("kafka2.example.com"))
    assert run_rule(report, "ADVERTISED_UNREACHABLE") == ()


# --- ADVERTISED_NONROUTABLE -----------------------------------------------------------------------


def test_nonroutable_fires_for_0_0_0_0_with_kafkas_own_words() -> None:
    meta = BrokerReport(0, "0.0.0.0", 46723, dns=literal("0.0.0.0"), tcp=tcp_fail("refused", "0.0.0.0", 46723))
    report = cluster_report("proxy.example.com:32400", ["203.0.113.60"], [meta], topics=topics_for([0]))
    (found,) = run_rule(report, "ADVERTISED_NONROUTABLE")
    assert found.title == "Broker 0 advertises 0.0.0.0:46723, an address no client can connect to"
    assert "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0." in found.explanation
    assert "advertised.listeners=PLAINTEXT://proxy.example.com:32400" in found.fix
    assert "INTERNAL://0.0.0.0" not in found.fix  # never keep 0.0.0.0 as an advertised address
    assert run_rule(report, "ADVERTISED_UNREACHABLE") == ()
    assert run_rule(report, "ADVERTISED_LOOPBACK") == ()


# --- ADVERTISED_DUPLICATE -------------------------------------------------------------------------


def test_duplicate_fires_when_two_node_ids_share_host_and_port() -> None:
    report = with_broker(healthy(3), 2, host="kafka1.example.com", dns=dns_ok("kafka1.example.com", "203.0.113.11"),
                         tcp=tcp_ok("203.0.113.11", 9092))
    (found,) = run_rule(report, "ADVERTISED_DUPLICATE")
    assert found.title == "Brokers 1 and 2 both advertise kafka1.example.com:9092"
    assert found.evidence["node_ids"] == [1, 2]
    assert "# broker 2 (node.id=2)" in found.fix and "# broker 1 (node.id=1)" not in found.fix


def test_duplicate_ignores_same_host_on_different_ports() -> None:
    report = with_broker(healthy(3), 2, host="kafka1.example.com", port=9093)
    assert run_rule(report, "ADVERTISED_DUPLICATE") == ()


def test_duplicate_and_wrong_broker_both_fire_naming_the_broker_the_shared_address_misses() -> None:
    report = with_broker(healthy(3), 2, host="kafka1.example.com", identity=IdentityCheck("wrong_broker"))
    assert run_rule(report, "ADVERTISED_DUPLICATE")
    (wrong,) = run_rule(report, "ADVERTISED_WRONG_BROKER")
    assert wrong.evidence["node_id"] == 2


# --- ADVERTISED_WRONG_BROKER ----------------------------------------------------------------------


def test_wrong_broker_fires_when_the_endpoint_answers_for_another_broker() -> None:
    report = with_broker(healthy(3), 3, identity=IdentityCheck("wrong_broker", topic="orders", partition=2,
                                                               error="NOT_LEADER_OR_FOLLOWER"))
    (found,) = run_rule(report, "ADVERTISED_WRONG_BROKER")
    assert found.title == "Broker 3's advertised address kafka3.example.com:9092 leads to a different broker"
    assert "orders-2" in found.explanation and "NOT_LEADER_OR_FOLLOWER" in found.explanation
    assert "kcat -b kafka3.example.com:9092 -L" in found.fix


def test_wrong_broker_quotes_the_probes_own_sentence_once() -> None:
    """The identity probe's error is a whole sentence (what it asked, what came back): the explanation says
    it once instead of wrapping it in another "it answered ..."."""
    said = ("ListOffsets for orders-1, which this broker leads, answered NOT_LEADER_OR_FOLLOWER (6) twice: the "
            "endpoint reaches a different broker")
    report = with_broker(healthy(3), 2, identity=IdentityCheck("wrong_broker", topic="orders", partition=1, error=said))
    (found,) = run_rule(report, "ADVERTISED_WRONG_BROKER")
    assert f"but not broker 2: {said}." in found.explanation
    assert found.explanation.count("ListOffsets") == 1


def test_wrong_broker_names_another_cluster_when_the_cluster_id_differs() -> None:
    report = with_broker(healthy(3), 3, identity=IdentityCheck("wrong_broker", cluster_id="OTHERCLUSTERid"))
    (found,) = run_rule(report, "ADVERTISED_WRONG_BROKER")
    assert "another cluster" in found.title
    assert "OTHERCLUSTERid" in found.explanation and CLUSTER_ID in found.explanation


def test_wrong_broker_is_silent_when_identity_is_unverified() -> None:
    report = with_broker(healthy(3), 3, identity=IdentityCheck("unverified", error="leads no partition"))
    assert run_rule(report, "ADVERTISED_WRONG_BROKER") == ()


# --- PARTIAL_CLUSTER ------------------------------------------------------------------------------


def test_partial_cluster_lists_the_partitions_led_by_the_unusable_broker() -> None:
    report = broken(healthy(3), 2, dns=dns_fail("kafka2.example.com"))
    (found,) = run_rule(report, "PARTIAL_CLUSTER")
    assert found.severity == "error"
    assert found.evidence["unusable_node_ids"] == [2]
    assert found.evidence["usable_node_ids"] == [1, 3]
    assert found.evidence["affected_partitions"] == {"orders": [1, 4]}
    assert "orders [1, 4]" in found.explanation
    assert "__consumer_offsets" in found.explanation


def test_partial_cluster_mentions_the_groups_coordinator_when_it_is_unusable() -> None:
    report = broken(healthy(3), 1, dns=dns_fail("kafka1.example.com"))  # the builder's coordinator is broker 1
    (found,) = run_rule(report, "PARTIAL_CLUSTER")
    assert "coordinator" in found.explanation and "kdiag-probe" in found.explanation


def test_partial_cluster_needs_at_least_one_usable_broker() -> None:
    report = healthy(3)
    for n in (1, 2, 3):
        report = broken(report, n, dns=dns_fail(f"kafka{n}.example.com"))
    assert run_rule(report, "PARTIAL_CLUSTER") == ()


def test_partial_cluster_does_not_say_nothing_fails_when_the_broker_leads_only_consumer_offsets() -> None:
    report = broken(healthy(2), 2, dns=dns_fail("kafka2.example.com"))
    topics = (topics_for([1])[0], topics_for([2])[1])  # orders all on broker 1, __consumer_offsets on broker 2
    report = cluster_report("kafka1.example.com:9092", ["203.0.113.11"], list(report.cluster.brokers), topics=topics)
    (found,) = run_rule(report, "PARTIAL_CLUSTER")
    assert found.severity == "error"
    assert "nothing fails" not in found.explanation
    assert "consumer groups whose coordinator is there hang" in found.explanation


def test_partial_cluster_is_a_warning_when_the_broker_leads_nothing() -> None:
    report = broken(healthy(3), 2, dns=dns_fail("kafka2.example.com"))
    report = cluster_report("kafka1.example.com:9092", ["203.0.113.11"], list(report.cluster.brokers),
                            topics=topics_for([1, 3]))
    (found,) = run_rule(report, "PARTIAL_CLUSTER")
    assert found.severity == "warning"


# --- COORDINATOR_UNREACHABLE ----------------------------------------------------------------------


def test_coordinator_unreachable_when_only_the_coordinator_endpoint_fails() -> None:
    report = with_coordinator(healthy(3), node_id=7, host="kafka7.internal", port=9092,
                              dns=dns_fail("kafka7.internal"), tcp=None)
    (found,) = run_rule(report, "COORDINATOR_UNREACHABLE")
    assert "Producers work" in found.explanation
    assert "kdiag-probe" in found.title
    assert "Rediscovery will be attempted" in found.explanation
    assert "Group coordinator kafka7.internal:9092 (id: 2147483640 rack: null)" in found.explanation


def test_coordinator_unreachable_by_tcp_gets_the_firewall_fix() -> None:
    report = with_coordinator(healthy(3), tcp=tcp_fail("timeout", "203.0.113.11", 9092))
    (found,) = run_rule(report, "COORDINATOR_UNREACHABLE")
    assert found.evidence["tcp_status"] == "timeout"
    assert "authorize-security-group-ingress" in found.fix


def test_coordinator_not_available_on_a_single_broker_suggests_the_offsets_replication_factor() -> None:
    report = with_coordinator(healthy(1), node_id=None, host=None, port=None, dns=None, tcp=None,
                              error="COORDINATOR_NOT_AVAILABLE")
    (found,) = run_rule(report, "COORDINATOR_UNREACHABLE")
    assert "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 1" in found.fix


def test_coordinator_on_a_blamed_broker_fires_while_other_brokers_work() -> None:
    """Producers to brokers 2 and 3 work, consumers in the group hang: the contract's case, even though
    broker 1's own finding names the cause; the fix points there instead of repeating it."""
    report = broken(healthy(3), 1, dns=dns_fail("kafka1.example.com"))
    report = with_coordinator(report, dns=dns_fail("kafka1.example.com"), tcp=None)
    (found,) = run_rule(report, "COORDINATOR_UNREACHABLE")
    assert "Producers work" in found.explanation and "kdiag-probe" in found.title
    assert "Broker 1 is the coordinator" in found.fix and "advertised.listeners" not in found.fix


def test_coordinator_is_silent_when_no_broker_works_from_here() -> None:
    report = healthy(3)
    for n in (1, 2, 3):
        report = broken(report, n, dns=dns_fail(f"kafka{n}.example.com"))
    report = with_coordinator(report, dns=dns_fail("kafka1.example.com"), tcp=None)
    assert run_rule(report, "COORDINATOR_UNREACHABLE") == ()


def test_every_broker_ok_means_no_advertised_findings_even_with_racks() -> None:
    members = [broker(n, f"kafka{n}.example.com") for n in (1, 2, 3)]
    members = [BrokerReport(b.node_id, b.host, b.port, f"rack-{b.node_id}", b.dns, b.tcp, b.kafka, b.identity)
               for b in members]
    report = cluster_report("kafka1.example.com:9092", ["203.0.113.11"], members)
    for rule_id in ADVERTISED_RULES:
        assert run_rule(report, rule_id) == ()
