"""Stop the Kafka broker of this network namespace, then wait until the cluster calls a partition leaderless.

``python -m kdiag.lab.scenarios._stop_broker BOOTSTRAP TOPIC PARTITION``: an after-brokers setup step run
in the lab host of the broker to stop (one broker per lab host). It finds the ``kafka.Kafka`` process
whose network namespace is its own, SIGTERMs it (SIGKILL after 10 s), then polls the metadata through
``BOOTSTRAP`` (another broker) until ``TOPIC-PARTITION`` has no leader: the controller has fenced the
stopped broker. Lab use only.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from confluent_kafka.admin import AdminClient

TIMEOUT = 45.0


def brokers_here() -> list[int]:
    """Pids of the Kafka brokers in this process's network namespace."""
    mine = os.stat("/proc/self/ns/net").st_ino
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.stat(entry / "ns" / "net").st_ino != mine:
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"kafka.Kafka" in argv:
            found.append(int(entry.name))
    return found


def stop(pids: list[int]) -> None:
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in pids):
            time.sleep(0.1)
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return


def leader(admin: AdminClient, topic: str, partition: int) -> int | None:
    metadata = admin.list_topics(topic, timeout=5)
    found = metadata.topics.get(topic)
    if found is None or partition not in found.partitions:
        return None
    return found.partitions[partition].leader


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    bootstrap, topic, partition = args[0], args[1], int(args[2])
    pids = brokers_here()
    if len(pids) != 1:
        print(f"error: expected one Kafka broker in this namespace, found {len(pids)}", file=sys.stderr)
        return 1
    stop(pids)
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    deadline = time.monotonic() + TIMEOUT
    while (now := leader(admin, topic, partition)) != -1:
        if time.monotonic() > deadline:
            print(f"error: {topic}-{partition} still has leader {now} after {TIMEOUT:g} s", file=sys.stderr)
            return 1
        time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
