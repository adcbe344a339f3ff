"""What a closed connection's lines say of its age: closed at its first exchange (a listener turning the client's
security away, an older broker hanging up on ApiVersions), or after it had carried requests (the broker's, or a load
balancer's, idle limit), or neither.

A connection that worked and then sat idle is closed by the broker itself after ``connections.max.idle.ms`` (600000
ms, 10 minutes, by default; KAFKA-1282, Kafka 0.10) and by a load balancer or NAT after its own idle timeout (Azure's 4
minutes). A client that keeps the idle connection (kafka-python before ``connections_max_idle_ms``, Sarama,
segmentio/kafka-go's ``Conn``) writes its next request into the closed socket and says only that the connection broke.
The words that show the connection had been used, each from its library's source:

- a *write* that fails with ``broken pipe`` / ``EPIPE``: the kernel says the peer had already closed the socket, which
  a client's first request does not meet (it writes, then reads the hang-up as EOF or a reset; only a request written
  after the listener hung up on the one before does): Go's ``write tcp a->b: write: broken pipe``, Node's ``write
  EPIPE``, Python's ``BrokenPipeError``/``[Errno 32] Broken pipe``, Ruby's ``Errno::EPIPE``: most likely, not certainly;
- segmentio/kafka-go's ``error writing messages to <topic> (partition N)``: a produce to a partition's leader, after
  the metadata that named it;
- Sarama's ``kafka: broker not connected`` (``ErrNotConnected``, broker.go: a send on a broker whose connection was
  closed before it) in its producer's ``producer/broker/N state change to [closing] because ...``;
- the Java client's ``Cancelled in-flight PRODUCE request ... due to node 1 being disconnected`` (a produce, or a
  metadata refresh, on a broker's connection);
- librdkafka's ``(after Nms in state UP)`` of a minute or more;
- the same close again and again, minutes apart by the lines' own timestamps (``timestamps``): every 10 minutes is the
  broker's connections.max.idle.ms.

The words of a first exchange: a dial or a connection being opened, a TLS or SASL handshake, the ApiVersions exchange,
a seed or bootstrap connection (Sarama's ``broker -1``, Java's node -1, kafka-python's ``node_id=bootstrap``), and a
client whose retries, each on a new connection, were closed too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kdiag.explain.observations import Group
from kdiag.explain.sightings import ALL_DOWN, BOOTSTRAP, HUNG_UP, NO_NODE

IDLE = "IDLE_CONNECTION_DROPPED"

USED, WROTE, FIRST = "used", "wrote", "first"
"""What the lines say of the closed connection: it had carried requests; a write met a socket the other side had
closed (most likely one that had worked, or a request written after the listener hung up on the one before); it was
closed at its first exchange. None: they do not say."""

# a produce or a send named on a connection the client had been using
_USED = re.compile(r"error writing messages to \S+ \(partition \d+\)|producer/broker/\d+ state change to \[closing\] "
                   r"because kafka: broker not connected|\bkafka: broker not connected\b|"
                   r"Cancelled in-flight (?:PRODUCE|METADATA) request with correlation id \d+ due to node \d+",
                   re.IGNORECASE)
_WROTE = re.compile(r"write: broken pipe|\bwrite EPIPE\b|Errno::EPIPE|BrokenPipeError|\[Errno 32\] Broken pipe|"
                    r"^broken pipe$", re.IGNORECASE | re.MULTILINE)
_UP_MS = re.compile(r"after (?P<ms>\d+)ms in state UP")
UP_FOR_MS = 60000  # librdkafka's connection age past which a close is not the first exchange's
REPEATED = 3  # the same close this many times: each new connection was closed too, which an idle close is not
QUIET_S = 120  # closes at least this far apart, each time: a connection that worked in between, then sat idle

_FIRST_EXCHANGE = re.compile(
    r"\bdial(?:ing|ed)?\b|failed to (?:open )?connect(?:ion)?\b|connect(?:ing)? to\b|open(?:ing)? (?:a )?connection|"
    r"handshake|api_?versions?|APIVERSION_QUERY|sync versions|authenticat|\bseed\b|broker -1\b|node -1\b|"
    r"node_id=bootstrap|Bootstrap broker|"
    # every broker tried failed (Sarama's ErrOutOfBrokers): an idle close is followed by a reconnect that works
    r"run out of available brokers", re.IGNORECASE)


def _words(groups: Iterable[Group]) -> str:
    return "\n".join("\n".join([g.first.detail or "", *(text for _, text in g.examples)]) for g in groups)


def after_use(groups: Iterable[Group], retried: bool = False) -> str | None:
    """What every line that says the client gave up (the closes among them) shows of the closed connection's age:
    USED, WROTE, FIRST, or None. A client that reached no broker at all, or retried on new connections that closed
    too (``retried``, or the same close over and over), met its closes at the first exchange: an idle close is
    followed by a reconnect that works."""
    groups = list(groups)
    words = _words(groups)
    up = [int(ms) for ms in _UP_MS.findall(words)]
    closing = [g for g in groups if g.symptom in HUNG_UP]
    if (up and max(up) >= UP_FOR_MS) or _USED.search(words) or _apart(closing):
        return USED
    if (retried or up or _FIRST_EXCHANGE.search(words) or any(g.symptom in (ALL_DOWN, NO_NODE) for g in groups)
            or any(BOOTSTRAP in g.roles for g in closing) or sum(g.count for g in closing) >= REPEATED):
        return FIRST
    return WROTE if _WROTE.search(words) else None


def _apart(closing: list[Group]) -> bool:
    """Closes that came minutes apart, every time (the lines' own timestamps): the client reconnected and worked in
    between, and the close came again after a quiet period, as an idle limit closes (every 10 minutes: the broker's
    connections.max.idle.ms)."""
    times = sorted(t for g in closing for t in g.times)
    gaps = [b - a for a, b in zip(times, times[1:])]
    return bool(gaps) and min(gaps) >= QUIET_S


def idle_words(used: str | None) -> str:
    """The sentence a closed connection's readings say about the idle one."""
    if used == WROTE:
        return ("The client's words say it wrote into a socket the other side had already closed (a broken pipe), "
                "which a client's first request does not meet: most likely the connection had worked and was closed "
                "while it sat idle (IDLE_CONNECTION_DROPPED), unless the listener hung up on an earlier request.")
    if used == USED:
        return ("The lines show the connection had worked before it broke (a produce or a send on a connection the "
                "client had been using, or the same close again minutes apart, the client working in between), which "
                "a listener whose security is not the client's never allows: it was most likely closed while it sat "
                "idle.")
    return ("No line says whether the connection had worked before: if it had, and sat idle, the broker closes it "
            "after connections.max.idle.ms (10 minutes by default) and a load balancer or NAT after its own idle "
            f"timeout ({IDLE}).")
