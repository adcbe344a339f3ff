"""Ten advertised brokers whose port is filtered (iptables DROP in a lab namespace).

The client namespace holds a scripted broker whose metadata lists ten brokers at 192.0.2.1:9101-9110;
a second namespace owns 192.0.2.1 and DROPs those ports. kdiag's total wall time must stay within
one connect timeout (plus overhead), not ten: the brokers are probed in parallel.
"""

from __future__ import annotations

import json
import sys
import time

from bench.common import REPO, kdiag_argv
from kdiag.lab.netns import Firewall, Host, Link, Topology, lab_up

PORTS = range(9101, 9111)


def ten_filtered_brokers(*, connect_timeout: float, runs: int = 3) -> dict:
    topology = Topology(
        name="benchdrop",
        hosts=(Host("client"), Host("filter")),
        links=(Link("client", "192.0.2.10", "filter", "192.0.2.1"),),
        firewalls=tuple(Firewall("filter", port, "drop") for port in PORTS),
    )
    with lab_up(topology) as live:
        live.run("client", ["ip", "link", "set", "lo", "up"], check=True)
        server = live.popen("client", [sys.executable, "-m", "bench.fake_metadata", "--advertise", "192.0.2.1",
                                       "--ports", f"{PORTS[0]}-{PORTS[-1]}"],
                            cwd=REPO, stdout=__import__("subprocess").PIPE, text=True)
        port = int(server.stdout.readline().split()[1])
        samples = []
        report = None
        for _ in range(runs):
            started = time.perf_counter()
            done = live.run("client", kdiag_argv("bootstrap", f"127.0.0.1:{port}", "--no-roundtrip", "--json",
                                                 "--connect-timeout", str(connect_timeout)), timeout=120)
            samples.append(time.perf_counter() - started)
            report = json.loads(done.stdout)
        statuses = sorted({b["tcp"]["status"] for b in report["cluster"]["brokers"]})
    return {
        "brokers": len(PORTS),
        "connect_timeout_s": connect_timeout,
        "kdiag_wall_s": [round(s, 3) for s in samples],
        "kdiag_median_s": round(sorted(samples)[len(samples) // 2], 3),
        "broker_tcp_statuses": statuses,
        "findings": sorted({f["id"] for f in report["findings"]}),
        "target_s": connect_timeout + 1.0,
    }


if __name__ == "__main__":
    print(json.dumps(ten_filtered_brokers(connect_timeout=3.0), indent=2))
