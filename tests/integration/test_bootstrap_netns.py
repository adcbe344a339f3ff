"""``kdiag bootstrap`` across network namespaces: a client that reaches the broker from elsewhere."""

from __future__ import annotations

import pytest

from tests.kdiag_cli import run_kdiag
from tests.netns_broker import BROKER_BOOTSTRAP, broker_beside_client


@pytest.mark.broker
@pytest.mark.netns
def test_advertised_localhost_reached_through_a_non_loopback_address_is_advertised_loopback(tmp_path):
    with broker_beside_client("loopadv", tmp_path, advertised_host="localhost") as (live, _broker):
        run = run_kdiag("bootstrap", BROKER_BOOTSTRAP, "--json", netns=live.ns("client"))
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
