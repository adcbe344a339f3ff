"""Stage ``sasl``: the client side of the SASL mechanisms kdiag authenticates with, sans-I/O.

PLAIN (RFC 4616) and SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677), as Kafka speaks them inside
SaslAuthenticate: each exchange turns the server's token into the next client token and checks the
server's proof at the end. ``probes.kafka.authenticate`` carries the tokens over a connection.
GSSAPI and OAUTHBEARER need a Kerberos ticket or a token endpoint: kdiag checks that the listener
enables them and says it did not authenticate, rather than pretend.

The password is read once to derive the proof and is never part of a result, an exception or a
``repr``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

PROBED_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_SCRAM_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
# Kafka's ScramMechanism allows 4096..16384 iterations; a server asking for more is refused before
# PBKDF2 runs, so a hostile peer cannot spend the run's deadline in a key derivation.
SCRAM_MAX_ITERATIONS = 16384
SCRAM_MIN_ITERATIONS = 4096


class SaslConfigError(ValueError):
    """The client's SASL settings cannot be used as they are (a mechanism without its credentials)."""


class SaslProtocolError(Exception):
    """The server's SASL messages do not follow the mechanism (or do not prove it knows the password)."""


@dataclass(frozen=True, repr=False)
class SaslSettings:
    """The SASL half of a client's settings, under librdkafka's names."""

    mechanism: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    explicit: bool = True  # False: sasl.mechanisms unset, librdkafka's default GSSAPI applies

    @classmethod
    def from_librdkafka(cls, settings: Mapping[str, str]) -> SaslSettings | None:
        """The SASL settings, or None when ``security.protocol`` asks for no SASL."""
        if not settings.get("security.protocol", "PLAINTEXT").upper().startswith("SASL_"):
            return None
        configured = (settings.get("sasl.mechanisms") or settings.get("sasl.mechanism") or "").strip()
        mechanism = configured.upper() or "GSSAPI"
        username, password = settings.get("sasl.username"), settings.get("sasl.password")
        missing = [name for name, absent in (("sasl.username", not username), ("sasl.password", password is None))
                   if absent]
        if mechanism in PROBED_MECHANISMS and missing:
            raise SaslConfigError(f"sasl.mechanisms={mechanism} needs {' and '.join(missing)} (Java: "
                                  'sasl.jaas.config with username="..." password="...")')
        return cls(mechanism, username, password, explicit=bool(configured))

    @property
    def probed(self) -> bool:
        """Whether kdiag authenticates with this mechanism (else it only checks it is enabled)."""
        return self.mechanism in PROBED_MECHANISMS

    def __repr__(self) -> str:
        return f"SaslSettings(mechanism={self.mechanism!r}, username={self.username!r}, password=***)"


class SaslExchange(Protocol):
    """One mechanism's client: ``first()`` is the initial token, ``respond(server)`` the next one or
    None when the exchange is complete."""

    def first(self) -> bytes: ...

    def respond(self, server: bytes) -> bytes | None: ...


def exchange_for(settings: SaslSettings, *, nonce: str | None = None) -> SaslExchange:
    """The client exchange for ``settings.mechanism`` (one of PROBED_MECHANISMS)."""
    if settings.mechanism == "PLAIN":
        return PlainExchange(settings.username or "", settings.password or "")
    if settings.mechanism in _SCRAM_HASHES:
        return ScramExchange(_SCRAM_HASHES[settings.mechanism], settings.username or "", settings.password or "",
                             nonce=nonce)
    raise ValueError(f"kdiag does not authenticate with {settings.mechanism}")


class PlainExchange:
    """RFC 4616: one message, ``authzid NUL authcid NUL passwd`` with an empty authzid."""

    def __init__(self, username: str, password: str) -> None:
        self._token = b"\0" + username.encode("utf-8") + b"\0" + password.encode("utf-8")

    def first(self) -> bytes:
        return self._token

    def respond(self, server: bytes) -> bytes | None:
        return None

    def __repr__(self) -> str:
        return "PlainExchange(***)"


