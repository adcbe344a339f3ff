"""Bytes piped both ways between two TCP connections: what the lab's helper programs (a userland proxy,
a round-robin balancer, an SNI router, an HTTP server in front of a port) share. Lab use only."""

from __future__ import annotations

import socket
import threading

BUFFER = 65536


def parse_hostport(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"not host:port: {text!r}")
    return host.strip("[]"), int(port)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(BUFFER):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                sock.shutdown(how)
            except OSError:
                pass


def splice(client: socket.socket, target: tuple[str, int], first: bytes = b"") -> None:
    """Pipes ``client`` to a new connection to ``target`` both ways, in two threads, after sending
    ``first`` (bytes already read from the client); if the target cannot be reached the client sees its
    connection closed, as with docker-proxy."""
    try:
        upstream = socket.create_connection(target, timeout=5)
    except OSError:
        client.close()
        return
    upstream.settimeout(None)
    if first:
        upstream.sendall(first)
    for source, sink in ((client, upstream), (upstream, client)):
        threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()
