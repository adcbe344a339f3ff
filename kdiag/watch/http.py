"""The agent's HTTP endpoints, on the standard library's threading server.

``/metrics`` (Prometheus text, or OpenMetrics when asked), ``/livez`` (no probe finished for
``2 × interval + timeout``: 503), ``/readyz`` (200 once the first probe is done; with
``ready_when="healthy"`` only while the last probe found no error), ``/report`` (the last report's
JSON, scrubbed) and ``/probe?target=HOST:PORT`` (blackbox_exporter's multi-target style: one probe
on demand, bounded by Prometheus's ``X-Prometheus-Scrape-Timeout-Seconds``, its metrics in the answer;
only for the targets ``access.ProbeAccess`` allows, with the credentials it binds to them, else 403).

Connections are bounded in number and in the time a request takes to arrive (``connections``); with a
web config (``webconfig``) they are TLS, and every endpoint but ``/livez`` and ``/readyz`` asks for
basic auth.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from kdiag.exitstatus import UsageError
from kdiag.orchestrate import BootstrapOptions
from kdiag.report import Report
from kdiag.watch.access import ProbeAccess, advertised_endpoints
from kdiag.watch.bounded import BoundedRunner
from kdiag.watch.connections import MAX_CONNECTIONS, READ_TIMEOUT, ConnectionLimiter
from kdiag.watch.metrics import build_info, probe_registry
from kdiag.watch.state import AgentState, probe_succeeded
from kdiag.watch.webconfig import BasicAuth, TlsContexts, WebConfig
from probes.hostport import hostport

READY_WHEN = ("probed", "healthy")
PROBE_CONCURRENCY = 4  # /probe requests running at once; more get 503
SCRAPE_MARGIN = 0.5  # seconds kept from Prometheus's scrape timeout to answer in
SOCKET_TIMEOUT = 10.0  # one read or write of an answer; the request's whole head has READ_TIMEOUT
ANSWER_MARGIN = 30.0  # seconds an answer may take beyond --timeout (the longest /probe) to be written
OPEN_PATHS = ("/livez", "/readyz")  # answered without basic auth: the kubelet's probes cannot send one


@dataclass(frozen=True)
class HttpSettings:
    interval: float
    timeout: float
    ready_when: str = "probed"
    max_connections: int = MAX_CONNECTIONS
    read_timeout: float = READ_TIMEOUT


class WatchServer(ThreadingHTTPServer):
    """The endpoints on a threading server whose connections are bounded (``ConnectionLimiter``: at
    most ``max_connections`` threads, a request head within ``read_timeout``, an answer within ``timeout``
    + ``ANSWER_MARGIN``), over TLS and behind
    basic auth when the web config asks for them, ``/probe`` only where ``access`` allows."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the listen backlog: connections wait there, not in threads

    def __init__(self, address: tuple[str, int], *, settings: HttpSettings, state: AgentState,
                 registry: CollectorRegistry, probe_options: BootstrapOptions,
                 probe: Callable[[BootstrapOptions], Report], scrub: Callable[[str], str],
                 access: ProbeAccess | None = None, web: WebConfig | None = None,
                 count_probe_request: Callable[[str], None] = lambda answer: None) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        web = web or WebConfig()
        self.tls = TlsContexts(web.tls) if web.tls is not None else None
        self.auth = BasicAuth(web.users)
        self.extra_headers = web.headers
        self.limiter = ConnectionLimiter(settings.max_connections, settings.read_timeout,
                                         settings.timeout + ANSWER_MARGIN, clock=state.clock)
        self.settings = settings
        self.state = state
        self.registry = registry
        self.probe_options = probe_options
        self.access = access if access is not None else ProbeAccess(probe_options.targets)
        self.probe = probe
        self.count_probe_request = count_probe_request  # kdiag_probe_requests_total{answer}
        self.scrub = scrub
        self.probe_slots = threading.BoundedSemaphore(PROBE_CONCURRENCY)
        super().__init__(address, _Handler)

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        if self.limiter.admit(request) is None:  # every connection is busy answering: no thread for this one
            super().shutdown_request(request)
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket) -> None:  # type: ignore[override]
        self.limiter.release(request)
        super().shutdown_request(request)

    def service_actions(self) -> None:
        """Run by ``serve_forever`` between requests (every ``poll_interval`` at least)."""
        self.limiter.reap()

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if isinstance(sys.exc_info()[1], OSError):  # a client that hung up, failed TLS, was reaped: nothing to say
            return
        super().handle_error(request, client_address)

    def serve_in_background(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.2}, name="kdiag-http",
                                  daemon=True)
        thread.start()
        return thread


