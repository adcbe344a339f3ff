"""The readings of a connection the broker closed with no reason given (Sarama's and kafka-go's ``EOF``, kafkajs's
``Closed connection``, Java's ``Bootstrap broker ... disconnected``, a reset): each security setting that ends that way
is a reading, steered by what the paste shows of the client's settings and the listener (``closed_connection``)."""

from __future__ import annotations

import re

from kdiag.diagnose.wording import join_words
from kdiag.explain.connection_age import FIRST, IDLE, USED, WROTE, idle_words
from kdiag.explain.observations import Facts
from kdiag.explain.readings import LIKELY, MAYBE, hedged
from kdiag.explain.sightings import ANY, CERT_NAME, CERT_UNTRUSTED, GO, HUNG_UP, TLS_ON_PLAINTEXT
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding


# The client's words say it was asking for the broker's versions when the broker hung up (rskafka's "cannot sync
# versions", librdkafka's state APIVERSION_QUERY, an ApiVersions request named): a broker before 0.10 does not know
# ApiVersions and closes the connection on it. Go's io.ErrUnexpectedEOF ("unexpected EOF") is an answer that ended
# before the client read all it expected: cut off, or in an older broker's format the client does not read.
_VERSION_EXCHANGE = re.compile(r"sync versions|api_?versions?(?:_?request| query)?\b|APIVERSION_QUERY|"
                               r"\bnegotiat\w* (?:the )?(?:api )?versions?|\bunexpected EOF\b", re.IGNORECASE)


def closing_readings(facts: Facts, client: str = "", words: str = "", used: str | None = FIRST) -> list[str]:
    """The causes a connection closed with no reason fits, most likely first, steered by the client's settings
    the paste shows: TLS on, the listener is most likely plaintext (the handshake's ClientHello is read as a
    request and dropped); a client that authenticates is refused, or asks for a mechanism the listener does not
    enable, not missing SASL. A Go client (Sarama, segmentio, franz-go) or a line any client prints (a bare EOF, a
    reset) says the same words whichever side spoke TLS: with no TLS setting in the paste, a TLS client at a plaintext
    listener is a reading too. ``words`` (the client's lines) saying it was asking for the broker's versions add an
    older broker's reading (``_VERSION_EXCHANGE``). What the lines show of the connection's age (``used``,
    ``connection_age.after_use``) places the idle reading: a connection that had carried requests (USED) was closed
    while idle, or by a broker that went away, for no security mismatch ends a connection that worked; a write into a
    closed socket (WROTE) is most likely that, before the others; lines that do not say (None) add it after them."""
    if used == USED:
        return [IDLE, "BROKER_CLOSED_CONNECTION"]
    if used == WROTE:
        return [IDLE, *[i for i in closing_readings(facts, client, words) if i != IDLE]]
    idle = [IDLE] if used is None else []
    sasl = ["SASL_AUTH_FAILED", "SASL_MECHANISM_MISMATCH"] if facts.sasl else ["SASL_REQUIRED"]
    older = ["BROKER_TOO_OLD"] if _VERSION_EXCHANGE.search(words) else []
    if facts.tls:
        return ["TLS_UNEXPECTED", *sasl, *older, *idle, "BROKER_CLOSED_CONNECTION"]
    either_way = ["TLS_UNEXPECTED"] if facts.tls is None and client in (GO, ANY) else []
    first = [*sasl, "TLS_EXPECTED"] if facts.tls is False or facts.sasl else ["TLS_EXPECTED", *sasl]
    return [*first, *either_way, *older, *idle, "BROKER_CLOSED_CONNECTION"]


