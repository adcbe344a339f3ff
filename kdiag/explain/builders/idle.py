"""``explain`` for a request that got no answer on a connection that was up: most often an idle connection a
NAT, a load balancer or a firewall in the path forgot and now drops silently.

The client families' patterns report a :data:`~kdiag.explain.sightings.REQUEST_TIMEOUT` sighting: librdkafka's
``1 request(s) timed out: disconnect (after 240000ms in state UP)`` (with the connection's age) and its
``Timed out ProduceRequest in flight``, Java's ``Disconnected from node 1 due to timeout``.
:func:`idle_connection_dropped` turns them into the finding ``kdiag bootstrap --idle-check`` raises
(:mod:`kdiag.diagnose.rules.idle`), with that rule's fix for an idle limit the lines suggest, as the likely
reading: the words of a request that timed out are the same when the broker itself stopped answering in time.
"""

from __future__ import annotations

from kdiag.explain.readings import LIKELY, hedged
from kdiag.explain.sightings import HUNG_UP
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.subject import Context, Subject
from kdiag.explain.implied import rule_fix
from kdiag.finding import Finding, make_finding
from probes.results import IdleCheck

ASSUMED_IDLE_S = 240  # Azure's load balancer: the idle limit people meet most, when the lines do not bound it
LONGEST_IDLE_S = 600  # a connection up longer than this says nothing of how long it sat idle
BROKER_IDLE_S = 600  # the broker's connections.max.idle.ms by default (600000)


def idle_connection_dropped(subject: Subject, context: Context) -> Finding:
    up_ms = subject.first("up_ms")
    where = subject.where if subject.host else (f"broker {subject.node_id}" if subject.node_id is not None
                                                else "a broker")
    if subject.symptoms & HUNG_UP:
        return _closed_while_idle(subject, context, where)
    age = f" The connection had been up for {up_ms / 1000:g} s, so it sat idle for at most that long." if up_ms else ""
    meaning = (f"A request on a connection to {where} that was up got no answer before the client's timeout, and the "
               f"client gave up on the connection and reconnected.{age} Most often something in the path (a NAT "
               "gateway, a cloud load balancer, a stateful firewall) forgot the connection while it sat idle and now "
               "drops its packets without a reset: the request never reaches the broker, and the new connection "
               "works, until it too sits idle. Kafka clients keep connections idle for minutes (a consumer's "
               "coordinator, a producer to a quiet topic). Typical idle limits: Azure's load balancer 4 min "
               "(librdkafka's `after ~240000ms in state UP`), an AWS NAT gateway 350 s, Event Hubs 10 min. If the "
               "timeouts also come on busy connections, or for every client at once, the broker itself stopped "
               "answering in time instead (overloaded, a long pause, a disk stall): kdiag bootstrap --idle-check "
               "tells the two apart.")
    idle_s = round(up_ms / 1000) if up_ms and up_ms <= LONGEST_IDLE_S * 1000 else ASSUMED_IDLE_S
    implied = context.implied(subject, used=None if context.bootstrap else subject.endpoint,
                              idle=IdleCheck("timeout", max(1, idle_s)))
    fix = rule_fix(implied, "IDLE_CONNECTION_DROPPED")
    confirm = context.confirm(fallback=subject.endpoint)
    title = (f"Requests to {where} got no answer on an open connection: most often a NAT or load balancer "
             "dropped it while idle")
    built = make_finding("IDLE_CONNECTION_DROPPED", "error", title,
                         f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                         evidence(subject, context, confirm, connection_up_ms=up_ms), with_confirm(fix, confirm))
    return hedged(built, LIKELY, f"A request that timed out on an open connection does not say why by itself: a "
                  "connection the path dropped while idle is the usual cause, and a broker that stopped answering in "
                  f"time times out the same way, so this is the likely reading, not a certainty. `{confirm}` "
                  "--idle-check decides.", guess=subject.first("detail") or "request timed out")


def _closed_while_idle(subject: Subject, context: Context, where: str) -> Finding:
    """A connection that had carried requests, closed (not silently dropped) while it sat idle: the broker's own idle
    limit, or a load balancer's or NAT's that resets the connection."""
    meaning = (f"The connection to {where} had worked and was closed while it sat idle. The broker closes a connection "
               "idle longer than connections.max.idle.ms (600000 ms, 10 minutes, by default, since Kafka 0.10); a load "
               "balancer, NAT gateway or firewall in the path closes or resets one after its own idle timeout (Azure's "
               "load balancer 4 minutes, an AWS NAT gateway 350 s). A client that keeps the idle connection and does "
               "not notice the close writes its next request into it and gets a broken pipe, an EOF or a reset; one "
               "that reconnects only logs it. If it comes at a regular interval after quiet periods, that interval is "
               "the idle limit. The records of that request are retried on a new connection by most clients; a client "
               "that holds one connection for good (kafka-go's low-level Conn) fails until it is rebuilt.")
    implied = context.implied(subject, used=None if context.bootstrap else subject.endpoint,
                              idle=IdleCheck("timeout", BROKER_IDLE_S))
    fix = rule_fix(implied, "IDLE_CONNECTION_DROPPED")
    confirm = context.confirm(fallback=subject.endpoint)
    title = f"The connection to {where} was closed while it sat idle: the broker's or the path's idle limit"
    return make_finding("IDLE_CONNECTION_DROPPED", "error", title,
                        f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                        evidence(subject, context, confirm), with_confirm(fix, confirm))
