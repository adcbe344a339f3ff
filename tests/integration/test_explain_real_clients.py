"""``kdiag explain`` on what real Kafka clients print against real brokers, and ``kdiag diff`` on two
real reports.

Each scenario starts real brokers on loopback (``kdiag.lab.kafka``) in one failing configuration, runs
real clients against them with short timeouts, all at once: kcat (``-L``, ``-P``, ``-C``), confluent-kafka's
``Producer`` with a small ``message.timeout.ms``, and the Java console producer from the Kafka 3.9.2
jars (``kafka.tools.ConsoleProducer``: the 4.4.0 jars on Maven Central have no console tools). What a
client printed, after the command that was run, is what a customer pastes; the test feeds it to the
real ``kdiag explain`` entry point and asserts the finding ids.

``KDIAG_CAPTURE_FIXTURES=1`` also writes every paste to ``tests/fixtures/client_logs/`` (the unit tests
read them). Nothing here skips: a broker, a client or a jar that cannot run fails the test.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from kdiag.lab.certs import client_auth_listener, issue, make_ca, pem_keystore, pkcs12_keystore
from kdiag.lab.kafka import (BrokerSpec, KafkaBroker, Listener, cache_root, free_ports, install, loopback_specs,
                             two_listener_spec)
from tests.integration.real_clients import (CLIENT_TIMEOUT, EC2_INTERNAL, TOPIC, UNRESOLVABLE, WRONG_PASSWORD,
                                            Captured, Client, assert_explains, create_topic, internal_bootstrap,
                                            run_clients)
from tests.kdiag_cli import run_kdiag

CONSOLE_VERSION = "3.9.2"
# The Kafka tarball's config/tools-log4j.properties: what the console tools print by default.
TOOLS_LOG4J = ("log4j.rootLogger=WARN, stderr\n"
               "log4j.appender.stderr=org.apache.log4j.ConsoleAppender\n"
               "log4j.appender.stderr.layout=org.apache.log4j.PatternLayout\n"
               "log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
               "log4j.appender.stderr.Target=System.err\n")

pytestmark = pytest.mark.broker


# --- running the real clients ----------------------------------------------------------------------


def kcat(bootstrap: str, *args: str, stdin: str = "") -> Client:
    argv = ("kcat", "-b", bootstrap, *args)
    return Client(argv, shlex.join(argv), stdin=stdin)


def kcat_list(bootstrap: str, *settings: str) -> Client:
    return kcat(bootstrap, "-L", "-m", "3", *(a for s in settings for a in ("-X", s)))


def kcat_produce(bootstrap: str, *settings: str) -> Client:
    return kcat(bootstrap, "-P", "-t", TOPIC, "-X", "message.timeout.ms=3000",
                *(a for s in settings for a in ("-X", s)), stdin="hello\n")


def kcat_consume(bootstrap: str, topic: str = TOPIC) -> Client:
    return kcat(bootstrap, "-C", "-t", topic, "-c", "1", "-e", "-m", "3")


def confluent_producer(bootstrap: str, **settings: object) -> Client:
    config = {"bootstrap.servers": bootstrap, "message.timeout.ms": 3000, **settings}
    code = (f"from confluent_kafka import Producer\np = Producer({config!r})\n"
            f"p.produce({TOPIC!r}, b'hello', on_delivery=lambda err, msg: print('delivery failed:', err) if err "
            "else None)\np.flush(10)")
    return Client((sys.executable, "-c", code), f"python3 - <<EOF\n{code}\nEOF")


@dataclass(frozen=True)
class ConsoleProducer:
    """``kafka.tools.ConsoleProducer`` of Kafka 3.9.2, on a small heap like a client in a container."""

    prefix: tuple[str, ...]

    def __call__(self, bootstrap: str, *properties: str, topic: str = TOPIC, idempotent: bool = False,
                 block_ms: int = 3000, timeout: float = CLIENT_TIMEOUT) -> Client:
        """``block_ms``: max.block.ms; longer where a TLS or SASL handshake must finish first (a JVM sets up
        TLS slowly on a busy machine, and the producer fails as soon as the handshake does)."""
        settings = [f"max.block.ms={block_ms}", "request.timeout.ms=1500", "delivery.timeout.ms=3000", "linger.ms=0",
                    *(() if idempotent else ("enable.idempotence=false",)), *properties]
        args = ["--bootstrap-server", bootstrap, "--topic", topic]
        for setting in settings:
            args += ["--producer-property", setting]
        return Client((*self.prefix, *args), shlex.join(["kafka-console-producer.sh", *args]), timeout=timeout)


TOOLS_API = f"org.apache.kafka:kafka-tools-api:{CONSOLE_VERSION}"


def tools_api_jar() -> Path:
    """kafka-tools-api, which the console producer needs and the broker jars leave out, in
    ``<cache>/3.9.2/tools``: already there (scripts/setup fetches it), else copied from the local Maven
    repository, else from Maven Central (not reachable from inside the test sandbox)."""
    tools = cache_root() / CONSOLE_VERSION / "tools"
    jar = tools / f"kafka-tools-api-{CONSOLE_VERSION}.jar"
    attempts = []
    for offline in ("-o", None):
        if jar.is_file():
            break
        argv = ["mvn", "-q", "-B", *([offline] if offline else []), "dependency:copy", f"-Dartifact={TOOLS_API}",
                f"-DoutputDirectory={tools}"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        attempts.append(f"{shlex.join(argv)}: exit {done.returncode}")
    assert jar.is_file(), (f"no {jar}: fetch it outside the sandbox with\n  mvn -q -B dependency:copy "
                           f"-Dartifact={TOOLS_API} -DoutputDirectory={tools}\n(tried: {'; '.join(attempts)})")
    return tools


@pytest.fixture(scope="session")
def console_producer(tmp_path_factory: pytest.TempPathFactory) -> ConsoleProducer:
    """Kafka 3.9.2's console producer, from the jars installed like the brokers' plus kafka-tools-api."""
    lib, tools = install(CONSOLE_VERSION), tools_api_jar()
    log4j = tmp_path_factory.mktemp("console") / "tools-log4j.properties"
    log4j.write_text(TOOLS_LOG4J)
    return ConsoleProducer(("java", "-Xmx64m", f"-Dlog4j.configuration=file:{log4j}", "-cp",
                            f"{lib}/*{os.pathsep}{tools}/*", "kafka.tools.ConsoleProducer"))


# --- brokers in failing configurations ----------------------------------------------------------------


def secured_spec(protocol: str, **overrides: str) -> tuple[BrokerSpec, Listener, Listener]:
    """A broker whose client listener (named after ``protocol``) is secured, and a PLAINTEXT INTERNAL
    listener for inter-broker traffic: (spec, secured listener, internal listener)."""
    secured_port, controller_port, internal_port = free_ports(3)
    base = loopback_specs(1, ports=(secured_port, controller_port))[0]
    secured = Listener(protocol, "127.0.0.1", secured_port, protocol=protocol)
    internal = Listener("INTERNAL", "127.0.0.1", internal_port)
    spec = replace(base, listeners=(internal, secured), advertised=(internal, secured),
                   inter_broker_listener="INTERNAL", overrides=overrides)
    return spec, secured, internal


@pytest.fixture(scope="module")
def ec2_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """The seed's EC2 broker: the client reaches it, and it advertises its internal name."""
    with KafkaBroker.start(two_listener_spec(EC2_INTERNAL), workdir=tmp_path_factory.mktemp("ec2")) as broker:
        create_topic(broker)
        yield broker


