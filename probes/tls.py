"""Stage ``tls``: the handshake a librdkafka client does, with the facts of why it fails.

The client side is configured from librdkafka's settings (``ssl.ca.location``, ``ssl.ca.pem``,
``ssl.certificate.location``, ``ssl.key.location``, ``ssl.key.password``, ``ssl.keystore.location`` and
``ssl.keystore.password`` (PKCS#12, read with :mod:`probes.keystore`),
``enable.ssl.certificate.verification``, ``ssl.endpoint.identification.algorithm``) and behaves as
librdkafka ≥ 2.0 does: the chain is verified against ``ssl.ca.location`` (else the system store),
the name connected to is sent as SNI unless it is an IP address, and hostname verification is on
unless ``ssl.endpoint.identification.algorithm=none``. OpenSSL does the verification, in the
handshake, exactly as it does inside librdkafka (``SSL_set1_host``: a DNS name against the DNS SANs,
an IP address against the IP SANs with OpenSSL 3).

The handshake runs over memory BIOs, so every byte in and out is seen: a peer that hangs up right
after the ClientHello (a plaintext Kafka listener, which reads the hello as a 369 MB frame), one
that answers in plaintext, and one that sends a TLS alert are told apart. The server's first flight
is read too: under TLS 1.2 it says in the clear whether the server asked for a client certificate.
Every step keeps the caller's ``timeout``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import ipaddress
import os
import socket
import ssl
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from probes.deadline import elapsed_ms
from probes.keystore import KeystoreError, encrypted_key_pem, load_pkcs12, pem_origin
from probes.results import CertificateInfo, TlsResult

# OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_EMAIL_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH.
_NAME_MISMATCH_CODES = {62, 63, 64}
_TLS_CONTENT_TYPES = {0x14, 0x15, 0x16, 0x17}
_ALERT_DESCRIPTIONS = {0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow",
                       40: "handshake_failure", 42: "bad_certificate", 43: "unsupported_certificate",
                       44: "certificate_revoked", 45: "certificate_expired", 46: "certificate_unknown",
                       47: "illegal_parameter", 48: "unknown_ca", 49: "access_denied", 50: "decode_error",
                       51: "decrypt_error", 70: "protocol_version", 71: "insufficient_security",
                       80: "internal_error", 86: "inappropriate_fallback", 109: "missing_extension",
                       112: "unrecognized_name", 116: "certificate_required", 120: "no_application_protocol"}
_PREVIEW = 64
_TRACE_LIMIT = 65536  # the server's first flight: its certificate chain and, in TLS 1.2, its CertificateRequest
_VERSIONS = {0x0304: "TLSv1.3", 0x0303: "TLSv1.2", 0x0302: "TLSv1.1", 0x0301: "TLSv1"}


class TlsAlertReceived(OSError):
    """The server ended an established TLS connection with an alert (under TLS 1.3, its verdict on the
    client certificate arrives this way, on the first read after the handshake)."""

    def __init__(self, alert: str) -> None:
        super().__init__(f"the server sent the TLS alert {alert}")
        self.alert = alert


class TlsConfigError(ValueError):
    """The client's TLS settings cannot be used (a missing CA file, a key that does not load).

    The message names the setting and the file, never a password."""


# --- the client's settings ----------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class TlsSettings:
    """The TLS half of a client's settings, under librdkafka's names."""

    ca_location: str | None = None
    ca_pem: str | None = None
    certificate_location: str | None = None
    key_location: str | None = None
    certificate_pem: str | None = None
    key_pem: str | None = field(default=None, repr=False)
    key_password: str | None = field(default=None, repr=False)
    keystore_location: str | None = None  # PKCS#12, read with the cryptography package
    keystore_password: str | None = field(default=None, repr=False)
    verify_certificate: bool = True
    verify_hostname: bool = True

    @classmethod
    def from_librdkafka(cls, settings: Mapping[str, str]) -> TlsSettings | None:
        """The TLS settings, or None when ``security.protocol`` asks for no TLS."""
        if settings.get("security.protocol", "PLAINTEXT").upper() not in ("SSL", "SASL_SSL"):
            return None

        def flag(name: str, default: bool) -> bool:
            value = settings.get(name)
            return default if value is None else value.strip().lower() in ("true", "1", "yes", "on")

        algorithm = (settings.get("ssl.endpoint.identification.algorithm") or "https").strip().lower()
        return cls(
            ca_location=settings.get("ssl.ca.location") or None,
            ca_pem=settings.get("ssl.ca.pem") or None,
            certificate_location=settings.get("ssl.certificate.location") or None,
            key_location=settings.get("ssl.key.location") or None,
            certificate_pem=settings.get("ssl.certificate.pem") or None,
            key_pem=settings.get("ssl.key.pem") or None,
            key_password=settings.get("ssl.key.password") or None,
            keystore_location=settings.get("ssl.keystore.location") or None,
            keystore_password=settings.get("ssl.keystore.password") or None,
            verify_certificate=flag("enable.ssl.certificate.verification", True),
            verify_hostname=algorithm == "https",
        )

    @property
    def trust(self) -> str:
        """What the broker's chain is verified against, in the settings' own words."""
        if not self.verify_certificate:
            return "nothing (enable.ssl.certificate.verification=false)"
        sources = []
        if self.ca_location and self.ca_location != "probe":
            sources.append(f"ssl.ca.location={self.ca_location}")
        if self.ca_pem:
            sources.append(pem_origin(self.ca_pem) or "ssl.ca.pem")
        return " and ".join(sources) or "the system CA store (no ssl.ca.location)"

    def __repr__(self) -> str:
        shown = {name: getattr(self, name) for name in ("ca_location", "certificate_location", "key_location",
                                                         "keystore_location", "verify_certificate",
                                                         "verify_hostname")}
        return f"TlsSettings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


# --- the handshake ------------------------------------------------------------------------------


class TlsStream:
    """A TLS connection over a connected socket: the socket methods ``KafkaConnection`` uses.

    ``settimeout`` bounds each ``recv`` as a whole, however many TLS records it takes to fill.
    """

    def __init__(self, sock: socket.socket, tls: ssl.SSLObject, incoming: ssl.MemoryBIO,
                 outgoing: ssl.MemoryBIO) -> None:
        self._sock = sock
        self._tls = tls
        self._incoming = incoming
        self._outgoing = outgoing
        self._timeout: float | None = sock.gettimeout()

    def settimeout(self, timeout: float | None) -> None:
        self._timeout = timeout
        self._sock.settimeout(timeout)

    def getpeername(self):  # type: ignore[no-untyped-def]
        return self._sock.getpeername()

    def sendall(self, data: bytes) -> None:
        self._tls.write(data)
        self._flush()

    def recv(self, bufsize: int) -> bytes:
        """Raises TlsAlertReceived when the server ends the connection with a TLS alert."""
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        while True:
            try:
                data = self._tls.read(bufsize)
            except ssl.SSLWantReadError:
                pass
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                return b""
            except ssl.SSLError as exc:
                alert = _alert_name(exc)
                if alert is None:
                    raise
                raise TlsAlertReceived(alert) from None
            else:
                self._flush()
                return data
            self._flush()
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout("timed out")
                self._sock.settimeout(left)
            chunk = self._sock.recv(65536)
            if chunk:
                self._incoming.write(chunk)
            else:
                self._incoming.write_eof()

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass

    def _flush(self) -> None:
        pending = self._outgoing.read()
        if pending:
            self._sock.sendall(pending)


@dataclass(frozen=True)
class Handshake:
    """A handshake's result, and the stream to speak Kafka over when it worked."""

    result: TlsResult
    stream: TlsStream | None = None


