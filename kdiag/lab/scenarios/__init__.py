"""The lab's scenarios: every module here but ``base`` exposes ``SCENARIOS``, a tuple of :class:`Scenario`.

Adding a family of scenarios is adding a module: nothing here needs editing. Scenario names are
unique across modules, and so are topology names (they appear in every namespace name of a run).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from kdiag.lab.netns import LabError
from kdiag.lab.scenarios.base import (Expect, FindingExpect, LabBroker, Scenario, Vantage, compare, finding,
                                      healthy, problems)

__all__ = [
    "Expect", "FindingExpect", "LabBroker", "Scenario", "Vantage", "all_scenarios", "compare", "finding",
    "get_scenario", "healthy", "problems",
]


@cache
def all_scenarios() -> tuple[Scenario, ...]:
    """Every scenario, in module order then declaration order; names and topology names unique."""
    scenarios: list[Scenario] = []
    for module in sorted(info.name for info in pkgutil.iter_modules(__path__)):
        if module == "base" or module.startswith("_"):
            continue
        scenarios.extend(importlib.import_module(f"{__name__}.{module}").SCENARIOS)
    for attribute in ("name", "topology.name"):
        values = [scenario.name if attribute == "name" else scenario.topology.name for scenario in scenarios]
        repeated = sorted({value for value in values if values.count(value) > 1})
        if repeated:
            raise LabError(f"two scenarios share the {attribute} {', '.join(repeated)}")
    return tuple(scenarios)


def get_scenario(name: str) -> Scenario:
    """The scenario called ``name``; :class:`LabError` naming the known ones otherwise."""
    for scenario in all_scenarios():
        if scenario.name == name:
            return scenario
    known = ", ".join(scenario.name for scenario in all_scenarios())
    raise LabError(f"no scenario {name!r} (known: {known}; see kdiag lab list)")
