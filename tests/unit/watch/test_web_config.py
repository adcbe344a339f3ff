"""--web-config-file: the endpoints behind TLS, client certificates and bcrypt basic auth, in the
Prometheus exporters' format; a file kdiag cannot honour exactly is one line and exit 2."""

from __future__ import annotations

import io
import shutil
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import bcrypt
import pytest

from kdiag.cli import main
from kdiag.environment import Environment
from kdiag.lab.certs import issue
from tests.unit.watch.sidecar import Sidecar

PASSWORD = "scrape-Passw0rd"


def hashed(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(4)).decode().replace("$2b$", "$2y$")  # htpasswd's prefix


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "web.yml"
    path.write_text(text)
    return str(path)


def run(args: list[str]) -> tuple[int, str]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    return main(["watch", "127.0.0.1:9", *args], env=env), env.stderr.getvalue()


@pytest.mark.parametrize("text, message", [
    ("tls_server_config: [\n", "not YAML (line"),
    ("- a list\n", "the file must be a mapping"),
    ("tls_server_confg: {}\n", "unknown setting tls_server_confg"),
    ("rate_limit: {interval: 1s, burst: 2}\n", "rate_limit is not supported"),
    ("basic_auth_users: {prometheus: plaintext}\n", "basic_auth_users.prometheus must be a bcrypt hash"),
    ("tls_server_config: {cert_file: server.pem}\n", "cert_file and tls_server_config.key_file are both required"),
    ("tls_server_config: {cert: PEM, key: PEM}\n", "tls_server_config.cert (inline PEM) is not supported"),
    ("tls_server_config: {cert_file: a, key_file: b, client_auth_type: RequestClientCert}\n",
     "client_auth_type RequestClientCert accepts certificates no CA signed"),
    ("tls_server_config: {cert_file: a, key_file: b, client_auth_type: Always}\n", "client_auth_type takes"),
    ("tls_server_config: {cert_file: a, key_file: b, client_ca_file: ca.pem}\n", "client_ca_file goes with"),
    ("tls_server_config: {cert_file: a, key_file: b, min_version: SSL3}\n", "min_version takes"),
    ("tls_server_config: {cert_file: missing.pem, key_file: missing.key}\n", "cannot use cert_file"),
    ("tls_server_config: {cert_file: a, key_file: b, cipher_suites: [X]}\n", "unknown setting tls_server_config"),
    ("http_server_config: {headers: {Set-Cookie: x}}\n", "unknown setting http_server_config.headers.Set-Cookie"),
])
def test_a_web_config_kdiag_cannot_honour_is_one_line_and_exit_2(tmp_path, text: str, message: str) -> None:
    code, stderr = run(["--web-config-file", write(tmp_path, text)])
    assert code == 2 and message in stderr and stderr.count("\n") == 1, stderr


def test_a_missing_or_special_web_config_file_is_one_line_and_exit_2(tmp_path) -> None:
    for path in (str(tmp_path / "none.yml"), str(tmp_path), "/dev/zero"):
        code, stderr = run(["--web-config-file", path])
        assert code == 2 and stderr.count("\n") == 1 and "--web-config-file" in stderr, stderr


def test_tls_and_basic_auth_guard_every_endpoint_but_the_kubelets(pki: Path, tmp_path: Path) -> None:
    config = write(tmp_path, f"""
tls_server_config:
  cert_file: {pki}/server.pem
  key_file: {pki}/server.key
http_server_config:
  headers: {{X-Content-Type-Options: nosniff}}
basic_auth_users:
  prometheus: {hashed(PASSWORD)}
""")
    trust = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    with Sidecar(["127.0.0.1:9", "--web-config-file", config]) as sidecar:
        assert sidecar.get("/livez", context=trust) == (200, "ok\n")  # the kubelet sends no password
        assert sidecar.get("/metrics", context=trust)[0] == 401
        assert sidecar.get("/report", context=trust, user="prometheus", password="guess")[0] == 401
        assert sidecar.get("/report", context=trust, user="root", password=PASSWORD)[0] == 401
        status, body = sidecar.get("/metrics", context=trust, user="prometheus", password=PASSWORD)
        assert status == 200 and "kdiag_probe_success" in body
        assert sidecar.get("/probe?target=127.0.0.1:9", context=trust, user="prometheus", password=PASSWORD)[0] == 200
        with pytest.raises(OSError):  # plain HTTP to the TLS port gets no answer
            urllib.request.urlopen(f"http://127.0.0.1:{sidecar.port}/livez", timeout=5)
        assert "https://" in sidecar.env.stderr.getvalue() and "(basic auth)" in sidecar.env.stderr.getvalue()


def test_a_required_client_certificate_keeps_out_a_client_without_one(pki: Path, tmp_path: Path) -> None:
    config = write(tmp_path, f"""
tls_server_config:
  cert_file: server.pem
  key_file: server.key
  client_ca_file: ca.pem
  client_auth_type: RequireAndVerifyClientCert
""")
    (tmp_path / "server.pem").write_bytes((pki / "server.pem").read_bytes())  # relative to the file's directory
    (tmp_path / "server.key").write_bytes((pki / "server.key").read_bytes())
    (tmp_path / "ca.pem").write_bytes((pki / "ca.pem").read_bytes())
    anonymous = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    scraper = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    scraper.load_cert_chain(pki / "client.pem", pki / "client.key")
    with Sidecar(["127.0.0.1:9", "--web-config-file", config], ready_context=scraper) as sidecar:
        assert sidecar.get("/metrics", context=scraper)[0] == 200
        with pytest.raises(OSError):  # ssl.SSLError, a reset, or urllib's URLError around either
            sidecar.get("/metrics", context=anonymous)


def test_a_rotated_certificate_is_served_from_the_next_connection(pki: Path, tmp_path: Path) -> None:
    for name in ("server.pem", "server.key"):
        shutil.copy(pki / name, tmp_path / name)
    config = write(tmp_path, "tls_server_config: {cert_file: server.pem, key_file: server.key}\n")
    trust = ssl.create_default_context(cafile=str(pki / "ca.pem"))

    def served_name(port: int) -> str:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with trust.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                return dict(field[0] for field in tls.getpeercert()["subject"])["commonName"]

    with Sidecar(["127.0.0.1:9", "--web-config-file", config]) as sidecar:
        assert served_name(sidecar.port) == "server"
        rotated = tmp_path / "rotated"
        rotated.mkdir()
        shutil.copy(pki / "ca.pem", rotated)
        shutil.copy(pki / "ca.key", rotated)
        issue(rotated, "server-rotated", san="IP:127.0.0.1")
        shutil.copy(rotated / "server-rotated.key", tmp_path / "server.key")
        shutil.copy(rotated / "server-rotated.pem", tmp_path / "server.pem")
        assert served_name(sidecar.port) == "server-rotated"
        assert sidecar.get("/livez", context=trust) == (200, "ok\n")
