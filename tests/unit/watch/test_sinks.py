"""The directory sink and the spool: whole lines only, bounded, in order, recovered after a crash."""

from __future__ import annotations

import json
from pathlib import Path

from kdiag.sinks import ReportLine, SinkStats
from kdiag.sinks.directory import DirectorySink
from kdiag.sinks.spool import Spool


def line(sequence: int, size: int = 100) -> ReportLine:
    body = json.dumps({"agent": {"sequence": sequence}, "pad": "x" * size})
    return ReportLine(f"id-{sequence}", sequence, body)


def test_directory_sink_seals_segments_by_size_keeps_max_files_and_seals_on_close(tmp_path: Path) -> None:
    logged: list[str] = []
    sink = DirectorySink(tmp_path, max_bytes=1024, max_files=3, max_age=3600, log=logged.append)
    for sequence in range(1, 31):
        sink.deliver(line(sequence))
    sink.close(1.0)
    sealed = sorted(tmp_path.glob("*.jsonl"))
    assert len(sealed) == 3
    sequences = [json.loads(text)["agent"]["sequence"] for path in sealed for text in path.read_text().splitlines()]
    assert sequences == list(range(sequences[0], 31))
    assert all(path.stat().st_size <= 1024 for path in sealed)
    assert not list(tmp_path.glob(".open-*"))
    assert sink.stats.delivered == 30 and logged == []


def test_directory_sink_cuts_a_half_written_report_left_by_a_crash_and_seals_the_rest(tmp_path: Path) -> None:
    crashed = tmp_path / ".open-20261125T100000000Z.jsonl.partial"
    crashed.write_text(line(7).json + "\n" + line(8).json + "\n" + line(9).json[:40])
    logged: list[str] = []
    DirectorySink(tmp_path, max_bytes=1 << 20, max_files=10, max_age=3600, log=logged.append)
    (sealed,) = tmp_path.glob("*.jsonl")
    assert sealed.name == "reports-20261125T100000000Z-000000000007.jsonl"
    assert [json.loads(t)["agent"]["sequence"] for t in sealed.read_text().splitlines()] == [7, 8]
    assert "cut" in logged[0]


def test_spool_drop_oldest_keeps_the_newest_reports_within_its_bound(tmp_path: Path) -> None:
    stats = SinkStats()
    spool = Spool(tmp_path, max_bytes=1000, when_full="drop-oldest", stats=stats, log=lambda _: None)
    for sequence in range(1, 21):
        spool.put(line(sequence))
    batch = spool.take(100)
    kept = [json.loads(data)["agent"]["sequence"] for _path, data in batch]
    assert kept == list(range(21 - len(kept), 21))
    assert stats.spool_bytes <= 1000 and stats.spooled == len(kept)
    assert stats.dropped["spool_full"] == 20 - len(kept)


def test_spool_drop_newest_refuses_new_reports_and_replays_in_order_after_a_restart(tmp_path: Path) -> None:
    stats = SinkStats()
    logged: list[str] = []
    spool = Spool(tmp_path, max_bytes=1000, when_full="drop-newest", stats=stats, log=logged.append)
    accepted = [spool.put(line(sequence)) for sequence in range(1, 21)]
    assert accepted.count(True) == len(spool) and not accepted[-1]
    assert len(logged) == 1, "a full spool is logged once"
    again = Spool(tmp_path, max_bytes=1000, when_full="drop-newest", stats=SinkStats(), log=lambda _: None)
    batch = again.take(2)
    assert [json.loads(data)["agent"]["sequence"] for _path, data in batch] == [1, 2]
    again.done(batch[0][0], delivered=True)
    again.done(batch[1][0], delivered=False)
    assert [json.loads(d)["agent"]["sequence"] for _p, d in again.take(1)] == [2]
