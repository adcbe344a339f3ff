"""Benchmark of the capture path: ``kdiag pcap`` against tshark, peak memory, live-capture overhead.

    python -m bench.bench_pcap                    # 1M-packet mixed capture: kdiag vs tshark
    python -m bench.bench_pcap --big-gb 2         # also peak RSS of kdiag on a ~2 GB capture
    python -m bench.bench_pcap --no-mixed --live 20   # only live capture's cost: 20 runs each of 3 modes x 2

Captures are generated into bench/out (git-ignored). Both tools read the same file in the same run;
``/usr/bin/time -v`` gives each one's wall time, CPU time and peak RSS. Results go to
bench/results/pcap.json (``python -m bench.report`` puts them in BENCHMARKS.md). Nothing is tuned to
pass: the numbers are what this machine measured. Targets (issue 4): throughput >= 1x tshark, peak
RSS <= 200 MB on a 2 GB capture, live capture adds <= 10% to a healthy bootstrap run (whole process,
median of >= 10 runs each without --capture and with it on the raw and the scapy backends, same run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import REPO, RESULTS, kdiag_argv, write_results
from kdiag.capture.pcapio import PcapWriter
from kdiag.capture.synthetic import (
    Broker,
    TcpConversation,
    api_versions_response,
    metadata_request,
    metadata_response,
    opaque_request,
    opaque_response,
)
from probes.codec import ApiVersionsRequest, encode_request

KAFKA_PORT = 9092
BROKERS = [Broker(i, f"10.0.0.{i}", KAFKA_PORT, f"rack-{i}") for i in (1, 2, 3)]
TOPICS = [(f"topic-{i}", 0, 6) for i in range(10)]

def kdiag_pcap_argv(*args: str) -> list[str]:
    """``kdiag pcap ...`` as a user runs it."""
    return kdiag_argv("pcap", *args)


def generate(path: Path, *, packets: int, flows: int, seed: int = 1, fetch_max: int = 20_000,
             produce_max: int = 6_000) -> dict:
    """A capture of ``flows`` Kafka connections to three brokers, interleaved: handshake, ApiVersions,
    Metadata, then produce and fetch round trips (bodies of random size, most spanning several
    segments) with a Metadata refresh now and then, until ``packets`` packets are written."""
    rng = random.Random(seed)
    written = {"packets": 0}
    clock = {"t": 1_700_000_000.0}

    with path.open("wb") as stream:
        writer = PcapWriter(stream)

        def sink(timestamp: float, frame: bytes) -> None:
            writer.write(timestamp, frame)
            written["packets"] += 1

        def now() -> float:
            clock["t"] += 0.00001
            return clock["t"]

        conversations = []
        for i in range(flows):
            conversation = TcpConversation((f"10.0.1.{i % 250 + 1}", 40000 + i), (f"10.0.0.{i % 3 + 1}", KAFKA_PORT),
                                           checksum=False, sink=sink, clock=now)
            conversation.handshake()
            conversation.client(encode_request(ApiVersionsRequest(version=3), correlation_id=1, client_id="bench"))
            conversation.server(api_versions_response(1))
            conversation.client(metadata_request(2, 9, client_id="bench"))
            conversation.server(metadata_response(2, BROKERS, topics=TOPICS))
            conversations.append([conversation, 3])
        operations = {"produce": 0, "fetch": 0, "metadata": 0}
        while written["packets"] < packets:
            entry = rng.choice(conversations)
            conversation, correlation_id = entry
            entry[1] += 1
            kind = rng.random()
            if kind < 0.01:
                conversation.client(metadata_request(correlation_id, 9, client_id="bench"))
                conversation.server(metadata_response(correlation_id, BROKERS, topics=TOPICS))
                operations["metadata"] += 1
            elif kind < 0.5:
                conversation.client(opaque_request(0, 9, correlation_id, rng.randint(200, produce_max)))
                conversation.server(opaque_response(correlation_id, 60))
                operations["produce"] += 1
            else:
                conversation.client(opaque_request(1, 12, correlation_id, 100))
                conversation.server(opaque_response(correlation_id, rng.randint(500, fetch_max)))
                operations["fetch"] += 1
        for conversation, _ in conversations:
            conversation.close()
    return {"path": str(path), "packets": written["packets"], "bytes": path.stat().st_size, "flows": flows,
            "operations": operations}


def timed(argv: list[str], *, env: dict[str, str] | None = None) -> dict:
    """Runs ``argv`` under /usr/bin/time -v: wall seconds, CPU seconds (user + system), peak RSS.

    CPU time is reported beside wall time because this machine is shared: other jobs (brokers,
    test suites) inflate wall time unevenly between two runs, CPU time much less so."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False,
                          env=env)
    seconds = time.perf_counter() - start

    def field(name: bytes) -> float:
        return float(re.search(rb"\t" + name + rb": ([\d.]+)", done.stderr).group(1))

    return {"seconds": round(seconds, 3),
            "cpu_seconds": round(field(rb"User time \(seconds\)") + field(rb"System time \(seconds\)"), 3),
            "max_rss_mb": round(field(rb"Maximum resident set size \(kbytes\)") / 1024, 1),
            "exit": done.returncode, "stdout": done.stdout}


