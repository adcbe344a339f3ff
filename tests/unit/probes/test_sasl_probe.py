"""``probes.sasl`` (PLAIN and SCRAM clients, sans-I/O) and ``probes.kafka.authenticate`` against a
scripted broker: the published SCRAM test vectors, a SCRAM server written here from the server's side
of RFC 5802, every way the handshake can refuse, and no password anywhere in what comes back."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct

import pytest

from probes import tcp
from probes.kafka import KafkaConnection, authenticate
from probes.sasl import (SCRAM_MAX_ITERATIONS, PlainExchange, SaslConfigError, SaslProtocolError, SaslSettings,
                         ScramExchange, exchange_for)
from probes.codec import Writer
from tests.fakebroker import (API_VERSIONS, DEFAULT_API_KEYS, SASL_HANDSHAKE, FakeBroker, answer_api_versions, close,
                              expect_request, respond, sasl_handshake_response, send)

TIMEOUT = 2.0
SASL_AUTHENTICATE = 36
PASSWORD = "alice-very-secret-pw"
# kdiag picks SaslAuthenticate v1 here: non-flexible, so the scripted broker frames it like the others.
API_KEYS = (*DEFAULT_API_KEYS, (SASL_AUTHENTICATE, 0, 1))
ENABLED = ("PLAIN", "SCRAM-SHA-512")


# --- SCRAM against the published vectors ---------------------------------------------------------


def run_exchange(exchange, server_first: str, server_final: str) -> tuple[bytes, bytes]:
    first = exchange.first()
    final = exchange.respond(server_first.encode())
    assert exchange.respond(server_final.encode()) is None
    return first, final


def test_scram_sha_256_reproduces_the_rfc_7677_example() -> None:
    exchange = ScramExchange("sha256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    first, final = run_exchange(
        exchange,
        "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
    assert first == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    assert final == (b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                     b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")


def test_scram_reproduces_the_rfc_5802_sha_1_example() -> None:
    exchange = ScramExchange("sha1", "user", "pencil", nonce="fyko+d2lbbFgONRv9qkxdawL")
    _first, final = run_exchange(
        exchange, "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
        "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")
    assert final == b"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="


def test_scram_rejects_a_server_signature_that_does_not_prove_the_password() -> None:
    exchange = ScramExchange("sha256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    exchange.first()
    exchange.respond(b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
    with pytest.raises(SaslProtocolError, match="signature does not verify") as raised:
        exchange.respond(b"v=" + base64.b64encode(b"\0" * 32))
    assert "pencil" not in str(raised.value)


@pytest.mark.parametrize(("server_first", "complaint"), [
    ("r=someone-elses-nonce,s=QSXCR+Q6sek8bf92,i=4096", "does not extend"),
    ("r=abcXYZ,s=QSXCR+Q6sek8bf92", "lacks"),
    (f"r=abcXYZ,s=QSXCR+Q6sek8bf92,i={SCRAM_MAX_ITERATIONS * 1000}", "iterations"),
    ("r=abcXYZ,s=not base64!,i=4096", "does not parse"),
    ("m=ext,r=abcXYZ,s=QSXCR+Q6sek8bf92,i=4096", "extension"),
])
def test_scram_refuses_a_malformed_or_hostile_server_first_message(server_first: str, complaint: str) -> None:
    exchange = ScramExchange("sha512", "alice", PASSWORD, nonce="abc")
    exchange.first()
    with pytest.raises(SaslProtocolError, match=complaint):
        exchange.respond(server_first.encode())


def test_scram_escapes_equals_and_comma_in_the_user_name() -> None:
    assert ScramExchange("sha512", "a=b,c", PASSWORD, nonce="n").first() == b"n,,n=a=3Db=2Cc,r=n"


def test_plain_is_one_token_with_an_empty_authorization_id() -> None:
    exchange = PlainExchange("alice", PASSWORD)
    assert exchange.first() == b"\0alice\0" + PASSWORD.encode()
    assert exchange.respond(b"") is None
    assert PASSWORD not in repr(exchange)


# --- settings ------------------------------------------------------------------------------------


def test_settings_are_read_only_for_sasl_protocols() -> None:
    assert SaslSettings.from_librdkafka({"security.protocol": "SSL"}) is None
    settings = SaslSettings.from_librdkafka({"security.protocol": "SASL_SSL", "sasl.mechanisms": "scram-sha-512",
                                             "sasl.username": "alice", "sasl.password": PASSWORD})
    assert (settings.mechanism, settings.username, settings.explicit, settings.probed) == (
        "SCRAM-SHA-512", "alice", True, True)
    assert PASSWORD not in repr(settings)


def test_no_mechanism_means_librdkafkas_default_gssapi_which_kdiag_does_not_probe() -> None:
    settings = SaslSettings.from_librdkafka({"security.protocol": "SASL_PLAINTEXT"})
    assert (settings.mechanism, settings.explicit, settings.probed) == ("GSSAPI", False, False)


def test_plain_without_credentials_is_a_config_error_naming_what_is_missing() -> None:
    with pytest.raises(SaslConfigError, match="sasl.mechanisms=PLAIN needs sasl.password"):
        SaslSettings.from_librdkafka({"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN",
                                      "sasl.username": "alice"})


# --- authenticate() over a scripted broker -------------------------------------------------------


class ScramServer:
    """The server's side of SCRAM-SHA-512 (RFC 5802 section 3), for one user."""

    def __init__(self, password: str, *, salt: bytes = b"kdiag-salt", iterations: int = 4096) -> None:
        salted = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
        self.stored_key = hashlib.sha512(hmac.new(salted, b"Client Key", "sha512").digest()).digest()
        self.server_key = hmac.new(salted, b"Server Key", "sha512").digest()
        self.salt, self.iterations = salt, iterations
        self.first_bare = self.server_first = ""

    def first(self, client_first: bytes) -> bytes:
        gs2, _, self.first_bare = client_first.decode().partition("n,,")
        assert gs2 == ""
        nonce = dict(part.split("=", 1) for part in self.first_bare.split(","))["r"]
        self.server_first = f"r={nonce}srv-nonce,s={base64.b64encode(self.salt).decode()},i={self.iterations}"
        return self.server_first.encode()

    def final(self, client_final: bytes) -> bytes | None:
        without_proof, _, proof = client_final.decode().rpartition(",p=")
        auth_message = f"{self.first_bare},{self.server_first},{without_proof}".encode()
        signature = hmac.new(self.stored_key, auth_message, "sha512").digest()
        client_key = bytes(a ^ b for a, b in zip(base64.b64decode(proof), signature))
        if hashlib.sha512(client_key).digest() != self.stored_key:
            return None
        return b"v=" + base64.b64encode(hmac.new(self.server_key, auth_message, "sha512").digest())


