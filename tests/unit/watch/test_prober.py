"""A probe that hangs never stalls the loop, and never has a second probe started beside it."""

from __future__ import annotations

import threading

from kdiag.watch.prober import BoundedRunner


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
