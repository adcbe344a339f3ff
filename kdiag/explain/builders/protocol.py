"""NOT_KAFKA from a client's lines: the first bytes back, read as a Kafka response size, make no sense."""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.explain.implied import rule_fix
from kdiag.explain.readings import OTHER_SERVICES
from kdiag.explain.sightings import ZOOKEEPER
from kdiag.explain.shared import client_said, consequence_sentence, evidence, secured, with_confirm
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding
from probes.results import ForeignBytes, KafkaCheck

def not_kafka(subject: Subject, context: Context) -> Finding:
    detail = subject.first("detail") or ""
    speaks = "HTTP" if detail.endswith("HTTP") else "SSH" if detail.endswith("SSH") else None
    foreign = ForeignBytes(speaks.lower() if speaks else "text", speaks or "bytes that do not frame as Kafka",
                           speaks or "")
    fix = rule_fix(secured(subject, context, kafka=KafkaCheck("not_kafka", foreign=foreign)), "NOT_KAFKA")
    if subject.clients and subject.clients[0] == ZOOKEEPER:  # the other server's own log, about what a client sent
        explanation = (f"{client_said(subject)} That is ZooKeeper's side of the connection: {detail.split(': ')[0]}. "
                       f"The client's bootstrap address ({subject.where}) is that server's port, not a Kafka "
                       f"listener's.{consequence_sentence(context)}")
    else:
        service = f" ({subject.port} is {OTHER_SERVICES[subject.port]})" if subject.port in OTHER_SERVICES else ""
        explanation = (f"{client_said(subject)} The first four bytes that came back, read as a Kafka response size, "
                       f"make no sense ({detail}): the port at {subject.where} speaks {speaks or 'another protocol'}, "
                       f"not Kafka{service}.{consequence_sentence(context)}")
    confirm = context.confirm(fallback=subject.endpoint)
    return finding("NOT_KAFKA", "error", f"{subject.where} does not answer in Kafka's protocol"
                   + (f": it speaks {speaks}" if speaks else ""), explanation, evidence(subject, context, confirm),
                   with_confirm(fix, confirm))