def auth_bytes(body: bytes) -> bytes:
    """SaslAuthenticate v0/v1 request body: auth_bytes as int32-length bytes."""
    (size,) = struct.unpack_from(">i", body)
    return body[4:4 + size]


def authenticate_response(*, error_code: int = 0, message: str | None = None, token: bytes = b"",
                          lifetime_ms: int = 0) -> bytes:
    """SaslAuthenticateResponse v1 body, field by field as the schema lists them."""
    w = Writer()
    w.int16(error_code)
    w.string(message)
    w.nullable_bytes(token, flexible=False)
    w.int64(lifetime_ms)
    return w.getvalue()


def handshake(error_code: int = 0, mechanisms=ENABLED):
    return respond(SASL_HANDSHAKE, lambda header, body: sasl_handshake_response(error_code, mechanisms))


def run_authenticate(broker: FakeBroker, settings: SaslSettings):
    result, sock = tcp.connect("127.0.0.1", broker.port, timeout=TIMEOUT)
    assert sock is not None, result
    with KafkaConnection(sock) as conn:
        return authenticate(conn, settings, timeout=TIMEOUT, endpoint=f"127.0.0.1:{broker.port}")


def settings(mechanism: str = "PLAIN", password: str = PASSWORD) -> SaslSettings:
    return SaslSettings(mechanism, "alice", password)


def test_plain_authenticates_with_one_token() -> None:
    tokens: list[bytes] = []

    def accept(header, body):
        tokens.append(auth_bytes(body))
        return authenticate_response(lifetime_ms=3_600_000)

    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(),
                     respond(SASL_AUTHENTICATE, accept)]) as broker:
        result, failed = run_authenticate(broker, settings())
    assert failed is None
    assert (result.status, result.mechanism, result.username) == ("ok", "PLAIN", "alice")
    assert (result.handshake_version, result.authenticate_version) == (1, 1)
    assert result.enabled_mechanisms == ENABLED
    assert result.session_lifetime_ms == 3_600_000
    assert tokens == [b"\0alice\0" + PASSWORD.encode()]


def test_scram_sha_512_authenticates_against_a_server_that_checks_the_proof() -> None:
    server = ScramServer(PASSWORD)
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(),
                     respond(SASL_AUTHENTICATE, lambda h, body: authenticate_response(
                         token=server.first(auth_bytes(body)))),
                     respond(SASL_AUTHENTICATE, lambda h, body: authenticate_response(
                         token=server.final(auth_bytes(body)) or b""))]) as broker:
        result, _ = run_authenticate(broker, settings("SCRAM-SHA-512"))
    assert result.status == "ok", result


def test_a_wrong_password_is_auth_failed_with_the_brokers_message_and_no_password() -> None:
    server = ScramServer(PASSWORD)
    message = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"

    def final(header, body):
        if server.final(auth_bytes(body)) is None:
            return authenticate_response(error_code=58, message=message)
        return authenticate_response(token=b"v=unexpected")

    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(),
                     respond(SASL_AUTHENTICATE, lambda h, body: authenticate_response(
                         token=server.first(auth_bytes(body)))),
                     respond(SASL_AUTHENTICATE, final)]) as broker:
        result, _ = run_authenticate(broker, settings("SCRAM-SHA-512", password="wrong-password-77"))
    assert (result.status, result.error_code, result.error_name) == ("auth_failed", 58, "SASL_AUTHENTICATION_FAILED")
    assert result.error_message == message
    assert "wrong-password-77" not in repr(result) and PASSWORD not in repr(result)


