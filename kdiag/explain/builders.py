"""The findings a client log's lines lead to, built the way the catalog's rules build them from a report.

One builder per finding id (``BOOTSTRAP_*``, ``ADVERTISED_*``, ``TLS_*``, ``SASL_*``, topics, leaders,
not Kafka), used by every client family whose lines say it, with the words they share: ``Subject`` (a
group of lines about one endpoint, topic or listener), ``Context`` (what the whole log says), the quote of
the client's own words, the evidence and the ``kdiag bootstrap`` command that confirms it. Here too:
what only the metadata shows (``kcat -L``, franz-go's and Sarama's broker lists) and the finding for a
log that shows only consequences. A builder that only one family's lines lead to sits beside that
family's patterns (``clients/broker.py``: ``ADVERTISED_NONROUTABLE``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kdiag.diagnose.facts import join_words, plural
from kdiag.diagnose.hosts import (CONTAINER_ID, EC2_INTERNAL, KUBERNETES, LOOPBACK, PRIVATE_IP, SINGLE_LABEL,
                                  UNSPECIFIED, classify_host, normalise_host)
from kdiag.diagnose.rule import finding
from kdiag.diagnose.rules.bootstrap import dns_meaning
from kdiag.diagnose.rules.ingress import sni_check
from kdiag.explain.implied import Implied, broker, rule_fix
from kdiag.explain.observations import MAX_EXAMPLES, Facts, Group, message_of
from kdiag.explain.sightings import (ADVERTISED, BOOTSTRAP, BOOTSTRAP_DISCONNECTED, CONNECTION_CLOSED, EXPIRED_BATCH,
                                     JAVA, LIBRDKAFKA, MESSAGE_TIMEOUT, NOT_IN_METADATA, TLS_FAILED, UNKNOWN)
from kdiag.finding import Finding
from kdiag.report import BrokerReport, Endpoint, RoundtripDetail
from probes.hostport import hostport
from probes.results import (CertificateInfo, DnsResult, ForeignBytes, KafkaCheck, PartitionInfo, SaslResult, TlsResult,
                            TopicInfo)

CLIENT_NAMES = {"librdkafka": "librdkafka", "java": "the Java client", "kafkajs": "kafkajs", "go": "the Go client",
                "kafka-python": "kafka-python", "any": "the client"}
BOOTSTRAP_LIST = "<bootstrap.servers>"  # in a command: the client's whole list
BOOTSTRAP_HOST = "<bootstrap host>"  # in a broker setting: the address clients use
_THIS_MACHINE = "(In the fix below, \"this machine\" is the client's machine, where the log comes from.)"


# --- one finding's lines ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """The groups of lines one finding rests on, and the endpoint (or topic) they concern."""

    finding_id: str
    groups: tuple[Group, ...]
    host: str | None = None
    port: int | None = None
    node_id: int | None = None
    role: str = UNKNOWN
    role_from: str | None = None  # how the role was worked out when no line said it

    @property
    def count(self) -> int:
        return sum(g.count for g in self.groups)

    @property
    def examples(self) -> list[tuple[int, str]]:
        return sorted(e for g in self.groups for e in g.examples)[:MAX_EXAMPLES]

    @property
    def first_line(self) -> int:
        return min((g.examples[0][0] for g in self.groups if g.examples), default=0)

    @property
    def clients(self) -> list[str]:
        return list(dict.fromkeys(c for g in self.groups for c in g.clients))

    @property
    def symptoms(self) -> set[str]:
        return {g.symptom for g in self.groups}

    @property
    def status(self) -> str | None:
        statuses: Counter[str] = Counter()
        for g in self.groups:
            statuses.update(g.statuses)
        specific = [s for s, _ in statuses.most_common() if s != "error"]
        return specific[0] if specific else next(iter(statuses), None)

    @property
    def addresses(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for g in self.groups for a in g.addresses))

    @property
    def protocol(self) -> str | None:
        return next((p for g in self.groups for p in sorted(g.protocols)), None)

    @property
    def endpoint(self) -> Endpoint | None:
        return Endpoint(self.host, self.port or 9092) if self.host else None

    @property
    def where(self) -> str:
        if self.host is None:
            return "an address the log does not name"
        return hostport(self.host, self.port) if self.port else self.host

    def first(self, attribute: str) -> Any:
        return next((getattr(g.first, attribute) for g in self.groups if getattr(g.first, attribute)), None)


@dataclass(frozen=True)
class Context:
    """What the whole log says around one finding: the bootstrap list, the brokers, the consequences."""

    facts: Facts
    consequences: tuple[Group, ...]
    protocol: str | None  # the client's security.protocol when a line shows it (ssl://host:port/...)
    line: int = 0  # the finding's first line: the bootstrap list in force there is the one that applies
    failing: tuple[BrokerReport, ...] = ()  # every advertised broker the log shows failing, as the implied report has it

    @property
    def bootstrap(self) -> tuple[Endpoint, ...]:
        return self.facts.bootstrap_at(self.line)

    @property
    def topic(self) -> str | None:
        named = next((g.first.topic for g in self.consequences if g.first.topic), None)
        return named or (self.facts.topics[0] if self.facts.topics else None)

    def bootstrap_text(self, fallback: Endpoint | None = None) -> str:
        if self.bootstrap:
            return ",".join(str(e) for e in self.bootstrap)
        return str(fallback) if fallback is not None else BOOTSTRAP_LIST

    def confirm(self, *, fallback: Endpoint | None = None, protocol: str | None = None,
                settings: Sequence[str] = (), topic: str | None = None) -> str:
        """The ``kdiag bootstrap`` command that checks the finding from the client's machine."""
        words = ["kdiag", "bootstrap", self.bootstrap_text(fallback)]
        protocol = protocol or self.protocol
        if protocol and protocol != "PLAINTEXT":
            words += ["-X", f"security.protocol={protocol}"]
        for setting in settings:
            words += ["-X", setting]
        if topic or self.topic:
            words += ["--topic", topic or self.topic or ""]
        return " ".join(words)

    def known_brokers(self, *, besides: Iterable[BrokerReport] = ()) -> tuple[BrokerReport, ...]:
        """The advertised brokers the log names and no line shows failing."""
        taken = {b.node_id for b in besides}
        return tuple(broker(n, e.host, e.port) for n, e in sorted(self.facts.brokers.items()) if n not in taken)

    def implied(self, subject: Subject | None = None, *, used: Endpoint | None = None,
                brokers: Sequence[BrokerReport] = (), **facts: Any) -> Implied:
        """The report the log implies around ``subject``: its bootstrap (or a placeholder), the
        brokers named, the client's protocol; ``facts`` override what one finding's lines say."""
        if used is None and subject is not None and subject.role == BOOTSTRAP:
            used = subject.endpoint
        port = subject.port if subject is not None and subject.port else 9092
        used = used or (self.bootstrap[0] if self.bootstrap else Endpoint(BOOTSTRAP_HOST, port))
        facts.setdefault("protocol", (subject.protocol if subject else None) or self.protocol or "PLAINTEXT")
        # The other brokers the log shows failing too: a fix for one broker alone would advertise the bootstrap
        # address for it, and then for the next one the same (one round-robin balancer in front of all of them).
        taken = {b.node_id for b in brokers}
        named = tuple(sorted((*brokers, *(b for b in self.failing if b.node_id not in taken)), key=lambda b: b.node_id))
        return Implied(used=used, bootstrap=self.bootstrap, brokers=named + self.known_brokers(besides=named), **facts)


