"""``kdiag bootstrap`` across network namespaces: a client that reaches the broker from elsewhere."""

from __future__ import annotations

import pytest

from kdiag.lab.kafka import BrokerSpec, KafkaBroker, Listener
from kdiag.lab.netns import Host, Link, Topology, lab_up
from tests.kdiag_cli import run_kdiag


@pytest.mark.broker
@pytest.mark.netns
def test_advertised_localhost_reached_through_a_non_loopback_address_is_advertised_loopback(tmp_path):
    topology = Topology(
        name="loopadv",
        hosts=(Host("client"), Host("broker")),
        links=(Link("client", "192.0.2.10", "broker", "192.0.2.1"),),
    )
    spec = BrokerSpec(
        node_id=1,
        listeners=(Listener("EXTERNAL", "0.0.0.0", 9092), Listener("INTERNAL", "127.0.0.1", 19092)),
        advertised=(Listener("EXTERNAL", "localhost", 9092), Listener("INTERNAL", "127.0.0.1", 19092)),
        inter_broker_listener="INTERNAL",
        controller_port=19093,
    )
    with lab_up(topology) as live:
        with KafkaBroker.start(spec, workdir=tmp_path, netns=live.ns("broker")):
            run = run_kdiag("bootstrap", "192.0.2.1:9092", "--json", netns=live.ns("client"))
    assert run.exit_code == 1, run.stderr
    assert run.stage("metadata")["status"] == "ok"
    assert run.stage("advertised")["status"] == "fail"
    ids = {f["id"] for f in run.report["findings"] if f["severity"] in ("error", "warning")}
    assert ids == {"ADVERTISED_LOOPBACK"}
    finding = run.finding("ADVERTISED_LOOPBACK")
    assert "localhost" in finding["title"]
    assert "192.0.2.1" in finding["fix"], "the fix advertises the address the client actually used"
    [broker] = run.report["cluster"]["brokers"]
    assert (broker["host"], broker["tcp"]["status"]) == ("localhost", "refused")
