"""Rules for peers that speak Kafka's framing but misbehave in time or size: a broker that starts an
answer and stalls (BROKER_STALLED), one that closes the connection mid-conversation
(BROKER_CLOSED_CONNECTION), one whose answer is larger than any real one (RESPONSE_TOO_LARGE).

The probe records what happened as ``KafkaCheck.foreign`` of kind ``stalled``, ``hung`` (no answer at all,
and no reaction when kdiag closed its side: the process is not reading), ``closed`` or ``too_large``
(``probes.kafka``), with the bytes and seconds; these rules read that, on the bootstrap
address and on every advertised broker (``rules.protocol.probed``). A TLS handshake that timed out
(``TlsResult.status == "timeout"``) is a stall too.
"""

from __future__ import annotations

from collections.abc import Callable

from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.protocol import Probed, probed
from kdiag.finding import Finding
from kdiag.report import Report
from probes.hostport import hostport
from probes.results import ForeignBytes, KafkaCheck


def _where(target: Probed) -> str:
    return target.label[0].upper() + target.label[1:]


def _per_endpoint(kind: str, build: Callable[[Probed, ForeignBytes], Finding]
                  ) -> Callable[[Report], tuple[Finding, ...]]:
    def check(report: Report) -> tuple[Finding, ...]:
        return tuple(build(target, target.kafka.foreign) for target in probed(report)
                     if target.kafka.foreign is not None and target.kafka.foreign.kind == kind)

    return check


def _said(build: Callable[[Probed, str], Finding]) -> Callable[[Probed, ForeignBytes], Finding]:
    """A builder that needs only the probe's words (``ForeignBytes.description``), as ``_per_endpoint`` calls it."""
    return lambda target, foreign: build(target, foreign.description)


def _about(target: Probed, finding_id: str, title: str, explanation: str, said: str, fix: str, *,
           severity: str = "error") -> Finding:
    """A finding on one endpoint: ``said`` (what the probe saw) as evidence, and how to confirm the fix."""
    confirm = f"kdiag bootstrap {hostport(target.endpoint.host, target.endpoint.port)} --timeout 30"
    return finding(finding_id, severity, f"{_where(target)} {title}", explanation,
                   {**target.evidence, "what": said}, f"{fix} Then confirm:\n  {confirm}")


def _stalled_everywhere(report: Report) -> tuple[Finding, ...]:
    """Kafka answers that stalled, and TLS handshakes that never finished (a server that sent the start
    of a record, or nothing, and then held the connection)."""
    from kdiag.diagnose.rules.tls import tls_targets

    found = [*_per_endpoint("stalled", _said(_stalled))(report), *_per_endpoint("hung", _said(_not_reading))(report)]
    for target in tls_targets(report):
        result = target.tls
        if result is None or result.status != "timeout":
            continue
        received = f" after receiving `{result.received}`" if result.received else " with nothing received"
        said = f"the TLS handshake did not finish{received}: {result.error or 'timed out'}"
        found.append(_stalled(Probed(target.endpoint, KafkaCheck("skip"), target.node_id), said))
    return tuple(found)


def _stalled(target: Probed, said: str) -> Finding:
    return _about(
        target, "BROKER_STALLED", "started to answer, then stalled",
        f"The connection is up and the peer began a Kafka answer, but it did not finish within the time kdiag "
        f"allowed: {said}. A Kafka broker answers in milliseconds; a client waits for request.timeout.ms (30 s by "
        "default) and then reconnects, over and over, reporting timeouts rather than the cause. Usual causes: an "
        "overloaded or hung broker (GC pauses, a full disk, a stuck request handler), a proxy or load balancer "
        "that accepts connections it cannot forward, or a path that drops large packets (an MTU black hole: "
        "small requests pass, the larger answer never arrives).",
        said,
        "Check the broker's health (its server.log, GC log, request-handler idle ratio) and the path to it: "
        "ping -M do -s 1472 <host> shows an MTU problem.")