# --- the words every finding shares ---------------------------------------------------------------


def quote(group: Group | Subject) -> str:
    """The line to quote: the first example, or the line it completes (an OutOfMemoryError's frame)."""
    groups = group.groups if isinstance(group, Subject) else (group,)
    related = next((g.related[0] for g in groups if g.related), None)
    if related is not None:
        return message_of(related)
    examples = group.examples
    return message_of(examples[0][1]) if examples else ""


def client_said(subject: Subject) -> str:
    """``librdkafka logged `...` (12 lines).``"""
    who = join_words(CLIENT_NAMES.get(c, c) for c in subject.clients) or "the client"
    who = who[0].upper() + who[1:] if who.startswith("the ") else who
    times = f" ({subject.count} lines)" if subject.count > 1 else ""
    return f"{who} logged `{quote(subject)}`{times}."


def consequence_sentence(context: Context) -> str:
    if not context.consequences:
        return ""
    said = "; ".join(f"`{quote(g)}`" for g in context.consequences[:3])
    return f" That is also why the log goes on to say {said}: those lines report the failure, this is its cause."


def evidence(subject: Subject, context: Context, confirm: str, **extra: Any) -> dict[str, Any]:
    """The lines a finding rests on, the facts read from them, and the command that confirms it."""
    data: dict[str, Any] = {
        "lines": [line for _, line in subject.examples],
        "line_numbers": [number for number, _ in subject.examples],
        "count": subject.count,
        "client": subject.clients[0] if len(subject.clients) == 1 else subject.clients,
        "host": subject.host, "port": subject.port, "node_id": subject.node_id,
        "role": subject.role if subject.role != UNKNOWN else None, "role_from": subject.role_from,
        "host_kind": classify_host(subject.host).kind if subject.host else None,
    }
    related = [line for g in subject.groups for line in g.related]
    if related:
        data["related_lines"] = related[:MAX_EXAMPLES]
    data.update(extra)
    if context.consequences:
        data["consequences"] = [{"line": g.examples[0][1], "line_number": g.examples[0][0], "count": g.count}
                                for g in context.consequences[:MAX_EXAMPLES] if g.examples]
    data["confirm"] = confirm
    return data


def with_confirm(fix: str, confirm: str) -> str:
    """The rule's fix, then the command that confirms the finding (unless the fix already ends with one)."""
    if "this machine" in fix:
        fix = f"{_THIS_MACHINE}\n\n{fix}"
    if "kdiag bootstrap" in fix:
        return fix
    tail = f"Confirm it from the client's machine:\n  {confirm}"
    return f"{fix.rstrip()}\n\n{tail}" if fix else tail


def _at_start(subject: Subject) -> str:
    """``subject.where`` at the start of a title: a host name as written (b-1.demo..., not B-1.demo...)."""
    where = subject.where
    return where if subject.host is not None else where[0].upper() + where[1:]


def _who(subject: Subject) -> str:
    return f"Broker {subject.node_id}" if subject.node_id is not None else "A broker"


def _from_metadata_sentence(subject: Subject, context: Context) -> str:
    used = f" through {context.bootstrap_text()}" if context.bootstrap else ""
    node = f"broker {subject.node_id}" if subject.node_id is not None else "a broker"
    how = f" ({subject.role_from})" if subject.role_from else ""
    return (f"The client got this address from the cluster's metadata{how}: the bootstrap connection{used} worked, "
            f"and the cluster told it to reach {node} at {subject.where}. It sends every produce and fetch for the "
            "partitions that broker leads there, which is why `kcat -L` looks fine while producing and consuming "
            "fail.")


def _advertised(subject: Subject, **checks: Any) -> BrokerReport:
    return broker(subject.node_id, subject.host or "<advertised host>", subject.port or 9092, **checks)


# --- BOOTSTRAP_* ----------------------------------------------------------------------------------------


def _bootstrap_unresolvable(subject: Subject, context: Context) -> Finding:
    status = subject.status or "nxdomain"
    endpoint = subject.endpoint or Endpoint(BOOTSTRAP_HOST, 9092)
    kind = classify_host(endpoint.host)
    explanation = (f"{client_said(subject)} {endpoint.host} is in the client's bootstrap.servers, and resolving it "
                   f"on the client's machine gave {dns_meaning(DnsResult(endpoint.host, status))}.")
    if kind.local_only:
        explanation += f" It is {kind.description}."
    explanation += (" Until a bootstrap address resolves the client cannot fetch the cluster's metadata, so nothing "
                    "else can work." + consequence_sentence(context))
    fix = rule_fix(context.implied(subject, used=endpoint, dns=status), "BOOTSTRAP_UNRESOLVABLE")
    confirm = context.confirm(fallback=endpoint)
    return finding("BOOTSTRAP_UNRESOLVABLE", "error", f"The client cannot resolve its bootstrap host {endpoint.host}",
                   explanation, evidence(subject, context, confirm, dns_status=status), with_confirm(fix, confirm))


_CONNECT_WHY = {
    "refused": ("the machine answered the connect with a reset: nothing listens on port {port} there (the broker is "
                "down, listens on another port, or binds only 127.0.0.1), or a firewall REJECTs it"),
    "timeout": ("nothing answered the connect at all: the packets are dropped on the way, typically by a security "
                "group, network ACL or firewall (a stopped machine behind a cloud network looks the same)"),
    "unreachable": ("the client's machine has no route to that address: a private address reached from outside its "
                    "network, a VPN that is down, or IPv6 without IPv6 connectivity"),
}
_JAVA_REFUSED = ("(The Java client logs `could not be established` for a refused connect and for one with no route "
                 "alike.)")


