"""Bring lab scenarios up for tests, one at a time, and judge a vantage's run with a useful message."""

from __future__ import annotations

from contextlib import ExitStack

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