# --- the seed's EC2 broker: an advertised name that does not resolve ----------------------------------


@pytest.fixture(scope="module")
def ec2_clients(ec2_broker: KafkaBroker, console_producer: ConsoleProducer) -> dict[str, Captured]:
    bootstrap = ec2_broker.bootstrap_servers
    return run_clients("ec2_internal_advertised", {
        "kcat_list": kcat_list(bootstrap),
        "kcat_produce": kcat_produce(bootstrap),
        "kcat_consume": kcat_consume(bootstrap),
        "confluent_producer": confluent_producer(bootstrap),
        "console_producer": console_producer(bootstrap),
        "console_producer_idempotent": console_producer(bootstrap, idempotent=True, timeout=10),
    })


@pytest.mark.parametrize("client", ["kcat_produce", "kcat_consume", "confluent_producer", "console_producer",
                                    "console_producer_idempotent"])
def test_ec2_internal_name_advertised_is_advertised_unresolvable(ec2_clients, client):
    finding = assert_explains(ec2_clients[client], "ADVERTISED_UNRESOLVABLE")
    assert finding["evidence"]["host"] == EC2_INTERNAL
    assert finding["evidence"]["role"] == "advertised"
    assert finding["evidence"]["host_kind"] == "ec2_internal"
    assert "KAFKA_ADVERTISED_LISTENERS" in finding["fix"]


