"""The reports table's rules that need no Spark: the compaction rule applied after a crash (``settle``),
the committed batch read from the checkpoint, the trigger interval and the sources, what a run has
new to read (which decides its JVM's tuning)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kdiag.fleet import ingest
from kdiag.fleet.ingest import committed, new_input_bytes, parse_sources, settle, trigger_interval
from kdiag.fleet.inputs import InputError, KafkaInput


class LocalTable:
    """The part of ``kdiag.fleet.table.Table`` the rules use, on a local directory."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.reports = f"{root}/reports"
        self.rejected = f"{root}/rejected"
        self.checkpoint = f"{root}/_checkpoint"

    def children(self, directory: str) -> list[str]:
        return sorted(os.listdir(directory)) if os.path.isdir(directory) else []

    def delete(self, directory: str) -> None:
        shutil.rmtree(directory, ignore_errors=True)


def _dirs(root: Path, *names: str) -> None:
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)


def test_a_compacted_directory_covers_the_batches_within_its_range_after_a_crash(tmp_path: Path) -> None:
    """A crash between the compacted directory's rename and the deletes of what it covers: the next
    run deletes them, and keeps the batches after it, the compacted ones outside it, and other days'."""
    _dirs(tmp_path, "reports/day=2026-11-20/batch=3", "reports/day=2026-11-20/batch=c0-2",
          "reports/day=2026-11-20/batch=c3-7", "reports/day=2026-11-20/batch=7", "reports/day=2026-11-20/batch=8",
          "reports/day=2026-11-20/batch=c0-7", "reports/day=2026-11-20/batch=c9-9",
          "reports/day=2026-11-21/batch=5", "rejected/batch=2", "rejected/batch=c1-2", "_compacting/9-9/x")
    settle(LocalTable(tmp_path))  # type: ignore[arg-type]
    assert sorted(os.listdir(tmp_path / "reports/day=2026-11-20")) == ["batch=8", "batch=c0-7", "batch=c9-9"]
    assert os.listdir(tmp_path / "reports/day=2026-11-21") == ["batch=5"]
    assert os.listdir(tmp_path / "rejected") == ["batch=c1-2"]
    assert not (tmp_path / "_compacting").exists()


def test_the_committed_batch_is_the_checkpoints_newest_commit(tmp_path: Path) -> None:
    table = LocalTable(tmp_path)
    assert committed(table) == -1  # type: ignore[arg-type]
    for name in ("0", "1", "12", ".12.crc", "metadata"):
        (tmp_path / "_checkpoint" / "commits").mkdir(parents=True, exist_ok=True)
        (tmp_path / "_checkpoint" / "commits" / name).write_text("v1")
    assert committed(table) == 12  # type: ignore[arg-type]


def test_trigger_intervals_and_sources(tmp_path: Path) -> None:
    assert trigger_interval("30s") == "30 seconds" and trigger_interval("5m") == "5 minutes"
    assert trigger_interval("1h") == "1 hours"
    with pytest.raises(InputError):
        trigger_interval("0s")
    directories, topics = parse_sources([str(tmp_path), "kafka://b:9092/t", "s3a://bucket/in"])
    assert directories == (f"file://{tmp_path}", "s3a://bucket/in")
    assert [str(t) for t in topics] == ["kafka://b:9092/t"]


def test_what_is_new_is_the_report_files_the_checkpoints_file_source_logs_have_not_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, table = tmp_path / "in put", tmp_path / "table"
    _dirs(source, "day1", "_hidden", ".spool")
    for name, size in (("day1/a.jsonl", 100), ("day1/b.jsonl.gz", 20), ("c.json", 3), ("d.jsonl", 7),
                       ("notes.txt", 1000), ("_hidden/e.jsonl", 1000), (".spool/f.jsonl", 1000), ("_g.jsonl", 1000)):
        (source / name).write_bytes(b"x" * size)
    url, directories = f"file://{table}", [f"file://{source}"]
    assert new_input_bytes(url, directories, ()) == 130  # a new table: every report file
    log = table / "_checkpoint" / "sources" / "1"
    log.mkdir(parents=True)
    (log / "0").write_text('v1\n{"path":"file://%s/day1/a.jsonl","timestamp":1,"batchId":0}\n'
                           % str(source).replace(" ", "%20"))
    (table / "_checkpoint" / "sources" / "0").mkdir()
    (table / "_checkpoint" / "sources" / "0" / "9.compact").write_text(f'v1\n{{"path":"file://{source}/c.json"}}\n')
    assert new_input_bytes(url, directories, ()) == 27
    assert new_input_bytes(url, directories, (KafkaInput("b:9092", "t"),)) is None  # a topic: unknown
    assert new_input_bytes("hdfs:///t", directories, ()) is None
    assert new_input_bytes(url, ["s3a://bucket/in"], ()) is None
    monkeypatch.setattr(ingest, "SEEN_LOG_BYTES", 10)  # logs too large to read: unknown
    assert new_input_bytes(url, directories, ()) is None


def test_only_small_committed_batches_are_compacted_in_runs_that_span_no_other_batch() -> None:
    """A full batch's large directory is left as it is (rewriting it costs what writing it did), and
    no ``batch=cA-B`` may span it: settle would then delete it as covered."""
    small, large = 1 << 20, ingest.SMALL_BATCH_BYTES
    batches = [("batch=0", False, 0, 0, large), ("batch=1", False, 1, 1, small), ("batch=2", False, 2, 2, small),
               ("batch=3", False, 3, 3, large), ("batch=4", False, 4, 4, small), ("batch=5", False, 5, 5, small),
               ("batch=6", False, 6, 6, small)]
    runs = ingest.compaction_runs(batches, below=6, at_least=2)  # batch 6 is not committed yet
    assert runs == [[("batch=1", 1, 1), ("batch=2", 2, 2)], [("batch=4", 4, 4), ("batch=5", 5, 5)]]
    assert ingest.compaction_runs(batches[:2], below=9, at_least=2) == []  # one small batch: nothing to merge
    assert ingest.compaction_runs([("batch=0", False, 0, 0, large), ("batch=1", False, 1, 1, large)],
                                  below=9, at_least=2) == []  # a full ingest's batches stay as written
    done = [(f"batch=c{n}-{n}", True, n, n, large) for n in range(ingest.COMPACT_AT)]
    assert ingest.compaction_runs(done[:3] + [("batch=3", False, 3, 3, large)], below=9, at_least=2) == []
    assert ingest.compaction_runs(done, below=99, at_least=2) == [[(name, n, n) for name, _, n, _, _ in done]]
