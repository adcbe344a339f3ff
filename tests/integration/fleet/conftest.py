"""Fixtures of the fleet tests: one generated fleet with its truth, analyzed once in local mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdiag.fleet.generate import TRUTH, GenerateOptions, generate
from tests.kdiag_cli import KdiagRun, run_kdiag

SPARK_TIMEOUT = 1500


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated fleet: 6 clusters (every seed scenario once), 8 vantages, 4000 reports."""
    out = tmp_path_factory.mktemp("fleet") / "generated"
    generate(GenerateOptions(reports=4000, clusters=6, vantages=8, out=out, seed=7))
    return out


@pytest.fixture(scope="session")
def truth(fleet: Path) -> dict[str, Any]:
    return json.loads((fleet / TRUTH).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def local_run(fleet: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[KdiagRun, Path]:
    """``kdiag fleet analyze`` in local mode over the generated files (directories and a glob)."""
    out = tmp_path_factory.mktemp("local") / "out"
    run = run_kdiag("fleet", "analyze", str(fleet / "reports"), str(fleet / "tickets" / "*.json"), "--out", str(out),
                    timeout=SPARK_TIMEOUT)
    assert run.exit_code == 0, run.stderr
    return run, out
