"""deploy/prometheus: the alert rules pass promtool's checks and their own unit tests, fire on what
kdiag watch really exports, and name only finding ids the catalog has; the scrape examples are valid.

promtool is Debian's (the prometheus package, installed by scripts/setup); a missing promtool fails
these tests rather than skipping them.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from kdiag.report import Report
from kdiag.sinks import SinkStats
from kdiag.watch.metrics import AgentMetrics, catalog_severities
from kdiag.watch.state import AgentState
from probes.results import IdleCheck
from tests.unit.watch.reports import healthy, one_broker_down, refused

PROMETHEUS = Path(__file__).resolve().parents[3] / "deploy" / "prometheus"
RULES = PROMETHEUS / "kdiag-alerts.yaml"
POD = PROMETHEUS.parent / "kubernetes" / "pod.yaml"


def promtool(*args: str, cwd: Path = PROMETHEUS) -> str:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.fail("promtool not found: scripts/setup installs it (Debian's prometheus package)")
    done = subprocess.run([tool, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"promtool {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def rules() -> list[dict]:
    return [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]


def test_the_alert_rules_pass_promtool_check_rules():
    assert "SUCCESS: 10 rules found" in promtool("check", "rules", RULES.name)


def test_the_alert_rules_pass_their_unit_tests():
    assert "SUCCESS" in promtool("test", "rules", "kdiag-alerts.test.yaml")


def test_the_example_prometheus_configuration_passes_promtool_check_config():
    out = promtool("check", "config", "prometheus.yml")
    assert "is valid prometheus config file syntax" in out and "SUCCESS: 10 rules found" in out


def test_the_rules_cover_what_the_issue_asks_and_every_alert_is_documented():
    by_name = {rule["alert"]: rule for rule in rules()}
    assert {"KafkaUnreachableFromVantage", "KafkaAdvertisedListenerBroken", "KdiagProbeStale"} <= set(by_name)
    for name, rule in by_name.items():
        assert rule["labels"]["severity"] in ("critical", "warning", "info"), name
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], name


def test_every_finding_id_pattern_in_the_rules_names_catalog_ids():
    catalog = set(catalog_severities())
    patterns = [p for rule in rules() for p in re.findall(r'\bid=~"([^"]+)"', rule["expr"])]
    assert patterns
    for pattern in patterns:
        assert any(re.fullmatch(pattern, finding_id) for finding_id in catalog), pattern
    advertised = next(p for p in patterns if "ADVERTISED" in p)
    assert {i for i in catalog if i.startswith("ADVERTISED_")} <= {i for i in catalog if re.fullmatch(advertised, i)}
    unreachable = next(p for p in patterns if "BOOTSTRAP" in p)
    assert UNREACHABLE == {i for i in catalog if re.fullmatch(unreachable, i)}


def test_every_kdiag_metric_in_the_rules_is_one_kdiag_watch_exports():
    idle = IdleCheck("timeout", 352.0, 3000.0)  # the idle-check series exist once a check was made
    exported = {name for name, _labels, _value in exposition(replace(one_broker_down(), idle=idle))}
    used = {name for rule in rules() for name in re.findall(r"\bkdiag_[a-z_]+", rule["expr"])}
    assert used and used <= exported, used - exported


# --- the rules on kdiag watch's real /metrics -----------------------------------------------------------

class _TopicSink:
    name = "topic"

    def __init__(self) -> None:
        self.stats = SinkStats()


def exposition(report: Report) -> list[tuple[str, dict[str, str], float]]:
    """Every sample of kdiag watch's /metrics after one probe that gave ``report``, with a topic sink."""
    state = AgentState()
    state.record(report, json.dumps({"schema": "kdiag.report/1"}))
    state.finished()
    registry = AgentMetrics(state, [_TopicSink()]).registry
    return [(sample.name, dict(sample.labels), sample.value)
            for family in text_string_to_metric_families(generate_latest(registry).decode())
            for sample in family.samples]


def series(name: str, labels: dict[str, str]) -> str:
    return name + "{" + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(labels.items())) + "}"


TARGET = {"job": "kdiag", "instance": "payments-0:9108"}
UNREACHABLE = {"BOOTSTRAP_REFUSED", "BOOTSTRAP_TIMEOUT", "BOOTSTRAP_UNREACHABLE", "BOOTSTRAP_UNRESOLVABLE"}


