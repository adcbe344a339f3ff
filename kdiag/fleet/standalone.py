"""A Spark standalone cluster on loopback from the pip-installed pyspark: a master and N workers
started with ``bin/spark-class`` (the pip package has no ``sbin/`` scripts), for the tests and the
benchmark to run the fleet job through ``--master spark://127.0.0.1:PORT`` exactly as on a real cluster.

    with StandaloneCluster.start(workers=2, workdir=tmp) as cluster:
        run(["kdiag", "fleet", "analyze", ..., "--master", cluster.url])
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kdiag.lab.kafka import free_ports

START_TIMEOUT_S = 180.0


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def spark_class(*args: str) -> list[str]:
    return [str(spark_home() / "bin" / "spark-class"), *args]


@dataclass
class StandaloneCluster:
    url: str
    ui_port: int
    workdir: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @classmethod
    def start(cls, *, workers: int = 2, cores: int = 1, memory: str = "1g", workdir: Path,
              timeout: float = START_TIMEOUT_S) -> StandaloneCluster:
        """A master and ``workers`` workers, each with ``cores`` cores and ``memory``; waits until every
        worker has registered. Raises RuntimeError (with the logs' tail) when they do not come up."""
        workdir.mkdir(parents=True, exist_ok=True)
        port, ui_port, *worker_ui_ports = free_ports(2 + workers)  # one call: two may hand out one port twice
        env = {**os.environ, "SPARK_HOME": str(spark_home()), "SPARK_LOCAL_IP": "127.0.0.1",
               "SPARK_LOG_DIR": str(workdir), "SPARK_WORKER_DIR": str(workdir / "work")}
        cluster = cls(f"spark://127.0.0.1:{port}", ui_port, workdir)
        try:
            cluster._spawn("master", spark_class("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                                 "--port", str(port), "--webui-port", str(ui_port)), env)
            cluster._wait(lambda: cluster.state() is not None, timeout, "the master")
            for n in range(workers):
                cluster._spawn(f"worker{n}", spark_class(
                    "org.apache.spark.deploy.worker.Worker", cluster.url, "--host", "127.0.0.1",
                    "--cores", str(cores), "--memory", memory, "--webui-port", str(worker_ui_ports[n]),
                    "--work-dir", str(workdir / f"worker{n}")), env)
            cluster._wait(lambda: (cluster.state() or {}).get("aliveworkers") == workers, timeout,
                          f"{workers} workers registered")
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _spawn(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        with open(self.workdir / f"{name}.log", "wb") as log:
            self.processes.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL, env=env))

    def _wait(self, ready: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.processes):
                break
            if ready():
                return
            time.sleep(0.5)
        logs = "".join(path.read_text(errors="replace")[-1500:] for path in sorted(self.workdir.glob("*.log")))
        raise RuntimeError(f"Spark standalone: {what} not up within {timeout:.0f} s: {logs}")

    def state(self) -> dict[str, Any] | None:
        """The master's /json state (aliveworkers, cores, ...), or None while it does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as answer:
                return json.loads(answer.read())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def __enter__(self) -> StandaloneCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
