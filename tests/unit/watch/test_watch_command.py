"""kdiag watch's bad input: one line on stderr and exit 2, from options and from the environment."""

from __future__ import annotations

import io
import socket

import pytest

from kdiag.cli import main
from kdiag.commands.watch import parse_duration, parse_listen, parse_size
from kdiag.credentials import client_options_from_environment
from kdiag.environment import Environment
from kdiag.exitstatus import UsageError


def run(args: list[str]) -> tuple[int, str]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(["watch", *args], env=env)
    return code, env.stderr.getvalue()


@pytest.mark.parametrize("args, message", [
    (["k:9092", "--interval", "soon"], "--interval takes a duration"),
    (["k:9092", "--interval", "0"], "--interval must be at least 0.1 s"),
    (["k:9092", "--timeout", "-3s"], "--timeout takes a duration"),
    (["k:9092", "--listen", "9108"], "--listen takes HOST:PORT"),
    (["k:9092", "--listen", "0.0.0.0:70000"], "the port must be 1-65535"),
    (["k:9092", "--ready-when", "always"], "--ready-when takes probed or healthy"),
    (["k:9092", "--log-format", "xml"], "--log-format takes text or json"),
    (["k:9092", "--idle-check", "forever"], "--idle-check takes a duration"),
    (["k:9092", "--idle-check", "0s"], "--idle-check must be more than 0"),
    (["k:9092", "--report-topic", "t"], "--report-topic needs --spool-dir"),
    (["k:9092", "--spool-dir", "/tmp/x"], "--report-bootstrap and --spool-dir go with --report-topic"),
    (["k:9092", "--report-topic", "t", "--spool-dir", "/tmp/x", "--spool-when-full", "block"],
     "--spool-when-full takes drop-oldest or drop-newest"),
    (["k:9092", "--report-topic", "bad topic!", "--spool-dir", "/tmp/x"], "--report-topic 'bad topic!'"),
    (["k:9092", "--spool-max-bytes", "lots"], "--spool-max-bytes takes a size"),
    (["k:9092", "--report-dir-max-files", "0"], "--report-dir-max-files takes a whole number"),
    (["k:9092", "--report-dir", "/proc/version/x"], "--report-dir /proc/version/x"),
    ([], "no bootstrap address given"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, monkeypatch) -> None:
    for name in ("KDIAG_BOOTSTRAP", "KDIAG_INTERVAL", "KDIAG_LISTEN"):
        monkeypatch.delenv(name, raising=False)
    code, stderr = run(args)
    assert code == 2
    assert len(stderr.splitlines()) == 1, stderr
    assert message in stderr


def test_options_come_from_the_environment_and_are_checked_the_same(monkeypatch) -> None:
    monkeypatch.setenv("KDIAG_BOOTSTRAP", "k:9092")
    monkeypatch.setenv("KDIAG_INTERVAL", "often")
    code, stderr = run([])
    assert code == 2 and "--interval takes a duration such as 30s" in stderr and len(stderr.splitlines()) == 1
    monkeypatch.setenv("KDIAG_INTERVAL", "30s")
    monkeypatch.setenv("KDIAG_IDLE_CHECK", "a while")
    code, stderr = run([])
    assert code == 2 and "--idle-check takes a duration" in stderr and len(stderr.splitlines()) == 1


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("KDIAG_INTERVAL", raising=False)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        code, stderr = run(["127.0.0.1:1", "--listen", f"127.0.0.1:{port}", "--report-dir", str(tmp_path)])
    finally:
        taken.close()
    assert code == 2
    assert stderr == f"kdiag: error: --listen 127.0.0.1:{port}: the port is already in use\n"


def test_durations_sizes_and_listen_addresses() -> None:
    assert [parse_duration("--x", t) for t in ("30", "30s", "500ms", "2m", "1h", "1.5s")] == [
        30, 30, 0.5, 120, 3600, 1.5]
    assert [parse_size("--x", t) for t in ("65536", "64k", "64KiB", "10MiB", "1G")] == [
        65536, 64000, 65536, 10 * 1024 * 1024, 10**9]
    assert parse_listen(":9108") == ("0.0.0.0", 9108)
    assert parse_listen("[::1]:9108") == ("::1", 9108)
    assert parse_listen("127.0.0.1:80") == ("127.0.0.1", 80)


def test_client_settings_and_secret_files_from_the_environment(tmp_path) -> None:
    secret = tmp_path / "password"
    secret.write_text("hunter22\n")
    environ = {"KDIAG_CLIENT_SASL_PASSWORD_FILE": str(secret), "KDIAG_CLIENT_SECURITY_PROTOCOL": "SASL_SSL",
               "KDIAG_CLIENT_LOG_LEVEL": "3", "KDIAG_INTERVAL": "30s"}
    assert client_options_from_environment(environ) == ["log_level=3", "sasl.password=hunter22",
                                                        "security.protocol=SASL_SSL"]
    with pytest.raises(UsageError, match="no librdkafka setting is called sasl.passwd"):
        client_options_from_environment({"KDIAG_CLIENT_SASL_PASSWD": "x"})
    with pytest.raises(UsageError, match="cannot read"):
        client_options_from_environment({"KDIAG_CLIENT_SASL_PASSWORD_FILE": str(tmp_path / "none")})


@pytest.mark.parametrize("environ, message", [
    ({"KDIAG_PROBE_ALLOW": "kafka:http"}, "--probe-allow: the port of 'kafka:http' must be 1-65535"),
    ({"KDIAG_PROBE_CREDENTIALS": "staging"}, "--probe-credentials takes NAME=PATTERN"),
    ({"KDIAG_PROBE_CREDENTIALS": "staging=*.staging"}, "--probe-credentials STAGING: no KDIAG_CRED_STAGING_"),
    ({"KDIAG_PROBE_CREDENTIALS": "a=x b=y", "KDIAG_CRED_A_SASL_USERNAME": "u", "KDIAG_CRED_B_SASL_USERNAME": "u",
      "KDIAG_CRED_C_SASL_PASSWORD": "hunter22"}, "KDIAG_CRED_C_SASL_PASSWORD: neither --probe-credentials"),
    ({"KDIAG_PROBE_CREDENTIALS": "a=x a=y", "KDIAG_CRED_A_SASL_USERNAME": "u"}, "names the set A twice"),
    ({"KDIAG_PROBE_CREDENTIALS": "a=x", "KDIAG_CRED_A_SASL_PASSWD": "hunter22"}, "no librdkafka setting is called"),
    ({"KDIAG_PROBE_CREDENTIALS": "a=x", "KDIAG_CRED_A_SECURITY_PROTOCOL": "SASL_SSL",
      "KDIAG_CRED_A_SASL_MECHANISMS": "PLAIN", "KDIAG_CRED_A_SSL_CA_LOCATION": "/none/ca.pem"}, "/none/ca.pem"),
    ({"KDIAG_WEB_CONFIG_FILE": "/none/web.yml"}, "--web-config-file /none/web.yml"),
])
def test_the_probe_access_options_and_their_sets_are_checked_at_start(environ, message, monkeypatch) -> None:
    for name, value in {"KDIAG_BOOTSTRAP": "k:9092", **environ}.items():
        monkeypatch.setenv(name, value)
    code, stderr = run([])
    assert code == 2 and message in stderr and len(stderr.splitlines()) == 1, stderr
    assert "hunter22" not in stderr
