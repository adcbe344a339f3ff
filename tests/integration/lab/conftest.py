"""Fixtures for the lab's integration tests: root, and scenarios brought up one at a time.

A test module that checks scenarios parametrises over (scenario name, vantage) in scenario order and
calls ``lab(name)``: the scenario comes up on first use and stays up for the tests after it, until the
next scenario replaces it (one set of brokers at a time suits a 2-core CI machine).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kdiag.lab.netns import LabError, require_root
from tests.labrun import OneScenarioAtATime


@pytest.fixture(scope="module", autouse=True)
def as_root() -> None:
    """The lab needs root: without it every test here fails (CI runs them as root), none skips."""
    try:
        require_root()
    except LabError as error:
        pytest.fail(f"{error}. The lab tests must run as root (CI runs them with sudo).", pytrace=False)


@pytest.fixture(scope="module")
def lab() -> Iterator[OneScenarioAtATime]:
    holder = OneScenarioAtATime()
    try:
        yield holder
    finally:
        holder.close()