def closed_connection(subject: Subject, context: Context, built: dict[str, Finding], used: str | None = FIRST
                      ) -> list[Finding]:
    """The broker hung up and the client says no more: each security mismatch that ends so is a reading. With the
    client's TLS switch on in the paste, TLS_UNEXPECTED is the likely one; with lines that show the connection had
    carried requests (``used``), the idle close is."""
    ids = list(built)
    confirm = context.confirm(fallback=subject.endpoint)
    if used == USED:
        words = (f"{idle_words(USED)} A broker that restarted or went away ends such a connection the same way "
                 f"(BROKER_CLOSED_CONNECTION). `{confirm} --idle-check 660` on the client's machine holds a connection "
                 "idle past the broker's 10 minutes and says whether it is closed or dropped.")
        return [hedged(finding_, LIKELY if finding_.id == IDLE else MAYBE, words, readings=ids)
                for finding_ in built.values()]
    likely, why = listener_hints(subject, context.facts)
    likely &= set(ids)
    verb = "is the likely reading" if len(likely) == 1 else "are the likely readings"
    settings = f" {why}, so {join_words(sorted(likely))} {verb}." if likely else ""
    likely |= {IDLE} if used == WROTE else set()
    first = [i for i in ids if i != IDLE]
    idle = f" {idle_words(used)}" if IDLE in ids else ""
    words = ("The client says only that the broker closed the connection, and at a connection's first request a "
             f"listener does that for more than one reason: {join_words(first)} each end the same way.{idle}{settings} "
             f"`{confirm}` on the client's machine decides (it reads the listener's first answer itself).")
    return [hedged(finding_, LIKELY if finding_.id in likely else MAYBE, words, readings=ids)
            for finding_ in built.values()]


# Managed services whose listeners are known by port: MSK's TLS (9094), SASL/SCRAM (9096) and IAM (9098) listeners
# all speak TLS, the latter two SASL; Confluent Cloud's only listener is SASL_SSL.
_MANAGED_PORTS = {9094: ("TLS_EXPECTED",), 9096: ("TLS_EXPECTED", "SASL_REQUIRED"), 9098: ("TLS_EXPECTED", "SASL_REQUIRED")}


def listener_hints(subject: Subject, facts: Facts) -> tuple[set[str], str]:
    """The closed-connection readings the paste makes likely, and why: the client's TLS switch on (a plaintext
    listener dropped the handshake), the broker's side showing a SASL or TLS listener, or a managed service's
    address whose listeners are known."""
    if facts.tls:
        return {"TLS_UNEXPECTED"}, "The paste shows the client's TLS switch on"
    likely: set[str] = set()
    reasons = []
    host = (subject.host or "").lower()
    if host.endswith(".confluent.cloud"):
        likely |= {"TLS_EXPECTED", "SASL_REQUIRED"}
        reasons.append("Confluent Cloud's listeners are SASL_SSL")
    elif host.endswith(".amazonaws.com") and subject.port in _MANAGED_PORTS:
        likely |= set(_MANAGED_PORTS[subject.port])
        reasons.append(f"an MSK listener on port {subject.port} speaks {'SASL over TLS' if subject.port != 9094 else 'TLS'}")
    if facts.listener_sasl:
        likely.add("SASL_REQUIRED")
        reasons.append("the broker's side of the paste shows a SASL listener")
    if facts.listener_tls and facts.tls is None:
        likely.add("TLS_EXPECTED")
        reasons.append("the broker's side of the paste shows a TLS listener")
    if facts.sasl and "SASL_REQUIRED" in likely:  # a client that authenticates is refused, not missing SASL
        likely = (likely - {"SASL_REQUIRED"}) | {"SASL_AUTH_FAILED"}
    if facts.tls is False:
        likely.discard("TLS_UNEXPECTED")
    said = join_words(reasons)
    return likely, said[:1].upper() + said[1:]


CLOSING = HUNG_UP
"""The consequences that say only the broker hung up."""


def handshake_cut_after_a_certificate(subject: Subject, subjects: list[Subject]) -> bool:
    """A TLS handshake that ended in an EOF (``unexpected eof while reading``: the peer hung up) at an endpoint whose
    certificate another line of the paste shows (it failed verification): that endpoint speaks TLS, so the EOF is a
    retry cut off, a consequence, not a plaintext listener (TLS_UNEXPECTED)."""
    if subject.symptoms != {TLS_ON_PLAINTEXT} or not all("eof" in (g.first.detail or "").lower()
                                                         for g in subject.groups):
        return False
    where = (subject.host, subject.port)
    return any(other.symptoms & {CERT_UNTRUSTED, CERT_NAME} and (other.host, other.port) == where
               for other in subjects if other is not subject)