def kdiag_pcap(path: str) -> dict:
    result = timed(kdiag_pcap_argv(path, "--json"))
    document = json.loads(result.pop("stdout"))
    result["metadata_responses"] = len(document["metadata"])
    result["kafka_flows"] = sum(f["protocol"] == "kafka" for f in document["flows"])
    result["warnings"] = len(document["warnings"])
    return result


def tshark(path: str) -> dict:
    result = timed(["tshark", "-r", path, "-d", f"tcp.port=={KAFKA_PORT},kafka", "-Y", "kafka"])
    result["kafka_packets"] = result.pop("stdout").count(b"\n")
    return result


def rates(result: dict, capture: dict) -> dict:
    result["packets_per_s"] = round(capture["packets"] / result["seconds"])
    result["mb_per_s"] = round(capture["bytes"] / 1e6 / result["seconds"], 1)
    return result


def bench_mixed(out: Path, packets: int, flows: int, repeat: int) -> dict:
    """Both tools on the same file, runs interleaved (kdiag, tshark, kdiag, ...); the best of each."""
    capture = generate(out / "pcap_mixed.pcap", packets=packets, flows=flows)
    kdiag_runs, tshark_runs = [], []
    for _ in range(repeat):
        kdiag_runs.append(kdiag_pcap(capture["path"]))
        tshark_runs.append(tshark(capture["path"]))
    kdiag_best = rates(min(kdiag_runs, key=lambda r: r["seconds"]), capture)
    tshark_best = rates(min(tshark_runs, key=lambda r: r["seconds"]), capture)
    return {"capture": capture, "kdiag": kdiag_best, "tshark": tshark_best,
            "kdiag_seconds_all": [r["seconds"] for r in kdiag_runs],
            "tshark_seconds_all": [r["seconds"] for r in tshark_runs],
            "kdiag_cpu_seconds_all": [r["cpu_seconds"] for r in kdiag_runs],
            "tshark_cpu_seconds_all": [r["cpu_seconds"] for r in tshark_runs],
            "throughput_ratio_vs_tshark": round(tshark_best["seconds"] / kdiag_best["seconds"], 2),
            "cpu_ratio_vs_tshark": round(min(r["cpu_seconds"] for r in tshark_runs)
                                         / min(r["cpu_seconds"] for r in kdiag_runs), 2),
            "load_average_at_end": os.getloadavg()}


def bench_big(out: Path, gigabytes: float, with_tshark: bool) -> dict:
    """Peak RSS on a capture of about ``gigabytes`` GB: mostly large fetch responses, full segments."""
    packets = int(gigabytes * 1e9 / 1400)
    capture = generate(out / "pcap_big.pcap", packets=packets, flows=24, seed=2, fetch_max=1_000_000,
                       produce_max=200_000)
    result = {"capture": capture, "kdiag": rates(kdiag_pcap(capture["path"]), capture)}
    if with_tshark:
        result["tshark"] = rates(tshark(capture["path"]), capture)
    os.unlink(capture["path"])
    return result


# --- live capture overhead -------------------------------------------------------------------------------

