"""Rules for the bootstrap addresses: does each one resolve, and does its port accept a connection?

One finding per bootstrap address that fails. It is an error when no bootstrap address works (the
client cannot start) and a warning when another one carries the client.
"""

from __future__ import annotations

from kdiag.diagnose.facts import (DNS_FAILURES, bootstrap_addresses, bootstrap_attempts, bootstrap_dns,
                                  bootstrap_resolved, bootstrap_usable)
from kdiag.diagnose.fixes import open_port_fix, other_listener_hint
from kdiag.diagnose.hosts import classify_host, is_loopback
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.wording import java_address, join_words
from kdiag.finding import Finding
from kdiag.report import Endpoint, Report
from probes.hostport import hostport
from probes.results import DnsResult, TcpResult

# What each resolver status means, in words a user can act on.
DNS_MEANING = {
    "nxdomain": "no such name: the DNS answered that {host} does not exist (NXDOMAIN)",
    "no_answer": "the name exists but has no address record (no A or AAAA answer)",
    "servfail": ("the resolver could not get an answer (SERVFAIL): the name may well exist, but the resolver "
                 "failed to reach or validate the servers responsible for it"),
    "timeout": ("the resolver did not answer in time: the resolver itself is unreachable or overloaded, which "
                "says nothing yet about the name"),
    "error": "resolving it failed",
}

_DNS_TITLE = {
    "nxdomain": "Bootstrap host {host} does not exist in DNS",
    "no_answer": "Bootstrap host {host} has no address record",
    "servfail": "The resolver failed to answer for bootstrap host {host} (SERVFAIL)",
    "timeout": "The resolver did not answer for bootstrap host {host} (timed out)",
    "error": "Bootstrap host {host} could not be resolved",
}


# What glibc's getaddrinfo() says for each status: the tail of librdkafka's "Failed to resolve" line.
GAI_TEXT = {
    "nxdomain": "Name or service not known",
    "no_answer": "No address associated with hostname",
    "servfail": "Temporary failure in name resolution",
    "timeout": "Temporary failure in name resolution",
}


def resolve_failure_line(host: str, port: int, status: str) -> str:
    """librdkafka's log line for a name it cannot resolve (macOS words the tail differently)."""
    return f"Failed to resolve '{hostport(host, port)}': {GAI_TEXT.get(status, GAI_TEXT['nxdomain'])}"


def dns_meaning(result: DnsResult) -> str:
    text = DNS_MEANING.get(result.status, DNS_MEANING["error"]).format(host=result.host)
    if result.status == "error" and result.error:
        text += f" ({result.error})"
    return text


def _dns_note(result: DnsResult) -> str:
    """What a direct DNS query saw, when it disagrees with the system resolver."""
    notes = []
    if result.dns_status == "ok" and result.status != "ok":
        where = f" from {result.nameserver}" if result.nameserver else ""
        notes.append(f"A direct DNS query{where} did get an answer ({join_words(result.dns_addresses)}), so "
                     "this machine's system resolver is set up differently (nsswitch, a VPN's split DNS, "
                     "a search domain).")
    if result.cname_chain:
        notes.append(f"It is an alias: {' -> '.join(result.cname_chain)}.")
    if result.note:
        notes.append(result.note)
    return (" " + " ".join(notes)) if notes else ""


def _dns_fix(result: DnsResult, endpoint: Endpoint) -> str:
    host = result.host
    server = f" @{result.nameserver}" if result.nameserver else ""
    if result.status == "nxdomain":
        return (f"Check the spelling and the domain:\n  dig +short {host}\n"
                "A name in a private DNS zone (a Route 53 private hosted zone, corporate DNS) only resolves inside "
                "its network: connect the VPN or run the client inside. Or bootstrap with an address that "
                f"resolves here, e.g. the broker's IP:\n  kdiag bootstrap <broker IP>:{endpoint.port}")
    if result.status == "no_answer":
        return (f"The name needs an A (IPv4) or AAAA (IPv6) record:\n  dig {host} A\n  dig {host} AAAA\n"
                "Add the record in the zone, or bootstrap with the broker's IP.")
    if result.status == "servfail":
        return (f"Ask the resolver directly, then with DNSSEC checking off:\n  dig {host}{server}\n"
                f"  dig +cd {host}{server}\n"
                "If +cd answers, DNSSEC validation fails for the zone; otherwise its authoritative servers are "
                "unreachable or broken.")
    if result.status == "timeout":
        return ("Check that this machine's resolver answers at all:\n  cat /etc/resolv.conf\n"
                f"  dig {host}{server}\n"
                "If it times out too, the nameserver is unreachable (VPN down, firewall on port 53).")
    return f"  dig {host}{server}\n  getent hosts {host}"


def _unresolvable(report: Report) -> tuple[Finding, ...]:
    findings = []
    usable = bootstrap_usable(report)
    for endpoint in report.bootstrap:
        if classify_host(endpoint.host).is_ip:
            continue
        result = bootstrap_dns(report, endpoint.host)
        if result is None or result.status not in DNS_FAILURES:
            continue
        severity = "warning" if usable else "error"
        host = endpoint.host
        consequence = ("The client tries its other bootstrap addresses, so it still starts; but this entry "
                       "is dead weight, and a restart while the others are down fails."
                       if usable else
                       f"The client cannot even start: librdkafka logs "
                       f"`{resolve_failure_line(host, endpoint.port, result.status)}` and the Java clients refuse "
                       "the configuration with `No resolvable bootstrap urls given in bootstrap.servers`.")
        explanation = f"Resolving {host} here: {dns_meaning(result)}.{_dns_note(result)} {consequence}"
        evidence = {"host": host, "port": endpoint.port, "dns_status": result.status, "error": result.error,
                    "nameserver": result.nameserver, "direct_dns_status": result.dns_status}
        findings.append(finding("BOOTSTRAP_UNRESOLVABLE", severity, _DNS_TITLE.get(result.status, _DNS_TITLE["error"])
                                .format(host=host), explanation, evidence, _dns_fix(result, endpoint)))
    return tuple(findings)