class _Trace:
    """What crossed the wire during a handshake: the start of the ClientHello and (up to
    ``_TRACE_LIMIT`` bytes) everything the server sent."""

    def __init__(self) -> None:
        self.hello = b""
        self.received = bytearray()

    @property
    def server_flight(self) -> ServerFlight:
        return read_server_flight(bytes(self.received))


class TlsClient:
    """The client side of TLS as the settings configure it: built once per run, shared by threads."""

    def __init__(self, settings: TlsSettings) -> None:
        self.settings = settings
        self.context, self.client_certificate = _context(settings)
        self._inspect = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._inspect.check_hostname = False
        self._inspect.verify_mode = ssl.CERT_NONE

    @property
    def trust(self) -> str:
        return self.settings.trust

    def handshake(self, sock: socket.socket, *, host: str, timeout: float) -> Handshake:
        """The TLS handshake on connected ``sock``, for ``host`` (SNI and hostname verification)."""
        started = time.monotonic()
        address, port = _peer(sock)
        base = TlsResult("error", host=host, address=address, port=port, sni=None if _is_ip(host) else host,
                         trust=self.trust, hostname_verification=self.settings.verify_hostname
                         and self.settings.verify_certificate, client_certificate=self.client_certificate)
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        trace = _Trace()
        try:
            tls = self.context.wrap_bio(incoming, outgoing, server_hostname=host)
            _drive(sock, tls, incoming, outgoing, trace, deadline=started + timeout)
        except ssl.SSLCertVerificationError as exc:
            status = "hostname_mismatch" if exc.verify_code in _NAME_MISMATCH_CODES else "untrusted"
            return Handshake(replace(base, status=status, verify_code=exc.verify_code,
                                     verify_error=exc.verify_message, error=f"certificate verify failed: "
                                     f"{exc.verify_message}", duration_ms=elapsed_ms(started)))
        except ssl.SSLError as exc:
            return Handshake(replace(_classify_ssl_error(base, exc, trace), duration_ms=elapsed_ms(started)))
        except (socket.timeout, TimeoutError):
            return Handshake(replace(base, status="timeout", received=_preview(trace.received) or None,
                                     client_hello_size=_size(trace.hello),
                                     error=f"no TLS handshake within {timeout:g}s", duration_ms=elapsed_ms(started)))
        except OSError as exc:
            return Handshake(replace(_closed(base, trace, f"{exc.strerror or exc}"), duration_ms=elapsed_ms(started)))
        except ValueError as exc:  # a host name the ssl module will not send as SNI
            return Handshake(replace(base, error=f"cannot start TLS for {host!r}: {exc}",
                                     duration_ms=elapsed_ms(started)))
        certificate = _peer_certificate(tls)
        result = replace(base, status="ok", version=tls.version(), cipher=(tls.cipher() or (None,))[0],
                         client_certificate_requested=trace.server_flight.certificate_requested,
                         certificate=certificate, client_hello_size=_size(trace.hello),
                         name_in_certificate=name_in_certificate(certificate, host) if certificate else None,
                         error=None, duration_ms=elapsed_ms(started))
        return Handshake(result, TlsStream(sock, tls, incoming, outgoing))

    def fetch_certificate(self, sock: socket.socket, *, host: str, timeout: float) -> CertificateInfo | None:
        """The certificate the server presents, without verifying it (for the evidence of a failure)."""
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        try:
            tls = self._inspect.wrap_bio(incoming, outgoing, server_hostname=host)
            _drive(sock, tls, incoming, outgoing, _Trace(), deadline=time.monotonic() + timeout)
            return _peer_certificate(tls)
        except (OSError, ValueError):
            return None
        finally:
            sock.close()


