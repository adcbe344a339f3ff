"""A bootstrap address written as a listener (``SASL_SSL://kafka:9092``) that a Go client dials as written: franz-go's
parseBrokerAddr gives an address net.SplitHostPort cannot split to the default port whole (``[SASL_SSL://h:9092]:9092``,
net.JoinHostPort's brackets); Sarama and kafka-go hand it to net.Dial (``dial tcp: address ...: too many colons in
address``). Documentation hosts only."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

FRANZ_GO_JSON = ('{"level":"warn","ts":"2026-12-07T10:00:00.000Z","logger":"kafka_client","msg":"unable to open '
                 'connection to broker","addr":"[SASL_SSL://kafka-1.example:9092]:9092","broker":"seed_0",'
                 '"err":"dial tcp: lookup SASL_SSL://kafka-1.example:9092: no such host"}')
FRANZ_GO_TEXT = ("[WARN] unable to open connection to broker; addr: [PLAINTEXT://kafka-1.example:9092]:9092, broker: "
                 "seed_0, err: dial tcp: lookup PLAINTEXT://kafka-1.example:9092: no such host")
SARAMA = ("[sarama] 2026/12/07 10:00:00 Failed to connect to broker EXTERNAL://kafka-1.example:9094: dial tcp: address "
          "EXTERNAL://kafka-1.example:9094: too many colons in address")


@pytest.mark.parametrize("line, scheme", [(FRANZ_GO_JSON, "SASL_SSL"), (FRANZ_GO_TEXT, "PLAINTEXT"),
                                          (SARAMA, "EXTERNAL")])
def test_a_bootstrap_address_with_a_listeners_scheme_is_certain_and_says_to_drop_the_scheme(line, scheme):
    finding = only(explained(line), "BOOTSTRAP_UNRESOLVABLE")
    assert finding.severity == "error" and f"({scheme}://)" in finding.title
    assert finding.evidence["role"] == "bootstrap"
    assert "kafka-1.example:909" in finding.fix and "no scheme" in finding.fix
    assert "kdiag bootstrap kafka-1.example:909" in finding.fix  # the confirm command dials the plain address


def test_a_franz_go_seed_cut_before_its_error_still_shows_the_scheme():
    line = ('{"level":"warn","logger":"kafka_client","msg":"unable to open connection to broker",'
            '"addr":"[SASL_PLAINTEXT://kafka-1.example:9092]:9092"')
    assert ids(explained(line)) == ["BOOTSTRAP_UNRESOLVABLE"]


def test_a_url_in_a_go_line_that_is_not_the_dialled_address_is_not_read_as_a_scheme():
    line = ('Post "https://registry.example:8081/subjects": dial tcp: lookup registry.example: no such host')
    assert all("scheme" not in f.title for f in explained(line).findings)


def test_librdkafkas_own_protocol_prefix_is_not_a_scheme_dialled():
    line = ("%3|1765101600.000|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://kafka-1.example:9093/bootstrap]: "
            "sasl_ssl://kafka-1.example:9093/bootstrap: Connect to ipv4#192.0.2.10:9093 failed: Connection refused "
            "(after 0ms in state CONNECT)")
    found = explained(line).findings
    assert [f.id for f in found] == ["BOOTSTRAP_REFUSED"] and "scheme" not in found[0].title
