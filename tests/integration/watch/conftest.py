"""Helpers for the kdiag watch tests: the agent as a real subprocess, its HTTP endpoints, the reports
its sinks wrote, and a real Prometheus server. Nothing skips: a missing tool fails the test."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kdiag.lab.kafka import free_ports

SECRET = "s3cr3t-Pa55word-for-watch"  # a SASL password that must never appear in any output


class WatchAgent:
    """``kdiag watch`` running as its own process, its stdout and stderr in files."""

    def __init__(self, args: list[str], *, workdir: Path, env: dict[str, str] | None = None,
                 tls: ssl.SSLContext | None = None, auth: tuple[str, str] | None = None) -> None:
        """``tls`` (the context to trust the agent's certificate with) and ``auth`` (a basic-auth user
        and password) for an agent started with --web-config-file."""
        [self.port] = free_ports(1)
        self.tls = tls
        self.url = f"{'https' if tls is not None else 'http'}://127.0.0.1:{self.port}"
        self.headers = {"Authorization": "Basic " + base64.b64encode(":".join(auth).encode()).decode()} if auth else {}
        self.stdout_path = workdir / "watch.stdout"
        self.stderr_path = workdir / "watch.stderr"
        environ = {k: v for k, v in os.environ.items() if not k.startswith("KDIAG_")}
        environ.update(env or {})
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kdiag", "watch", *args, "--listen", f"127.0.0.1:{self.port}"],
                stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=environ)

    def get(self, path: str, *, headers: dict[str, str] | None = None, timeout: float = 15.0) -> tuple[int, str]:
        request = urllib.request.Request(self.url + path, headers={**self.headers, **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self.tls) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def wait_ready(self, timeout: float = 60.0) -> None:
        self.wait_for(lambda: self.get("/readyz")[0] == 200, timeout, "/readyz never answered 200")

    def wait_for(self, condition, timeout: float, what: str, *, step: float = 0.1) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"kdiag watch exited {self.process.returncode}: {self.stderr()}"
            try:
                if condition():
                    return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(step)
        raise AssertionError(f"{what} within {timeout} s; stderr: {self.stderr()[-2000:]}")

    def metric(self, name: str, labels: str = "") -> float | None:
        """One sample of /metrics (``labels`` as written inside the braces, in the order exposed)."""
        _status, text = self.get("/metrics")
        return sample(text, name, labels)

    def terminate(self, signum: int = signal.SIGTERM, timeout: float = 10.0) -> tuple[int, float]:
        """Send ``signum``; the exit status and how long the process took to exit."""
        started = time.monotonic()
        self.process.send_signal(signum)
        code = self.process.wait(timeout)
        return code, time.monotonic() - started

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def sample(text: str, name: str, labels: str = "") -> float | None:
    wanted = f"{name}{{{labels}}}" if labels else name
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        if key == wanted:
            return float(value)
    return None


def directory_reports(directory: Path) -> list[dict]:
    """Every report of the sealed ``*.jsonl`` segments, in file order, each line a whole JSON report."""
    reports = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            reports.append(json.loads(line))
    return reports


def topic_reports(bootstrap: str, topic: str, *, expect: int, timeout: float = 60.0) -> list[dict]:
    """The reports on ``topic`` (read from the beginning until ``expect`` distinct ones arrived or ``timeout``)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kdiag-watch-test", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    try:
        metadata = consumer.list_topics(topic, timeout=10)
        partitions = list(metadata.topics[topic].partitions)
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        values: list[dict] = []
        ids: set[str] = set()
        deadline = time.monotonic() + timeout
        while len(ids) < expect and time.monotonic() < deadline:  # at least once: count distinct reports
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            values.append(json.loads(message.value()))
            ids.add(values[-1]["report_id"])
        return values
    finally:
        consumer.close()


@pytest.fixture
def start_watch(tmp_path: Path) -> Iterator:
    agents: list[WatchAgent] = []

    def start(*args: str, env: dict[str, str] | None = None, **access) -> WatchAgent:
        workdir = tmp_path / f"agent{len(agents)}"
        workdir.mkdir()
        agent = WatchAgent(list(args), workdir=workdir, env=env, **access)
        agents.append(agent)
        return agent

    yield start
    for agent in agents:
        agent.stop()


@contextmanager
def prometheus_server(config: Path, workdir: Path) -> Iterator[Callable[[str], list[dict]]]:
    """A real Prometheus with ``config``, its data and log in ``workdir``: yields its query function
    (PromQL in, the result vector out; OSError while it is not yet up)."""
    [port] = free_ports(1)
    log_path = workdir / "prometheus.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(["prometheus", f"--config.file={config}", f"--storage.tsdb.path={workdir / 'tsdb'}",
                                   f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT)

    def query(expression: str) -> list[dict]:
        assert server.poll() is None, log_path.read_text()[-2000:]
        url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
        with urllib.request.urlopen(url, timeout=10) as answer:
            body = json.load(answer)
        assert body["status"] == "success", body
        return body["data"]["result"]

    try:
        yield query
    finally:
        server.terminate()
        server.wait(10)


def wait_for_results(query: Callable[[str], list[dict]], expressions: dict[str, str],
                     done: Callable[[dict[str, list[dict]]], bool], timeout: float = 90.0) -> dict[str, list[dict]]:
    """Ask every expression until ``done`` holds for the results (or ``timeout`` passes): the last results."""
    deadline = time.monotonic() + timeout
    results: dict[str, list[dict]] = {}
    while time.monotonic() < deadline:
        try:
            results = {name: query(expression) for name, expression in expressions.items()}
        except OSError:  # not up yet
            time.sleep(0.5)
            continue
        if done(results):
            break
        time.sleep(0.5)
    return results


def promtool() -> str:
    tool = shutil.which("promtool")
    assert tool, "promtool not found: scripts/setup installs Debian's prometheus package"
    return tool


def check_metrics(text: str) -> str:
    """``promtool check metrics`` on ``text``: its complaints ('' when clean)."""
    done = subprocess.run([promtool(), "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    return (done.stdout + done.stderr).strip()


SEQUENCE = re.compile(r'"sequence": (\d+)')
