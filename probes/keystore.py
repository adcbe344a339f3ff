"""PKCS#12 keystores and truststores, read the way a Kafka client reads them, for Python's ``ssl`` module.

librdkafka takes a PKCS#12 keystore as ``ssl.keystore.location`` + ``ssl.keystore.password``; Java
clients take keystores and truststores as ``ssl.keystore.*`` / ``ssl.truststore.*`` (PKCS#12, or the
older JKS). Python's ``ssl`` reads neither, so the ``cryptography`` package opens the store (imported
here, lazily: only a run that has a PKCS#12 store pays for it) and hands back PEM.

A JKS or JCEKS store, a wrong password, a missing file: each is one :class:`KeystoreError` whose
message names the setting and the file, never the password, and says what to do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_JCEKS_MAGIC = b"\xce\xce\xce\xce"
MAX_STORE_BYTES = 16 * 1024 * 1024  # a keystore is kilobytes; refuse to read a mistaken multi-GB file


class KeystoreError(ValueError):
    """A keystore or truststore that cannot be used; the message never holds a password."""


@dataclass(frozen=True, repr=False)
class Pkcs12:
    """What a PKCS#12 store holds, as PEM: the private key (unencrypted: keep it in memory or in a
    0600 file), the certificate that goes with it and the other certificates (its chain, or the
    trusted certificates of a truststore)."""

    key_pem: bytes | None = field(default=None, repr=False)
    certificate_pem: bytes | None = None
    chain_pem: tuple[bytes, ...] = ()

    @property
    def certificates_pem(self) -> tuple[bytes, ...]:
        """Every certificate in the store, the key's own first."""
        return ((self.certificate_pem,) if self.certificate_pem else ()) + self.chain_pem

    def __repr__(self) -> str:
        return f"Pkcs12(key={'yes' if self.key_pem else 'no'}, certificates={len(self.certificates_pem)})"


def jks_conversion(path: str, kind: str = "keystore") -> str:
    """The ``keytool`` command that turns the JKS store at ``path`` into a PKCS#12 one."""
    target = os.path.splitext(path)[0] + ".p12"
    return (f"keytool -importkeystore -srcstoretype JKS -srckeystore {path} -deststoretype PKCS12 "
            f"-destkeystore {target} (then ssl.{kind}.location={target})")


def load_pkcs12(path: str, password: str | None, *, setting: str, password_setting: str) -> Pkcs12:
    """The store at ``path``. ``setting`` (``ssl.keystore.location``) and ``password_setting`` name the
    client settings in the messages. Raises KeystoreError."""
    data = _read(path, setting)
    kind = "truststore" if "truststore" in setting else "keystore"
    if data.startswith(_JKS_MAGIC) or data.startswith(_JCEKS_MAGIC):
        store_type = "JKS" if data.startswith(_JKS_MAGIC) else "JCEKS"
        conversion = jks_conversion(path, kind).replace("-srcstoretype JKS", f"-srcstoretype {store_type}")
        raise KeystoreError(f"{setting} {path} is a {store_type} {kind}, which only Java reads; convert it to "
                            f"PKCS#12: {conversion}")
    if not _looks_like_pkcs12(data):
        raise KeystoreError(f"{setting} {path}: not a PKCS#12 {kind} (a PEM file goes in "
                            f"{'ssl.ca.location' if kind == 'truststore' else 'ssl.certificate.location and ssl.key.location'})")
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, pkcs12

    loaded = None
    for attempt in _passwords(password):
        try:
            loaded = pkcs12.load_key_and_certificates(data, attempt)
            break
        except ValueError:
            continue
        except UnsupportedAlgorithm:
            raise KeystoreError(f"{setting} {path}: the PKCS#12 {kind} uses an encryption this build cannot "
                                "read; re-export it (keytool -importkeystore ... -deststoretype PKCS12, or "
                                "openssl pkcs12 -export)") from None
    if loaded is None:
        given = f"wrong {password_setting}" if password else f"{password_setting} is not set"
        raise KeystoreError(f"{setting} {path}: the PKCS#12 {kind} does not open ({given})")
    key, certificate, additional = loaded
    key_pem = (key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()) if key is not None else None)
    return Pkcs12(key_pem=key_pem,
                  certificate_pem=certificate.public_bytes(Encoding.PEM) if certificate is not None else None,
                  chain_pem=tuple(c.public_bytes(Encoding.PEM) for c in additional or ()))


def encrypted_key_pem(key_pem: bytes, password: bytes) -> bytes:
    """``key_pem`` encrypted with ``password`` (for the moment it has to sit in a file)."""
    from cryptography.hazmat.primitives.serialization import (BestAvailableEncryption, Encoding, PrivateFormat,
                                                              load_pem_private_key)

    key = load_pem_private_key(key_pem, password=None)
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(password))


def _passwords(password: str | None) -> tuple[bytes | None, ...]:
    if password:
        return (password.encode("utf-8"),)
    return (None, b"")  # an unprotected store, or one protected by the empty password


def _read(path: str, setting: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_STORE_BYTES + 1)
    except FileNotFoundError:
        raise KeystoreError(f"{setting} {path}: no such file") from None
    except IsADirectoryError:
        raise KeystoreError(f"{setting} {path}: a directory, not a keystore file") from None
    except OSError as exc:
        raise KeystoreError(f"{setting} {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_STORE_BYTES:
        raise KeystoreError(f"{setting} {path}: larger than {MAX_STORE_BYTES // (1024 * 1024)} MB, not a keystore")
    return data


def _looks_like_pkcs12(data: bytes) -> bool:
    """PFX ::= SEQUENCE { version INTEGER (3), ... }: a DER SEQUENCE whose first element is INTEGER 3."""
    if len(data) < 8 or data[0] != 0x30:
        return False
    length = data[1]
    pos = 2 + (length & 0x7F if length & 0x80 else 0)
    return data[pos:pos + 3] == b"\x02\x01\x03"


# --- a truststore as librdkafka's ssl.ca.pem -------------------------------------------------------

_ORIGIN = "kdiag: "


def truststore_pem(path: str, password: str | None) -> str:
    """The certificates of the PKCS#12 truststore at ``path`` as PEM text for ``ssl.ca.pem``, headed by
    one line saying where they came from (PEM readers, librdkafka's included, skip text before a
    ``-----BEGIN`` line). Raises KeystoreError."""
    store = load_pkcs12(path, password, setting="ssl.truststore.location", password_setting="ssl.truststore.password")
    if not store.certificates_pem:
        raise KeystoreError(f"ssl.truststore.location {path}: the PKCS#12 truststore holds no certificate")
    count = len(store.certificates_pem)
    origin = (f"{_ORIGIN}ssl.truststore.location={path} (PKCS#12, {count} certificate"
              f"{'' if count == 1 else 's'})")
    return origin + "\n" + b"".join(store.certificates_pem).decode("ascii")


def pem_origin(pem: str) -> str | None:
    """Where PEM text made by :func:`truststore_pem` came from, e.g. ``ssl.truststore.location=/t.p12
    (PKCS#12, 1 certificate)``; None for any other PEM text."""
    first = pem.split("\n", 1)[0]
    return first[len(_ORIGIN):].strip() if first.startswith(_ORIGIN) else None