class ScramExchange:
    """RFC 5802 client, channel binding not supported (gs2 header ``n,,``), as Kafka's clients do.

    Kafka uses the password's UTF-8 bytes as they are (no SASLprep), on both sides.
    """

    def __init__(self, hash_name: str, username: str, password: str, *, nonce: str | None = None) -> None:
        self._hash = hash_name
        self._password = password.encode("utf-8")
        self._nonce = nonce or base64.b64encode(secrets.token_bytes(24)).decode("ascii")
        self._first_bare = f"n={_saslname(username)},r={self._nonce}"
        self._server_signature: bytes | None = None
        self._state = "first"

    def __repr__(self) -> str:
        return f"ScramExchange({self._hash}, state={self._state})"

    def first(self) -> bytes:
        self._state = "server-first"
        return ("n,," + self._first_bare).encode("utf-8")

    def respond(self, server: bytes) -> bytes | None:
        if self._state == "server-first":
            return self._client_final(server.decode("utf-8", "replace"))
        if self._state == "server-final":
            self._verify_server_final(server.decode("utf-8", "replace"))
            return None
        raise SaslProtocolError(f"unexpected SCRAM message in state {self._state}")

    def _client_final(self, server_first: str) -> bytes:
        fields = _attributes(server_first)
        if "m" in fields:
            raise SaslProtocolError("the server's SCRAM message asks for an extension kdiag does not know (m=)")
        nonce, salt_text, iterations_text = fields.get("r"), fields.get("s"), fields.get("i")
        if not nonce or salt_text is None or iterations_text is None:
            raise SaslProtocolError("the server's first SCRAM message lacks its nonce, salt or iteration count")
        if not nonce.startswith(self._nonce) or nonce == self._nonce:
            raise SaslProtocolError("the server's SCRAM nonce does not extend kdiag's")
        try:
            salt = base64.b64decode(salt_text, validate=True)
            iterations = int(iterations_text)
        except ValueError:
            raise SaslProtocolError("the server's SCRAM salt or iteration count does not parse") from None
        if not SCRAM_MIN_ITERATIONS <= iterations <= SCRAM_MAX_ITERATIONS:
            raise SaslProtocolError(f"the server asks for {iterations} SCRAM iterations; Kafka uses "
                                    f"{SCRAM_MIN_ITERATIONS}-{SCRAM_MAX_ITERATIONS}")
        salted = hashlib.pbkdf2_hmac(self._hash, self._password, salt, iterations)
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c={base64.b64encode(b'n,,').decode('ascii')},r={nonce}"
        auth_message = f"{self._first_bare},{server_first},{without_proof}".encode("utf-8")
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        self._state = "server-final"
        return f"{without_proof},p={base64.b64encode(proof).decode('ascii')}".encode("utf-8")

    def _verify_server_final(self, server_final: str) -> None:
        self._state = "done"
        fields = _attributes(server_final)
        if "e" in fields:
            raise SaslProtocolError(f"the server ended the SCRAM exchange with error {fields['e']!r}")
        try:
            verifier = base64.b64decode(fields.get("v", ""), validate=True)
        except ValueError:
            verifier = b""
        if self._server_signature is None or not hmac.compare_digest(verifier, self._server_signature):
            raise SaslProtocolError("the server's SCRAM signature does not verify: it does not hold this "
                                    "user's credentials (or something between is not the broker)")

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()


def _saslname(username: str) -> str:
    """RFC 5802 5.1: ``=`` and ``,`` in a user name are sent as ``=3D`` and ``=2C``."""
    return username.replace("=", "=3D").replace(",", "=2C")


def _attributes(message: str) -> dict[str, str]:
    """``a=1,b=2`` as a dict; values may hold ``=`` (base64), never ``,``."""
    fields: dict[str, str] = {}
    for part in message.split(","):
        key, equals, value = part.partition("=")
        if equals and len(key) == 1:
            fields.setdefault(key, value)
    return fields
