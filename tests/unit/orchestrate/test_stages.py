"""Each stage's facts become its Stage (status, summary, detail): kdiag.stages, pure, on built results."""

from __future__ import annotations

from kdiag import stages
from kdiag.report import CoordinatorReport, Endpoint, MetadataDetail, RoundtripDetail, SaslDetail, Stage
from probes.results import DnsResult, ForeignBytes, KafkaBroker, KafkaCheck, SaslResult, TcpResult, TlsResult
from tests.unit.diagnose.builders import broker, dns_fail, dns_ok, tcp_fail, tcp_ok, unresolvable

ENDPOINT = Endpoint("kafka.example.com", 9092)


def test_dns_every_host_resolves_is_ok_and_lists_the_addresses() -> None:
    stage = stages.dns_stage([dns_ok("a.example.com", "192.0.2.1"), dns_ok("b.example.com", "192.0.2.2")], 3.0)
    assert (stage.name, stage.status, stage.duration_ms) == ("dns", "ok", 3.0)
    assert stage.summary == "a.example.com → 192.0.2.1; b.example.com → 192.0.2.2"


def test_dns_some_hosts_fail_is_a_warning_naming_them() -> None:
    stage = stages.dns_stage([dns_ok("a.example.com", "192.0.2.1"), dns_fail("b.example.com")], 1.0)
    assert (stage.status, stage.summary) == ("warn", "b.example.com: nxdomain (other bootstrap hosts resolve)")


def test_dns_no_host_resolves_fails() -> None:
    stage = stages.dns_stage([dns_fail("a.example.com", "servfail")], 1.0)
    assert (stage.status, stage.summary) == ("fail", "cannot resolve a.example.com (servfail)")
    assert stage.detail.results == (dns_fail("a.example.com", "servfail"),)


def test_tcp_summaries_for_all_some_and_no_connections() -> None:
    good, bad = tcp_ok("192.0.2.1", 9092), tcp_fail("refused", "2001:db8::1", 9092)
    assert stages.tcp_stage([good], 1.0).summary == "connected to 192.0.2.1:9092 in 0.4 ms"
    some = stages.tcp_stage([good, bad], 1.0)
    assert (some.status, some.summary) == ("warn", "1 of 2 addresses accept connections; [2001:db8::1]:9092 refused")
    none = stages.tcp_stage([bad], 1.0)
    assert (none.status, none.summary) == ("fail", "[2001:db8::1]:9092 refused: [Errno 111] Connection refused")
    assert none.detail.attempts == (bad,)


def test_tls_failures_say_each_different_error_once() -> None:
    failed = TlsResult("untrusted", host="kafka.example.com", port=9093, error="unable to get local issuer")
    stage = stages.tls_stage([failed, failed], 1.0)
    assert (stage.status, stage.summary) == ("fail", "kafka.example.com:9093: untrusted: unable to get local issuer")


def _sasl(status: str, **changes) -> SaslResult:
    return SaslResult(status, "SCRAM-SHA-512", "alice", endpoint="kafka.example.com:9092", **changes)


def test_sasl_the_login_that_worked_comes_first() -> None:
    ok = _sasl("ok", handshake_version=1, authenticate_version=2, enabled_mechanisms=("SCRAM-SHA-512",))
    stage = stages.sasl_stage([_sasl("error", error="timed out"), ok], 5.0, authenticated=True)
    assert stage.status == "warn"
    assert stage.summary == ("authenticated as alice with SCRAM-SHA-512 at kafka.example.com:9092 (SaslHandshake v1, "
                             "SaslAuthenticate v2; enabled: SCRAM-SHA-512); kafka.example.com:9092: error: timed out")


def test_sasl_rejected_credentials_fail_the_stage() -> None:
    stage = stages.sasl_stage([_sasl("auth_failed", error="SaslAuthenticate answered SASL_AUTHENTICATION_FAILED")],
                              1.0, authenticated=False)
    assert stage.status == "fail"
    assert stage.summary == ("kafka.example.com:9092: auth_failed: SaslAuthenticate answered "
                             "SASL_AUTHENTICATION_FAILED")
    assert stage.detail == SaslDetail((_sasl("auth_failed", error="SaslAuthenticate answered "
                                                                   "SASL_AUTHENTICATION_FAILED"),))


def test_sasl_not_probed_is_a_warning_and_hands_the_login_to_the_round_trip() -> None:
    attempts = [_sasl("not_probed", error="GSSAPI is enabled")]
    assert stages.not_probed(attempts, authenticated=False)
    stage = stages.sasl_stage(attempts, 1.0, authenticated=False)
    assert stage.status == "warn"
    assert stage.summary.endswith("; the round trip logs in with the client library instead")
    assert not stages.sasl_stage(attempts, 1.0, authenticated=False, roundtrip=False).summary.endswith("instead")


def test_sasl_every_attempt_skipped_is_a_skip_with_its_reason() -> None:
    stage = stages.sasl_stage([_sasl("skip", error="ApiVersions before the SASL handshake failed")], 1.0,
                              authenticated=False)
    assert (stage.status, stage.detail.reason) == ("skip", stage.summary)


def test_sasl_no_attempt_at_all_says_the_deadline_passed() -> None:
    assert stages.sasl_stage([], 1.0, authenticated=False).summary == "the run's deadline passed before SASL"


def test_metadata_ok_names_the_cluster_brokers_and_version() -> None:
    kafka = KafkaCheck("ok", 3, 12, "abc", 1, (KafkaBroker(1, "b1", 9092), KafkaBroker(2, "b2", 9092)), (),
                       brokers_omitted=3)
    stage = stages.metadata_stage(ENDPOINT, kafka, 2.0)
    assert stage.summary == ("cluster abc, 5 advertised broker(s), controller 1, 0 topic(s) (Metadata v12 via "
                             "kafka.example.com:9092)")
    assert stage.detail == MetadataDetail("kafka.example.com:9092", kafka)


