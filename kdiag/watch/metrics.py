"""The agent's Prometheus metrics, built at scrape time from its state (``prometheus-client``).

Label values are bounded: ``stage`` is one of the report's stages, ``id`` one of the diagnosis
catalog's ids (every id is exported, 1 while a finding of it is present and 0 otherwise, so an alert
never sees its series vanish), ``result`` one of ``PROBE_RESULTS``, ``reason`` one of the sinks'
``DROP_REASONS``. A broker keeps its ``kdiag_broker_*`` series while the last metadata that could be
read still lists it: when it stops answering, its ``kdiag_broker_up`` goes to 0, not away.
``report_families`` is shared with ``/probe``, whose answer describes one on-demand probe.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from kdiag import __version__
from kdiag.sinks import DROP_REASONS
from kdiag.watch.state import AgentState, BrokerKey, broker_series, probe_succeeded

if TYPE_CHECKING:
    from kdiag.report import Report
    from kdiag.sinks import Sink

PROBE_RESULTS = ("success", "failure", "overrun", "error", "busy")
PROBE_ANSWERS = ("probed", "forbidden", "bad_request", "busy")
DURATION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

def catalog_severities() -> dict[str, str]:
    """Every diagnosis rule's id with the worst severity it reports: the ``kdiag_finding`` series."""
    from kdiag.diagnose import RULES

    return {rule.id: rule.severity for rule in RULES}


def report_families(report: Report, brokers: Mapping[BrokerKey, tuple[bool, float]],
                    severities: Mapping[str, str]) -> Iterator:
    """The families that describe one report: success, stages, brokers, findings."""
    success = GaugeMetricFamily("kdiag_probe_success", "1 if the last probe found no error, else 0.")
    success.add_metric([], 1.0 if probe_succeeded(report) else 0.0)
    yield success
    stage_ok = GaugeMetricFamily("kdiag_stage_success", "1 if the stage passed (ok or warn) in the last probe, "
                                 "0 if it failed or an earlier failure blocked it.", labels=["stage"])
    stage_seconds = GaugeMetricFamily("kdiag_stage_duration_seconds", "How long the stage took in the last probe.",
                                      labels=["stage"])
    for stage in report.stages:
        stage_ok.add_metric([stage.name], 1.0 if stage.status in ("ok", "warn") else 0.0)
        stage_seconds.add_metric([stage.name], stage.duration_ms / 1000)
    yield stage_ok
    yield stage_seconds
    up = GaugeMetricFamily("kdiag_broker_up", "1 if the advertised broker resolves, connects and answers from "
                           "here; 0 if not, kept while the last metadata lists it.", labels=["node_id", "endpoint"])
    connect = GaugeMetricFamily("kdiag_broker_connect_seconds", "TCP connect time to the advertised broker in the "
                                "last probe (NaN when it did not connect).", labels=["node_id", "endpoint"])
    for (node_id, endpoint), (ok, seconds) in sorted(brokers.items()):
        up.add_metric([str(node_id), endpoint], 1.0 if ok else 0.0)
        connect.add_metric([str(node_id), endpoint], seconds)
    yield up
    yield connect
    if report.idle is not None:  # kdiag watch --idle-check: the latest check of the connection kept idle
        idle_ok = GaugeMetricFamily("kdiag_idle_check_success", "1 if the connection kept idle answered when last "
                                    "asked again, 0 if it was dropped, closed or failed.")
        idle_ok.add_metric([], 1.0 if report.idle.status == "ok" else 0.0)
        yield idle_ok
        idle_seconds = GaugeMetricFamily("kdiag_idle_check_idle_seconds", "How long that connection had been idle "
                                         "when it was asked.")
        idle_seconds.add_metric([], report.idle.idle_s)
        yield idle_seconds
    present = {f.id for f in report.findings}
    finding = GaugeMetricFamily("kdiag_finding", "1 while the last probe has a finding of this id, else 0 "
                                "(every catalog id is exported).", labels=["id", "severity"])
    for rule_id, severity in severities.items():
        finding.add_metric([rule_id, severity], 1.0 if rule_id in present else 0.0)
    for extra in sorted(present - set(severities)):  # not a catalog rule's (none today): shown all the same
        finding.add_metric([extra, next(f.severity for f in report.findings if f.id == extra)], 1.0)
    yield finding