def _bootstrap_connect(subject: Subject, context: Context) -> Finding:
    status = {"BOOTSTRAP_REFUSED": "refused", "BOOTSTRAP_TIMEOUT": "timeout"}.get(subject.finding_id, "unreachable")
    endpoint = subject.endpoint or Endpoint(BOOTSTRAP_HOST, 9092)
    addresses = [a for a in subject.addresses if normalise_host(a) != normalise_host(endpoint.host)]
    target = hostport(endpoint.host, endpoint.port) + (f" ({join_words(addresses)})" if addresses else "")
    parts = [client_said(subject), f"The client's bootstrap address {target} did not accept the connection: "
             f"{_CONNECT_WHY[status].format(port=endpoint.port)}."]
    if JAVA in subject.clients and status == "refused":
        parts.append(_JAVA_REFUSED)
    if classify_host(endpoint.host).kind == LOOPBACK:
        parts.append("It is a loopback address, so that is the client's own machine: check the broker (or its "
                     "published Docker port) runs there.")
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


def _address_family_split(subject: Subject, context: Context) -> Finding:
    """ADVERTISED_ADDRESS_FAMILY_SPLIT: a loopback name refused on its IPv6 address only (the broker binds IPv4)."""
    from kdiag.diagnose.rules.addressing import split_fix

    endpoint = subject.endpoint or Endpoint("localhost", 9092)
    failing = list(subject.addresses) or ["::1"]
    where = hostport(endpoint.host, endpoint.port)
    parts = [client_said(subject), f"{endpoint.host} resolves to {join_words(failing)} and to 127.0.0.1, and only "
             f"the IPv6 address is refused: the broker listens on IPv4 only. librdkafka takes the next address on "
             "every reconnect, so every other connect fails (`1/1 brokers are down` in between), while kcat -L and a "
             "first produce may work: it looks like a flaky broker." + consequence_sentence(context)]
    fix = split_fix(subject.protocol or context.protocol or "PLAINTEXT", endpoint.host, endpoint.port, "127.0.0.1",
                    ["IPv4"], ["IPv6"])
    confirm = context.confirm(fallback=endpoint)
    return finding("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning",
                   f"{where} accepts connections only on IPv4: its IPv6 address {join_words(failing)} is refused",
                   " ".join(parts), evidence(subject, context, confirm, tcp_status="refused", addresses=failing),
                   with_confirm(fix, confirm))


# --- ADVERTISED_* ---------------------------------------------------------------------------------------


_KIND_WHY = {
    EC2_INTERNAL: ("An EC2 private DNS name is what a broker advertises when advertised.listeners is unset (or its "
                   "listener host is left empty): Kafka falls back to the machine's own hostname."),
    CONTAINER_ID: ("A container id is Docker's default hostname, and what the broker advertises when "
                   "KAFKA_ADVERTISED_LISTENERS is unset."),
    KUBERNETES: ("The listener advertises the in-cluster service name, so clients outside Kubernetes (through a "
                 "NodePort, load balancer or port-forward) cannot use it."),
    SINGLE_LABEL: ("A bare name like this is usually a container, Compose service or pod name: it resolves inside "
                   "its Docker or Kubernetes network only."),
}


def _advertised_unresolvable(subject: Subject, context: Context) -> Finding:
    host = subject.host or "<advertised host>"
    status = subject.status or "nxdomain"
    kind = classify_host(host)
    parts = [client_said(subject),
             f"{_who(subject)} advertises {subject.where}, {kind.description}; on the client's machine, "
             f"{dns_meaning(DnsResult(host, status))}.",
             _from_metadata_sentence(subject, context), _KIND_WHY.get(kind.kind, ""),
             consequence_sentence(context).strip()]
    target = _advertised(subject, dns=status)
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_UNRESOLVABLE")
    confirm = context.confirm()
    return finding("ADVERTISED_UNRESOLVABLE", "error",
                   f"{_who(subject)} advertises {host}, which the client's machine cannot resolve",
                   " ".join(p for p in parts if p), evidence(subject, context, confirm, dns_status=status),
                   with_confirm(fix, confirm))


def _advertised_loopback(subject: Subject, context: Context) -> Finding:
    host = subject.host or "localhost"
    parts = [client_said(subject),
             f"{_who(subject)} advertises {subject.where}, {classify_host(host).description}. A client that follows "
             "the metadata connects to its own machine, not to the broker: only clients on the broker's own machine "
             "(or inside its container) can use it."]
    if not context.bootstrap:
        parts.append("(The log does not show the bootstrap address. If the client bootstraps through a loopback "
                     "address too, a port-forward or a published Docker port, the advertised port is simply not "
                     "forwarded: then it is the ADVERTISED_UNREACHABLE case, and kdiag bootstrap tells them apart.)")
    parts += [_from_metadata_sentence(subject, context), consequence_sentence(context).strip()]
    target = _advertised(subject, addresses=subject.addresses or ("127.0.0.1",), tcp=subject.status or "refused")
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_LOOPBACK")
    confirm = context.confirm()
    return finding("ADVERTISED_LOOPBACK", "error", f"{_who(subject)} advertises {subject.where}, a loopback address",
                   " ".join(p for p in parts if p), evidence(subject, context, confirm, tcp_status=subject.status),
                   with_confirm(fix, confirm))


def _advertised_unreachable(subject: Subject, context: Context) -> Finding:
    status = subject.status or "refused"
    host = subject.host or "<advertised host>"
    happens = {"refused": "the connection is refused", "timeout": "the connect times out (the port is filtered)",
               "unreachable": "there is no route to it"}.get(status, "connecting fails")
    parts = [client_said(subject), f"{_who(subject)} advertises {subject.where}, and from the client's machine "
             f"{happens}.",
             _from_metadata_sentence(subject, context)]
    if JAVA in subject.clients and status == "refused":
        parts.append(_JAVA_REFUSED)
    same_host = [e for e in context.bootstrap if normalise_host(e.host) == normalise_host(host)
                 and e.port != (subject.port or 9092)]
    if same_host:
        parts.append(f"The client bootstrapped through {same_host[0]}, the same host on another port: the broker "
                     "advertises the port it listens on inside, not the one published or forwarded to the outside "
                     "(a Docker ports: mapping, NAT, a port-forward), or nothing listens on the advertised port.")
    parts.append(consequence_sentence(context).strip())
    target = _advertised(subject, addresses=subject.addresses, tcp=status)
    fix = rule_fix(context.implied(subject, brokers=[target]), "ADVERTISED_UNREACHABLE")
    confirm = context.confirm()
    title = f"{_who(subject)} advertises {subject.where}, which " + \
        {"refused": "refuses connections", "timeout": "does not answer (filtered)",
         "unreachable": "has no route"}.get(status, "fails") + " from the client's machine"
    return finding("ADVERTISED_UNREACHABLE", "error", title, " ".join(p for p in parts if p),
                   evidence(subject, context, confirm, tcp_status=status, addresses=list(subject.addresses) or None),
                   with_confirm(fix, confirm))


