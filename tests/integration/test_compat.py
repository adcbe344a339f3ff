"""The compatibility matrix's slice that CI runs on every change (tests/compat/matrix.py ``CI_SLICE``): a
Kafka before 2.4 in ZooKeeper mode, and kfake at the protocol versions of 0.10, 0.11, 1.0 and 2.0. Each
case's verdict is the one written in the matrix; ``scripts/compat`` runs all of it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from tests.compat.matrix import CASE_BY_NAME, CI_SLICE, Target
from tests.compat.run import Endpoints, run_case, started


class Started:
    """Each target of the slice started on first use and kept for the module (one at a time would also do)."""

    def __init__(self, stack: ExitStack, workdir) -> None:
        self.stack, self.workdir, self.endpoints = stack, workdir, {}

    def __call__(self, target: Target) -> Endpoints:
        if target not in self.endpoints:
            self.endpoints[target] = self.stack.enter_context(started(target, self.workdir / target.id))
        return self.endpoints[target]


@pytest.fixture(scope="module")
def targets(tmp_path_factory) -> Iterator[Started]:
    with ExitStack() as stack:
        yield Started(stack, tmp_path_factory.mktemp("compat"))


@pytest.mark.parametrize(("target", "case"), CI_SLICE, ids=[f"{t.id}/{c}" for t, c in CI_SLICE])
def test_kdiag_gives_the_verdict_the_matrix_expects(targets, target: Target, case: str) -> None:
    outcome = run_case(target, CASE_BY_NAME[case], targets(target))
    assert outcome.ok, f"{target.name}, {case}: {outcome.verdict}, expected {outcome.expected}"
