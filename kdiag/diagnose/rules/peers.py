"""Rules for peers that speak Kafka's framing but misbehave in time or size: a broker that starts an
answer and stalls (BROKER_STALLED), one that closes the connection mid-conversation
(BROKER_CLOSED_CONNECTION), one whose answer is larger than any real one (RESPONSE_TOO_LARGE).

The probe records what happened as ``KafkaCheck.foreign`` of kind ``stalled``, ``closed`` or
``too_large`` (``probes.kafka``), with the bytes and seconds; these rules read that, on the bootstrap
address and on every advertised broker (``rules.protocol.probed``). A TLS handshake that timed out
(``TlsResult.status == "timeout"``) is a stall too.
"""

from __future__ import annotations

from collections.abc import Callable

from kdiag.diagnose.facts import hostport
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.protocol import Probed, probed
from kdiag.finding import Finding
from kdiag.report import Report
from probes.results import KafkaCheck


def _where(target: Probed) -> str:
    return target.label[0].upper() + target.label[1:]


def _per_endpoint(kind: str, build: Callable[[Probed, str], Finding]) -> Callable[[Report], tuple[Finding, ...]]:
    def check(report: Report) -> tuple[Finding, ...]:
        return tuple(build(target, target.kafka.foreign.description) for target in probed(report)
                     if target.kafka.foreign is not None and target.kafka.foreign.kind == kind)

    return check


def _about(target: Probed, finding_id: str, title: str, explanation: str, said: str, fix: str) -> Finding:
    """A finding on one endpoint: ``said`` (what the probe saw) as evidence, and how to confirm the fix."""
    confirm = f"kdiag bootstrap {hostport(target.endpoint.host, target.endpoint.port)} --timeout 30"
    return finding(finding_id, "error", f"{_where(target)} {title}", explanation,
                   {**target.evidence, "what": said}, f"{fix} Then confirm:\n  {confirm}")


def _stalled_everywhere(report: Report) -> tuple[Finding, ...]:
    """Kafka answers that stalled, and TLS handshakes that never finished (a server that sent the start
    of a record, or nothing, and then held the connection)."""
    from kdiag.diagnose.rules.tls import tls_targets

    found = list(_per_endpoint("stalled", _stalled)(report))
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


def _closed(target: Probed, said: str) -> Finding:
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


def _too_large(target: Probed, said: str) -> Finding:
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


RULES = (
    Rule("BROKER_STALLED", "A broker started to answer, then stalled", "error", _stalled_everywhere),
    Rule("BROKER_CLOSED_CONNECTION", "A broker closed the connection in the middle of the conversation", "error",
         _per_endpoint("closed", _closed)),
    Rule("RESPONSE_TOO_LARGE", "A broker answered with a response larger than any real one", "error",
         _per_endpoint("too_large", _too_large)),
)
