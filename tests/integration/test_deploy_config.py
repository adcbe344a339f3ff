"""The deploy/ examples' configuration, run for real: ``kdiag watch`` started with exactly the
environment that deploy/kubernetes/pod.yaml and deploy/compose/compose.yaml give the sidecar (only
addresses and paths moved to this machine), so a variable kdiag does not read, a value it refuses or
a secret that leaks would fail here rather than in someone's cluster."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

from kdiag.lab.kafka import free_ports
from tests.kdiag_cli import REPO
from tests.waiting import wait_until

POD = REPO / "deploy" / "kubernetes" / "pod.yaml"
COMPOSE = REPO / "deploy" / "compose" / "compose.yaml"
PASSWORD = "s3cret-from-the-mounted-Secret"


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def moved(env: dict[str, str], tmp_path: Path, bootstrap: str, port: int) -> tuple[dict[str, str], str]:
    """The manifest's environment with its bootstrap, listener (on ``port``) and paths moved here."""
    env = {k: v.replace("/var/lib/kdiag", str(tmp_path / "state")).replace("/run/secrets", str(tmp_path / "secrets"))
           for k, v in env.items()}
    env.update(KDIAG_BOOTSTRAP=bootstrap, KDIAG_LISTEN=f"127.0.0.1:{port}")
    return env, f"http://127.0.0.1:{port}"


def run_watch(args: list[str], env: dict[str, str], base: str, tmp_path: Path) -> tuple[str, str, str]:
    """Start it, wait for /readyz 200 and for every sink to take the first report, read /metrics and
    /report, SIGTERM it: (metrics, report, log)."""
    (tmp_path / "state").mkdir(exist_ok=True)
    keep = {k: v for k, v in os.environ.items() if not k.startswith("KDIAG_")}
    log = tmp_path / "watch.log"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "kdiag", *args], stdout=out, stderr=subprocess.STDOUT,
                                   env={**keep, "PYTHONPATH": str(REPO), **env})
    try:
        def ready() -> bool:
            assert process.poll() is None, f"kdiag watch exited {process.returncode}: {log.read_text()[-800:]}"
            return get_status(f"{base}/readyz") == 200

        wait_until(ready, 60, lambda: f"/readyz 200 (log: {log.read_text()[-800:]})")
        assert get(f"{base}/livez")[0] == 200
        # the sinks take the first report after /readyz turns 200: wait for them, not for a while
        metrics = wait_until(lambda: every_sink_took_a_report(text := get(f"{base}/metrics")[1]) and text, 30,
                             lambda: f"every sink took a report (log: {log.read_text()[-800:]})")
        report = get(f"{base}/report")[1]
    finally:
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
    assert process.returncode == 0 and time.monotonic() - started <= 2.0, log.read_text()[-800:]
    return metrics, report, log.read_text()


def every_sink_took_a_report(metrics: str) -> bool:
    """Each sink in /metrics has delivered, spooled or dropped at least one report."""
    taken: dict[str, float] = {}
    for labels, value in re.findall(r"^kdiag_sink_(?:delivered_reports_total|spooled_reports|dropped_reports_total)"
                                    r"\{([^}]*)\} (\S+)$", metrics, re.M):
        sink = re.search(r'sink="([^"]+)"', labels)
        if sink:
            taken[sink.group(1)] = taken.get(sink.group(1), 0.0) + float(value)
    return bool(taken) and all(count >= 1 for count in taken.values())


def get_status(url: str) -> int | None:
    try:
        return get(url)[0]
    except OSError:
        return None


def sample(metrics: str, name: str, **labels: str) -> float:
    selector = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pattern = rf"^{name}\{{{selector}\}} (\S+)$" if labels else rf"^{name} (\S+)$"
    match = re.search(pattern, metrics, re.M)
    assert match, f"no {name}{{{selector}}} in /metrics"
    return float(match.group(1))


def test_the_kubernetes_sidecars_environment_runs_kdiag_watch(tmp_path):
    """The pod's sidecar, its SASL_SSL settings and password file included, against a closed port:
    every variable is accepted, the first probe says BOOTSTRAP_REFUSED, the directory and the spooled
    topic sinks take the report on the emptyDir's paths, and the password is in no output."""
    pod = next(d for d in yaml.safe_load_all(POD.read_text()) if d["kind"] == "Pod")
    sidecar = next(c for c in pod["spec"]["containers"] if c["name"] == "kdiag")
    fields = {"metadata.namespace": "payments", "metadata.name": "payments", "status.podIP": "127.0.0.1"}
    env: dict[str, str] = {}
    for variable in sidecar["env"]:
        value = variable.get("value") or fields[variable["valueFrom"]["fieldRef"]["fieldPath"]]
        env[variable["name"]] = re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], value)
    assert env["KDIAG_VANTAGE"] == "k8s/prod-eu/payments/payments"
    assert env["KDIAG_LISTEN"] == "127.0.0.1:9108"  # the pod IP, expanded
    listen, refused = free_ports(2)  # one call: two calls may hand out one port twice
    env, base = moved(env, tmp_path, f"127.0.0.1:{refused}", listen)
    secret = Path(env["KDIAG_CLIENT_SASL_PASSWORD_FILE"])
    secret.parent.mkdir(parents=True)
    secret.write_text(PASSWORD)
    metrics, report, log = run_watch(sidecar["args"], env, base, tmp_path)
    assert sample(metrics, "kdiag_finding", id="BOOTSTRAP_REFUSED", severity="error") == 1
    assert sample(metrics, "kdiag_probe_success") == 0
    assert sample(metrics, "kdiag_sink_delivered_reports_total", sink="directory") >= 1
    assert sample(metrics, "kdiag_sink_spooled_reports", sink="topic") >= 1  # the topic is unreachable too
    assert json.loads(report)["vantage"]["label"] == "k8s/prod-eu/payments/payments"
    for text in (metrics, report, log, *(p.read_text(errors="replace") for p in (tmp_path / "state").rglob("*")
                                         if p.is_file())):
        assert PASSWORD not in text


def test_the_compose_sidecars_environment_runs_kdiag_watch_against_a_real_broker(tmp_path, kafka_broker):
    """The compose file's kdiag, its BOB address moved to the real broker: healthy, reports on its volume."""
    service = yaml.safe_load(COMPOSE.read_text())["services"]["kdiag"]
    [listen] = free_ports(1)
    env, base = moved({k: str(v) for k, v in service["environment"].items()}, tmp_path, kafka_broker.bootstrap_servers,
                      listen)
    metrics, report, _log = run_watch(service["command"], env, base, tmp_path)
    found = [(f["id"], f["title"]) for f in json.loads(report)["findings"]]
    assert sample(metrics, "kdiag_probe_success") == 1, found  # a failure says what the probe found
    assert sample(metrics, "kdiag_sink_delivered_reports_total", sink="directory") >= 1
    assert list((tmp_path / "state" / "reports").glob("*")), "no report file on the volume's path"