def test_kcat_list_of_the_ec2_broker_looks_fine_and_explain_says_so_calmly(ec2_clients, ec2_broker):
    captured = ec2_clients["kcat_list"]
    assert f"broker 1 at {EC2_INTERNAL}" in captured.output  # kcat -L prints it and never connects there
    run = run_kdiag("explain", input=captured.paste)
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("No problem found in")


def test_java_producer_gives_up_with_expiring_after_the_unresolvable_name(ec2_clients):
    captured = ec2_clients["console_producer"]
    assert "Expiring 1 record(s) for t-0" in captured.output or "not present in metadata" in captured.output
    finding = assert_explains(captured, "ADVERTISED_UNRESOLVABLE")
    assert finding["evidence"]["consequences"], finding["evidence"]


# --- an advertised port nothing listens on ------------------------------------------------------------


@pytest.fixture(scope="module")
def dead_port_clients(tmp_path_factory, console_producer) -> dict[str, Captured]:
    external, controller, internal, dead = free_ports(4)
    spec = two_listener_spec("127.0.0.1", dead, ports=(external, controller, internal))
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("dead-port")) as broker:
        create_topic(broker)
        bootstrap = broker.bootstrap_servers
        return run_clients("advertised_dead_port", {
            "kcat_produce": kcat_produce(bootstrap),
            "kcat_consume": kcat_consume(bootstrap),
            "confluent_producer": confluent_producer(bootstrap),
            "console_producer": console_producer(bootstrap),
        })


@pytest.mark.parametrize("client", ["kcat_produce", "kcat_consume", "confluent_producer", "console_producer"])
def test_advertised_dead_port_is_advertised_unreachable(dead_port_clients, client):
    finding = assert_explains(dead_port_clients[client], "ADVERTISED_UNREACHABLE")
    assert finding["evidence"]["tcp_status"] == "refused"
    assert finding["evidence"]["role"] == "advertised"


# --- the bootstrap itself: refused, unresolvable, filtered -------------------------------------------------


@pytest.fixture(scope="module")
def bootstrap_clients(console_producer, filtered_port) -> dict[str, Captured]:
    [port] = free_ports(1)
    refused = f"127.0.0.1:{port}"
    unresolvable = f"{UNRESOLVABLE}:9092"
    filtered = f"127.0.0.1:{filtered_port}"
    setup = "socket.connection.setup.timeout.ms=1000"
    return run_clients("bootstrap", {
        "refused.kcat_list": kcat_list(refused),
        "refused.kcat_produce": kcat_produce(refused),
        "refused.confluent_producer": confluent_producer(refused),
        "refused.console_producer": console_producer(refused),
        "unresolvable.kcat_list": kcat_list(unresolvable),
        "unresolvable.confluent_producer": confluent_producer(unresolvable),
        "unresolvable.console_producer": console_producer(unresolvable),
        "filtered.kcat_list": kcat_list(filtered, setup),
        "filtered.confluent_producer": confluent_producer(filtered, **{"socket.connection.setup.timeout.ms": 1000}),
        "filtered.console_producer": console_producer(filtered, setup, "socket.connection.setup.timeout.max.ms=1000"),
    })