def bind(address: tuple[str, int], **kwargs) -> WatchServer:
    """The server bound to ``address``; UsageError (one line) if the address cannot be used."""
    try:
        return WatchServer(address, **kwargs)
    except OSError as exc:
        shown = hostport(*address)
        if exc.errno == 98:
            raise UsageError(f"--listen {shown}: the port is already in use") from None
        raise UsageError(f"--listen {shown}: cannot listen there: {exc.strerror or exc}") from None


class _Handler(BaseHTTPRequestHandler):
    server: WatchServer
    protocol_version = "HTTP/1.1"
    server_version = "kdiag-watch"
    timeout = SOCKET_TIMEOUT

    def setup(self) -> None:
        self.raw = raw = self.request
        self.slot = self.server.limiter.connection(raw)
        if self.server.tls is not None:  # the handshake is part of reading the request: the reaper bounds it
            raw.settimeout(SOCKET_TIMEOUT)
            self.request = self.connection = self.server.tls.current().wrap_socket(raw, server_side=True)
            if self.slot is not None:
                self.slot.sock = self.request
        super().setup()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            if self.request is not self.raw:
                self.request.close()  # the TLS socket; the server closes the one it accepted

    def handle_one_request(self) -> None:
        if self.slot is not None:
            self.server.limiter.reading(self.slot)
        super().handle_one_request()

    def parse_request(self) -> bool:
        ok = super().parse_request()  # the request line and every header have arrived
        if ok and self.slot is not None:
            self.server.limiter.answering(self.slot)
        return ok

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the standard library's name
        pass  # requests are not logged: the kubelet's probes would fill the log

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        url = urlsplit(self.path)
        if url.path not in OPEN_PATHS and not self.server.auth.allows(self.headers.get("Authorization")):
            self.answer(401, "unauthorized\n", headers=(("WWW-Authenticate", 'Basic realm="kdiag"'),))
            return
        route = {"/metrics": self.metrics, "/livez": self.livez, "/readyz": self.readyz, "/report": self.report,
                 "/probe": self.probe, "/": self.index}.get(url.path)
        if route is None:
            self.answer(404, "not found: try /metrics, /livez, /readyz, /report or /probe?target=HOST:PORT\n")
            return
        route(parse_qs(url.query))

    def answer(self, status: int, body: str | bytes, content_type: str = "text/plain; charset=utf-8", *,
               headers: tuple[tuple[str, str], ...] = ()) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (*self.server.extra_headers, *headers):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def index(self, _query) -> None:
        self.answer(200, "kdiag watch: /metrics /livez /readyz /report /probe?target=HOST:PORT\n")

    def metrics(self, _query) -> None:
        encoder, content_type = choose_encoder(self.headers.get("Accept"))
        self.answer(200, self.server.scrub(encoder(self.server.registry).decode()), content_type)

    def livez(self, _query) -> None:
        settings = self.server.settings
        state = self.server.state
        snapshot = state.snapshot()
        since = snapshot.last_finished if snapshot.last_finished is not None else snapshot.started
        quiet = state.clock() - since
        limit = 2 * settings.interval + settings.timeout
        if quiet > limit:
            self.answer(503, f"no probe finished for {quiet:.0f} s (limit {limit:g} s)\n")
        else:
            self.answer(200, "ok\n")

    def readyz(self, _query) -> None:
        snapshot = self.server.state.snapshot()
        if snapshot.report is None:
            self.answer(503, "not ready: the first probe has not finished\n")
        elif self.server.settings.ready_when == "healthy" and not probe_succeeded(snapshot.report):
            ids = ", ".join(sorted({f.id for f in snapshot.report.findings})) or "a failed stage"
            self.answer(503, self.server.scrub(f"not ready: the last probe found {ids}\n"))
        else:
            self.answer(200, "ok\n")

    def report(self, _query) -> None:
        snapshot = self.server.state.snapshot()
        if snapshot.report_json is None:
            self.answer(503, "no report yet: the first probe has not finished\n")
        else:
            self.answer(200, snapshot.report_json + "\n", "application/json")

    def probe(self, query: dict[str, list[str]]) -> None:
        from kdiag.target import parse_bootstrap

        targets = query.get("target") or []
        if len(targets) != 1:
            self.server.count_probe_request("bad_request")
            self.answer(400, "give one target: /probe?target=HOST:PORT[,HOST:PORT...]\n")
            return
        try:
            endpoints = parse_bootstrap(targets[0])
        except UsageError as exc:
            self.server.count_probe_request("bad_request")
            self.answer(400, self.server.scrub(f"bad target: {exc}\n"))
            return
        server = self.server
        decision = server.access.decide(endpoints, advertised=advertised_endpoints(server.state.snapshot().report))
        if not decision.allowed:  # refused before any name is resolved or any connection opened
            server.count_probe_request("forbidden")
            self.answer(403, f"forbidden: {decision.refused} is not a host of the watched cluster and matches no "
                             "--probe-allow pattern\n")
            return
        timeout = self.scrape_timeout()
        if not self.server.probe_slots.acquire(blocking=False):
            server.count_probe_request("busy")
            self.answer(503, f"{PROBE_CONCURRENCY} probes are running already\n")
            return
        try:
            options = server.access.options_for(decision, server.probe_options, targets=endpoints, timeout=timeout,
                                                connect_timeout=min(server.probe_options.connect_timeout, timeout))
            runner: BoundedRunner[Report] = BoundedRunner("kdiag-probe-http", grace=SCRAPE_MARGIN / 2)
            outcome = runner.run(lambda: self.server.probe(options), timeout=timeout)
        finally:
            self.server.probe_slots.release()
        server.count_probe_request("probed")
        if outcome.status == "done":
            registry = probe_registry(outcome.value, outcome.seconds)
        else:
            registry = _failed_probe_registry(outcome.seconds)
        encoder, content_type = choose_encoder(self.headers.get("Accept"))
        self.answer(200, self.server.scrub(encoder(registry).decode()), content_type)

    def scrape_timeout(self) -> float:
        """Prometheus's scrape timeout less a margin to answer in, within the agent's own ``--timeout``."""
        limit = self.server.settings.timeout
        header = self.headers.get("X-Prometheus-Scrape-Timeout-Seconds")
        try:
            offered = float(header) if header else limit
        except ValueError:
            offered = limit
        if not offered > 0:  # also NaN
            offered = limit
        return max(0.2, min(limit, offered - SCRAPE_MARGIN))


def _failed_probe_registry(seconds: float) -> CollectorRegistry:
    """A probe that overran or failed inside kdiag: success 0, its duration."""
    from prometheus_client.core import GaugeMetricFamily
    from prometheus_client.registry import Collector

    class _Failed(Collector):
        def collect(self):
            yield build_info()
            success = GaugeMetricFamily("kdiag_probe_success", "1 if the last probe found no error, else 0.")
            success.add_metric([], 0.0)
            yield success
            duration = GaugeMetricFamily("kdiag_probe_duration_seconds", "How long this probe took.")
            duration.add_metric([], seconds)
            yield duration

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Failed())
    return registry
