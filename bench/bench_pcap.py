"""Benchmark of the capture path: ``kdiag pcap`` against tshark, peak memory, live-capture overhead.

    python bench/bench_pcap.py                    # 1M-packet mixed capture: kdiag vs tshark
    python bench/bench_pcap.py --big-gb 2         # also peak RSS of kdiag on a ~2 GB capture
    python bench/bench_pcap.py --live 5           # also live capture's cost on 5+5 healthy bootstrap runs

Captures are generated into bench/out (git-ignored). Both tools read the same file in the same run;
``/usr/bin/time -v`` gives each one's wall time and peak RSS. Results go to bench/results/pcap.json.
Nothing is tuned to pass: the numbers are what this machine measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kdiag.capture.pcapio import PcapWriter  # noqa: E402
from kdiag.capture.synthetic import (  # noqa: E402
    Broker,
    TcpConversation,
    api_versions_response,
    metadata_request,
    metadata_response,
    opaque_request,
    opaque_response,
)
from probes.codec import ApiVersionsRequest, encode_request  # noqa: E402

KAFKA_PORT = 9092
BROKERS = [Broker(i, f"10.0.0.{i}", KAFKA_PORT, f"rack-{i}") for i in (1, 2, 3)]
TOPICS = [(f"topic-{i}", 0, 6) for i in range(10)]

# The kdiag CLI as a user runs it; registers 'pcap' itself if kdiag.cli does not yet.
KDIAG_PCAP = ("import sys, typer.main\nfrom kdiag import cli\nfrom kdiag.capture.command import register\n"
              "if 'pcap' not in typer.main.get_command(cli.app).commands:\n    register(cli.app)\n"
              "sys.exit(cli.main(sys.argv[1:]))\n")


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


def timed(argv: list[str]) -> dict:
    """Runs ``argv`` under /usr/bin/time -v: wall seconds, peak RSS, output size."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - start
    rss = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return {"seconds": round(seconds, 3), "max_rss_mb": round(int(rss.group(1)) / 1024, 1) if rss else None,
            "exit": done.returncode, "stdout": done.stdout}


def kdiag_pcap(path: str) -> dict:
    result = timed([sys.executable, "-c", KDIAG_PCAP, "pcap", path, "--json"])
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
    capture = generate(out / "pcap_mixed.pcap", packets=packets, flows=flows)
    kdiag_runs = [kdiag_pcap(capture["path"]) for _ in range(repeat)]
    tshark_runs = [tshark(capture["path"]) for _ in range(repeat)]
    kdiag_best = rates(min(kdiag_runs, key=lambda r: r["seconds"]), capture)
    tshark_best = rates(min(tshark_runs, key=lambda r: r["seconds"]), capture)
    return {"capture": capture, "kdiag": kdiag_best, "tshark": tshark_best,
            "kdiag_seconds_all": [r["seconds"] for r in kdiag_runs],
            "tshark_seconds_all": [r["seconds"] for r in tshark_runs],
            "throughput_ratio_vs_tshark": round(tshark_best["seconds"] / kdiag_best["seconds"], 2)}


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

LIVE_ONE = """\
import json, sys, time
start = time.perf_counter()
from kdiag import orchestrate
from kdiag.target import parse_bootstrap
options = orchestrate.BootstrapOptions(targets=parse_bootstrap(sys.argv[2]), timeout=30.0)
if sys.argv[1] == "capture":
    from kdiag.capture.command import finish_live_capture, start_live_capture
    capture = start_live_capture(options.targets)
    started = time.perf_counter()
    report = orchestrate.run_bootstrap(options)
    summary = finish_live_capture(capture, report)
    extra = {"capture_start_s": started - start, "metadata_captured": len(summary.metadata),
             "kafka_flows": sum(f.protocol == "kafka" for f in summary.flows), "packets": summary.packets}
else:
    report = orchestrate.run_bootstrap(options)
    extra = {}
print(json.dumps({"seconds": time.perf_counter() - start, "problems": len(report.problems), **extra}))
"""


def bench_live(runs: int, workdir: Path) -> dict:
    """Healthy ``kdiag bootstrap`` runs (round trip included) against a real broker, alternately without
    and with live capture on every interface, each in a fresh process (so scapy's import counts)."""
    from kdiag.lab.kafka import KAFKA_VERSION, KafkaBroker, loopback_specs

    samples: dict[str, list[dict]] = {"plain": [], "capture": []}
    with KafkaBroker.start(loopback_specs(1)[0], version=KAFKA_VERSION, workdir=workdir) as broker:
        bootstrap = broker.bootstrap_servers
        for mode in ("plain", "capture"):  # warm up: topic creation, JVM JIT, page cache
            subprocess.run([sys.executable, "-c", LIVE_ONE, mode, bootstrap], capture_output=True, check=True)
        for _ in range(runs):
            for mode in ("plain", "capture"):
                wall = time.perf_counter()
                done = subprocess.run([sys.executable, "-c", LIVE_ONE, mode, bootstrap], capture_output=True,
                                      text=True, check=True)
                sample = json.loads(done.stdout)
                sample["process_seconds"] = time.perf_counter() - wall
                samples[mode].append(sample)
    plain = statistics.median(s["process_seconds"] for s in samples["plain"])
    captured = statistics.median(s["process_seconds"] for s in samples["capture"])
    return {
        "kafka_version": KAFKA_VERSION, "runs_each": runs,
        "plain_median_s": round(plain, 3), "capture_median_s": round(captured, 3),
        "overhead_pct": round((captured - plain) / plain * 100, 1),
        "plain_inprocess_median_s": round(statistics.median(s["seconds"] for s in samples["plain"]), 3),
        "capture_inprocess_median_s": round(statistics.median(s["seconds"] for s in samples["capture"]), 3),
        "capture_start_median_s": round(statistics.median(s["capture_start_s"] for s in samples["capture"]), 3),
        "problems": sorted({s["problems"] for s in samples["plain"] + samples["capture"]}),
        "metadata_captured": sorted({s["metadata_captured"] for s in samples["capture"]}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packets", type=int, default=1_000_000)
    parser.add_argument("--flows", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--big-gb", type=float, default=0.0, help="also measure peak RSS on a capture this big")
    parser.add_argument("--big-tshark", action="store_true", help="run tshark on the big capture too")
    parser.add_argument("--live", type=int, default=0, metavar="RUNS", help="also measure live-capture overhead")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    parser.add_argument("--results", type=Path, default=REPO / "bench" / "results" / "pcap.json")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    previous = json.loads(args.results.read_text()) if args.results.exists() else {}
    tshark_version = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    results = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                    "python": platform.python_version(), "tshark": tshark_version},
        "mixed": bench_mixed(args.out, args.packets, args.flows, args.repeat),
    }
    print(json.dumps(results["mixed"], indent=2), flush=True)
    results["big"] = bench_big(args.out, args.big_gb, args.big_tshark) if args.big_gb else previous.get("big")
    results["live"] = bench_live(args.live, args.out / "live-broker") if args.live else previous.get("live")
    for key in ("big", "live"):
        if results[key] is not None and not (args.big_gb if key == "big" else args.live):
            results[key]["from_earlier_run"] = True
    args.results.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({k: results[k] for k in ("big", "live")}, indent=2))


if __name__ == "__main__":
    main()