@pytest.mark.parametrize("client, expected", [
    ("refused.kcat_list", "BOOTSTRAP_REFUSED"),
    ("refused.kcat_produce", "BOOTSTRAP_REFUSED"),
    ("refused.confluent_producer", "BOOTSTRAP_REFUSED"),
    ("refused.console_producer", "BOOTSTRAP_REFUSED"),
    ("unresolvable.kcat_list", "BOOTSTRAP_UNRESOLVABLE"),
    ("unresolvable.confluent_producer", "BOOTSTRAP_UNRESOLVABLE"),
    ("unresolvable.console_producer", "BOOTSTRAP_UNRESOLVABLE"),
    ("filtered.kcat_list", "BOOTSTRAP_TIMEOUT"),
    ("filtered.confluent_producer", "BOOTSTRAP_TIMEOUT"),
])
def test_bootstrap_failures_map_to_their_ids(bootstrap_clients, client, expected):
    finding = assert_explains(bootstrap_clients[client], expected)
    assert finding["evidence"]["role"] == "bootstrap"


def test_java_producer_on_a_filtered_bootstrap_is_said_to_be_unexplained_not_guessed(bootstrap_clients):
    """At its default log level the Java client only says the bootstrap disconnected: kdiag does not
    invent a cause, it says which causes fit and what to run."""
    captured = bootstrap_clients["filtered.console_producer"]
    finding = assert_explains(captured, "ROUNDTRIP_FAILED")
    assert "timed out" in finding["explanation"] and "TLS or SASL" in finding["explanation"]
    assert finding["evidence"]["confirm"].startswith("kdiag bootstrap 127.0.0.1:")


# --- an advertised port that is filtered: the seed's Expiring line, alone ------------------------------------


@pytest.fixture(scope="module")
def filtered_advertised_clients(tmp_path_factory, console_producer, filtered_port) -> dict[str, Captured]:
    spec = two_listener_spec("127.0.0.1", filtered_port)
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("filtered-advertised")) as broker:
        create_topic(broker)
        bootstrap = broker.bootstrap_servers
        setup = "socket.connection.setup.timeout.ms=1000"
        return run_clients("advertised_filtered", {
            "kcat_produce": kcat_produce(bootstrap, setup),
            "confluent_producer": confluent_producer(bootstrap, **{"socket.connection.setup.timeout.ms": 1000}),
            "console_producer": console_producer(bootstrap, setup, "socket.connection.setup.timeout.max.ms=1000"),
        })


@pytest.mark.parametrize("client", ["kcat_produce", "confluent_producer"])
def test_filtered_advertised_port_is_advertised_unreachable(filtered_advertised_clients, client):
    finding = assert_explains(filtered_advertised_clients[client], "ADVERTISED_UNREACHABLE")
    assert finding["evidence"]["tcp_status"] == "timeout"


def test_java_expiring_line_alone_gets_likely_causes_and_the_command_to_run(filtered_advertised_clients):
    captured = filtered_advertised_clients["console_producer"]
    assert "Expiring 1 record(s) for t-0" in captured.output
    finding = assert_explains(captured, "ROUNDTRIP_FAILED")
    assert "advertised address" in finding["explanation"]
    bootstrap = captured.shown.split("--bootstrap-server ")[1].split()[0]
    assert f"kdiag bootstrap {bootstrap} --topic t" in finding["fix"]


# --- TLS: plaintext on a TLS listener, TLS on a plaintext one, the certificate ----------------------------


