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
=========  ==============  =====================  ===============================================

The certificates are made with ``kdiag.lab.certs`` (openssl) for the module; the SCRAM user is
created through the Admin API on the PLAINTEXT listener, the way an operator would. Every run goes
through the real entry point and the assertions read its JSON report.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kdiag.lab.certs import PLAIN_USERS, issue, make_ca, pem_keystore, sasl_listener
from kdiag.lab.kafka import KAFKA_VERSION, BrokerSpec, KafkaBroker, Listener, free_ports
from tests.kdiag_cli import KdiagRun, run_kdiag

pytestmark = pytest.mark.broker

CA_NAME = "kdiag test CA"
ALICE_PLAIN = PLAIN_USERS["alice"]
ALICE_SCRAM = "alice-scram-secret"
WRONG_PASSWORD = "not-alices-password-42"


# --- certificates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pki:
    ca: Path  # the CA certificate clients trust (ssl.ca.location)
    broker: Path  # key + chain for SAN DNS:localhost, IP:127.0.0.1
    localhost_only: Path  # key + chain for SAN DNS:localhost


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("pki")
    return Pki(ca=make_ca(directory, CA_NAME),
               broker=issue(directory, "broker", san="DNS:localhost,IP:127.0.0.1"),
               localhost_only=issue(directory, "localhost-only", san="DNS:localhost"))


# --- the broker ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SecureBroker:
    broker: KafkaBroker
    plaintext: int
    ssl: int
    misnamed: int
    sasl: int
    sasl_ssl: int


@pytest.fixture(scope="module")
def secure(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureBroker]:
    plaintext, ssl, misnamed, sasl, sasl_ssl, controller = free_ports(6)
    # The listeners clients reach as localhost bind every address: localhost may resolve to ::1 first.
    listeners = (Listener("PLAINTEXT", "127.0.0.1", plaintext), Listener("SSL", "", ssl, "SSL"),
                 Listener("MISNAMED", "", misnamed, "SSL"),
                 Listener("SASL", "127.0.0.1", sasl, "SASL_PLAINTEXT"),
                 Listener("SECURE", "", sasl_ssl, "SASL_SSL"))
    advertised = (Listener("PLAINTEXT", "127.0.0.1", plaintext), Listener("SSL", "localhost", ssl),
                  Listener("MISNAMED", "127.0.0.1", misnamed), Listener("SASL", "127.0.0.1", sasl),
                  Listener("SECURE", "localhost", sasl_ssl))
    overrides = {**pem_keystore("SSL", pki.broker), **pem_keystore("MISNAMED", pki.localhost_only),
                 **pem_keystore("SECURE", pki.broker), **sasl_listener("SASL"), **sasl_listener("SECURE", oauthbearer=True)}
    spec = BrokerSpec(node_id=1, listeners=listeners, advertised=advertised, controller_port=controller,
                      inter_broker_listener="PLAINTEXT", overrides=overrides)
    with KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path_factory.mktemp("secure-broker")) as broker:
        create_scram_user(f"127.0.0.1:{plaintext}", "alice", ALICE_SCRAM)
        yield SecureBroker(broker, plaintext, ssl, misnamed, sasl, sasl_ssl)


def create_scram_user(bootstrap: str, user: str, password: str) -> None:
    from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion

    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    upsert = UserScramCredentialUpsertion(user, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                                          password.encode())
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
