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
    finding, refused = explain_text(IPV6_REFUSED * 3 + ALL_DOWN).findings
    assert finding.id == "ADVERTISED_ADDRESS_FAMILY_SPLIT" and finding.severity == "warning"
    assert "only on IPv4" in finding.title
    assert "broker.address.family=v4" in finding.fix and "listeners=PLAINTEXT://:9092" in finding.fix
    # no line says what 127.0.0.1 answered: nothing listening at all is the other reading (test_family_split_readings)
    assert refused.id == "BOOTSTRAP_REFUSED" and refused.title.startswith("Or: ")


def test_refusals_on_both_families_are_a_refused_bootstrap():
    assert problems(IPV6_REFUSED + IPV4_REFUSED) == ["BOOTSTRAP_REFUSED"]


def test_ipv4_refusals_alone_are_a_refused_bootstrap():
    assert problems(IPV4_REFUSED) == ["BOOTSTRAP_REFUSED"]


# The same refusal from a connection the metadata gave (librdkafka's host:port/1, its GroupCoordinator): a broker elsewhere
# advertising localhost sends the client to itself (ADVERTISED_LOOPBACK), or the broker is on the client's machine and
# binds IPv4 only (the split); what the paste shows of the bootstrap, or the IPv4 loopback refused too, decides which is
# likely.
ADVERTISED_IPV6 = ("% ERROR: Local: Broker transport failure: localhost:9092/1: Connect to ipv6#[::1]:9092 failed: "
                   "Connection refused (after 1ms in state CONNECT)\n")
COORDINATOR_IPV6 = "GroupCoordinator: Connect to ipv6#[::1]:9092 failed: Connection refused (after 0ms in state CONNECT)\n"


def readings(text: str) -> list[tuple[str, str]]:
    return [(f.id, f.title.split(":")[0]) for f in explain_text(text).findings]


def test_an_advertised_localhost_refused_on_ipv6_alone_is_the_split_or_a_loopback_advertised():
    for line in (ADVERTISED_IPV6, COORDINATOR_IPV6):
        assert readings(line) == [("ADVERTISED_ADDRESS_FAMILY_SPLIT", "Likely"), ("ADVERTISED_LOOPBACK", "Or")]
        assert {f.severity for f in explain_text(line).findings} == {"warning"}


def test_a_remote_bootstrap_makes_the_loopback_advertised_the_likely_reading():
    text = "$ kcat -b 203.0.113.5:9092 -P -t orders\n" + ADVERTISED_IPV6
    assert readings(text) == [("ADVERTISED_LOOPBACK", "Likely"), ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "Or")]
    assert "bootstrap address is not loopback" in explain_text(text).findings[0].explanation


def test_the_ipv4_loopback_refused_too_makes_the_loopback_advertised_the_likely_reading():
    text = ADVERTISED_IPV6 + ADVERTISED_IPV6.replace("ipv6#[::1]", "ipv4#127.0.0.1") + COORDINATOR_IPV6
    assert ("ADVERTISED_LOOPBACK", "Likely") in readings(text)
    assert ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "Likely") not in readings(text)


def test_a_loopback_bootstrap_keeps_the_split_alone():
    text = "$ kcat -b localhost:9092 -L\n" + ADVERTISED_IPV6
    assert [f.id for f in explain_text(text).findings] == ["ADVERTISED_ADDRESS_FAMILY_SPLIT"]