# --- TCP ----------------------------------------------------------------------------------------

_TCP_RULE = {"refused": "BOOTSTRAP_REFUSED", "timeout": "BOOTSTRAP_TIMEOUT", "unreachable": "BOOTSTRAP_UNREACHABLE"}
_PRIORITY = ("refused", "timeout", "unreachable")  # refused is definite; "unreachable" is often IPv6 noise


def failed_connect(attempts: tuple[TcpResult, ...]) -> str | None:
    """The failure that describes an endpoint none of whose addresses connected, or None."""
    tried = [a for a in attempts if a.status != "skip"]
    if not tried or any(a.ok for a in tried):
        return None
    statuses = {a.status for a in tried}
    return next((s for s in _PRIORITY if s in statuses), None)


def _target(endpoint: Endpoint, attempts: tuple[TcpResult, ...], status: str) -> str:
    addresses = [a.address for a in attempts if a.status == status and a.address]
    if addresses and not classify_host(endpoint.host).is_ip:
        return f"{hostport(endpoint.host, endpoint.port)} ({join_words(dict.fromkeys(addresses))})"
    return hostport(endpoint.host, endpoint.port)


def _client_says(status: str, endpoint: Endpoint, attempts: tuple[TcpResult, ...]) -> str:
    address = next((a.address for a in attempts if a.status == status and a.address), endpoint.host)
    family = "ipv6" if ":" in address else "ipv4"
    where = hostport(address, endpoint.port)
    if status == "refused":
        return (f"librdkafka logs `Connect to {family}#{where} failed: Connection refused` and Java "
                f"`Connection to node -1 ({java_address(endpoint.host, address, endpoint.port)}) could not be "
                "established. Node may not be available.`")
    if status == "timeout":
        return ("librdkafka logs `Connection setup timed out in state CONNECT` (after "
                "socket.connection.setup.timeout.ms, 30 s); a Java admin client reports `Timed out waiting for a "
                "node assignment` and a producer `Topic <topic> not present in metadata after 60000 ms.`")
    return f"librdkafka logs `Connect to {family}#{where} failed: No route to host`."


_WHY = {
    "refused": ("the machine answered the connect with a reset. That is ambiguous: either nothing listens on "
                "port {port} there (the broker is down, listens on another port, or binds only 127.0.0.1), or a "
                "firewall REJECTs the connection"),
    "timeout": ("nothing answered the connect at all: the packets are silently dropped, typically by a security "
                "group, network ACL or firewall (a stopped machine behind a cloud network looks the same)"),
    "unreachable": ("the network stack has no route to that address: a private address reached from outside "
                    "its network, a VPN that is down, or an IPv6 address without IPv6 connectivity here"),
}

_TITLE = {
    "refused": "Connection refused on bootstrap address {target}",
    "timeout": "Connecting to bootstrap address {target} timed out: the port is filtered",
    "unreachable": "No route from this machine to bootstrap address {target}",
}


def _connect_findings(report: Report, status: str) -> tuple[Finding, ...]:
    findings = []
    usable = bootstrap_usable(report)
    for endpoint in report.bootstrap:
        if bootstrap_resolved(report, endpoint) is False:
            continue  # BOOTSTRAP_UNRESOLVABLE says it
        attempts = bootstrap_attempts(report, endpoint)
        if failed_connect(attempts) != status:
            continue
        target = _target(endpoint, attempts, status)
        why = _WHY[status].format(port=endpoint.port)
        if is_loopback(endpoint.host) and status == "refused":
            why += "; here that is this very machine, so check the broker runs here, or its published Docker port"
        consequence = ("The client moves on to its other bootstrap addresses, so it still starts."
                       if usable else f"The client cannot fetch metadata: {_client_says(status, endpoint, attempts)}")
        evidence = {"host": endpoint.host, "port": endpoint.port,
                    "addresses": list(bootstrap_addresses(report, endpoint)),
                    "attempts": [{"address": a.address, "port": a.port, "status": a.status, "error": a.error,
                                  "duration_ms": a.duration_ms} for a in attempts]}
        fix = open_port_fix(report, [("the bootstrap address", endpoint.port, endpoint.host)], status)
        hint = other_listener_hint(report) if status == "refused" else None
        if hint:
            fix = f"{hint}\n\n{fix}"
        findings.append(finding(_TCP_RULE[status], "warning" if usable else "error",
                                _TITLE[status].format(target=target),
                                f"Connecting to {target}: {why}. {consequence}", evidence, fix))
    return tuple(findings)


def _refused(report: Report) -> tuple[Finding, ...]:
    return _connect_findings(report, "refused")


def _timeout(report: Report) -> tuple[Finding, ...]:
    return _connect_findings(report, "timeout")


def _unreachable(report: Report) -> tuple[Finding, ...]:
    return _connect_findings(report, "unreachable")


RULES = (
    Rule("BOOTSTRAP_UNRESOLVABLE", "The bootstrap host does not resolve", "error", _unresolvable),
    Rule("BOOTSTRAP_REFUSED", "Connection refused on the bootstrap address", "error", _refused),
    Rule("BOOTSTRAP_TIMEOUT", "Connecting to the bootstrap address times out (filtered)", "error", _timeout),
    Rule("BOOTSTRAP_UNREACHABLE", "No route to the bootstrap address", "error", _unreachable),
)
