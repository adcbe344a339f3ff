"""TLS_UNEXPECTED, TLS_CERT_UNTRUSTED, TLS_HOSTNAME_MISMATCH and the SASL rules, from the structured
facts of the tls and sasl stages and of each broker's own handshake; and the report's JSON with them."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kdiag.diagnose import diagnose, run_rule
from kdiag.report import (Report, SaslDetail, Stage, TlsDetail, report_from_dict, report_to_dict, report_to_json)
from probes.results import CertificateInfo, KafkaCheck, SaslResult, TlsResult

from .builders import SKIPPED_IDENTITY, bootstrap_failure, healthy, tcp_ok, with_broker

SSL_CLIENT = {"security.protocol": "SSL", "ssl.ca.location": "/etc/kafka/ca.pem"}
SASL_SSL_CLIENT = {"security.protocol": "SASL_SSL", "ssl.ca.location": "/etc/kafka/ca.pem",
                   "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "alice", "sasl.password": "***"}
CA = "CN=Example Kafka CA,O=Example"
TLS_RULES = ("TLS_UNEXPECTED", "TLS_CERT_UNTRUSTED", "TLS_HOSTNAME_MISMATCH")


def certificate(*dns_names: str, ips: tuple[str, ...] = (), issuer: str = CA) -> CertificateInfo:
    return CertificateInfo(subject=f"CN={dns_names[0] if dns_names else 'broker'}", issuer=issuer,
                           dns_names=dns_names, ip_addresses=ips, not_before="2026-01-01T00:00:00Z",
                           not_after="2027-01-01T00:00:00Z")


def tls(status: str, host: str, port: int = 9093, *, address: str = "203.0.113.11", **facts) -> TlsResult:
    values = {"trust": "ssl.ca.location=/etc/kafka/ca.pem"}
    if status == "ok":
        values.update(version="TLSv1.3", cipher="TLS_AES_256_GCM_SHA384", certificate=certificate(host))
    return TlsResult(status, host, address, port, sni=host, **{**values, **facts})


def with_stage_after(report: Report, after: str, stage: Stage) -> Report:
    stages = list(report.stages)
    index = next(i for i, s in enumerate(stages) if s.name == after) + 1
    return replace(report, stages=tuple(stages[:index] + [stage] + stages[index:]))


def tls_refused_at_bootstrap(result: TlsResult, client: dict[str, str] = SSL_CLIENT, *others: TlsResult) -> Report:
    """The bootstrap connected, but no TLS handshake with it worked: no metadata."""
    report = bootstrap_failure(f"{result.host}:{result.port}", attempts=[tcp_ok(result.address, result.port)],
                               client=client)
    report = with_stage_after(report, "tcp", Stage("tls", "fail", 4.0, result.error or "",
                                                   TlsDetail((result, *others))))
    return _metadata_blocked(report, "blocked by tls")


def sasl_refused_at_bootstrap(result: SaslResult, client: dict[str, str] = SASL_SSL_CLIENT) -> Report:
    report = bootstrap_failure("kafka.example.com:9093", attempts=[tcp_ok("203.0.113.11", 9093)], client=client)
    report = with_stage_after(report, "tcp", Stage("tls", "ok", 4.0, "", TlsDetail((tls("ok", "kafka.example.com"),))))
    report = with_stage_after(report, "tls", Stage("sasl", "fail", 3.0, result.error or "", SaslDetail((result,))))
    return _metadata_blocked(report, "blocked by sasl")


def _metadata_blocked(report: Report, reason: str) -> Report:
    stages = tuple(replace(s, status="skip", summary=reason) if s.name == "metadata" else s for s in report.stages)
    return replace(report, stages=stages)


def secure_cluster(brokers: int = 3, client: dict[str, str] = SSL_CLIENT) -> Report:
    """``healthy(brokers)`` over TLS: the bootstrap's and every broker's handshake worked."""
    report = healthy(brokers, client=client)
    bootstrap = report.bootstrap[0]
    report = with_stage_after(report, "tcp", Stage("tls", "ok", 4.0, "", TlsDetail((tls("ok", bootstrap.host,
                                                                                          bootstrap.port),))))
    for broker in report.cluster.brokers:
        report = with_broker(report, broker.node_id, tls=tls("ok", broker.host, broker.port))
    return report


def broker_tls_failure(report: Report, node_id: int, result: TlsResult) -> Report:
    """What the advertised stage records when a broker's handshake fails: no Kafka conversation."""
    return with_broker(report, node_id, tls=result, identity=SKIPPED_IDENTITY,
                       kafka=KafkaCheck("error", error=f"not attempted: the TLS handshake failed ({result.status})"))