# --- TLS ------------------------------------------------------------------------------------------------


def _secured(subject: Subject, context: Context, *, tls: TlsResult | None = None, sasl: SaslResult | None = None,
             kafka: KafkaCheck | None = None, **facts: Any) -> Implied:
    """The implied report with one endpoint's TLS handshake, SASL exchange or Kafka answer: the
    bootstrap's, or an advertised broker's (the bootstrap then did what the client asked)."""
    if subject.role == ADVERTISED and subject.host is not None:
        ok_tls = TlsResult("ok") if tls is not None else None
        ok_sasl = SaslResult("ok") if sasl is not None else None
        target = _advertised(subject, tls=tls, sasl=sasl, kafka=kafka.status if kafka else "ok")
        return context.implied(subject, brokers=[target], tls=ok_tls, sasl=ok_sasl, **facts)
    return context.implied(subject, tls=tls, sasl=sasl, kafka=kafka or KafkaCheck("ok"), **facts)


def _tls_where(subject: Subject) -> dict[str, Any]:
    return {"host": subject.host or BOOTSTRAP_HOST, "port": subject.port or 9092}


def _tls_expected(subject: Subject, context: Context) -> Finding:
    where = subject.where
    parts = [client_said(subject)]
    if any("OutOfMemoryError" in line for g in subject.groups for line in g.related):
        parts.append("A Java client without TLS reads the first bytes of the listener's TLS alert (0x15 0x03 ...) as "
                     "a response size of about 352 MB and runs out of heap allocating it (KAFKA-4090): the listener "
                     "speaks TLS.")
    elif LIBRDKAFKA in subject.clients:
        parts.append("librdkafka sent its first plaintext request (ApiVersion) and the listener hung up: it expects "
                     "a TLS handshake first.")
    else:
        parts.append("The listener expects TLS, and the client speaks plaintext.")
    parts.append(f"The client connects to {where} without TLS (security.protocol PLAINTEXT or SASL_PLAINTEXT); that "
                 "port is a TLS listener (SSL or SASL_SSL)." + consequence_sentence(context))
    fix = rule_fix(_secured(subject, context, kafka=KafkaCheck("tls_expected"), protocol="PLAINTEXT"), "TLS_EXPECTED")
    confirm = context.confirm(fallback=subject.endpoint, protocol="SSL", settings=("ssl.ca.location=<ca.pem>",))
    return finding("TLS_EXPECTED", "error", f"{_at_start(subject)} is a TLS listener, but the client "
                   "connects without TLS", " ".join(parts), evidence(subject, context, confirm),
                   with_confirm(fix, confirm))


def _tls_unexpected(subject: Subject, context: Context) -> Finding:
    protocol = subject.protocol or context.protocol or "SSL"
    if JAVA in subject.clients:
        meaning = ("The Java client started a TLS handshake and the connection was closed before it finished. A "
                   "plaintext listener does exactly that (it reads the ClientHello as an oversized Kafka request and "
                   "hangs up); a firewall that lets only HTTPS through looks the same.")
    else:
        meaning = ("The client started a TLS handshake, and the other side answered with something that is not TLS "
                   "or hung up: the port is a plaintext listener (PLAINTEXT or SASL_PLAINTEXT), or a middlebox cuts "
                   "TLS.")
    tls = TlsResult("not_tls", received=subject.first("detail"), **_tls_where(subject))
    fix = rule_fix(_secured(subject, context, tls=tls, protocol=protocol), "TLS_UNEXPECTED")
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol)
    return finding("TLS_UNEXPECTED", "error", f"The client speaks TLS to {subject.where}, which does not answer in TLS",
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, client_security_protocol=protocol), with_confirm(fix, confirm))


def _tls_cert_untrusted(subject: Subject, context: Context) -> Finding:
    generic = subject.symptoms == {TLS_FAILED}
    if generic:
        meaning = ("The TLS handshake failed, and the lines here do not say why: most often the client does not "
                   "trust the CA that signed the broker's certificate; less often the name it connects to is not in "
                   "the certificate, or the broker wants a client certificate. The `Caused by:` lines of the stack "
                   "trace under it say which.")
    elif LIBRDKAFKA in subject.clients:
        meaning = ("The broker's certificate did not verify against the CAs the client trusts (ssl.ca.location, or "
                   "the system's store when it is unset). librdkafka words a certificate that does not hold the name "
                   f"{subject.host or 'it connects to'} the same way (it checks names since v2.0.0), so it is that "
                   "or an untrusted CA: the openssl command in the fix tells them apart.")
    else:
        meaning = ("The broker's certificate chain does not lead to a CA in the client's truststore "
                   "(ssl.truststore.location, or the JVM's cacerts when it is unset): a private CA the client was "
                   "not given, or a self-signed broker certificate.")
    protocol = subject.protocol or context.protocol or "SSL"
    tls = TlsResult("untrusted", verify_error=subject.first("detail") or "certificate verify failed", **_tls_where(subject))
    fix = rule_fix(_secured(subject, context, tls=tls, protocol=protocol), "TLS_CERT_UNTRUSTED")
    ingress = sni_ingress_note(subject)
    if ingress:
        meaning += f" {ingress}"
        fix = _ingress_check(fix, subject)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol, settings=("ssl.ca.location=<ca.pem>",))
    title = (f"The TLS handshake with {subject.where} failed" if generic else
             f"The client does not trust the certificate of {subject.where}")
    return finding("TLS_CERT_UNTRUSTED", "error", title, f"{client_said(subject)} {meaning}"
                   f"{consequence_sentence(context)}", evidence(subject, context, confirm, sni_ingress=True if ingress else None),
                   with_confirm(fix, confirm))


def _before_check(fix: str, paragraph: str) -> str:
    """``paragraph`` added to a rule's fix, before its closing ``Check with:`` line when it has one."""
    at = fix.rfind("\nCheck with:")
    if at < 0:
        return f"{fix}\n\n{paragraph}"
    return f"{fix[:at]}\n\n{paragraph}{fix[at:]}"


INGRESS_PORT = 443  # where ingress controllers and OpenShift routes pass TLS through by SNI


