"""What kdiag accepts from a peer, at most: sizes, counts and lengths (SECURITY.md lists them all).

A broker is outside input. A Metadata answer may list 100,000 brokers or a 1 MB host name; an
ApiVersions answer may declare a 63 MiB frame; 64 brokers may each do so at once. These bounds keep
one run's time and memory bounded whatever the peers send, and what is cut is said, never silent.

* **Response size per request** (``max_response_size``): an ApiVersions or SaslHandshake answer is a
  few KB, a FindCoordinator or ListOffsets answer less; Metadata lists every broker, topic and
  partition and may be MBs. A frame declared larger than its request's cap is refused before any of it
  is buffered (``RESPONSE_TOO_LARGE``).
* **Bytes in flight** (``IN_FLIGHT_BUDGET``): all connections of a run together never buffer more
  than this; a response that would pass it is refused like one above its cap.
* **Advertised brokers** (``MAX_BROKERS``): the first ones (by node id, as the answer lists them) are
  kept, probed and printed; the report counts the rest (``brokers_omitted``) and says "and N more".
* **Topics and partitions** (``MAX_TOPICS``, ``MAX_PARTITIONS``): kept in the report for the identity
  check and the topic rules; the rest counted (``topics_omitted``).
* **Field lengths** (``clip``): a value longer than any legal one (a host name is at most 255 bytes, a
  topic name 249 characters) is cut there, visibly: ``<first 255>…[+N chars]``.
"""

from __future__ import annotations

KIB, MIB = 1 << 10, 1 << 20

# Response size caps by API key; anything not listed gets DEFAULT_RESPONSE_SIZE.
API_VERSIONS, METADATA, SASL_HANDSHAKE, SASL_AUTHENTICATE, FIND_COORDINATOR, LIST_OFFSETS = 18, 3, 17, 36, 10, 2
RESPONSE_SIZE: dict[int, int] = {
    API_VERSIONS: 64 * KIB,  # ~90 APIs x 7 bytes + feature tags: about 1-3 KB from a real broker
    SASL_HANDSHAKE: 16 * KIB,  # a handful of mechanism names
    SASL_AUTHENTICATE: 64 * KIB,  # a SCRAM server message, an OAUTHBEARER error: small
    FIND_COORDINATOR: 64 * KIB,
    LIST_OFFSETS: 1 * MIB,
    METADATA: 16 * MIB,  # ~300,000 partitions; kdiag asks for all topics
}
DEFAULT_RESPONSE_SIZE = 1 * MIB
IN_FLIGHT_BUDGET = 256 * MIB

MAX_BROKERS = 128
"""Advertised brokers kept, probed and listed. Real clusters with more exist but are rare; a
Metadata answer listing 100,000 is hostile or broken, and probing them all would cost the run."""
MAX_TOPICS = 2_000
MAX_PARTITIONS = 20_000
"""Partitions kept over all kept topics."""

MAX_HOST = 255  # RFC 1035: a name is at most 255 octets on the wire
MAX_TOPIC = 249  # Kafka's own limit on a topic name
MAX_RACK = 255  # broker.rack has no limit in Kafka; no real one is near this
MAX_CLUSTER_ID = 255  # a KRaft cluster id is 22 characters
MAX_TEXT = 1_024  # an error message, a mechanism name, anything else a peer says in prose


def max_response_size(api_key: int) -> int:
    return RESPONSE_SIZE.get(api_key, DEFAULT_RESPONSE_SIZE)


def clip(text: str | None, limit: int) -> str | None:
    """``text`` if it fits ``limit`` characters, else its first ``limit`` and how much was cut."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}…[+{len(text) - limit} chars]"
