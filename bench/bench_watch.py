"""Benchmarks of ``kdiag watch`` against a real broker, each with its reference in the same run.

  1. a warm in-process probe (the sidecar's, ``run_bootstrap`` in a process that has probed before)
     vs a cold ``kcat -L`` process: the metadata-and-advertised probe (``--no-roundtrip``, what kcat
     -L compares to) and the full probe with the round trip;
  2. steady state: a ``kdiag watch`` process probing at a short interval (≥ 100 probes, /metrics
     scraped every second as Prometheus would): CPU seconds per probe and when idle, scaled to the
     default 30 s interval (target ≤ 1% of a core), RSS (target ≤ 60 MB), and RSS after 1,000 probes
     vs after 100 (target within 5%);
  3. the time from starting ``kdiag watch`` to its first ``/readyz`` 200, vs ``kdiag bootstrap``'s
     whole run (the same probe, cold) for scale.

Run: ``python -m kdiag.lab.sandbox -- python -m bench.bench_watch [--probes 1000]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.common import ensure_bytecode, kdiag_argv, median_wall, summarise, write_results
from kdiag.lab.kafka import KafkaBroker, free_ports, loopback_specs

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def warm_probe(bootstrap: str, runs: int) -> dict:
    from kdiag.orchestrate import BootstrapOptions, run_bootstrap
    from kdiag.target import parse_bootstrap

    results = {}
    for name, roundtrip in (("no_roundtrip", False), ("full", True)):
        options = BootstrapOptions(targets=parse_bootstrap(bootstrap), timeout=10, roundtrip=roundtrip)
        for _ in range(5):
            run_bootstrap(options)
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            report = run_bootstrap(options)
            samples.append(time.perf_counter() - started)
            assert not report.findings, [f.id for f in report.findings]
        results[name] = summarise(samples)
    kcat = median_wall(["kcat", "-b", bootstrap, "-L"], runs=runs)
    return {
        "kcat_L_cold": kcat, "warm_probe_no_roundtrip": results["no_roundtrip"], "warm_probe_full": results["full"],
        "ratio_no_roundtrip_vs_kcat": round(results["no_roundtrip"]["median_s"] / kcat["median_s"], 2),
        "ratio_full_vs_kcat": round(results["full"]["median_s"] / kcat["median_s"], 2),
        "target_ratio": 1.0,
    }


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rpartition(" ")[2])
    return 0.0


def _probes(url: str) -> int:
    _status, text = _get(url + "/metrics")
    return int(_metric(text, "kdiag_probe_duration_seconds_count"))


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def _rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20


class Agent:
    def __init__(self, bootstrap: str, interval: str, workdir: Path) -> None:
        self.port = free_ports(1)[0]
        self.url = f"http://127.0.0.1:{self.port}"
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            kdiag_argv("watch", bootstrap, "--interval", interval, "--listen", f"127.0.0.1:{self.port}",
                       "--report-dir", str(workdir / "reports")),
            stdout=subprocess.DEVNULL, stderr=(workdir / "watch.log").open("wb"))
        while True:
            assert self.process.poll() is None, (workdir / "watch.log").read_text()
            try:
                if _get(self.url + "/readyz")[0] == 200:
                    break
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.05)  # polling harder would take the agent's CPU (it answers each request)
        self.ready_s = time.perf_counter() - self.started

    def wait_probes(self, count: int) -> None:
        while _probes(self.url) < count:  # a scrape a second, as Prometheus would
            assert self.process.poll() is None
            time.sleep(1.0)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def steady_state(bootstrap: str, probes: int, workdir: Path) -> dict:
    agent = Agent(bootstrap, "100ms", workdir)
    try:
        agent.wait_probes(10)
        cpu0, n0, t0 = _cpu_seconds(agent.process.pid), _probes(agent.url), time.perf_counter()
        agent.wait_probes(100)
        rss_100 = _rss_mb(agent.process.pid)
        agent.wait_probes(probes)
        rss_n = _rss_mb(agent.process.pid)
        cpu1, n1, t1 = _cpu_seconds(agent.process.pid), _probes(agent.url), time.perf_counter()
        n_final = n1
        cpu_per_probe = (cpu1 - cpu0) / (n1 - n0)
        probe_wall = (t1 - t0) / (n1 - n0)
    finally:
        agent.stop()
    (workdir / "idle").mkdir()
    idle = Agent(bootstrap, "1h", workdir / "idle")
    try:
        time.sleep(2.0)
        c0, t0 = _cpu_seconds(idle.process.pid), time.perf_counter()
        for _ in range(20):  # a scrape a second for 20 s
            _get(idle.url + "/metrics")
            time.sleep(1.0)
        idle_fraction = (_cpu_seconds(idle.process.pid) - c0) / (time.perf_counter() - t0)
        idle_rss = _rss_mb(idle.process.pid)
    finally:
        idle.stop()
    at_30s = cpu_per_probe / 30 + idle_fraction
    return {
        "probes_measured": n1 - n0, "probes_total": n_final, "cpu_s_per_probe": round(cpu_per_probe, 4),
        "wall_s_per_probe_at_100ms_interval": round(probe_wall, 4), "idle_cpu_fraction": round(idle_fraction, 5),
        "cpu_fraction_at_30s_interval": round(at_30s, 5), "rss_mb_after_100": round(rss_100, 1),
        f"rss_mb_after_{probes}": round(rss_n, 1), "rss_mb_idle_after_first_probe": round(idle_rss, 1),
        "rss_growth_pct": round(100 * (rss_n - rss_100) / rss_100, 2),
        "target_rss_mb": 60, "target_cpu_fraction": 0.01, "target_rss_growth_pct": 5,
    }


def start_to_ready(bootstrap: str, runs: int, workdir: Path) -> dict:
    samples = []
    for run in range(runs + 1):
        (workdir / f"ready{run}").mkdir()
        agent = Agent(bootstrap, "30s", workdir / f"ready{run}")
        agent.stop()
        if run:  # the first run warms the page cache
            samples.append(agent.ready_s)
    bootstrap_run = median_wall(kdiag_argv("bootstrap", bootstrap, "--json"), runs=runs)
    return {"watch_start_to_ready": summarise(samples), "kdiag_bootstrap_cold": bootstrap_run}


def summary(results: dict, probes: int) -> str:
    warm, steady, ready = results["warm_probe"], results["steady_state"], results["start_to_ready"]
    kcat = warm["kcat_L_cold"]["median_s"]

    def verdict(ok: bool) -> str:
        return "meets target" if ok else "**misses target**"

    rows = [
        ("warm in-process probe, no round trip", f"{warm['warm_probe_no_roundtrip']['median_s']:.3f} s",
         f"cold `kcat -L` {kcat:.3f} s", f"{warm['ratio_no_roundtrip_vs_kcat']}×", "≤ 1×",
         verdict(warm["ratio_no_roundtrip_vs_kcat"] <= 1)),
        ("warm in-process probe, full (round trip)", f"{warm['warm_probe_full']['median_s']:.3f} s",
         f"cold `kcat -L` {kcat:.3f} s", f"{warm['ratio_full_vs_kcat']}×", "—", "for scale"),
        ("steady state CPU at a 30 s interval", f"{100 * steady['cpu_fraction_at_30s_interval']:.3f}% of a core",
         f"{steady['cpu_s_per_probe'] * 1000:.1f} ms CPU per probe, idle {100 * steady['idle_cpu_fraction']:.3f}%",
         "—", "≤ 1%", verdict(steady["cpu_fraction_at_30s_interval"] <= 0.01)),
        ("RSS after 100 probes", f"{steady['rss_mb_after_100']} MB", "—", "—", "≤ 60 MB",
         verdict(steady["rss_mb_after_100"] <= 60)),
        (f"RSS after {steady['probes_total']} probes", f"{steady[f'rss_mb_after_{probes}']} MB",
         f"after 100: {steady['rss_mb_after_100']} MB", f"{steady['rss_growth_pct']:+}%", "within 5%",
         verdict(abs(steady["rss_growth_pct"]) <= 5 and steady[f"rss_mb_after_{probes}"] <= 60)),
        ("start to first `/readyz` 200", f"{ready['watch_start_to_ready']['median_s']:.3f} s",
         f"`kdiag bootstrap` whole run {ready['kdiag_bootstrap_cold']['median_s']:.3f} s", "—", "—", "for scale"),
    ]
    table = "| measurement | kdiag watch | reference | ratio | target | verdict |\n|---|---|---|---|---|---|\n"
    table += "\n".join("| " + " | ".join(row) + " |" for row in rows)
    return table + f"""

