"""Run the real ``kdiag`` entry point as a separate process, as a user would, and read its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class KdiagRun:
    exit_code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def report(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    def finding_ids(self) -> set[str]:
        return {f["id"] for f in self.report["findings"]}

    def finding(self, finding_id: str) -> dict[str, Any]:
        return next(f for f in self.report["findings"] if f["id"] == finding_id)

    def stage(self, name: str) -> dict[str, Any]:
        return next(s for s in self.report["stages"] if s["name"] == name)


def kdiag_argv(*args: str, netns: str | None = None, module: str = "kdiag") -> list[str]:
    argv = [sys.executable, "-m", module, *args]
    return ["ip", "netns", "exec", netns, *argv] if netns else argv


def run_kdiag(*args: str, netns: str | None = None, timeout: float = 60, input: str | None = None,
              extra_env: dict[str, str] | None = None, module: str = "kdiag") -> KdiagRun:
    """``extra_env``: variables added to this process's environment for the run; ``module``: the entry
    point run with ``python -m`` (``kdiag.fleet.ingest``: what ``spark-submit kdiag/fleet/ingest.py`` runs)."""
    import time

    env = {**os.environ, **(extra_env or {}),
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    started = time.monotonic()
    done = subprocess.run(kdiag_argv(*args, netns=netns, module=module), capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=REPO, input=input)
    return KdiagRun(done.returncode, done.stdout, done.stderr, time.monotonic() - started)