def _why_sni_ingress(subject: Subject) -> str:
    """Why an SNI-routing ingress may stand at ``subject`` (an IP address carries no server name; port 443 is
    where ingresses pass TLS through), or "" where it is unlikely."""
    if subject.host is None:
        return ""
    kind = classify_host(subject.host)
    if kind.is_ip and kind.kind != LOOPBACK:
        return "An IP address carries no server name (SNI) in the TLS handshake"
    if subject.port == INGRESS_PORT:
        return (f"Port {INGRESS_PORT} is where ingress controllers and OpenShift routes pass TLS through by server "
                "name (SNI)")
    return ""


def _ingress_check(fix: str, subject: Subject, *, routes: bool = False) -> str:
    """``fix`` with the command that shows which certificate the ingress at ``subject`` presents for a name
    (and, with ``routes``, which hosts its routes have), before its closing check."""
    commands = [sni_check(subject.addresses[0] if subject.addresses else subject.host, subject.port)]
    if routes:
        commands.append("kubectl get routes,ingresses -A")
    hosts = ", and which hosts the routes have" if routes else ""
    return _before_check(fix, "If it is an ingress, see which certificate answers for the name the route is for "
                         f"(the broker's, not the controller's default one){hosts}:\n  " + "\n  ".join(commands))


def sni_ingress_note(subject: Subject) -> str:
    """For a certificate that does not verify at port 443 or at an IP address: an SNI-routing ingress's default
    backend fails the same way, and the clients' words cannot tell it from an untrusted CA (neither librdkafka's
    `certificate verify failed` nor Java's `PKIX path building failed` names the certificate; seen in the lab,
    ``sni-ingress``)."""
    why = _why_sni_ingress(subject)
    if not why:
        return ""
    return (f"{why}: if {subject.where} is an ingress routing by SNI (Strimzi's ingress and route listeners), a "
            "connection whose name matches no route reaches the controller's default backend, and its certificate "
            "(ingress-nginx's \"Kubernetes Ingress Controller Fake Certificate\") fails verification with these same "
            "words. The client's lines cannot tell that from an untrusted CA; the openssl command in the fix, or kdiag "
            "bootstrap (which reads the certificate and says INGRESS_DEFAULT_BACKEND), can.")


def _sni_ingress_wildcard_note(subject: Subject) -> str:
    """Where an SNI-routing ingress may stand (port 443, or an IP address carrying no server name), a name no
    route has gets the controller's default certificate; when that is a valid wildcard (OpenShift's router
    serves ``*.apps.<cluster>``), it verifies as a certificate and fails only on the name."""
    if not _why_sni_ingress(subject):
        return ""
    return (f"If {subject.where} is an ingress routing by SNI (Strimzi's ingress and route listeners, an OpenShift "
            "route), a name that matches no route reaches the controller's default backend, whose certificate is "
            "often a valid wildcard (*.apps.<cluster> on OpenShift): trusted, but not for this name. Then the "
            "broker's certificate is fine and the route's host is not the name the client used.")


def _tls_hostname_mismatch(subject: Subject, context: Context) -> Finding:
    name = subject.host or "<broker host>"
    meaning = (f"The client checks that the name it connects to, {name}, is among the broker certificate's subject "
               "alternative names (hostname verification, on by default: Java since 2.0, librdkafka since v2.0.0), "
               "and it is not. Every broker's certificate must hold the exact name it advertises, and the bootstrap "
               "name too.")
    protocol = subject.protocol or context.protocol or "SSL"
    tls = TlsResult("hostname_mismatch", verify_error="hostname mismatch", name_in_certificate=False,
                    **_tls_where(subject))
    fix = rule_fix(_secured(subject, context, tls=tls, protocol=protocol), "TLS_HOSTNAME_MISMATCH")
    ingress = _sni_ingress_wildcard_note(subject)
    if ingress:
        meaning += f" {ingress}"
        fix = _ingress_check(fix, subject, routes=True)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol, settings=("ssl.ca.location=<ca.pem>",))
    return finding("TLS_HOSTNAME_MISMATCH", "error", f"{name} is not a name in the broker's certificate",
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))


_JAVA_SENDS_ONLY_MATCHING = (" A Java client sends a certificate only if one in its keystore was issued by a CA "
                             "the listener names in its CertificateRequest; with none it sends nothing, and the "
                             "listener answers bad_certificate either way.")


def _client_certificate_finding(subject: Subject, context: Context, finding_id: str, *, alert: str, title: str,
                                meaning: str, client_certificate: CertificateInfo | None) -> Finding:
    """TLS_CLIENT_CERT_REQUIRED / _REJECTED: the listener's alert about the client's certificate."""
    if JAVA in subject.clients:
        meaning += _JAVA_SENDS_ONLY_MATCHING
    protocol = subject.protocol or context.protocol or "SSL"
    tls = TlsResult("alert", alert=alert, client_certificate=client_certificate, **_tls_where(subject))
    fix = rule_fix(_secured(subject, context, tls=tls, protocol=protocol), finding_id)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=("ssl.certificate.location=<client.pem>", "ssl.key.location=<client.key>"))
    return finding(finding_id, "error", f"{_at_start(subject)} {title}",
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, alert=alert), with_confirm(fix, confirm))


def _tls_client_cert_required(subject: Subject, context: Context) -> Finding:
    alert = subject.first("detail") or "bad_certificate"
    meaning = (f"The listener answered the TLS handshake with the alert {alert}: it authenticates clients by "
               "certificate (ssl.client.auth=required) and this client presented none (no ssl.certificate.location "
               "/ ssl.key.location, no ssl.keystore.location). Under TLS 1.3 the refusal comes on the first read "
               "after a handshake that looked complete, so the client may call it a receive failure.")
    return _client_certificate_finding(subject, context, "TLS_CLIENT_CERT_REQUIRED", alert=alert,
                                       title="requires a client certificate, and the client presented none",
                                       meaning=meaning, client_certificate=None)


def _tls_client_cert_rejected(subject: Subject, context: Context) -> Finding:
    alert = subject.first("detail") or "certificate_unknown"
    meaning = (f"The client presented a certificate and the listener refused it with the alert {alert}: the CA "
               "that issued it is not in the listener's truststore, its chain is incomplete, or it has expired or "
               "lacks the clientAuth extended key usage.")
    return _client_certificate_finding(
        subject, context, "TLS_CLIENT_CERT_REJECTED", alert=alert, title="does not accept the client's certificate",
        meaning=meaning, client_certificate=CertificateInfo(subject="<the client's certificate>", issuer="<its CA>"))


# --- SASL -----------------------------------------------------------------------------------------------


def _sasl_protocol(subject: Subject, context: Context) -> str:
    seen = subject.protocol or context.protocol or ""
    return seen if seen.startswith("SASL_") else ("SASL_SSL" if seen == "SSL" else "SASL_PLAINTEXT")


