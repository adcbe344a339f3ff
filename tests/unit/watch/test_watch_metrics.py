"""The agent's metrics and state: stable series, brokers kept at 0, transitions logged once."""

from __future__ import annotations

import io
import json
import math

from prometheus_client import generate_latest

from kdiag.sinks import SinkStats
from kdiag.watch.log import AgentLog, Transitions
from kdiag.watch.metrics import AgentMetrics, catalog_severities, probe_registry
from kdiag.watch.state import AgentState
from tests.unit.watch.reports import healthy, one_broker_down, refused


def samples(registry) -> dict[str, float]:
    out = {}
    for line in generate_latest(registry).decode().splitlines():
        if not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


class _Sink:
    name = "directory"

    def __init__(self) -> None:
        self.stats = SinkStats()


def test_a_broker_stays_at_zero_while_the_cluster_stops_answering_and_vanishes_when_metadata_drops_it() -> None:
    state = AgentState()
    metrics = AgentMetrics(state, [])
    state.record(healthy(), "{}")
    assert samples(metrics.registry)['kdiag_broker_up{endpoint="kafka-2:9092",node_id="2"}'] == 1
    state.record(refused(), "{}")  # no metadata at all: both brokers at 0, not gone
    now = samples(metrics.registry)
    assert now['kdiag_broker_up{endpoint="kafka-1:9092",node_id="1"}'] == 0
    assert now['kdiag_broker_up{endpoint="kafka-2:9092",node_id="2"}'] == 0
    assert math.isnan(now['kdiag_broker_connect_seconds{endpoint="kafka-1:9092",node_id="1"}'])
    state.record(healthy(brokers=1), "{}")  # the metadata lists broker 1 only now
    assert 'kdiag_broker_up{endpoint="kafka-2:9092",node_id="2"}' not in samples(metrics.registry)


def test_every_catalog_finding_id_is_exported_and_only_the_present_one_is_1() -> None:
    state = AgentState()
    metrics = AgentMetrics(state, [_Sink()])
    state.record(refused(), "{}")
    now = samples(metrics.registry)
    findings = {k: v for k, v in now.items() if k.startswith("kdiag_finding{")}
    assert len(findings) == len(catalog_severities())
    assert [k for k, v in findings.items() if v == 1] == ['kdiag_finding{id="BOOTSTRAP_REFUSED",severity="error"}']
    assert now["kdiag_probe_success"] == 0
    assert now['kdiag_stage_success{stage="tcp"}'] == 0 and now['kdiag_stage_success{stage="dns"}'] == 1
    assert now['kdiag_sink_dropped_reports_total{reason="disk_full",sink="directory"}'] == 0
    assert "kdiag_last_success_timestamp_seconds" not in now


def test_probe_counters_exist_at_zero_before_the_first_probe() -> None:
    now = samples(AgentMetrics(AgentState(), []).registry)
    assert {k: v for k, v in now.items() if k.startswith("kdiag_probes_total")} == {
        f'kdiag_probes_total{{result="{r}"}}': 0 for r in ("success", "failure", "overrun", "error", "busy")}
    assert "kdiag_probe_success" not in now  # no probe, no verdict
    assert not any("_created" in k for k in now)


def test_a_probe_answer_describes_that_one_report() -> None:
    now = samples(probe_registry(one_broker_down(), 0.25))
    assert now["kdiag_probe_duration_seconds"] == 0.25
    assert now["kdiag_probe_success"] == 0
    assert now['kdiag_broker_up{endpoint="kafka-2:9092",node_id="2"}'] == 0
    assert now['kdiag_finding{id="ADVERTISED_UNREACHABLE",severity="error"}'] == 1


def test_transitions_log_the_first_state_each_change_and_nothing_in_between() -> None:
    stream = io.StringIO()
    transitions = Transitions(AgentLog(stream, fmt="json", scrub=lambda s: s))
    for report in (healthy(), healthy(), refused(), refused(), one_broker_down(), healthy(), healthy()):
        transitions.observe(report)
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(e["event"], e["findings"]) for e in events] == [
        ("first_probe", []), ("broken", ["BOOTSTRAP_REFUSED"]), ("findings_changed", ["ADVERTISED_UNREACHABLE"]),
        ("recovered", [])]


def test_text_log_lines_are_scrubbed_and_single_line() -> None:
    stream = io.StringIO()
    log = AgentLog(stream, fmt="text", scrub=lambda s: s.replace("hunter22", "***"))
    log.warning("bad password hunter22\nsecond line")
    (line,) = stream.getvalue().splitlines()
    assert line.endswith("kdiag watch: warning: bad password *** second line")


def test_text_log_lines_show_outside_text_printable() -> None:
    stream = io.StringIO()
    AgentLog(stream, fmt="text", scrub=lambda s: s).warning("broker said \x1b[31mred\x1b[0m")
    assert "\x1b" not in stream.getvalue()


def test_the_idle_check_is_exported_once_there_is_one() -> None:
    from dataclasses import replace

    from probes.results import IdleCheck

    state = AgentState()
    metrics = AgentMetrics(state, [])
    state.record(healthy(), "{}")
    assert not any(key.startswith("kdiag_idle_check") for key in samples(metrics.registry))
    state.record(replace(healthy(), idle=IdleCheck("timeout", 312.4, 3000.0, "no answer")), "{}")
    now = samples(metrics.registry)
    assert now["kdiag_idle_check_success"] == 0 and now["kdiag_idle_check_idle_seconds"] == 312.4
    state.record(replace(healthy(), idle=IdleCheck("ok", 300.1, 1.2)), "{}")
    assert samples(metrics.registry)["kdiag_idle_check_success"] == 1
