"""``kdiag bootstrap`` with TLS and SASL client settings against a real Kafka broker.

One broker (the default version) serves every scenario from its own listener:

=========  ==============  =====================  ===============================================
listener   protocol        advertised             certificate / mechanisms
=========  ==============  =====================  ===============================================
PLAINTEXT  PLAINTEXT       127.0.0.1              (inter-broker)
SSL        SSL             localhost              SAN DNS:localhost, IP:127.0.0.1, from the test CA
MISNAMED   SSL             127.0.0.1              SAN DNS:localhost only: the advertised IP is not in it
SASL       SASL_PLAINTEXT  127.0.0.1              PLAIN (admin, alice) and SCRAM-SHA-512 (alice)
SECURE     SASL_SSL        localhost              both of the above, and OAUTHBEARER (unsecured JWTs)
MTLS       SSL             localhost              as SSL, and ssl.client.auth=required (test CA)
MTLS12     SSL             localhost              as MTLS, TLS 1.2 only
TOMTLS     SSL             localhost:<MTLS port>  as SSL, no client auth, but advertises MTLS's port
=========  ==============  =====================  ===============================================

The certificates are made with ``kdiag.lab.certs`` (openssl) for the module; the SCRAM user is
created through the Admin API on the PLAINTEXT listener, the way an operator would. Every run goes
through the real entry point and the assertions read its JSON report.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from kdiag.lab.certs import (PLAIN_USERS, client_auth_listener, issue, make_ca, pem_keystore, pkcs12_keystore,
                             pkcs12_truststore, sasl_listener)
from kdiag.lab.kafka import KAFKA_VERSION, BrokerSpec, KafkaBroker, Listener, free_ports
from tests.kdiag_cli import KdiagRun, run_kdiag

pytestmark = pytest.mark.broker

CA_NAME = "kdiag test CA"
ALICE_PLAIN = PLAIN_USERS["alice"]
ALICE_SCRAM = "alice-scram-secret"
WRONG_PASSWORD = "not-alices-password-42"
KEYSTORE_PASSWORD = "client-keystore-secret-17"
TRUSTSTORE_PASSWORD = "client-truststore-secret-23"


# --- certificates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pki:
    ca: Path  # the CA certificate clients trust (ssl.ca.location)
    broker: Path  # key + chain for SAN DNS:localhost, IP:127.0.0.1
    localhost_only: Path  # key + chain for SAN DNS:localhost
    client: Path  # a client certificate (CN=kdiag-client, clientAuth) from the test CA: client.pem, client.key
    keystore: Path  # the same as a PKCS#12 keystore, KEYSTORE_PASSWORD
    truststore: Path  # the test CA as a PKCS#12 truststore, TRUSTSTORE_PASSWORD
    intruder: Path  # a client certificate (CN=intruder) from another CA: intruder.pem, intruder.key


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory, rogue = tmp_path_factory.mktemp("pki"), tmp_path_factory.mktemp("rogue-pki")
    make_ca(rogue, "rogue CA")
    issue(rogue, "intruder", usage="clientAuth")
    ca = make_ca(directory, CA_NAME)
    issue(directory, "kdiag-client", usage="clientAuth")
    return Pki(ca=ca, broker=issue(directory, "broker", san="DNS:localhost,IP:127.0.0.1"),
               localhost_only=issue(directory, "localhost-only", san="DNS:localhost"),
               client=directory / "kdiag-client.pem",
               keystore=pkcs12_keystore(directory, "kdiag-client", KEYSTORE_PASSWORD),
               truststore=pkcs12_truststore(directory, TRUSTSTORE_PASSWORD), intruder=rogue / "intruder.pem")


# --- the broker ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SecureBroker:
    broker: KafkaBroker
    plaintext: int
    ssl: int
    misnamed: int
    sasl: int
    sasl_ssl: int
    mtls: int
    mtls12: int
    to_mtls: int


@pytest.fixture(scope="module")
def secure(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureBroker]:
    plaintext, ssl, misnamed, sasl, sasl_ssl, mtls, mtls12, to_mtls, controller = free_ports(9)
    # The listeners clients reach as localhost bind every address: localhost may resolve to ::1 first.
    listeners = (Listener("PLAINTEXT", "127.0.0.1", plaintext), Listener("SSL", "", ssl, "SSL"),
                 Listener("MISNAMED", "", misnamed, "SSL"),
                 Listener("SASL", "127.0.0.1", sasl, "SASL_PLAINTEXT"),
                 Listener("SECURE", "", sasl_ssl, "SASL_SSL"), Listener("MTLS", "", mtls, "SSL"),
                 Listener("MTLS12", "", mtls12, "SSL"), Listener("TOMTLS", "", to_mtls, "SSL"))
    advertised = (Listener("PLAINTEXT", "127.0.0.1", plaintext), Listener("SSL", "localhost", ssl),
                  Listener("MISNAMED", "127.0.0.1", misnamed), Listener("SASL", "127.0.0.1", sasl),
                  Listener("SECURE", "localhost", sasl_ssl), Listener("MTLS", "localhost", mtls),
                  Listener("MTLS12", "localhost", mtls12), Listener("TOMTLS", "localhost", mtls))
    overrides = {**pem_keystore("SSL", pki.broker), **pem_keystore("MISNAMED", pki.localhost_only),
                 **pem_keystore("SECURE", pki.broker), **sasl_listener("SASL"), **sasl_listener("SECURE", oauthbearer=True),
                 **pem_keystore("MTLS", pki.broker), **client_auth_listener("MTLS", pki.ca),
                 **pem_keystore("MTLS12", pki.broker), **client_auth_listener("MTLS12", pki.ca, protocols="TLSv1.2"),
                 **pem_keystore("TOMTLS", pki.broker)}
    spec = BrokerSpec(node_id=1, listeners=listeners, advertised=advertised, controller_port=controller,
                      inter_broker_listener="PLAINTEXT", overrides=overrides)
    with KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path_factory.mktemp("secure-broker")) as broker:
        create_scram_user(f"127.0.0.1:{plaintext}", "alice", ALICE_SCRAM)
        yield SecureBroker(broker, plaintext, ssl, misnamed, sasl, sasl_ssl, mtls, mtls12, to_mtls)


def create_scram_user(bootstrap: str, user: str, password: str, *,
                      mechanisms: Sequence[str] = ("SCRAM-SHA-512",)) -> None:
    """``user``'s SCRAM credential for each of ``mechanisms`` (SCRAM-SHA-256, SCRAM-SHA-512), one password."""
    from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion

    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    for mechanism in mechanisms:
        upsert = UserScramCredentialUpsertion(
            user, ScramCredentialInfo(ScramMechanism[mechanism.replace("-", "_")], 4096), password.encode())
        for future in admin.alter_user_scram_credentials([upsert]).values():
            future.result(30)


