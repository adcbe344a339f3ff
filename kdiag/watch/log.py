"""The agent's log on stderr: one line per event, as text or JSON (``--log-format``).

Every line passes through the run's secret scrubber (and, as text, ``kdiag.render.safe.printable``:
a client library's error may carry escape sequences) and is written whole under a lock (the loop,
the HTTP threads and the topic sink's sender all log). Probes are logged only on a *transition*
(``transition``): the first probe's state, healthy → broken with the finding ids, broken → healthy,
and a change in the findings.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import IO

from kdiag.render.safe import printable
from kdiag.report import Report
from kdiag.watch.state import probe_succeeded

LOG_FORMATS = ("text", "json")


class AgentLog:
    def __init__(self, stream: IO[str], *, fmt: str, scrub: Callable[[str], str]) -> None:
        self._stream = stream
        self._fmt = fmt
        self._scrub = scrub
        self._lock = threading.Lock()

    def event(self, event: str, message: str, level: str = "info", **fields: object) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        message = " ".join(message.splitlines())
        if self._fmt == "json":
            line = json.dumps({"time": stamp, "level": level, "event": event, "message": message, **fields},
                              ensure_ascii=False, default=str)
            line = self._scrub(line)  # JSON escapes control characters itself
        else:
            line = printable(self._scrub(f"{stamp} kdiag watch: {level}: {message}"), limit=None)
        with self._lock:
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass  # stderr closed: nothing left to tell

    def info(self, message: str, **fields: object) -> None:
        self.event("info", message, **fields)

    def warning(self, message: str, **fields: object) -> None:
        self.event("warning", message, "warning", **fields)


def finding_ids(report: Report) -> tuple[str, ...]:
    return tuple(sorted({f.id for f in report.findings}))


class Transitions:
    """Remembers the last state (healthy or not, and the finding ids) and logs when it changes."""

    def __init__(self, log: AgentLog) -> None:
        self._log = log
        self._state: tuple[bool, tuple[str, ...]] | None = None

    def observe(self, report: Report) -> bool:
        """Log ``report``'s state if it differs from the last one; True if it did."""
        healthy, ids = probe_succeeded(report), finding_ids(report)
        failed = tuple(s.name for s in report.stages if s.failed)
        before = self._state
        self._state = (healthy, ids)
        if before == self._state:
            return False
        shown = ", ".join(ids) or "none"
        fields = {"healthy": healthy, "findings": list(ids), "failed_stages": list(failed),
                  "report_id": report.report_id, "sequence": report.agent.sequence if report.agent else None}
        if before is None:
            what = "first probe: " + ("healthy" if healthy else "broken")
            self._log.event("first_probe", f"{what}; findings: {shown}", "info" if healthy else "warning", **fields)
        elif before[0] and not healthy:
            self._log.event("broken", f"healthy → broken; findings: {shown}"
                            + (f"; failed stages: {', '.join(failed)}" if failed else ""), "warning", **fields)
        elif not before[0] and healthy:
            self._log.event("recovered", f"broken → healthy; findings: {shown}", "info", **fields)
        else:
            self._log.event("findings_changed", f"findings changed: {', '.join(before[1]) or 'none'} → {shown}",
                            "info" if healthy else "warning", **fields)
        return True
