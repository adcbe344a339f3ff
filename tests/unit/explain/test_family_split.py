"""explain: localhost refused on its IPv6 address only is the IPv6/IPv4 split (failure mode #7), not a dead port.

The lines are librdkafka's own, as a confluent-kafka producer printed them against the lab's
localhost-ipv4-only broker (the integration test re-captures them live).
"""

from __future__ import annotations

from kdiag.explain import explain_text

IPV6_REFUSED = ("%3|1795271000.250|FAIL|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: "
                "Connect to ipv6#[::1]:9092 failed: Connection refused (after 0ms in state CONNECT)\n")
ALL_DOWN = "%3|1795271000.251|ERROR|rdkafka#producer-1| [thrd:app]: rdkafka#producer-1: 1/1 brokers are down\n"
IPV4_REFUSED = IPV6_REFUSED.replace("ipv6#[::1]", "ipv4#127.0.0.1")


def problems(text: str) -> list[str]:
    return [f.id for f in explain_text(text).findings if f.severity in ("error", "warning")]


def test_ipv6_only_refusals_of_localhost_are_the_family_split_with_its_fix():
    [finding] = explain_text(IPV6_REFUSED * 3 + ALL_DOWN).findings
    assert finding.id == "ADVERTISED_ADDRESS_FAMILY_SPLIT" and finding.severity == "warning"
    assert "only on IPv4" in finding.title
    assert "broker.address.family=v4" in finding.fix and "listeners=PLAINTEXT://:9092" in finding.fix


def test_refusals_on_both_families_are_a_refused_bootstrap():
    assert problems(IPV6_REFUSED + IPV4_REFUSED) == ["BOOTSTRAP_REFUSED"]


def test_ipv4_refusals_alone_are_a_refused_bootstrap():
    assert problems(IPV4_REFUSED) == ["BOOTSTRAP_REFUSED"]