# --- silence ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule_id", TLS_RULES + ("SASL_MECHANISM_MISMATCH", "SASL_AUTH_FAILED"))
def test_tls_and_sasl_rules_are_silent_when_every_handshake_worked(rule_id: str) -> None:
    report = secure_cluster(3, SASL_SSL_CLIENT)
    for broker in report.cluster.brokers:
        report = with_broker(report, broker.node_id, sasl=SaslResult("ok", "SCRAM-SHA-512", "alice"))
    assert run_rule(report, rule_id) == ()
    assert diagnose(report) == ()


def test_one_address_of_the_bootstrap_host_failing_tls_is_not_a_tls_finding() -> None:
    ok = tls("ok", "kafka.example.com", address="203.0.113.11")
    closed = tls("closed", "kafka.example.com", address="2001:db8::11", error="the peer closed the connection")
    report = with_stage_after(healthy(1, client=SSL_CLIENT), "tcp", Stage("tls", "warn", 1.0, "", TlsDetail((closed,
                                                                                                            ok))))
    assert [f for rule in TLS_RULES for f in run_rule(report, rule)] == []


# --- TLS_UNEXPECTED --------------------------------------------------------------------------------


def test_tls_client_on_a_confirmed_plaintext_listener_says_so_and_quotes_the_broker_log() -> None:
    result = tls("not_tls", "kafka.example.com", 9092, plaintext_kafka=True, client_hello_size=369295618,
                 error="the peer closed the connection right after the ClientHello")
    (found,) = run_rule(tls_refused_at_bootstrap(result), "TLS_UNEXPECTED")
    assert found.severity == "error"
    assert found.title == "kafka.example.com:9092 is a plaintext listener, but the client speaks TLS " \
                          "(security.protocol=SSL)"
    assert "Invalid receive (size = 369295618 larger than 104857600)" in found.explanation
    assert "connecting to a PLAINTEXT broker listener?" in found.explanation
    assert found.evidence["plaintext_kafka"] is True
    assert "security.protocol=PLAINTEXT" in found.fix
    assert "listeners=PLAINTEXT://0.0.0.0:9092,SSL://0.0.0.0:" in found.fix
    assert "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: PLAINTEXT:PLAINTEXT,SSL:SSL" in found.fix
    assert [f.id for f in diagnose(tls_refused_at_bootstrap(result))] == ["TLS_UNEXPECTED"]


def test_tls_unexpected_keeps_sasl_in_the_protocol_it_suggests() -> None:
    result = tls("not_tls", "kafka.example.com", 9092, plaintext_kafka=True)
    (found,) = run_rule(tls_refused_at_bootstrap(result, SASL_SSL_CLIENT), "TLS_UNEXPECTED")
    assert "security.protocol=SASL_PLAINTEXT" in found.fix
    assert "sasl.mechanisms=SCRAM-SHA-512" in found.fix
    assert "SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL" in found.fix


def test_a_handshake_cut_off_without_proof_of_plaintext_is_only_a_warning() -> None:
    result = tls("closed", "kafka.example.com", 9093, plaintext_kafka=False, error="the peer closed the connection")
    (found,) = run_rule(tls_refused_at_bootstrap(result), "TLS_UNEXPECTED")
    assert found.severity == "warning"
    assert "was cut off" in found.title
    assert "firewall or proxy" in found.explanation


def test_a_broker_advertising_its_plaintext_port_to_tls_clients_gets_an_advertised_listeners_fix() -> None:
    report = broker_tls_failure(secure_cluster(3), 2, tls("not_tls", "kafka2.example.com", 9092, plaintext_kafka=True))
    (found,) = run_rule(report, "TLS_UNEXPECTED")
    assert found.title.startswith("Broker 2 advertises kafka2.example.com:9092, a plaintext listener")
    assert "advertised.listeners=SSL://kafka2.example.com:<port>" in found.fix
    assert {f.id for f in diagnose(report)} == {"TLS_UNEXPECTED", "PARTIAL_CLUSTER"}


# --- TLS_CERT_UNTRUSTED ----------------------------------------------------------------------------


def untrusted(host: str = "kafka.example.com", **facts) -> TlsResult:
    values = dict(verify_code=20, verify_error="unable to get local issuer certificate",
                  certificate=certificate(host), trust="the system CA store (no ssl.ca.location)",
                  error="certificate verify failed: unable to get local issuer certificate")
    return tls("untrusted", host, **{**values, **facts})


