"""Who ``/probe?target=`` may send kdiag to, and with which credentials.

Without this, one unauthenticated request could make the sidecar connect anywhere and log in there
with the application's SASL password or client key, or scan an internal host's ports. So:

- **Allowed targets** (``decide``): every host of the watched cluster (the configured bootstrap's
  hosts and the brokers its last metadata advertised), the ``--probe-allow`` patterns, and the
  patterns a named credential set is bound to. Anything else is refused (403) before any name is
  resolved or any connection is opened.
- **Credentials bound to their cluster**: the configured client settings go only to the configured
  bootstrap's endpoints and the brokers its metadata advertised (``host:port`` exactly); a target
  bound to a named set (``--probe-credentials NAME=PATTERN``) gets that set's settings; any other
  allowed target is probed with the same transport and no credentials at all
  (``kdiag.secrets.without_credentials``).
- **The listener scan** (the target host's other ports) never runs from ``/probe`` unless
  ``--probe-listener-scan`` asks for it.

A pattern is ``*`` (any host), a host glob (``*.kafka.svc.cluster.local``, ``kafka-?``), an IP
address or a CIDR (``10.0.0.0/8``, ``fd00::/8``), each optionally with ``:PORT`` (``[fd00::/8]:9092``
for IPv6). A CIDR matches a target given as an address: names are never resolved to decide.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from kdiag.secrets import redact, without_credentials
from kdiag.exitstatus import UsageError
from kdiag.orchestrate import BootstrapOptions
from kdiag.report import Endpoint, Report

CLUSTER = "cluster"  # the credentials of the watched cluster: the configured client settings
_GLOB = re.compile(r"[A-Za-z0-9_.*?-]+")
_SET_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class HostPattern:
    """One ``--probe-allow`` / ``--probe-credentials`` pattern: a host glob or a network, maybe a port."""

    text: str
    glob: str | None = None  # lower-cased fnmatch pattern
    network: Network | None = None
    port: int | None = None

    def matches(self, endpoint: Endpoint) -> bool:
        if self.port is not None and endpoint.port != self.port:
            return False
        if self.glob is not None:
            return fnmatch.fnmatchcase(endpoint.host.lower(), self.glob)
        address = _address(endpoint.host)
        return address is not None and self.network is not None and address.version == self.network.version \
            and address in self.network


def parse_pattern(option: str, text: str) -> HostPattern:
    """``*``, a host glob, an address or a CIDR, each optionally with ``:PORT``; UsageError otherwise."""
    raw = text.strip()
    body, port = _split_port(option, raw)
    try:
        return HostPattern(raw, network=ipaddress.ip_network(body, strict=False), port=port)
    except ValueError:
        pass
    if not _GLOB.fullmatch(body):
        raise UsageError(f"{option} takes host patterns (kafka-*.example.com), addresses or CIDRs (10.0.0.0/8), "
                         f"each optionally with :PORT, not {raw!r}")
    return HostPattern(raw, glob=body.lower(), port=port)


def parse_patterns(option: str, text: str) -> tuple[HostPattern, ...]:
    patterns = tuple(parse_pattern(option, part) for part in text.split(",") if part.strip())
    if not patterns:
        raise UsageError(f"{option} takes at least one pattern, e.g. kafka-*.example.com:9092 or 10.0.0.0/8")
    return patterns


def _split_port(option: str, text: str) -> tuple[str, int | None]:
    if text.startswith("["):
        inner, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise UsageError(f"{option}: {text!r} is neither [IPv6] nor [IPv6]:PORT")
        return inner, _port(option, text, rest[1:]) if rest else None
    if text.count(":") == 1:  # host:port; two or more colons is an IPv6 address or network
        host, _, port = text.partition(":")
        return host, _port(option, text, port)
    return text, None


def _port(option: str, text: str, port: str) -> int:
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{option}: the port of {text!r} must be 1-65535")
    return int(port)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


@dataclass(frozen=True)
class CredentialSet:
    """A named set of client settings (``KDIAG_CRED_<NAME>_*``) and the targets it is bound to."""

    name: str
    patterns: tuple[HostPattern, ...]
    settings: dict[str, str] = field(repr=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def bound_to(self, targets: Iterable[Endpoint]) -> bool:
        return all(any(p.matches(t) for p in self.patterns) for t in targets)


def parse_set_name(option: str, text: str) -> str:
    """A credential set's name (letters and digits), upper-cased as its ``KDIAG_CRED_<NAME>_*`` are."""
    if not _SET_NAME.fullmatch(text.strip()):
        raise UsageError(f"{option} takes a set NAME of letters and digits (its settings are KDIAG_CRED_<NAME>_*), "
                         f"not {text!r}")
    return text.strip().upper()


