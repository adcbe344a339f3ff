"""A name refused on some of its addresses only (a broker that listens on IPv4 alone, a name with an AAAA record
too): when its lines show it (``ipv6_only_refused``, ``ipv6_of_a_name``) and the readings the same lines allow
(``ipv6_refused``, ``loopback_advertised``, ``family_split_reading``). ADVERTISED_ADDRESS_FAMILY_SPLIT's finding
itself is ``builders.addressing``'s."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from kdiag.diagnose.hosts import LOOPBACK, classify_host, normalise_host
from kdiag.diagnose.wording import join_words
from kdiag.explain.observations import Group
from kdiag.explain.readings import OR, Builder, hedged, likely_or
from kdiag.explain.sightings import BOOTSTRAP, BROKER_ROLES, GO, KAFKAJS
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

# Clients whose refused connect names one address of a name and says nothing of its others: Node's net.connect (kafkajs)
# tries the first address the lookup gives (Node 20's autoSelectFamily, when it tries them all, words its error
# without one), Go's dialer tries them all and reports the first one's error. librdkafka, Java, kafka-python and telnet
# log each address they try, so a localhost refused on ::1 alone there points at 127.0.0.1 having answered, unless the
# paste stops before that try (``split_readings``).
ONE_ADDRESS_CLIENTS = (KAFKAJS, GO)


def ipv6_of_a_name(subject: Subject) -> bool:
    """Refused on IPv6 addresses only, of a name that is not loopback (that case is ipv6_only_refused's)."""
    host = subject.host
    return (subject.status == "refused" and host is not None and bool(subject.addresses)
            and not classify_host(host).is_ip and all(":" in a for a in subject.addresses))


def ipv6_only_refused(group: Group, kind: str | None, host: str | None) -> bool:
    """A loopback name (localhost) whose refused connects are all to IPv6 addresses: its IPv4 address most likely
    answers, so the broker listens on IPv4 only (librdkafka logs each address it tries as ipv4# or ipv6#). A refused ::1
    alone (a coordinator's line names no host) is the same: clients reach ::1 through the name localhost."""
    first = group.first
    if first.status != "refused" or kind != LOOPBACK or host is None or not group.addresses:
        return False
    if all(client in ONE_ADDRESS_CLIENTS for client in group.clients):
        return False  # the client names one address of the name: nothing says another answered
    if not classify_host(host).is_ip:
        return all(":" in address for address in group.addresses)
    return all(address.strip("[]") == "::1" for address in group.addresses)


def metadata_came(subject: Subject, context: Context) -> bool:
    """The paste shows the cluster's metadata answer arrived: a line of it, an advertised broker it named, or a
    connection to a broker by node id (librdkafka's ``localhost:9092/1``), which a client opens only from the metadata.
    A bootstrap refused on ::1 then answered on its other address: no bootstrap failed."""
    return context.facts.metadata or bool(context.facts.brokers) or bool(context.failing) or \
        any(g.first.node_id is not None and g.first.node_id >= 0 for g in subject.groups)


def split_readings(split: Finding, subject: Subject, context: Context, builders: Mapping[str, Builder],
                   ipv4_refused: bool) -> list[Finding]:
    """ADVERTISED_ADDRESS_FAMILY_SPLIT's readings: the lines show a loopback name refused on ::1 and say nothing of what
    its 127.0.0.1 answered, so a broker that listens on IPv4 only and nothing listening at that port at all end alike
    in the paste. At the bootstrap, the other reading is BOOTSTRAP_REFUSED; at an address the metadata gave, while the
    client bootstrapped through loopback at another port (a published Docker port, a port-forward), the advertised
    port published nowhere (ADVERTISED_UNREACHABLE); at the bootstrap's own loopback port, which answered, the split
    alone, and the same when a line shows the name connected (telnet's ``Connected to``, librdkafka's state CONNECT ->
    APIVERSION_QUERY) or the metadata came (a bootstrap that answered: ``metadata_came``); with no loopback bootstrap,
    a broker elsewhere advertising localhost (``loopback_advertised``)."""
    if subject.host is not None and (normalise_host(subject.host), subject.port) in context.facts.connected:
        return [split]  # a line shows the name connected, on its other address: the split alone
    bootstrap = context.bootstrap
    loopback = [e for e in bootstrap if classify_host(e.host).kind == LOOPBACK]
    if subject.role in BROKER_ROLES and not loopback:  # a loopback the metadata gave, the client elsewhere or unknown
        advertised = builders["ADVERTISED_LOOPBACK"](replace(subject, finding_id="ADVERTISED_LOOPBACK"), context)
        return loopback_advertised(advertised, split, subject, bool(bootstrap), ipv4_refused)
    others = [e for e in loopback if e.port != subject.port]  # every loopback name is this machine: the port decides
    if subject.role in BROKER_ROLES and others and len(others) == len(loopback):
        other_id, why = "ADVERTISED_UNREACHABLE", (
            f"The client bootstrapped through {join_words(str(e) for e in others)}, loopback at another port, so the "
            f"broker is on this machine behind a published or forwarded port; if it advertises {subject.where}, the "
            "port it listens on inside (a Docker ports: mapping such as 9091:9092), and nothing publishes that port "
            "here, 127.0.0.1 is refused as well, and the paste does not show that try.")
    elif subject.role == BOOTSTRAP and not metadata_came(subject, context):
        other_id, why = "BOOTSTRAP_REFUSED", (
            "If nothing listens at that port on this machine at all (the broker down, a container whose port is not "
            "published), 127.0.0.1 is refused as well, and the paste does not show that try.")
    else:
        return [split]
    other = builders[other_id](replace(subject, finding_id=other_id), context)
    confirm = context.confirm(fallback=subject.endpoint)
    said = (f"No line says what {subject.where}'s IPv4 address 127.0.0.1 answered. {why} The other reading is "
            f"{{other}}. `{confirm}` decides: it connects to each address.")
    return likely_or(split, other, said)


def ipv6_refused(primary: Finding, other: Finding, subject: Subject) -> list[Finding]:
    """A name refused on its IPv6 addresses only: the broker is down or refuses there (``primary``), or it listens on
    IPv4 only and the client never tried the name's IPv4 address (``other``, ADVERTISED_ADDRESS_FAMILY_SPLIT)."""
    confirm = str(primary.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    said = (f"Every refused connect to {subject.where} went to an IPv6 address; if the name also has an IPv4 address "
            "and the broker listens on IPv4 only, that is the whole failure. The other reading is {other}. "
            f"`{confirm}` decides: it connects to each address of the name.")
    return likely_or(primary, other, said)


def loopback_advertised(loopback: Finding, split: Finding, subject: Subject, bootstrap_shown: bool,
                        ipv4_refused: bool) -> list[Finding]:
    """A loopback address the cluster's metadata gave (``host:port/1``, a coordinator) refused on IPv6 (::1): a broker
    elsewhere that advertises localhost sends the client to itself, where nothing listens (``loopback``); or the broker
    runs on the client's machine and listens on IPv4 only (``split``). The likely one is ``loopback`` when the paste
    shows the bootstrap is not loopback or the IPv4 loopback refused too, else ``split``. (A loopback bootstrap, the
    client on the broker's machine, is ``split_readings``'s own case.)"""
    shown = ("the client's bootstrap address is not loopback, so the broker is likely on another machine"
             if bootstrap_shown else "the log also shows the IPv4 loopback refused" if ipv4_refused else
             "the paste does not show the client's bootstrap address")
    said = (f"The cluster's metadata sent the client to {subject.where}, loopback, and a connect to its IPv6 address "
            f"::1 was refused; {shown}. A broker elsewhere that advertises localhost sends every client to itself, "
            "where ::1 and 127.0.0.1 are both refused; a broker on the client's own machine that listens on IPv4 only "
            "refuses ::1 alone. The other reading is {other}. `kdiag bootstrap <bootstrap.servers>`, with the client's "
            "bootstrap.servers, decides: it connects to the bootstrap, then to every address the metadata advertises.")
    if bootstrap_shown or ipv4_refused:
        return likely_or(loopback, split, said)
    return likely_or(split, loopback, said)


def loopback_name(host: str | None) -> bool:
    """A loopback address given by name (localhost), which resolves to ::1 as well as 127.0.0.1."""
    return host is not None and not classify_host(host).is_ip and classify_host(host).kind == LOOPBACK


def family_split_reading(refused: Finding, split: Finding, subject: Subject) -> list[Finding]:
    """A connection to localhost (by name) refused, no line saying on which address: the refusal is certain, and
    a broker bound to IPv4 only refusing the name's IPv6 address (::1, which many systems try first) is a reading."""
    confirm = str(refused.evidence.get("confirm") or "kdiag bootstrap localhost:9092")
    said = (f"No line says which of {subject.where}'s addresses was refused. {subject.host} resolves to ::1 and to "
            "127.0.0.1, and a broker listening on IPv4 only (listeners=PLAINTEXT://127.0.0.1:9092, or a container's "
            f"IPv4 port mapping) refuses ::1, which clients often try first. `{confirm}` decides: it connects to each "
            "address.")
    return [refused, hedged(split, OR, said, readings=[refused.id, split.id])]
