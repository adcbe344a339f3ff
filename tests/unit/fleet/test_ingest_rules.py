"""The reports table's rules that need no Spark: the compaction rule applied after a crash (``settle``),
the committed batch read from the checkpoint, the trigger interval and the sources."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kdiag.fleet.ingest import committed, parse_sources, settle, trigger_interval
from kdiag.fleet.inputs import InputError


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
