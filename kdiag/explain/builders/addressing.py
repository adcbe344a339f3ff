"""ADVERTISED_ADDRESS_FAMILY_SPLIT from a client's lines: a name refused on its IPv6 address only (certain for a loopback
name, which has 127.0.0.1 too; a reading for any other name)."""

from __future__ import annotations

from kdiag.diagnose.hosts import LOOPBACK, classify_host
from kdiag.diagnose.rule import finding
from kdiag.diagnose.wording import join_words
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding
from kdiag.report import Endpoint
from probes.hostport import hostport

def address_family_split(subject: Subject, context: Context) -> Finding:
    """ADVERTISED_ADDRESS_FAMILY_SPLIT: a loopback name refused on its IPv6 address only (the broker binds IPv4)."""
    from kdiag.diagnose.rules.addressing import split_fix

    endpoint = subject.endpoint or Endpoint("localhost", 9092)
    failing = list(subject.addresses) or ["::1"]
    where = hostport(endpoint.host, endpoint.port)
    loopback = classify_host(endpoint.host).kind == LOOPBACK
    ipv4 = "127.0.0.1" if loopback else "<its IPv4 address>"
    said = (f"{endpoint.host} resolves to {join_words(failing)} and to 127.0.0.1, and only the IPv6 address is refused: "
            "the broker listens on IPv4 only. librdkafka takes the next address on every reconnect, so every other "
            "connect fails (`1/1 brokers are down` in between), while kcat -L and a first produce may work: it looks "
            "like a flaky broker." if loopback else
            f"The client connected to {endpoint.host} on its IPv6 address {join_words(failing)} only, and that was "
            "refused: a name with both an AAAA and an A record, and a broker that listens on IPv4 only, refuse "
            "exactly so (clients that try one address per connect never reach the IPv4 one).")
    parts = [client_said(subject), said + consequence_sentence(context)]
    fix = split_fix(subject.protocol or context.protocol or "PLAINTEXT", endpoint.host, endpoint.port, ipv4,
                    ["IPv4"], ["IPv6"])
    confirm = context.confirm(fallback=endpoint)
    return finding("ADVERTISED_ADDRESS_FAMILY_SPLIT", "warning",
                   f"{where} accepts connections only on IPv4: its IPv6 address {join_words(failing)} is refused",
                   " ".join(parts), evidence(subject, context, confirm, tcp_status="refused", addresses=failing),
                   with_confirm(fix, confirm))