def _sasl_required(subject: Subject, context: Context) -> Finding:
    if LIBRDKAFKA in subject.clients:
        meaning = ("The connection came up and the broker closed it at the first request; librdkafka's own hint: the "
                   "listener wants SASL authentication, and the client does not do SASL.")
    else:
        meaning = ("The broker received a Kafka request where it expected a SASL handshake: the listener's security "
                   "protocol is SASL_PLAINTEXT or SASL_SSL, and the client connects without SASL.")
    plain = "SSL" if (subject.protocol or context.protocol) == "SSL" else "PLAINTEXT"
    fix = rule_fix(_secured(subject, context, kafka=KafkaCheck("auth_required"), protocol=plain), "SASL_REQUIRED")
    confirm = context.confirm(fallback=subject.endpoint, protocol="SASL_SSL" if plain == "SSL" else "SASL_PLAINTEXT",
                              settings=("sasl.mechanisms=<mechanism>", "sasl.username=<user>",
                                        "sasl.password=<password>"))
    return finding("SASL_REQUIRED", "error", f"The listener at {subject.where} requires SASL authentication, and the "
                   "client sends none", f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))


def _sasl_mechanism(subject: Subject, context: Context) -> Finding:
    mechanism = subject.first("mechanism") or "GSSAPI"
    enabled = next((tuple(g.first.mechanisms) for g in subject.groups if g.first.mechanisms is not None), ())
    where = subject.where
    if enabled:
        meaning = (f"The client asks for {mechanism}; the listener at {where} enables {join_words(enabled)}. The "
                   "handshake fails before any credentials are checked.")
    else:
        meaning = (f"The client asks for {mechanism}, and the listener at {where} has no SASL mechanism at all: it is "
                   "a PLAINTEXT or SSL listener (the wrong port), or its SASL is not set up.")
    if mechanism == "GSSAPI":
        meaning += " librdkafka's sasl.mechanisms defaults to GSSAPI (Kerberos) when it is not set."
    protocol = _sasl_protocol(subject, context)
    sasl = SaslResult("unsupported_mechanism" if enabled else "not_sasl", mechanism=mechanism,
                      enabled_mechanisms=enabled, endpoint=str(subject.endpoint) if subject.endpoint else None)
    fix = rule_fix(_secured(subject, context, sasl=sasl, protocol=protocol, mechanism=mechanism),
                   "SASL_MECHANISM_MISMATCH")
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=(f"sasl.mechanisms={enabled[0] if enabled else '<mechanism>'}",))
    title = (f"The client's SASL mechanism {mechanism} is not enabled on {where}"
             + (f" (enabled: {join_words(enabled)})" if enabled else " (no SASL there)"))
    return finding("SASL_MECHANISM_MISMATCH", "error", title,
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, client_mechanism=mechanism, sasl_mechanisms=list(enabled)),
                   with_confirm(fix, confirm))


def _sasl_auth_failed(subject: Subject, context: Context) -> Finding:
    mechanism = subject.first("mechanism")
    why = subject.first("detail") or "Authentication failed"
    protocol = _sasl_protocol(subject, context)
    sasl = SaslResult("auth_failed", mechanism=mechanism, error_message=why,
                      endpoint=str(subject.endpoint) if subject.endpoint else None)
    fix = rule_fix(_secured(subject, context, sasl=sasl, protocol=protocol, mechanism=mechanism), "SASL_AUTH_FAILED")
    explanation = (f"{client_said(subject)} The listener at {subject.where} accepted the SASL handshake and then "
                   "rejected the credentials: the user name or password is wrong, or the user does not exist on this "
                   f"cluster (SCRAM users are created per cluster).{consequence_sentence(context)}")
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=(f"sasl.mechanisms={mechanism or '<mechanism>'}", "sasl.username=<user>",
                                        "sasl.password=<password>"))
    title = "The broker rejected the client's SASL credentials" + (f" ({mechanism})" if mechanism else "")
    return finding("SASL_AUTH_FAILED", "error", title, explanation,
                   evidence(subject, context, confirm, mechanism=mechanism), with_confirm(fix, confirm))


# --- topics, leaders, not Kafka -----------------------------------------------------------------------------


def _with_topic(context: Context, topic: str, *, error_code: str, topic_error: str = "NONE",
                partitions: Sequence[PartitionInfo] = ()) -> Implied:
    implied = context.implied()
    brokers = implied.brokers or (broker(1, implied.used.host, implied.used.port),)
    return Implied(used=implied.used, bootstrap=implied.bootstrap, brokers=brokers, protocol=implied.protocol,
                   roundtrip=RoundtripDetail(topic=topic, error_code=error_code),
                   topics=(TopicInfo(topic, tuple(partitions), error=topic_error),))


def _topic_not_found(subject: Subject, context: Context) -> Finding:
    topic = subject.first("topic") or context.topic or "<topic>"
    explanation = (f"{client_said(subject)} The cluster answered UNKNOWN_TOPIC_OR_PARTITION for {topic}: the topic "
                   "does not exist, and the broker does not create it on first use (auto.create.topics.enable=false, "
                   "the default on managed clusters), or the client may not create it. A Java producer waits "
                   f"max.block.ms and then fails with `Topic {topic} not present in metadata after 60000 ms.`"
                   f"{consequence_sentence(context)}")
    fix = rule_fix(_with_topic(context, topic, error_code="UNKNOWN_TOPIC_OR_PARTITION",
                               topic_error="UNKNOWN_TOPIC_OR_PARTITION"), "TOPIC_NOT_FOUND")
    confirm = context.confirm(topic=topic)
    return finding("TOPIC_NOT_FOUND", "error", f"Topic {topic} does not exist", explanation,
                   evidence(subject, context, confirm, topic=topic), with_confirm(fix, confirm))


def _topic_authorization(subject: Subject, context: Context) -> Finding:
    topic = subject.first("topic") or context.topic or "<topic>"
    fix = rule_fix(_with_topic(context, topic, error_code="TOPIC_AUTHORIZATION_FAILED",
                               topic_error="TOPIC_AUTHORIZATION_FAILED"), "TOPIC_AUTHORIZATION_FAILED")
    explanation = (f"{client_said(subject)} The broker's authorizer denies the client's principal (its SASL user "
                   f"name, or its certificate's distinguished name with mTLS) access to {topic}."
                   f"{consequence_sentence(context)}")
    confirm = context.confirm(topic=topic)
    return finding("TOPIC_AUTHORIZATION_FAILED", "error", f"The client is not authorized to use topic {topic}",
                   explanation, evidence(subject, context, confirm, topic=topic), with_confirm(fix, confirm))


