"""A diagnosis rule: an id, a title, the worst severity it reports, and a pure check over a report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kdiag.report import SEVERITIES, Finding, Report

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


def finding(rule_id: str, severity: str, title: str, explanation: str, evidence: dict[str, Any],
            fix: str = "") -> Finding:
    """A Finding whose evidence holds JSON values only (lists, not tuples), so it survives a round trip."""
    return Finding(rule_id, severity, title, explanation, _json_values(evidence), fix)


def _json_values(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_values(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_json_values(v) for v in value]
    return value
