"""``probes.tls`` against TLS (and not-TLS) peers on loopback: the handshake librdkafka does, how each
failure is told apart, the certificate facts, and the settings under librdkafka's names.

Certificates are made with ``openssl`` for the module; the peers are threads in this process.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from probes import tcp
from probes.certificates import decode_certificate, name_in_certificate
from probes.kafka import start_tls
from probes.results import CertificateInfo
from probes.tls import TlsClient, describe
from probes.tls_settings import TlsConfigError, TlsSettings
from tests.fakebroker import API_VERSIONS, FakeBroker, answer_api_versions, close, respond

TIMEOUT = 3.0
KEY_PASSWORD = "key-pass-secret-9"


# --- certificates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pki:
    directory: Path
    ca: Path
    both: tuple[Path, Path]  # (certificate, key): SAN DNS:localhost, IP:127.0.0.1
    dns_only: tuple[Path, Path]  # SAN DNS:localhost
    wildcard: tuple[Path, Path]  # SAN DNS:*.kafka.test, IP:::1
    client: Path  # a client certificate (extendedKeyUsage clientAuth)
    encrypted_key: Path  # its key, encrypted with KEY_PASSWORD


def openssl(directory: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True, timeout=60)


def issue(directory: Path, name: str, san: str, usage: str = "serverAuth") -> tuple[Path, Path]:
    openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/O=kdiag tests/CN={name}")
    (directory / f"{name}.ext").write_text(f"subjectAltName={san}\nextendedKeyUsage={usage}\n")
    openssl(directory, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")
    return directory / f"{name}.pem", directory / f"{name}.key"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    directory = tmp_path_factory.mktemp("tls-pki")
    openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
            "-days", "2", "-subj", "/CN=kdiag unit CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    client_certificate, _key = issue(directory, "client", "DNS:client", usage="clientAuth")
    openssl(directory, "pkey", "-in", "client.key", "-aes256", "-passout", f"pass:{KEY_PASSWORD}",
            "-out", "client.enc.key")
    return Pki(directory, directory / "ca.pem", issue(directory, "both", "DNS:localhost,IP:127.0.0.1"),
               issue(directory, "dns-only", "DNS:localhost"), issue(directory, "wildcard", "DNS:*.kafka.test,IP:::1"),
               client_certificate, directory / "client.enc.key")


# --- peers ---------------------------------------------------------------------------------------


class Peer:
    """A loopback server running ``handle(conn)`` for each connection on its own thread."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        self._handle = handle
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self._listener.settimeout(0.05)
        while not self.stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._run, args=(conn,), daemon=True).start()

    def _run(self, conn: socket.socket) -> None:
        with conn:
            try:
                self._handle(conn)
            except OSError:
                pass

    def stop(self) -> None:
        self.stopping.set()
        self._thread.join(2)
        self._listener.close()


