"""Golden frames written as hex, one group per field, each with its comment.

``golden("00 12", "00 03")`` is just the bytes; it exists so a frame reads as a column of fields. A
group of fields several versions share (the brokers of a Metadata response, say) is written once as
its own golden and named where it recurs.
Request goldens share the request header below (written out field by field once) and spell out
their bodies per version; the three reference vectors of the lab notes are whole frames, verbatim.
"""

from __future__ import annotations

import struct

CORRELATION_ID = 7


def golden(*fields: str | bytes) -> bytes:
    """The bytes of hex ``fields`` (spaces ignored); a ``bytes`` field is a group of fields built before."""
    return bytes.fromhex(" ".join(field if isinstance(field, str) else field.hex() for field in fields))


def sized(frame: bytes) -> bytes:
    """``frame`` with its int32 size in front, as it goes on the wire."""
    return struct.pack(">i", len(frame)) + frame


def request_header(api_key: int, version: int, *, flexible: bool) -> bytes:
    """Request header v1, or v2 for flexible versions, correlation id 7 and client id "kdiag"."""
    return golden(
        f"{api_key:04x}",          # api_key
        f"{version:04x}",          # api_version
        "00 00 00 07",             # correlation_id 7
        "00 05 6b 64 69 61 67",    # client_id "kdiag": int16 length, even in header v2 (KIP-482)
        "00" if flexible else "",  # header tagged fields: none (v2 only)
    )


def request_frame(api_key: int, version: int, body: bytes, *, flexible: bool) -> bytes:
    return sized(request_header(api_key, version, flexible=flexible) + body)


def bodies_by_version(groups: dict[range, bytes]) -> dict[int, bytes]:
    """``{range(1, 4): body}`` → ``{1: body, 2: body, 3: body}``: versions whose bodies do not differ."""
    return {version: body for versions, body in groups.items() for version in versions}
