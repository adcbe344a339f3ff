"""Bring lab scenarios up for tests, one at a time, and judge a vantage's run with a useful message."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import ExitStack
from typing import Any

from kdiag.lab.runner import LiveScenario, VantageRun, scenario_up
from kdiag.lab.scenarios import get_scenario
from kdiag.lab.scenarios.base import Vantage
from tests.lab_golden import assert_matches_golden


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


RUN_SECONDS = 15.0
"""What one kdiag run may take, with its round trip (about a second; a dropped port adds the 1 s connect timeout)."""


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

    def naming_no_case(self, cases: Iterable[tuple[str, Vantage]]) -> set[tuple[str, str]]:
        """The checks whose (scenario, vantage) is none of ``cases``: a typo that would never run."""
        return set(self) - {(name, vantage.name) for name, vantage in cases}


def assert_run(scenario: str, run: VantageRun, *, checks: Checks | None = None, golden: bool = True) -> None:
    """A vantage's run in ``scenario`` ended as expected, within RUN_SECONDS, with the report recorded in
    ``tests/fixtures/lab_golden`` (unless ``golden`` is False: a report that varies from run to run), and
    passes its closer look in ``checks`` if it has one."""
    assert_as_expected(run)
    assert run.seconds < RUN_SECONDS, f"kdiag took {run.seconds:.1f} s from {run.vantage.name}"
    if golden:
        assert_matches_golden(run)  # the report, normalised, is the one recorded before issue 8's refactor
    if checks is not None and (scenario, run.vantage.name) in checks:
        checks[(scenario, run.vantage.name)](run)


def finding_in(run: VantageRun, finding_id: str) -> dict[str, Any]:
    """The run's finding with that id (StopIteration if there is none)."""
    return next(f for f in run.report["findings"] if f["id"] == finding_id)