def test_a_mechanism_the_listener_does_not_enable_stops_at_the_handshake() -> None:
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(33)]) as broker:
        result, _ = run_authenticate(broker, settings("SCRAM-SHA-256"))
        sent = [h.api_key for h in broker.requests_on(0)]
    assert (result.status, result.error_name) == ("unsupported_mechanism", "UNSUPPORTED_SASL_MECHANISM")
    assert result.enabled_mechanisms == ENABLED
    assert sent == [API_VERSIONS, SASL_HANDSHAKE]  # no credentials were sent


def test_a_listener_without_sasl_answers_illegal_sasl_state() -> None:
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(34, ())]) as broker:
        result, _ = run_authenticate(broker, settings())
    assert (result.status, result.enabled_mechanisms) == ("not_sasl", ())


def test_gssapi_and_oauthbearer_are_checked_for_but_not_probed() -> None:
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)),
                     handshake(0, ("OAUTHBEARER",))]) as broker:
        result, _ = run_authenticate(broker, SaslSettings("OAUTHBEARER"))
        sent = [h.api_key for h in broker.requests_on(0)]
    assert result.status == "not_probed"
    assert "not probed by kdiag" in result.error
    assert sent == [API_VERSIONS, SASL_HANDSHAKE]


def test_a_server_that_cannot_prove_the_password_is_an_error() -> None:
    server = ScramServer("some other password")
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(),
                     respond(SASL_AUTHENTICATE, lambda h, body: authenticate_response(
                         token=server.first(auth_bytes(body)))),
                     respond(SASL_AUTHENTICATE, lambda h, body: authenticate_response(
                         token=b"v=" + base64.b64encode(b"\0" * 64)))]) as broker:
        result, _ = run_authenticate(broker, settings("SCRAM-SHA-512"))
    assert result.status == "error"
    assert "signature does not verify" in result.error


def test_a_tls_listener_blocks_sasl_and_says_what_it_answered() -> None:
    with FakeBroker([send(b"\x15\x03\x03\x00\x02\x02\x50")]) as broker:
        result, failed = run_authenticate(broker, settings())
    assert result.status == "skip"
    assert failed is not None and failed.status == "tls_expected"


def test_exchange_for_refuses_mechanisms_kdiag_does_not_speak() -> None:
    with pytest.raises(ValueError, match="GSSAPI"):
        exchange_for(SaslSettings("GSSAPI"))


def test_sasl_settings_a_client_would_refuse_are_a_usage_error_on_the_command_line() -> None:
    import io

    from kdiag.cli import Environment, main

    env = Environment(stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["bootstrap", "127.0.0.1:1", "-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                 "-X", f"sasl.password={PASSWORD}"], env=env)
    assert code == 2
    assert env.stderr.getvalue() == ("kdiag: error: sasl.mechanisms=SCRAM-SHA-512 needs sasl.username (Java: "
                                     'sasl.jaas.config with username="..." password="...")\n')


# --- a peer that closes instead of answering (kfake on a wrong password; Kafka before KIP-152; proxies) ----------


def test_a_close_instead_of_the_saslauthenticate_answer_is_closed_with_the_bytes_sent_and_when() -> None:
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), handshake(),
                     expect_request(SASL_AUTHENTICATE), close()]) as broker:
        result, failed = run_authenticate(broker, settings(password="wrong-password-77"))
    assert failed is None
    assert (result.status, result.closed_after) == ("closed", "SaslAuthenticate")
    assert result.sent_bytes > len(b"\0alice\0wrong-password-77")  # the whole request frame, header included
    assert 0 <= result.closed_after_ms < TIMEOUT * 1000
    assert "closed the connection" in result.error and "instead of answering SaslAuthenticate" in result.error
    assert "wrong-password-77" not in repr(result)


def test_a_close_instead_of_the_handshake_answer_is_closed_after_saslhandshake() -> None:
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(API_KEYS)), expect_request(SASL_HANDSHAKE),
                     close()]) as broker:
        result, _ = run_authenticate(broker, settings())
    assert (result.status, result.closed_after) == ("closed", "SaslHandshake")


def test_a_broker_with_only_saslhandshake_v0_is_too_old_with_both_version_ranges() -> None:
    before_1_0 = tuple((key, low, 0 if key == SASL_HANDSHAKE else high) for key, low, high in API_KEYS
                       if key != SASL_AUTHENTICATE)
    with FakeBroker([respond(API_VERSIONS, answer_api_versions(before_1_0))]) as broker:
        result, _ = run_authenticate(broker, settings())
        sent = [h.api_key for h in broker.requests_on(0)]
    assert result.status == "too_old"
    assert (result.version_gap.api, result.version_gap.broker_max, result.version_gap.kdiag_min) == (
        "SaslHandshake", 0, 1)
    assert sent == [API_VERSIONS]  # nothing asked that the broker does not speak
