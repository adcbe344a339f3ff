"""kdiag watch against the real broker: endpoints, sinks, transitions, the secret, SIGTERM."""

from __future__ import annotations

import json
import signal
import socket
import time
from pathlib import Path

from conftest import SECRET, check_metrics, directory_reports, sample, topic_reports

from kdiag.lab.kafka import KafkaBroker

VANTAGE = "lab/watch-test"


def test_watch_serves_every_endpoint_and_writes_gap_free_reports_then_exits_on_sigterm_within_2s(
        kafka_broker: KafkaBroker, start_watch, tmp_path: Path) -> None:
    reports_dir = tmp_path / "reports"
    agent = start_watch(kafka_broker.bootstrap_servers, "--interval", "300ms", "--timeout", "5s", "--report-stdout",
                        "--report-dir", str(reports_dir), env={"KDIAG_VANTAGE": VANTAGE})
    agent.wait_ready()
    agent.wait_for(lambda: (agent.metric("kdiag_probes_total", 'result="success"') or 0) >= 5, 60,
                   "five healthy probes")

    status, body = agent.get("/report")
    assert status == 200
    report = json.loads(body)
    assert report["schema"] == "kdiag.report/1"
    assert report["vantage"]["label"] == VANTAGE
    assert report["agent"]["sequence"] >= 5 and report["report_id"]
    assert [s["status"] for s in report["stages"]] == ["ok"] * 5
    assert agent.get("/livez") == (200, "ok\n")
    assert agent.get("/nothing")[0] == 404

    status, metrics = agent.get("/metrics")
    assert status == 200
    assert check_metrics(metrics) == ""
    assert sample(metrics, "kdiag_probe_success") == 1
    assert sample(metrics, "kdiag_broker_up", f'endpoint="{kafka_broker.bootstrap_servers}",node_id="1"') == 1
    assert sample(metrics, "kdiag_stage_success", 'stage="roundtrip"') == 1
    assert sample(metrics, "kdiag_finding", 'id="ADVERTISED_UNRESOLVABLE",severity="error"') == 0
    assert sample(metrics, "kdiag_last_success_timestamp_seconds") > time.time() - 60
    assert sample(metrics, "kdiag_build_info", 'version="0.1.0"') == 1
    assert sample(metrics, "kdiag_sink_delivered_reports_total", 'sink="directory"') >= 5

    code, seconds = agent.terminate(signal.SIGTERM)
    assert code == 0
    assert seconds < 2.0
    stdout_reports = [json.loads(line) for line in agent.stdout().splitlines()]
    dir_reports = directory_reports(reports_dir)
    sequences = [r["agent"]["sequence"] for r in dir_reports]
    assert sequences == list(range(1, len(sequences) + 1))
    assert [r["report_id"] for r in dir_reports] == [r["report_id"] for r in stdout_reports]
    assert len({r["agent"]["id"] for r in dir_reports}) == 1
    assert not list(reports_dir.glob(".open-*")), "the open segment is sealed at exit"
    log = agent.stderr().splitlines()
    assert "watching" in log[0] and log[-1].endswith("stopped by SIGTERM")
    # a fresh broker may fail the very first round trip (its coordinator loading); then only transitions
    transitions = log[1:-1]
    assert "first probe:" in transitions[0]
    assert transitions[-1].endswith(("first probe: healthy; findings: none", "broken → healthy; findings: none"))
    assert len(transitions) <= 3 < len(dir_reports), "nothing is logged per probe, only transitions"