Notes:
- The warm probe is `run_bootstrap` in a process that has probed before (what the sidecar does every interval); `kcat -L` is a new process each time, as a script or a per-probe sidecar would run it. Medians of {warm['warm_probe_full']['runs']} runs.
- Steady state: `kdiag watch --interval 100ms --report-dir …` against the healthy broker, with the round trip, `/metrics` scraped every second; CPU is the process's user+system time over {steady['probes_measured']} probes, scaled to one probe per 30 s plus the idle rate (measured separately: an agent with a 1 h interval scraped every second for 20 s).
- Image size and the alert rules are measured and tested with the image (`bench/bench_image.py`).
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--probes", type=int, default=1000)
    args = parser.parse_args()
    ensure_bytecode()
    with tempfile.TemporaryDirectory() as workdir:
        work = Path(workdir)
        with KafkaBroker.start(loopback_specs(1)[0], workdir=work / "broker", timeout=180) as broker:
            bootstrap = broker.bootstrap_servers
            results = {"warm_probe": warm_probe(bootstrap, args.runs)}
            results["steady_state"] = steady_state(bootstrap, args.probes, work)
            results["start_to_ready"] = start_to_ready(bootstrap, 5, work)
    write_results("watch", {"title": "kdiag watch: the sidecar's probe, steady state and start-up", **results,
                            "summary_md": summary(results, args.probes)})


if __name__ == "__main__":
    main()
