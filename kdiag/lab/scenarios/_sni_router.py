"""An ingress controller's TLS passthrough: ``python -m kdiag.lab.scenarios._sni_router LISTEN NAME=TARGET ...``

Each connection on ``LISTEN`` (``host:port``) is routed by the server name (SNI) of its TLS ClientHello
to ``TARGET`` (``host:port``), bytes untouched, as ingress-nginx with ``ssl-passthrough`` and
OpenShift passthrough routes do for Strimzi's ingress and route listeners. A ClientHello without SNI
(a client given an IP address) or with a name no route has goes to the default backend, as with
ingress-nginx: TLS terminated with a self-signed "Kubernetes Ingress Controller Fake Certificate"
(made with openssl at start-up) and ``HTTP/1.1 404 Not Found`` to whatever comes. Runs until killed.
Lab use only.
"""

from __future__ import annotations

import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from kdiag.lab.relay import parse_hostport, splice

FAKE_SUBJECT = "/O=Acme Co/CN=Kubernetes Ingress Controller Fake Certificate"
MAX_HELLO = 16384 + 5


def server_name(hello: bytes) -> str | None:
    """The SNI host name of a TLS ClientHello record, or None (no SNI, or not a ClientHello)."""
    try:
        if len(hello) < 5 or hello[0] != 0x16:
            return None
        body = hello[5:5 + struct.unpack(">H", hello[3:5])[0]]
        if body[0] != 0x01:
            return None
        at = 4 + 2 + 32  # handshake header, client_version, random
        at += 1 + body[at]  # session id
        at += 2 + struct.unpack(">H", body[at:at + 2])[0]  # cipher suites
        at += 1 + body[at]  # compression methods
        end = at + 2 + struct.unpack(">H", body[at:at + 2])[0]
        at += 2
        while at + 4 <= end:
            kind, size = struct.unpack(">HH", body[at:at + 4])
            data = body[at + 4:at + 4 + size]
            if kind == 0:  # server_name: list length, type 0 (host_name), name length, name
                return data[5:5 + struct.unpack(">H", data[3:5])[0]].decode("ascii")
            at += 4 + size
    except (IndexError, struct.error, UnicodeDecodeError):
        return None
    return None


def _read_hello(client: socket.socket) -> bytes:
    data = b""
    client.settimeout(5)
    while len(data) < 5 or len(data) < 5 + struct.unpack(">H", data[3:5])[0]:
        chunk = client.recv(MAX_HELLO - len(data))
        if not chunk or len(data) >= MAX_HELLO:
            break
        data += chunk
    client.settimeout(None)
    return data


def default_backend(directory: Path) -> tuple[str, int]:
    """Start the fake-certificate HTTPS backend on loopback; its address."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "fake.key", "-out",
                    "fake.pem", "-days", "2", "-subj", FAKE_SUBJECT, "-addext", "subjectAltName=DNS:ingress.local"],
                   cwd=directory, check=True, capture_output=True, timeout=60)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / "fake.pem", directory / "fake.key")
    server = socket.create_server(("127.0.0.1", 0))

    def answer(conn: socket.socket) -> None:
        try:
            with context.wrap_socket(conn, server_side=True) as tls:
                tls.settimeout(5)
                tls.recv(65536)
                tls.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 21\r\nConnection: close\r\n\r\n"
                            b"default backend - 404")
        except (OSError, ssl.SSLError):
            pass

    def serve() -> None:
        while True:
            conn, _peer = server.accept()
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[:2]


def route(client: socket.socket, routes: Mapping[str, tuple[str, int]], fallback: tuple[str, int]) -> None:
    hello = _read_hello(client)
    splice(client, routes.get((server_name(hello) or "").lower(), fallback), first=hello)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or any("=" not in arg for arg in args[1:]):
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    listen = parse_hostport(args[0])
    routes = {name.lower(): parse_hostport(target) for name, _, target in (arg.partition("=") for arg in args[1:])}
    with tempfile.TemporaryDirectory(prefix="kdiag-ingress-") as directory:
        fallback = default_backend(Path(directory))
        server = socket.create_server(listen)
        while True:
            client, _peer = server.accept()
            threading.Thread(target=route, args=(client, routes, fallback), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
