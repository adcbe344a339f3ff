"""Run a command inside a sandbox network namespace: loopback only, and a resolver of its own.

    python -m kdiag.lab.sandbox -- python -m pytest

The test suite runs this way (``scripts/test``) so that nothing it does can reach beyond the
machine: the namespace has no route anywhere but 127.0.0.0/8, and its resolv.conf points at a
private dnsmasq that answers NXDOMAIN to every name, so looking up an EC2 internal name in a test
never sends a DNS query to the machine's real resolver. Lab tests create further namespaces from
inside it. ``KDIAG_SANDBOX`` tells the command which namespace it is in.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

from kdiag.lab.netns import Host, LabError, Topology, lab_up

SANDBOX_ENV = "KDIAG_SANDBOX"


def in_sandbox() -> bool:
    return bool(os.environ.get(SANDBOX_ENV))


def run_in_sandbox(argv: Sequence[str]) -> int:
    topology = Topology(name="sbx", hosts=(Host("tests"),))
    with lab_up(topology) as live:
        env = {**os.environ, SANDBOX_ENV: live.ns("tests")}
        done = subprocess.run(live.exec_argv("tests", ["ip", "link", "set", "lo", "up"]), check=False)
        if done.returncode:
            return done.returncode
        try:
            return subprocess.run(live.exec_argv("tests", list(argv)), env=env, check=False).returncode
        except KeyboardInterrupt:
            return 130


def main(args: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if args is None else args)
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print("usage: python -m kdiag.lab.sandbox -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    try:
        return run_in_sandbox(args)
    except LabError as exc:
        print(f"kdiag sandbox: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
