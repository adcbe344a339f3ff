"""A real Prometheus server scrapes the agent and its /probe multi-target endpoint; /probe answers
for two brokers at once."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import check_metrics, prometheus_server, sample, wait_for_results

from kdiag.lab.kafka import KAFKA_VERSION, KafkaBroker, loopback_specs


@pytest.fixture(scope="module")
def second_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    spec = loopback_specs(1)[0]
    with KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path_factory.mktemp("second-broker"),
                           timeout=180) as broker:
        yield broker


@pytest.mark.broker
def test_probe_answers_for_two_brokers_at_once_and_for_a_refused_target(
        kafka_broker: KafkaBroker, second_broker: KafkaBroker, start_watch) -> None:
    agent = start_watch(kafka_broker.bootstrap_servers, "--interval", "5s")
    agent.wait_ready()
    targets = [kafka_broker.bootstrap_servers, second_broker.bootstrap_servers, "127.0.0.1:1"]
    with ThreadPoolExecutor(len(targets)) as pool:
        answers = list(pool.map(
            lambda t: agent.get(f"/probe?target={t}", headers={"X-Prometheus-Scrape-Timeout-Seconds": "8"}), targets))
    for target, (status, text) in zip(targets[:2], answers[:2]):
        assert status == 200
        assert check_metrics(text) == ""
        assert sample(text, "kdiag_probe_success") == 1
        assert sample(text, "kdiag_broker_up", f'endpoint="{target}",node_id="1"') == 1
        assert 0 < sample(text, "kdiag_probe_duration_seconds") < 8
    status, refused = answers[2]
    assert sample(refused, "kdiag_probe_success") == 0
    assert sample(refused, "kdiag_finding", 'id="BOOTSTRAP_REFUSED",severity="error"') == 1
    assert agent.get("/probe")[0] == 400
    assert agent.get("/probe?target=no:port:here")[0] == 400


@pytest.mark.broker
def test_a_real_prometheus_scrapes_the_agent_and_the_probe_endpoint(
        kafka_broker: KafkaBroker, second_broker: KafkaBroker, start_watch, tmp_path: Path) -> None:
    agent = start_watch(kafka_broker.bootstrap_servers, "--interval", "1s")
    agent.wait_ready()
    agent_address = agent.url.removeprefix("http://")
    config = tmp_path / "prometheus.yml"
    config.write_text(f"""
global: {{scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}}
scrape_configs:
  - job_name: kdiag
    static_configs: [{{targets: ['{agent_address}']}}]
  - job_name: kdiag-probe
    metrics_path: /probe
    scrape_interval: 2s
    scrape_timeout: 1900ms
    static_configs: [{{targets: ['{kafka_broker.bootstrap_servers}', '{second_broker.bootstrap_servers}', '127.0.0.1:1']}}]
    relabel_configs:
      - {{source_labels: [__address__], target_label: __param_target}}
      - {{source_labels: [__param_target], target_label: instance}}
      - {{target_label: __address__, replacement: '{agent_address}'}}
""")
    with prometheus_server(config, tmp_path) as query:
        results = wait_for_results(query, {
            "sidecar": 'kdiag_probe_success{job="kdiag"}',
            "probe": 'kdiag_probe_success{job="kdiag-probe"}',
            "broker": 'kdiag_broker_up{job="kdiag"}',
            "refused": 'kdiag_finding{job="kdiag-probe",id="BOOTSTRAP_REFUSED"} == 1',
            "up": "up == 1",
        }, lambda r: len(r["probe"]) == 3 and bool(r["sidecar"]) and bool(r["refused"]) and len(r["up"]) == 4)
        assert [r["value"][1] for r in results["sidecar"]] == ["1"]
        by_instance = {r["metric"]["instance"]: r["value"][1] for r in results["probe"]}
        assert by_instance == {kafka_broker.bootstrap_servers: "1", second_broker.bootstrap_servers: "1",
                               "127.0.0.1:1": "0"}
        assert [r["metric"]["instance"] for r in results["refused"]] == ["127.0.0.1:1"]
        assert [(r["metric"]["node_id"], r["value"][1]) for r in results["broker"]] == [("1", "1")]
        histogram = query('kdiag_probe_duration_seconds_count{job="kdiag"}')
        assert float(histogram[0]["value"][1]) >= 1
