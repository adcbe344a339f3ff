"""``localhost`` is 127.0.0.1 and ::1 both: a refused connect to the name with no line showing which address was tried
(librdkafka before 1.0's ``Failed to connect to broker at [localhost]:9092: Connection refused``, rdkafka_broker.c), or
a client that gave up bootstrapping through it with no reason (kafka-python's NoBrokersAvailable), is a certain
refusal, and the broker listening on one family only (the IPv4/IPv6 split) an "Or" reading beside it."""

from __future__ import annotations

from tests.unit.explain.helpers import explained, ids


def test_localhost_refused_with_no_address_shown_is_refused_with_the_family_split_beside_it():
    line = ("%3|1418300191.000|FAIL|rdkafka#producer-0| localhost:9092/bootstrap: Failed to connect to broker at "
            "[localhost]:9092: Connection refused")
    refused, split = explained(line).findings
    assert (refused.id, refused.severity) == ("BOOTSTRAP_REFUSED", "error")
    assert (split.id, split.severity, split.title.split(":")[0]) == ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning", "Or")


def test_an_address_that_is_not_localhost_refused_stays_certain():
    line = ("%3|1418300191.000|FAIL|rdkafka#producer-0| b1.example:9092/bootstrap: Failed to connect to broker at "
            "[b1.example]:9092: Connection refused")
    assert [(f.id, f.severity) for f in explained(line).findings] == [("BOOTSTRAP_REFUSED", "error")]


def test_localhost_refused_on_its_ipv4_address_stays_certain():
    line = ("%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: "
            "Connect to ipv4#127.0.0.1:9092 failed: Connection refused (after 0ms in state CONNECT)")
    assert "ADVERTISED_ADDRESS_FAMILY_SPLIT" not in ids(explained(line))


def test_giving_up_on_a_localhost_bootstrap_adds_the_family_split_to_the_readings():
    paste = ("producer = KafkaProducer(bootstrap_servers=['localhost:9092'])\n"
             "kafka.errors.NoBrokersAvailable: NoBrokersAvailable")
    found = explained(paste).findings
    assert "ADVERTISED_ADDRESS_FAMILY_SPLIT" in [f.id for f in found]
    assert all(f.severity == "warning" for f in found)
