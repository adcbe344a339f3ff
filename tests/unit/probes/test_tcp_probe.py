"""``probes.tcp.connect`` on loopback: a listening port connects, a port nothing listens on is refused."""

from __future__ import annotations

import socket

from probes import tcp


def test_connect_to_a_listening_port_is_ok_and_hands_back_the_socket():
    with socket.create_server(("127.0.0.1", 0)) as server:
        result, sock = tcp.connect("127.0.0.1", server.getsockname()[1], timeout=2.0)
        try:
            assert result.status == "ok"
            assert result.error is None
            assert sock is not None and sock.getpeername() == server.getsockname()
        finally:
            if sock is not None:
                sock.close()


def test_connect_to_a_port_nothing_listens_on_is_refused_quickly():
    # Bound but never listening: the port stays ours (no other test can take it) and answers RST.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        result, sock = tcp.connect("127.0.0.1", port, timeout=2.0)

    assert sock is None
    assert result.status == "refused"
    assert result.error == "connection refused"
    assert (result.address, result.port) == ("127.0.0.1", port)
    assert result.duration_ms < 1000