def _peer_certificate(tls: ssl.SSLObject) -> CertificateInfo | None:
    der = tls.getpeercert(binary_form=True)
    try:
        return decode_certificate(der) if der else None
    except CertificateParseError:
        return None


def _drive(sock: socket.socket, tls: ssl.SSLObject, incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO,
           trace: _Trace, *, deadline: float) -> None:
    """Run the handshake to its end; raises what ``do_handshake`` or the socket raises."""

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout("timed out")
        return remaining

    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            pass
        pending = outgoing.read()
        if pending:
            trace.hello = trace.hello or pending[:8]
            sock.settimeout(left())
            sock.sendall(pending)
        sock.settimeout(left())
        chunk = sock.recv(65536)
        if not chunk:
            incoming.write_eof()
            continue
        if len(trace.received) < _TRACE_LIMIT:
            trace.received += chunk[: _TRACE_LIMIT - len(trace.received)]
        incoming.write(chunk)
    pending = outgoing.read()  # TLS 1.3: the client's Finished goes out after do_handshake returns
    if pending:
        sock.settimeout(left())
        sock.sendall(pending)


def _alert_name(exc: ssl.SSLError) -> str | None:
    """The TLS alert OpenSSL says the peer sent (``SSLV3_ALERT_BAD_CERTIFICATE`` → ``bad_certificate``)."""
    reason = (exc.reason or "").upper()
    return reason.split("ALERT_", 1)[1].lower() if "ALERT_" in reason else None


