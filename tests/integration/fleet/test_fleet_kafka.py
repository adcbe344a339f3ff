"""``kdiag fleet analyze kafka://BOOTSTRAP/TOPIC``: a batch read of a real broker's report topic through
Spark's own Kafka source (spark-sql-kafka-0-10, resolved by scripts/setup), with the same tables as
from files; a topic that does not exist is one line and exit 2; and end to end, ``kdiag watch
--report-topic`` sees the broker break and heal and the fleet job finds that incident on the topic."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kdiag.fleet.tables import TABLES
from kdiag.lab.kafka import KAFKA_VERSION, KafkaBroker, free_ports, loopback_specs
from tests.integration.fleet.conftest import SPARK_TIMEOUT
from tests.integration.fleet.support import differences, read_table
from tests.kdiag_cli import run_kdiag
from tests.waiting import wait_until

pytestmark = [pytest.mark.broker, pytest.mark.timeout(1800)]


def fleet_records(fleet: Path) -> list[str]:
    """Every record of the generated files: each line, and each whole ticket file."""
    records = []
    for path in sorted((fleet / "reports").iterdir()):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            records.extend(line for line in handle.read().split("\n") if line.strip())
    records.extend(path.read_text(encoding="utf-8") for path in sorted((fleet / "tickets").glob("*.json")))
    return records


def produce_records(bootstrap: str, topic: str, values: list[str]) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until its future resolves
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for n, value in enumerate(values):
        producer.produce(topic, value.encode("utf-8"), key=str(n % 7).encode())
        if n % 1000 == 0:
            producer.poll(0)
    assert producer.flush(60) == 0


@pytest.mark.timeout(1800)
def test_a_report_topic_gives_the_same_tables_as_the_files(kafka_broker: KafkaBroker, fleet: Path,
                                                           truth: dict[str, Any], tmp_path: Path) -> None:
    topic = "kdiag-fleet-reports"
    produce_records(kafka_broker.bootstrap_servers, topic, fleet_records(fleet))
    out = tmp_path / "out"
    run = run_kdiag("fleet", "analyze", f"kafka://{kafka_broker.bootstrap_servers}/{topic}", "--out", str(out),
                    timeout=SPARK_TIMEOUT)
    assert run.exit_code == 0, run.stderr
    for table in TABLES:
        if table != "rejected":
            assert differences(table, read_table(out, table), truth["tables"][table]) == [], table
    rejected = read_table(out, "rejected")
    assert {r["source"] for r in rejected} == {f"kafka://{kafka_broker.bootstrap_servers}/{topic}"}
    expected: Counter[str] = Counter()
    for row in truth["tables"]["rejected"]:
        expected[row["reason"]] += row["count"]
    assert Counter({r["reason"]: r["count"] for r in rejected}) == expected
    assert not any("hunter2" in s for r in rejected for s in r["sample"])


def test_a_topic_that_does_not_exist_is_one_line_and_exit_2(kafka_broker: KafkaBroker, tmp_path: Path) -> None:
    run = run_kdiag("fleet", "analyze", f"kafka://{kafka_broker.bootstrap_servers}/no-such-topic", "--out",
                    str(tmp_path / "out"), timeout=120)
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and "no such topic" in run.stderr, run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.timeout(1800)
def test_watch_reports_a_broker_outage_to_the_topic_and_the_fleet_job_finds_the_incident(tmp_path: Path) -> None:
    client, controller, listen = free_ports(3)
    spec = loopback_specs(1, ports=(client, controller))[0]
    workdir = tmp_path / "broker"
    broker = KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=workdir, timeout=180)
    topic = "kdiag-watch-fleet"
    bootstrap = broker.bootstrap_servers
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KDIAG_")}
    log = (tmp_path / "watch.stderr").open("wb")
    watch = subprocess.Popen(
        [sys.executable, "-m", "kdiag", "watch", bootstrap, "--interval", "1s", "--timeout", "3s",
         "--vantage", "ci/fleet-e2e", "--report-topic", topic, "--spool-dir", str(tmp_path / "spool"),
         "--report-dir", str(tmp_path / "reports"), "--listen", f"127.0.0.1:{listen}"],
        stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL, env=environ)
    try:
        _wait_for_log(tmp_path / "watch.stderr", "healthy", 120, watch)
        broker.stop()  # break: the bootstrap is refused
        _wait_for_log(tmp_path / "watch.stderr", "healthy → broken", 60, watch)
        _wait_for_reports(tmp_path / "reports", lambda broken: broken >= 2, 60, watch)  # a few broken reports
        broker = KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=workdir, timeout=180)  # heal
        _wait_for_log(tmp_path / "watch.stderr", "broken → healthy", 120, watch)
        # a few healthy reports after the recovery, and the spool replayed onto the topic
        healed = _healthy_after_broken(tmp_path / "reports")
        _wait_for_reports(tmp_path / "reports", lambda _: _healthy_after_broken(tmp_path / "reports") >= healed + 3,
                          60, watch)
        wait_until(lambda: not list((tmp_path / "spool").glob("[0-9]*.json")), 60,  # its reports, not agent.json
                    "the spool never emptied")
        watch.send_signal(signal.SIGTERM)
        assert watch.wait(10) == 0
        out = tmp_path / "out"
        run = run_kdiag("fleet", "analyze", f"kafka://{bootstrap}/{topic}", "--out", str(out), timeout=SPARK_TIMEOUT)
        assert run.exit_code == 0, run.stderr
        incidents = read_table(out, "incidents")
        broken = [i for i in incidents if i["cluster"] == bootstrap and i["finding_id"].startswith("BOOTSTRAP_")]
        assert len(broken) == 1, incidents
        assert broken[0]["resolved"] is not None and broken[0]["vantages"] == 1
        assert [v["vantage"] for v in read_table(out, "vantages")] == ["ci/fleet-e2e"]
    finally:
        if watch.poll() is None:
            watch.kill()
        log.close()
        broker.stop()


def _reports(directory: Path) -> list[dict[str, Any]]:
    """Every report the watch has written to its --report-dir so far (sealed and open segments)."""
    found = []
    for path in sorted(directory.glob("*.jsonl*")):  # pathlib's * matches the open .open-*.jsonl.partial too
        for line in path.read_text(errors="replace").splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue  # a line being written
    return sorted(found, key=lambda r: r.get("generated_at", ""))


def _broken(report: dict[str, Any]) -> bool:
    return any(f.get("id", "").startswith("BOOTSTRAP_") for f in report.get("findings") or ())


def _healthy_after_broken(directory: Path) -> int:
    reports = _reports(directory)
    last = max((n for n, r in enumerate(reports) if _broken(r)), default=len(reports))
    return sum(1 for r in reports[last + 1:] if not _broken(r))


def _wait_for_reports(directory: Path, enough: Callable[[int], bool], timeout: float,
                      process: subprocess.Popen[bytes]) -> None:
    """Until ``enough(the count of broken reports written)``, the watch still running."""
    def check() -> bool:
        assert process.poll() is None, "kdiag watch exited"
        return enough(sum(1 for r in _reports(directory) if _broken(r)))

    wait_until(check, timeout, f"kdiag watch's reports never got there: {len(_reports(directory))} written")


def _wait_for_log(path: Path, text: str, timeout: float, process: subprocess.Popen[bytes]) -> None:
    def logged() -> bool:
        assert process.poll() is None, path.read_text(errors="replace")
        return text in path.read_text(errors="replace")

    wait_until(logged, timeout, lambda: f"kdiag watch never logged {text!r}: {path.read_text(errors='replace')[-2000:]}")