def _not_reading(target: Probed, said: str) -> Finding:
    return _about(
        target, "BROKER_STALLED", "accepted the connection, but the process behind it is not reading",
        f"The TCP handshake completes, so the port looks open, but there was {said}. The handshake is the work of "
        "the kernel of the broker's host, not of the broker, and a running server of any protocol notices at once "
        "when its client closes the connection: this one is not reading its sockets at all, frozen (a "
        "long stop-the-world GC pause, a process stopped with SIGSTOP or by a debugger, a paused VM or container) "
        "or hung (deadlocked network threads, a full disk). A running broker that has reached a connection limit "
        "of a listener (max.connections, listener.name.<listener>.max.connections: KIP-402) looks the same: it "
        "stops accepting, and the kernel queues new connections unread until one closes. A client sees its "
        "connection set up and then waits for "
        "request.timeout.ms (30 s by default), reconnects and waits again, reporting timeouts rather than the "
        "cause. A broker frozen longer than broker.session.timeout.ms (9 s by default) is fenced by the controller.",
        said,
        "On the broker's host, look at the process that owns the port (ss -ltnp 'sport = :<port>'): a state of T "
        "in ps -o stat= -p <pid> means it was stopped (kill -CONT <pid> resumes it); otherwise its GC log for "
        "long pauses, jstack <pid> for stuck network or request-handler threads, and the end of its server.log. "
        "If the process runs and answers other clients, compare its open connections on that listener with "
        "max.connections (kafka-configs.sh --bootstrap-server <broker> --entity-type brokers --entity-name <id> "
        "--describe --all | grep max.connections). Restart it if it stays hung.")


def _closed(target: Probed, said: str) -> Finding:
    if target.kafka.api_versions_version is None:
        return _rejected(target, said)
    return _about(
        target, "BROKER_CLOSED_CONNECTION", "closed the connection in the middle of the conversation",
        f"The peer accepted the connection and then closed it instead of answering: {said}. A broker closes a "
        "connection on a request it will not serve (one it cannot parse, or one a listener needing authentication "
        "will not take before it); a proxy closes what it cannot forward; a broker that is shutting down or "
        "crashing closes everything. Clients report a disconnect and retry without end.",
        said,
        "Look in the broker's server.log at the time of the run for the reason it closed the connection "
        "(\"Unexpected error from /<client>\", \"Failed authentication\", a shutdown); if a proxy or load balancer "
        "sits in front, check its log and its backend health.")


def _rejected(target: Probed, said: str) -> Finding:
    """Closed before answering ApiVersions, which a Kafka broker answers on every listener, before any
    authentication and at any version: a connection turned away as it was accepted."""
    return _about(
        target, "BROKER_CLOSED_CONNECTION", "accepted the connection, then closed it without answering",
        f"kdiag connected and sent ApiVersions, the first request every Kafka client sends and one a broker answers "
        f"on every listener, before any authentication and at any version; the peer closed the connection instead: "
        f"{said}. A Kafka broker turns a connection away like this as it accepts it when the client's IP address "
        "already holds the broker's maximum number of connections, max.connections.per.ip (or that address's entry "
        "in max.connections.per.ip.overrides; 0 there blocks it): its server.log says `Rejected connection from "
        "/<IP>, address already has the configured maximum of N connections`. Every client on the same host, or "
        "behind the same NAT or proxy address, counts against that one limit. A connection-rate quota on the "
        "address (connection_creation_rate) closes new connections too, after a delay. A proxy whose backend is down "
        "(a published Docker port whose container is not listening, a load balancer with no healthy target) does "
        "the same. Clients log a disconnect and reconnect without end.",
        said,
        "Look in the broker's server.log for `Rejected connection from /<your address>`. If it is there, find "
        "what holds that many connections from the address (ss -tn state established '( sport = :<port> )' on the "
        "broker counts them), or raise the limit for it, at once and on every broker (KIP-308: no restart):\n"
        "  kafka-configs.sh --bootstrap-server <a broker> --entity-type brokers --entity-default --alter \\\n"
        "    --add-config 'max.connections.per.ip.overrides=[<address>:<N>]'\n"
        "(the list replaces the one set before: keep its entries), or max.connections.per.ip for every address "
        "(in server.properties, or KAFKA_MAX_CONNECTIONS_PER_IP for Docker). kafka-configs.sh --describe "
        "--entity-type ips shows a connection_creation_rate quota. If nothing is logged, the connection never "
        "reached a broker: check the proxy or published port in front of it.")