def _no_leader(subject: Subject, context: Context) -> Finding:
    topic = subject.first("topic") or context.topic or "<topic>"
    error = subject.first("detail") or "LEADER_NOT_AVAILABLE"
    partition = PartitionInfo(0, 1 if error == "LISTENER_NOT_FOUND" else -1, error=error)
    fix = rule_fix(_with_topic(context, topic, error_code="NONE", partitions=(partition,)), "NO_LEADER")
    confirm = context.confirm(topic=topic)
    if error == "LISTENER_NOT_FOUND":
        explanation = (f"{client_said(subject)} The leader of a partition of {topic} has no listener with the name of "
                       "the listener the client came in on: the brokers define different listener names, and clients "
                       "cannot reach those partitions at all.")
        severity, title = "error", f"The leader of {topic} has no listener with the client's listener name"
    else:
        explanation = (f"{client_said(subject)} {topic} had a partition without a leader (LEADER_NOT_AVAILABLE). For "
                       "a moment right after a topic is created that is normal; if it lasts, no in-sync replica is "
                       "alive to lead it.")
        severity = "warning" if subject.count >= 3 else "info"
        title = f"A partition of {topic} had no leader ({subject.count} {plural(subject.count, 'line')})"
    return finding("NO_LEADER", severity, title, explanation + consequence_sentence(context),
                   evidence(subject, context, confirm, topic=topic, error=error), with_confirm(fix, confirm))


def _not_kafka(subject: Subject, context: Context) -> Finding:
    detail = subject.first("detail") or ""
    speaks = "HTTP" if detail.endswith("HTTP") else "SSH" if detail.endswith("SSH") else None
    foreign = ForeignBytes(speaks.lower() if speaks else "text", speaks or "bytes that do not frame as Kafka",
                           speaks or "")
    fix = rule_fix(_secured(subject, context, kafka=KafkaCheck("not_kafka", foreign=foreign)), "NOT_KAFKA")
    explanation = (f"{client_said(subject)} The first four bytes that came back, read as a Kafka response size, make "
                   f"no sense ({detail}): the port at {subject.where} speaks {speaks or 'another protocol'}, not "
                   f"Kafka.{consequence_sentence(context)}")
    confirm = context.confirm(fallback=subject.endpoint)
    return finding("NOT_KAFKA", "error", f"{subject.where} does not answer in Kafka's protocol"
                   + (f": it speaks {speaks}" if speaks else ""), explanation, evidence(subject, context, confirm),
                   with_confirm(fix, confirm))


# --- what only the metadata shows (kcat -L), and what nothing explains ------------------------------------

_METADATA_LIKELY = {
    "ADVERTISED_UNRESOLVABLE": "which most likely does not resolve outside its own network",
    "ADVERTISED_UNREACHABLE": "a private address clients outside its network cannot reach",
    "ADVERTISED_LOOPBACK": "a loopback address: every client that follows it connects to itself",
    "ADVERTISED_NONROUTABLE": "an address no client can connect to",
}


def _from_metadata(context: Context, subjects: Sequence[Subject]) -> list[Finding]:
    """Brokers a printed broker list (kcat -L) shows no client elsewhere can use, where no line shows
    them failing, and brokers that list one address twice. Each list is read with the bootstrap it
    came through."""
    facts = context.facts
    failed = {(normalise_host(s.host), s.port) for s in subjects if s.host}
    by_list: dict[tuple[str, tuple[Endpoint, ...]], list[tuple[int, int, Endpoint]]] = {}
    shared: dict[tuple[tuple[Endpoint, ...], str, int], list[tuple[int, int]]] = {}
    for line, node_id, endpoint, _ in facts.listed:
        bootstrap = facts.bootstrap_at(line)
        shared.setdefault((bootstrap, normalise_host(endpoint.host), endpoint.port), []).append((line, node_id))
        rule_id = _suspect(endpoint, bootstrap)
        if rule_id is not None and (normalise_host(endpoint.host), endpoint.port) not in failed:
            by_list.setdefault((rule_id, bootstrap), []).append((line, node_id, endpoint))
    found = [_metadata_finding(rule_id, listed, replace(context, line=listed[0][0]))
             for (rule_id, _), listed in by_list.items()]
    for (_, host, port), entries in shared.items():
        node_ids = sorted({n for _, n in entries})
        if len(node_ids) > 1 and classify_host(host).kind != UNSPECIFIED:
            found.append(_duplicate_finding(node_ids, Endpoint(host, port), replace(context, line=entries[0][0])))
    return found


def _suspect(endpoint: Endpoint, bootstrap: tuple[Endpoint, ...]) -> str | None:
    """The finding a listed broker address most likely leads to for clients outside its network."""
    kind = classify_host(endpoint.host).kind
    if kind == UNSPECIFIED:
        return "ADVERTISED_NONROUTABLE"
    if not bootstrap or any(classify_host(e.host).local_only for e in bootstrap):
        return None  # the client is inside that network too (or the log does not say where it is)
    if kind == LOOPBACK:
        return "ADVERTISED_LOOPBACK"
    if kind in (EC2_INTERNAL, CONTAINER_ID, KUBERNETES, SINGLE_LABEL):
        return "ADVERTISED_UNRESOLVABLE"
    return "ADVERTISED_UNREACHABLE" if kind == PRIVATE_IP else None


def _metadata_evidence(context: Context, lines: list[tuple[int, str]], confirm: str, **extra: Any) -> dict[str, Any]:
    named = context.facts.bootstrap_line_at(context.line)
    lines = sorted(set(lines + ([named] if named else [])))[:MAX_EXAMPLES]
    return {"lines": [text for _, text in lines], "line_numbers": [number for number, _ in lines],
            "count": len(lines), **extra, "observed": False, "confirm": confirm}


def _listed_lines(context: Context, entries: Iterable[tuple[int, int]]) -> list[tuple[int, str]]:
    wanted = set(entries)
    return [(line, text) for line, node_id, _, text in context.facts.listed if (line, node_id) in wanted]


