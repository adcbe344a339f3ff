"""librdkafka's debug lines (``debug=broker,protocol,...``): what its broker state machine shows when the error line
that says it in words is not in the paste.

``Broker changed state APIVERSION_QUERY -> DOWN`` (the STATE context, rd_kafka_broker_set_state) is a connection
that went down while it waited for the answer to its first request, ApiVersion. librdkafka's own error line for it
(rdkafka_broker.c, rd_kafka_broker_set_error) adds, for a connection without TLS, "requesting ApiVersion: might be
caused by incorrect security.protocol configuration (connecting to a SSL listener?) or broker version is < 0.10":
the same guess, read the same way (``librdkafka.ssl_listener``). A connection with TLS (its name starts ``ssl://`` or
``sasl_ssl://``) came through its handshake, so that guess is not its.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.librdkafka_names import RdBroker
from kdiag.explain.sightings import LIBRDKAFKA, PLAINTEXT_ON_TLS, Item, Pattern, ScanState, registrar

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