def refused(base: TlsResult, alert: str, *, after_handshake: bool = False) -> TlsResult:
    """``base`` as a handshake the server refused with ``alert``."""
    if after_handshake:
        error = (f"the {base.version or 'TLS'} handshake completed on the client's side, then the server refused "
                 f"the connection with the TLS alert {alert} on the first read (a TLS 1.3 server checks the client "
                 "certificate after the client's Finished)")
    else:
        error = f"the server refused the {base.version or 'TLS'} handshake with the TLS alert {alert}"
    return replace(base, status="alert", alert=alert, alert_after_handshake=after_handshake, error=error)


def _classify_ssl_error(base: TlsResult, exc: ssl.SSLError, trace: _Trace) -> TlsResult:
    reason = (exc.reason or "").upper()
    received = bytes(trace.received)
    hello = _size(trace.hello)
    flight = trace.server_flight
    base = replace(base, version=flight.version, client_certificate_requested=flight.certificate_requested)
    alert = _alert_name(exc)
    if alert is not None:
        return replace(refused(base, alert), client_hello_size=hello)
    if received and not _looks_like_tls(received):
        return replace(base, status="not_tls", received=_preview(received), client_hello_size=hello,
                       error=f"the server answered the ClientHello with bytes that are not TLS "
                             f"({_preview(received)!r})")
    if received[:1] == b"\x15" and len(received) >= 7:
        alert = _ALERT_DESCRIPTIONS.get(received[6], f"alert {received[6]}")
        return replace(refused(base, alert), client_hello_size=hello)
    if isinstance(exc, ssl.SSLEOFError) or "EOF" in reason or "UNEXPECTED_EOF" in reason:
        return _closed(base, trace, "the peer closed the connection")
    return replace(base, status="error", client_hello_size=hello, received=_preview(received) or None,
                   error=f"TLS handshake failed: {exc.reason or exc}")


def _closed(base: TlsResult, trace: _Trace, what: str) -> TlsResult:
    received = bytes(trace.received)
    if received:
        return replace(base, status="error", received=_preview(received), client_hello_size=_size(trace.hello),
                       error=f"{what} in the middle of the TLS handshake")
    when = "right after the ClientHello" if trace.hello else "before the TLS handshake started"
    return replace(base, status="closed", client_hello_size=_size(trace.hello),
                   error=f"{what} {when}, without a TLS answer")


@dataclass(frozen=True)
class ServerFlight:
    """What the server's cleartext handshake messages say: the version its ServerHello chose, and
    whether it asked for a client certificate (TLS 1.2 sends CertificateRequest in the clear; TLS 1.3
    encrypts it, so None: not known)."""

    version: str | None = None
    certificate_requested: bool | None = None


