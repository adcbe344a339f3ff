"""Where ``kdiag watch`` delivers its reports: JSON lines on stdout, a directory of ``*.jsonl``
segments, a Kafka topic behind a bounded on-disk spool.

Every sink takes the report as one line of JSON that has already passed through the secret
scrubber (``ReportLine``): a sink writes text, never a report object, so it cannot print a secret by
forgetting to scrub. Each keeps its own counts (``SinkStats``), which ``kdiag.watch.metrics``
exports as ``kdiag_sink_*`` series; a sink never raises out of ``deliver`` for an I/O failure: it
counts the report as dropped with a reason and logs the first failure of a run of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

# Why a sink dropped a report: the label values of kdiag_sink_dropped_reports_total{reason}.
DROP_REASONS = ("disk_full", "io_error", "spool_full", "rejected")

Log = Callable[[str], None]  # one line to the agent's log (already scrubbed by the caller's logger)


@dataclass(frozen=True)
class ReportLine:
    """One report as a sink writes it: its JSON on one line (scrubbed, no trailing newline), with the
    id and the agent's sequence number the sink may name files or messages by."""

    report_id: str
    sequence: int
    json: str


@dataclass
class SinkStats:
    """A sink's counts since the agent started, read by the metrics collector at scrape time."""

    delivered: int = 0
    spooled: int = 0  # reports waiting in the spool now
    spool_bytes: int = 0
    dropped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DROP_REASONS, 0))
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def count_delivered(self, n: int = 1) -> None:
        with self.lock:
            self.delivered += n

    def count_dropped(self, reason: str, n: int = 1) -> None:
        with self.lock:
            self.dropped[reason] = self.dropped.get(reason, 0) + n

    def snapshot(self) -> SinkStats:
        with self.lock:
            return SinkStats(self.delivered, self.spooled, self.spool_bytes, dict(self.dropped))


class Sink(Protocol):
    name: str  # the label value of kdiag_sink_*{sink}: stdout, directory, topic
    stats: SinkStats

    def deliver(self, line: ReportLine) -> None:
        """Take one report; never raises for an I/O failure (it is counted and logged)."""

    def close(self, timeout: float) -> None:
        """Flush what can be flushed within ``timeout`` seconds and release files and clients."""


class FailureLog:
    """Logs the first failure of a run of failures, and the recovery after it: a full disk logs two
    lines, not one per report."""

    def __init__(self, log: Log, what: str) -> None:
        self._log = log
        self._what = what
        self._failing: str | None = None

    def failed(self, reason: str) -> None:
        if self._failing is None:
            self._log(f"{self._what}: {reason} (logged once until it recovers)")
        self._failing = reason

    def recovered(self) -> None:
        if self._failing is not None:
            self._log(f"{self._what}: recovered")
        self._failing = None


def drop_reason(exc: OSError) -> str:
    import errno

    return "disk_full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "io_error"


__all__ = ["DROP_REASONS", "FailureLog", "Log", "ReportLine", "Sink", "SinkStats", "drop_reason"]
