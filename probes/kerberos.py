"""The Kerberos service principal a GSSAPI client asks for, and whether the KDC knows it.

kdiag is no Kerberos client: it does not log in with GSSAPI. What it can prove without being one:

* the name: a client asks the KDC for ``<sasl.kerberos.service.name>/<host>@REALM``, where ``host`` is the
  name it connects to as MIT Kerberos canonicalises it (``krb5_sname_to_principal``): with
  ``dns_canonicalize_hostname = true`` (the default) the forward lookup's canonical name, and with
  ``rdns = true`` (the default too) the **reverse DNS** name of its address; the realm from
  ``[domain_realm]``, else ``default_realm`` (:func:`expected_principal`, from the client's
  ``krb5.conf``: ``$KRB5_CONFIG``, else ``/etc/krb5.conf``);
* whether the KDC knows it: when ``kvno`` (MIT krb5-user) is installed and the credentials cache holds a
  ticket, ``kvno -S SERVICE HOST`` asks the KDC for a service ticket exactly as the client's library
  would, and ``kvno SERVICE/HOST@REALM`` for the name as given; each bounded in time. kvno prints
  principal names and error messages only: never a key, a password or a keytab's content.

Everything here runs subprocesses and lookups; the rules only read :class:`KerberosCheck`.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CONFIG = "/etc/krb5.conf"
KVNO_TIMEOUT = 3.0
"""Seconds one kvno or klist may take (a KDC that does not answer: krb5's own retries take longer)."""
_NOT_FOUND = re.compile(r"Server (\S+) not found in Kerberos database")
_KVNO_OK = re.compile(r"^(\S+): kvno = (\d+)", re.MULTILINE)
_DEFAULT_PRINCIPAL = re.compile(r"^Default principal: (\S+)", re.MULTILINE)
_MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True)
class Krb5Config:
    """What of a client's ``krb5.conf`` decides the service principal."""

    path: str | None = None  # the file read; None when there is none
    default_realm: str | None = None
    rdns: bool = True
    dns_canonicalize_hostname: str = "true"  # true | false | fallback
    domain_realm: tuple[tuple[str, str], ...] = ()

    def realm_for(self, host: str) -> str | None:
        """``[domain_realm]``: the host itself, then ``.domain`` for each parent domain; else the default."""
        mapping = dict(self.domain_realm)
        if host in mapping:
            return mapping[host]
        labels = host.split(".")
        for index in range(1, len(labels)):
            for key in (f".{'.'.join(labels[index:])}", ".".join(labels[index:])):
                if key.startswith(".") and key in mapping:
                    return mapping[key]
        return self.default_realm


@dataclass(frozen=True)
class ServicePrincipal:
    """One host a client connects to with GSSAPI, and the principal it needs.

    ``kdc_status``: ok (the KDC issued a ticket) | unknown (``Server ... not found in Kerberos database``)
    | no_credentials (no ticket in the cache to ask with) | kdc_unreachable | no_kvno | timeout | error.
    ``literal_status`` is the same for ``service/host@REALM`` taken as written (no canonicalisation),
    when that is another name. ``java_principal`` is what a Java client asks for instead (its own rules,
    :func:`java_principal`), with ``java_status`` when it is neither of the other two.
    """

    host: str
    service: str
    principal: str  # what the client asks for, as kdiag works it out from krb5.conf and DNS
    literal_principal: str  # service/host@REALM as written
    address: str | None = None
    canonical_host: str | None = None  # the forward lookup's canonical name
    reverse_name: str | None = None  # the PTR name of ``address``
    kdc_status: str = "no_kvno"
    kdc_principal: str | None = None  # the name MIT's library asked the KDC for (kvno -S)
    kdc_message: str | None = None  # kvno's own words
    kvno: int | None = None
    literal_status: str | None = None
    java_principal: str | None = None
    java_status: str | None = None


@dataclass(frozen=True)
class KerberosCheck:
    """The GSSAPI client's Kerberos setting and each service principal it would need."""

    config: Krb5Config
    service: str
    ccache_principal: str | None = None  # the credentials cache's principal (klist); None: no usable cache
    ccache_error: str | None = None
    principals: tuple[ServicePrincipal, ...] = ()
    duration_ms: float = 0.0

    @property
    def unknown(self) -> tuple[ServicePrincipal, ...]:
        """The hosts whose principal the KDC does not know, as MIT Kerberos or as a Java client names it."""
        return tuple(p for p in self.principals if "unknown" in (p.kdc_status, p.java_status))


# --------------------------------------------------------------------------- krb5.conf


