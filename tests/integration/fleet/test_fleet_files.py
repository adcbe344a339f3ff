"""``kdiag fleet analyze`` on generated report files in Spark local mode: every table equals the
generator's ground truth, the rejected lines are counted and scrubbed, and the views say what matters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kdiag.fleet.tables import TABLES
from tests.integration.fleet.support import differences, read_table, read_tables
from tests.kdiag_cli import KdiagRun

pytestmark = pytest.mark.timeout(1800)  # the session's Spark run happens in the first test that asks for it


@pytest.mark.parametrize("table", list(TABLES))
def test_every_table_equals_the_ground_truth(local_run: tuple[KdiagRun, Path], truth: dict[str, Any],
                                             table: str) -> None:
    _, out = local_run
    assert differences(table, read_table(out, table), truth["tables"][table]) == []


def test_the_planted_scenarios_become_incidents_with_an_ongoing_one(local_run: tuple[KdiagRun, Path],
                                                                    truth: dict[str, Any]) -> None:
    _, out = local_run
    incidents = read_table(out, "incidents")
    planted_clusters = {p["cluster"] for p in truth["planted"]}
    assert {i["cluster"] for i in incidents} == planted_clusters
    ongoing = [i for i in incidents if i["resolved"] is None]
    assert {i["finding_id"] for i in ongoing} == {"BOOTSTRAP_REFUSED"}  # the whole cluster down, still down
    expected = {"ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE", "ADVERTISED_LOOPBACK", "PARTIAL_CLUSTER",
                "BOOTSTRAP_REFUSED"}
    assert expected <= {i["finding_id"] for i in incidents}
    for incident in incidents:  # each planted outage on a cluster starts at an affected vantage's first broken report
        starts = [p for p in truth["planted"] if p["cluster"] == incident["cluster"]]
        assert starts and incident["peak_vantages"] <= incident["vantages"]


def test_duplicates_and_ticket_copies_are_counted_once(local_run: tuple[KdiagRun, Path], truth: dict[str, Any]) -> None:
    _, out = local_run
    vantages = read_table(out, "vantages")
    assert sum(v["reports"] for v in vantages) == truth["generator"]["reports"]


def test_rejected_lines_are_counted_and_their_secrets_scrubbed(local_run: tuple[KdiagRun, Path]) -> None:
    run, out = local_run
    rejected = read_table(out, "rejected")
    assert {r["reason"] for r in rejected} == {"not_json", "not_a_report", "schema_version", "bad_field"}
    samples = [s for r in rejected for s in r["sample"]]
    assert any("sasl.password=" in s for s in samples)
    assert not any("hunter2" in s for s in samples)
    assert "hunter2" not in run.stdout + run.stderr + (out / "report.html").read_text(encoding="utf-8")


def test_the_summary_names_the_ongoing_incident_the_stale_vantage_and_the_rejected(
        local_run: tuple[KdiagRun, Path], truth: dict[str, Any]) -> None:
    run, _ = local_run
    assert "Ongoing incidents" in run.stdout and "BOOTSTRAP_REFUSED" in run.stdout
    stale = [v["vantage"] for v in truth["tables"]["vantages"] if v["stale"]]
    assert stale and all(v in run.stdout for v in stale)
    assert "Rejected input: 6 records" in run.stdout
    assert "WARN" not in run.stderr and "INFO" not in run.stderr  # Spark stays quiet without --verbose


def test_the_tables_are_parquet_with_the_documented_columns(local_run: tuple[KdiagRun, Path]) -> None:
    _, out = local_run
    tables = read_tables(out)  # read_table asserts each table's columns, in order
    assert set(tables) == set(TABLES)
    assert (out / "report.html").is_file()


def test_one_report_id_on_two_different_reports_counts_once(tmp_path: Path) -> None:
    """Copies sit side by side in the job's windowed pass and are dropped there; a report id reused by
    two reports of different vantages does not, and the job de-duplicates by key first instead."""
    import json as _json

    from tests.kdiag_cli import run_kdiag
    from tests.unit.fleet.test_reference import report

    lines = [report(0, "a", rid="same")[1], report(5, "b", rid="same")[1], report(9, "a")[1], report(9, "a")[1]]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = run_kdiag("fleet", "analyze", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out"), timeout=1500)
    assert run.exit_code == 0, run.stderr
    assert sum(v["reports"] for v in read_table(tmp_path / "out", "vantages")) == 2
    assert _json.loads(lines[2])["report_id"] == _json.loads(lines[3])["report_id"]


def test_verbose_shows_sparks_own_info_log(tmp_path: Path) -> None:
    """``--verbose`` shows Spark's INFO log: Spark 4.0's console filter for shells (PySpark is one to it) dropped it
    after setLogLevel("INFO"), so --verbose showed only warnings; a level set by logger name passes the filter."""
    from kdiag.fleet.generate import GenerateOptions, generate
    from tests.kdiag_cli import run_kdiag

    generate(GenerateOptions(reports=200, clusters=2, vantages=2, out=tmp_path / "fleet", seed=3))
    run = run_kdiag("fleet", "analyze", str(tmp_path / "fleet"), "--out", str(tmp_path / "out"), "--verbose",
                    timeout=600)
    assert run.exit_code == 0, run.stderr[-2000:]
    assert " INFO SparkContext: " in run.stderr or " INFO DAGScheduler: " in run.stderr