@pytest.fixture(scope="module")
def tls_clients(tmp_path_factory, console_producer, certificates) -> dict[str, Captured]:
    spec, tls, internal = secured_spec("SSL", **{
        "ssl.keystore.location": str(certificates / "broker.p12"), "ssl.keystore.password": "changeit",
        "ssl.key.password": "changeit", "ssl.keystore.type": "PKCS12"})
    truststore = ("security.protocol=SSL", f"ssl.truststore.location={certificates / 'trust.p12'}",
                  "ssl.truststore.password=changeit", "ssl.truststore.type=PKCS12")
    slow = 15000
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("tls-broker")):
        # By IP, not localhost: localhost is ::1 first, which the broker does not listen on, and the
        # retries on it can outlast a short timeout. The certificate holds kafka.example.test only.
        tls_at, plain = f"127.0.0.1:{tls.port}", f"127.0.0.1:{internal.port}"
        ca = f"ssl.ca.location={certificates / 'ca.pem'}"
        return run_clients("tls", {
            "plaintext_on_tls.kcat_list": kcat_list(tls_at),
            "plaintext_on_tls.console_producer": console_producer(tls_at),
            "untrusted.kcat_list": kcat_list(tls_at, "security.protocol=SSL"),
            "untrusted.console_producer": console_producer(tls_at, "security.protocol=SSL", block_ms=slow),
            "name_not_in_certificate.kcat_list": kcat_list(tls_at, "security.protocol=SSL", ca),
            "name_not_in_certificate.console_producer": console_producer(tls_at, *truststore, block_ms=slow),
            "tls_on_plaintext.kcat_list": kcat_list(plain, "security.protocol=SSL", ca),
            "tls_on_plaintext.console_producer": console_producer(plain, *truststore, block_ms=slow),
        })


@pytest.mark.parametrize("client, expected", [
    ("plaintext_on_tls.kcat_list", "TLS_EXPECTED"),
    ("plaintext_on_tls.console_producer", "TLS_EXPECTED"),  # OutOfMemoryError in NetworkReceive.readFrom
    ("untrusted.kcat_list", "TLS_CERT_UNTRUSTED"),
    ("untrusted.console_producer", "TLS_CERT_UNTRUSTED"),  # PKIX path building failed
    ("name_not_in_certificate.kcat_list", "TLS_CERT_UNTRUSTED"),  # librdkafka words both the same way
    ("name_not_in_certificate.console_producer", "TLS_HOSTNAME_MISMATCH"),
    ("tls_on_plaintext.kcat_list", "TLS_UNEXPECTED"),
    ("tls_on_plaintext.console_producer", "TLS_UNEXPECTED"),
])
def test_tls_mismatches_map_to_their_ids(tls_clients, client, expected):
    assert_explains(tls_clients[client], expected)


def test_librdkafka_certificate_failure_says_it_may_be_the_name(tls_clients):
    finding = assert_explains(tls_clients["name_not_in_certificate.kcat_list"], "TLS_CERT_UNTRUSTED")
    assert "openssl s_client" in finding["fix"]
    assert "the same way" in finding["explanation"]


# --- SASL: required, wrong mechanism, wrong password -----------------------------------------------------


# --- TLS: a listener that requires a client certificate (ssl.client.auth=required) ------------------------


