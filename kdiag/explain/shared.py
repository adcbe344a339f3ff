"""The words every explain finding shares: the quote of the client's own words, the sentence about the lines
that follow from the cause, the evidence, the fix followed by the ``kdiag bootstrap`` command that confirms
it, and the implied report around one connection's TLS handshake, SASL exchange or Kafka answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kdiag.diagnose.hosts import classify_host
from kdiag.diagnose.wording import join_words
from kdiag.explain.implied import Implied, broker
from kdiag.explain.observations import MAX_EXAMPLES, Group, message_of
from kdiag.explain.sightings import BROKER_ROLES, UNKNOWN
from kdiag.explain.subject import BOOTSTRAP_HOST, Context, Subject
from kdiag.report import BrokerReport
from probes.results import KafkaCheck, SaslResult, TlsResult

CLIENT_NAMES = {"librdkafka": "librdkafka", "java": "the Java client", "kafkajs": "kafkajs", "go": "the Go client",
                "kafka-python": "kafka-python", "aiokafka": "aiokafka", "broker": "the broker", "zookeeper": "ZooKeeper", "other": "the client",
                "any": "the client", "openssl": "openssl s_client",
                "tool": "the connection test (telnet, nc or curl)"}

_THIS_MACHINE = "(In the fix below, \"this machine\" is the client's machine, where the log comes from.)"


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
    said = quote(subject)
    windows = (" (`Unknown error` is a refused connect on Windows: librdkafka words it with the C runtime's strerror, "
               "which names no Winsock code.)" if subject.status == "refused" and "failed: Unknown error" in said else "")
    return f"{who} logged `{said}`{times}.{windows}"


def consequence_sentence(context: Context) -> str:
    if not context.consequences:
        return ""
    said = "; ".join(dict.fromkeys(f"`{quote(g)}`" for g in _one_per_line(context.consequences)[:3]))
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
                                for g in _one_per_line(context.consequences)[:MAX_EXAMPLES]]
    data["confirm"] = confirm
    return data


def _one_per_line(groups: Sequence[Group]) -> list[Group]:
    """The consequences, each line once: one line can say two (kcat's ``Failed to acquire metadata: Local: Broker
    transport failure`` is a metadata request failed and no broker up)."""
    first: dict[int, Group] = {}
    for group in groups:
        if group.examples:
            first.setdefault(group.examples[0][0], group)
    return list(first.values())


def with_confirm(fix: str, confirm: str) -> str:
    """The rule's fix, then the command that confirms the finding (unless the fix already ends with one)."""
    if "this machine" in fix:
        fix = f"{_THIS_MACHINE}\n\n{fix}"
    if "kdiag bootstrap" in fix:
        return fix
    tail = f"Confirm it from the client's machine:\n  {confirm}"
    return f"{fix.rstrip()}\n\n{tail}" if fix else tail


def at_start(subject: Subject) -> str:
    """``subject.where`` at the start of a title: a host name as written (b-1.demo..., not B-1.demo...)."""
    where = subject.where
    return where if subject.host is not None else where[0].upper() + where[1:]


def named_broker(subject: Subject) -> str:
    return f"Broker {subject.node_id}" if subject.node_id is not None else "A broker"


def from_metadata_sentence(subject: Subject, context: Context) -> str:
    used = f" through {context.bootstrap_text()}" if context.bootstrap else ""
    node = f"broker {subject.node_id}" if subject.node_id is not None else "a broker"
    how = f" ({subject.role_from})" if subject.role_from else ""
    return (f"The client got this address from the cluster's metadata{how}: the bootstrap connection{used} worked, "
            f"and the cluster told it to reach {node} at {subject.where}. It sends every produce and fetch for the "
            "partitions that broker leads there, which is why `kcat -L` looks fine while producing and consuming "
            "fail.")


def advertised_broker(subject: Subject, **checks: Any) -> BrokerReport:
    return broker(subject.node_id, subject.host or "<advertised host>", subject.port or 9092, **checks)


def secured(subject: Subject, context: Context, *, tls: TlsResult | None = None, sasl: SaslResult | None = None,
             kafka: KafkaCheck | None = None, **facts: Any) -> Implied:
    """The implied report with one endpoint's TLS handshake, SASL exchange or Kafka answer: the
    bootstrap's, or an advertised broker's (the bootstrap then did what the client asked)."""
    if subject.role in BROKER_ROLES and subject.host is not None:
        ok_tls = TlsResult("ok") if tls is not None else None
        ok_sasl = SaslResult("ok") if sasl is not None else None
        target = advertised_broker(subject, tls=tls, sasl=sasl, kafka=kafka.status if kafka else "ok")
        return context.implied(subject, brokers=[target], tls=ok_tls, sasl=ok_sasl, **facts)
    return context.implied(subject, tls=tls, sasl=sasl, kafka=kafka or KafkaCheck("ok"), **facts)


def tls_where(subject: Subject) -> dict[str, Any]:
    return {"host": subject.host or BOOTSTRAP_HOST, "port": subject.port or 9092}
