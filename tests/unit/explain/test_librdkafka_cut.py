"""librdkafka's lines as pastes cut them: wrapped between words by a mailer or a comment box (the broker's name on one
line, ``to resolve 'host:port': ...`` on the next), or ending mid-word. librdkafka's own format (rdkafka.c: ``%i|%u.%03u|
%s|%s| [thrd:%s]: %s: %s``; rdkafka_broker.c: ``Failed to resolve '%s': %s``) says where the message was cut."""

from __future__ import annotations

import pytest

from kdiag.explain.normalize import normalise_block
from kdiag.explain.reader import text_blocks
from tests.unit.explain.helpers import explained, ids, only

HEAD = "%3|1641388116.211|FAIL|rdkafka#producer-1|"
WRAPPED_BETWEEN_WORDS = (f"{HEAD}\n[thrd:kafka-1.example:9092/bootstrap]: kafka-1.example:9092/bootstrap: Failed\n"
                         "to resolve 'kafka-1.example:9092': No such host is known.  (after 2317ms in\n"
                         "state CONNECT)\n") * 2


def test_a_resolve_failure_wrapped_between_words_keeps_the_role_its_broker_name_gave():
    found = only(explained(WRAPPED_BETWEEN_WORDS), "BOOTSTRAP_UNRESOLVABLE")
    assert found.severity == "error" and found.evidence["role"] == "bootstrap"
    assert (found.evidence["host"], found.evidence["port"], found.evidence["dns_status"]) == \
        ("kafka-1.example", 9092, "nxdomain")


def test_an_advertised_brokers_name_wrapped_the_same_way_is_the_advertised_case():
    paste = ("[thrd:kafka-broker:9092/1]: kafka-broker:9092/1: Failed to\nresolve 'kafka-broker:9092': Name or service "
             "not known (after 1ms in state CONNECT)\n")
    assert ids(explained(paste)) == ["ADVERTISED_UNRESOLVABLE"]


def test_a_continuation_no_cut_line_precedes_names_no_role():
    found = explained("to resolve 'kafka-1.example:9092': Name or service not known\n").findings
    assert sorted(f.id for f in found) == ["ADVERTISED_UNRESOLVABLE", "BOOTSTRAP_UNRESOLVABLE"]
    assert {f.severity for f in found} == {"warning"}


def test_a_whole_resolve_line_is_read_once():
    line = ("%3|1|FAIL|rdkafka#producer-1| [thrd:kafka-1:9092/2]: kafka-1:9092/2: Failed to resolve 'kafka-1:9092': "
            "Name or service not known (after 1ms in state CONNECT)")
    assert ids(explained(line)) == ["ADVERTISED_UNRESOLVABLE"]


@pytest.mark.parametrize("cut", ["Failed to reso", "Failed to resol", "Failed to resolv", "Failed to resolve"])
def test_a_paste_that_ends_mid_word_in_a_resolve_failure_is_that_failure_its_reason_cut_off(cut):
    paste = f"%3|1677578524.581|FAIL|rdkafka#producer-1| [thrd:kafka-broker:9092/0]: kafka-broker:9092/0: {cut}"
    found = only(explained(paste), "ADVERTISED_UNRESOLVABLE")
    assert found.evidence["node_id"] == 0 and found.evidence["dns_status"] == "error"


def test_a_line_cut_after_failed_with_nothing_resolving_below_says_nothing():
    assert ids(explained("[thrd:kafka-1:9092/bootstrap]: kafka-1:9092/bootstrap: Failed\nsomething else entirely\n")) \
        == []


def test_lines_wrapped_between_words_are_not_read_as_a_wrap_at_a_column():
    """Three lines of one length going on in the next would be a wrap at a column, but a shorter line whose next word
    would not have fitted after it says the lines were wrapped between words: joining them without their space would
    make "Failedto resolve"."""
    paste = WRAPPED_BETWEEN_WORDS.replace("2317ms", "231745ms")  # four lines of 77 characters, each going on
    assert [len(line) for line in paste.split("\n")].count(77) == 4
    lines = normalise_block(next(iter(text_blocks(paste)))).lines
    assert lines == paste.rstrip("\n").split("\n")
    assert only(explained(paste), "BOOTSTRAP_UNRESOLVABLE").severity == "error"