@pytest.fixture(scope="module")
def mtls_clients(tmp_path_factory, console_producer) -> dict[str, Captured]:
    """Clients without a certificate, and with one from a CA the listener does not trust, under TLS 1.3
    (MTLS) and TLS 1.2 only (MTLS12)."""
    pki, rogue = tmp_path_factory.mktemp("mtls-pki"), tmp_path_factory.mktemp("mtls-rogue")
    make_ca(rogue, "rogue CA")
    issue(rogue, "intruder", usage="clientAuth")
    intruder_store = pkcs12_keystore(rogue, "intruder", "intruder-secret")
    ca = make_ca(pki)
    broker_store = issue(pki, "broker", san="IP:127.0.0.1")
    internal_port, controller_port, mtls_port, mtls12_port = free_ports(4)
    base = loopback_specs(1, ports=(internal_port, controller_port))[0]
    internal = Listener("INTERNAL", "127.0.0.1", internal_port)
    mtls = Listener("MTLS", "127.0.0.1", mtls_port, protocol="SSL")
    mtls12 = Listener("MTLS12", "127.0.0.1", mtls12_port, protocol="SSL")
    overrides = {**pem_keystore("MTLS", broker_store), **client_auth_listener("MTLS", ca),
                 **pem_keystore("MTLS12", broker_store), **client_auth_listener("MTLS12", ca, protocols="TLSv1.2")}
    spec = replace(base, listeners=(internal, mtls, mtls12), advertised=(internal, mtls, mtls12),
                   inter_broker_listener="INTERNAL", overrides=overrides)
    trusting = (f"ssl.ca.location={ca}",)
    intruder = (*trusting, f"ssl.certificate.location={rogue / 'intruder.pem'}",
                f"ssl.key.location={rogue / 'intruder.key'}")
    java_trust = ("security.protocol=SSL", "ssl.truststore.type=PEM", f"ssl.truststore.location={ca}")
    java_intruder = (*java_trust, "ssl.keystore.type=PKCS12", f"ssl.keystore.location={intruder_store}",
                     "ssl.keystore.password=intruder-secret")
    slow = 15000
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("mtls-broker")):
        clients = {}
        for name, listener in (("tls13", mtls), ("tls12", mtls12)):
            at = f"127.0.0.1:{listener.port}"
            clients.update({
                f"no_certificate.{name}.kcat_list": kcat_list(at, "security.protocol=SSL", *trusting),
                f"no_certificate.{name}.console_producer": console_producer(at, *java_trust, block_ms=slow),
                f"untrusted_certificate.{name}.kcat_list": kcat_list(at, "security.protocol=SSL", *intruder),
                f"untrusted_certificate.{name}.console_producer": console_producer(at, *java_intruder, block_ms=slow),
            })
        return run_clients("mtls", clients)


@pytest.mark.parametrize("version", ["tls13", "tls12"])
@pytest.mark.parametrize("client", ["kcat_list", "console_producer"])
def test_a_listener_that_requires_a_client_certificate_is_named_so(mtls_clients, version, client):
    assert_explains(mtls_clients[f"no_certificate.{version}.{client}"], "TLS_CLIENT_CERT_REQUIRED")


@pytest.mark.parametrize("version", ["tls13", "tls12"])
@pytest.mark.parametrize("client", ["kcat_list", "console_producer"])
def test_a_client_certificate_the_listener_does_not_trust_is_named_so(mtls_clients, version, client):
    assert_explains(mtls_clients[f"untrusted_certificate.{version}.{client}"], "TLS_CLIENT_CERT_REJECTED")


