"""Sarama's ErrLeaderNotAvailable ("kafka server: In the middle of a leadership election, there is currently no leader
for this partition and hence it is unavailable for writes.", errors.go) covers more than its words: client.cachedLeader
returns it when the metadata names no leader, and also when the leader's broker is not registered, which it is not
after its connection failed (tryRefreshMetadata deregisters it). So alone it is NO_LEADER, likely, with the advertised
broker not usable from the client beside it; with a line that shows that broker failing, it is that failure's
consequence. The other clients' spellings of LEADER_NOT_AVAILABLE come from the broker's answer and stay certain."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids

SARAMA = ("kafka server: In the middle of a leadership election, there is currently no leader for this partition and "
          "hence it is unavailable for writes.")


def test_saramas_leader_not_available_alone_is_no_leader_or_an_advertised_broker_not_reached():
    found = {f.id: f for f in explained(f"2015/02/04 10:00:00 {SARAMA}").findings}
    assert set(found) == {"NO_LEADER", "ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE"}
    assert found["NO_LEADER"].title.startswith("Likely: ") and "deregisters a broker" in found["NO_LEADER"].explanation
    for reading in ("ADVERTISED_UNRESOLVABLE", "ADVERTISED_UNREACHABLE"):
        assert found[reading].severity == "warning" and found[reading].title.startswith("Or: ")
        # no line shows a lookup or a connect: the reading claims neither's answer
        assert not {"dns_status", "tcp_status"} & set(found[reading].evidence)
        assert "NXDOMAIN" not in found[reading].explanation


def test_with_the_leaders_broker_failing_in_the_paste_it_is_that_failures_consequence():
    paste = ("[sarama] client/brokers registered new broker #1 at laptop.local:9092\n"
             "[sarama] Failed to connect to broker laptop.local:9092: dial tcp: lookup laptop.local: no such host\n"
             f"{SARAMA}\n")
    [finding] = explained(paste).findings
    assert (finding.id, finding.severity) == ("ADVERTISED_UNRESOLVABLE", "error")
    assert any("leadership election" in c["line"] for c in finding.evidence["consequences"])


@pytest.mark.parametrize("line", [
    "KafkaJSProtocolError: There is no leader for this topic-partition as we are in the middle of a leadership election",
    "% ERROR: Topic orders [2] error: Broker: Leader not available",
    "WARN [Producer clientId=p] Error while fetching metadata with correlation id 4 : {orders=LEADER_NOT_AVAILABLE}",
])
def test_the_other_clients_leader_not_available_is_the_brokers_answer(line):
    assert ids(explained(line)) == ["NO_LEADER"]
    assert not explained(line).findings[0].title.startswith("Likely")
