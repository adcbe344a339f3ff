"""A name refused on its IPv6 addresses only: the broker may be down there, or listen on IPv4 only while the client
never tried the name's IPv4 address. Both readings, neither certain (a loopback name stays certain: it has 127.0.0.1).
Lines in the clients' own formats, documentation addresses only."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids


def test_a_name_refused_on_ipv6_only_reads_the_family_split_beside_the_refusal():
    # kafka-python before 1.0, conn.py: "Connect attempt to %s returned error %s. Disconnecting." with the connection's
    # repr <BrokerConnection host=name/address port=N> once the name resolved.
    log = ("ERROR    Connect attempt to <BrokerConnection host=kafka-1.example/2001:db8::10 port=9092> returned error "
           "111. Disconnecting.")
    explanation = explained(log)
    assert "ADVERTISED_ADDRESS_FAMILY_SPLIT" in ids(explanation)
    assert {f.severity for f in explanation.findings} == {"warning"}
    split = next(f for f in explanation.findings if f.id == "ADVERTISED_ADDRESS_FAMILY_SPLIT")
    assert split.title.startswith("Or: ") and "2001:db8::10" in split.explanation and "127.0.0.1" not in split.explanation


def test_a_name_refused_on_ipv4_is_no_family_split():
    log = ("ERROR    Connect attempt to <BrokerConnection host=kafka-1.example/192.0.2.10 port=9092> returned error "
           "111. Disconnecting.")
    assert "ADVERTISED_ADDRESS_FAMILY_SPLIT" not in ids(explained(log))
