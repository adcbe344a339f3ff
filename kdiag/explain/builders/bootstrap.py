"""BOOTSTRAP_UNRESOLVABLE and BOOTSTRAP_REFUSED / _TIMEOUT / _UNREACHABLE from a client's lines: its bootstrap
address does not resolve, or does not accept the connection."""

from __future__ import annotations

import re

from kdiag.diagnose.hosts import LOOPBACK, UNSPECIFIED, classify_host, normalise_host
from kdiag.diagnose.rule import finding
from kdiag.diagnose.rules.bootstrap import dns_meaning
from kdiag.diagnose.wording import join_words
from kdiag.explain.clients.scheme_addresses import SERVICE_LINK
from kdiag.explain.implied import rule_fix
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.sightings import JAVA
from kdiag.explain.subject import BOOTSTRAP_HOST, Context, Subject
from kdiag.finding import Finding
from kdiag.report import Endpoint
from probes.hostport import hostport
from probes.results import DnsResult

def bootstrap_unresolvable(subject: Subject, context: Context) -> Finding:
    status = subject.status or "nxdomain"
    endpoint = subject.endpoint or Endpoint(BOOTSTRAP_HOST, 9092)
    link = SERVICE_LINK.fullmatch(endpoint.host)
    if link is not None:
        return _port_from_a_service_link(subject, context, link, status)
    if "://" in endpoint.host:
        return _written_as_a_listener(subject, context, endpoint.host, status)
    kind = classify_host(endpoint.host)
    explanation = (f"{client_said(subject)} {endpoint.host} is in the client's bootstrap.servers, and resolving it "
                   f"on the client's machine gave {dns_meaning(DnsResult(endpoint.host, status))}.")
    title = f"The client cannot resolve its bootstrap host {endpoint.host}"
    if subject.host == "":  # librdkafka's ":9092/bootstrap": a port alone
        title = f"The client's bootstrap address {subject.where} has no host"
        explanation = (f"{client_said(subject)} The client's bootstrap.servers names {subject.where}, a port with no "
                       "host (a variable meant to hold the host, left unset, most often): there is no name to resolve.")
    elif kind.local_only:
        explanation += f" It is {kind.description}."
    explanation += (" Until a bootstrap address resolves the client cannot fetch the cluster's metadata, so nothing "
                    "else can work." + consequence_sentence(context))
    fix = rule_fix(context.implied(subject, used=endpoint, dns=status), "BOOTSTRAP_UNRESOLVABLE")
    confirm = context.confirm(fallback=endpoint)
    return finding("BOOTSTRAP_UNRESOLVABLE", "error", title, explanation,
                   evidence(subject, context, confirm, dns_status=status), with_confirm(fix, confirm))


def _written_as_a_listener(subject: Subject, context: Context, written: str, status: str) -> Finding:
    """A bootstrap address with a listener's scheme (``SASL_SSL://kafka:9092``), looked up whole (scheme_addresses)."""
    scheme, _, address = written.partition("://")
    host, _, port = address.rpartition(":") if address.rpartition(":")[2].isdigit() else (address, "", "")
    used = Endpoint(host or address, int(port) if port else 9092)
    explanation = (f"{client_said(subject)} The client's bootstrap address is {written}, written the way "
                   f"advertised.listeners writes a listener (its name or protocol, then ://). This client takes "
                   f"host:port only and dials the address as written: it looked up a host named {written}, which no "
                   f"resolver has, so it never reached a broker. The protocol belongs in the client's security "
                   f"settings (its SASL and TLS options), not in the address." + consequence_sentence(context))
    confirm = context.confirm(fallback=used)
    fix = (f"Give the client {hostport(used.host, used.port)} as its bootstrap address (host:port, no scheme), and set "
           f"what {scheme} stands for in its security settings (a SASL_ protocol: a SASL mechanism and its "
           "credentials; an SSL one: TLS; a listener's own name: the protocol listener.security.protocol.map gives "
           "it).")
    return finding("BOOTSTRAP_UNRESOLVABLE", "error", f"The client's bootstrap address {written} carries a listener's "
                   f"scheme ({scheme}://)", explanation, evidence(subject, context, confirm, dns_status=status),
                   with_confirm(fix, confirm))


