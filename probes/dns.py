"""Stage ``dns``: resolve a host the way a client will (the system resolver) and the way DNS says.

The system resolver (``getaddrinfo``) honours /etc/hosts and nsswitch, so its answer is what a Kafka
client will get; a direct query with dnspython tells NXDOMAIN from SERVFAIL from "no answer" from a
resolver that never replied, names the nameserver and the CNAME chain, and shows when the two
disagree ("resolves only through /etc/hosts").
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from concurrent.futures import Future

from probes.deadline import elapsed_ms
from probes.results import DnsResult

_GAI_STATUS = {
    socket.EAI_NONAME: ("nxdomain", "no such name"),
    socket.EAI_AGAIN: ("servfail", "temporary failure in name resolution (resolver unreachable or SERVFAIL)"),
    socket.EAI_FAIL: ("servfail", "non-recoverable resolver failure"),
}
if hasattr(socket, "EAI_NODATA"):
    _GAI_STATUS[socket.EAI_NODATA] = ("no_answer", "the name exists but has no address")
if hasattr(socket, "EAI_ADDRFAMILY"):
    _GAI_STATUS[socket.EAI_ADDRFAMILY] = ("no_answer", "the name has no address of a usable family")


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _in_thread(fn, *args) -> Future:
    """getaddrinfo cannot be cancelled: run it on a daemon thread and stop waiting at the deadline."""
    future: Future = Future()

    def work() -> None:
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
            future.set_exception(exc)

    threading.Thread(target=work, name=f"kdiag-{fn.__name__}", daemon=True).start()
    return future


def _system_lookup(host: str) -> tuple[str, tuple[str, ...], str | None]:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        status, meaning = _GAI_STATUS.get(exc.errno, ("error", exc.strerror or str(exc)))
        return status, (), f"{meaning} ({exc.strerror})" if exc.strerror and exc.strerror != meaning else meaning
    except (UnicodeError, OSError) as exc:
        return "error", (), str(exc)
    addresses: list[str] = []
    for family, _type, _proto, _name, sockaddr in infos:
        if family in (socket.AF_INET, socket.AF_INET6) and sockaddr[0] not in addresses:
            addresses.append(sockaddr[0])
    return ("ok", tuple(addresses), None) if addresses else ("no_answer", (), "no IPv4 or IPv6 address")


def _dns_lookup(host: str, timeout: float) -> dict:
    """A direct DNS query (A and AAAA) with dnspython; never raises."""
    import dns.exception
    import dns.resolver

    try:
        resolver = dns.resolver.Resolver()
    except dns.resolver.NoResolverConfiguration:
        return {"dns_status": "error", "error": "no nameserver configured (resolv.conf)"}
    resolver.lifetime = max(timeout, 0.05)
    resolver.timeout = max(min(timeout, 2.0), 0.05)
    addresses: list[str] = []
    chain: list[str] = []
    ttl = nameserver = None
    statuses: list[str] = []
    error = None
    started = time.monotonic()
    for rdtype in ("A", "AAAA"):
        left = timeout - (time.monotonic() - started)
        if left <= 0:
            statuses.append("timeout")
            break
        resolver.lifetime = max(left, 0.05)
        try:
            answer = resolver.resolve(host, rdtype, search=True)
        except dns.resolver.NXDOMAIN:
            statuses.append("nxdomain")
            break  # the name does not exist for AAAA either
        except dns.resolver.NoAnswer:
            statuses.append("no_answer")
            continue
        except dns.resolver.NoNameservers as exc:
            statuses.append("servfail")
            error = _first_line(exc)
            continue
        except dns.resolver.LifetimeTimeout:
            statuses.append("timeout")
            error = "no nameserver answered in time"
            break
        except dns.exception.DNSException as exc:
            statuses.append("error")
            error = _first_line(exc)
            continue
        statuses.append("ok")
        nameserver = nameserver or str(answer.nameserver)
        ttl = answer.rrset.ttl if ttl is None else min(ttl, answer.rrset.ttl)
        for name in _cname_chain(answer):
            if name not in chain:
                chain.append(name)
        addresses.extend(rr.address for rr in answer.rrset if rr.address not in addresses)
    for status in ("ok", "nxdomain", "timeout", "servfail", "no_answer", "error"):
        if status in statuses:
            return {"dns_status": status, "dns_addresses": tuple(addresses), "cname_chain": tuple(chain),
                    "ttl": ttl, "nameserver": nameserver, "error": error}
    return {"dns_status": "error", "error": error}


def _cname_chain(answer) -> list[str]:
    chain = []
    for rrset in answer.response.answer:
        if rrset.rdtype == 5:  # CNAME
            chain.extend(f"{rrset.name.to_text(omit_final_dot=True)} -> {rr.target.to_text(omit_final_dot=True)}"
                         for rr in rrset)
    return chain


def _first_line(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:200]


def resolve(host: str, *, timeout: float, query_dns: bool = True) -> DnsResult:
    """Resolve ``host`` within ``timeout`` seconds; never raises, never waits longer."""
    started = time.monotonic()
    if is_ip_literal(host):
        return DnsResult(host, "ok", (str(ipaddress.ip_address(host)),), source="literal")
    system = _in_thread(_system_lookup, host)
    direct = None
    if query_dns:
        direct = _in_thread(_dns_lookup, host, max(timeout - 0.01, 0.05))
    try:
        status, addresses, error = system.result(timeout=max(timeout, 0.01))
    except TimeoutError:
        status, addresses, error = "timeout", (), f"the system resolver gave no answer within {timeout:g}s"
    dns_facts: dict = {}
    if direct is not None:
        try:
            dns_facts = direct.result(timeout=max(timeout - (time.monotonic() - started), 0.01))
        except TimeoutError:
            dns_facts = {"dns_status": "timeout"}
    dns_status = dns_facts.get("dns_status")
    note = None
    if status == "ok" and dns_status not in (None, "ok"):
        note = f"resolves through the system resolver (e.g. /etc/hosts) but not in DNS ({dns_status})"
    elif status != "ok" and dns_status == "ok":
        note = "DNS has an answer but the system resolver does not (nsswitch or search-domain difference)"
    return DnsResult(
        host=host,
        status=status,
        addresses=addresses,
        source="system",
        dns_status=dns_status,
        dns_addresses=tuple(dns_facts.get("dns_addresses", ())),
        cname_chain=tuple(dns_facts.get("cname_chain", ())),
        ttl=dns_facts.get("ttl"),
        nameserver=dns_facts.get("nameserver"),
        error=error or (dns_facts.get("error") if status != "ok" else None),
        note=note,
        duration_ms=elapsed_ms(started),
    )


def resolve_all(hosts: list[str], *, timeout: float) -> list[DnsResult]:
    """``resolve`` for each of ``hosts`` at once (at most 16 lookups in flight), in their order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(len(hosts), 16))) as pool:
        return list(pool.map(lambda h: resolve(h, timeout=timeout), hosts))