def _metadata_finding(rule_id: str, listed: list[tuple[int, int, Endpoint]], context: Context) -> Finding:
    dns = "nxdomain" if rule_id == "ADVERTISED_UNRESOLVABLE" else "ok"
    tcp = "refused" if rule_id == "ADVERTISED_LOOPBACK" else "timeout" if rule_id == "ADVERTISED_UNREACHABLE" else "ok"
    reports = [broker(n, e.host, e.port, dns=dns, tcp=tcp) for _, n, e in listed]
    ids = join_words(n for _, n, _ in listed)
    who = f"Broker {ids}" if len(listed) == 1 else f"Brokers {ids}"
    addresses = join_words(str(e) for _, _, e in listed)
    kind = classify_host(listed[0][2].host)
    explanation = (f"The cluster's metadata, fetched through {context.bootstrap_text()}, lists {who.lower()} at "
                   f"{addresses}: {kind.description}. The bootstrap connection worked, which is all `kcat -L` shows: "
                   "it prints the list and never connects to the brokers in it. A client producing or consuming "
                   "connects to each partition leader at its advertised address, so from a machine outside that "
                   "network it fails there. kdiag bootstrap on the client's machine checks each advertised broker.")
    fix = rule_fix(context.implied(brokers=reports), rule_id)
    confirm = context.confirm()
    data = _metadata_evidence(context, _listed_lines(context, [(line, n) for line, n, _ in listed]), confirm,
                              bootstrap=context.bootstrap_text(), node_ids=[n for _, n, _ in listed],
                              brokers=[{"node_id": n, "host": e.host, "port": e.port,
                                        "host_kind": classify_host(e.host).kind} for _, n, e in listed])
    title = f"{who} {'advertises' if len(listed) == 1 else 'advertise'} {addresses}, {_METADATA_LIKELY[rule_id]}"
    severity = "error" if rule_id == "ADVERTISED_NONROUTABLE" else "warning"
    return finding(rule_id, severity, title, explanation, data, with_confirm(fix, confirm))


def _duplicate_finding(node_ids: list[int], endpoint: Endpoint, context: Context) -> Finding:
    reports = [broker(n, endpoint.host, endpoint.port) for n in node_ids]
    ids = join_words(node_ids)
    explanation = (f"The cluster's metadata lists brokers {ids} all at {endpoint}. A client keeps one connection per "
                   "broker and sends each broker's partitions to its address; these all reach one process (or, when "
                   "the address is a load balancer in front of every broker, whichever broker it picks), which "
                   "answers NOT_LEADER_OR_FOLLOWER for the partitions it does not lead, and the client retries until "
                   "it times out. Usual causes: every broker's advertised.listeners names the load balancer, or one "
                   "server.properties was copied to every broker. Kafka needs one address per broker.")
    fix = rule_fix(context.implied(brokers=reports), "ADVERTISED_DUPLICATE")
    confirm = context.confirm()
    lines = [(line, text) for line, n, e, text in context.facts.listed if e == endpoint and n in node_ids]
    return finding("ADVERTISED_DUPLICATE", "error", f"Brokers {ids} advertise the same address {endpoint}",
                   explanation, _metadata_evidence(context, lines, confirm, node_ids=node_ids, endpoint=str(endpoint)),
                   with_confirm(fix, confirm))


_CONSEQUENCE_MEANING = {
    EXPIRED_BATCH: ("The producer gave up on the records for {topic} after delivery.timeout.ms without the partition "
                    "leader ever taking them. The line cannot say why. By far the most common cause is that the "
                    "leader's advertised address is unusable from the client's machine: a name that does not resolve "
                    "there (an EC2 internal name, a container name), localhost, or a port that is closed or filtered, "
                    "while the bootstrap address works. Less often the leader is down or overloaded, or acks=all "
                    "waits for replicas that are not in sync."),
    MESSAGE_TIMEOUT: ("librdkafka gave up on a message after message.timeout.ms without delivering it: it could not "
                      "reach the partition leader (most often an advertised address that does not resolve or "
                      "connect from the client's machine), the topic does not exist and is not created "
                      "automatically, or the leader did not answer."),
    NOT_IN_METADATA: ("The producer waited max.block.ms for {topic}'s metadata and never got it: either the topic "
                      "does not exist (and is not created automatically), or the client cannot reach a broker to "
                      "ask (the bootstrap address, or the advertised addresses it learned first)."),
    BOOTSTRAP_DISCONNECTED: ("The Java client lost its bootstrap connection and says no more at its default log "
                             "level. That is what it logs for a listener that wants TLS or SASL the client does not "
                             "send (the broker hangs up at the first request), and for a connect that timed out (a "
                             "filtered port: the timeout itself is logged at INFO); a refused connect would have said "
                             "`could not be established`."),
    CONNECTION_CLOSED: ("The broker closed the connection right after the client's first requests, and the client "
                        "says no more (kafkajs: `Closed connection`; Sarama: `EOF`). A listener does that when it "
                        "expects TLS and receives plaintext (it hangs up after its TLS alert), and when it expects "
                        "SASL authentication and receives a Kafka request first; the client's words are the same for "
                        "both, so check the listener's security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL) "
                        "against the client's TLS and SASL settings."),
}


def _unexplained(context: Context) -> Finding:
    groups = context.consequences
    symptoms = {g.symptom for g in groups}
    first = next((s for s in (EXPIRED_BATCH, BOOTSTRAP_DISCONNECTED, CONNECTION_CLOSED, NOT_IN_METADATA,
                              MESSAGE_TIMEOUT) if s in symptoms), None)
    topic = context.topic
    meaning = _CONSEQUENCE_MEANING.get(first or "", "The client gave up, and these lines do not say why.")
    said = "; ".join(f"`{quote(g)}`" + (f" ({g.count} lines)" if g.count > 1 else "") for g in groups[:3])
    confirm = context.confirm(topic=topic)
    explanation = (f"The log says {said}. {meaning.format(topic=topic or 'the topic')} No line names the cause (a "
                   "`Failed to resolve`, a refused connect, an authentication error); kdiag bootstrap, run on the "
                   "client's machine with the client's bootstrap.servers, checks each of those causes in seconds.")
    fix = (f"On the machine where the client runs, with the same bootstrap.servers and client settings:\n  {confirm}\n"
           "It resolves and connects to the bootstrap and to every advertised broker, and produces to the topic; if an "
           "advertised address is unusable from there, its report gives the advertised.listeners fix.")
    if not context.bootstrap:
        fix += (f"\n\nReplace {BOOTSTRAP_LIST} with the client's bootstrap.servers (Java: bootstrap.servers or "
                "--bootstrap-server; librdkafka: bootstrap.servers, or kcat -b).")
    lines = [g.examples[0] for g in groups if g.examples][:MAX_EXAMPLES]
    data = {"lines": [line for _, line in lines], "line_numbers": [n for n, _ in lines],
            "count": sum(g.count for g in groups), "topic": topic,
            "bootstrap": context.bootstrap_text() if context.bootstrap else None, "confirm": confirm}
    title = ("The producer's records expired before the partition leader took them" if first == EXPIRED_BATCH else
             "The client gave up, and the log does not say why")
    return finding("ROUNDTRIP_FAILED", "error", title, explanation, data, fix)
