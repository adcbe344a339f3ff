"""The sidecar's HTTP connections are bounded: a thousand clients that each send half a request hold
at most ``max_connections`` threads, a request head must arrive within ``read_timeout``, and the
kubelet's /livez is answered throughout."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from contextlib import ExitStack

from kdiag.watch.connections import MAX_CONNECTIONS, ConnectionLimiter
from kdiag.watch.http import WatchServer
from tests.clock import ManualClock

HALF_REQUEST = b"GET /livez HTTP/1.1\r\nHost: kdiag\r\nX-Slow: "


def livez(server: WatchServer) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/livez", timeout=5) as answer:
        return answer.status


def until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_thousand_half_requests_hold_a_bounded_number_of_threads_and_livez_answers(serve) -> None:
    server = serve()
    baseline = threading.active_count()
    most = 0
    with ExitStack() as stack:
        for number in range(1000):
            client = stack.enter_context(socket.create_connection(server.server_address[:2], timeout=10))
            client.sendall(HALF_REQUEST)
            if number % 50 == 0:
                most = max(most, threading.active_count() - baseline)
        most = max(most, threading.active_count() - baseline)
        assert server.limiter.open <= MAX_CONNECTIONS
        assert livez(server) == 200  # a whole request takes the oldest half request's slot
        assert server.limiter.evicted >= 1000 - MAX_CONNECTIONS
    assert most <= MAX_CONNECTIONS + 2, most


def test_a_request_head_that_does_not_arrive_within_the_read_timeout_is_closed(serve) -> None:
    server = serve(read_timeout=0.3)
    baseline = threading.active_count()
    with socket.create_connection(server.server_address[:2], timeout=10) as client:
        client.sendall(HALF_REQUEST)
        assert until(lambda: server.limiter.open == 1)
        started = time.monotonic()
        assert client.recv(1024) == b""  # the server hung up on it
        assert time.monotonic() - started < 5
    assert until(lambda: threading.active_count() <= baseline and server.limiter.open == 0)
    assert livez(server) == 200


def test_a_kept_alive_connection_is_served_again_and_reaped_when_idle(serve) -> None:
    server = serve(read_timeout=0.5)
    with socket.create_connection(server.server_address[:2], timeout=10) as client:
        for _ in range(3):
            client.sendall(b"GET /livez HTTP/1.1\r\nHost: kdiag\r\n\r\n")
            answer = b""
            while not answer.endswith(b"ok\n"):
                answer += client.recv(1024)
            assert answer.startswith(b"HTTP/1.1 200")
        assert client.recv(1024) == b""  # idle past the read timeout: closed


def pair() -> tuple[socket.socket, socket.socket]:
    server_side, client_side = socket.socketpair()
    client_side.settimeout(5)
    return server_side, client_side


def test_the_limiter_makes_room_by_evicting_the_oldest_reader_never_an_answer() -> None:
    clock = ManualClock()
    limiter = ConnectionLimiter(2, read_timeout=10, answer_timeout=40, clock=clock)
    (a, a_peer), (b, b_peer), (c, c_peer), (d, _d_peer) = pair(), pair(), pair(), pair()
    first = limiter.admit(a)
    clock.advance(1)
    second = limiter.admit(b)
    assert first is not None and second is not None
    limiter.answering(second)
    evictor = threading.Thread(target=lambda: limiter.admit(c))
    evictor.start()
    assert a_peer.recv(1) == b""  # the oldest reader was shut down to make room
    limiter.release(a)  # its thread ends and gives the slot back
    evictor.join(5)
    assert limiter.connection(c) is not None and limiter.evicted == 1
    limiter.answering(limiter.connection(c))
    assert limiter.admit(d) is None  # every slot is answering: the newcomer gets none
    for sock in (a, b, c, d, a_peer, b_peer, c_peer):
        sock.close()


def test_the_limiter_reaps_a_slow_request_and_a_slow_answer() -> None:
    clock = ManualClock()
    limiter = ConnectionLimiter(4, read_timeout=10, answer_timeout=40, clock=clock)
    (reader, reader_peer), (answerer, answerer_peer) = pair(), pair()
    limiter.admit(reader)
    limiter.answering(limiter.admit(answerer))
    clock.advance(11)
    limiter.reap()
    assert reader_peer.recv(1) == b""
    clock.advance(30)
    limiter.reap()
    assert answerer_peer.recv(1) == b""
    for sock in (reader, reader_peer, answerer, answerer_peer):
        sock.close()