# Where a capture run's time goes, in process: starting the capture, the probe under capture, stopping it
# with the summary. argv: mode (plain | capture), bootstrap; the backend comes from the environment. What
# every `kdiag bootstrap` imports before or during the probe (the CLI, the diagnosis rules) is imported
# first, so that the start is what the capture itself adds.
LIVE_ONE = """\
import json, sys, time
from kdiag import cli, orchestrate
import kdiag.diagnose
from kdiag.target import parse_bootstrap
options = orchestrate.BootstrapOptions(targets=parse_bootstrap(sys.argv[2]), timeout=30.0)
extra = {}
if sys.argv[1] == "capture":
    before = time.perf_counter()
    from kdiag.capture.session import finish_live_capture, start_live_capture
    capture = start_live_capture(options.targets)
    extra["capture_start_s"] = time.perf_counter() - before
started = time.perf_counter()
report = orchestrate.run_bootstrap(options)
probed = time.perf_counter()
extra["probe_s"] = probed - started
if sys.argv[1] == "capture":
    summary = finish_live_capture(capture, report)
    extra.update(capture_finish_s=time.perf_counter() - probed, backend=capture.backend,
                 metadata_captured=len(summary.metadata), packets=summary.packets)
print(json.dumps({"problems": len(report.problems), **extra}))
"""

# What each measured run is: kdiag's console script, as a user runs it (round trip included).
LIVE_MODES = {
    "plain": ((), {}),
    "raw": (("--capture",), {"KDIAG_CAPTURE_BACKEND": "raw"}),
    "scapy": (("--capture",), {"KDIAG_CAPTURE_BACKEND": "scapy"}),
}


def live_conditions(out: Path) -> dict[str, dict[str, str | None]]:
    """How Python finds kdiag's bytecode. ``compiled``: as an installed kdiag, whose .pyc files pip wrote
    at install time (here a pycache under bench/out, filled by the warm-up runs). ``source``: every kdiag
    module compiled from source on each run, which is how this repository's dev setup runs it
    (PYTHONDONTWRITEBYTECODE=1, no __pycache__): the capture modules' compile time then counts too."""
    return {"compiled": {"PYTHONPYCACHEPREFIX": str(out / "pycache"), "PYTHONDONTWRITEBYTECODE": None},
            "source": {"PYTHONPYCACHEPREFIX": None, "PYTHONDONTWRITEBYTECODE": "1"}}


def _environment(changes: dict[str, str | None]) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _live_run(bootstrap: str, mode: str, env: dict[str, str]) -> dict:
    args, backend = LIVE_MODES[mode]
    result = timed(kdiag_argv("bootstrap", bootstrap, "--json", *args), env={**env, **backend})
    report = json.loads(result.pop("stdout"))
    if result["exit"] != 0 or report["findings"]:
        raise RuntimeError(f"{mode}: the bootstrap run was not healthy (exit {result['exit']}, "
                           f"findings {[f['id'] for f in report['findings']]})")
    if mode != "plain":
        capture = report.get("capture") or {}
        if not capture.get("metadata"):
            raise RuntimeError(f"{mode}: the capture decoded no Metadata response")
        result["metadata_captured"] = len(capture["metadata"])
    return result


