"""The watch loop: probe every interval (with jitter, one at a time), record, log, deliver.

Each tick runs ``run_bootstrap`` in process under a ``BoundedRunner``; a report gets the agent's id
and next sequence number, becomes the state ``/report`` and ``/metrics`` read, is logged if its state
differs from the last one, and goes to every sink as one scrubbed JSON line. The next probe starts
``interval`` (± ``jitter``) after this one started, or at once if this one took longer: never two at
once.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kdiag.exitstatus import UsageError
from kdiag.orchestrate import BootstrapOptions
from kdiag.report import Agent, Report, report_to_json
from kdiag.sinks import ReportLine, Sink
from kdiag.watch.identity import AgentIdentity
from kdiag.watch.log import AgentLog, Transitions
from kdiag.watch.metrics import AgentMetrics
from kdiag.watch.bounded import BoundedRunner
from kdiag.watch.state import AgentState, probe_succeeded

if TYPE_CHECKING:
    from probes.idle import HeldConnection

GRACE = 3.0  # beyond the probe's own deadline, before it counts as overrun (closing clients, a slow resolver)


@dataclass(frozen=True)
class LoopSettings:
    probe: BootstrapOptions
    interval: float = 30.0
    jitter: float = 0.1  # each pause is interval × (1 ± jitter)


def run_probe(options: BootstrapOptions, *, held: HeldConnection | None = None) -> Report:
    from kdiag.orchestrate import run_bootstrap

    return run_bootstrap(options, held=held)


class WatchLoop:
    def __init__(self, settings: LoopSettings, *, identity: AgentIdentity, state: AgentState, metrics: AgentMetrics,
                 sinks: Sequence[Sink], log: AgentLog, scrub: Callable[[str], str],
                 probe: Callable[[BootstrapOptions], Report] = run_probe) -> None:
        self.settings = settings
        self.identity = identity
        self.state = state
        self.metrics = metrics
        self.sinks = list(sinks)
        self.log = log
        self.scrub = scrub
        self.probe = probe
        self.transitions = Transitions(log)
        self.runner: BoundedRunner[Report] = BoundedRunner("kdiag-probe", grace=GRACE)
        self._random = random.Random()
        self._overrun_logged = False
        self._last_error: str | None = None

    def run(self, stop: threading.Event) -> None:
        next_at = time.monotonic()
        while not stop.wait(max(0.0, next_at - time.monotonic())):
            started = time.monotonic()
            self.probe_once(stop)
            pause = self.settings.interval * (1 + self._random.uniform(-self.settings.jitter, self.settings.jitter))
            next_at = max(started + pause, time.monotonic())

    def probe_once(self, stop: threading.Event | None = None) -> Report | None:
        options = self.settings.probe
        outcome = self.runner.run(lambda: self.probe(options), timeout=options.timeout, stop=stop)
        if stop is not None and stop.is_set() and outcome.status == "overrun":
            return None  # interrupted by the shutdown, not overrun
        if outcome.status == "busy":
            self.metrics.observe("busy", None)
            return None
        if outcome.status == "overrun":
            self.metrics.observe("overrun", outcome.seconds)
            if not self._overrun_logged:
                self.log.warning(f"a probe did not end within its {options.timeout:g} s deadline (+{GRACE:g} s); "
                                 "no new probe starts until it does", event_kind="overrun")
            self._overrun_logged = True
            return None
        if self._overrun_logged:
            self.log.info("the probe that overran has ended; probing again", event_kind="overrun_ended")
        self._overrun_logged = False
        if outcome.status == "error":
            self.metrics.observe("error", outcome.seconds)
            self.state.finished()
            error = outcome.error
            what = str(error) if isinstance(error, UsageError) else f"{type(error).__name__}: {error}"
            if what != self._last_error:  # the same failure every interval is logged once
                self.log.warning(f"the probe failed inside kdiag: {what}")
            self._last_error = what
            return None
        self._last_error = None
        report = replace(outcome.value, agent=Agent(self.identity.id, self.identity.next_sequence()))
        text = self.scrub(report_to_json(report, indent=None))
        self.state.record(report, text)
        self.metrics.observe("success" if probe_succeeded(report) else "failure", outcome.seconds)
        self.transitions.observe(report)
        line = ReportLine(report.report_id or "", report.agent.sequence, text)
        for sink in self.sinks:
            sink.deliver(line)
        return report
