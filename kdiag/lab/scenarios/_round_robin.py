"""A round-robin TCP load balancer: ``python -m kdiag.lab.scenarios._round_robin LISTEN=TARGET[,TARGET...]``

Each accepted connection on ``LISTEN`` (``host:port``) is piped to the next ``TARGET`` in turn, as one
Kubernetes ``LoadBalancer`` Service, a cloud NLB listener or HAProxy in TCP mode does in front of every
broker. Runs until killed. Lab use only.
"""

from __future__ import annotations

import itertools
import socket
import sys
from collections.abc import Sequence

from kdiag.lab.relay import parse_hostport, splice


def serve(server: socket.socket, targets: Sequence[tuple[str, int]]) -> None:
    for target in itertools.cycle(targets):
        client, _peer = server.accept()
        splice(client, target)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or "=" not in args[0]:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    listen_text, _, targets_text = args[0].partition("=")
    listen = parse_hostport(listen_text)
    targets = [parse_hostport(target) for target in targets_text.split(",")]
    server = socket.create_server(listen, family=socket.AF_INET6 if ":" in listen[0] else socket.AF_INET)
    serve(server, targets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