@pytest.fixture
def peer() -> Iterator[Callable[[Callable[[socket.socket], None]], Peer]]:
    started: list[Peer] = []

    def start(handle: Callable[[socket.socket], None]) -> Peer:
        started.append(Peer(handle))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def server_context(certificate: tuple[Path, Path], *, require_client_certificate: Path | None = None,
                   maximum: ssl.TLSVersion | None = None) -> ssl.SSLContext:
    """The test servers' TLS: ``certificate`` (cert, key), a highest version, client certificates signed by
    the CA at ``require_client_certificate`` demanded."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    if maximum is not None:
        context.maximum_version = maximum
    if require_client_certificate is not None:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(require_client_certificate)
    return context


def tls_server(certificate: tuple[Path, Path], *, seen_sni: list | None = None,
               require_client_certificate: Path | None = None,
               maximum: ssl.TLSVersion | None = None) -> Callable[[socket.socket], None]:
    """A TLS server that echoes what it reads; it records the SNI each client sent."""
    context = server_context(certificate, require_client_certificate=require_client_certificate, maximum=maximum)
    if seen_sni is not None:
        context.sni_callback = lambda sslobj, name, ctx: seen_sni.append(name)

    def handle(conn: socket.socket) -> None:
        conn.settimeout(TIMEOUT)
        with context.wrap_socket(conn, server_side=True) as tls:
            while data := tls.recv(4096):
                tls.sendall(data)

    return handle


def hang_up_after_hello(conn: socket.socket) -> None:
    conn.recv(4096)  # what a plaintext Kafka listener does: the hello is a 369 MB "frame", so it closes


def answer_http(conn: socket.socket) -> None:
    conn.recv(4096)
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def stay_silent(conn: socket.socket) -> None:
    time.sleep(TIMEOUT)


def connected(port: int) -> socket.socket:
    result, sock = tcp.connect("127.0.0.1", port, timeout=TIMEOUT)
    assert sock is not None, result
    return sock


def client(pki: Pki | None = None, **settings: str) -> TlsClient:
    base = {"security.protocol": "SSL"}
    if pki is not None:
        base["ssl.ca.location"] = str(pki.ca)
    parsed = TlsSettings.from_librdkafka({**base, **settings})
    assert parsed is not None
    return TlsClient(parsed)


# --- the handshake -------------------------------------------------------------------------------


def test_handshake_verifies_the_chain_sends_sni_and_reports_the_certificate(pki: Pki, peer) -> None:
    seen: list[str | None] = []
    server = peer(tls_server(pki.both, seen_sni=seen))
    shake = client(pki).handshake(connected(server.port), host="localhost", timeout=TIMEOUT)
    assert shake.result.status == "ok", shake.result
    result = shake.result
    assert (result.host, result.address, result.port, result.sni) == ("localhost", "127.0.0.1", server.port,
                                                                      "localhost")
    assert seen == ["localhost"]
    assert result.version in ("TLSv1.2", "TLSv1.3") and result.cipher
    assert result.certificate.dns_names == ("localhost",)
    assert result.certificate.ip_addresses == ("127.0.0.1",)
    assert result.certificate.issuer == "CN=kdiag unit CA"
    assert result.name_in_certificate is True
    assert result.trust == f"ssl.ca.location={pki.ca}"
    assert "verified against ssl.ca.location=" in describe(result)
    shake.stream.settimeout(TIMEOUT)
    shake.stream.sendall(b"ping")
    assert shake.stream.recv(100) == b"ping"
    shake.stream.close()


def test_an_ip_address_is_sent_without_sni_and_matched_against_the_ip_sans(pki: Pki, peer) -> None:
    seen: list[str | None] = []
    server = peer(tls_server(pki.both, seen_sni=seen))
    shake = client(pki).handshake(connected(server.port), host="127.0.0.1", timeout=TIMEOUT)
    assert shake.result.status == "ok", shake.result
    assert shake.result.sni is None and seen == [None]  # librdkafka sends no SNI for an address either
    shake.stream.close()


def test_an_ip_address_that_is_only_a_dns_name_in_the_certificate_is_a_hostname_mismatch(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.dns_only))
    sock = connected(server.port)
    result, conn = start_tls(sock, host="127.0.0.1", tls=client(pki), timeout=TIMEOUT)
    assert conn is None
    assert result.status == "hostname_mismatch"
    assert result.verify_code == 64  # X509_V_ERR_IP_ADDRESS_MISMATCH
    # start_tls read the certificate on a second connection, for the evidence
    assert result.certificate.dns_names == ("localhost",)
    assert result.name_in_certificate is False


def test_a_name_missing_from_the_certificate_is_a_hostname_mismatch(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.both))
    shake = client(pki).handshake(connected(server.port), host="kafka-1.kafka.test", timeout=TIMEOUT)
    assert (shake.result.status, shake.result.verify_code) == ("hostname_mismatch", 62)
    assert shake.stream is None


def test_hostname_verification_can_be_turned_off_as_librdkafka_allows(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.dns_only))
    tls = client(pki, **{"ssl.endpoint.identification.algorithm": "none"})
    shake = tls.handshake(connected(server.port), host="127.0.0.1", timeout=TIMEOUT)
    assert shake.result.status == "ok"
    assert shake.result.hostname_verification is False
    assert shake.result.name_in_certificate is False  # still said, for the evidence
    shake.stream.close()


def test_a_chain_the_system_store_does_not_trust_is_untrusted_with_the_certificate_read_anyway(pki: Pki,
                                                                                              peer) -> None:
    server = peer(tls_server(pki.both))
    result, conn = start_tls(connected(server.port), host="localhost", tls=client(), timeout=TIMEOUT)
    assert conn is None
    assert result.status == "untrusted"
    assert result.verify_code in (19, 20)  # self-signed in chain / unable to get local issuer
    assert result.trust == "the system CA store (no ssl.ca.location)"
    assert result.certificate.issuer == "CN=kdiag unit CA"


def test_certificate_verification_off_accepts_any_chain(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.both))
    tls = client(**{"enable.ssl.certificate.verification": "false"})
    shake = tls.handshake(connected(server.port), host="localhost", timeout=TIMEOUT)
    assert shake.result.status == "ok"
    assert shake.result.trust == "nothing (enable.ssl.certificate.verification=false)"
    shake.stream.close()


def test_a_peer_that_hangs_up_on_the_hello_and_speaks_plaintext_kafka_is_not_tls(pki: Pki) -> None:
    with FakeBroker([close()], [respond(API_VERSIONS, answer_api_versions())]) as broker:
        result, conn = start_tls(connected(broker.port), host="127.0.0.1", tls=client(pki), timeout=TIMEOUT)
    assert conn is None
    assert (result.status, result.plaintext_kafka) == ("not_tls", True)
    assert "plaintext Kafka listener" in result.error


def test_a_peer_that_hangs_up_on_the_hello_and_nothing_else_is_closed(pki: Pki, peer) -> None:
    server = peer(hang_up_after_hello)
    result, conn = start_tls(connected(server.port), host="127.0.0.1", tls=client(pki), timeout=TIMEOUT)
    assert conn is None
    assert (result.status, result.plaintext_kafka) == ("closed", False)
    assert "right after the ClientHello" in result.error
    # the "frame size" a plaintext Kafka listener reads from the hello: 0x16 0x03 0x01 then the length's high byte
    assert 0x16030100 <= result.client_hello_size <= 0x160301FF


def test_a_peer_answering_in_plaintext_is_not_tls_with_what_it_said(pki: Pki, peer) -> None:
    server = peer(answer_http)
    shake = client(pki).handshake(connected(server.port), host="127.0.0.1", timeout=TIMEOUT)
    assert shake.result.status == "not_tls"
    assert shake.result.received.startswith("HTTP/1.1 400")


def test_a_server_that_wants_a_client_certificate_refuses_with_an_alert(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.both, require_client_certificate=pki.ca, maximum=ssl.TLSVersion.TLSv1_2))
    shake = client(pki).handshake(connected(server.port), host="localhost", timeout=TIMEOUT)
    assert shake.result.status == "alert"
    assert shake.result.alert


def test_a_client_certificate_from_the_settings_is_presented(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.both, require_client_certificate=pki.ca))
    tls = client(pki, **{"ssl.certificate.location": str(pki.client), "ssl.key.location": str(pki.encrypted_key),
                         "ssl.key.password": KEY_PASSWORD})
    shake = tls.handshake(connected(server.port), host="localhost", timeout=TIMEOUT)
    assert shake.result.status == "ok", shake.result
    shake.stream.settimeout(TIMEOUT)
    shake.stream.sendall(b"hello")
    assert shake.stream.recv(100) == b"hello"
    shake.stream.close()


def test_a_silent_peer_costs_the_timeout_and_no_more(pki: Pki, peer) -> None:
    server = peer(stay_silent)
    started = time.monotonic()
    shake = client(pki).handshake(connected(server.port), host="localhost", timeout=0.3)
    assert shake.result.status == "timeout"
    assert time.monotonic() - started < 1.0


def test_a_stream_read_keeps_its_timeout_across_records(pki: Pki, peer) -> None:
    server = peer(tls_server(pki.both))
    shake = client(pki).handshake(connected(server.port), host="localhost", timeout=TIMEOUT)
    stream = shake.stream
    stream.settimeout(0.2)
    started = time.monotonic()
    with pytest.raises(socket.timeout):
        stream.recv(100)  # the echo server has nothing to say
    assert time.monotonic() - started < 1.0
    stream.close()


# --- settings ------------------------------------------------------------------------------------


def test_settings_are_read_only_for_tls_protocols() -> None:
    assert TlsSettings.from_librdkafka({}) is None
    assert TlsSettings.from_librdkafka({"security.protocol": "SASL_PLAINTEXT"}) is None
    settings = TlsSettings.from_librdkafka({"security.protocol": "sasl_ssl", "ssl.ca.location": "/etc/ca.pem"})
    assert settings is not None
    assert (settings.ca_location, settings.verify_certificate, settings.verify_hostname) == ("/etc/ca.pem", True, True)


def test_settings_repr_never_shows_the_key_password() -> None:
    settings = TlsSettings.from_librdkafka({"security.protocol": "SSL", "ssl.key.password": KEY_PASSWORD,
                                            "ssl.key.pem": "-----BEGIN PRIVATE KEY-----"})
    assert KEY_PASSWORD not in repr(settings) and "PRIVATE KEY" not in repr(settings)


def test_a_missing_ca_file_is_a_config_error_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(TlsConfigError, match=r"ssl.ca.location .*nope.pem: no such file"):
        client(**{"ssl.ca.location": str(tmp_path / "nope.pem")})


def test_a_wrong_key_password_is_a_config_error_that_does_not_repeat_it(pki: Pki) -> None:
    with pytest.raises(TlsConfigError) as raised:
        client(pki, **{"ssl.certificate.location": str(pki.client), "ssl.key.location": str(pki.encrypted_key),
                       "ssl.key.password": "not-the-password"})
    assert "not-the-password" not in str(raised.value)
    assert "ssl.key.password" in str(raised.value)


def test_an_encrypted_key_without_a_password_fails_instead_of_prompting(pki: Pki) -> None:
    with pytest.raises(TlsConfigError, match="needs ssl.key.password"):
        client(pki, **{"ssl.certificate.location": str(pki.client), "ssl.key.location": str(pki.encrypted_key)})


# --- what a certificate says ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["both", "dns_only", "wildcard"])
def test_decoded_certificate_agrees_with_openssl(pki: Pki, name: str) -> None:
    path = getattr(pki, name)[0]
    der = ssl.PEM_cert_to_DER_cert(path.read_text())
    decoded = decode_certificate(der)
    expected = ssl._ssl._test_decode_cert(str(path))  # OpenSSL's own reading, through CPython
    sans = expected["subjectAltName"]
    assert decoded.dns_names == tuple(v for k, v in sans if k == "DNS")
    assert decoded.ip_addresses == tuple(v.lower() if ":" not in v else str(__import__("ipaddress").ip_address(v))
                                         for k, v in sans if k == "IP Address")
    assert decoded.subject == ",".join(f"{_short(k)}={v}" for rdn in reversed(expected["subject"]) for k, v in rdn)
    assert decoded.issuer == "CN=kdiag unit CA"
    assert decoded.serial_number == expected["serialNumber"]
    not_after = time.strptime(expected["notAfter"], "%b %d %H:%M:%S %Y %Z")
    assert decoded.not_after == time.strftime("%Y-%m-%dT%H:%M:%SZ", not_after)


def _short(key: str) -> str:
    return {"commonName": "CN", "organizationName": "O"}[key]


@pytest.mark.parametrize(("host", "matches"), [
    ("localhost", True), ("LOCALHOST.", True), ("127.0.0.1", False), ("other", False),
])
def test_name_in_certificate_matches_dns_names_only_against_dns_sans(host: str, matches: bool) -> None:
    assert name_in_certificate(CertificateInfo(subject="CN=x", dns_names=("localhost",)), host) is matches


@pytest.mark.parametrize(("host", "matches"), [
    ("kafka-1.kafka.test", True), ("kafka.test", False), ("a.b.kafka.test", False), ("::1", True),
    ("[0:0::1]", True), ("127.0.0.1", False),
])
def test_name_in_certificate_wildcards_cover_one_label_and_ips_match_ip_sans(host: str, matches: bool) -> None:
    cert = CertificateInfo(subject="CN=wildcard", dns_names=("*.kafka.test",), ip_addresses=("::1",))
    assert name_in_certificate(cert, host) is matches


def test_name_in_certificate_falls_back_to_the_common_name_only_without_dns_sans() -> None:
    assert name_in_certificate(CertificateInfo(subject="CN=broker-1,O=Example"), "broker-1") is True
    assert name_in_certificate(CertificateInfo(subject="CN=broker-1", dns_names=("b1",)), "broker-1") is False


# --- through the command line ----------------------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str, str]:
    import io

    from kdiag.cli import Environment, main

    env = Environment(stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(args), env=env)
    return code, env.stdout.getvalue(), env.stderr.getvalue()


def test_tls_settings_that_cannot_load_are_a_usage_error_before_any_connection(pki: Pki) -> None:
    code, stdout, stderr = run_cli("bootstrap", "127.0.0.1:1", "-X", "security.protocol=SSL",
                                   "-X", f"ssl.ca.location={pki.ca}", "-X", f"ssl.certificate.location={pki.client}",
                                   "-X", f"ssl.key.location={pki.encrypted_key}",
                                   "-X", "ssl.key.password=not-the-password-31")
    assert code == 2
    assert stdout == ""
    assert stderr.startswith("kdiag: error: ssl.certificate.location/ssl.key.location: the client certificate")
    assert "not-the-password-31" not in stderr and len(stderr.splitlines()) == 1


# --- client certificates (mTLS) and PKCS#12 keystores ----------------------------------------------

STORE_PASSWORD = "store-pass-secret-7"


def kafka_over_tls(certificate: tuple[Path, Path], *, require_client_certificate: Path | None = None,
                   maximum: ssl.TLSVersion | None = None) -> Callable[[socket.socket], None]:
    """A TLS server that answers ApiVersions, as a Kafka listener with ssl.client.auth=required does
    (OpenSSL, like Java, checks the client's certificate under TLS 1.3 only after the handshake)."""
    from tests.fakebroker import split_request, api_versions_response, response_frame

    context = server_context(certificate, require_client_certificate=require_client_certificate, maximum=maximum)

    def handle(conn: socket.socket) -> None:
        conn.settimeout(TIMEOUT)
        raw = conn.dup()  # wrap_socket closes the socket it took when the handshake fails
        try:
            tls = context.wrap_socket(conn, server_side=True)
        except ssl.SSLError:
            # the alert is sent: read until the client hangs up, so that closing with its request unread
            # does not reset the connection before the client has read the alert
            with raw:
                while raw.recv(65536):
                    pass
            return
        raw.close()
        with tls:
            buffer = b""
            while len(buffer) < 4 or len(buffer) < 4 + int.from_bytes(buffer[:4], "big"):
                chunk = tls.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            header, _body = split_request(buffer[4:4 + int.from_bytes(buffer[:4], "big")])
            tls.sendall(response_frame(header, api_versions_response(header.api_version)))
            tls.recv(100)

    return handle


@pytest.fixture(scope="module")
def keystore(pki: Pki) -> Path:
    """The client certificate and its key as a PKCS#12 keystore protected by STORE_PASSWORD."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, load_pem_private_key, pkcs12

    key = load_pem_private_key((pki.directory / "client.key").read_bytes(), password=None)
    certificate = x509.load_pem_x509_certificate(pki.client.read_bytes())
    ca = x509.load_pem_x509_certificate(pki.ca.read_bytes())
    path = pki.directory / "client.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"client", key, certificate, [ca],
                                                           BestAvailableEncryption(STORE_PASSWORD.encode())))
    return path


@pytest.mark.parametrize("maximum", [ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3])
def test_a_listener_requiring_a_client_certificate_refuses_a_client_without_one_with_the_version(
        pki: Pki, peer, maximum: ssl.TLSVersion) -> None:
    server = peer(kafka_over_tls(pki.both, require_client_certificate=pki.ca, maximum=maximum))
    result, conn = start_tls(connected(server.port), host="localhost", tls=client(pki), timeout=TIMEOUT)
    assert conn is None
    assert result.status == "alert", result
    assert result.client_certificate is None
    if maximum is ssl.TLSVersion.TLSv1_2:
        # refused in the handshake, after a CertificateRequest the client read in the clear
        assert (result.version, result.alert_after_handshake, result.client_certificate_requested) == (
            "TLSv1.2", False, True)
        assert result.alert == "handshake_failure"  # OpenSSL's answer; Java's is bad_certificate
    else:
        # the client's handshake completed; the refusal came with the answer to ApiVersions
        assert (result.version, result.alert_after_handshake, result.alert) == ("TLSv1.3", True,
                                                                                "certificate_required")
    assert result.alert in result.error and result.version in result.error


def test_under_tls_1_3_a_listener_that_accepts_the_client_certificate_is_ok_with_api_versions_done(
        pki: Pki, peer) -> None:
    server = peer(kafka_over_tls(pki.both, require_client_certificate=pki.ca))
    tls = client(pki, **{"ssl.certificate.location": str(pki.client), "ssl.key.location": str(pki.encrypted_key),
                         "ssl.key.password": KEY_PASSWORD})
    result, conn = start_tls(connected(server.port), host="localhost", tls=tls, timeout=TIMEOUT)
    assert result.status == "ok", result
    assert result.version == "TLSv1.3"
    assert result.client_certificate.subject == "CN=client,O=kdiag tests"
    assert conn is not None and conn.api_versions is not None  # asked once, kept for the metadata stage
    conn.close()


def test_a_pkcs12_keystore_is_presented_as_the_client_certificate(pki: Pki, peer, keystore: Path,
                                                                  tmp_path: Path, monkeypatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the key passes through, briefly
    server = peer(kafka_over_tls(pki.both, require_client_certificate=pki.ca))
    tls = client(pki, **{"ssl.keystore.location": str(keystore), "ssl.keystore.password": STORE_PASSWORD})
    assert list(tmp_path.iterdir()) == []  # the private directory is gone once the context has the key
    assert tls.client_certificate.subject == "CN=client,O=kdiag tests"
    assert tls.client_certificate.issuer == "CN=kdiag unit CA"
    result, conn = start_tls(connected(server.port), host="localhost", tls=tls, timeout=TIMEOUT)
    assert result.status == "ok", result
    assert result.client_certificate == tls.client_certificate
    conn.close()


def test_a_wrong_keystore_password_is_a_config_error_that_never_repeats_it(pki: Pki, keystore: Path) -> None:
    wrong = "not-the-store-password-3"
    with pytest.raises(TlsConfigError) as raised:
        client(pki, **{"ssl.keystore.location": str(keystore), "ssl.keystore.password": wrong})
    message = str(raised.value)
    assert message == (f"ssl.keystore.location {keystore}: the PKCS#12 keystore does not open "
                       "(wrong ssl.keystore.password)")
    assert wrong not in message and STORE_PASSWORD not in message


def test_a_jks_keystore_is_a_config_error_with_the_keytool_conversion(tmp_path: Path) -> None:
    jks = tmp_path / "client.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02" + bytes(64))
    with pytest.raises(TlsConfigError, match=r"is a JKS keystore, which only Java reads; convert it to PKCS#12: "
                                             r"keytool -importkeystore -srcstoretype JKS -srckeystore .*client\.jks "
                                             r"-deststoretype PKCS12 -destkeystore .*client\.p12"):
        client(None, **{"ssl.keystore.location": str(jks), "ssl.keystore.password": "changeit"})


def test_keystore_settings_repr_never_shows_the_keystore_password() -> None:
    settings = TlsSettings.from_librdkafka({"security.protocol": "SSL", "ssl.keystore.location": "/k.p12",
                                            "ssl.keystore.password": STORE_PASSWORD})
    assert settings.keystore_password == STORE_PASSWORD
    assert STORE_PASSWORD not in repr(settings) and "/k.p12" in repr(settings)
