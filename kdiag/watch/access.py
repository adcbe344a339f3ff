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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from kdiag.credentials import CredentialSet, HostPattern
from kdiag.secrets import redact, without_credentials
from kdiag.orchestrate import BootstrapOptions
from kdiag.report import Endpoint, Report

CLUSTER = "cluster"  # the credentials of the watched cluster: the configured client settings

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

