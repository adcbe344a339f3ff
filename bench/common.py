"""Shared pieces of the benchmarks: timing whole processes, and the results files.

Every benchmark measures kdiag and its reference (kcat, tshark, the Kafka console tools, a default
confluent-kafka client) in the same run on the same machine and records the ratio. Results go to
``bench/results/<name>.json``; ``python -m bench.report`` renders them all into BENCHMARKS.md.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


def ensure_bytecode() -> None:
    """Compile kdiag's modules as ``pip install`` does, so a measured run is an installed run.

    A source checkout run with PYTHONDONTWRITEBYTECODE=1 (as this project's machines are) would
    otherwise compile every module on every start, ~30 ms that no installed kdiag pays.
    """
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "kdiag"), str(REPO / "probes")],
                   check=True, capture_output=True)


def kdiag_argv(*args: str) -> list[str]:
    """The installed console script, as a user runs it (falls back to python -m kdiag)."""
    script = Path(sys.executable).with_name("kdiag")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "kdiag", *args]


def wall(argv: Sequence[str], *, timeout: float = 600, env: dict | None = None,
         ok_codes: Sequence[int] | None = (0,)) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    seconds = time.perf_counter() - started
    if ok_codes is not None and done.returncode not in ok_codes:
        raise RuntimeError(f"{argv[0]} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds, done


def median_wall(argv: Sequence[str], *, runs: int, warmup: int = 2, **kwargs) -> dict:
    for _ in range(warmup):
        wall(argv, **kwargs)
    samples = [wall(argv, **kwargs)[0] for _ in range(runs)]
    return summarise(samples)


def summarise(samples: Sequence[float]) -> dict:
    return {"median_s": round(statistics.median(samples), 4), "min_s": round(min(samples), 4),
            "max_s": round(max(samples), 4), "runs": len(samples)}


def machine() -> dict:
    return {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "kernel": platform.release()}


def write_results(name: str, results: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    results = {"benchmark": name, "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "machine": machine(), **results}
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {path.relative_to(REPO)}")
    return path
