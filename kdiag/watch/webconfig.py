"""``--web-config-file``: TLS and basic auth for the endpoints, in the Prometheus exporters' format.

The file is the one node_exporter and every exporter built on prometheus/exporter-toolkit read
(``--web.config.file``), so a platform team's existing file and habits carry over::

    tls_server_config:
      cert_file: server.crt          # relative paths are relative to the file's directory
      key_file: server.key
      client_ca_file: clients-ca.crt # with client_auth_type RequireAndVerifyClientCert
      client_auth_type: RequireAndVerifyClientCert
      min_version: TLS12             # TLS10 .. TLS13; also max_version
    http_server_config:
      headers: {Strict-Transport-Security: max-age=31536000}
    basic_auth_users:                # bcrypt hashes: htpasswd -nBC 10 "" | tr -d ':\\n'
      prometheus: $2y$10$...

It is read once, at start; the certificate, key and client CA files are read again when they change
(``TlsContexts``: a rotated certificate is served from the next connection on, as exporter-toolkit
does). What kdiag cannot honour exactly is refused with one line rather than
half-applied: inline ``cert``/``key``/``client_ca`` (use the ``*_file`` keys), ``client_auth_type``
``RequestClientCert`` and ``RequireAnyClientCert`` (they accept certificates no CA signed),
``cipher_suites``, ``curve_preferences``, ``client_allowed_sans``, ``rate_limit``. ``http2`` and
``prefer_server_cipher_suites`` are accepted and have no effect (kdiag serves HTTP/1.1 with Python's
TLS defaults). ``/livez`` and ``/readyz`` answer without basic auth (the kubelet cannot send one),
over TLS like every endpoint.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import ssl
import threading
from dataclasses import dataclass, field
from pathlib import Path

from kdiag.exitstatus import UsageError

OPTION = "--web-config-file"
MAX_WEB_CONFIG = 1024 * 1024
CLIENT_AUTH = {"NoClientCert": ssl.CERT_NONE, "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
               "RequireAndVerifyClientCert": ssl.CERT_REQUIRED}
TLS_VERSIONS = {"TLS10": ssl.TLSVersion.TLSv1, "TLS11": ssl.TLSVersion.TLSv1_1, "TLS12": ssl.TLSVersion.TLSv1_2,
                "TLS13": ssl.TLSVersion.TLSv1_3}
HEADERS = ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "X-XSS-Protection",
           "Strict-Transport-Security")
_TLS_KEYS = {"cert_file", "key_file", "client_ca_file", "client_auth_type", "min_version", "max_version",
             "prefer_server_cipher_suites"}
_NOT_SUPPORTED = {"cert": "cert_file", "key": "key_file", "client_ca": "client_ca_file"}
_BCRYPT = re.compile(r"\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}")
_CACHE_SIZE = 256
# Checked when the user is unknown, so that a wrong name costs as long as a wrong password.
_DUMMY_HASH = b"$2b$10$6K.Qibgvo70/1gvM.RrDL.elUGuH6LlNMEL4zhOAB8iBgYJug31Bm"


@dataclass(frozen=True)
class TlsServerConfig:
    cert_file: Path
    key_file: Path
    client_ca_file: Path | None = None
    client_auth: str = "NoClientCert"
    min_version: str = "TLS12"
    max_version: str = "TLS13"

    def context(self) -> ssl.SSLContext:
        """The server's TLS context; UsageError (one line) if a file cannot be used."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = TLS_VERSIONS[self.min_version]
        context.maximum_version = TLS_VERSIONS[self.max_version]
        try:
            context.load_cert_chain(self.cert_file, self.key_file)
        except (OSError, ssl.SSLError) as exc:
            raise UsageError(f"{OPTION}: cannot use cert_file {self.cert_file} with key_file {self.key_file}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
        if self.client_ca_file is not None:
            try:
                context.load_verify_locations(cafile=self.client_ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise UsageError(f"{OPTION}: cannot use client_ca_file {self.client_ca_file}: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
        context.verify_mode = CLIENT_AUTH[self.client_auth]
        return context


class TlsContexts:
    """The server's TLS context, rebuilt when the certificate, key or client CA file changes (size or
    modification time, checked at each connection); a rotation caught half-written keeps the previous
    context until the files are whole again."""

    def __init__(self, config: TlsServerConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._stamp = self._files_stamp()
        self._context = config.context()

    def current(self) -> ssl.SSLContext:
        stamp = self._files_stamp()
        with self._lock:
            if stamp != self._stamp:
                try:
                    self._context = self.config.context()
                except UsageError:
                    return self._context  # not whole yet: tried again at the next connection
                self._stamp = stamp
            return self._context

    def _files_stamp(self) -> tuple[tuple[int, int], ...]:
        files = (self.config.cert_file, self.config.key_file, self.config.client_ca_file)
        stamps = []
        for path in files:
            try:
                status = path.stat() if path is not None else None
            except OSError:
                status = None
            stamps.append((status.st_mtime_ns, status.st_size) if status is not None else (0, -1))
        return tuple(stamps)


@dataclass(frozen=True)
class WebConfig:
    tls: TlsServerConfig | None = None
    users: dict[str, bytes] = field(default_factory=dict, repr=False)  # name -> bcrypt hash
    headers: tuple[tuple[str, str], ...] = ()


class BasicAuth:
    """Checks ``Authorization: Basic`` against the users' bcrypt hashes. A bcrypt check costs tens of
    milliseconds by design, so results are cached, keyed by a SHA-256 of the hash and the pair
    (exporter-toolkit does the same); the cache holds at most ``_CACHE_SIZE`` answers."""

    def __init__(self, users: dict[str, bytes]) -> None:
        self.users = users
        self._cache: dict[bytes, bool] = {}
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self.users)

    def allows(self, header: str | None) -> bool:
        if not self.users:
            return True
        credentials = _basic_credentials(header)
        if credentials is None:
            return False
        user, password = credentials
        stored = self.users.get(user, _DUMMY_HASH)
        key = hashlib.sha256(b"\0".join((stored, user.encode(), password))).digest()
        with self._lock:
            known = self._cache.get(key)
        if known is not None:
            return known
        import bcrypt

        try:
            ok = bcrypt.checkpw(password, stored) and user in self.users
        except ValueError:  # a password bcrypt cannot take (over 72 bytes), or the dummy hash
            ok = False
        with self._lock:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = ok
        return ok


def _basic_credentials(header: str | None) -> tuple[str, bytes] | None:
    scheme, _, value = (header or "").strip().partition(" ")
    if scheme.lower() != "basic" or len(value) > 4096:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True)
        user, colon, password = decoded.decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (user, password.encode()) if colon else None


def load_web_config(path: str) -> WebConfig:
    """The file at ``path`` in the exporter-toolkit format, checked; UsageError (one line) otherwise."""
    from kdiag.inputfile import read_input

    raw = read_input(path, what=OPTION, limit=MAX_WEB_CONFIG)
    try:
        import yaml

        document = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{OPTION} {path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise UsageError(f"{OPTION} {path}: not YAML{where}: {getattr(exc, 'problem', None) or 'unreadable'}") \
            from None
    if document is None:
        return WebConfig()
    section = _mapping(document, "the file")
    _only(section, {"tls_server_config", "http_server_config", "basic_auth_users", "rate_limit"}, "")
    if "rate_limit" in section:
        raise UsageError(f"{OPTION}: rate_limit is not supported by kdiag (its connections are bounded anyway)")
    base = Path(path).resolve().parent
    tls = _tls(section["tls_server_config"], base) if section.get("tls_server_config") is not None else None
    users = _users(section.get("basic_auth_users"))
    headers = _headers(section.get("http_server_config"))
    return WebConfig(tls, users, headers)


def _mapping(value: object, what: str) -> dict:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise UsageError(f"{OPTION}: {what} must be a mapping of names to values")
    return value


def _only(section: dict, keys: set[str], prefix: str) -> None:
    unknown = sorted(set(section) - keys)
    if unknown:
        raise UsageError(f"{OPTION}: unknown setting {prefix}{unknown[0]} (known: {', '.join(sorted(keys))})")


def _text(section: dict, key: str, prefix: str) -> str | None:
    value = section.get(key)
    if value is not None and not isinstance(value, str):
        raise UsageError(f"{OPTION}: {prefix}{key} must be a string")
    return value or None


def _tls(value: object, base: Path) -> TlsServerConfig:
    prefix = "tls_server_config."
    section = _mapping(value, "tls_server_config")
    for inline, instead in _NOT_SUPPORTED.items():
        if inline in section:
            raise UsageError(f"{OPTION}: {prefix}{inline} (inline PEM) is not supported by kdiag: use {instead}")
    _only(section, _TLS_KEYS, prefix)
    cert, key = _text(section, "cert_file", prefix), _text(section, "key_file", prefix)
    if cert is None or key is None:
        raise UsageError(f"{OPTION}: {prefix}cert_file and {prefix}key_file are both required for TLS")
    client_auth = _text(section, "client_auth_type", prefix) or "NoClientCert"
    if client_auth in ("RequestClientCert", "RequireAnyClientCert"):
        raise UsageError(f"{OPTION}: {prefix}client_auth_type {client_auth} accepts certificates no CA signed and is "
                         "not supported by kdiag: use RequireAndVerifyClientCert")
    if client_auth not in CLIENT_AUTH:
        raise UsageError(f"{OPTION}: {prefix}client_auth_type takes {', '.join(CLIENT_AUTH)}, not {client_auth!r}")
    client_ca = _text(section, "client_ca_file", prefix)
    if (client_ca is None) != (client_auth == "NoClientCert"):
        raise UsageError(f"{OPTION}: {prefix}client_ca_file goes with a client_auth_type that verifies "
                         "client certificates (RequireAndVerifyClientCert, VerifyClientCertIfGiven), and back")
    versions = [_text(section, k, prefix) or d for k, d in (("min_version", "TLS12"), ("max_version", "TLS13"))]
    for name, version in zip(("min_version", "max_version"), versions):
        if version not in TLS_VERSIONS:
            raise UsageError(f"{OPTION}: {prefix}{name} takes {', '.join(TLS_VERSIONS)}, not {version!r}")
    if TLS_VERSIONS[versions[0]] > TLS_VERSIONS[versions[1]]:
        raise UsageError(f"{OPTION}: {prefix}min_version {versions[0]} is above max_version {versions[1]}")
    config = TlsServerConfig(base / cert, base / key, base / client_ca if client_ca else None, client_auth,
                             *versions)
    config.context()  # the files are usable now, not at the first scrape
    return config


def _users(value: object) -> dict[str, bytes]:
    if value is None:
        return {}
    section = _mapping(value, "basic_auth_users")
    users = {}
    for user, hashed in section.items():
        if not isinstance(hashed, str) or not _BCRYPT.fullmatch(hashed):
            raise UsageError(f"{OPTION}: basic_auth_users.{user} must be a bcrypt hash ($2y$10$...), "
                             "e.g. from htpasswd -nBC 10 \"\" | tr -d ':\\n'")
        if ":" in user:
            raise UsageError(f"{OPTION}: basic_auth_users: a user name cannot hold ':' ({user!r})")
        users[user] = hashed.encode()
    try:
        import bcrypt  # noqa: F401 - checked now, used at the first request
    except ImportError:
        raise UsageError(f"{OPTION}: basic_auth_users needs the bcrypt package: pip install 'kdiag[watch]'") from None
    return users


def _headers(value: object) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    section = _mapping(value, "http_server_config")
    _only(section, {"headers", "http2"}, "http_server_config.")
    if not isinstance(section.get("http2", True), bool):
        raise UsageError(f"{OPTION}: http_server_config.http2 must be true or false")
    if section.get("headers") is None:
        return ()
    headers = _mapping(section["headers"], "http_server_config.headers")
    _only(headers, set(HEADERS), "http_server_config.headers.")
    shown = []
    for name, text in headers.items():
        if not isinstance(text, str) or any(c in text for c in "\r\n\0"):
            raise UsageError(f"{OPTION}: http_server_config.headers.{name} must be one line of text")
        if text:
            shown.append((name, text))
    return tuple(shown)
