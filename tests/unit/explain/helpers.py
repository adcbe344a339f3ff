"""Shared by the explain tests: the captured client logs, and explaining a string."""

from __future__ import annotations

from pathlib import Path

from kdiag.explain.engine import Explanation, explain_text
from kdiag.finding import Finding

CLIENT_LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"


def client_log(name: str) -> str:
    """A captured paste: the command, then what the client printed."""
    return (CLIENT_LOGS / f"{name}.log").read_text()


def output_only(paste: str) -> str:
    """The client's output without the command line above it (what a customer often sends alone)."""
    return paste.split("\n", 1)[1] if paste.startswith("$ ") else paste


def ids(explanation: Explanation) -> list[str]:
    return [f.id for f in explanation.findings]


def only(explanation: Explanation, finding_id: str) -> Finding:
    found = [f for f in explanation.findings if f.id == finding_id]
    assert len(found) == 1, ids(explanation)
    return found[0]


def explained(text: str) -> Explanation:
    return explain_text(text)