def read_server_flight(data: bytes) -> ServerFlight:
    """The handshake messages at the start of ``data`` (the server's bytes), as far as they go in the
    clear; anything cut short or malformed ends the reading, never raises."""
    messages = bytearray()
    pos = 0
    while pos + 5 <= len(data) and data[pos] == 0x16:  # handshake records, up to the first other one
        length = int.from_bytes(data[pos + 3:pos + 5], "big")
        messages += data[pos + 5:pos + 5 + length]
        pos += 5 + length
    version, requested, pos = None, None, 0
    while pos + 4 <= len(messages):
        kind, length = messages[pos], int.from_bytes(messages[pos + 1:pos + 4], "big")
        body = bytes(messages[pos + 4:pos + 4 + length])
        if len(body) < length:
            break
        if kind == 2:  # ServerHello
            version = _server_hello_version(body)
            if version == "TLSv1.3":
                return ServerFlight(version, None)
        elif kind == 13:  # CertificateRequest
            requested = True
        elif kind == 14:  # ServerHelloDone: the server's flight is over
            return ServerFlight(version, bool(requested))
        pos += 4 + length
    return ServerFlight(version, requested)


def _server_hello_version(body: bytes) -> str | None:
    if len(body) < 35:
        return None
    legacy = int.from_bytes(body[:2], "big")
    pos = 34 + 1 + body[34] + 2 + 1  # random, session id, cipher suite, compression method
    if pos + 2 <= len(body):
        end = min(len(body), pos + 2 + int.from_bytes(body[pos:pos + 2], "big"))
        pos += 2
        while pos + 4 <= end:
            kind, length = int.from_bytes(body[pos:pos + 2], "big"), int.from_bytes(body[pos + 2:pos + 4], "big")
            if kind == 43 and length == 2:  # supported_versions: the version really chosen
                return _VERSIONS.get(int.from_bytes(body[pos + 4:pos + 6], "big"))
            pos += 4 + length
    return _VERSIONS.get(legacy)


def _looks_like_tls(data: bytes) -> bool:
    return len(data) >= 2 and data[0] in _TLS_CONTENT_TYPES and data[1] == 0x03


def _size(hello: bytes) -> int | None:
    """The frame size a plaintext Kafka listener reads from the first four bytes of the ClientHello."""
    return int.from_bytes(hello[:4], "big") if len(hello) >= 4 else None


def _preview(data: bytes) -> str:
    return "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else f"\\x{b:02x}" for b in data[:24])


