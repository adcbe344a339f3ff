"""The directory sink: reports as JSON lines in ``*.jsonl`` segments that readers only ever see whole.

The agent appends to one hidden segment, ``.open-<start>.jsonl.partial``, and seals it by renaming
it to ``reports-<start>-<first sequence>.jsonl`` when it reaches ``max_bytes``, when it is older than
``max_age`` seconds, and when the agent stops. A reader globbing ``*.jsonl`` therefore never sees a
half-written line, and a sealed segment never changes. At most ``max_files`` sealed segments are
kept, the oldest deleted first. Each report is written with one ``write`` and fsynced, so a crash
loses at most the report being written: on start, a partial segment left by a crash is cut back to
its last whole line and sealed.

A failed write (a full disk: ``disk_full``; anything else: ``io_error``) is cut back out of the
segment, counted as a dropped report and logged once until writes succeed again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from kdiag.exitstatus import UsageError
from kdiag.sinks import FailureLog, Log, ReportLine, SinkStats, drop_reason

PARTIAL_PREFIX = ".open-"
PARTIAL_SUFFIX = ".jsonl.partial"
SEALED_PREFIX = "reports-"


def _stamp() -> str:
    now = time.time()
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{int(now * 1000) % 1000:03d}Z"


class DirectorySink:
    name = "directory"

    def __init__(self, directory: str | os.PathLike[str], *, max_bytes: int, max_files: int, max_age: float,
                 log: Log) -> None:
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.max_age = max_age
        self.stats = SinkStats()
        self._log = log
        self._failures = FailureLog(log, f"report directory {self.directory}")
        self._fd: int | None = None
        self._path: Path | None = None
        self._size = 0
        self._opened_at = 0.0
        self._first_sequence: int | None = None
        self._stamp = ""
        check_directory(self.directory, "--report-dir")
        self._recover()

    # --- writing ----------------------------------------------------------------------------------

    def deliver(self, line: ReportLine) -> None:
        data = (line.json + "\n").encode()
        try:
            if self._fd is not None and (self._size + len(data) > self.max_bytes and self._size > 0
                                         or time.monotonic() - self._opened_at >= self.max_age):
                self._seal()
            if self._fd is None:
                self._open()
            self._write(data)
        except OSError as exc:
            self.stats.count_dropped(drop_reason(exc))
            self._failures.failed(exc.strerror or str(exc))
            return
        if self._first_sequence is None:
            self._first_sequence = line.sequence
        self._failures.recovered()
        self.stats.count_delivered()

    def _write(self, data: bytes) -> None:
        try:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(28, "No space left on device (short write)")
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)  # no half line left behind
            except OSError:
                pass
            raise
        self._size += len(data)

    def _open(self) -> None:
        self._stamp = _stamp()
        self._path = self.directory / f"{PARTIAL_PREFIX}{self._stamp}{PARTIAL_SUFFIX}"
        self._fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._size = 0
        self._opened_at = time.monotonic()
        self._first_sequence = None

    def _seal(self) -> None:
        """Rename the open segment to its ``*.jsonl`` name (an empty one is removed), then prune."""
        fd, path, size = self._fd, self._path, self._size
        self._fd = self._path = None
        if fd is None or path is None:
            return
        os.close(fd)
        if size == 0:
            path.unlink(missing_ok=True)
            return
        first = self._first_sequence if self._first_sequence is not None else 0
        os.rename(path, self.directory / f"{SEALED_PREFIX}{self._stamp}-{first:012d}.jsonl")
        self._fsync_directory()
        self._prune()

    def _prune(self) -> None:
        sealed = sorted(self.directory.glob(f"{SEALED_PREFIX}*.jsonl"))
        for old in sealed[:max(0, len(sealed) - self.max_files)]:
            old.unlink(missing_ok=True)

    def _fsync_directory(self) -> None:
        try:
            fd = os.open(self.directory, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    # --- start and stop ---------------------------------------------------------------------------

    def _recover(self) -> None:
        """Seal the segments a crashed agent left open, cut back to their last whole line."""
        for partial in sorted(self.directory.glob(f"{PARTIAL_PREFIX}*{PARTIAL_SUFFIX}")):
            data = partial.read_bytes()
            whole = data[:data.rfind(b"\n") + 1]
            if not whole:
                partial.unlink()
                continue
            if len(whole) != len(data):
                with partial.open("r+b") as handle:
                    handle.truncate(len(whole))
            stamp = partial.name[len(PARTIAL_PREFIX):-len(PARTIAL_SUFFIX)]
            first = _first_sequence(whole)
            os.rename(partial, self.directory / f"{SEALED_PREFIX}{stamp}-{first:012d}.jsonl")
            self._log(f"report directory {self.directory}: sealed {partial.name} left by an earlier run"
                      + (f" (cut {len(data) - len(whole)} bytes of a half-written report)" if len(whole) != len(data)
                         else ""))
        self._prune()

    def close(self, timeout: float) -> None:
        try:
            self._seal()
        except OSError as exc:
            self._log(f"report directory {self.directory}: could not seal the open segment: {exc.strerror or exc}")


def _first_sequence(data: bytes) -> int:
    import json

    try:
        first = json.loads(data[:data.find(b"\n")])
        return int((first.get("agent") or {}).get("sequence") or 0)
    except (ValueError, AttributeError, TypeError):
        return 0


def check_directory(directory: Path, option: str) -> None:
    """Create ``directory`` if needed and check that it is a writable directory (UsageError if not)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{option} {directory}: cannot create it: {exc.strerror or exc}") from None
    if not directory.is_dir():
        raise UsageError(f"{option} {directory}: not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {directory}: not writable by this user")