def _too_large(target: Probed, foreign: ForeignBytes) -> Finding:
    said = foreign.description
    if foreign.request == "Metadata" and target.node_id is None:  # the bootstrap, asked for every topic
        return _metadata_of_fewer_topics(target, said) if target.kafka.ok else _metadata_too_large(target, said)
    return _about(
        target, "RESPONSE_TOO_LARGE", "answered with a response larger than any real one",
        f"The peer's answer declared a size no Kafka broker sends for that request: {said}. kdiag refused it "
        "unread, as it bounds what it buffers (SECURITY.md lists the limits). A real broker's ApiVersions answer is a "
        "few kilobytes; this is a broken or hostile peer, or a different protocol whose first bytes read as a huge "
        "size. A Java client would try to allocate it (java.lang.OutOfMemoryError), librdkafka gives up with "
        "'Invalid response size'.",
        said,
        "Find out what listens on that address (ss -ltnp on its host, or the proxy in front of it) and point the "
        "client at the Kafka listener.")


def _metadata_too_large(target: Probed, said: str) -> Finding:
    """A Metadata answer over kdiag's cap: kdiag asks for every topic, so a real cluster with some hundreds of
    thousands of partitions can send one this size; so can a peer that is not a broker."""
    return _about(
        target, "RESPONSE_TOO_LARGE", "answered Metadata with more than kdiag reads",
        f"The answer to kdiag's Metadata request (every topic's partitions, as a client asks when it starts) "
        f"declared a size over kdiag's cap: {said}. kdiag refused it unread, as it bounds what it buffers "
        "(SECURITY.md lists the limits). A real cluster with some hundreds of thousands of partitions answers "
        "that much, and its clients pay for it too (every client that asks for all topics' metadata); a peer "
        "that is not a Kafka broker can also declare a huge size. Its answer to ApiVersions came "
        "first, so this peer speaks Kafka's framing; kdiag's second request, on a fresh connection for "
        "__consumer_offsets alone, got no answer it could use either.",
        said,
        "If the cluster is that large, this is not a connectivity fault: kdiag cannot show the advertised brokers; "
        "check them from a client with topic-scoped metadata, and consider fewer partitions per cluster. "
        "Otherwise find out what listens on that address (ss -ltnp on its host, or the proxy in front of it).")


def _metadata_of_fewer_topics(target: Probed, said: str) -> Finding:
    """The answer for every topic was over kdiag's cap, and the same broker then answered for
    ``__consumer_offsets`` alone (``kdiag.orchestrate``): a very large real cluster, checked without its topics."""
    return _about(
        target, "RESPONSE_TOO_LARGE", "answered Metadata for every topic with more than kdiag reads",
        f"The answer to kdiag's Metadata request for every topic declared a size over kdiag's cap: {said}. A real "
        "cluster with some hundreds of thousands of partitions answers that much. kdiag refused it unread (it "
        "bounds what it buffers, SECURITY.md) and asked again for __consumer_offsets alone, which the broker "
        "answered: the advertised brokers below are checked from that answer, each broker's identity through the "
        "partitions of __consumer_offsets it leads. What kdiag did not see is every topic's partitions: offline "
        "or under-replicated partitions outside __consumer_offsets are not checked. Every client that asks for "
        "all topics' metadata (admin tools, kafka-topics.sh --describe without --topic) pays this size too.",
        said,
        "Nothing to change for connectivity. To check a topic's partitions, name it: kafka-topics.sh "
        "--bootstrap-server <broker> --describe --topic <topic>. Consider fewer partitions per cluster.",
        severity="warning")


RULES = (
    Rule("BROKER_STALLED", "A broker started to answer, then stalled", "error", _stalled_everywhere),
    Rule("BROKER_CLOSED_CONNECTION", "A broker closed the connection in the middle of the conversation", "error",
         _per_endpoint("closed", _said(_closed))),
    Rule("RESPONSE_TOO_LARGE", "A broker answered with a response larger than any real one", "error",
         _per_endpoint("too_large", _too_large)),
)
