"""The stdout sink: one JSON report per line, flushed after each (a log collector reads lines)."""

from __future__ import annotations

from typing import IO

from kdiag.sinks import FailureLog, Log, ReportLine, SinkStats, drop_reason


class StdoutSink:
    name = "stdout"

    def __init__(self, stream: IO[str], *, log: Log) -> None:
        self._stream = stream
        self.stats = SinkStats()
        self._failures = FailureLog(log, "stdout sink")

    def deliver(self, line: ReportLine) -> None:
        try:
            self._stream.write(line.json + "\n")
            self._stream.flush()
        except OSError as exc:
            self.stats.count_dropped(drop_reason(exc))
            self._failures.failed(exc.strerror or str(exc))
            return
        self._failures.recovered()
        self.stats.count_delivered()

    def close(self, timeout: float) -> None:
        try:
            self._stream.flush()
        except OSError:
            pass