def build_info() -> GaugeMetricFamily:
    info = GaugeMetricFamily("kdiag_build_info", "kdiag's version; always 1.", labels=["version"])
    info.add_metric([__version__], 1.0)
    return info


class AgentMetrics:
    """The registry ``/metrics`` serves: the probe counters and histogram the loop updates, and the
    families read from the agent's state and the sinks' counts at scrape time."""

    def __init__(self, state: AgentState, sinks: Iterable[Sink]) -> None:
        disable_created_metrics()  # no kdiag_probes_created series: the process start says as much
        self.registry = CollectorRegistry(auto_describe=False)
        self.probes = Counter("kdiag_probes", "Probes the loop ran, by result: success, failure (a problem "
                              "found), overrun (the probe did not end within its deadline), error (kdiag failed), "
                              "busy (skipped: an overrun probe still runs).", ["result"], registry=self.registry)
        for result in PROBE_RESULTS:
            self.probes.labels(result)
        self.probe_requests = Counter(
            "kdiag_probe_requests", "Requests to /probe, by answer: probed (200), forbidden (403: a target outside "
            "the watched cluster and --probe-allow, refused before any connection), bad_request (400), busy (503: "
            "as many probes as allowed already run).", ["answer"], registry=self.registry)
        for answer in PROBE_ANSWERS:
            self.probe_requests.labels(answer)
        self.duration = Histogram("kdiag_probe_duration_seconds", "How long each probe of the loop took.",
                                  buckets=DURATION_BUCKETS, registry=self.registry)
        self.registry.register(_StateCollector(state, list(sinks), catalog_severities()))

    def count_probe_request(self, answer: str) -> None:
        self.probe_requests.labels(answer).inc()

    def observe(self, result: str, seconds: float | None) -> None:
        self.probes.labels(result).inc()
        if seconds is not None:
            self.duration.observe(seconds)


class _StateCollector(Collector):
    def __init__(self, state: AgentState, sinks: list[Sink], severities: dict[str, str]) -> None:
        self.state = state
        self.sinks = sinks
        self.severities = severities

    def collect(self) -> Iterator:
        yield build_info()
        snapshot = self.state.snapshot()
        if snapshot.report is not None:
            yield from report_families(snapshot.report, snapshot.brokers, self.severities)
        last = GaugeMetricFamily("kdiag_last_probe_timestamp_seconds", "When the last probe finished (Unix time).")
        if snapshot.last_probe_time is not None:
            last.add_metric([], snapshot.last_probe_time)
        yield last
        good = GaugeMetricFamily("kdiag_last_success_timestamp_seconds",
                                 "When the last probe that found no error finished (Unix time).")
        if snapshot.last_success_time is not None:
            good.add_metric([], snapshot.last_success_time)
        yield good
        yield from sink_families(self.sinks)


def sink_families(sinks: list[Sink]) -> Iterator:
    delivered = CounterMetricFamily("kdiag_sink_delivered_reports", "Reports the sink delivered.", labels=["sink"])
    spooled = GaugeMetricFamily("kdiag_sink_spooled_reports", "Reports waiting in the sink's spool.", labels=["sink"])
    spool_bytes = GaugeMetricFamily("kdiag_sink_spool_bytes", "Bytes of reports in the sink's spool.", labels=["sink"])
    dropped = CounterMetricFamily("kdiag_sink_dropped_reports", "Reports the sink dropped, by reason: disk_full, "
                                  "io_error, spool_full, rejected.", labels=["sink", "reason"])
    for sink in sinks:
        stats = sink.stats.snapshot()
        delivered.add_metric([sink.name], stats.delivered)
        spooled.add_metric([sink.name], stats.spooled)
        spool_bytes.add_metric([sink.name], stats.spool_bytes)
        for reason in DROP_REASONS:
            dropped.add_metric([sink.name, reason], stats.dropped.get(reason, 0))
    yield delivered
    yield spooled
    yield spool_bytes
    yield dropped


def probe_registry(report: Report, seconds: float) -> CollectorRegistry:
    """The answer to one ``/probe``: the report's families, its duration as a gauge, build info."""
    severities = catalog_severities()

    class _Once(Collector):
        def collect(self) -> Iterator:
            yield build_info()
            duration = GaugeMetricFamily("kdiag_probe_duration_seconds", "How long this probe took.")
            duration.add_metric([], seconds)
            yield duration
            yield from report_families(report, broker_series(report), severities)

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Once())
    return registry
