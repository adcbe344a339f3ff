"""``kdiag fleet ingest`` without ``--once``: the continuous mode a platform team runs beside its
sidecars. It ingests what is there, then every ``--trigger`` interval what arrived since (a report
spool delivering a day late included), until SIGTERM stops it: it then compacts and exits 0 (it
ended in a Py4JError, "internal error", before the stop moved out of the signal handler), every
record in the table once."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.integration.fleet.support import expected_records, source_records, table_contents
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(1800)

ARRIVAL_TIMEOUT = 600


def _late_reports(count: int) -> list[str]:
    return [json.dumps({"schema": "kdiag.report/1", "report_id": f"spooled-{n}", "generated_at": "2026-11-02T03:00:00Z",
                        "vantage": {"label": "k8s/spooled/app"}, "bootstrap": [{"host": "k.example.com", "port": 9092}]})
            for n in range(count)]


def test_a_continuous_ingest_takes_new_files_as_they_arrive_and_stops_cleanly_on_sigterm(fleet: Path,
                                                                                       tmp_path: Path) -> None:
    source = tmp_path / "incoming"
    first = sorted((fleet / "reports").glob("*.jsonl*"))[0]
    (source / "reports").mkdir(parents=True)
    shutil.copy(first, source / "reports" / first.name)
    table = tmp_path / "table"
    log = tmp_path / "ingest.log"
    environ = {**os.environ, "PYTHONPATH": os.getcwd()}
    with log.open("wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "kdiag", "fleet", "ingest", str(source), "--table",
                                    str(table), "--trigger", "2s"], stdout=subprocess.PIPE, stderr=stderr,
                                   stdin=subprocess.DEVNULL, start_new_session=True, env=environ)

    def has(keys: Counter[str]) -> bool:
        """The table holds ``keys``, read between two batches (a batch being written is not read)."""
        import duckdb

        assert process.poll() is None, f"ingest ended by itself: {log.read_text()[-3000:]}"
        commits = table / "_checkpoint" / "commits"
        if not commits.is_dir() or not any(commits.iterdir()):
            return False
        try:
            return table_contents(table)[0] >= +keys
        except duckdb.Error:  # files of the next batch appearing while they are listed
            return False

    try:
        first_keys, _ = expected_records(source_records(source))
        wait_until(lambda: has(first_keys), ARRIVAL_TIMEOUT, lambda: f"the first file: {log.read_text()[-3000:]}")
        late = _late_reports(25)
        arriving = source / "reports" / ".spool-late.jsonl.tmp"  # hidden while written, as a spool writes
        arriving.write_text("\n".join([*late, late[0]]) + "\n", encoding="utf-8")
        arriving.rename(source / "reports" / "spool-late.jsonl")
        every, rejected = expected_records(source_records(source))
        wait_until(lambda: has(every), ARRIVAL_TIMEOUT, lambda: f"the late file: {log.read_text()[-3000:]}")
        process.send_signal(signal.SIGTERM)
        stdout, _ = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)
    assert process.returncode == 0, log.read_text()[-3000:]
    assert "ingested" in stdout.decode()
    keys, rows_rejected, batches = table_contents(table)
    assert keys == every and every["spooled-0"] == 2 and rows_rejected == rejected
    assert any(batch.startswith("day=2026-11-02/") for batch in batches)  # a day long gone, not dropped
    assert "internal error" not in log.read_text() and "Traceback" not in log.read_text()