def test_a_known_sasl_password_never_appears_in_report_metrics_logs_report_dir_or_topic(
        kafka_broker: KafkaBroker, start_watch, tmp_path: Path) -> None:
    password_file = tmp_path / "password"
    password_file.write_text(SECRET + "\n")
    reports_dir, spool_dir = tmp_path / "reports", tmp_path / "spool"
    topic = "kdiag-watch-secret"
    agent = start_watch(kafka_broker.bootstrap_servers, "--interval", "300ms", "--report-stdout",
                        "--report-dir", str(reports_dir), "--report-topic", topic, "--spool-dir", str(spool_dir),
                        "--log-format", "json",
                        env={"KDIAG_CLIENT_SASL_USERNAME": "probe", "KDIAG_CLIENT_SASL_PASSWORD_FILE": str(password_file)})
    agent.wait_ready()
    agent.wait_for(lambda: (agent.metric("kdiag_sink_delivered_reports_total", 'sink="topic"') or 0) >= 3, 60,
                   "three reports on the topic")
    report_text = agent.get("/report")[1]
    assert json.loads(report_text)["client"]["sasl.password"] == "***"
    outputs = {
        "/report": report_text,
        "/metrics": agent.get("/metrics")[1],
        "/probe": agent.get(f"/probe?target={kafka_broker.bootstrap_servers}")[1],
    }
    code, _seconds = agent.terminate()
    assert code == 0
    outputs["stderr"] = agent.stderr()
    outputs["stdout"] = agent.stdout()
    for path in [*reports_dir.iterdir(), *spool_dir.iterdir()]:
        outputs[str(path)] = path.read_text()
    on_topic = topic_reports(kafka_broker.bootstrap_servers, topic, expect=3)
    assert len(on_topic) >= 3
    outputs["topic"] = json.dumps(on_topic)
    assert all(json.loads(line)["event"] for line in outputs["stderr"].splitlines())
    leaked = [where for where, text in outputs.items() if SECRET in text]
    assert leaked == []


def test_sigterm_during_a_hung_probe_exits_within_2s_with_the_sinks_flushed(start_watch, tmp_path: Path) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepts connections in the kernel, never answers a Kafka request
    host, port = silent.getsockname()
    try:
        reports_dir = tmp_path / "reports"
        agent = start_watch(f"{host}:{port}", "--interval", "1s", "--timeout", "60s", "--report-dir", str(reports_dir))
        agent.wait_for(lambda: agent.get("/livez")[0] == 200, 30, "/livez")
        time.sleep(1.0)  # the first probe is now waiting on the silent broker
        assert agent.get("/readyz")[0] == 503
        code, seconds = agent.terminate(signal.SIGTERM)
        assert code == 0
        assert seconds < 2.0
        assert agent.stderr().splitlines()[-1].endswith("stopped by SIGTERM")
    finally:
        silent.close()


def test_probe_on_demand_keeps_within_prometheus_scrape_timeout_against_a_silent_broker(start_watch) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # connections complete in the kernel; no Kafka answer ever comes
    host, port = silent.getsockname()
    try:
        agent = start_watch("127.0.0.1:1", "--interval", "30s", "--timeout", "20s")
        agent.wait_ready()
        started = time.monotonic()
        status, text = agent.get(f"/probe?target={host}:{port}", headers={"X-Prometheus-Scrape-Timeout-Seconds": "2"})
        seconds = time.monotonic() - started
    finally:
        silent.close()
    assert status == 200
    assert seconds < 2.0
    assert sample(text, "kdiag_probe_success") == 0
    assert sample(text, "kdiag_probe_duration_seconds") < 2.0


def test_sigint_exits_130_within_2s_and_seals_the_report_directory(start_watch, tmp_path: Path) -> None:
    reports_dir = tmp_path / "reports"
    agent = start_watch("127.0.0.1:1", "--interval", "200ms", "--report-dir", str(reports_dir))
    agent.wait_for(lambda: (agent.metric("kdiag_probes_total", 'result="failure"') or 0) >= 3, 30, "three probes")
    code, seconds = agent.terminate(signal.SIGINT)
    assert code == 130 and seconds < 2.0
    assert [r["agent"]["sequence"] for r in directory_reports(reports_dir)][:3] == [1, 2, 3]
    assert not list(reports_dir.glob(".open-*"))
    assert (reports_dir / "agent.json").exists()
