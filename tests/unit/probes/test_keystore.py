"""probes.keystore (PKCS#12 stores, JKS refused with the keytool command) and the server's cleartext
first flight the TLS probe reads (the ServerHello's version, TLS 1.2's CertificateRequest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.keystore import KeystoreError, load_pkcs12, pem_origin
from probes.tls import read_server_flight

SETTING = {"setting": "ssl.keystore.location", "password_setting": "ssl.keystore.password"}


def record(*messages: bytes) -> bytes:
    """One TLS handshake record holding ``messages``."""
    payload = b"".join(messages)
    return b"\x16\x03\x03" + len(payload).to_bytes(2, "big") + payload


def handshake(kind: int, body: bytes) -> bytes:
    return bytes([kind]) + len(body).to_bytes(3, "big") + body


def server_hello(legacy: int = 0x0303, supported_version: int | None = None) -> bytes:
    extensions = b""
    if supported_version is not None:
        extensions = (b"\x00\x2b" b"\x00\x02" + supported_version.to_bytes(2, "big"))  # supported_versions
    body = (legacy.to_bytes(2, "big") + bytes(32)  # legacy_version, random
            + b"\x00"  # session id: empty
            + b"\x13\x01" + b"\x00"  # cipher suite, compression method
            + len(extensions).to_bytes(2, "big") + extensions)
    return handshake(2, body)


CERTIFICATE = handshake(11, b"\x00\x00\x00")  # an empty certificate list stands in for the chain
CERTIFICATE_REQUEST = handshake(13, b"\x01\x01\x00\x00")
SERVER_HELLO_DONE = handshake(14, b"")


def test_a_tls_1_2_flight_with_a_certificate_request_asks_for_a_client_certificate() -> None:
    flight = read_server_flight(record(server_hello(), CERTIFICATE) + record(CERTIFICATE_REQUEST, SERVER_HELLO_DONE))
    assert (flight.version, flight.certificate_requested) == ("TLSv1.2", True)


def test_a_tls_1_2_flight_without_one_does_not() -> None:
    flight = read_server_flight(record(server_hello(), CERTIFICATE, SERVER_HELLO_DONE))
    assert (flight.version, flight.certificate_requested) == ("TLSv1.2", False)


def test_tls_1_3_is_told_by_supported_versions_and_its_certificate_request_is_not_known() -> None:
    flight = read_server_flight(record(server_hello(supported_version=0x0304)) + b"\x14\x03\x03\x00\x01\x01")
    assert (flight.version, flight.certificate_requested) == ("TLSv1.3", None)


@pytest.mark.parametrize("data", [b"", b"\x15\x03\x03\x00\x02\x02\x28", b"HTTP/1.1 400", record(b"\x02\x00\x00"),
                                  record(server_hello())[:20]])
def test_an_alert_garbage_or_a_cut_flight_says_nothing_and_never_raises(data: bytes) -> None:
    flight = read_server_flight(data)
    assert flight.certificate_requested is None


def test_a_jks_store_names_the_keytool_conversion(tmp_path: Path) -> None:
    store = tmp_path / "client.jks"
    store.write_bytes(b"\xfe\xed\xfe\xed" + bytes(32))
    with pytest.raises(KeystoreError) as raised:
        load_pkcs12(str(store), "changeit", **SETTING)
    assert str(raised.value) == (f"ssl.keystore.location {store} is a JKS keystore, which only Java reads; convert it "
                                 f"to PKCS#12: keytool -importkeystore -srcstoretype JKS -srckeystore {store} "
                                 f"-deststoretype PKCS12 -destkeystore {tmp_path / 'client.p12'} (then "
                                 f"ssl.keystore.location={tmp_path / 'client.p12'})")


@pytest.mark.parametrize(("content", "expected"), [
    (None, "no such file"),
    (b"-----BEGIN CERTIFICATE-----\n", "not a PKCS#12 keystore (a PEM file goes in ssl.certificate.location and "
                                       "ssl.key.location)"),
])
def test_a_missing_or_pem_keystore_is_one_clear_message(tmp_path: Path, content: bytes | None, expected: str) -> None:
    path = tmp_path / "client.p12"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(KeystoreError) as raised:
        load_pkcs12(str(path), "changeit", **SETTING)
    assert str(raised.value) == f"ssl.keystore.location {path}: {expected}"


def test_pem_origin_is_only_read_from_kdiag_s_own_header() -> None:
    assert pem_origin("kdiag: ssl.truststore.location=/t.p12 (PKCS#12, 1 certificate)\n-----BEGIN") == (
        "ssl.truststore.location=/t.p12 (PKCS#12, 1 certificate)")
    assert pem_origin("-----BEGIN CERTIFICATE-----\n") is None