def kdiag(bootstrap: str, *settings: str, roundtrip: bool = False, fmt: str = "--json") -> KdiagRun:
    args = ["bootstrap", bootstrap, fmt, "--timeout", "20"]
    for setting in settings:
        args += ["-X", setting]
    if not roundtrip:
        args.append("--no-roundtrip")
    return run_kdiag(*args)


def stage_names(run: KdiagRun) -> list[str]:
    return [s["name"] for s in run.report["stages"]]


def statuses(run: KdiagRun) -> dict[str, str]:
    return {s["name"]: s["status"] for s in run.report["stages"]}


def ssl_with_ca(pki: Pki) -> tuple[str, ...]:
    return ("security.protocol=SSL", f"ssl.ca.location={pki.ca}")


# --- TLS -----------------------------------------------------------------------------------------


def test_plaintext_client_on_an_ssl_listener_is_tls_expected(secure: SecureBroker) -> None:
    run = kdiag(f"127.0.0.1:{secure.ssl}")
    assert run.exit_code == 1, run.stderr
    assert stage_names(run) == ["dns", "tcp", "metadata", "advertised", "roundtrip"]  # no tls stage: not asked
    assert run.finding_ids() == {"TLS_EXPECTED"}
    assert run.stage("metadata")["detail"]["kafka"]["status"] == "tls_expected"
    assert "security.protocol=SSL" in run.finding("TLS_EXPECTED")["fix"]


