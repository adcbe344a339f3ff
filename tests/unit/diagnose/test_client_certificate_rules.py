"""TLS_CLIENT_CERT_REQUIRED and TLS_CLIENT_CERT_REJECTED: a listener with ssl.client.auth=required,
refusing a client without a certificate or with one it does not trust, under TLS 1.2 (in the
handshake) and TLS 1.3 (on the first read after it), at the bootstrap and at an advertised broker."""

from __future__ import annotations

import pytest

from kdiag.diagnose import diagnose, run_rule
from probes.results import CertificateInfo

from .test_tls_sasl_rules import broker_tls_failure, secure_cluster, tls, tls_refused_at_bootstrap

CLIENT_CERT = CertificateInfo(subject="CN=billing-app", issuer="CN=Other CA", not_after="2027-01-01T00:00:00Z")
CLIENT_RULES = ("TLS_CLIENT_CERT_REQUIRED", "TLS_CLIENT_CERT_REJECTED")


def refused(alert: str, *, version: str, client_certificate: CertificateInfo | None = None,
            requested: bool | None = None, host: str = "kafka.example.com", port: int = 9093):  # type: ignore[no-untyped-def]
    after = version == "TLSv1.3"
    return tls("alert", host, port, version=version, alert=alert, alert_after_handshake=after,
               client_certificate=client_certificate, client_certificate_requested=requested,
               error=f"the server refused the connection with the TLS alert {alert}")


@pytest.mark.parametrize(("version", "alert", "requested"), [
    ("TLSv1.3", "bad_certificate", None),  # Java
    ("TLSv1.3", "certificate_required", None),  # OpenSSL and the RFC
    ("TLSv1.2", "bad_certificate", True),  # Java
    ("TLSv1.2", "handshake_failure", True),  # OpenSSL
])
def test_a_client_without_a_certificate_refused_by_the_bootstrap_listener_is_client_cert_required(
        version: str, alert: str, requested: bool | None) -> None:
    report = tls_refused_at_bootstrap(refused(alert, version=version, requested=requested))
    assert [f.id for f in diagnose(report)] == ["TLS_CLIENT_CERT_REQUIRED"]
    [found] = run_rule(report, "TLS_CLIENT_CERT_REQUIRED")
    assert found.title == "The listener at kafka.example.com:9093 requires a client certificate, and the client has none"
    assert (found.evidence["tls_version"], found.evidence["alert"]) == (version, alert)
    assert found.evidence["alert_after_handshake"] is (version == "TLSv1.3")
    assert alert in found.explanation and version in found.explanation
    assert "-X ssl.certificate.location=<client.pem> -X ssl.key.location=<client.key>" in found.fix
    assert "ssl.keystore.type=PKCS12\nssl.keystore.location=<client.p12>\nssl.keystore.password=" in found.fix
    assert "listener.name.<listener>.ssl.client.auth=requested" in found.fix
    assert "KAFKA_LISTENER_NAME_" in found.fix  # the Docker form


def test_a_handshake_failure_before_the_server_asked_for_a_certificate_is_not_blamed_on_one() -> None:
    # no CertificateRequest seen under TLS 1.2, or nothing known: no common cipher or version is as likely
    for requested in (False, None):
        report = tls_refused_at_bootstrap(refused("handshake_failure", version="TLSv1.2", requested=requested))
        assert run_rule(report, "TLS_CLIENT_CERT_REQUIRED") == ()


def test_an_advertised_broker_requiring_a_certificate_is_named_in_its_finding() -> None:
    report = broker_tls_failure(secure_cluster(3), 2, refused("bad_certificate", version="TLSv1.3",
                                                              host="kafka2.example.com", port=9092))
    [found] = run_rule(report, "TLS_CLIENT_CERT_REQUIRED")
    assert found.title == ("Broker 2's advertised listener kafka2.example.com:9092 requires a client certificate, "
                           "and the client has none")
    assert found.evidence["node_id"] == 2
    assert "broker 2 (node.id=2)" in found.fix
    assert "only once it follows the metadata" in found.explanation


@pytest.mark.parametrize(("version", "alert"), [("TLSv1.3", "certificate_unknown"), ("TLSv1.2", "unknown_ca"),
                                                 ("TLSv1.2", "bad_certificate")])
def test_a_client_certificate_the_listener_does_not_trust_is_client_cert_rejected(version: str, alert: str) -> None:
    report = tls_refused_at_bootstrap(refused(alert, version=version, client_certificate=CLIENT_CERT,
                                              requested=True if version == "TLSv1.2" else None))
    assert [f.id for f in diagnose(report)] == ["TLS_CLIENT_CERT_REJECTED"]
    [found] = run_rule(report, "TLS_CLIENT_CERT_REJECTED")
    assert "CN=billing-app, issued by CN=Other CA" in found.title
    assert (found.evidence["tls_version"], found.evidence["alert"]) == (version, alert)
    assert (found.evidence["client_certificate"], found.evidence["client_certificate_issuer"]) == (
        "CN=billing-app", "CN=Other CA")
    assert "keytool -importcert" in found.fix


@pytest.mark.parametrize("rule_id", CLIENT_RULES)
def test_client_certificate_rules_are_silent_when_every_handshake_worked(rule_id: str) -> None:
    assert run_rule(secure_cluster(3), rule_id) == ()


def test_an_alert_that_is_about_something_else_is_neither() -> None:
    report = tls_refused_at_bootstrap(refused("protocol_version", version="TLSv1.2", requested=False))
    assert all(run_rule(report, rule_id) == () for rule_id in CLIENT_RULES)
