"""The agent's identity: a stable id and a sequence number with no gaps.

With a state directory (the spool directory, else the report directory), the id and the last
sequence number are kept in ``agent.json`` there, written atomically after each report, so a
restarted agent (a restarted container with its ``emptyDir``, a pod on the same volume) goes on
with the same id and the next number. Without one, the id is made afresh per process (a UUIDv7)
and the sequence starts at 1. If the file cannot be written (a full disk), the agent counts on in
memory and logs it once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from kdiag.report import new_report_id
from kdiag.sinks import FailureLog, Log

STATE_FILE = "agent.json"


class AgentIdentity:
    def __init__(self, state_dir: Path | None, *, log: Log) -> None:
        self.path = None if state_dir is None else Path(state_dir) / STATE_FILE
        self._failures = FailureLog(log, f"agent state {self.path}")
        self.id, self.sequence = new_report_id(), 0
        if self.path is not None and self.path.exists():
            try:
                saved = json.loads(self.path.read_text())
                self.id, self.sequence = str(saved["id"]), int(saved["sequence"])
            except (OSError, ValueError, KeyError, TypeError):
                log(f"agent state {self.path} is unreadable; starting a new agent id")
        self.persistent = self.path is not None

    def next_sequence(self) -> int:
        self.sequence += 1
        if self.path is not None:
            tmp = self.path.with_name(f".{STATE_FILE}.tmp")
            try:
                tmp.write_text(json.dumps({"id": self.id, "sequence": self.sequence}))
                os.replace(tmp, self.path)
            except OSError as exc:
                self._failures.failed(f"cannot save the sequence number ({exc.strerror or exc}); counting on in memory")
            else:
                self._failures.recovered()
        return self.sequence
