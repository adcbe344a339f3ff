"""A userland TCP proxy, like Docker's ``docker-proxy``: ``python -m kdiag.lab.scenarios._tcp_proxy [::1]:9092=198.51.100.2:9092 ...``

Each argument is ``LISTEN=TARGET`` (``host:port``, IPv6 in brackets). Every accepted connection is
piped to a new connection to the target until either side closes. Runs until killed. Lab use only.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Sequence

from kdiag.lab.relay import parse_hostport, splice

def _serve(server: socket.socket, target: tuple[str, int]) -> None:
    while True:
        client, _peer = server.accept()
        splice(client, target)


def main(argv: Sequence[str] | None = None) -> int:
    pairs = list(sys.argv[1:] if argv is None else argv)
    if not pairs:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    threads = []
    for pair in pairs:
        listen_text, _, target_text = pair.partition("=")
        listen, target = parse_hostport(listen_text), parse_hostport(target_text)
        family = socket.AF_INET6 if ":" in listen[0] else socket.AF_INET
        server = socket.create_server(listen, family=family, reuse_port=False)
        threads.append(threading.Thread(target=_serve, args=(server, target), daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