def test_ssl_client_on_a_plaintext_listener_is_tls_unexpected(secure: SecureBroker, pki: Pki) -> None:
    run = kdiag(f"127.0.0.1:{secure.plaintext}", *ssl_with_ca(pki))
    assert run.exit_code == 1, run.stderr
    assert statuses(run) == {"dns": "ok", "tcp": "ok", "tls": "fail", "metadata": "skip", "advertised": "skip",
                             "roundtrip": "skip"}
    [handshake] = run.stage("tls")["detail"]["handshakes"]
    assert (handshake["status"], handshake["plaintext_kafka"]) == ("not_tls", True)
    assert run.finding_ids() == {"TLS_UNEXPECTED"}
    finding = run.finding("TLS_UNEXPECTED")
    assert finding["evidence"]["plaintext_kafka"] is True
    assert "Invalid receive (size = " in finding["explanation"]
    assert "security.protocol=PLAINTEXT" in finding["fix"]


def test_ssl_client_without_the_ca_is_tls_cert_untrusted(secure: SecureBroker) -> None:
    run = kdiag(f"localhost:{secure.ssl}", "security.protocol=SSL")
    assert run.exit_code == 1, run.stderr
    assert run.stage("tls")["status"] == "fail"
    handshakes = run.stage("tls")["detail"]["handshakes"]  # one per address localhost resolves to
    assert {h["status"] for h in handshakes} == {"untrusted"}
    handshake = handshakes[0]
    assert handshake["certificate"]["issuer"] == f"CN={CA_NAME}"  # read on a second connection for the evidence
    assert handshake["sni"] == "localhost"
    assert run.finding_ids() == {"TLS_CERT_UNTRUSTED"}
    finding = run.finding("TLS_CERT_UNTRUSTED")
    assert finding["evidence"]["issuer"] == f"CN={CA_NAME}"
    assert "system CA store" in finding["evidence"]["trust"]
    assert "ssl.ca.location=" in finding["fix"] and "ssl.truststore.location=" in finding["fix"]


def test_advertised_name_not_in_that_brokers_certificate_is_tls_hostname_mismatch(secure: SecureBroker,
                                                                                  pki: Pki) -> None:
    run = kdiag(f"localhost:{secure.misnamed}", *ssl_with_ca(pki))
    assert run.exit_code == 1, run.stderr
    assert statuses(run)["tls"] == "ok"  # localhost is in the certificate: the bootstrap works
    assert statuses(run)["advertised"] == "fail"
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["host"], broker["tls"]["status"]) == ("127.0.0.1", "hostname_mismatch")
    assert broker["tls"]["certificate"]["dns_names"] == ["localhost"]
    assert run.finding_ids() == {"TLS_HOSTNAME_MISMATCH"}
    finding = run.finding("TLS_HOSTNAME_MISMATCH")
    assert (finding["evidence"]["node_id"], finding["evidence"]["host"]) == (1, "127.0.0.1")
    assert "IP:127.0.0.1" in finding["fix"]
    assert "ssl.endpoint.identification.algorithm" in finding["fix"]


def test_healthy_ssl_passes_every_stage_with_the_certificate_in_the_report(secure: SecureBroker, pki: Pki) -> None:
    run = kdiag(f"localhost:{secure.ssl}", *ssl_with_ca(pki), roundtrip=True)
    assert run.exit_code == 0, run.stderr + run.stdout
    assert stage_names(run) == ["dns", "tcp", "tls", "metadata", "advertised", "roundtrip"]
    assert set(statuses(run).values()) == {"ok"}, [(s["name"], s["summary"]) for s in run.report["stages"]]
    handshakes = run.stage("tls")["detail"]["handshakes"]
    assert {h["status"] for h in handshakes} == {"ok"}
    handshake = handshakes[0]
    assert handshake["version"].startswith("TLSv1.")
    assert handshake["certificate"]["dns_names"] == ["localhost"]
    assert handshake["certificate"]["ip_addresses"] == ["127.0.0.1"]
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["host"], broker["tls"]["status"], broker["kafka"]["status"]) == ("localhost", "ok", "ok")
    assert run.report["findings"] == []


# --- SASL ----------------------------------------------------------------------------------------


