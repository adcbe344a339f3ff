"""A real Prometheus scrapes /metrics and /probe through TLS and basic auth (--web-config-file in the
exporter-toolkit format, as node_exporter's); what it scrapes passes promtool; a /probe target
outside the allow-list is a failed scrape (403), not a probe."""

from __future__ import annotations

import ssl
from pathlib import Path

import bcrypt
import pytest
from conftest import check_metrics, prometheus_server, sample, wait_for_results

from kdiag.lab.certs import issue, make_ca
from kdiag.lab.kafka import KafkaBroker

USER, PASSWORD = "prometheus", "Scrape-through-TLS-9"


@pytest.mark.broker
def test_a_real_prometheus_scrapes_metrics_and_probe_through_tls_and_basic_auth(
        kafka_broker: KafkaBroker, start_watch, tmp_path: Path) -> None:
    make_ca(tmp_path)
    issue(tmp_path, "kdiag", san="IP:127.0.0.1")
    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(10)).decode().replace("$2b$", "$2y$")
    web = tmp_path / "web.yml"
    web.write_text(f"tls_server_config:\n  cert_file: kdiag.pem\n  key_file: kdiag.key\n"
                   f"basic_auth_users:\n  {USER}: {hashed}\n")
    trust = ssl.create_default_context(cafile=str(tmp_path / "ca.pem"))
    agent = start_watch(kafka_broker.bootstrap_servers, "--interval", "1s", "--web-config-file", str(web),
                        tls=trust, auth=(USER, PASSWORD))
    agent.wait_ready()
    status, metrics = agent.get("/metrics")
    assert status == 200 and check_metrics(metrics) == ""
    status, probe = agent.get(f"/probe?target={kafka_broker.bootstrap_servers}")
    assert status == 200 and check_metrics(probe) == "" and sample(probe, "kdiag_probe_success") == 1
    assert agent.get("/metrics", headers={"Authorization": "Basic cHJvbWV0aGV1czp3cm9uZw=="})[0] == 401

    (tmp_path / "password").write_text(PASSWORD)
    address = agent.url.removeprefix("https://")
    access = (f"scheme: https\n    tls_config: {{ca_file: '{tmp_path / 'ca.pem'}'}}\n"
              f"    basic_auth: {{username: {USER}, password_file: '{tmp_path / 'password'}'}}")
    config = tmp_path / "prometheus.yml"
    config.write_text(f"""
global: {{scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}}
scrape_configs:
  - job_name: kdiag
    {access}
    static_configs: [{{targets: ['{address}']}}]
  - job_name: kdiag-probe
    {access}
    metrics_path: /probe
    scrape_interval: 2s
    scrape_timeout: 1900ms
    static_configs: [{{targets: ['{kafka_broker.bootstrap_servers}', '127.0.0.2:9092']}}]
    relabel_configs:
      - {{source_labels: [__address__], target_label: __param_target}}
      - {{source_labels: [__param_target], target_label: instance}}
      - {{target_label: __address__, replacement: '{address}'}}
""")
    prometheus_dir = tmp_path / "prometheus"
    prometheus_dir.mkdir()
    with prometheus_server(config, prometheus_dir) as query:
        results = wait_for_results(query, {
            "sidecar": 'kdiag_probe_success{job="kdiag"}',
            "probe": 'kdiag_probe_success{job="kdiag-probe"}',
            "up": "up",
        }, lambda r: bool(r["sidecar"]) and bool(r["probe"]) and len(r["up"]) == 3)
    assert [r["value"][1] for r in results["sidecar"]] == ["1"]
    assert {r["metric"]["instance"]: r["value"][1] for r in results["probe"]} == {kafka_broker.bootstrap_servers: "1"}
    up = {(r["metric"]["job"], r["metric"]["instance"]): r["value"][1] for r in results["up"]}
    assert up == {("kdiag", address): "1", ("kdiag-probe", kafka_broker.bootstrap_servers): "1",
                  ("kdiag-probe", "127.0.0.2:9092"): "0"}  # 403: outside the watched cluster and the allow-list
    assert PASSWORD not in agent.stderr() + agent.stdout()
