"""Bring lab scenarios up for tests, one at a time, and judge a vantage's run with a useful message."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from kdiag.lab.runner import LiveScenario, VantageRun, scenario_up
from kdiag.lab.scenarios import get_scenario


class OneScenarioAtATime:
    """``holder(name)``: the scenario, brought up on first use, after tearing down the one up before it."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._live: LiveScenario | None = None

    def __call__(self, name: str) -> LiveScenario:
        if self._live is None or self._live.scenario.name != name:
            self.close()
            self._live = self._stack.enter_context(scenario_up(get_scenario(name)))
        return self._live

    def close(self) -> None:
        self._live = None
        self._stack.close()


def assert_as_expected(run: VantageRun) -> None:
    """The run ended as its vantage expects; otherwise say what differs, with the command to reproduce it."""
    vantage = run.vantage
    assert run.as_expected, (
        f"from {vantage.name} ({run.command}): expected {vantage.expect.summary()}, got {run.found()}:\n  "
        + "\n  ".join(run.differences) + f"\nstderr: {run.stderr[-2000:]}"
    )


Check = Callable[[VantageRun], None]


class Checks(dict[tuple[str, str], Check]):
    """Closer looks at one vantage's run, by (scenario, vantage): ``@checks.of("nat", "laptop")`` registers one."""

    def of(self, scenario: str, vantage: str) -> Callable[[Check], Check]:
        def register(function: Check) -> Check:
            self[(scenario, vantage)] = function
            return function
        return register


def finding_in(run: VantageRun, finding_id: str) -> dict[str, Any]:
    """The run's finding with that id (StopIteration if there is none)."""
    return next(f for f in run.report["findings"] if f["id"] == finding_id)
