"""The same job through a Spark standalone cluster (a master and two workers on loopback, started from
the pip-installed pyspark's spark-class) writes the same tables as local mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kdiag.fleet.standalone import StandaloneCluster
from kdiag.fleet.tables import TABLES
from tests.integration.fleet.conftest import SPARK_TIMEOUT
from tests.integration.fleet.support import differences, read_table
from tests.kdiag_cli import run_kdiag


@pytest.mark.timeout(1800)
def test_a_standalone_master_and_two_workers_give_the_same_tables_as_local_mode(
        fleet: Path, truth: dict[str, Any], tmp_path: Path) -> None:
    """The truth is what local mode gives (test_fleet_files), so equal to the truth is equal to local mode."""
    with StandaloneCluster.start(workers=2, cores=1, memory="1g", workdir=tmp_path / "spark") as cluster:
        out = tmp_path / "out"
        run = run_kdiag("fleet", "analyze", str(fleet / "reports"), str(fleet / "tickets" / "*.json"),
                        "--out", str(out), "--master", cluster.url, timeout=SPARK_TIMEOUT)
        assert run.exit_code == 0, run.stderr
        state = cluster.state() or {}
        assert state.get("aliveworkers") == 2
        assert any(app.get("name") == "kdiag fleet" for app in state.get("completedapps", []) + state.get(
            "activeapps", [])), "the job did not run on the cluster"
    for table in TABLES:
        assert differences(table, read_table(out, table), truth["tables"][table]) == [], table
