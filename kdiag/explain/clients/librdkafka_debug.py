"""librdkafka's debug lines (``debug=broker,protocol,...``): what its broker state machine shows when the error line
that says it in words is not in the paste.

``Broker changed state APIVERSION_QUERY -> DOWN`` (the STATE context, rd_kafka_broker_set_state) is a connection
that went down while it waited for the answer to its first request, ApiVersion. librdkafka's own error line for it
(rdkafka_broker.c, rd_kafka_broker_set_error) adds, for a connection without TLS, "requesting ApiVersion: might be
caused by incorrect security.protocol configuration (connecting to a SSL listener?) or broker version is < 0.10":
the same guess, read the same way (``librdkafka.ssl_listener``). A connection with TLS (its name starts ``ssl://`` or
``sasl_ssl://``) came through its handshake, so that guess is not its.

``Broker changed state CONNECT -> APIVERSION_QUERY`` (or ``-> SSL_HANDSHAKE``, ``-> AUTH_...``, ``-> UP``) is a connect
that was made: the paste shows the endpoint connected (a ``connected`` fact), on whichever of its addresses.

``Client is terminating (after 10701ms in state CONNECT)`` is a connect that got no answer for seconds when the
application gave up (``librdkafka.stuck_in_connect``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.librdkafka_names import RdBroker
from kdiag.explain.sightings import CONNECT, LIBRDKAFKA, PLAINTEXT_ON_TLS, Fact, Item, Pattern, ScanState, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_TLS = ("SSL", "SASL_SSL")


@pattern("librdkafka.state_apiversion_down", LIBRDKAFKA, "Broker changed state APIVERSION_QUERY -> DOWN",
         r"Broker changed state APIVERSION_QUERY -> DOWN",
         "%7|1575453681.640|STATE|rdkafka#producer-1| [thrd:b.example.com:9092/bootstrap]: "
         "b.example.com:9092/bootstrap: Broker changed state APIVERSION_QUERY -> DOWN")
def _rd_state_apiversion_down(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    if broker.protocol in _TLS:
        return
    yield broker.sighting(PLAINTEXT_ON_TLS, detail="Broker changed state APIVERSION_QUERY -> DOWN",
                          guess="the connection went down while requesting ApiVersion (librdkafka: might be caused by "
                                "incorrect security.protocol configuration (connecting to a SSL listener?) or broker "
                                "version is < 0.10)", alternatives=("BROKER_TOO_OLD",))


@pattern("librdkafka.state_connected", LIBRDKAFKA, "changed state CONNECT -> ",
         r"Broker changed state CONNECT -> (?:SSL_HANDSHAKE|APIVERSION_QUERY|AUTH_[A-Z_]+|UP)\b",
         "%7|1612424864.281|STATE|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: "
         "Broker changed state CONNECT -> APIVERSION_QUERY")
def _rd_state_connected(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    broker = RdBroker.find(m.string)
    if broker.host is not None:
        yield Fact("connected", broker.host, broker.port)


# rd_kafka_broker_fail appends "(after %dms in state %s)" to every reason it gives, its own errors' and the application's
# ("Client is terminating" when it destroys the client, rd_kafka_destroy). A connection still in state CONNECT seconds
# after it began had sent its SYN and got no answer: a refused port answers at once, and librdkafka logs a name that
# does not resolve, a refused or a timed-out connect in their own words (librdkafka.connect_failed, .connect_timeout),
# which are not these. A filtered port, or a route that drops the packets: the connect timing out is the likely
# reading (the application gave up first, before socket.connection.setup.timeout.ms said it).
STUCK_CONNECT_MS = 3000
"""How long in state CONNECT is a connect that got no answer: past a SYN's first retransmission (1 s) and more."""


@pattern("librdkafka.stuck_in_connect", LIBRDKAFKA, "ms in state CONNECT)",
         r"(?P<why>[A-Za-z][\w ,:'-]{0,80}?) \(after (?P<ms>\d+)ms in state CONNECT\)",
         "%7|1666628232.807|FAIL|rdkafka#producer-1| [thrd:ssl://b-1.example.com:9194/bootstrap]: "
         "ssl://b-1.example.com:9194/bootstrap: Client is terminating (after 10701ms in state CONNECT) (_DESTROY)")
def _rd_stuck_in_connect(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    why = m.group("why")
    if int(m.group("ms")) < STUCK_CONNECT_MS or re.search(r"[Cc]onnect|resolve|timed out|[Ff]ail|refused|unreachable", why):
        return  # a connect's own failure, in its own words
    broker = RdBroker.find(m.string)
    if broker.host is None:
        return
    yield broker.sighting(CONNECT, status="timeout", detail=f"{why} (after {m.group('ms')}ms in state CONNECT)",
                          guess=f"the connection was still in state CONNECT after {m.group('ms')} ms: the connect "
                                "got no answer")