def read_config(environ: Mapping[str, str] | None = None) -> Krb5Config:
    """The client's krb5.conf (``KRB5_CONFIG``'s files, the first value of a key winning, as MIT reads them)."""
    environ = os.environ if environ is None else environ
    paths = [p for p in environ.get("KRB5_CONFIG", DEFAULT_CONFIG).split(":") if p]
    texts = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                texts.append((path, handle.read(_MAX_CONFIG_BYTES)))
        except OSError:
            continue
    if not texts:
        return Krb5Config()
    return parse_config("\n".join(text for _path, text in texts), path=texts[0][0])


def parse_config(text: str, *, path: str | None = None) -> Krb5Config:
    """The relations of ``[libdefaults]`` and ``[domain_realm]`` that name a service principal."""
    section = ""
    depth = 0
    libdefaults: dict[str, str] = {}
    domain_realm: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].split(";", 1)[0].strip() if not raw.lstrip().startswith(("#", ";")) else ""
        if not line:
            continue
        if line.startswith("[") and line.endswith("]") and depth == 0:
            section = line[1:-1].strip().lower()
            continue
        if line.endswith("{"):
            depth += 1
            continue
        if line == "}":
            depth = max(0, depth - 1)
            continue
        key, equals, value = line.partition("=")
        if not equals or depth:
            continue
        key, value = key.strip(), value.strip().rstrip("*").strip()
        if section == "libdefaults":
            libdefaults.setdefault(key.lower(), value)
        elif section == "domain_realm":
            domain_realm.setdefault(key.lower(), value)
    canonicalize = libdefaults.get("dns_canonicalize_hostname", "true").lower()
    return Krb5Config(path=path, default_realm=libdefaults.get("default_realm"),
                      rdns=_boolean(libdefaults.get("rdns"), True),
                      dns_canonicalize_hostname=canonicalize if canonicalize in ("false", "fallback") or
                      not _boolean(canonicalize, True) else "true",
                      domain_realm=tuple(domain_realm.items()))


def _boolean(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    return value.strip().lower() in ("y", "yes", "true", "t", "1", "on")


# --------------------------------------------------------------------------- the principal's name


Lookup = Callable[[str], tuple[str | None, str | None]]
ReverseLookup = Callable[[str], str | None]


def forward_lookup(host: str) -> tuple[str | None, str | None]:
    """(canonical name, first address) of ``host`` through the system resolver, as MIT asks for them."""
    try:
        infos = socket.getaddrinfo(host, None, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_CANONNAME)
    except (OSError, UnicodeError):
        return None, None
    if not infos:
        return None, None
    return infos[0][3] or None, infos[0][4][0]


def reverse_lookup(address: str) -> str | None:
    """The PTR name of ``address`` (getnameinfo with NI_NAMEREQD), None when it has none."""
    try:
        name, _port = socket.getnameinfo((address, 0), socket.NI_NAMEREQD)
    except (OSError, UnicodeError):
        return None
    return name


def expected_principal(host: str, service: str, config: Krb5Config, *, lookup: Lookup = forward_lookup,
                       reverse: ReverseLookup = reverse_lookup) -> ServicePrincipal:
    """The principal MIT Kerberos builds for ``service`` on ``host`` under ``config`` (krb5_sname_to_principal)."""
    canonical, address = lookup(host)
    reverse_name = reverse(address) if address else None
    name = host
    if config.dns_canonicalize_hostname == "true":
        name = canonical or host
        if config.rdns and reverse_name:
            name = reverse_name
    name = name.lower().rstrip(".")
    literal_host = host.lower().rstrip(".")
    realm = config.realm_for(name) or ""
    literal_realm = config.realm_for(literal_host) or ""
    java_host = java_service_host(host, canonical, reverse_name)
    return ServicePrincipal(host=host, service=service, principal=f"{service}/{name}@{realm}",
                            literal_principal=f"{service}/{literal_host}@{literal_realm}", address=address,
                            canonical_host=canonical, reverse_name=reverse_name,
                            java_principal=f"{service}/{java_host}@{config.realm_for(java_host) or ''}")


def java_service_host(host: str, canonical: str | None, reverse_name: str | None) -> str:
    """The host of a Java client's service principal. Kafka's Java client names the server by its connection's
    ``InetAddress.getHostName()``: the name as given, or for an address literal its reverse DNS name; then the
    JDK's Kerberos keeps the forward canonical name only when it extends that name (``kafka`` ->
    ``kafka.example.test``), and never uses krb5.conf's rdns."""
    literal = host.strip("[]")
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in literal else socket.AF_INET, literal)
        name = (reverse_name or literal).rstrip(".")
    except OSError:
        name = host
        if canonical and canonical.lower().rstrip(".").startswith(host.lower().rstrip(".") + "."):
            name = canonical
    return name.lower().rstrip(".")


