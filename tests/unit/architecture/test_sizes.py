"""The sizes the house keeps (issue 19): a command's function and the orchestrator's steps fit on a screen, the
orchestrator's run only orders the stages, and no explain module grows past what one reading holds. A test,
so the next change that grows one says so here rather than in a review."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MAX_FUNCTION_LINES = 60  # kdiag/commands/ and kdiag/orchestrate.py
MAX_RUN_LINES = 250  # orchestrate._Run: the stage order, nothing else
MAX_EXPLAIN_MODULE_LINES = 350


def functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


SCREENS = [*sorted((ROOT / "kdiag" / "commands").glob("*.py")), ROOT / "kdiag" / "orchestrate.py"]


@pytest.mark.parametrize("path", SCREENS, ids=lambda path: path.name)
def test_no_function_in_the_commands_or_the_orchestrator_is_over_60_lines(path):
    assert [(name, lines) for name, lines in functions(path) if lines > MAX_FUNCTION_LINES] == []


def test_the_orchestrators_run_only_orders_the_stages():
    tree = ast.parse((ROOT / "kdiag" / "orchestrate.py").read_text())
    run = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "_Run")
    assert run.end_lineno - run.lineno + 1 < MAX_RUN_LINES


def test_no_explain_module_is_over_350_lines():
    sizes = {str(path.relative_to(ROOT)): len(path.read_text().splitlines())
             for path in sorted((ROOT / "kdiag" / "explain").rglob("*.py"))}
    assert {path: lines for path, lines in sizes.items() if lines > MAX_EXPLAIN_MODULE_LINES} == {}
