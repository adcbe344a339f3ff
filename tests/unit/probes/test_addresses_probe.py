"""``probes.addresses.connect_every``: every resolved address is tried, the first that works is kept.

On loopback: a server bound to 127.0.0.1 only, reached as a name resolving to ``::1`` and ``127.0.0.1``,
is the IPv6/IPv4 split of ``localhost`` with a broker bound to IPv4 (failure mode #7).
"""

from __future__ import annotations

import socket

import pytest

from probes.addresses import connect_every
from probes.deadline import Deadline
from probes.results import DnsResult


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.fixture
def ipv4_server():
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def test_a_name_with_one_dead_family_keeps_the_working_socket_and_reports_both(ipv4_server):
    if not _ipv6_loopback():
        pytest.fail("this test needs ::1 on loopback (the sandbox has it)")
    resolved = DnsResult("localhost", "ok", ("::1", "127.0.0.1"))
    chosen, sock, attempts = connect_every(resolved, ipv4_server, deadline=Deadline.after(5), connect_timeout=2)
    try:
        assert chosen.status == "ok" and chosen.address == "127.0.0.1"
        assert sock is not None and sock.getpeername()[0] == "127.0.0.1"
        assert [(a.address, a.status) for a in attempts] == [("::1", "refused"), ("127.0.0.1", "ok")]
    finally:
        if sock is not None:
            sock.close()


def test_a_single_address_is_one_connect_with_nothing_to_compare(ipv4_server):
    resolved = DnsResult("kafka", "ok", ("127.0.0.1",))
    chosen, sock, attempts = connect_every(resolved, ipv4_server, deadline=Deadline.after(5), connect_timeout=2)
    assert sock is not None
    sock.close()
    assert chosen.status == "ok" and attempts == ()


def test_when_no_address_connects_the_first_failure_is_the_result():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        resolved = DnsResult("kafka", "ok", ("127.0.0.1", "127.0.0.2"))
        chosen, sock, attempts = connect_every(resolved, port, deadline=Deadline.after(5), connect_timeout=2)
    assert sock is None and chosen.address == "127.0.0.1" and chosen.status == "refused"
    assert [a.status for a in attempts] == ["refused", "refused"]


def test_an_expired_deadline_connects_to_nothing():
    resolved = DnsResult("kafka", "ok", ("127.0.0.1",))
    chosen, sock, attempts = connect_every(resolved, 9, deadline=Deadline.after(0), connect_timeout=2)
    assert sock is None and chosen.status == "timeout" and attempts == ()