def sasl_plaintext(mechanism: str, user: str, password: str) -> tuple[str, ...]:
    return ("security.protocol=SASL_PLAINTEXT", f"sasl.mechanisms={mechanism}", f"sasl.username={user}",
            f"sasl.password={password}")


def test_plaintext_client_on_a_sasl_listener_is_sasl_required(secure: SecureBroker) -> None:
    run = kdiag(f"127.0.0.1:{secure.sasl}")
    assert run.exit_code == 1, run.stderr
    assert run.finding_ids() == {"SASL_REQUIRED"}
    assert run.finding("SASL_REQUIRED")["evidence"]["sasl_mechanisms"] == ["PLAIN", "SCRAM-SHA-512"]


def test_mechanism_the_listener_does_not_enable_is_sasl_mechanism_mismatch(secure: SecureBroker) -> None:
    run = kdiag(f"127.0.0.1:{secure.sasl}", *sasl_plaintext("SCRAM-SHA-256", "alice", ALICE_SCRAM))
    assert run.exit_code == 1, run.stderr
    assert statuses(run)["sasl"] == "fail"
    [attempt] = run.stage("sasl")["detail"]["attempts"]
    assert (attempt["status"], attempt["error_name"]) == ("unsupported_mechanism", "UNSUPPORTED_SASL_MECHANISM")
    assert attempt["enabled_mechanisms"] == ["PLAIN", "SCRAM-SHA-512"]
    assert run.finding_ids() == {"SASL_MECHANISM_MISMATCH"}
    assert "sasl.mechanisms=SCRAM-SHA-512" in run.finding("SASL_MECHANISM_MISMATCH")["fix"]


@pytest.mark.parametrize("fmt", ["--json", "--format=text"])
def test_wrong_password_is_sasl_auth_failed_and_never_printed(secure: SecureBroker, fmt: str) -> None:
    run = kdiag(f"127.0.0.1:{secure.sasl}", *sasl_plaintext("PLAIN", "alice", WRONG_PASSWORD), fmt=fmt,
                roundtrip=True)
    assert run.exit_code == 1, run.stderr
    assert WRONG_PASSWORD not in run.stdout and WRONG_PASSWORD not in run.stderr
    if fmt == "--json":
        assert run.finding_ids() == {"SASL_AUTH_FAILED"}
        [attempt] = run.stage("sasl")["detail"]["attempts"]
        assert (attempt["status"], attempt["error_code"]) == ("auth_failed", 58)
        assert "Authentication failed" in attempt["error_message"]  # the broker's own words
        assert "Authentication failed" in run.finding("SASL_AUTH_FAILED")["explanation"]


def test_right_plain_password_is_healthy_with_a_round_trip_and_never_printed(secure: SecureBroker,
                                                                            tmp_path: Path) -> None:
    output = tmp_path / "report.json"
    run = run_kdiag("bootstrap", f"127.0.0.1:{secure.sasl}", "--json", "--timeout", "20", "--output", str(output),
                    *[arg for setting in sasl_plaintext("PLAIN", "alice", ALICE_PLAIN) for arg in ("-X", setting)])
    assert run.exit_code == 0, run.stderr + run.stdout
    assert stage_names(run) == ["dns", "tcp", "sasl", "metadata", "advertised", "roundtrip"]
    assert set(statuses(run).values()) == {"ok"}, [(s["name"], s["summary"]) for s in run.report["stages"]]
    [attempt] = run.stage("sasl")["detail"]["attempts"]
    assert (attempt["mechanism"], attempt["username"], attempt["status"]) == ("PLAIN", "alice", "ok")
    [broker] = run.report["cluster"]["brokers"]
    assert broker["sasl"]["status"] == "ok"
    for text in (run.stdout, run.stderr, output.read_text()):
        assert ALICE_PLAIN not in text
    assert json.loads(output.read_text())["client"]["sasl.password"] == "***"


def test_right_scram_sha_512_password_is_healthy(secure: SecureBroker) -> None:
    run = kdiag(f"127.0.0.1:{secure.sasl}", *sasl_plaintext("SCRAM-SHA-512", "alice", ALICE_SCRAM), roundtrip=True)
    assert run.exit_code == 0, run.stderr + run.stdout
    assert set(statuses(run).values()) == {"ok"}, [(s["name"], s["summary"]) for s in run.report["stages"]]
    assert run.stage("sasl")["detail"]["attempts"][0]["mechanism"] == "SCRAM-SHA-512"
    assert ALICE_SCRAM not in run.stdout + run.stderr


