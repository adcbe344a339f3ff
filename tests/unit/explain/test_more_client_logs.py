"""kdiag explain on what kafka-python, aiokafka, segmentio/kafka-go and older librdkafka printed against a
real broker (tests/fixtures/client_logs/<situation>.<library>.log, captured by
tests/integration/test_explain_more_clients.py), without a broker: the expectations are the integration
test's own (tests/client_log_expectations.py)."""

from __future__ import annotations

import pytest

from tests.client_log_expectations import BROKER_SIDE, MORE_CLIENTS_CASES, NOT_READ_YET_BROKER, not_read_yet
from tests.unit.explain.helpers import client_log, explained, ids


@pytest.mark.parametrize("situation, library, expected", [
    pytest.param(*case, id=f"{case[0]}.{case[1]}", marks=not_read_yet(case)) for case in MORE_CLIENTS_CASES])
def test_real_output_of_more_clients_maps_to_the_situations_finding_id(situation, library, expected):
    explanation = explained(client_log(f"{situation}.{library}"))
    if expected is None:
        assert not [f for f in explanation.findings if f.severity == "error"], explanation.findings
        return
    acceptable = (expected,) if isinstance(expected, str) else expected
    assert ids(explanation)[:1] and ids(explanation)[0] in acceptable, explanation.findings
    first = explanation.findings[0]
    # A reading (the client's own guess, a closed connection several causes explain) is a warning that says so.
    assert first.severity == ("warning" if first.evidence.get("certain") is False else "error"), first
    assert first.evidence["lines"], "a finding rests on log lines"
    assert first.evidence["confirm"].startswith("kdiag bootstrap ")
    assert first.fix


@pytest.mark.parametrize("situation", sorted(BROKER_SIDE))
def test_the_brokers_own_log_is_read_from_the_brokers_side(situation):
    if situation in NOT_READ_YET_BROKER:
        pytest.xfail("explain does not read this broker line yet (issue 16)")
    explanation = explained(client_log(f"{situation}.broker"))
    assert ids(explanation)[:1] == [BROKER_SIDE[situation]], explanation.findings
