"""``kdiag explain`` on a ~100 MB log stays bounded in memory and time (a child process, measured)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from tests.kdiag_cli import REPO

LINES = (
    "[2026-11-21 14:27:00,444] INFO [Producer clientId=app] Cluster ID: MkU3OEVBNTcwNTJENDM2Qg "
    "(org.apache.kafka.clients.Metadata) {n}",
    "2026-11-21T14:27:00.444Z INFO  c.e.app.OrderService - processed order {n} in 3 ms",
    "\tat org.apache.kafka.clients.NetworkClient.poll(NetworkClient.java:594) {n}",
    "%3|1795271214.276|FAIL|rdkafka#producer-1| [thrd:kafka-1.internal:9092/1]: kafka-1.internal:9092/1: Failed to "
    "resolve 'kafka-1.internal:9092': Name or service not known (after 0ms in state CONNECT)",
)

# Peak RSS of a Python child that only imports and runs the command on a one-line input.
MEASURE = """
import resource, subprocess, sys, time
started = time.monotonic()
done = subprocess.run([sys.executable, "-m", "kdiag", "explain", "--json", "--file", sys.argv[1]],
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(done.returncode, usage.ru_maxrss, time.monotonic() - started)
sys.stdout.write(done.stdout.decode()[-2000:])
"""


def measure(path: Path) -> tuple[int, int, float]:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    status, rss_kb, seconds = done.stdout.splitlines()[0].split()
    return int(status), int(rss_kb), float(seconds)


def write_log(path: Path, size: int) -> None:
    rng = random.Random(7)
    written, n = 0, 0
    with path.open("w") as handle:
        while written < size:
            n += 1
            roll = rng.random()
            if roll < 0.0005:
                line = "{" + '"blob":"' + "x" * 200_000 + '"}'  # a minified JSON line: cut at 4096
            elif roll < 0.0008:
                line = "\x00\x01\x02binary\xff" * 10
            elif roll < 0.01:
                line = LINES[3]
            else:
                line = LINES[n % 3].format(n=n)
            handle.write(line + "\n")
            written += len(line) + 1


def test_a_100_mb_log_is_explained_in_bounded_memory_and_time(tmp_path: Path):
    small, big = tmp_path / "small.log", tmp_path / "big.log"
    small.write_text(LINES[3] + "\n")
    write_log(big, 100 * 1024 * 1024)
    assert big.stat().st_size >= 100 * 1024 * 1024
    base_status, base_rss, _ = measure(small)
    status, rss, seconds = measure(big)
    assert (base_status, status) == (1, 1)
    growth_mb = (rss - base_rss) / 1024
    assert growth_mb < 64, f"peak RSS grew by {growth_mb:.0f} MB reading a 100 MB log"
    assert seconds < 90, f"took {seconds:.1f} s"


def test_the_100_mb_answer_is_the_same_as_for_a_small_log(tmp_path: Path):
    """Counts grow with the input; the findings do not (one group per failing endpoint)."""
    log = tmp_path / "mid.log"
    write_log(log, 5 * 1024 * 1024)
    done = subprocess.run([sys.executable, "-m", "kdiag", "explain", "--json", "--file", str(log)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    document = json.loads(done.stdout)
    assert [f["id"] for f in document["findings"]] == ["ADVERTISED_UNRESOLVABLE"]
    assert document["findings"][0]["evidence"]["count"] > 100
    assert len(document["findings"][0]["evidence"]["lines"]) == 1
    assert document["truncated_lines"] > 0 and document["binary_lines"] > 0