def test_sasl_ssl_from_a_java_client_properties_is_healthy(secure: SecureBroker, pki: Pki, tmp_path: Path) -> None:
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_SSL\n"
                      "sasl.mechanism=SCRAM-SHA-512\n"
                      "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                      f'username="alice" password="{ALICE_SCRAM}";\n'
                      "ssl.truststore.type=PEM\n"
                      f"ssl.truststore.location={pki.ca}\n")
    run = run_kdiag("bootstrap", f"localhost:{secure.sasl_ssl}", "--json", "--timeout", "20",
                    "--command-config", str(config))
    assert run.exit_code == 0, run.stderr + run.stdout
    assert stage_names(run) == ["dns", "tcp", "tls", "sasl", "metadata", "advertised", "roundtrip"]
    assert set(statuses(run).values()) == {"ok"}, [(s["name"], s["summary"]) for s in run.report["stages"]]
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["tls"]["status"], broker["sasl"]["status"]) == ("ok", "ok")
    assert ALICE_SCRAM not in run.stdout + run.stderr


def test_oauthbearer_is_not_probed_by_kdiag_and_the_round_trip_logs_in_instead(secure: SecureBroker,
                                                                              pki: Pki) -> None:
    run = kdiag(f"localhost:{secure.sasl_ssl}", "security.protocol=SASL_SSL", f"ssl.ca.location={pki.ca}",
                "sasl.mechanisms=OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt=true",
                "sasl.oauthbearer.config=principal=alice", roundtrip=True)
    assert run.exit_code == 0, run.stderr + run.stdout
    assert statuses(run) == {"dns": "ok", "tcp": "ok", "tls": "ok", "sasl": "warn", "metadata": "skip",
                             "advertised": "skip", "roundtrip": "ok"}
    [attempt] = run.stage("sasl")["detail"]["attempts"]
    assert attempt["status"] == "not_probed"
    assert attempt["enabled_mechanisms"] == ["PLAIN", "SCRAM-SHA-512", "OAUTHBEARER"]
    assert "not probed by kdiag" in run.stage("sasl")["summary"]
    assert run.report["findings"] == []


@pytest.mark.parametrize("password", [WRONG_PASSWORD, ALICE_SCRAM])
def test_no_password_reaches_the_report_even_before_the_cli_scrubs_its_output(secure: SecureBroker,
                                                                             password: str) -> None:
    from kdiag.clientconfig import parse_x_options
    from kdiag.orchestrate import BootstrapOptions, run_bootstrap
    from kdiag.report import report_to_json
    from kdiag.target import parse_bootstrap

    settings = parse_x_options(sasl_plaintext("SCRAM-SHA-512", "alice", password))
    options = BootstrapOptions(targets=parse_bootstrap(f"127.0.0.1:{secure.sasl}"), timeout=20,
                               client_settings=dict(settings.settings), redacted_settings=settings.redacted(),
                               secrets=settings.secrets)
    report = run_bootstrap(options)
    assert report.stage("sasl").status == ("ok" if password == ALICE_SCRAM else "fail")
    assert password not in report_to_json(report)
    assert password not in repr(report)


# --- client certificates (mTLS) and PKCS#12 stores ----------------------------------------------------


def client_certificate(path: Path) -> tuple[str, ...]:
    """-X settings presenting the certificate NAME.pem with its key NAME.key."""
    return (f"ssl.certificate.location={path}", f"ssl.key.location={path.with_suffix('.key')}")


@pytest.mark.parametrize(("listener", "version", "after_handshake"),
                         [("mtls", "TLSv1.3", True), ("mtls12", "TLSv1.2", False)])
