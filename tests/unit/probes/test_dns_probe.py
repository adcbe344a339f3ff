"""``probes.dns.resolve`` without leaving the machine: /etc/hosts, IP literals, and a name that cannot exist.

Only the system resolver is used (``query_dns=False``): the direct DNS query would go to the
configured nameserver, which is network. A name under ``.invalid`` (RFC 6761) would also be sent to
that nameserver by glibc, so that test answers ``getaddrinfo`` the way glibc does for NXDOMAIN.
"""

from __future__ import annotations

import socket
import threading

import pytest

from probes import dns


def test_localhost_resolves_through_the_system_resolver():
    result = dns.resolve("localhost", timeout=2.0, query_dns=False)

    assert result.status == "ok"
    assert result.source == "system"
    assert "127.0.0.1" in result.addresses or "::1" in result.addresses
    assert result.dns_status is None


@pytest.mark.parametrize(("literal", "address"), [("127.0.0.1", "127.0.0.1"), ("::1", "::1"),
                                                  ("2001:DB8::0:1", "2001:db8::1")])
def test_ip_literal_is_its_own_answer_without_a_lookup(literal, address, monkeypatch):
    def no_lookup(*args, **kwargs):
        raise AssertionError("an IP literal must not be looked up")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    result = dns.resolve(literal, timeout=2.0)

    assert result.status == "ok"
    assert result.source == "literal"
    assert result.addresses == (address,)


def test_name_under_invalid_is_nxdomain_fast(monkeypatch):
    real_getaddrinfo = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        if host.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    result = dns.resolve("kafka-1.kdiag-test.invalid", timeout=2.0, query_dns=False)

    assert result.status == "nxdomain"
    assert result.addresses == ()
    assert result.error.startswith("no such name")
    assert result.duration_ms < 500


def test_system_resolver_that_never_answers_is_a_timeout_within_the_budget(monkeypatch):
    released = threading.Event()

    def hung_resolver(*args, **kwargs):
        released.wait(5)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", hung_resolver)
    try:
        result = dns.resolve("kafka.example", timeout=0.3, query_dns=False)
    finally:
        released.set()

    assert result.status == "timeout"
    assert result.duration_ms < 800
