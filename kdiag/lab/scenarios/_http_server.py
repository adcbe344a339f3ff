"""An HTTP API answering as Jetty does: ``python -m kdiag.lab.scenarios._http_server HOST:PORT``

A request that starts like HTTP (``GET / HTTP/1.1``) gets ``200`` and ``{}``, as Schema Registry's root
does. Anything else gets Jetty's answer to a request line with a control character in it, at once::

    HTTP/1.1 400 Illegal character CNTL=0x0

Python's ``http.server`` is no stand-in for this: it waits for the end of the request line, which a
Kafka request never sends, so a Kafka client would see a silent port, not an HTTP answer. Runs until
killed. Lab use only.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Sequence

from kdiag.lab.relay import parse_hostport

READ_TIMEOUT = 5.0
METHODS = (b"GET ", b"HEAD ", b"POST ", b"PUT ", b"DELETE ", b"OPTIONS ")


def response(request: bytes) -> bytes:
    """What Jetty sends back for the first bytes of ``request``."""
    if request.startswith(METHODS):
        status, content_type, body = "200 OK", "application/vnd.schemaregistry.v1+json", b"{}"
    else:
        reason = "Illegal character"
        if request:
            byte = request[0]
            reason += f" CNTL=0x{byte:x}" if byte < 0x20 or byte == 0x7F else f" OTEXT=0x{byte:x}"
        status, content_type = f"400 {reason}", "text/html;charset=iso-8859-1"
        body = f"<h1>Bad Message 400</h1><pre>reason: {reason}</pre>".encode()
    head = (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n")
    return head.encode() + body


def _answer(client: socket.socket) -> None:
    with client:
        client.settimeout(READ_TIMEOUT)
        try:
            request = client.recv(8192)
            if request:
                client.sendall(response(request))
        except OSError:
            pass


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    listen = parse_hostport(args[0])
    family = socket.AF_INET6 if ":" in listen[0] else socket.AF_INET
    with socket.create_server(listen, family=family) as server:
        while True:
            client, _peer = server.accept()
            threading.Thread(target=_answer, args=(client,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