def test_metadata_of_consumer_offsets_alone_says_why() -> None:
    kafka = KafkaCheck("ok", 3, 12, None, 1, (), (), foreign=ForeignBytes("too_large", "x", "", request="Metadata"))
    assert stages.metadata_stage(ENDPOINT, kafka, 2.0).summary.endswith(
        "; __consumer_offsets alone: the answer for every topic was over kdiag's cap")


def test_metadata_failure_says_the_status_and_error() -> None:
    stage = stages.metadata_stage(ENDPOINT, KafkaCheck("not_kafka", error="HTTP"), 2.0)
    assert (stage.status, stage.summary) == ("fail", "kafka.example.com:9092: not_kafka: HTTP")


def test_advertised_names_each_unusable_broker_and_its_problem() -> None:
    brokers = (broker(1, "b1.example.com"), unresolvable(2, "ip-10-0-0-2.ec2.internal"))
    stage = stages.advertised_stage(brokers, None, brokers_omitted=0, landings=(), duration_ms=1.0)
    assert stage.status == "fail"
    assert stage.summary == ("1 of 2 advertised broker(s) unusable from here: broker 2 at "
                             "ip-10-0-0-2.ec2.internal:9092 does not resolve (nxdomain)")
    assert (stage.detail.checked, stage.detail.reachable) == (2, 1)


def test_advertised_an_unreachable_coordinator_fails_a_healthy_stage() -> None:
    coordinator = CoordinatorReport("g", 1, "c.example.com", 9092, tcp=TcpResult("timeout"))
    stage = stages.advertised_stage((broker(1, "b1.example.com"),), coordinator, brokers_omitted=2, landings=(),
                                    duration_ms=1.0)
    assert stage.status == "fail"
    assert stage.summary == ("all 1 advertised broker(s) resolve, connect and answer as themselves; the group "
                             "coordinator c.example.com:9092 is unreachable; and 2 more advertised broker(s) not "
                             "checked (kdiag checks and lists the first 1)")


def test_advertised_no_brokers_fails() -> None:
    assert stages.advertised_stage((), None, brokers_omitted=0, landings=(), duration_ms=1.0).summary == (
        "the metadata advertises no brokers")


def test_roundtrip_ok_and_failed() -> None:
    ok = RoundtripDetail("kdiag-probe", 0, 7, produce_ms=3.0, consume_ms=4.5)
    assert stages.roundtrip_stage(ok, 9.0) == Stage(
        "roundtrip", "ok", 9.0, "produced and consumed 1 message on kdiag-probe-0 at offset 7 (produce 3 ms, consume "
        "4.5 ms)", ok)
    failed = RoundtripDetail("kdiag-probe", error="Local: timed out", error_code="_MSG_TIMED_OUT")
    assert stages.roundtrip_stage(failed, 9.0).summary == "_MSG_TIMED_OUT: Local: timed out"
    problem = RoundtripDetail("t", error="topic t: LEADER_NOT_AVAILABLE", error_code="LEADER_NOT_AVAILABLE")
    assert stages.topic_problem_stage(problem, 1.0).summary == "topic t: LEADER_NOT_AVAILABLE"


def test_a_skipped_stage_carries_its_reason_in_its_own_detail_type() -> None:
    stage = stages.skipped("metadata", "blocked by tcp")
    assert (stage.status, stage.duration_ms, stage.detail) == ("skip", 0.0, MetadataDetail(reason="blocked by tcp"))
    assert stages.skipped("roundtrip", "disabled").detail == RoundtripDetail(reason="disabled")


def test_roundtrip_runs_only_after_a_usable_advertised_stage() -> None:
    ok = Stage("advertised", "ok", 1.0, "")
    failed = Stage("advertised", "fail", 1.0, "")
    common = dict(login_by_library=False, library_cannot_login=False)
    assert stages.roundtrip_blocked([ok], enabled=True, **common) is None
    assert stages.roundtrip_blocked([ok], enabled=False, **common) == "disabled with --no-roundtrip"
    assert stages.roundtrip_blocked([failed], enabled=True, **common).startswith("blocked by advertised")
    assert stages.roundtrip_blocked([failed], enabled=True, login_by_library=True, library_cannot_login=False) is None
    assert "without GSSAPI" in stages.roundtrip_blocked([failed], enabled=True, login_by_library=True,
                                                        library_cannot_login=True)


def test_dns_results_with_no_addresses_still_summarise() -> None:
    assert stages.dns_stage([DnsResult("a", "ok")], 1.0).summary == "a → "


def test_the_round_trip_names_the_stage_that_really_blocked_it() -> None:
    done = [Stage("dns", "ok", 1.0, ""), Stage("tcp", "ok", 1.0, ""), Stage("sasl", "fail", 1.0, ""),
            stages.skipped("metadata", "blocked by sasl: ..."),
            stages.skipped("advertised", stages.blocked([Stage("sasl", "fail", 1.0, "")], "no list", default="x"))]
    reason = stages.roundtrip_blocked(done, enabled=True, login_by_library=False, library_cannot_login=False)
    assert reason.startswith("blocked by sasl:")
    assert done[-1].summary == "blocked by sasl: no list"


def test_a_skip_with_no_failure_before_it_names_the_default() -> None:
    assert stages.blocked([Stage("dns", "ok", 1.0, "")], "why", default="metadata") == "blocked by metadata: why"
