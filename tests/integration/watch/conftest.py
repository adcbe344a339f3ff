"""Helpers for the kdiag watch tests: the agent as a real subprocess, its HTTP endpoints, the reports
its sinks wrote, and a real Prometheus server. Nothing skips: a missing tool fails the test."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kdiag.lab.kafka import free_ports

SECRET = "s3cr3t-Pa55word-for-watch"  # a SASL password that must never appear in any output


class WatchAgent:
    """``kdiag watch`` running as its own process, its stdout and stderr in files."""

    def __init__(self, args: list[str], *, workdir: Path, env: dict[str, str] | None = None) -> None:
        [self.port] = free_ports(1)
        self.url = f"http://127.0.0.1:{self.port}"
        self.stdout_path = workdir / "watch.stdout"
        self.stderr_path = workdir / "watch.stderr"
        environ = {k: v for k, v in os.environ.items() if not k.startswith("KDIAG_")}
        environ.update(env or {})
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kdiag", "watch", *args, "--listen", f"127.0.0.1:{self.port}"],
                stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=environ)

    def get(self, path: str, *, headers: dict[str, str] | None = None, timeout: float = 15.0) -> tuple[int, str]:
        request = urllib.request.Request(self.url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
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

    def start(*args: str, env: dict[str, str] | None = None) -> WatchAgent:
        workdir = tmp_path / f"agent{len(agents)}"
        workdir.mkdir()
        agent = WatchAgent(list(args), workdir=workdir, env=env)
        agents.append(agent)
        return agent

    yield start
    for agent in agents:
        agent.stop()


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
