"""A finding: what is wrong, why it matters, the facts it rests on, and the fix.

Every command that reports problems speaks in findings — ``kdiag bootstrap``'s diagnosis rules, the
capture of ``kdiag pcap``, ``kdiag explain``'s log patterns, ``kdiag diff`` — and every view draws
them the same way (``kdiag.render.finding_layout``). This module is the bottom of ``kdiag``: it imports
nothing else of kdiag, so anything may import it. The catalog of finding ids, with what each means
and what raises it, is ``kdiag.catalog``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "info")
"""Worst first. A healthy cluster has no finding of severity error or warning."""

PROBLEM_SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Finding:
    id: str
    severity: str
    title: str
    explanation: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    fix: str = ""

    @property
    def is_problem(self) -> bool:
        return self.severity in PROBLEM_SEVERITIES


def make_finding(finding_id: str, severity: str, title: str, explanation: str, evidence: Mapping[str, Any],
                 fix: str = "") -> Finding:
    """A Finding whose evidence holds JSON values only (lists, not tuples; no None), so it survives a round trip."""
    return Finding(finding_id, severity, title, explanation, json_values(evidence), fix)


def json_values(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): json_values(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [json_values(v) for v in value]
    return value


def by_severity(findings: tuple[Finding, ...] | list[Finding]) -> tuple[Finding, ...]:
    """Errors, then warnings, then infos (anything else last); the order within each kept."""
    rank = {severity: index for index, severity in enumerate(SEVERITIES)}
    return tuple(sorted(findings, key=lambda f: rank.get(f.severity, len(rank))))