def parse_credential_binding(text: str, *, option: str = "--probe-credentials") -> tuple[str, tuple[HostPattern, ...]]:
    """``NAME=PATTERN[,PATTERN...]``: the set's name (letters and digits) and its patterns."""
    name, equals, patterns = text.strip().partition("=")
    if not equals or not _SET_NAME.fullmatch(name.strip()):
        raise UsageError(f"{option} takes NAME=PATTERN[,PATTERN...] with a NAME of letters and digits "
                         f"(its settings are KDIAG_CRED_<NAME>_*), not {text!r}")
    return name.strip().upper(), parse_patterns(option, patterns)


@dataclass(frozen=True)
class ProbeDecision:
    """``allowed``; ``credentials``: ``CLUSTER``, a set's name, or None (probed without any)."""

    allowed: bool
    credentials: str | None = None
    refused: Endpoint | None = None  # the first target that is not allowed


@dataclass(frozen=True)
class ProbeAccess:
    bootstrap: tuple[Endpoint, ...]
    allow: tuple[HostPattern, ...] = ()
    credential_sets: tuple[CredentialSet, ...] = ()
    listener_scan: bool = False

    def decide(self, targets: tuple[Endpoint, ...], *, advertised: Iterable[Endpoint] = ()) -> ProbeDecision:
        """Whether ``targets`` may be probed and with which credentials; resolves no name."""
        cluster = {_key(e) for e in (*self.bootstrap, *advertised)}
        cluster_hosts = {host for host, _port in cluster}
        patterns = (*self.allow, *(p for s in self.credential_sets for p in s.patterns))
        for target in targets:
            if _key(target)[0] not in cluster_hosts and not any(p.matches(target) for p in patterns):
                return ProbeDecision(False, refused=target)
        if all(_key(t) in cluster for t in targets):
            return ProbeDecision(True, CLUSTER)
        bound = next((s for s in self.credential_sets if s.bound_to(targets)), None)
        return ProbeDecision(True, bound.name if bound is not None else None)

    def options_for(self, decision: ProbeDecision, base: BootstrapOptions, **changes: object) -> BootstrapOptions:
        """``base`` (the watched cluster's options) for a ``/probe`` run: the decided credentials only,
        the listener scan only if allowed, then ``changes`` (targets, timeouts)."""
        if decision.credentials == CLUSTER:
            return replace(base, scan_listeners=self.listener_scan, **changes)
        chosen = next((s for s in self.credential_sets if s.name == decision.credentials), None)
        settings, secrets = ((chosen.settings, chosen.secrets) if chosen is not None
                             else (without_credentials(base.client_settings), ()))
        return replace(base, client_settings=dict(settings), redacted_settings=redact(settings), secrets=secrets,
                       scan_listeners=self.listener_scan, **changes)


def advertised_endpoints(report: Report | None) -> tuple[Endpoint, ...]:
    """The brokers the watched cluster's last metadata advertised (none before the first probe)."""
    if report is None or report.cluster is None:
        return ()
    return tuple(Endpoint(b.host, b.port) for b in report.cluster.brokers)


def report_cluster_settings(report: Iterable[Endpoint], watched: Iterable[Endpoint],
                            settings: Mapping[str, str]) -> dict[str, str]:
    """The watched cluster's ``settings`` for a report topic on ``report``'s endpoints: all of them
    when every one is a watched bootstrap endpoint, else the same transport without a credential."""
    known = {_key(e) for e in watched}
    if all(_key(e) in known for e in report):
        return dict(settings)
    return without_credentials(settings)


def _key(endpoint: Endpoint) -> tuple[str, int]:
    return endpoint.host.lower().rstrip("."), endpoint.port

