"""Fixtures of the sidecar's unit tests: its HTTP server on a real socket with the state set by hand
(``serve``), and a CA with a server and a client certificate (``pki``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kdiag.lab.certs import issue, make_ca
from kdiag.orchestrate import BootstrapOptions
from kdiag.report import Endpoint
from kdiag.watch.http import HttpSettings, WatchServer, bind
from kdiag.watch.metrics import AgentMetrics
from kdiag.watch.state import AgentState
from tests.unit.watch.reports import refused


@pytest.fixture
def serve() -> Iterator:
    """``serve(state, ready_when=, interval=, **HttpSettings fields)``: a running WatchServer whose
    /probe answers ``refused()`` and whose scrubber masks "cid"."""
    servers: list[WatchServer] = []

    def start(state: AgentState | None = None, *, ready_when: str = "probed", interval: float = 30.0,
              **settings: float) -> WatchServer:
        state = state or AgentState()
        server = bind(("127.0.0.1", 0), settings=HttpSettings(interval, 0.1, ready_when, **settings), state=state,
                      registry=AgentMetrics(state, []).registry,
                      probe_options=BootstrapOptions(targets=(Endpoint("127.0.0.1", 1),)),
                      probe=lambda options: refused(), scrub=lambda text: text.replace("cid", "***"))
        server.serve_in_background()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ca.pem``; ``server.pem``/``server.key`` for 127.0.0.1 and localhost; ``client.pem``/``client.key``
    (extended key usage clientAuth)."""
    directory = tmp_path_factory.mktemp("pki")
    make_ca(directory)
    issue(directory, "server", san="IP:127.0.0.1,DNS:localhost")
    issue(directory, "client", usage="clientAuth")
    return directory
