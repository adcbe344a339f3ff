"""A Java client that gave up on one partition whose leader it did not know (the producer's ProducerBatch.maybeExpire
before 2.1, the consumer's position lookup): a partition without a leader is the likely reading, a leader whose
advertised address the client cannot reach the other; never a certain error."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained


@pytest.mark.parametrize("line", [
    "org.apache.kafka.common.errors.TimeoutException: Batch containing 12 record(s) expired due to timeout while "
    "requesting metadata from brokers for payments-7",
    "org.apache.kafka.common.errors.TimeoutException: Timeout of 30000ms expired before the position for partition "
    "payments-7 could be determined",
])
def test_a_partition_the_client_gave_up_on_is_likely_leaderless_or_its_leader_unreachable(line):
    found = explained(line).findings
    assert {f.id for f in found} == {"NO_LEADER", "ADVERTISED_UNREACHABLE"}
    assert all(f.severity in ("warning", "info") for f in found)
    leaderless = next(f for f in found if f.id == "NO_LEADER")
    assert leaderless.title.startswith("Likely: ") and "payments" in leaderless.title