def test_untrusted_chain_names_the_issuer_and_gives_both_client_forms() -> None:
    report = tls_refused_at_bootstrap(untrusted(), {"security.protocol": "SSL"})
    (found,) = run_rule(report, "TLS_CERT_UNTRUSTED")
    assert found.title == ("The certificate of the broker at kafka.example.com:9093 (issued by CN=Example Kafka "
                           "CA,O=Example) is not trusted by the client's system CA store (no ssl.ca.location)")
    assert "broker certificate could not be verified" in found.explanation
    assert "unable to find valid certification path to requested target" in found.explanation
    assert found.evidence["issuer"] == CA and found.evidence["verify_code"] == 20
    assert "ssl.ca.location=<ca.pem>" in found.fix
    assert "ssl.truststore.type=PEM\nssl.truststore.location=<ca.pem>" in found.fix
    assert "openssl s_client -connect kafka.example.com:9093 -servername kafka.example.com -showcerts" in found.fix
    assert [f.id for f in diagnose(report)] == ["TLS_CERT_UNTRUSTED"]


def test_an_expired_certificate_is_renewed_on_the_broker_not_trusted_on_the_client() -> None:
    result = untrusted(verify_code=10, verify_error="certificate has expired")
    (found,) = run_rule(tls_refused_at_bootstrap(result), "TLS_CERT_UNTRUSTED")
    assert found.title == "The certificate of the broker at kafka.example.com:9093 expired (2027-01-01T00:00:00Z)"
    assert "Renew the broker's certificate" in found.fix
    assert "ssl.ca.location" not in found.fix


def test_a_broker_whose_certificate_comes_from_another_ca_than_the_bootstraps_says_so() -> None:
    old_ca = untrusted("kafka3.example.com", certificate=certificate("kafka3.example.com", issuer="CN=Old CA"))
    report = broker_tls_failure(secure_cluster(3), 3, old_ca)
    (found,) = run_rule(report, "TLS_CERT_UNTRUSTED")
    assert found.evidence["node_id"] == 3
    assert "comes from a different CA" in found.explanation


# --- TLS_HOSTNAME_MISMATCH -------------------------------------------------------------------------


def mismatch(host: str, cert: CertificateInfo, code: int) -> TlsResult:
    message = {62: "Hostname mismatch, certificate is not valid for", 64: "IP address mismatch, certificate is not "
               "valid for"}[code] + f" '{host}'."
    return tls("hostname_mismatch", host, verify_code=code, verify_error=message, certificate=cert,
               name_in_certificate=False, error=f"certificate verify failed: {message}")


def test_a_broker_advertising_an_ip_its_certificate_lacks_is_a_hostname_mismatch() -> None:
    report = secure_cluster(3)
    report = broker_tls_failure(report, 2, mismatch("10.0.0.12", certificate("kafka2.example.com"), 64))
    report = with_broker(report, 2, host="10.0.0.12", port=9093)
    (found,) = run_rule(report, "TLS_HOSTNAME_MISMATCH")
    assert found.title == "Broker 2 advertises 10.0.0.12, which is not in its certificate (DNS:kafka2.example.com)"
    assert "only an IP SAN counts" in found.explanation
    assert "No subject alternative names matching IP address 10.0.0.12 found" in found.explanation
    assert 'subjectAltName=DNS:kafka2.example.com,IP:10.0.0.12' in found.fix
    assert "advertised.listeners=SSL://kafka2.example.com:9093" in found.fix  # a name the certificate holds
    assert "KAFKA_ADVERTISED_LISTENERS: SSL://kafka2.example.com:9093" in found.fix
    assert "ssl.endpoint.identification.algorithm=none" in found.fix
    assert "ssl.endpoint.identification.algorithm= (empty)" in found.fix
    assert found.evidence["dns_names"] == ["kafka2.example.com"]


def test_a_bootstrap_name_missing_from_the_certificate_quotes_the_java_dns_message() -> None:
    result = mismatch("kafka.example.com", certificate("broker-1.internal"), 62)
    (found,) = run_rule(tls_refused_at_bootstrap(result), "TLS_HOSTNAME_MISMATCH")
    assert found.title == ("kafka.example.com is not in the certificate of the broker at kafka.example.com:9093 "
                           "(DNS:broker-1.internal)")
    assert "No subject alternative DNS name matching kafka.example.com found." in found.explanation
    assert "kdiag bootstrap broker-1.internal:9093" in found.fix


# --- SASL from structured facts --------------------------------------------------------------------