@pytest.mark.parametrize("paste", [
    # cut between "Connect" and "to", between "to" and the address, and right after the broker's name
    "[thrd:kafka-2.example:9092/2]: kafka-2.example:9092/2: Connect\nto ipv4#10.0.0.6:9092 failed: Connection refused "
    "(after 0ms in state CONNECT)\n",
    "[thrd:kafka-2.example:9092/2]: kafka-2.example:9092/2: Connect to\nipv4#10.0.0.6:9092 failed: Connection refused "
    "(after 0ms in state CONNECT)\n",
    "%3|1|FAIL|rdkafka#producer-1| [thrd:kafka-2.example:9092/2]: kafka-2.example:9092/2: Failed\n"
    "to resolve 'kafka-2.example:9092': Name or service not known\n",
    "2024-05-01 10:00:00 ERROR [thrd:kafka-2.example:9092/bootstrap]: kafka-2.example:9092/bootstrap:\n"
    "2024-05-01 10:00:00 ERROR Connect to ipv4#10.0.0.6:9092 failed: Connection refused (after 0ms in state CONNECT)\n",
])
def test_a_line_cut_after_its_broker_name_gives_the_rest_its_role(paste):
    found = explained(paste).findings
    expected = "BOOTSTRAP_REFUSED" if "/bootstrap" in paste else \
        "ADVERTISED_UNRESOLVABLE" if "resolve" in paste else "ADVERTISED_UNREACHABLE"
    # an advertised broker (named by node id) refusing also has the Or reading PARTIAL_CLUSTER beside it
    certain = [(f.id, f.severity) for f in found if f.id != "PARTIAL_CLUSTER"]
    assert certain == [(expected, "error")]
    assert all(f.severity == "warning" for f in found if f.id == "PARTIAL_CLUSTER")
    assert found[0].evidence["host"] == "kafka-2.example"


def test_a_whole_connect_line_is_read_once():
    line = ("%3|1|FAIL|rdkafka#producer-1| [thrd:kafka-2.example:9092/2]: kafka-2.example:9092/2: Connect to "
            "ipv4#10.0.0.6:9092 failed: Connection refused (after 0ms in state CONNECT)")
    assert [i for i in ids(explained(line)) if i != "PARTIAL_CLUSTER"] == ["ADVERTISED_UNREACHABLE"]


@pytest.mark.parametrize("hidden", ["<ip-address-1>", "***", "xxx.xxx.xxx.xxx"])
@pytest.mark.parametrize("cut", [" ", "\n", " Connect\nto ", " Connect to\n"])
def test_a_hidden_address_in_a_connect_failure_is_no_address_whole_or_cut(hidden, cut):
    """A paste that hides the address a broker's name resolved to (``<ip-address-1>``, ``***``, ``xxx.xxx.xxx.xxx``)
    tells the broker's name and not where it pointed: whole or cut after the broker's name, the finding names the
    broker and no address (a hidden one is not an address to check)."""
    head = "[thrd:b-1.kafka.example:9092/bootstrap]: b-1.kafka.example:9092/bootstrap:"
    rest = f"ipv4#{hidden}:9092 failed: Connection refused (after 0ms in state CONNECT)\n"
    paste = f"{head}{cut}{rest}" if "Connect" in cut else f"{head}{cut}Connect to {rest}"
    found = only(explained(paste), "BOOTSTRAP_REFUSED")
    assert found.severity == "error"
    assert (found.evidence["host"], found.evidence["port"]) == ("b-1.kafka.example", 9092)
    assert not found.evidence.get("addresses") and hidden not in found.title
