"""``host:port`` as clients, URLs and logs write it: an IPv6 literal in brackets (RFC 3986 §3.2.2), so
the port's colon is not read as part of the address. The one formatter: everything that writes an
address and a port, in ``probes/`` and in ``kdiag``, calls it (``probes/`` is the room all may import).
"""

from __future__ import annotations


def bracketed(host: str) -> str:
    """``host`` as it stands before ``:port``: ``[::1]`` for an IPv6 literal, any other host as it is."""
    return f"[{host}]" if ":" in host else host


def hostport(host: str, port: int | str) -> str:
    """``host:port``, with brackets around an IPv6 literal: ``[::1]:9092``, ``kafka-1:9092``."""
    return f"{bracketed(host)}:{port}"
