"""A diagnosis rule: an id, a title, the worst severity it reports, and a pure check over a report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kdiag.finding import SEVERITIES, Finding, make_finding
from kdiag.report import Report

CheckResult = Finding | tuple[Finding, ...] | None
Check = Callable[[Report], CheckResult]


@dataclass(frozen=True)
class Rule:
    """``check(report)`` returns None when healthy, else one finding or several (one per endpoint or
    group it concerns). It reads the report only: no sockets, no clock, no environment."""

    id: str
    title: str
    severity: str  # the worst severity its findings carry
    check: Check

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"rule {self.id}: severity {self.severity!r} is not one of {SEVERITIES}")

    def run(self, report: Report) -> tuple[Finding, ...]:
        result = self.check(report)
        if result is None:
            return ()
        return (result,) if isinstance(result, Finding) else tuple(result)


finding = make_finding  # the rules' short name for it
