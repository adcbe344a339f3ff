"""A bounded on-disk spool: reports waiting for the topic, one file each, replayed oldest first.

Each report is written to a temporary file and renamed to ``<counter>.json`` (a 16-digit counter
that goes on from the highest file found at start), so a crash leaves whole reports or none, and
the names sort in arrival order. The spool holds at most ``max_bytes`` of reports; when a new one
does not fit, ``drop-oldest`` deletes the oldest waiting reports (never the ones being sent) and
``drop-newest`` refuses the new one, the anchors being Vector's disk buffer (``when_full``) and
Fluent Bit's ``storage.total_limit_size``. Drops are counted as ``spool_full``; a write that fails
on a full disk as ``disk_full``. Either is logged once until the spool accepts reports again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from kdiag.sinks import FailureLog, Log, ReportLine, SinkStats, drop_reason
from kdiag.sinks.directory import check_directory

WHEN_FULL = ("drop-oldest", "drop-newest")
_SUFFIX = ".json"
_TMP_PREFIX = ".tmp-"


class Spool:
    def __init__(self, directory: str | os.PathLike[str], *, max_bytes: int, when_full: str, stats: SinkStats,
                 log: Log) -> None:
        if when_full not in WHEN_FULL:
            raise ValueError(f"when_full must be one of {WHEN_FULL}")
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.when_full = when_full
        self._stats = stats
        self._failures = FailureLog(log, f"spool {self.directory}")
        self._lock = threading.Lock()
        self._files: OrderedDict[Path, int] = OrderedDict()  # waiting reports, oldest first, with sizes
        self._sending: set[Path] = set()
        self._bytes = 0
        check_directory(self.directory, "--spool-dir")
        for tmp in self.directory.glob(f"{_TMP_PREFIX}*"):
            tmp.unlink(missing_ok=True)
        for path in sorted(self.directory.glob(f"*{_SUFFIX}")):
            if path.stem.isdigit():
                self._add(path, path.stat().st_size)
        self._next = int(next(reversed(self._files)).stem) + 1 if self._files else 1
        self._publish()

    def __len__(self) -> int:
        return len(self._files)

    def put(self, line: ReportLine) -> bool:
        """Spool one report; False if it was dropped (spool full, disk full)."""
        data = line.json.encode()
        with self._lock:
            if not self._make_room(len(data)):
                self._stats.count_dropped("spool_full")
                self._failures.failed(f"full ({self._bytes} of {self.max_bytes} bytes), dropping the newest reports"
                                      if self.when_full == "drop-newest" else f"a report of {len(data)} bytes does not "
                                      f"fit in {self.max_bytes} bytes")
                return False
            name = f"{self._next:016d}{_SUFFIX}"
            self._next += 1
            path = self.directory / name
            tmp = self.directory / f"{_TMP_PREFIX}{name}"
            try:
                with open(tmp, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.rename(tmp, path)
            except OSError as exc:
                tmp.unlink(missing_ok=True)
                self._stats.count_dropped(drop_reason(exc))
                self._failures.failed(exc.strerror or str(exc))
                return False
            self._add(path, len(data))
            self._failures.recovered()
            self._publish()
            return True

    def _make_room(self, size: int) -> bool:
        if size > self.max_bytes:
            return False
        if self._bytes + size <= self.max_bytes:
            return True
        if self.when_full == "drop-newest":
            return False
        for path in [p for p in self._files if p not in self._sending]:
            if self._bytes + size <= self.max_bytes:
                break
            self._discard(path)
            self._stats.count_dropped("spool_full")
            self._failures.failed(f"full ({self.max_bytes} bytes), dropping the oldest reports")
        return self._bytes + size <= self.max_bytes

    def take(self, limit: int) -> list[tuple[Path, bytes]]:
        """Up to ``limit`` of the oldest waiting reports, marked as being sent (not dropped meanwhile)."""
        with self._lock:
            batch = []
            for path in self._files:
                if len(batch) >= limit:
                    break
                try:
                    batch.append((path, path.read_bytes()))
                except OSError:
                    continue
                self._sending.add(path)
            return batch

    def done(self, path: Path, *, delivered: bool) -> None:
        """The report at ``path`` was delivered (removed) or not (it waits for the next attempt)."""
        with self._lock:
            self._sending.discard(path)
            if delivered:
                self._discard(path)
            self._publish()

    def _add(self, path: Path, size: int) -> None:
        self._files[path] = size
        self._bytes += size

    def _discard(self, path: Path) -> None:
        size = self._files.pop(path, None)
        if size is not None:
            self._bytes -= size
            path.unlink(missing_ok=True)

    def _publish(self) -> None:
        with self._stats.lock:
            self._stats.spooled, self._stats.spool_bytes = len(self._files), self._bytes
