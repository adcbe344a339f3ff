"""Failure mode #22, a NAT that drops idle connections: what real clients print, and ``kdiag explain`` on it.

``idle-nat-drop`` (:mod:`kdiag.lab.scenarios.idlenat`) comes up once: a broker behind a NAT that forgets a
TCP flow after 4 idle seconds and drops its packets silently. From the laptop, each client produces one
message, stays idle for longer than 4 s, and produces again: the second request goes into a connection the
NAT no longer knows, gets no answer, and the client gives up on it after its request timeout (2 s here
instead of the usual 30 s to 60 s) and reconnects. librdkafka says ``Timed out ProduceRequest in flight``
(kcat's 2.0.2 also ``1 request(s) timed out: disconnect (after ...ms in state UP)``; librdkafka's timeout
for a produce is socket.timeout.ms, its request.timeout.ms is the broker's), the Java console producer
``Disconnected from node 1 due to timeout``; ``kdiag explain`` must name IDLE_CONNECTION_DROPPED on them.
The same lab shows ``kdiag watch --idle-check``: the sidecar keeps one connection idle across its probes
and, from the laptop, reports the drop; on the broker's machine the idle connection answers.
``KDIAG_CAPTURE_FIXTURES=1`` writes the pastes to ``tests/fixtures/client_logs/idle_nat.*.log``.
Needs root; never skips.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kdiag.explain.engine import explain_text
from kdiag.lab.kafka import cache_root, install
from kdiag.lab.scenarios.idlenat import IDLE_LIMIT, IDLE_NAT_DROP, PUBLIC_IP, SERVER_IP

pytestmark = [pytest.mark.netns, pytest.mark.broker]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"
BOOTSTRAP = f"{PUBLIC_IP}:9092"
TOPIC = "orders"
IDLE_SECONDS = IDLE_LIMIT + 2
CLIENT_SECONDS = 60.0


def kcat_produce(live) -> tuple[list[str], str]:
    """kcat -P fed one line, then nothing for IDLE_SECONDS, then another: what it runs and what the user typed."""
    kcat = ["kcat", "-b", BOOTSTRAP, "-P", "-t", TOPIC, "-X", "socket.timeout.ms=2000",
            "-X", "message.timeout.ms=20000"]
    shown = f"{{ echo first; sleep {IDLE_SECONDS}; echo second; }} | {shlex.join(kcat)}"
    return ["sh", "-c", shown], shown


def confluent_produce(live) -> tuple[list[str], str]:
    config = {"bootstrap.servers": BOOTSTRAP, "socket.timeout.ms": 2000, "message.timeout.ms": 20000}
    code = ("import time\nfrom confluent_kafka import Producer\n"
            f"p = Producer({config!r})\n"
            "def delivered(err, msg):\n    print('delivery failed:' if err else 'delivered:', err or msg.value())\n"
            f"p.produce({TOPIC!r}, b'first', on_delivery=delivered)\np.flush(10)\n"
            f"time.sleep({IDLE_SECONDS})\n"
            f"p.produce({TOPIC!r}, b'second', on_delivery=delivered)\np.flush(25)")
    return [sys.executable, "-c", code], f"python3 - <<EOF\n{code}\nEOF"


# The Kafka tarball's config/tools-log4j.properties: what the console tools print by default.
TOOLS_LOG4J = ("log4j.rootLogger=WARN, stderr\n"
               "log4j.appender.stderr=org.apache.log4j.ConsoleAppender\n"
               "log4j.appender.stderr.layout=org.apache.log4j.PatternLayout\n"
               "log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
               "log4j.appender.stderr.Target=System.err\n")
JAVA_PAUSE = 15  # the JVM may take seconds to start and send the first line: the pause must outlast it


def console_produce(live) -> tuple[list[str], str]:
    """Kafka 3.9.2's console producer (kafka-clients 3.9.2), its tools' log4j settings, one line, a pause, another."""
    lib, tools = install("3.9.2"), cache_root() / "3.9.2" / "tools"
    log4j = live.live.state_dir / "tools-log4j.properties"
    log4j.write_text(TOOLS_LOG4J)
    args = ["--bootstrap-server", BOOTSTRAP, "--topic", TOPIC]
    for setting in ("request.timeout.ms=2000", "delivery.timeout.ms=20000", "linger.ms=0", "max.block.ms=10000",
                    "enable.idempotence=false"):
        args += ["--producer-property", setting]
    java = ["java", "-Xmx64m", f"-Dlog4j.configuration=file:{log4j}", "-cp", f"{lib}/*{os.pathsep}{tools}/*",
            "kafka.tools.ConsoleProducer", *args]
    feed = f"{{ echo first; sleep {JAVA_PAUSE}; echo second; sleep 8; }}"
    return (["sh", "-c", f"{feed} | {shlex.join(java)}"],
            f"{feed} | {shlex.join(['kafka-console-producer.sh', *args])}")


CLIENTS = {"kcat_produce": kcat_produce, "confluent_producer": confluent_produce, "console_producer": console_produce}


def capture(live, name: str) -> str:
    argv, shown = CLIENTS[name](live)
    done = live.live.run("laptop", argv, timeout=CLIENT_SECONDS)
    return f"$ {shown}\n{done.stdout}{done.stderr}"


@pytest.fixture(scope="module")
def pastes(lab) -> dict[str, str]:
    live = lab(IDLE_NAT_DROP.name)
    with ThreadPoolExecutor(max_workers=len(CLIENTS)) as pool:
        futures = {name: pool.submit(capture, live, name) for name in CLIENTS}
        captured = {name: future.result() for name, future in futures.items()}
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, paste in captured.items():
            (FIXTURES / f"idle_nat.{name}.log").write_text(paste)
    return captured


THE_CLIENTS_WORDS = {
    "kcat_produce": "1 request(s) timed out: disconnect (after",
    "confluent_producer": "Timed out ProduceRequest in flight",
    "console_producer": "Disconnected from node 1 due to timeout",
}


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_the_request_after_the_pause_times_out_and_explain_names_the_idle_drop(pastes, name) -> None:
    paste = pastes[name]
    assert THE_CLIENTS_WORDS[name] in paste, paste
    findings = explain_text(paste).findings
    assert findings and findings[0].id == "IDLE_CONNECTION_DROPPED", findings
    assert findings[0].evidence["node_id"] == 1 and f"kdiag bootstrap {BOOTSTRAP} --idle-check" in findings[0].fix


WATCH_SECONDS = 24  # probes every second; the connection kept from the first is asked after 6 idle seconds


def watch_reports(live, host: str, bootstrap: str) -> tuple[list[dict], str]:
    """``kdiag watch --idle-check`` in ``host`` for WATCH_SECONDS, then SIGTERM: its reports and its log."""
    argv = ["timeout", "-s", "TERM", str(WATCH_SECONDS), sys.executable, "-m", "kdiag", "watch", bootstrap,
            "--interval", "1s", "--timeout", "8s", "--no-roundtrip", "--idle-check", f"{IDLE_SECONDS}s",
            "--report-stdout", "--listen", "127.0.0.1:19108"]
    done = live.live.run(host, argv, timeout=WATCH_SECONDS + 10)
    assert done.returncode == 124, done.stderr  # stopped by timeout's SIGTERM, not ended on its own
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_watch_keeps_a_connection_idle_across_probes_and_reports_the_nat_dropping_it(lab) -> None:
    live = lab(IDLE_NAT_DROP.name)
    with ThreadPoolExecutor(max_workers=2) as pool:
        laptop = pool.submit(watch_reports, live, "laptop", BOOTSTRAP)
        server = pool.submit(watch_reports, live, "server", f"{SERVER_IP}:19092")
        (through_nat, log), (direct, _log) = laptop.result(), server.result()

    ids = [{finding["id"] for finding in report["findings"]} for report in through_nat]
    first = next(i for i, found in enumerate(ids) if "IDLE_CONNECTION_DROPPED" in found)
    assert first > 0 and through_nat[0]["idle"] is None  # nothing to say before the first check
    dropped = through_nat[first]["idle"]
    assert dropped["status"] == "timeout" and dropped["idle_s"] >= IDLE_SECONDS
    # Carried by every report until the next check, which the NAT drops too: the finding does not flap.
    assert all(report["idle"]["status"] == "timeout" for report in through_nat[first:])
    assert all("IDLE_CONNECTION_DROPPED" in found for found in ids[first:])
    stages = [{stage["name"]: stage["status"] for stage in report["stages"]} for report in through_nat]
    assert all(stage["metadata"] == "ok" for stage in stages)  # fresh connections work all along
    assert "IDLE_CONNECTION_DROPPED" in log  # the transition to broken, logged

    checks = [report["idle"] for report in direct if report["idle"] is not None]
    assert checks and all(check["status"] == "ok" and check["idle_s"] >= IDLE_SECONDS for check in checks)
    assert not any(finding["id"] == "IDLE_CONNECTION_DROPPED" for report in direct for finding in report["findings"])
