"""The house's rules, read from the source: no import cycles in ``kdiag/`` and ``probes/`` (imports
inside functions count: a module never imports its importer), ``probes/`` imports nothing of
``kdiag``, every room imports only the rooms ARCHITECTURE.md says it may (``ROOMS``), and no arrow
runs back up but the stated ones (``BACK_UP``)."""

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


# Every room of kdiag, bottom first, with the rooms it may import: ARCHITECTURE.md's table, checked. A
# module belongs to the longest room name it is, or is inside of (``kdiag.fleet.job`` is not in
# ``kdiag.fleet``'s room; ``kdiag`` itself is only the package's ``__init__``). A room imports only rooms
# listed before it: an arrow running back up is one of BACK_UP, stated with its reason, or a failure.
ROOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("probes", ()),
    ("kdiag", ("probes",)),  # the package: __version__
    ("kdiag.finding", ()),
    ("kdiag.exitstatus", ()),
    ("kdiag.render.safe", ("kdiag.finding",)),  # the one sanitizer: a leaf any room may use
    ("kdiag.secrets", ("kdiag.render.safe",)),  # what is secret, redaction, the scrubber: a leaf too
    ("kdiag.jsonform", ()),
    ("kdiag.capture.model", ("probes", "kdiag.finding", "kdiag.jsonform")),
    ("kdiag.report", ("probes", "kdiag", "kdiag.finding", "kdiag.jsonform", "kdiag.capture.model")),
    ("kdiag.inputfile", ("kdiag.exitstatus", "kdiag.jsonform", "kdiag.report")),
    ("kdiag.target", ("probes", "kdiag.exitstatus", "kdiag.report")),
    ("kdiag.clientconfig", ("probes", "kdiag.exitstatus", "kdiag.secrets", "kdiag.inputfile")),
    ("kdiag.credentials", ("kdiag.exitstatus", "kdiag.report", "kdiag.inputfile", "kdiag.clientconfig")),
    ("kdiag.diagnose", ("probes", "kdiag.finding", "kdiag.report")),
    ("kdiag.stages", ("probes", "kdiag.report")),
    ("kdiag.orchestrate", ("probes", "kdiag.exitstatus", "kdiag.report", "kdiag.diagnose", "kdiag.stages")),
    ("kdiag.explain", ("probes", "kdiag", "kdiag.finding", "kdiag.secrets", "kdiag.jsonform", "kdiag.report",
                       "kdiag.diagnose")),
    ("kdiag.capture", ("probes", "kdiag.finding", "kdiag.exitstatus", "kdiag.capture.model", "kdiag.report",
                       "kdiag.inputfile", "kdiag.diagnose")),
    ("kdiag.diff", ("kdiag.finding", "kdiag.jsonform", "kdiag.report", "kdiag.diagnose")),
    ("kdiag.lab", ("probes",)),
    ("kdiag.catalog", ("kdiag.diagnose", "kdiag.lab")),
    ("kdiag.fleet", ("probes", "kdiag.exitstatus", "kdiag.secrets", "kdiag.report", "kdiag.target",
                     "kdiag.credentials", "kdiag.diagnose", "kdiag.lab")),
    ("kdiag.render", ("probes", "kdiag.finding", "kdiag.render.safe", "kdiag.secrets", "kdiag.capture.model",
                      "kdiag.report", "kdiag.orchestrate", "kdiag.explain", "kdiag.diff", "kdiag.lab", "kdiag.catalog",
                      "kdiag.fleet")),
    ("kdiag.fleet.job", ("kdiag.exitstatus", "kdiag.secrets", "kdiag.report", "kdiag.fleet", "kdiag.render")),
    ("kdiag.sinks", ("kdiag.exitstatus",)),
    ("kdiag.watch", ("probes", "kdiag", "kdiag.exitstatus", "kdiag.render.safe", "kdiag.secrets", "kdiag.report",
                     "kdiag.inputfile", "kdiag.target", "kdiag.credentials", "kdiag.diagnose", "kdiag.orchestrate",
                     "kdiag.sinks")),
    ("kdiag.environment", ("kdiag.exitstatus", "kdiag.render.safe", "kdiag.secrets", "kdiag.clientconfig",
                           "kdiag.render")),
    ("kdiag.commands", ("probes", "kdiag.exitstatus", "kdiag.jsonform", "kdiag.report", "kdiag.inputfile",
                        "kdiag.target", "kdiag.clientconfig", "kdiag.credentials", "kdiag.orchestrate", "kdiag.explain",
                        "kdiag.capture", "kdiag.diff", "kdiag.lab", "kdiag.catalog", "kdiag.fleet", "kdiag.render", "kdiag.fleet.job",
                        "kdiag.sinks", "kdiag.watch", "kdiag.environment")),
    ("kdiag.cli", ("kdiag", "kdiag.exitstatus", "kdiag.clientconfig", "kdiag.environment", "kdiag.commands")),
    ("kdiag.__main__", ("kdiag.cli",)),
)
SPARK = ("kdiag.fleet.job", "kdiag.fleet.ingest", "kdiag.fleet.spark_tables")
"""The Spark applications (``spark-submit`` runs each as it is): one room, named after the job."""
ORDER = [name for name, _ in ROOMS]
MAY_IMPORT = dict(ROOMS)
BACK_UP: dict[tuple[str, str], str] = {}
"""(room, the room above it that it imports): why. None today; ARCHITECTURE.md states any there is."""


def room_of(module: str) -> str | None:
    """The room ``module`` belongs to: the longest room name it is or is inside of (``kdiag`` only itself)."""
    if module in SPARK:
        return SPARK[0]
    rooms = [name for name in ORDER if module == name or (name != "kdiag" and module.startswith(name + "."))]
    return max(rooms, key=len, default=None)


def arrows() -> set[tuple[str, str]]:
    """Every (room, room it imports), each import statement of each module counted."""
    return {(room_of(name), room_of(target)) for name, targets in import_graph().items() for target in targets
            if room_of(name) != room_of(target)}


def test_every_module_has_a_room():
    assert sorted(name for name in import_graph() if room_of(name) is None) == []


def test_each_room_imports_only_the_rooms_it_may():
    assert sorted((source, target) for source, target in arrows() if target not in MAY_IMPORT[source]) == []


def upward(rooms: tuple[tuple[str, tuple[str, ...]], ...]) -> set[tuple[str, str]]:
    """The arrows from a room to one listed after it: running back up."""
    order = [name for name, _ in rooms]
    return {(source, target) for source, targets in rooms for target in targets
            if order.index(target) > order.index(source)}


def test_the_rooms_are_layered_and_no_arrow_runs_back_up_but_the_stated_one():
    assert upward(ROOMS) == set(BACK_UP) and len(BACK_UP) <= 1


def test_an_arrow_back_up_is_found():  # the guard guards
    assert upward((("a", ()), ("b", ("a", "c")), ("c", ("a",)))) == {("b", "c")}


def test_the_sanitizer_and_the_secrets_module_are_leaves():
    assert MAY_IMPORT["kdiag.render.safe"] == ("kdiag.finding",)
    assert MAY_IMPORT["kdiag.secrets"] == ("kdiag.render.safe",)


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


def test_architecture_md_has_a_row_for_every_room_in_this_order():
    """ARCHITECTURE.md's table of rooms is ROOMS: the same rooms, bottom first."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text.split("| room | holds | may import |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| `")]
    rooms = [row.split("`")[1].removesuffix("/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
             for row in rows]
    assert rooms == ORDER
