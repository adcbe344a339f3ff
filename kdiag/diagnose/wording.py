"""Small helpers for the words rules and explain write: lists in prose, plurals, addresses as Java
prints them, partitions in a line. Pure, no report: what a finding says, not what the report proves
(that is ``kdiag.diagnose.facts``).
"""

from __future__ import annotations

from collections.abc import Iterable

from kdiag.diagnose.hosts import classify_host
from probes.hostport import hostport


def join_words(items: Iterable[object]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = [str(item) for item in items]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def java_address(host: str, address: str, port: int) -> str:
    """How Java prints an InetSocketAddress: ``name/1.2.3.4:9092``, or ``/1.2.3.4:9092`` for a literal."""
    name = "" if classify_host(host).is_ip else host
    return f"{name}/{hostport(address, port)}"


def plural(count: int, one: str, many: str | None = None) -> str:
    return one if count == 1 else (many or one + "s")


def describe_partitions(led: dict[str, list[int]], *, limit: int = 8, per_topic: int = 12) -> str:
    """``orders [0, 3], payments [1]`` (and how many more partitions and topics)."""
    def listed(partitions: list[int]) -> str:
        shown = ", ".join(str(p) for p in partitions[:per_topic])
        more = len(partitions) - per_topic
        return f"[{shown}, +{more} more]" if more > 0 else f"[{shown}]"

    parts = [f"{topic} {listed(partitions)}" for topic, partitions in sorted(led.items())[:limit]]
    more = len(led) - limit
    if more > 0:
        parts.append(f"{more} more {plural(more, 'topic')}")
    return ", ".join(parts)