def expected_alerts(samples) -> dict[str, list[dict[str, str]]]:
    """What the rules must say after 11 minutes of these samples: written from the samples' meaning
    (a finding present, a broker down, the probe failing), not from the rules."""
    present = [labels for name, labels, value in samples if name == "kdiag_finding" and value == 1]
    finding = [{**TARGET, "id": f["id"], "finding_severity": f["severity"]} for f in present]
    unreachable = [f for f in finding if f["id"] in UNREACHABLE]
    advertised = [f for f in finding if f["id"].startswith("ADVERTISED_") or f["id"] == "PARTIAL_CLUSTER"]
    failing = [dict(TARGET) for name, _labels, value in samples if name == "kdiag_probe_success" and value == 0]
    down = [{**TARGET, **labels} for name, labels, value in samples if name == "kdiag_broker_up" and value == 0]
    idle = [dict(TARGET) for name, _labels, value in samples if name == "kdiag_idle_check_success" and value == 0]
    expected = {"KafkaUnreachableFromVantage": [{**a, "severity": "critical"} for a in unreachable],
                "KafkaAdvertisedListenerBroken": [{**a, "severity": "warning"} for a in advertised],
                "KafkaProbeFailing": [{**a, "severity": "warning"} for a in failing],
                "KafkaBrokerDown": [{**a, "severity": "warning"} for a in down],
                "KafkaIdleConnectionsDropped": [{**a, "severity": "warning"} for a in idle]}
    return {rule["alert"]: expected.get(rule["alert"], []) for rule in rules()}


def idle_dropped() -> Report:
    """A healthy probe whose connection kept idle (kdiag watch --idle-check) went unanswered, diagnosed."""
    from kdiag.diagnose import diagnose

    report = replace(healthy(), idle=IdleCheck("timeout", 352.0, 3000.0, "no answer"))
    return report.with_findings(diagnose(report))


@pytest.mark.parametrize("report, fires", [
    (healthy(), set()),
    (refused(), {"KafkaUnreachableFromVantage", "KafkaProbeFailing"}),
    (one_broker_down(), {"KafkaAdvertisedListenerBroken", "KafkaBrokerDown", "KafkaProbeFailing"}),
    (idle_dropped(), {"KafkaIdleConnectionsDropped", "KafkaProbeFailing"}),
], ids=["healthy", "bootstrap-refused", "one-broker-down", "idle-dropped"])
def test_the_rules_fire_on_kdiag_watchs_own_metrics(tmp_path, report, fires):
    """kdiag watch's real exposition after a probe, held for 11 minutes, through ``promtool test rules``
    with the real rules (their annotations left out: the unit tests above check those)."""
    samples = exposition(report)
    expected = expected_alerts(samples)
    assert {name for name, alerts in expected.items() if alerts} == fires
    stripped = yaml.safe_load(RULES.read_text())
    for group in stripped["groups"]:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(stripped))
    inputs = [{"series": series(name, {**labels, **TARGET}), "values": f"{value:g}x11"}
              for name, labels, value in samples if not math.isnan(value)]
    test = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [{
        "interval": "1m", "input_series": inputs,
        "alert_rule_test": [{"eval_time": "11m", "alertname": name,
                             "exp_alerts": [{"exp_labels": labels} for labels in alerts]}
                            for name, alerts in expected.items()]}]}
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    promtool("test", "rules", "test.yaml", cwd=tmp_path)


# --- scrape configurations ------------------------------------------------------------------------------

def test_the_kubernetes_scrape_job_keeps_the_sidecars_metrics_port():
    job = yaml.safe_load((PROMETHEUS / "scrape-kubernetes.yaml").read_text())["scrape_configs"][0]
    assert job["job_name"].startswith("kdiag") and job["kubernetes_sd_configs"] == [{"role": "pod"}]
    keep = next(r for r in job["relabel_configs"] if r.get("action") == "keep")
    assert keep["source_labels"] == ["__meta_kubernetes_pod_container_port_name"]
    pod = next(d for d in yaml.safe_load_all(POD.read_text()) if d["kind"] == "Pod")
    kdiag = next(c for c in pod["spec"]["containers"] if c["name"] == "kdiag")
    assert [p["name"] for p in kdiag["ports"]] == [keep["regex"]]


def test_the_probe_job_sends_each_target_to_kdiag_as_a_parameter():
    jobs = {job["job_name"]: job for job in yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())["scrape_configs"]}
    assert all(name.startswith("kdiag") for name in jobs)  # KdiagDown selects up{job=~"kdiag.*"}
    probe = jobs["kdiag-probe"]
    assert probe["metrics_path"] == "/probe"
    relabel = probe["relabel_configs"]
    assert {"source_labels": ["__address__"], "target_label": "__param_target"} in relabel
    assert {"source_labels": ["__param_target"], "target_label": "instance"} in relabel
    assert relabel[-1]["target_label"] == "__address__" and relabel[-1]["replacement"].endswith(":9108")
