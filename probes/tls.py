"""Stage ``tls``: the handshake a librdkafka client does, with the facts of why it fails.

The client side is the ``SSLContext`` of :mod:`probes.tls_settings`; the name connected to is sent as
SNI unless it is an IP address, and OpenSSL verifies the chain and the name in the handshake, exactly
as it does inside librdkafka (``SSL_set1_host``: a DNS name against the DNS SANs, an IP address
against the IP SANs with OpenSSL 3). What the certificate says is read with :mod:`probes.certificates`.

The handshake runs over memory BIOs, so every byte in and out is seen: a peer that hangs up right
after the ClientHello (a plaintext Kafka listener, which reads the hello as a 369 MB frame), one
that answers in plaintext, and one that sends a TLS alert are told apart. The server's first flight
is read too: under TLS 1.2 it says in the clear whether the server asked for a client certificate.
Every step keeps the caller's ``timeout``.
"""

from __future__ import annotations

import socket
import ssl
import time
from dataclasses import dataclass, replace

from probes.certificates import decode_or_none, is_ip_address, name_in_certificate
from probes.deadline import elapsed_ms
from probes.hostport import hostport
from probes.results import CertificateInfo, TlsResult
from probes.tls_settings import TlsSettings, client_context

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

    def getsockname(self):  # type: ignore[no-untyped-def]
        return self._sock.getsockname()

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
        self.context, self.client_certificate = client_context(settings)
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
        base = TlsResult("error", host=host, address=address, port=port, sni=None if is_ip_address(host) else host,
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
    return decode_or_none(der) if der else None


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


def describe(result: TlsResult) -> str:
    """One line for a stage summary: how the handshake went and what the certificate says."""
    where = hostport(result.host, result.port) if result.host else "?"
    if result.ok:
        line = f"{result.version} {result.cipher} with {where}"
        cert = result.certificate
        if cert is not None:
            names = ", ".join((*cert.dns_names, *cert.ip_addresses)) or "no SANs"
            line += f"; certificate {cert.subject} ({names}) issued by {cert.issuer}, valid until {cert.not_after}"
        return line + f"; verified against {result.trust}"
    return f"{where}: {result.status}: {result.error}"
