"""Named credential sets: a set's client settings read from the environment (``KDIAG_CRED_<NAME>_*``,
as ``KDIAG_CLIENT_*``), and the host patterns a set is bound to (``NAME=PATTERN[,...]``).

``kdiag watch`` (``--probe-credentials``, ``--report-credentials``) and ``kdiag fleet``
(``--kafka-credentials``, in the command and in the ``spark-submit`` entry points) read them here, so
one set is read, and refused, the same way everywhere.

A pattern is ``*`` (any host), a host glob (``*.kafka.svc.cluster.local``, ``kafka-?``), an IP
address or a CIDR (``10.0.0.0/8``, ``fd00::/8``), each optionally with ``:PORT`` (``[fd00::/8]:9092``
for IPv6). A CIDR matches a target given as an address: names are never resolved to decide.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kdiag.exitstatus import UsageError

if TYPE_CHECKING:
    from kdiag.clientconfig import ClientSettings
    from kdiag.report import Endpoint

CLIENT_PREFIX = "KDIAG_CLIENT_"
CREDENTIAL_PREFIX = "KDIAG_CRED_"  # KDIAG_CRED_<NAME>_<SETTING>: a named set's client settings (--probe-credentials,
#                                   --report-credentials)
_GLOB = re.compile(r"[A-Za-z0-9_.*?-]+")
_SET_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def client_options_from_environment(environ: Mapping[str, str], *, prefix: str = CLIENT_PREFIX) -> list[str]:
    """``KDIAG_CLIENT_SASL_PASSWORD=…`` and ``KDIAG_CLIENT_SASL_PASSWORD_FILE=/run/secrets/…`` as
    ``-X`` options (``sasl.password=…``), sorted by name; an unknown name is a UsageError. ``prefix``:
    ``KDIAG_CLIENT_``, or a named credential set's ``KDIAG_CRED_<NAME>_``."""
    from kdiag.clientconfig import LIBRDKAFKA_PROPERTIES

    names = {name.upper().replace(".", "_"): name for name in LIBRDKAFKA_PROPERTIES}
    options = []
    for variable in sorted(v for v in environ if v.startswith(prefix)):
        key, value = variable[len(prefix):], environ[variable]
        from_file = key.endswith("_FILE") and key[:-5] in names
        if from_file:
            key = key[:-5]
            from kdiag.inputfile import MAX_COMMAND_CONFIG, read_input

            raw = read_input(value, what=variable, limit=MAX_COMMAND_CONFIG)  # a regular file, size-capped
            try:
                value = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise UsageError(f"{variable}: {value} is not UTF-8 text") from None
        if key not in names:
            raise UsageError(f"{variable}: no librdkafka setting is called {key.lower().replace('_', '.')}")
        options.append(f"{names[key]}={value}")
    return options


def credential_set_settings(name: str, environ: Mapping[str, str], *,
                            option: str = "--probe-credentials") -> ClientSettings:
    """A named set's client settings: ``KDIAG_CRED_<NAME>_COMMAND_CONFIG`` (a client.properties), then
    ``KDIAG_CRED_<NAME>_<SETTING>`` and ``…_<SETTING>_FILE`` as for ``KDIAG_CLIENT_``."""
    from kdiag.clientconfig import load_client_settings

    prefix = f"{CREDENTIAL_PREFIX}{name}_"
    config_file = environ.get(prefix + "COMMAND_CONFIG")
    variables = {k: v for k, v in environ.items() if k.startswith(prefix) and k != prefix + "COMMAND_CONFIG"}
    if not variables and config_file is None:
        raise UsageError(f"{option} {name}: no {prefix}<SETTING> variable gives the set's settings")
    return load_client_settings(client_options_from_environment(variables, prefix=prefix), config_file)


@dataclass(frozen=True)
class HostPattern:
    """One ``--probe-allow`` / ``--probe-credentials`` pattern: a host glob or a network, maybe a port."""

    text: str
    glob: str | None = None  # lower-cased fnmatch pattern
    network: Network | None = None
    port: int | None = None

    def matches(self, endpoint: Endpoint) -> bool:
        if self.port is not None and endpoint.port != self.port:
            return False
        if self.glob is not None:
            return fnmatch.fnmatchcase(endpoint.host.lower(), self.glob)
        address = _address(endpoint.host)
        return address is not None and self.network is not None and address.version == self.network.version \
            and address in self.network


def parse_pattern(option: str, text: str) -> HostPattern:
    """``*``, a host glob, an address or a CIDR, each optionally with ``:PORT``; UsageError otherwise."""
    raw = text.strip()
    body, port = _split_port(option, raw)
    try:
        return HostPattern(raw, network=ipaddress.ip_network(body, strict=False), port=port)
    except ValueError:
        pass
    if not _GLOB.fullmatch(body):
        raise UsageError(f"{option} takes host patterns (kafka-*.example.com), addresses or CIDRs (10.0.0.0/8), "
                         f"each optionally with :PORT, not {raw!r}")
    return HostPattern(raw, glob=body.lower(), port=port)


def parse_patterns(option: str, text: str) -> tuple[HostPattern, ...]:
    patterns = tuple(parse_pattern(option, part) for part in text.split(",") if part.strip())
    if not patterns:
        raise UsageError(f"{option} takes at least one pattern, e.g. kafka-*.example.com:9092 or 10.0.0.0/8")
    return patterns


def _split_port(option: str, text: str) -> tuple[str, int | None]:
    if text.startswith("["):
        inner, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise UsageError(f"{option}: {text!r} is neither [IPv6] nor [IPv6]:PORT")
        return inner, _port(option, text, rest[1:]) if rest else None
    if text.count(":") == 1:  # host:port; two or more colons is an IPv6 address or network
        host, _, port = text.partition(":")
        return host, _port(option, text, port)
    return text, None


def _port(option: str, text: str, port: str) -> int:
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{option}: the port of {text!r} must be 1-65535")
    return int(port)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


@dataclass(frozen=True)
class CredentialSet:
    """A named set of client settings (``KDIAG_CRED_<NAME>_*``) and the targets it is bound to."""

    name: str
    patterns: tuple[HostPattern, ...]
    settings: dict[str, str] = field(repr=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def bound_to(self, targets: Iterable[Endpoint]) -> bool:
        return all(any(p.matches(t) for p in self.patterns) for t in targets)


def parse_set_name(option: str, text: str) -> str:
    """A credential set's name (letters and digits), upper-cased as its ``KDIAG_CRED_<NAME>_*`` are."""
    if not _SET_NAME.fullmatch(text.strip()):
        raise UsageError(f"{option} takes a set NAME of letters and digits (its settings are KDIAG_CRED_<NAME>_*), "
                         f"not {text!r}")
    return text.strip().upper()


def parse_credential_binding(text: str, *, option: str = "--probe-credentials") -> tuple[str, tuple[HostPattern, ...]]:
    """``NAME=PATTERN[,PATTERN...]``: the set's name (letters and digits) and its patterns."""
    name, equals, patterns = text.strip().partition("=")
    if not equals or not _SET_NAME.fullmatch(name.strip()):
        raise UsageError(f"{option} takes NAME=PATTERN[,PATTERN...] with a NAME of letters and digits "
                         f"(its settings are KDIAG_CRED_<NAME>_*), not {text!r}")
    return name.strip().upper(), parse_patterns(option, patterns)
