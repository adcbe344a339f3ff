"""The agent's HTTP endpoints on a real socket, with the state set by hand."""

from __future__ import annotations

import urllib.error
import urllib.request

from kdiag.watch.http import WatchServer
from kdiag.watch.state import AgentState
from tests.clock import ManualClock
from tests.unit.watch.reports import healthy, refused


def get(server: WatchServer, path: str) -> tuple[int, str]:
    host, port = server.server_address[:2]
    try:
        with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_readyz_waits_for_the_first_probe_and_by_default_does_not_follow_kafka(serve) -> None:
    state = AgentState()
    server = serve(state)
    assert get(server, "/readyz")[0] == 503
    assert get(server, "/report")[0] == 503
    state.record(refused(), '{"report": "refused"}')
    assert get(server, "/readyz") == (200, "ok\n")
    assert get(server, "/report") == (200, '{"report": "refused"}\n')


def test_readyz_healthy_follows_the_last_probe(serve) -> None:
    state = AgentState()
    server = serve(state, ready_when="healthy")
    state.record(refused(), "{}")
    status, body = get(server, "/readyz")
    assert status == 503 and "BOOTSTRAP_REFUSED" in body
    state.record(healthy(), "{}")
    assert get(server, "/readyz")[0] == 200


def test_livez_fails_when_no_probe_finished_for_two_intervals_and_the_timeout(serve) -> None:
    clock = ManualClock()
    state = AgentState(clock=clock)
    server = serve(state, interval=0.1)
    assert get(server, "/livez")[0] == 200
    clock.advance(0.31)  # past 2 × 0.1 + 0.1
    status, body = get(server, "/livez")
    assert status == 503 and body.startswith("no probe finished for")
    state.finished()
    assert get(server, "/livez")[0] == 200


def test_probe_answers_with_that_probes_metrics_scrubbed_and_rejects_a_bad_target(serve) -> None:
    server = serve(AgentState())
    status, body = get(server, "/probe?target=127.0.0.1:1")
    assert status == 200
    assert 'kdiag_finding{id="BOOTSTRAP_REFUSED",severity="error"} 1.0' in body
    assert get(server, "/probe?target=a:b:c")[0] == 400
    assert get(server, "/probe")[0] == 400
    assert get(server, "/other")[0] == 404