def test_client_without_a_certificate_on_a_listener_requiring_one_is_tls_client_cert_required(
        secure: SecureBroker, pki: Pki, listener: str, version: str, after_handshake: bool) -> None:
    run = kdiag(f"localhost:{getattr(secure, listener)}", *ssl_with_ca(pki))
    assert run.exit_code == 1, run.stderr
    assert statuses(run) == {"dns": "ok", "tcp": "ok", "tls": "fail", "metadata": "skip", "advertised": "skip",
                             "roundtrip": "skip"}
    handshakes = run.stage("tls")["detail"]["handshakes"]
    assert {(h["status"], h["version"], h["alert"], h["alert_after_handshake"]) for h in handshakes} == {
        ("alert", version, "bad_certificate", after_handshake)}  # Java's alert under both versions
    assert run.finding_ids() == {"TLS_CLIENT_CERT_REQUIRED"}
    finding = run.finding("TLS_CLIENT_CERT_REQUIRED")
    evidence = finding["evidence"]
    assert (evidence["tls_version"], evidence["alert"], evidence.get("client_certificate")) == (
        version, "bad_certificate", None)
    if version == "TLSv1.2":
        assert evidence["client_certificate_requested"] is True  # the CertificateRequest, read in the clear
    assert "ssl.certificate.location=<client.pem>" in finding["fix"]
    assert "ssl.keystore.location=<client.p12>" in finding["fix"]
    assert "listener.name.<listener>.ssl.client.auth=requested" in finding["fix"]


@pytest.mark.parametrize(("listener", "version"), [("mtls", "TLSv1.3"), ("mtls12", "TLSv1.2")])
def test_client_certificate_from_another_ca_is_tls_client_cert_rejected(secure: SecureBroker, pki: Pki,
                                                                         listener: str, version: str) -> None:
    run = kdiag(f"localhost:{getattr(secure, listener)}", *ssl_with_ca(pki), *client_certificate(pki.intruder))
    assert run.exit_code == 1, run.stderr
    assert run.stage("tls")["status"] == "fail"
    assert run.finding_ids() == {"TLS_CLIENT_CERT_REJECTED"}
    evidence = run.finding("TLS_CLIENT_CERT_REJECTED")["evidence"]
    assert (evidence["tls_version"], evidence["alert"]) == (version, "certificate_unknown")
    assert (evidence["client_certificate"], evidence["client_certificate_issuer"]) == ("CN=intruder", "CN=rogue CA")


def test_advertised_broker_on_a_listener_requiring_a_certificate_is_tls_client_cert_required_for_it(
        secure: SecureBroker, pki: Pki) -> None:
    run = kdiag(f"localhost:{secure.to_mtls}", *ssl_with_ca(pki))
    assert run.exit_code == 1, run.stderr
    assert statuses(run)["tls"] == "ok"  # the bootstrap listener asks for no certificate
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["port"], broker["tls"]["status"], broker["tls"]["alert"]) == (secure.mtls, "alert",
                                                                                  "bad_certificate")
    assert run.finding_ids() == {"TLS_CLIENT_CERT_REQUIRED"}
    finding = run.finding("TLS_CLIENT_CERT_REQUIRED")
    assert (finding["evidence"]["node_id"], finding["evidence"]["port"]) == (1, secure.mtls)
    assert finding["title"].startswith("Broker 1's advertised listener")


@pytest.mark.parametrize("listener", ["mtls", "mtls12"])
def test_client_certificate_in_pem_files_is_healthy_with_a_round_trip(secure: SecureBroker, pki: Pki,
                                                                      listener: str) -> None:
    run = kdiag(f"localhost:{getattr(secure, listener)}", *ssl_with_ca(pki), *client_certificate(pki.client),
                roundtrip=True)
    assert run.exit_code == 0, run.stderr + run.stdout
    assert set(statuses(run).values()) == {"ok"}, [(s["name"], s["summary"]) for s in run.report["stages"]]
    handshake = run.stage("tls")["detail"]["handshakes"][0]
    assert handshake["client_certificate"]["subject"] == "CN=kdiag-client"