def test_an_unsupported_mechanism_from_the_handshake_lists_what_the_listener_enables() -> None:
    result = SaslResult("unsupported_mechanism", "SCRAM-SHA-512", "alice", enabled_mechanisms=("PLAIN",),
                        endpoint="kafka.example.com:9093", error_code=33, error_name="UNSUPPORTED_SASL_MECHANISM")
    (found,) = run_rule(sasl_refused_at_bootstrap(result), "SASL_MECHANISM_MISMATCH")
    assert found.title == "The client's SASL mechanism SCRAM-SHA-512 is not enabled on kafka.example.com:9093 " \
                          "(enabled: PLAIN)"
    assert found.evidence["error_code"] == 33
    assert "sasl.mechanisms=PLAIN" in found.fix and "sasl.mechanism=PLAIN" in found.fix


def test_a_listener_without_sasl_is_a_mechanism_mismatch_that_drops_sasl() -> None:
    result = SaslResult("not_sasl", "SCRAM-SHA-512", "alice", enabled_mechanisms=(), endpoint="kafka.example.com:9093",
                        error_code=34, error_name="ILLEGAL_SASL_STATE")
    (found,) = run_rule(sasl_refused_at_bootstrap(result), "SASL_MECHANISM_MISMATCH")
    assert found.title == "The client uses SASL, but the listener at kafka.example.com:9093 has none"
    assert "enabled mechanisms are []" in found.explanation
    assert "security.protocol=SSL" in found.fix


def test_auth_failed_quotes_the_brokers_message_for_an_advertised_broker() -> None:
    report = secure_cluster(2, SASL_SSL_CLIENT)
    message = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
    report = with_broker(report, 2, sasl=SaslResult("auth_failed", "SCRAM-SHA-512", "alice", error_code=58,
                                                    error_name="SASL_AUTHENTICATION_FAILED", error_message=message),
                         kafka=KafkaCheck("error", error="not attempted: SASL authentication failed (auth_failed)"),
                         identity=SKIPPED_IDENTITY)
    (found,) = run_rule(report, "SASL_AUTH_FAILED")
    assert message in found.explanation
    assert found.evidence["username"] == "alice"
    assert found.evidence["failures"][0]["node_id"] == 2
    assert 'username="<user>" password="<password>"' in found.fix


def test_no_tls_or_sasl_finding_carries_a_secret() -> None:
    secrets = {"sasl.password": "hunter2-very-secret", "ssl.key.password": "keypass-secret",
               "ssl.key.pem": "-----BEGIN PRIVATE KEY-----"}
    client = {**SASL_SSL_CLIENT, **secrets}
    reports = [
        tls_refused_at_bootstrap(tls("not_tls", "kafka.example.com", 9092, plaintext_kafka=True), client),
        tls_refused_at_bootstrap(untrusted(), client),
        tls_refused_at_bootstrap(mismatch("kafka.example.com", certificate("other"), 62), client),
        sasl_refused_at_bootstrap(SaslResult("auth_failed", "SCRAM-SHA-512", "alice", endpoint="kafka.example.com:9093",
                                             error_code=58, error_message="Authentication failed"), client),
    ]
    for report in reports:
        findings = diagnose(report)
        assert findings
        text = json.dumps([[f.title, f.explanation, f.fix, dict(f.evidence)] for f in findings])
        assert "hunter2" not in text and "keypass" not in text and "PRIVATE KEY" not in text


# --- the report's JSON -----------------------------------------------------------------------------


def test_tls_and_sasl_facts_survive_a_json_round_trip_and_diagnose_the_same() -> None:
    report = broker_tls_failure(secure_cluster(3, SASL_SSL_CLIENT), 2,
                                mismatch("kafka2.example.com", certificate("kafka-2.internal", ips=("10.0.0.2",)), 62))
    report = with_stage_after(report, "tls", Stage("sasl", "ok", 2.0, "", SaslDetail((SaslResult(
        "ok", "SCRAM-SHA-512", "alice", ("PLAIN", "SCRAM-SHA-512"), 1, 2, endpoint="kafka1.example.com:9092"),))))
    report = report.with_findings(diagnose(report))
    loaded = report_from_dict(json.loads(report_to_json(report)))
    assert loaded == report
    assert diagnose(loaded) == report.findings
    assert [f.id for f in report.findings] == ["TLS_HOSTNAME_MISMATCH", "PARTIAL_CLUSTER"]


def test_a_report_from_before_tls_and_sasl_still_loads() -> None:
    old = report_to_dict(healthy(2))
    for broker in old["cluster"]["brokers"]:
        del broker["tls"], broker["sasl"]
    loaded = report_from_dict(old)
    assert all(b.tls is None and b.sasl is None for b in loaded.cluster.brokers)
    assert diagnose(loaded) == ()
