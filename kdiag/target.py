"""The bootstrap list as users type it: ``host:port``, ``[ipv6]:port``, a bare host, comma-separated.

Also accepted, because that is how addresses get pasted: surrounding whitespace, a bare IPv6
address without brackets or port (``::1``), and a listener prefix copied from
``advertised.listeners`` (``PLAINTEXT://broker:9092``), which is dropped. Everything else is a
``UsageError`` whose one line names the offending element. Topic names given on the command line
are checked here too (``check_topic_name``), for every command that takes one.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from kdiag.exitstatus import UsageError
from kdiag.report import Endpoint
from probes.hostport import hostport

DEFAULT_PORT = 9092
EXAMPLE = "broker.example.com:9092"

_LISTENER_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_+.-]*://")
_DIGITS = re.compile(r"[0-9]+")
_DOTTED_NUMBERS = re.compile(r"[0-9.]+")
# RFC 1123 labels, plus '_': Docker Compose v1 container names (project_kafka_1) resolve on
# Docker networks and are exactly the names brokers end up advertising.
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?")
_MAX_SHOWN = 80

# builds the UsageError for the element being parsed from the reason it is wrong
Complaint = Callable[[str], UsageError]


def check_topic_name(name: str, *, option: str = "--topic") -> None:
    """Kafka's own rule for topic names (org.apache.kafka.common.internals.Topic.validate); ``option``
    names the option the name came from in the one-line UsageError."""
    if not name or name in (".", ".."):
        raise UsageError(f"{option} {name!r} is not a valid topic name")
    if len(name) > 249:
        raise UsageError(f"{option} is {len(name)} characters long (Kafka allows 249)")
    bad = next((c for c in name if not (c.isascii() and (c.isalnum() or c in "._-"))), None)
    if bad is not None:
        raise UsageError(f"{option} {name!r}: topic names may hold only letters, digits, '.', '_' and '-', not {bad!r}")


def parse_bootstrap(text: str) -> tuple[Endpoint, ...]:
    """The endpoints of a comma-separated bootstrap list, in order, without duplicates."""
    if not text.strip():
        raise UsageError(f"no bootstrap address given (expected HOST[:PORT], e.g. {EXAMPLE})")
    elements = text.split(",")
    endpoints: list[Endpoint] = []
    seen: set[tuple[str, int]] = set()
    for position, raw in enumerate(elements, start=1):
        element = raw.strip()
        if not element:
            raise UsageError(
                f"empty bootstrap address (element {position} of {_show(text.strip())});"
                " separate addresses with single commas"
            )
        endpoint = parse_endpoint(element)
        key = (endpoint.host.lower(), endpoint.port)
        if key not in seen:
            seen.add(key)
            endpoints.append(endpoint)
    return tuple(endpoints)


def parse_endpoint(element: str) -> Endpoint:
    """One ``host[:port]`` element (already stripped of surrounding whitespace)."""

    def bad(reason: str) -> UsageError:
        return UsageError(f"bootstrap address {_show(element)}: {reason}")

    rest = _LISTENER_PREFIX.sub("", element, count=1)
    if not rest:
        raise bad(f"no host after the listener prefix (expected e.g. PLAINTEXT://{EXAMPLE})")
    _reject_unprintable(rest, bad)

    if rest.startswith("["):
        host, port_text = _split_bracketed(rest, bad)
    elif rest.count(":") >= 2:
        host, port_text = _split_unbracketed_ipv6(rest, bad), None
    else:
        host, colon, port_text = rest.rpartition(":") if ":" in rest else (rest, "", None)
        if colon and not host:
            raise bad(f"missing host before ':{port_text}' (expected HOST:PORT, e.g. {EXAMPLE})")
        if colon and not port_text:
            raise bad("missing port after ':' (expected HOST:PORT, or leave out ':' for port 9092)")
        _check_host(host, bad)
    port = DEFAULT_PORT if port_text is None else _parse_port(port_text, bad)
    return Endpoint(host, port)


def _split_bracketed(rest: str, bad: Complaint) -> tuple[str, str | None]:
    close = rest.find("]")
    if close < 0:
        raise bad("missing ']' after the IPv6 address (expected [ipv6]:port, e.g. [::1]:9092)")
    host, after = rest[1:close], rest[close + 1:]
    if not host:
        raise bad("empty brackets (expected [ipv6]:port, e.g. [::1]:9092)")
    if not _is_ipv6(host):
        raise bad(f"{_show(host)} in brackets is not an IPv6 address (brackets are only for IPv6)")
    if not after:
        return host, None
    if not after.startswith(":"):
        raise bad(f"unexpected {_show(after)} after ']' (expected [ipv6]:port, e.g. [::1]:9092)")
    if after == ":":
        raise bad("missing port after ':' (expected [ipv6]:port, or leave out ':' for port 9092)")
    return host, after[1:]


def _split_unbracketed_ipv6(rest: str, bad: Complaint) -> str:
    """A bare IPv6 address means port 9092; an IPv6 address followed by ':port' is ambiguous."""
    prefix, _, last = rest.rpartition(":")
    looks_like_port = bool(_DIGITS.fullmatch(last)) and _is_ipv6(prefix)
    if looks_like_port:
        raise bad(f"ambiguous IPv6 address and port; put IPv6 addresses in brackets: {hostport(prefix, last)}")
    if _is_ipv6(rest):
        return rest
    raise bad("neither HOST:PORT nor an IPv6 address (put IPv6 addresses in brackets: [::1]:9092)")


def _parse_port(text: str, bad: Complaint) -> int:
    if not _DIGITS.fullmatch(text):
        raise bad(f"port {_show(text)} is not a number")
    port = int(text) if len(text) <= 6 else 1 << 20
    if not 1 <= port <= 65535:
        raise bad(f"port {_show(text, quote=False)} is out of range (1-65535)")
    return port


def _check_host(host: str, bad: Complaint) -> None:
    if _DOTTED_NUMBERS.fullmatch(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise bad(f"{_show(host)} is not a valid IPv4 address") from None
        return
    if not host.isascii():
        raise bad(f"host {_show(host)} is not ASCII; use its ASCII (xn--) form")
    name = host[:-1] if host.endswith(".") else host
    if len(name) > 253:
        raise bad(f"host name is {len(name)} characters long (at most 253)")
    for label in name.split("."):
        if not label:
            raise bad(f"host {_show(host)} has an empty label ('..' or a leading '.')")
        if len(label) > 63:
            raise bad(f"label {_show(label)} is {len(label)} characters long (at most 63 per label)")
        if not _LABEL.fullmatch(label):
            odd = next((c for c in label if not (c.isalnum() or c in "-_")), None)
            if odd is not None:
                raise bad(f"host {_show(host)} contains {_show(odd)}, which is not allowed in a host name")
            raise bad(f"label {_show(label)} starts or ends with '-'")


def _reject_unprintable(text: str, bad: Complaint) -> None:
    for char in text:
        if char == " " or (char.isspace() and char.isprintable()):
            raise bad("contains a space inside the address")
        if not char.isprintable():
            raise bad(f"contains the control character {_show(char)}")


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _show(text: str, *, quote: bool = True) -> str:
    """``text`` safe for a one-line message: control characters escaped, long text shortened."""
    shown = "".join(c if c.isprintable() and c not in "\r\n" else c.encode("unicode_escape").decode() for c in text)
    if len(shown) > _MAX_SHOWN:
        shown = shown[: _MAX_SHOWN - 1] + "…"
    return f"'{shown}'" if quote else shown