# --------------------------------------------------------------------------- asking the KDC


def _tool(argv: Sequence[str], timeout: float) -> tuple[int | None, str]:
    """(exit status, stdout and stderr) of a krb5 tool; status None when it is missing or timed out."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              check=False)
    except FileNotFoundError:
        return None, "not installed"
    except subprocess.TimeoutExpired:
        return None, f"no answer within {timeout:g} s"
    except OSError as exc:
        return None, str(exc)
    return done.returncode, (done.stdout + done.stderr).strip()[:2000]


def _kvno_outcome(argv: Sequence[str], timeout: float) -> tuple[str, str | None, str | None, int | None]:
    """(status, principal asked for, kvno's message, key version) of one kvno run."""
    status, output = _tool(argv, timeout)
    if status is None:
        return ("no_kvno" if output == "not installed" else "timeout"), None, output, None
    found = _KVNO_OK.search(output)
    if status == 0 and found:
        return "ok", found.group(1), None, int(found.group(2))
    message = output.splitlines()[-1].removeprefix("kvno: ") if output else f"exit status {status}"
    missing = _NOT_FOUND.search(output)
    if missing:
        return "unknown", missing.group(1), message, None
    if "Cannot contact any KDC" in output or "Cannot find KDC" in output:
        return "kdc_unreachable", None, message, None
    if "No credentials cache" in output or "expired" in output.lower() or "No such file" in output:
        return "no_credentials", None, message, None
    return "error", None, message, None


def check_service_principals(hosts: Sequence[str], *, service: str = "kafka", timeout: float = KVNO_TIMEOUT,
                             environ: Mapping[str, str] | None = None, lookup: Lookup = forward_lookup,
                             reverse: ReverseLookup = reverse_lookup) -> KerberosCheck:
    """Work out each host's service principal and, with a ticket in the cache, ask the KDC about it."""
    started = time.monotonic()
    deadline = started + timeout

    def left() -> float:
        return max(0.05, min(KVNO_TIMEOUT, deadline - time.monotonic()))

    config = read_config(environ)
    expected = [expected_principal(host, service, config, lookup=lookup, reverse=reverse)
                for host in dict.fromkeys(hosts)]
    code, listing = _tool(["klist"], left())
    owner = _DEFAULT_PRINCIPAL.search(listing) if code == 0 else None
    ccache_error = None if owner else (listing.splitlines()[-1] if listing else "klist failed")
    checked = []
    for principal in expected:
        if owner is None:
            status = "no_kvno" if code is None and listing == "not installed" else "no_credentials"
            checked.append(_replace(principal, kdc_status=status, kdc_message=ccache_error))
            continue
        status, asked, message, kvno = _kvno_outcome(["kvno", "-S", service, principal.host], left())
        literal = java = None
        known = {(asked or principal.principal): status}
        if status in ("ok", "unknown"):
            literal = known.get(principal.literal_principal) or _kvno_outcome(
                ["kvno", principal.literal_principal], left())[0]
            known[principal.literal_principal] = literal
            if principal.java_principal:
                java = known.get(principal.java_principal) or _kvno_outcome(
                    ["kvno", principal.java_principal], left())[0]
        checked.append(_replace(principal, kdc_status=status, kdc_principal=asked, kdc_message=message, kvno=kvno,
                                literal_status=literal, java_status=java))
    return KerberosCheck(config, service, owner.group(1) if owner else None, ccache_error, tuple(checked),
                         round((time.monotonic() - started) * 1000, 1))


def client_library_has_gssapi() -> bool:
    """Whether confluent-kafka's librdkafka can log in with GSSAPI (its wheels are built without it)."""
    try:
        from confluent_kafka import KafkaException, Producer
    except ImportError:
        return False
    try:
        Producer({"security.protocol": "SASL_PLAINTEXT",  # no bootstrap.servers: it connects nowhere
                  "sasl.mechanisms": "GSSAPI", "sasl.kerberos.kinit.cmd": "true", "log_level": 0})
    except KafkaException:
        return False  # "No provider for SASL mechanism GSSAPI: recompile librdkafka with libsasl2 ..."
    return True


def _replace(principal: ServicePrincipal, **changes: object) -> ServicePrincipal:
    from dataclasses import replace

    return replace(principal, **changes)


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The first krb5.conf a client reads (for the fix's wording)."""
    environ = os.environ if environ is None else environ
    return Path((environ.get("KRB5_CONFIG") or DEFAULT_CONFIG).split(":")[0])