def test_pkcs12_keystore_given_with_x_is_healthy_and_its_password_never_printed(secure: SecureBroker, pki: Pki,
                                                                                 tmp_path: Path) -> None:
    output = tmp_path / "report.json"
    run = run_kdiag("bootstrap", f"localhost:{secure.mtls}", "--format=text", "--timeout", "20", "--output",
                    str(output), "-X", "security.protocol=SSL", "-X", f"ssl.ca.location={pki.ca}",
                    "-X", f"ssl.keystore.location={pki.keystore}", "-X", f"ssl.keystore.password={KEYSTORE_PASSWORD}")
    assert run.exit_code == 0, run.stderr + run.stdout
    report = json.loads(output.read_text())
    assert {s["status"] for s in report["stages"]} == {"ok"}  # the round trip too: librdkafka reads the keystore
    assert report["client"]["ssl.keystore.password"] == "***"
    for text in (run.stdout, run.stderr, output.read_text()):
        assert KEYSTORE_PASSWORD not in text


def test_java_client_properties_with_pkcs12_keystore_and_truststore_is_healthy(secure: SecureBroker, pki: Pki,
                                                                               tmp_path: Path) -> None:
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SSL\n"
                      "ssl.keystore.type=PKCS12\n"
                      f"ssl.keystore.location={pki.keystore}\n"
                      f"ssl.keystore.password={KEYSTORE_PASSWORD}\n"
                      f"ssl.key.password={KEYSTORE_PASSWORD}\n"
                      f"ssl.truststore.location={pki.truststore}\n"  # no type: Java's default, the file says PKCS#12
                      f"ssl.truststore.password={TRUSTSTORE_PASSWORD}\n")
    run = run_kdiag("bootstrap", f"localhost:{secure.mtls12}", "--json", "--timeout", "20",
                    "--command-config", str(config))
    assert run.exit_code == 0, run.stderr + run.stdout
    assert set(statuses(run).values()) == {"ok"}, [(s["name"], s["summary"]) for s in run.report["stages"]]
    handshake = run.stage("tls")["detail"]["handshakes"][0]
    assert handshake["trust"] == f"ssl.truststore.location={pki.truststore} (PKCS#12, 1 certificate)"
    assert handshake["client_certificate"]["subject"] == "CN=kdiag-client"
    assert run.report["client"]["ssl.ca.pem"] == f"<the certificates of {handshake['trust']}>"
    assert KEYSTORE_PASSWORD not in run.stdout + run.stderr
    assert TRUSTSTORE_PASSWORD not in run.stdout + run.stderr


def test_jks_keystore_is_a_usage_error_with_the_keytool_conversion(pki: Pki, tmp_path: Path) -> None:
    import subprocess

    jks = tmp_path / "client.jks"
    subprocess.run(["keytool", "-importkeystore", "-srckeystore", str(pki.keystore), "-srcstoretype", "PKCS12",
                    "-srcstorepass:env", "STORE_PASSWORD", "-destkeystore", str(jks), "-deststoretype", "JKS",
                    "-deststorepass:env", "STORE_PASSWORD", "-noprompt"],
                   check=True, capture_output=True, timeout=60, env={"STORE_PASSWORD": KEYSTORE_PASSWORD,
                                                                     "PATH": "/usr/bin:/bin"})
    config = tmp_path / "client.properties"
    config.write_text(f"security.protocol=SSL\nssl.keystore.location={jks}\nssl.keystore.password={KEYSTORE_PASSWORD}\n"
                      f"ssl.truststore.type=PEM\nssl.truststore.location={pki.ca}\n")
    run = run_kdiag("bootstrap", "localhost:9", "--json", "--command-config", str(config))
    assert run.exit_code == 2, run.stderr + run.stdout
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert f"keytool -importkeystore -srcstoretype JKS -srckeystore {jks} -deststoretype PKCS12" in run.stderr
    assert KEYSTORE_PASSWORD not in run.stderr


def test_wrong_keystore_password_is_a_usage_error_that_never_echoes_it(pki: Pki) -> None:
    wrong = "not-the-keystore-password-99"
    run = run_kdiag("bootstrap", "localhost:9", "--json", "-X", "security.protocol=SSL",
                    "-X", f"ssl.keystore.location={pki.keystore}", "-X", f"ssl.keystore.password={wrong}")
    assert run.exit_code == 2, run.stderr + run.stdout
    assert "wrong ssl.keystore.password" in run.stderr
    assert wrong not in run.stderr and KEYSTORE_PASSWORD not in run.stderr
