"""The client's TLS settings under librdkafka's names, and the ``ssl.SSLContext`` they configure.

The client side is configured from librdkafka's settings (``ssl.ca.location``, ``ssl.ca.pem``,
``ssl.certificate.location``, ``ssl.key.location``, ``ssl.key.password``, ``ssl.keystore.location`` and
``ssl.keystore.password`` (PKCS#12, read with :mod:`probes.keystore`),
``enable.ssl.certificate.verification``, ``ssl.endpoint.identification.algorithm``) and behaves as
librdkafka >= 2.0 does: the chain is verified against ``ssl.ca.location`` (else the system store) and
hostname verification is on unless ``ssl.endpoint.identification.algorithm=none``. A setting that
cannot be used (a missing CA file, a key that does not load) is a ``TlsConfigError`` naming the
setting and the file, never a password.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field

from probes.certificates import decode_or_none
from probes.keystore import KeystoreError, encrypted_key_pem, load_pkcs12, pem_origin
from probes.results import CertificateInfo


class TlsConfigError(ValueError):
    """The client's TLS settings cannot be used (a missing CA file, a key that does not load).

    The message names the setting and the file, never a password."""


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


def client_context(settings: TlsSettings) -> tuple[ssl.SSLContext, CertificateInfo | None]:
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
    return decode_or_none(ssl.PEM_cert_to_DER_cert(store.certificate_pem.decode("ascii")))


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
        return decode_or_none(ssl.PEM_cert_to_DER_cert(text[start:stop + len(end)]))
    except ValueError:
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
