"""INGRESS_DEFAULT_BACKEND: a TLS handshake that got an ingress controller's default certificate."""

from __future__ import annotations

from kdiag.diagnose import run_rule
from dataclasses import replace

from kdiag.report import Stage, TlsDetail
from probes.results import CertificateInfo, KafkaCheck, TlsResult

from .builders import bootstrap_failure

FAKE = CertificateInfo(subject="CN=Kubernetes Ingress Controller Fake Certificate,O=Acme Co",
                       issuer="CN=Kubernetes Ingress Controller Fake Certificate,O=Acme Co",
                       dns_names=("ingress.local",))


def by_ip(sni: str | None = None, host: str = "192.0.2.1"):  # type: ignore[no-untyped-def]
    report = bootstrap_failure(f"{host}:443", kafka=KafkaCheck(status="skip"),
                               client={"security.protocol": "SSL"})
    shake = TlsResult("untrusted", host=host, address="192.0.2.1", port=443, sni=sni, certificate=FAKE,
                      verify_error="self-signed certificate")
    return with_tls(report, shake)


def with_tls(report, shake):  # type: ignore[no-untyped-def]
    stages = list(report.stages)
    stages.insert(2, Stage("tls", "fail", 3.0, "", TlsDetail((shake,))))
    return replace(report, stages=tuple(stages))


def test_no_sni_reaching_the_nginx_default_backend_is_named():
    (found,) = run_rule(by_ip(), "INGRESS_DEFAULT_BACKEND")
    assert found.severity == "error"
    assert "ingress-nginx default backend" in found.title and "the client sent none" in found.title
    assert "openssl s_client -connect 192.0.2.1:443 -servername <bootstrap host>" in found.fix
    assert "type: ingress" in found.fix and "host: <bootstrap host>" in found.fix
    assert found.evidence["handshakes"][0]["controller"] == "ingress-nginx"


def test_an_unrouted_name_is_named_in_the_title():
    (found,) = run_rule(by_ip(sni="kafka.example.test", host="kafka.example.test"), "INGRESS_DEFAULT_BACKEND")
    assert "no route matches kafka.example.test" in found.title


def test_a_broker_certificate_is_silent():
    report = bootstrap_failure("192.0.2.1:443", kafka=KafkaCheck(status="skip"))
    real = TlsResult("untrusted", host="192.0.2.1", port=443, certificate=CertificateInfo(subject="CN=broker"))
    assert run_rule(with_tls(report, real), "INGRESS_DEFAULT_BACKEND") == ()