def bench_live(runs: int, out: Path) -> dict:
    """Healthy ``kdiag bootstrap --json`` runs (round trip included) against a real broker, each a fresh
    process timed whole: without capture, with --capture on the raw backend and on the scapy backend.
    The three modes take turns, each round in a rotated order, so the machine's other load falls on all
    three alike; the median of ``runs`` each. Under both bytecode conditions (see live_conditions)."""
    from kdiag.lab.kafka import KAFKA_VERSION, KafkaBroker, loopback_specs

    modes = list(LIVE_MODES)
    results: dict = {"kafka_version": KAFKA_VERSION, "runs_each": runs, "conditions": {}, "breakdown": {}}
    with KafkaBroker.start(loopback_specs(1)[0], version=KAFKA_VERSION, workdir=out / "live-broker") as broker:
        bootstrap = broker.bootstrap_servers
        for condition, changes in live_conditions(out).items():
            env = _environment(changes)
            for mode in modes * 2:  # warm up: topic creation, JVM JIT, page cache, the pycache
                _live_run(bootstrap, mode, env)
            samples: dict[str, list[dict]] = {mode: [] for mode in modes}
            for round_number in range(runs):
                shift = round_number % len(modes)
                for mode in modes[shift:] + modes[:shift]:
                    samples[mode].append(_live_run(bootstrap, mode, env))
            results["conditions"][condition] = _live_medians(samples)
        env = _environment(live_conditions(out)["compiled"])
        breakdown: dict[str, list[dict]] = {"plain": [], "raw": [], "scapy": []}
        for _ in range(max(5, runs // 2)):
            for mode in breakdown:
                done = subprocess.run([sys.executable, "-c", LIVE_ONE, "plain" if mode == "plain" else "capture",
                                       bootstrap], capture_output=True, text=True, check=True,
                                      env={**env, **LIVE_MODES[mode][1]})
                breakdown[mode].append(json.loads(done.stdout))
        for mode, measured in breakdown.items():
            results["breakdown"][mode] = {key: round(statistics.median(m[key] for m in measured), 4)
                                          for key in ("capture_start_s", "probe_s", "capture_finish_s")
                                          if key in measured[0]}
    results["load_average_at_end"] = os.getloadavg()
    return results


def _live_medians(samples: dict[str, list[dict]]) -> dict:
    medians = {}
    for mode, runs in samples.items():
        medians[mode] = {"wall_median_s": round(statistics.median(r["seconds"] for r in runs), 3),
                         "wall_min_s": round(min(r["seconds"] for r in runs), 3),
                         "cpu_median_s": round(statistics.median(r["cpu_seconds"] for r in runs), 3),
                         "wall_all_s": [r["seconds"] for r in runs]}
    plain = medians["plain"]
    for mode in ("raw", "scapy"):
        medians[mode]["wall_overhead_pct"] = round(
            (medians[mode]["wall_median_s"] - plain["wall_median_s"]) / plain["wall_median_s"] * 100, 1)
        medians[mode]["cpu_overhead_pct"] = round(
            (medians[mode]["cpu_median_s"] - plain["cpu_median_s"]) / plain["cpu_median_s"] * 100, 1)
    return medians


def summary_md(results: dict) -> str:
    mixed, big, live = results["mixed"], results.get("big"), results.get("live")
    k, t = mixed["kdiag"], mixed["tshark"]
    packets = mixed["capture"]["packets"]
    rows = [
        "| measurement | kdiag pcap --json | tshark -Y kafka | kdiag vs tshark | target |",
        "|---|---|---|---|---|",
        f"| {packets:,}-packet mixed Kafka capture ({mixed['capture']['bytes'] / 1e6:.0f} MB), wall, best of "
        f"{len(mixed['kdiag_seconds_all'])} | {k['seconds']:.2f} s ({k['packets_per_s']:,} pkt/s) | "
        f"{t['seconds']:.2f} s ({t['packets_per_s']:,} pkt/s) | {mixed['throughput_ratio_vs_tshark']}x throughput "
        "| >= 1x |",
        f"| same capture, CPU time (user + sys), best | {min(mixed['kdiag_cpu_seconds_all']):.2f} s | "
        f"{min(mixed['tshark_cpu_seconds_all']):.2f} s | {mixed['cpu_ratio_vs_tshark']}x | |",
        f"| same capture, peak RSS | {k['max_rss_mb']:.0f} MB | {t['max_rss_mb']:.0f} MB | | |",
    ]
    if big:
        bt = big.get("tshark")
        rows.append(f"| ~{big['capture']['bytes'] / 1e9:.1f} GB capture ({big['capture']['packets']:,} packets), "
                    f"peak RSS | {big['kdiag']['max_rss_mb']:.0f} MB ({big['kdiag']['seconds']:.1f} s) | "
                    + (f"{bt['max_rss_mb']:.0f} MB ({bt['seconds']:.1f} s)" if bt else "not run")
                    + " | | <= 200 MB |")
    notes = [f"Load average at the end of the mixed runs: {', '.join(f'{x:.1f}' for x in mixed['load_average_at_end'])} "
             "(the machine is shared; CPU time is the steadier comparison)."]
    text = "\n".join(rows) + "\n\n" + " ".join(notes) + "\n"
    return text + (live_summary_md(live) if live else "")


LIVE_CONDITION_LABELS = {"compiled": "kdiag's bytecode compiled, as installed",
                         "source": "kdiag compiled from source on every run (PYTHONDONTWRITEBYTECODE=1)"}


def live_summary_md(live: dict) -> str:
    rows = ["", "Live capture: a healthy `kdiag bootstrap --json` run (round trip included), whole process, "
                f"median of {live['runs_each']} runs of each, taking turns in the same run:", "",
            "| condition | without --capture | --capture, raw backend (default) | --capture, scapy backend | target |",
            "|---|---|---|---|---|"]
    for condition, label in LIVE_CONDITION_LABELS.items():
        medians = live["conditions"].get(condition)
        if not medians:
            continue
        plain, raw, scapy = medians["plain"], medians["raw"], medians["scapy"]
        rows.append(f"| {label}, wall | {plain['wall_median_s']:.3f} s | {raw['wall_median_s']:.3f} s "
                    f"({raw['wall_overhead_pct']:+.1f}%) | {scapy['wall_median_s']:.3f} s "
                    f"({scapy['wall_overhead_pct']:+.1f}%) | <= +10% |")
        rows.append(f"| same runs, CPU (user + sys) | {plain['cpu_median_s']:.3f} s | {raw['cpu_median_s']:.3f} s "
                    f"({raw['cpu_overhead_pct']:+.1f}%) | {scapy['cpu_median_s']:.3f} s "
                    f"({scapy['cpu_overhead_pct']:+.1f}%) | |")
    plain, raw, scapy = live["breakdown"]["plain"], live["breakdown"]["raw"], live["breakdown"]["scapy"]
    note = (f"In process (bytecode compiled, medians, with what every run imports anyway already imported): "
            f"starting the capture takes {raw['capture_start_s'] * 1000:.0f} ms on the raw backend (kdiag.capture's "
            f"modules, libpcap through ctypes, the packet socket and its filter, two threads) vs "
            f"{scapy['capture_start_s'] * 1000:.0f} ms on scapy's (importing scapy, its sockets, its sniffer "
            "thread); "
            f"stopping it with the summary {raw['capture_finish_s'] * 1000:.0f} ms vs "
            f"{scapy['capture_finish_s'] * 1000:.0f} ms; the probe ran {raw['probe_s'] * 1000:.0f} ms vs "
            f"{scapy['probe_s'] * 1000:.0f} ms under capture, {plain['probe_s'] * 1000:.0f} ms without. "
            f"Load average at the end: {', '.join(f'{x:.1f}' for x in live['load_average_at_end'])}.")
    return "\n".join(rows) + "\n\n" + note + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packets", type=int, default=1_000_000)
    parser.add_argument("--flows", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big-gb", type=float, default=0.0, help="also measure peak RSS on a capture this big")
    parser.add_argument("--big-tshark", action="store_true", help="run tshark on the big capture too")
    parser.add_argument("--live", type=int, default=0, metavar="RUNS", help="also measure live-capture overhead")
    parser.add_argument("--no-mixed", action="store_true", help="keep the mixed-capture figures of the last run")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    previous_path = RESULTS / "pcap.json"
    previous = json.loads(previous_path.read_text()) if previous_path.exists() else {}
    tshark_version = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    results = {"title": "kdiag pcap vs tshark, and live capture", "tshark": tshark_version}
    if args.no_mixed:
        results["mixed"] = {**previous["mixed"], "measured_at": previous["mixed"].get("measured_at",
                                                                                      previous["measured_at"])}
    else:
        results["mixed"] = bench_mixed(args.out, args.packets, args.flows, args.repeat)
        results["mixed"]["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        print(json.dumps(results["mixed"], indent=2), flush=True)
    for key, wanted, run in (("big", args.big_gb, lambda: bench_big(args.out, args.big_gb, args.big_tshark)),
                             ("live", args.live, lambda: bench_live(args.live, args.out))):
        if wanted:
            results[key] = run()
        elif previous.get(key):  # kept from the run that measured it, and said so
            results[key] = {**previous[key], "measured_at": previous[key].get("measured_at",
                                                                              previous.get("measured_at"))}
        if key in results and wanted:
            results[key]["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    results["summary_md"] = summary_md(results)
    write_results("pcap", results)
    print(results["summary_md"])


if __name__ == "__main__":
    main()
