"""Failure mode #24, an SNI-routed ingress: what real clients print on its default backend, and ``kdiag explain`` on it.

``sni-ingress`` (:mod:`kdiag.lab.scenarios.ingress`) comes up once: a broker with an SSL listener behind an
ingress that passes TLS through by SNI, and sends a ClientHello without SNI or with an unrouted name to its
default backend (ingress-nginx's "Kubernetes Ingress Controller Fake Certificate", then HTTP 404). From the
client's machine, kcat, a confluent-kafka producer and the Java console producer bootstrap by the ingress's
IP address (no SNI) and by the old name ``kafka.example.test`` (no route), trusting the cluster's CA.
``KDIAG_CAPTURE_FIXTURES=1`` writes the pastes to ``tests/fixtures/client_logs/sni_ingress.*.log``.
Needs root; never skips.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from kdiag.explain.engine import explain_text
from kdiag.lab.scenarios.healthy import OFFICE_DNS
from kdiag.lab.scenarios.ingress import OLD_NAME, SNI_INGRESS
from tests.integration.lab.clients import Command, confluent_producer, console_producer

pytestmark = [pytest.mark.netns, pytest.mark.broker]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"
BOOTSTRAPS = {"by_ip": f"{OFFICE_DNS}:443", "old_name": f"{OLD_NAME}:443"}
TOPIC = "orders"
CLIENT_SECONDS = 60.0


def kcat_list(bootstrap: str, ca: str, *extra: str) -> Command:
    argv = ["kcat", "-b", bootstrap, "-L", "-m", "5", "-X", "security.protocol=SSL", "-X", f"ssl.ca.location={ca}"]
    for setting in extra:
        argv += ["-X", setting]
    return argv, shlex.join(argv)


def confluent_produce(bootstrap: str, ca: str) -> Command:
    return confluent_producer(bootstrap, TOPIC, {"security.protocol": "SSL", "ssl.ca.location": ca,
                                                 "message.timeout.ms": 5000})


def console_produce(bootstrap: str, ca: str, state_dir: Path) -> Command:
    """The console producer trusting the cluster's CA as a PEM truststore."""
    return console_producer(bootstrap, TOPIC, ("security.protocol=SSL", "ssl.truststore.type=PEM",
                                               f"ssl.truststore.location={ca}", "max.block.ms=15000",
                                               "request.timeout.ms=1500", "delivery.timeout.ms=3000", "linger.ms=0",
                                               "enable.idempotence=false"), state_dir)


def commands(bootstrap: str, ca: str, state_dir: Path) -> dict[str, Command]:
    return {
        "kcat_list": kcat_list(bootstrap, ca),
        "kcat_list_no_verify": kcat_list(bootstrap, ca, "enable.ssl.certificate.verification=false"),
        "confluent_producer": confluent_produce(bootstrap, ca),
        "console_producer": console_produce(bootstrap, ca, state_dir),
    }


@pytest.fixture(scope="module")
def pastes(lab) -> dict[str, str]:
    live = lab(SNI_INGRESS.name)
    ca = str(live.live.state_dir / "pki" / "ca.pem")
    captured = {}
    for where, bootstrap in BOOTSTRAPS.items():
        for client, (argv, shown) in commands(bootstrap, ca, live.live.state_dir).items():
            done = live.live.run("client", argv, timeout=CLIENT_SECONDS)
            captured[f"{where}.{client}"] = f"$ {shown}\n{done.stdout}{done.stderr}"
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, paste in captured.items():
            (FIXTURES / f"sni_ingress.{name}.log").write_text(paste)
    return captured


VERIFIED = [f"{where}.{client}" for where in BOOTSTRAPS for client in ("kcat_list", "confluent_producer",
                                                                         "console_producer")]
THE_CLIENTS_WORDS = {"kcat_list": "certificate verify failed: broker certificate could not be verified",
                     "confluent_producer": "certificate verify failed: broker certificate could not be verified",
                     "console_producer": "PKIX path building failed"}


@pytest.mark.parametrize("name", VERIFIED)
def test_the_default_backends_certificate_reads_as_an_untrusted_ca_and_explain_names_the_ingress_too(pastes, name):
    """With verification on, no client names the certificate it got (ingress-nginx's fake one): the words are an
    untrusted CA's. explain says so, and that at port 443 an SNI ingress's default backend fails the same way."""
    paste = pastes[name]
    assert THE_CLIENTS_WORDS[name.split(".")[1]] in paste and "Fake Certificate" not in paste, paste
    finding = explain_text(paste).findings[0]
    assert finding.id == "TLS_CERT_UNTRUSTED" and finding.evidence["sni_ingress"] is True, finding
    assert "default backend" in finding.explanation and "-servername <bootstrap host>" in finding.fix


@pytest.mark.parametrize("where", sorted(BOOTSTRAPS))
def test_without_verification_the_default_backends_http_answer_is_named_ingress_default_backend(pastes, where):
    """kcat with enable.ssl.certificate.verification=false gets the default backend's HTTP 404 inside TLS:
    librdkafka reads 'HTTP' as a response size (1213486160), and explain says INGRESS_DEFAULT_BACKEND."""
    paste = pastes[f"{where}.kcat_list_no_verify"]
    assert "Invalid response size 1213486160" in paste, paste
    finding = explain_text(paste).findings[0]
    assert finding.id == "INGRESS_DEFAULT_BACKEND", finding
    missed = "the client sent no SNI" if where == "by_ip" else f"no route matches {OLD_NAME}"
    assert missed in finding.title and f"-connect {BOOTSTRAPS[where]} -servername" in finding.fix
    assert "type: ingress" in finding.fix
