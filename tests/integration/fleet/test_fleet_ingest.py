"""``kdiag fleet ingest``: report directories and a real broker's topic into the reports table, each
record exactly once although the ingest is killed (kill -9) in the middle of a run and run again;
new files ingested incrementally; and ``kdiag fleet analyze --table`` gives the same tables, terminal
summary and report.html as ``kdiag fleet analyze`` of the raw files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kdiag.fleet.tables import TABLES
from kdiag.lab.kafka import KafkaBroker
from tests.integration.fleet.conftest import SPARK_TIMEOUT
from tests.integration.fleet.support import (differences, expected_records, read_table, source_records,
                                             table_contents)
from tests.integration.fleet.test_fleet_kafka import fleet_records, produce_records
from tests.kdiag_cli import KdiagRun, run_kdiag
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(2400)

KILL_TIMEOUT = 900




def _ingest_killed_after_the_first_batch(args: list[str], table: Path, log: Path) -> None:
    """Starts ``kdiag fleet ingest ARGS --once``, and kills it (its process group: Python and Spark's
    JVM, as a crash would) with SIGKILL as soon as its first batch is committed, before the last."""
    environ = {**os.environ, "PYTHONPATH": os.getcwd()}
    with log.open("wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "kdiag", "fleet", "ingest", *args, "--table", str(table),
                                    "--once"], stdout=subprocess.DEVNULL, stderr=stderr, stdin=subprocess.DEVNULL,
                                   start_new_session=True, env=environ)
    commits = table / "_checkpoint" / "commits"

    def first_commit() -> bool:
        assert process.poll() is None, f"ingest ended before its first batch: {log.read_text()[-3000:]}"
        return (commits / "0").exists()

    try:
        wait_until(first_commit, KILL_TIMEOUT, "ingest committed no batch")
        assert process.poll() is None, "ingest finished before it could be killed"
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
    assert process.returncode == -signal.SIGKILL


def _ingest(*args: str) -> KdiagRun:
    run = run_kdiag("fleet", "ingest", *args, "--once", timeout=SPARK_TIMEOUT)
    assert run.exit_code == 0, run.stderr
    return run


def _summary(run: KdiagRun) -> str:
    return run.stdout.split("Tables and report.html written to")[0]


@pytest.fixture(scope="module")
def file_table(fleet: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The generated reports copied to a spool directory, ingested with a kill -9 in the middle, then
    again to the end: (the source directory, the table)."""
    base = tmp_path_factory.mktemp("ingest")
    source = base / "incoming"
    shutil.copytree(fleet / "reports", source / "reports")
    shutil.copytree(fleet / "tickets", source / "tickets")
    table = base / "table"
    _ingest_killed_after_the_first_batch([str(source), "--max-files-per-batch", "1"], table, base / "killed.log")
    _ingest(str(source), "--table", str(table), "--max-files-per-batch", "1")
    return source, table



def test_files_killed_mid_ingest_and_run_again_land_exactly_once(file_table: tuple[Path, Path]) -> None:
    source, table = file_table
    keys, rejected = expected_records(source_records(source))
    got, got_rejected, batches = table_contents(table)
    assert got == keys and got_rejected == rejected == 6
    assert len(batches) == 1, batches  # the day's batches compacted into one directory


def test_analyze_table_gives_the_same_tables_summary_and_html_as_the_raw_files(
        file_table: tuple[Path, Path], local_run: tuple[KdiagRun, Path], fleet: Path, truth: dict[str, Any],
        tmp_path: Path) -> None:
    source, table = file_table
    out = tmp_path / "out"
    run = run_kdiag("fleet", "analyze", "--table", str(table), "--out", str(out), timeout=SPARK_TIMEOUT)
    assert run.exit_code == 0, run.stderr
    for name in TABLES:
        assert differences(name, read_table(out, name), truth["tables"][name]) == [], name
    raw_run, raw_out = local_run
    assert _summary(run) == _summary(raw_run)
    page = (out / "report.html").read_text(encoding="utf-8")  # the rejected records' sources: the copy's files
    raw_page = (raw_out / "report.html").read_text(encoding="utf-8")
    assert page.replace(str(source), "SOURCE") == raw_page.replace(str(fleet), "SOURCE")


