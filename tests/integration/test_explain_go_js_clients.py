"""``kdiag explain`` on what kafkajs, Sarama and franz-go print against real brokers.

The same method as ``test_explain_real_clients.py`` (whose helpers this reuses), for the clients whose
patterns were first written from documented strings: small real apps (``tests/clients``, built by
``scripts/setup``) produce one message with the library's defaults and its usual logging, in each
failing situation, and what they printed (after the command that was run) goes to the real ``kdiag
explain`` entry point.

To keep CI quick, one broker holds every situation that needs one, each on a listener of its own, and
every client run starts at once (with a refused, an unresolvable and a filtered bootstrap besides) and
is killed after ``RUN_FOR`` seconds at most (these clients retry for minutes; what they printed until
then is what a user pastes):

| listener | what a client connecting there meets |
|---|---|
| INTERNAL (PLAINTEXT) | a healthy listener: a TLS client there, and a topic that does not exist (auto-creation off) |
| EC2 (PLAINTEXT) | advertised as the seed's EC2 internal name, which does not resolve |
| DEAD (PLAINTEXT) | advertised as 127.0.0.1 on a port nothing listens on |
| SSL | TLS with a self-signed certificate for kafka.example.test only: a plaintext client, a TLS one |
| SASL_PLAINTEXT | SASL/PLAIN (user alice): a client without SASL, and one with a wrong password |

``KDIAG_CAPTURE_FIXTURES=1`` writes every paste to ``tests/fixtures/client_logs/`` like the other file.
Nothing skips: a client that was not built fails the test (run ``scripts/setup``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from kdiag.lab.kafka import KafkaBroker
from tests.integration.real_clients import (EC2_INTERNAL, TOPIC, UNRESOLVABLE, WRONG_PASSWORD, Client, Explained,
                                            SituationPorts, assert_explains, at, run_and_explain, situations_broker)
from tests.kdiag_cli import REPO, run_kdiag

pytestmark = pytest.mark.broker

CLIENTS = REPO / "tests" / "clients"
GO_PRODUCE = CLIENTS / "go" / "bin" / "produce"
KAFKAJS = CLIENTS / "kafkajs"
RUN_FOR = 20.0  # kafkajs gives up after its 5 retries, 8 to 12 s; Sarama within 2 s; franz-go never
MISSING_TOPIC = "missing-topic"
LIBRARIES = ("kafkajs", "sarama", "franz")


def built(path: Path, what: str) -> Path:
    assert path.exists(), f"{what} is not built ({path} is missing): run scripts/setup"
    return path


def kafkajs(bootstrap: str, *options: str, topic: str = TOPIC) -> Client:
    built(KAFKAJS / "node_modules" / "kafkajs", "the kafkajs client")
    args = ("produce.js", "--brokers", bootstrap, "--topic", topic, *options)
    return Client(("node", str(KAFKAJS / args[0]), *args[1:]), shlex.join(("node", *args)), stdin="",
                  timeout=RUN_FOR)


def go(lib: str, bootstrap: str, *options: str, topic: str = TOPIC) -> Client:
    args = ("-lib", lib, "-brokers", bootstrap, "-topic", topic, *options)
    return Client((str(built(GO_PRODUCE, "the Go client")), *args), shlex.join(("./produce", *args)), stdin="",
                  timeout=RUN_FOR)


def each_library(bootstrap: str, *, tls: bool = False, sasl_password: str | None = None,
                 topic: str = TOPIC) -> dict[str, Client]:
    """The same situation for kafkajs, Sarama and franz-go, with the settings each spells its own way."""
    js: list[str] = ["--ssl"] if tls else []
    go_options: list[str] = ["-tls"] if tls else []
    if sasl_password is not None:
        js += ["--sasl-mechanism", "plain", "--sasl-username", "alice", "--sasl-password", sasl_password]
        go_options += ["-sasl-user", "alice", "-sasl-password", sasl_password]
    return {"kafkajs": kafkajs(bootstrap, *js, topic=topic),
            "sarama": go("sarama", bootstrap, *go_options, topic=topic),
            "franz": go("franz", bootstrap, *go_options, topic=topic)}


# --- one broker, one listener per situation (real_clients.situations_broker) ---------------------------


@pytest.fixture(scope="module")
def ports() -> SituationPorts:
    return SituationPorts.allocate()


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory, certificates: Path, ports: SituationPorts) -> Iterator[KafkaBroker]:
    with situations_broker(tmp_path_factory.mktemp("go-js-broker"), certificates, ports) as running:
        yield running


@pytest.fixture(scope="module")
def captured(broker: KafkaBroker, filtered_port: int, ports: SituationPorts) -> dict[str, Explained]:
    """Every situation × every library, all running at once: ``{"<situation>.<library>": Captured}``."""
    scenarios = {
        "ec2_internal_advertised": each_library(at(broker, "EC2")),
        "advertised_dead_port": each_library(at(broker, "DEAD")),
        "bootstrap.refused": each_library(f"127.0.0.1:{ports.refused}"),
        "bootstrap.unresolvable": each_library(f"{UNRESOLVABLE}:9092"),
        "bootstrap.filtered": each_library(f"127.0.0.1:{filtered_port}"),
        "tls.untrusted": each_library(at(broker, "SSL"), tls=True),
        "tls.plaintext_on_tls": each_library(at(broker, "SSL")),
        "tls.tls_on_plaintext": each_library(at(broker, "INTERNAL"), tls=True),
        "sasl.required": each_library(at(broker, "SASL_PLAINTEXT")),
        "sasl.wrong_password": each_library(at(broker, "SASL_PLAINTEXT"), sasl_password=WRONG_PASSWORD),
        "topic_missing": each_library(at(broker, "INTERNAL"), topic=MISSING_TOPIC),
    }
    return run_and_explain(scenarios)


# --- what each client's output is taken for -----------------------------------------------------------

EXPECTED = {
    "ec2_internal_advertised": "ADVERTISED_UNRESOLVABLE",
    "advertised_dead_port": "ADVERTISED_UNREACHABLE",
    "bootstrap.refused": "BOOTSTRAP_REFUSED",
    "bootstrap.unresolvable": "BOOTSTRAP_UNRESOLVABLE",
    "tls.tls_on_plaintext": "TLS_UNEXPECTED",
    "sasl.wrong_password": "SASL_AUTH_FAILED",
    "topic_missing": "TOPIC_NOT_FOUND",
    # Where kafkajs says only "Closed connection", a listener wanting TLS or SASL is all it can mean: kdiag
    # gives each as a reading (a warning) with what to run (test_kafkajs_closed_connection_gets_...).
    "tls.plaintext_on_tls": {"kafkajs": None, "sarama": "TLS_EXPECTED", "franz": "TLS_EXPECTED"},
    "sasl.required": {"kafkajs": None, "sarama": "SASL_REQUIRED", "franz": "SASL_REQUIRED"},
    # Go checks the name before the chain: a certificate without 127.0.0.1 is reported for the name.
    "tls.untrusted": {"kafkajs": "TLS_CERT_UNTRUSTED", "sarama": "TLS_HOSTNAME_MISMATCH",
                      "franz": "TLS_HOSTNAME_MISMATCH"},
    # Sarama's dial timeout is 30 s: until then it has said nothing about the connection, and kdiag finds nothing.
    "bootstrap.filtered": {"kafkajs": "BOOTSTRAP_TIMEOUT", "sarama": None, "franz": "BOOTSTRAP_TIMEOUT"},
}
CASES = [(situation, library, ids if isinstance(ids, str) else ids[library])
         for situation, ids in EXPECTED.items() for library in LIBRARIES
         if (ids if isinstance(ids, str) else ids[library]) is not None]


@pytest.mark.parametrize("situation, library, expected", CASES, ids=[f"{s}.{lib}" for s, lib, _ in CASES])
def test_real_output_maps_to_the_reports_finding_id(captured, situation, library, expected):
    run = captured[f"{situation}.{library}"]
    assert run.exit_code != 0, f"the client did not fail:\n{run.paste}"  # killed at RUN_FOR (None) or exit 1
    finding = assert_explains(run, expected)
    ids = [f["id"] for f in run.explain().report["findings"]]
    assert len(ids) == len(set(ids)), f"one failure, one finding: {ids}\n--- paste ---\n{run.paste}"
    if expected.startswith(("BOOTSTRAP_", "ADVERTISED_")):
        assert finding["evidence"]["role"] == expected.split("_")[0].lower()
    if expected == "TOPIC_NOT_FOUND":
        assert finding["evidence"]["topic"] == MISSING_TOPIC


def test_sarama_before_its_dial_timeout_has_said_nothing_and_explain_finds_nothing(captured):
    run = captured["bootstrap.filtered.sarama"]
    assert run.exit_code is None and "fetching metadata for all topics from broker" in run.output
    explained = run.explain()
    assert explained.exit_code == 0 and explained.report["findings"] == [], explained.stdout


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_ec2_name_is_named_with_its_port_and_the_fix(captured, broker, library):
    finding = assert_explains(captured[f"ec2_internal_advertised.{library}"], "ADVERTISED_UNRESOLVABLE")
    assert finding["evidence"]["host"] == EC2_INTERNAL and finding["evidence"]["host_kind"] == "ec2_internal"
    assert finding["evidence"]["port"] == int(at(broker, "EC2").rsplit(":", 1)[1])
    assert "KAFKA_ADVERTISED_LISTENERS" in finding["fix"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_dead_advertised_port_is_a_refused_advertised_broker(captured, library):
    finding = assert_explains(captured[f"advertised_dead_port.{library}"], "ADVERTISED_UNREACHABLE")
    assert finding["evidence"]["tcp_status"] == "refused"


@pytest.mark.parametrize("situation", ["tls.plaintext_on_tls", "sasl.required"])
def test_kafkajs_closed_connection_gets_the_likely_causes_and_the_command(captured, broker, situation):
    run = captured[f"{situation}.kafkajs"]
    assert "Closed connection" in run.output
    assert_explains(run, "TLS_EXPECTED")
    findings = run.explain().report["findings"]
    assert [f["id"] for f in findings] == ["TLS_EXPECTED", "SASL_REQUIRED", "BROKER_CLOSED_CONNECTION"]
    bootstrap = run.shown.split("--brokers ")[1].split()[0]
    for finding in findings:
        assert finding["severity"] == "warning" and finding["title"].startswith("Maybe: ")
        assert "TLS" in finding["explanation"] and "SASL" in finding["explanation"]
        assert finding["evidence"]["confirm"].startswith(f"kdiag bootstrap {bootstrap}")


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_pasted_password_never_comes_back(captured, library):
    run = captured[f"sasl.wrong_password.{library}"]
    assert WRONG_PASSWORD in run.paste
    for args in (("--json",), ("--format", "text"), ("--format", "markdown")):
        done = run_kdiag("explain", *args, input=run.paste)
        assert done.exit_code == 1, done.stderr
        assert WRONG_PASSWORD not in done.stdout + done.stderr