@pytest.fixture(scope="module")
def sasl_clients(tmp_path_factory, console_producer) -> dict[str, Captured]:
    jaas = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
            'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
    spec, sasl, internal = secured_spec("SASL_PLAINTEXT", **{
        "sasl.enabled.mechanisms": "PLAIN", "listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas})
    wrong_jaas = ("sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                  f'username="alice" password="{WRONG_PASSWORD}";')
    scram_jaas = ("sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                  'username="alice" password="alice-secret";')
    slow = 15000
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("sasl-broker")):
        bootstrap, plain = f"127.0.0.1:{sasl.port}", f"127.0.0.1:{internal.port}"
        sasl_plain = ("security.protocol=SASL_PLAINTEXT", "sasl.mechanisms=PLAIN", "sasl.username=alice")
        return run_clients("sasl", {
            "required.kcat_list": kcat_list(bootstrap),
            "required.console_producer": console_producer(bootstrap),
            "wrong_password.kcat_list": kcat_list(bootstrap, *sasl_plain, f"sasl.password={WRONG_PASSWORD}"),
            "wrong_password.console_producer": console_producer(
                bootstrap, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN", wrong_jaas, block_ms=slow),
            "wrong_mechanism.kcat_list": kcat_list(bootstrap, "security.protocol=SASL_PLAINTEXT",
                                                   "sasl.mechanisms=SCRAM-SHA-512", "sasl.username=alice",
                                                   "sasl.password=alice-secret"),
            "wrong_mechanism.console_producer": console_producer(
                bootstrap, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512", scram_jaas,
                block_ms=slow),
            "sasl_on_plaintext.kcat_list": kcat_list(plain, *sasl_plain, "sasl.password=alice-secret"),
        })


@pytest.mark.parametrize("client, expected", [
    ("required.kcat_list", "SASL_REQUIRED"),
    ("wrong_password.kcat_list", "SASL_AUTH_FAILED"),
    ("wrong_password.console_producer", "SASL_AUTH_FAILED"),
    ("wrong_mechanism.kcat_list", "SASL_MECHANISM_MISMATCH"),
    ("wrong_mechanism.console_producer", "SASL_MECHANISM_MISMATCH"),
    ("sasl_on_plaintext.kcat_list", "SASL_MECHANISM_MISMATCH"),
])
def test_sasl_mismatches_map_to_their_ids(sasl_clients, client, expected):
    assert_explains(sasl_clients[client], expected)


def test_java_client_without_sasl_only_says_disconnected_and_explain_does_not_pretend(sasl_clients):
    finding = assert_explains(sasl_clients["required.console_producer"], "ROUNDTRIP_FAILED")
    assert "TLS or SASL" in finding["explanation"]


@pytest.mark.parametrize("client", ["wrong_password.kcat_list", "wrong_password.console_producer"])
def test_a_pasted_password_never_comes_back(sasl_clients, client):
    captured = sasl_clients[client]
    assert WRONG_PASSWORD in captured.paste
    for args in (("--json",), ("--format", "text"), ("--format", "markdown")):
        run = run_kdiag("explain", *args, input=captured.paste)
        assert run.exit_code == 1, run.stderr
        assert WRONG_PASSWORD not in run.stdout + run.stderr


# --- a topic that does not exist, with auto-creation off ----------------------------------------------------


@pytest.fixture(scope="module")
def missing_topic_clients(tmp_path_factory, console_producer) -> dict[str, Captured]:
    spec = loopback_specs(1, overrides={"auto.create.topics.enable": "false"})[0]
    with KafkaBroker.start(spec, workdir=tmp_path_factory.mktemp("no-auto-create")) as broker:
        bootstrap = broker.bootstrap_servers
        return run_clients("topic_missing", {
            "kcat_consume": kcat_consume(bootstrap, topic="missing-topic"),
            "console_producer": console_producer(bootstrap, topic="missing-topic"),
        })


@pytest.mark.parametrize("client", ["kcat_consume", "console_producer"])
def test_missing_topic_is_topic_not_found(missing_topic_clients, client):
    finding = assert_explains(missing_topic_clients[client], "TOPIC_NOT_FOUND")
    assert finding["evidence"]["topic"] == "missing-topic"
    assert "--create --topic missing-topic" in finding["fix"]


# --- kdiag diff on two real reports: the same broker through two listeners ----------------------------------


def test_diff_of_internal_and_external_listener_reports_names_the_listener_and_the_name(ec2_broker, tmp_path):
    inside, outside = tmp_path / "internal.json", tmp_path / "external.json"
    for bootstrap, path in ((internal_bootstrap(ec2_broker), inside), (ec2_broker.bootstrap_servers, outside)):
        run = run_kdiag("bootstrap", bootstrap, "--no-roundtrip", "--output", str(path))
        assert run.exit_code in (0, 1), run.stderr
    run = run_kdiag("diff", str(inside), str(outside), "--json")
    assert run.exit_code == 1, run.stderr
    diff = json.loads(run.stdout)
    assert diff["schema"] == "kdiag.diff/1" and diff["same_cluster"] is True
    kinds = {(d["kind"], d["subject"]) for d in diff["differences"]}
    assert ("advertised", "broker 1") in kinds
    advertised = next(d for d in diff["differences"] if d["kind"] == "advertised")
    assert advertised["b"].startswith(EC2_INTERNAL) and "different listeners" in advertised["explanation"]
    assert "B (" in advertised["explanation"] and "cannot use" in advertised["explanation"]
    assert ("finding", "ADVERTISED_UNRESOLVABLE") in kinds
    assert [(f["id"], f["seen_from"]) for f in diff["findings"]] == [("ADVERTISED_UNRESOLVABLE", "b")]
    same = run_kdiag("diff", str(inside), str(inside))
    assert same.exit_code == 0, same.stderr + same.stdout
    assert "No differences" in same.stdout