def test_since_and_until_read_only_their_days_of_the_table(file_table: tuple[Path, Path], tmp_path: Path) -> None:
    _, table = file_table
    run = run_kdiag("fleet", "analyze", "--table", str(table), "--out", str(tmp_path / "out"),
                    "--since", "2026-11-21T00:00:00Z", timeout=SPARK_TIMEOUT)
    assert run.exit_code == 0, run.stderr
    assert read_table(tmp_path / "out", "vantages") == []  # every generated report is of 2026-11-20


def test_new_files_are_ingested_incrementally_and_the_old_ones_stay_once(file_table: tuple[Path, Path],
                                                                         tmp_path: Path) -> None:
    source, ingested = file_table
    table = tmp_path / "table"  # a copy: the other tests read the table as the generated files made it
    shutil.copytree(ingested, table)
    before, _, _ = table_contents(table)
    late = []
    for n in range(40):  # a spool delivering hours late: reports of a day long gone, and one duplicate
        data = {"schema": "kdiag.report/1", "report_id": f"late-{n}", "generated_at": f"2026-11-1{n % 3}T08:00:00Z",
                "vantage": {"label": "k8s/late/app"}, "bootstrap": [{"host": "late.example.com", "port": 9092}]}
        late.append(json.dumps(data))
    new = source / "reports" / "spool-late.jsonl"
    new.write_text("\n".join(late + late[:1]) + "\n", encoding="utf-8")
    try:
        _ingest(str(source), "--table", str(table), "--max-files-per-batch", "1")
    finally:
        new.unlink()
    after, _, batches = table_contents(table)
    assert after == before + Counter({f"late-{n}": 1 for n in range(40)}) + Counter({"late-0": 1})
    assert {b.split("/")[0] for b in batches} >= {"day=2026-11-10", "day=2026-11-11", "day=2026-11-12"}


@pytest.mark.broker
def test_a_topic_killed_mid_ingest_and_run_again_lands_exactly_once(kafka_broker: KafkaBroker, fleet: Path,
                                                                    truth: dict[str, Any], tmp_path: Path) -> None:
    topic = "kdiag-fleet-ingest"
    records = fleet_records(fleet)
    produce_records(kafka_broker.bootstrap_servers, topic, records)
    source = f"kafka://{kafka_broker.bootstrap_servers}/{topic}"
    table = tmp_path / "table"
    _ingest_killed_after_the_first_batch([source, "--max-records-per-batch", "600"], table, tmp_path / "killed.log")
    _ingest(source, "--table", str(table), "--max-records-per-batch", "600")
    keys, rejected = expected_records(records)
    got, got_rejected, _ = table_contents(table)
    assert got == keys and got_rejected == rejected
    out = tmp_path / "out"
    run = run_kdiag("fleet", "analyze", "--table", str(table), "--out", str(out), timeout=SPARK_TIMEOUT)
    assert run.exit_code == 0, run.stderr
    for name in TABLES:
        if name != "rejected":  # the rejected table's source is the topic, not the files
            assert differences(name, read_table(out, name), truth["tables"][name]) == [], name


def test_a_table_of_other_sources_is_refused_in_one_line(file_table: tuple[Path, Path], tmp_path: Path) -> None:
    _, table = file_table
    other = tmp_path / "other"
    other.mkdir()
    run = run_kdiag("fleet", "ingest", str(other), "--table", str(table), "--once", timeout=SPARK_TIMEOUT)
    assert run.exit_code == 2 and run.stderr.count("\n") == 1 and "same sources" in run.stderr, run.stderr
