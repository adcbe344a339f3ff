"""What the real-client explain tests share (``test_explain_real_clients``, ``test_explain_go_js_clients``):
running a client and keeping what it printed as a customer would paste it, and asserting what
``kdiag explain`` makes of it. Their shared fixtures (``filtered_port``, ``certificates``) are in this
directory's ``conftest.py``."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path

from kdiag.lab.kafka import KafkaBroker, Listener, free_ports, loopback_specs
from tests.kdiag_cli import REPO, KdiagRun, run_kdiag

EC2_INTERNAL = "ip-172-31-18-160.us-west-2.compute.internal"
UNRESOLVABLE = "kafka-broker.invalid"  # RFC 6761: .invalid never resolves
TOPIC = "t"
WRONG_PASSWORD = "wrong-password-7f3a"
FIXTURES = REPO / "tests" / "fixtures" / "client_logs"
CLIENT_TIMEOUT = 25.0


@dataclass(frozen=True)
class Client:
    """One client run: what to execute, and the command line a customer would show for it."""

    argv: tuple[str, ...]
    shown: str  # the command as the customer typed it (kafka-console-producer.sh ..., a Python snippet)
    stdin: str = "hello\n"
    timeout: float = CLIENT_TIMEOUT


@dataclass(frozen=True)
class Captured:
    name: str
    shown: str
    output: str  # stdout and stderr as the terminal showed them, interleaved
    exit_code: int | None  # None: killed at its timeout (the Java producer hangs when idempotent)

    @property
    def paste(self) -> str:
        return f"$ {self.shown}\n{self.output}"

    def explain(self, *args: str) -> KdiagRun:
        return run_kdiag("explain", "--json", *args, input=self.paste, timeout=60)


def run_client(name: str, client: Client) -> Captured:
    with subprocess.Popen(client.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          start_new_session=True) as process:
        try:
            output, _ = process.communicate(client.stdin.encode(), timeout=client.timeout)
            code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            code = None
    return Captured(name, client.shown, output.decode("utf-8", errors="replace"), code)


def run_clients(scenario: str, clients: dict[str, Client]) -> dict[str, Captured]:
    """Runs every client at once (they mostly wait on timeouts) and keeps what each printed."""
    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        futures = {name: pool.submit(run_client, name, client) for name, client in clients.items()}
        captured = {name: future.result() for name, future in futures.items()}
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, result in captured.items():
            (FIXTURES / f"{scenario}.{name}.log").write_text(result.paste)
    return captured


@dataclass(frozen=True)
class Explained(Captured):
    """A capture with its ``kdiag explain --json`` run done ahead (all of them at once, not one per test)."""

    explained: KdiagRun | None = None

    def explain(self, *args: str) -> KdiagRun:
        return self.explained if self.explained is not None and not args else super().explain(*args)


def run_and_explain(scenarios: dict[str, dict[str, Client]]) -> dict[str, Explained]:
    """Every situation's clients at once, then ``kdiag explain`` on each paste, four at a time:
    ``{"<situation>.<library>": Explained}``."""
    with ThreadPoolExecutor(max_workers=len(scenarios)) as pool:
        futures = {name: pool.submit(run_clients, name, clients) for name, clients in scenarios.items()}
        runs = {f"{name}.{library}": run for name, future in futures.items() for library, run in future.result().items()}
    with ThreadPoolExecutor(max_workers=4) as pool:
        explained = {name: pool.submit(run.explain) for name, run in runs.items()}
        return {name: Explained(**vars(run), explained=explained[name].result()) for name, run in runs.items()}


# --- one broker, one listener per situation -------------------------------------------------------------


@dataclass(frozen=True)
class SituationPorts:
    """Every port a situations broker needs, from one ``free_ports`` call: ports from two calls may be one
    port (the first call's sockets are closed when the second binds), and Kafka refuses two listeners on one."""

    ec2: int
    controller: int
    internal: int
    dead: int
    dead_advertised: int  # DEAD's advertised port: nothing listens there
    tls: int
    sasl: int
    refused: int  # a refused bootstrap: nothing listens there

    @classmethod
    def allocate(cls) -> SituationPorts:
        return cls(*free_ports(len(fields(cls))))


@contextmanager
def situations_broker(workdir: Path, certificates: Path, ports: SituationPorts) -> Iterator[KafkaBroker]:
    """One broker with a listener per situation (auto-creation off, topic ``TOPIC`` made):

    | listener | what a client connecting there meets |
    |---|---|
    | INTERNAL (PLAINTEXT) | a healthy listener: a TLS client there, and a topic that does not exist |
    | EC2 (PLAINTEXT) | advertised as the seed's EC2 internal name, which does not resolve |
    | DEAD (PLAINTEXT) | advertised as 127.0.0.1 on a port nothing listens on |
    | SSL | TLS with a self-signed certificate for kafka.example.test only |
    | SASL_PLAINTEXT | SASL/PLAIN (user alice) |
    """
    jaas = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
            'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
    base = loopback_specs(1, ports=(ports.ec2, ports.controller))[0]
    ec2 = Listener("EC2", "127.0.0.1", ports.ec2)
    internal = Listener("INTERNAL", "127.0.0.1", ports.internal)
    dead = Listener("DEAD", "127.0.0.1", ports.dead)
    tls = Listener("SSL", "127.0.0.1", ports.tls, protocol="SSL")
    sasl = Listener("SASL_PLAINTEXT", "127.0.0.1", ports.sasl, protocol="SASL_PLAINTEXT")
    spec = replace(
        base, listeners=(ec2, internal, dead, tls, sasl), inter_broker_listener="INTERNAL",
        advertised=(internal, replace(ec2, host=EC2_INTERNAL), replace(dead, port=ports.dead_advertised), tls, sasl),
        overrides={"auto.create.topics.enable": "false",
                   "ssl.keystore.location": str(certificates / "broker.p12"), "ssl.keystore.password": "changeit",
                   "ssl.key.password": "changeit", "ssl.keystore.type": "PKCS12",
                   "sasl.enabled.mechanisms": "PLAIN", "listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas})
    with KafkaBroker.start(spec, workdir=workdir) as running:
        create_topic(running)  # through listeners[1], INTERNAL
        yield running


def at(broker: KafkaBroker, listener: str) -> str:
    """``127.0.0.1:PORT`` of the broker's listener named ``listener``."""
    port = next(listener_.port for listener_ in broker.spec.listeners if listener_.name == listener)
    return f"127.0.0.1:{port}"


def internal_bootstrap(broker: KafkaBroker) -> str:
    return f"127.0.0.1:{broker.spec.listeners[1].port}"


def create_topic(broker: KafkaBroker, topic: str = TOPIC) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": internal_bootstrap(broker)})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(30)


def assert_explains(captured: Captured, expected: str, *, exit_code: int = 1) -> dict:
    run = captured.explain()
    assert run.exit_code == exit_code, f"{captured.name}: {run.stderr}\n--- paste ---\n{captured.paste}"
    ids = [f["id"] for f in run.report["findings"]]
    assert ids[:1] == [expected], f"{captured.name}: got {ids}\n--- paste ---\n{captured.paste}"
    finding = run.report["findings"][0]
    assert finding["evidence"]["lines"], finding
    assert "kdiag bootstrap" in finding["fix"] or "kdiag bootstrap" in finding["evidence"]["confirm"]
    return finding
