"""A probe that hangs never stalls the loop, and never has a second probe started beside it."""

from __future__ import annotations

import threading

from kdiag.watch.bounded import BoundedRunner


def test_a_hung_probe_is_an_overrun_and_the_next_tick_is_busy_until_it_ends() -> None:
    release = threading.Event()
    runner: BoundedRunner[str] = BoundedRunner("test-probe", grace=0.05)
    outcome = runner.run(lambda: release.wait(10) and "late", timeout=0.05)
    assert outcome.status == "overrun" and outcome.seconds < 1
    assert runner.run(lambda: "second", timeout=1).status == "busy"
    release.set()
    runner._thread.join(2)
    assert runner.run(lambda: "third", timeout=1).value == "third"


def test_an_exception_in_the_probe_is_carried_to_the_caller() -> None:
    outcome = BoundedRunner("test-probe", grace=0).run(lambda: 1 / 0, timeout=1)
    assert outcome.status == "error" and isinstance(outcome.error, ZeroDivisionError)


def test_the_loop_counts_an_overrun_a_kdiag_failure_once_logged_and_numbers_reports_without_gaps(tmp_path) -> None:
    import io

    from kdiag.orchestrate import BootstrapOptions
    from kdiag.report import Endpoint
    from kdiag.watch.loop import LoopSettings, WatchLoop
    from kdiag.watch.identity import AgentIdentity
    from kdiag.watch.log import AgentLog
    from kdiag.watch.metrics import AgentMetrics
    from kdiag.watch.state import AgentState
    from tests.unit.watch.reports import healthy

    release = threading.Event()
    script = iter(["hang", "boom", "boom", "ok", "ok"])

    def probe(options):
        step = next(script)
        if step == "hang":
            release.wait(10)
            return healthy()
        if step == "boom":
            raise RuntimeError("kdiag bug")
        return healthy()

    stream = io.StringIO()
    state = AgentState()
    metrics = AgentMetrics(state, [])
    loop = WatchLoop(LoopSettings(BootstrapOptions(targets=(Endpoint("k", 9092),), timeout=0.05), 1.0),
                     identity=AgentIdentity(tmp_path, log=lambda _: None), state=state, metrics=metrics, sinks=[],
                     log=AgentLog(stream, fmt="text", scrub=lambda s: s), scrub=lambda s: s, probe=probe)
    loop.runner.grace = 0.05
    assert loop.probe_once() is None  # overrun
    assert loop.probe_once() is None  # busy: the hung probe still runs
    release.set()
    loop.runner._thread.join(2)
    assert loop.probe_once() is None and loop.probe_once() is None  # kdiag failed twice
    reports = [loop.probe_once(), loop.probe_once()]
    assert [r.agent.sequence for r in reports] == [1, 2]
    counts = {s.labels["result"]: s.value for m in metrics.probes.collect() for s in m.samples
              if s.name == "kdiag_probes_total"}
    assert counts == {"success": 2, "failure": 0, "overrun": 1, "error": 2, "busy": 1}
    lines = stream.getvalue().splitlines()
    assert sum("did not end within" in line for line in lines) == 1
    assert sum("the probe that overran has ended" in line for line in lines) == 1
    assert sum("failed inside kdiag: RuntimeError: kdiag bug" in line for line in lines) == 1
    assert AgentIdentity(tmp_path, log=lambda _: None).sequence == 2, "the sequence is kept in agent.json"
