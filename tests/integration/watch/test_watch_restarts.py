"""The broker stopped and restarted 20 times during a watch: the agent never exits, every outage is
one transition each way, the directory sink holds every report with no gap in the sequence, and
every report reaches the topic once the broker is back (the spool replays what waited)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from conftest import directory_reports, topic_reports

from kdiag.lab.kafka import KAFKA_VERSION, KafkaBroker, loopback_specs

RESTARTS = int(os.environ.get("KDIAG_WATCH_RESTARTS", "20"))
TOPIC = "kdiag-watch-reports"


@pytest.mark.broker
@pytest.mark.timeout(1800)
def test_twenty_broker_restarts_are_forty_transitions_and_lose_no_report(start_watch, tmp_path: Path) -> None:
    spec = loopback_specs(1)[0]
    workdir = tmp_path / "broker"
    broker = KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=workdir, timeout=180)
    try:
        reports_dir, spool_dir = tmp_path / "reports", tmp_path / "spool"
        agent = start_watch(broker.bootstrap_servers, "--interval", "500ms", "--timeout", "3s",
                            "--report-dir", str(reports_dir), "--report-topic", TOPIC, "--spool-dir", str(spool_dir))
        agent.wait_ready()

        def healthy() -> bool:
            return agent.metric("kdiag_probe_success") == 1

        agent.wait_for(healthy, 60, "a healthy first probe")
        broker_labels = f'endpoint="{broker.bootstrap_servers}",node_id="1"'
        restart_seconds = []
        for _ in range(RESTARTS):
            broker.stop()
            agent.wait_for(lambda: agent.metric("kdiag_broker_up", broker_labels) == 0, 30, "the outage seen")
            assert agent.metric("kdiag_probe_success") == 0
            started = time.monotonic()
            broker = KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=workdir, timeout=180)
            restart_seconds.append(time.monotonic() - started)
            agent.wait_for(healthy, 120, "the recovery seen")
        agent.wait_for(lambda: agent.metric("kdiag_sink_spooled_reports", 'sink="topic"') == 0, 120,
                       "the spool replayed")
        assert agent.process.poll() is None
        code, seconds = agent.terminate()
        assert code == 0 and seconds < 2.0

        log = agent.stderr()
        first_healthy = re.search(r"(first probe: |broken → )healthy; findings: none\n", log)
        after = log[first_healthy.end():]  # a fresh broker may fail the first round trip: count from healthy on
        assert len(re.findall(r"healthy → broken", after)) == RESTARTS
        assert len(re.findall(r"broken → healthy", after)) == RESTARTS
        written = directory_reports(reports_dir)
        assert [r["agent"]["sequence"] for r in written] == list(range(1, len(written) + 1))
        # A report made while the agent stopped may still wait in the spool (it goes out at the next start)
        waiting = {json.loads(path.read_text())["report_id"] for path in spool_dir.glob("*.json")
                   if path.name != "agent.json"}
        on_topic = topic_reports(broker.bootstrap_servers, TOPIC, expect=len(written) - len(waiting), timeout=120)
        delivered = {r["report_id"] for r in on_topic}
        missing = [r["agent"]["sequence"] for r in written if r["report_id"] not in delivered | waiting]
        assert missing == [], f"reports neither on the topic nor in the spool (of {len(written)})"
        assert len(waiting) <= 2
        print(f"{RESTARTS} restarts, {len(written)} reports, {len(on_topic)} on the topic; broker restart "
              f"{min(restart_seconds):.1f}-{max(restart_seconds):.1f} s")
    finally:
        broker.stop()
