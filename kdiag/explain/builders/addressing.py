"""ADVERTISED_ADDRESS_FAMILY_SPLIT from a client's lines: a name refused on its IPv6 address only (certain for a loopback
name, which has 127.0.0.1 too; a reading for any other name)."""

from __future__ import annotations

from kdiag.diagnose.hosts import LOOPBACK, classify_host
from kdiag.diagnose.rule import finding
from kdiag.diagnose.wording import join_words
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.sightings import GO, JAVA, KAFKAJS, LIBRDKAFKA, TOOL
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding
from kdiag.report import Endpoint
from probes.hostport import hostport

# What each family does with a name's other addresses once one is refused: what the paste's client will do next, in
# its own terms (family_split.ONE_ADDRESS_CLIENTS: the families whose line names one address and says nothing of the others).
_NEXT_ADDRESS = {
    LIBRDKAFKA: ("librdkafka takes the next address on every reconnect, so every other connect fails (`1/1 brokers are "
                 "down` in between), while kcat -L and a first produce may work: it looks like a flaky broker."),
    KAFKAJS: ("kafkajs connects through Node's net.connect, which tries only the first address the name resolves to "
              "(unless Node's autoSelectFamily tries them all), so every connect goes to the refused IPv6 address."),
    GO: ("Go's dialer tries the name's addresses in turn and reports the first error of those it tried, so the line "
         "names the IPv6 address and does not say what the IPv4 one answered."),
    JAVA: ("The Java client tries each address of the name in turn since 2.1 with client.dns.lookup=use_all_dns_ips "
           "(the default from 2.6); with the older default it connects to the first address only, and every connect "
           "fails."),
    TOOL: ("The connection test (telnet, nc, curl) tries the name's addresses in turn and prints each attempt: a "
           "Kafka client that tries one address per connect fails where the test went on to the IPv4 address."),
}
_ANY_CLIENT = ("Clients differ in what they do next: some take the next address on a reconnect (every other connect "
               "fails), some try only the first address (every connect fails).")


def next_address(subject: Subject) -> str:
    """What the paste's client does with the name's other addresses, or the same said of clients in general."""
    return next((_NEXT_ADDRESS[c] for c in subject.clients if c in _NEXT_ADDRESS), _ANY_CLIENT)


def address_family_split(subject: Subject, context: Context) -> Finding:
    """ADVERTISED_ADDRESS_FAMILY_SPLIT: a loopback name refused on its IPv6 address only (the broker binds IPv4)."""
    from kdiag.diagnose.rules.addressing import split_fix

    endpoint = subject.endpoint or Endpoint("localhost", 9092)
    failing = list(subject.addresses) or ["::1"]
    where = hostport(endpoint.host, endpoint.port)
    loopback = classify_host(endpoint.host).kind == LOOPBACK
    ipv4 = "127.0.0.1" if loopback else "<its IPv4 address>"
    said = (f"{endpoint.host} resolves to {join_words(failing)} and to 127.0.0.1, and the lines show only the IPv6 "
            "address refused: a broker that listens on IPv4 only refuses exactly so." if loopback else
            f"The client connected to {endpoint.host} on its IPv6 address {join_words(failing)} only, and that was "
            "refused: a name with both an AAAA and an A record, and a broker that listens on IPv4 only, refuse "
            "exactly so.")
    said = f"{said} {next_address(subject)}"
    parts = [client_said(subject), said + consequence_sentence(context)]
    fix = split_fix(subject.protocol or context.protocol or "PLAINTEXT", endpoint.host, endpoint.port, ipv4,
                    ["IPv4"], ["IPv6"])
    confirm = context.confirm(fallback=endpoint)
    return finding("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning",
                   f"{where} accepts connections only on IPv4: its IPv6 address {join_words(failing)} is refused",
                   " ".join(parts), evidence(subject, context, confirm, tcp_status="refused", addresses=failing),
                   with_confirm(fix, confirm))
