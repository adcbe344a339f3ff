"""What the real-client explain tests share (``test_explain_real_clients``, ``test_explain_go_js_clients``):
running a client and keeping what it printed as a customer would paste it, and asserting what
``kdiag explain`` makes of it. Their shared fixtures (``filtered_port``, ``certificates``) are in this
directory's ``conftest.py``."""

from __future__ import annotations

import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from kdiag.lab.kafka import KafkaBroker
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
