"""The house's rules, read from the source: no import cycles in ``kdiag/`` and ``probes/`` (imports
inside functions count: a module never imports its importer), ``probes/`` imports nothing of
``kdiag``, and the lower rooms do not reach up into commands, views or the CLI."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PACKAGES = ("kdiag", "probes")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in (REPO / package).rglob("*.py")}


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> Iterator[str]:
    """Every kdiag/probes module ``tree`` imports, wherever the import statement stands."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known]
            targets = targets or [source]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import kdiag.capture.model` names the module itself
                target = target.rpartition(".")[0]
            if target:
                yield target


@functools.cache
def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    graph = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[name] = {t for t in imported(tree, name, path.name == "__init__.py", known) if t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_kdiag_and_probes_have_no_import_cycle():
    assert cycles(import_graph()) == []


def test_probes_import_nothing_from_kdiag():
    bad = {name: sorted(t for t in targets if t.split(".")[0] == "kdiag")
           for name, targets in import_graph().items() if name.split(".")[0] == "probes"}
    assert {name: targets for name, targets in bad.items() if targets} == {}


def test_only_the_cli_and_its_entry_point_import_the_cli():
    importers = sorted(name for name, targets in import_graph().items() if "kdiag.cli" in targets)
    assert importers == ["kdiag.__main__"]


def within(module: str, rooms: tuple[str, ...]) -> bool:
    """``module`` is one of ``rooms`` or inside one (``kdiag.cli`` holds not ``kdiag.clientconfig``)."""
    return any(module == room or module.startswith(room + ".") for room in rooms)


# The sanitizer (with the views) and the secrets module (the scrubber) are leaves any room may use.
LEAVES = ("kdiag.render.safe", "kdiag.secrets")


def test_the_model_rules_and_the_ways_facts_arrive_import_no_command_view_or_environment():
    upper = ("kdiag.commands", "kdiag.render", "kdiag.environment", "kdiag.cli", "kdiag.watch", "kdiag.sinks")
    lower = ("kdiag.finding", "kdiag.report", "kdiag.jsonform", "kdiag.diagnose", "kdiag.explain", "kdiag.capture",
             "kdiag.diff", "kdiag.inputfile", "probes")
    bad = {name: sorted(t for t in targets if within(t, upper) and t not in LEAVES)
           for name, targets in import_graph().items() if within(name, lower)}
    assert {name: targets for name, targets in bad.items() if targets} == {}


def test_the_sanitizer_and_the_scrubber_are_leaves():
    graph = import_graph()
    assert {leaf: sorted(graph[leaf] - {"kdiag.finding", *LEAVES}) for leaf in LEAVES} == {leaf: [] for leaf in LEAVES}


def test_the_report_model_does_no_io():
    import_names = {node.names[0].name for node in ast.walk(ast.parse((REPO / "kdiag/report.py").read_text()))
                    if isinstance(node, ast.Import)}
    assert import_names.isdisjoint({"os", "socket", "subprocess", "io", "pathlib"})
    assert "kdiag.inputfile" not in import_graph()["kdiag.report"]


def test_the_finding_type_is_the_bottom_of_kdiag():
    assert import_graph()["kdiag.finding"] == set()


def test_the_cycle_finder_finds_a_cycle():  # the guard guards
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_version_the_probes_announce_is_the_distributions():
    import tomllib

    import kdiag
    import probes

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert probes.__version__ == kdiag.__version__ == declared


def test_no_module_imports_another_modules_private_name():
    """``from m import _name`` reaches into ``m``: what another module needs is public (and named so)."""
    reaching = [f"{path.relative_to(REPO)}:{node.lineno} {node.module}.{alias.name}"
                for root in ("kdiag", "probes", "tests", "bench") for path in sorted((REPO / root).rglob("*.py"))
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom)
                for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert reaching == []
