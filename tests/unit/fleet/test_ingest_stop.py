"""A continuous ingest stops on SIGTERM or SIGINT between two slices of its wait, never from inside
the signal handler (a call into Spark's JVM there breaks Py4J's connection)."""

from __future__ import annotations

import os
import signal

import pytest

from kdiag.fleet.ingest import run_until_stopped


class _Query:
    """Ends by itself after ``ends_after`` slices (None: never), or when stopped; records the calls."""

    def __init__(self, ends_after: int | None = None, signal_at: int | None = None, number: int = signal.SIGTERM):
        self.slices = 0
        self.calls: list[str] = []
        self.ends_after, self.signal_at, self.number = ends_after, signal_at, number

    def awaitTermination(self, seconds: float) -> bool:  # noqa: N802 - Spark's name
        self.calls.append("wait")
        self.slices += 1
        if self.slices == self.signal_at:
            os.kill(os.getpid(), self.number)  # delivered now, to this (the main) thread, mid-wait
        return self.ends_after is not None and self.slices >= self.ends_after

    def stop(self) -> None:
        self.calls.append("stop")


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_query_after_the_wait_it_came_in(number: int) -> None:
    query = _Query(signal_at=3, number=number)
    run_until_stopped(query)
    assert query.calls == ["wait", "wait", "wait", "stop"]


def test_a_query_that_ends_by_itself_is_not_stopped_and_the_handlers_are_restored() -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    query = _Query(ends_after=2)
    run_until_stopped(query)
    assert query.calls == ["wait", "wait"]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