def _port_from_a_service_link(subject: Subject, context: Context, link: re.Match[str], status: str) -> Finding:
    """A bootstrap address built with a Kubernetes service link's value as its port (``host:tcp://ip:port``)."""
    written, host = link.group(0), link.group("host")
    used = Endpoint(host, int(link.group("port")))
    explanation = (f"{client_said(subject)} The client's bootstrap address is {written}: a host, then where its port "
                   f"belongs tcp://{link.group('ip')}:{link.group('port')}, the value Kubernetes gives a service link "
                   "variable. For every Service in the namespace the kubelet sets <SERVICE>_PORT=tcp://ip:port (beside "
                   "<SERVICE>_SERVICE_HOST and <SERVICE>_SERVICE_PORT) in each container, so an application that "
                   "reads its broker's port from a variable of that name (KAFKA_PORT, REDPANDA_PORT) gets the link's value instead. The "
                   f"client looked up a host named {written}, which no resolver has, so it never reached a broker."
                   + consequence_sentence(context))
    confirm = context.confirm(fallback=used)
    fix = (f"Give the client {hostport(used.host, used.port)} as its bootstrap address. Set the variable the "
           "application reads explicitly in the pod spec (or give it a name no Service can produce), or set "
           "enableServiceLinks: false in the pod spec so the kubelet does not inject the Services' variables.")
    return finding("BOOTSTRAP_UNRESOLVABLE", "error", f"The client's bootstrap address {written} has a Kubernetes "
                   "service link's value where its port belongs", explanation,
                   evidence(subject, context, confirm, dns_status=status), with_confirm(fix, confirm))


_CONNECT_WHY = {
    "refused": ("the machine answered the connect with a reset: nothing listens on {port} there (the broker is "
                "down, listens on another port, or binds only 127.0.0.1), or a firewall REJECTs it"),
    "timeout": ("nothing answered the connect at all: the packets are dropped on the way, typically by a security "
                "group, network ACL or firewall (a stopped machine behind a cloud network looks the same)"),
    "unreachable": ("the client's machine has no route to that address: a private address reached from outside its "
                    "network, a VPN that is down, or IPv6 without IPv6 connectivity"),
}
JAVA_REFUSED = ("(The Java client logs `could not be established` for a refused connect and for one with no route "
                 "alike.)")


def bootstrap_connect(subject: Subject, context: Context) -> Finding:
    status = {"BOOTSTRAP_REFUSED": "refused", "BOOTSTRAP_TIMEOUT": "timeout"}.get(subject.finding_id, "unreachable")
    endpoint = subject.endpoint or Endpoint(BOOTSTRAP_HOST, 9092)
    addresses = [a for a in subject.addresses if normalise_host(a) != normalise_host(endpoint.host)]
    named = subject.where if subject.host else hostport(endpoint.host, endpoint.port)  # no port the log does not give
    target = named + (f" ({join_words(addresses)})" if addresses else "")
    port = f"port {endpoint.port}" if subject.port or not subject.host else "the port the client tried"
    parts = [client_said(subject), f"The client's bootstrap address {target} did not accept the connection: "
             f"{_CONNECT_WHY[status].format(port=port)}."]
    if JAVA in subject.clients and status == "refused":
        parts.append(JAVA_REFUSED)
    if classify_host(endpoint.host).kind == LOOPBACK:
        parts.append("It is a loopback address, so that is the client's own machine: check the broker (or its "
                     "published Docker port) runs there.")
    elif classify_host(endpoint.host).kind == UNSPECIFIED:
        parts.append(f"{endpoint.host} is a bind address, not one to connect to: Linux and macOS take it for the "
                     "client's own machine, Windows refuses it. Bootstrap with the broker's name or address.")
    parts.append("Without a bootstrap connection the client gets no metadata." + consequence_sentence(context))
    title = {"refused": f"Connection refused on bootstrap address {target}",
             "timeout": f"Connecting to bootstrap address {target} timed out: the port is filtered",
             "unreachable": f"No route from the client's machine to bootstrap address {target}"}[status]
    fix = rule_fix(context.implied(subject, used=endpoint, addresses=subject.addresses, tcp=status),
                   subject.finding_id)
    confirm = context.confirm(fallback=endpoint)
    return finding(subject.finding_id, "error", title, " ".join(parts),
                   evidence(subject, context, confirm, tcp_status=status, addresses=list(subject.addresses) or None),
                   with_confirm(fix, confirm))
