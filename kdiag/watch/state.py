"""What the agent knows between probes, shared by the loop, the HTTP server and the metrics.

The loop is the only writer (``record``); readers take a ``snapshot``. Brokers are remembered from
the last report whose metadata could be read, so a broker that stops answering (or a cluster that
stops answering at all) keeps its series at 0 until the metadata no longer lists it. What counts as a
successful probe (``probe_succeeded``) is decided here once, for the metrics, ``/readyz`` and the log.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kdiag.report import Report

BrokerKey = tuple[int, str]  # (node_id, "host:port")


@dataclass(frozen=True)
class Snapshot:
    report: Report | None = None
    report_json: str | None = None  # the last report as served (scrubbed)
    brokers: dict[BrokerKey, tuple[bool, float]] = field(default_factory=dict)
    last_probe_time: float | None = None  # Unix time the last probe finished
    last_success_time: float | None = None
    last_finished: float | None = None  # monotonic, for /livez
    started: float = 0.0  # monotonic


class AgentState:
    """``clock`` (monotonic seconds: ``/livez``) and ``wall`` (Unix time: the metrics' timestamps) are
    injectable, so tests move time by hand instead of sleeping."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.wall = wall
        self._lock = threading.Lock()
        self._snapshot = Snapshot(started=clock())

    def snapshot(self) -> Snapshot:
        with self._lock:
            return self._snapshot

    def finished(self) -> None:
        """A probe ended, with a report or not (overrun, kdiag failed): the loop is alive."""
        with self._lock:
            s = self._snapshot
            self._snapshot = Snapshot(s.report, s.report_json, s.brokers, s.last_probe_time, s.last_success_time,
                                      self.clock(), s.started)

    def record(self, report: Report, report_json: str) -> None:
        now = self.wall()
        with self._lock:
            s = self._snapshot
            brokers = broker_series(report)
            if report.cluster is None:  # no metadata this time: the brokers it last listed are all down
                brokers = {key: (False, float("nan")) for key in s.brokers}
            success = now if probe_succeeded(report) else s.last_success_time
            self._snapshot = Snapshot(report, report_json, brokers, now, success, self.clock(), s.started)


def probe_succeeded(report: Report) -> bool:
    """``kdiag_probe_success``: no finding of severity error and no failed stage."""
    return not any(f.severity == "error" for f in report.findings) and not any(s.failed for s in report.stages)


def broker_series(report: Report) -> dict[BrokerKey, tuple[bool, float]]:
    """Each advertised broker of ``report``: (usable from here, TCP connect seconds or NaN)."""
    if report.cluster is None:
        return {}
    series = {}
    for broker in report.cluster.brokers:
        connect = broker.tcp.duration_ms / 1000 if broker.tcp.ok else math.nan
        series[(broker.node_id, str(broker.endpoint))] = (broker.reachable, connect)
    return series