def _peer(sock: socket.socket) -> tuple[str | None, int | None]:
    try:
        peer = sock.getpeername()
    except OSError:
        return None, None
    return peer[0], peer[1]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _context(settings: TlsSettings) -> tuple[ssl.SSLContext, CertificateInfo | None]:
    """The client context, and the client certificate it presents (None: it has none)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    if settings.verify_certificate:
        context.verify_mode = ssl.CERT_REQUIRED
        _load_trust(context, settings)
        context.check_hostname = settings.verify_hostname
    else:
        context.verify_mode = ssl.CERT_NONE
    return context, _load_client_certificate(context, settings)


def _load_trust(context: ssl.SSLContext, settings: TlsSettings) -> None:
    location = settings.ca_location
    try:
        if location and location != "probe":
            if os.path.isdir(location):
                context.load_verify_locations(capath=location)
            else:
                context.load_verify_locations(cafile=location)
        if settings.ca_pem:
            context.load_verify_locations(cadata=settings.ca_pem)
    except (ssl.SSLError, ValueError):  # SSLError before OSError, which it is a kind of
        where = f"ssl.ca.location {location}" if location and not settings.ca_pem else "ssl.ca.pem"
        raise TlsConfigError(f"{where}: no PEM certificate could be read from it") from None
    except FileNotFoundError:
        raise TlsConfigError(f"ssl.ca.location {location}: no such file") from None
    except OSError as exc:
        raise TlsConfigError(f"ssl.ca.location {location}: {exc.strerror or exc}") from None
    if not location or location == "probe":
        if not settings.ca_pem:
            context.load_default_certs(ssl.Purpose.SERVER_AUTH)


def _load_client_certificate(context: ssl.SSLContext, settings: TlsSettings) -> CertificateInfo | None:
    """Load the client certificate the settings name, if any; what it says, for the evidence."""
    certificate, key = settings.certificate_location, settings.key_location
    if settings.certificate_pem or settings.key_pem:
        with tempfile.TemporaryDirectory(prefix="kdiag-tls-") as scratch:
            if settings.certificate_pem:
                certificate = _private_file(scratch, "certificate.pem", settings.certificate_pem)
            if settings.key_pem:
                key = _private_file(scratch, "key.pem", settings.key_pem)
            _load_chain(context, certificate, key, settings.key_password, pem=True)
            return _first_certificate(certificate)
    if certificate is not None or key is not None:
        _load_chain(context, certificate, key, settings.key_password, pem=False)
        return _first_certificate(certificate)
    if settings.keystore_location:
        return _load_keystore(context, settings.keystore_location, settings.keystore_password)
    return None


def _load_keystore(context: ssl.SSLContext, location: str, password: str | None) -> CertificateInfo | None:
    """A PKCS#12 keystore (``ssl.keystore.location``) as the client certificate and key.

    ``load_cert_chain`` reads files only: the chain and the key go into a private directory (0700,
    files 0600) for the moment it takes, the key encrypted with a one-time password, and the
    directory is removed before this returns."""
    try:
        store = load_pkcs12(location, password, setting="ssl.keystore.location",
                            password_setting="ssl.keystore.password")
    except KeystoreError as exc:
        raise TlsConfigError(str(exc)) from None
    if store.key_pem is None or store.certificate_pem is None:
        raise TlsConfigError(f"ssl.keystore.location {location}: the PKCS#12 keystore holds no private key with "
                             "its certificate (a truststore? it goes in ssl.ca.location as PEM)")
    one_time = os.urandom(24).hex()
    with tempfile.TemporaryDirectory(prefix="kdiag-tls-") as scratch:
        chain = _private_file(scratch, "chain.pem", b"".join(store.certificates_pem).decode("ascii"))
        key = _private_file(scratch, "key.pem", encrypted_key_pem(store.key_pem, one_time.encode()).decode("ascii"))
        try:
            context.load_cert_chain(chain, key, password=one_time)
        except ssl.SSLError:
            raise TlsConfigError(f"ssl.keystore.location {location}: its private key does not match its "
                                 "certificate") from None
    return _decoded(ssl.PEM_cert_to_DER_cert(store.certificate_pem.decode("ascii")))


def _first_certificate(path: str | None) -> CertificateInfo | None:
    """The first certificate of the PEM file at ``path`` (the client's own, the rest being its chain)."""
    try:
        with open(path or "", encoding="ascii", errors="replace") as handle:
            text = handle.read(1024 * 1024)
    except OSError:
        return None
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        return None
    try:
        return _decoded(ssl.PEM_cert_to_DER_cert(text[start:stop + len(end)]))
    except ValueError:
        return None


def _decoded(der: bytes) -> CertificateInfo | None:
    try:
        return decode_certificate(der)
    except CertificateParseError:
        return None


def _private_file(directory: str, name: str, text: str) -> str:
    path = os.path.join(directory, name)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _load_chain(context: ssl.SSLContext, certificate: str | None, key: str | None, password: str | None, *,
                pem: bool) -> None:
    if certificate is None and key is None:
        return
    names = ("ssl.certificate.pem", "ssl.key.pem") if pem else ("ssl.certificate.location", "ssl.key.location")
    if certificate is None:
        raise TlsConfigError(f"{names[1]} is set without {names[0]}: a client certificate needs both")
    try:
        # Without a password, answer OpenSSL's prompt with an empty one rather than let it read the terminal.
        context.load_cert_chain(certificate, key, password=password if password is not None else (lambda: ""))
    except ssl.SSLError:  # before OSError, which it is a kind of
        hint = "wrong ssl.key.password, or" if password else "an encrypted key needs ssl.key.password, or"
        raise TlsConfigError(f"{names[0]}/{names[1]}: the client certificate and key do not load ({hint} "
                             "they are not a PEM certificate and its private key)") from None
    except FileNotFoundError as exc:
        raise TlsConfigError(f"{names[0] if exc.filename == certificate else names[1]} "
                             f"{exc.filename}: no such file") from None
    except OSError as exc:
        raise TlsConfigError(f"{names[0]}/{names[1]}: {exc.strerror or exc}") from None


# --- what a certificate says ----------------------------------------------------------------------


def name_in_certificate(certificate: CertificateInfo, host: str) -> bool:
    """Whether ``host`` matches the certificate as OpenSSL's hostname check would: an IP address
    against the IP SANs, a name against the DNS SANs (wildcard in the leftmost label only), or
    against the subject CN when the certificate has no DNS SAN at all."""
    host = host.strip("[]")
    if _is_ip(host):
        wanted = ipaddress.ip_address(host)
        return any(_same_ip(wanted, found) for found in certificate.ip_addresses)
    host = host.lower().rstrip(".")
    patterns = certificate.dns_names or tuple(n for n in (_common_name(certificate.subject),) if n)
    return any(_dns_match(pattern.lower().rstrip("."), host) for pattern in patterns)


def _same_ip(wanted: ipaddress.IPv4Address | ipaddress.IPv6Address, found: str) -> bool:
    try:
        return ipaddress.ip_address(found) == wanted
    except ValueError:
        return False


def _dns_match(pattern: str, host: str) -> bool:
    if "*" not in pattern:
        return pattern == host
    first, _, rest = pattern.partition(".")
    host_first, _, host_rest = host.partition(".")
    if "*" in rest or not rest or rest.count(".") < 1 or host_rest != rest or not host_first:
        return False
    prefix, _, suffix = first.partition("*")
    return host_first.startswith(prefix) and host_first.endswith(suffix) and len(host_first) >= len(first) - 1


def _common_name(subject: str | None) -> str | None:
    for part in _split_rdns(subject or ""):
        key, _, value = part.partition("=")
        if key.strip().upper() == "CN":
            return value.strip()
    return None


def _split_rdns(text: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return parts


class CertificateParseError(ValueError):
    """The bytes are not a DER X.509 certificate kdiag can read."""


_OID_NAMES = {"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
              "2.5.4.11": "OU", "2.5.4.5": "serialNumber", "0.9.2342.19200300.100.1.25": "DC",
              "1.2.840.113549.1.9.1": "emailAddress"}
_SUBJECT_ALT_NAME = "2.5.29.17"


class _Der:
    """A bounded cursor over DER: every read checks what is left and raises CertificateParseError."""

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.data, self.pos, self.end = data, start, len(data) if end is None else end

    @property
    def done(self) -> bool:
        return self.pos >= self.end

    def peek_tag(self) -> int | None:
        return None if self.done else self.data[self.pos]

    def read(self, expected: int | None = None) -> tuple[int, _Der]:
        """The next TLV: (tag, a cursor over its value)."""
        if self.end - self.pos < 2:
            raise CertificateParseError("truncated DER")
        tag, length = self.data[self.pos], self.data[self.pos + 1]
        pos = self.pos + 2
        if length & 0x80:
            count = length & 0x7F
            if count == 0 or count > 4 or pos + count > self.end:
                raise CertificateParseError("bad DER length")
            length = int.from_bytes(self.data[pos:pos + count], "big")
            pos += count
        if pos + length > self.end:
            raise CertificateParseError("DER value runs past its container")
        if expected is not None and tag != expected:
            raise CertificateParseError(f"expected DER tag 0x{expected:02x}, found 0x{tag:02x}")
        self.pos = pos + length
        return tag, _Der(self.data, pos, pos + length)

    def value(self) -> bytes:
        return self.data[self.pos:self.end]


def decode_certificate(der: bytes) -> CertificateInfo:
    """Subject, issuer, SANs, validity, serial and fingerprint of a DER certificate."""
    _, certificate = _Der(der).read(0x30)
    _, tbs = certificate.read(0x30)
    if tbs.peek_tag() == 0xA0:  # [0] version
        tbs.read()
    _, serial = tbs.read(0x02)
    tbs.read(0x30)  # signature algorithm
    issuer = _name(tbs.read(0x30)[1])
    _, validity = tbs.read(0x30)
    not_before, not_after = _time(*validity.read()), _time(*validity.read())
    subject = _name(tbs.read(0x30)[1])
    tbs.read(0x30)  # subject public key info
    dns_names: list[str] = []
    ip_addresses: list[str] = []
    while not tbs.done:
        tag, value = tbs.read()
        if tag != 0xA3:  # [1]/[2] unique ids
            continue
        _, extensions = value.read(0x30)
        while not extensions.done:
            _, extension = extensions.read(0x30)
            oid = _oid(extension.read(0x06)[1].value())
            if extension.peek_tag() == 0x01:  # critical
                extension.read()
            _, payload = extension.read(0x04)
            if oid == _SUBJECT_ALT_NAME:
                _subject_alt_names(payload, dns_names, ip_addresses)
    fingerprint = hashlib.sha256(der).hexdigest().upper()
    return CertificateInfo(
        subject=subject, issuer=issuer, dns_names=tuple(dns_names), ip_addresses=tuple(ip_addresses),
        not_before=not_before, not_after=not_after, serial_number=serial.value().hex().upper() or "0",
        sha256=":".join(fingerprint[i:i + 2] for i in range(0, len(fingerprint), 2)),
    )


def _subject_alt_names(payload: _Der, dns_names: list[str], ip_addresses: list[str]) -> None:
    _, names = payload.read(0x30)
    while not names.done:
        tag, value = names.read()
        if tag == 0x82:  # [2] dNSName
            dns_names.append(value.value().decode("ascii", "replace"))
        elif tag == 0x87:  # [7] iPAddress
            raw = value.value()
            if len(raw) in (4, 16):
                ip_addresses.append(str(ipaddress.ip_address(raw)))


def _name(rdns: _Der) -> str:
    parts: list[str] = []
    while not rdns.done:
        _, rdn = rdns.read(0x31)
        values = []
        while not rdn.done:
            _, pair = rdn.read(0x30)
            oid = _oid(pair.read(0x06)[1].value())
            tag, text = pair.read()
            values.append(f"{_OID_NAMES.get(oid, oid)}={_escape(_string(tag, text.value()))}")
        parts.append("+".join(values))
    return ",".join(reversed(parts))  # RFC 4514: the most specific RDN first


def _string(tag: int, raw: bytes) -> str:
    if tag == 0x1E:  # BMPString
        return raw.decode("utf-16-be", "replace")
    if tag == 0x1C:  # UniversalString
        return raw.decode("utf-32-be", "replace")
    return raw.decode("utf-8", "replace")


def _escape(value: str) -> str:
    return "".join("\\" + char if char in ',+"\\<>;' else char for char in value)


def _oid(raw: bytes) -> str:
    if not raw:
        raise CertificateParseError("empty OID")
    parts = [raw[0] // 40, raw[0] % 40] if raw[0] < 80 else [2, raw[0] - 80]
    value = 0
    for byte in raw[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


def _time(tag: int, value: _Der) -> str:
    text = value.value().decode("ascii", "replace")
    try:
        if tag == 0x17:  # UTCTime YYMMDDHHMMSSZ
            moment = _dt.datetime.strptime(text, "%y%m%d%H%M%SZ")
        elif tag == 0x18:  # GeneralizedTime YYYYMMDDHHMMSSZ
            moment = _dt.datetime.strptime(text, "%Y%m%d%H%M%SZ")
        else:
            raise CertificateParseError(f"unexpected time tag 0x{tag:02x}")
    except ValueError:
        return text
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def describe(result: TlsResult) -> str:
    """One line for a stage summary: how the handshake went and what the certificate says."""
    where = f"{result.host}:{result.port}" if result.host else "?"
    if result.ok:
        line = f"{result.version} {result.cipher} with {where}"
        cert = result.certificate
        if cert is not None:
            names = ", ".join((*cert.dns_names, *cert.ip_addresses)) or "no SANs"
            line += f"; certificate {cert.subject} ({names}) issued by {cert.issuer}, valid until {cert.not_after}"
        return line + f"; verified against {result.trust}"
    return f"{where}: {result.status}: {result.error}"

