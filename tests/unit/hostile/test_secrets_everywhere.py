"""Known secrets, given every way kdiag takes them (-X, --command-config, the environment of kdiag
watch, a pasted log), must appear nowhere kdiag writes: stdout, stderr, --output files, report
directories, on a pipe and on a pseudo-terminal (where the live progress view and colours are on).

Every command runs for real as a child process; the peers are loopback fakes (a refused port, a peer
answering garbage, a broker asking for SASL), so that error paths, which quote what they saw, run too.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kdiag.lab.kafka import free_ports
from tests.fakebroker import API_VERSIONS, FakeBroker, expect_request, send
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[3]
X_SECRET = "xSecret-7fQm9vYmFy"
FILE_SECRET = "fileSecret-ZmxhbWluZ28"
KEY_SECRET = "keySecret-a2V5cGFzcw"
ENV_SECRET = "envSecret-ZW52aXJvbg"
LOG_SECRET = "logSecret-cGFzdGVkbG9n"
SECRETS = (X_SECRET, FILE_SECRET, KEY_SECRET, ENV_SECRET, LOG_SECRET)


def run(args: list[str], *, tty: bool, stdin: bytes = b"", timeout: float = 60, env_extra=None,
        stop_when: Callable[[], bool] | None = None) -> tuple[int, bytes]:
    """kdiag ARGS as a child; stdout and stderr together (a pty) or apart (pipes), all bytes it wrote.
    ``stop_when``: SIGTERM it once that is true (a command that runs until stopped, ``kdiag watch``)."""
    env = {**os.environ, "KDIAG_CLIENT_SASL_PASSWORD": ENV_SECRET, "TERM": "xterm-256color", "COLUMNS": "120",
           **(env_extra or {})}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "kdiag", *args]
    if not tty:
        child = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        if stop_when is not None:
            wait_until(lambda: stop_when() or child.poll() is not None, timeout, "the condition to stop kdiag")
            child.send_signal(signal.SIGTERM)
        out, err = child.communicate(stdin, timeout=timeout)
        return child.returncode, out + err
    master, slave = pty.openpty()
    child = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.PIPE if stdin else slave, stdout=slave,
                             stderr=slave, close_fds=True)
    os.close(slave)
    if stdin:  # a paste piped in while the output goes to the terminal: `pbpaste | kdiag explain -`
        child.stdin.write(stdin)
        child.stdin.close()
    output = bytearray()
    started = time.monotonic()
    stopped = False
    while True:
        if stop_when is not None and not stopped and stop_when():
            child.send_signal(signal.SIGTERM)
            stopped = True
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        elif child.poll() is not None:
            break
        if time.monotonic() - started > timeout:
            child.kill()
            break
    os.close(master)
    return child.wait(timeout=10), bytes(output)


def leaked(data: bytes) -> list[str]:
    text = data.decode("utf-8", "replace")
    # what a terminal would show (escape sequences cannot split a secret kdiag never printed, but a
    # secret with styling inside it must still count)
    plain = __import__("re").sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07", "", text)
    return [s for s in SECRETS if s in text or s in plain]


def files_under(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file())


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("secrets")
    properties = root / "client.properties"
    properties.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                          "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                          f'username="alice" password="{FILE_SECRET}";\nssl.key.password={KEY_SECRET}\n')
    log = root / "pasted.log"
    log.write_text(f"sasl.password={LOG_SECRET}\nsasl.password {LOG_SECRET}\n--password {LOG_SECRET}\n"
                   "%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:sasl_plaintext://b:9092/1]: b:9092/1: "
                   "SASL authentication error: Authentication failed: Invalid username or password "
                   "(after 12ms in state AUTH_REQ)\n"
                   "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                   f'username="alice" password="{LOG_SECRET}";\n'
                   "org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed: "
                   f"Invalid username or password {LOG_SECRET}\n")
    [closed] = free_ports(1)
    return {"root": root, "properties": str(properties), "log": str(log), "closed": closed}


def secret_settings(inputs) -> list[str]:
    return ["-X", f"sasl.password={X_SECRET}", "-X", "sasl.username=alice", "--command-config", inputs["properties"]]


@pytest.mark.parametrize("tty", [False, True], ids=["pipe", "pty"])
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_bootstrap_writes_no_secret_anywhere(inputs, tty, fmt):
    root: Path = inputs["root"]
    output = root / f"report-{fmt}-{tty}.json"
    with FakeBroker([expect_request(API_VERSIONS), send(f"\x00\x00\x00\x20{X_SECRET} {FILE_SECRET}".encode())],
                    default=[expect_request(API_VERSIONS), send(b"\x00\x00\x00\x08garbage!")], strict=False) as peer:
        for target in (f"127.0.0.1:{inputs['closed']}", f"127.0.0.1:{peer.port}"):
            status, written = run(["bootstrap", target, "--format", fmt, "--no-roundtrip", "--timeout", "3",
                                   "--no-listener-scan", "--output", str(output), "--debug", *secret_settings(inputs)],
                                  tty=tty)
            assert status in (1, 2), written[-2000:]
            assert leaked(written) == [], written[-3000:]
            assert leaked(output.read_bytes()) == []


@pytest.mark.parametrize("tty", [False, True], ids=["pipe", "pty"])
def test_usage_errors_write_no_secret(inputs, tty):
    for args in (["bootstrap", "127.0.0.1:1", "-X", X_SECRET],
                 ["bootstrap", "127.0.0.1:1", "-X", "sasl.password", X_SECRET],
                 ["bootstrap", "127.0.0.1:1", "-X", f"sasl.pasword={X_SECRET}"],
                 ["bootstrap", "127.0.0.1:1", "--timeout", X_SECRET, "-X", f"sasl.password={X_SECRET}"],
                 ["explain", "--nonsense", f"--password={LOG_SECRET}", "-X", f"sasl.password={X_SECRET}"]):
        status, written = run(args, tty=tty)
        assert status == 2 and leaked(written) == [], (args, written)


@pytest.mark.parametrize("tty", [False, True], ids=["pipe", "pty"])
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_explain_writes_no_secret_from_a_pasted_log(inputs, tty, fmt):
    log = Path(inputs["log"]).read_bytes()
    for args, stdin in ((["explain", "--file", inputs["log"]], b""), (["explain", "-"], log),
                        (["explain", f"sasl.password={LOG_SECRET} " + log.decode().splitlines()[3]], b"")):
        status, written = run([*args, "--format", fmt, "--debug"], tty=tty, stdin=stdin)
        assert status in (0, 1), written[-2000:]
        assert leaked(written) == [], (args, written[-3000:])


@pytest.mark.parametrize("tty", [False, True], ids=["pipe", "pty"])
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_diff_pcap_findings_and_lab_write_no_secret(inputs, tty, fmt):
    root: Path = inputs["root"]
    report = root / "for-diff.json"
    run(["bootstrap", f"127.0.0.1:{inputs['closed']}", "--no-roundtrip", "--no-listener-scan", "--timeout", "2",
         "--json", "--output", str(report), *secret_settings(inputs)], tty=False)
    from kdiag.capture.synthetic import Broker, TcpConversation, metadata_request, metadata_response, write_pcap

    conversation = TcpConversation(("198.51.100.7", 50000), ("203.0.113.5", 9092)).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, [Broker(1, "203.0.113.5", 9092)]))
    capture = root / "c.pcap"
    write_pcap(str(capture), conversation.packets)
    for args in (["diff", str(report), str(report)], ["pcap", str(capture)], ["findings"], ["lab", "list"]):
        status, written = run([*args, "--format", fmt, "--debug"] if args[0] != "lab" else [*args, "--debug"],
                              tty=tty)
        assert status in (0, 1), (args, written[-2000:])
        assert leaked(written) == [], (args, written[-3000:])


@pytest.mark.parametrize("tty", [False, True], ids=["pipe", "pty"])
def test_watch_writes_no_secret_to_its_log_reports_or_report_directory(inputs, tty):
    root: Path = inputs["root"]
    reports = root / f"watch-reports-{tty}"
    closed, listen = free_ports(2)  # one call: the watch must not listen on the port it finds closed
    status, written = run(["watch", f"127.0.0.1:{closed}", "--interval", "1s", "--timeout", "2s",
                           "--no-roundtrip", "--listen", f"127.0.0.1:{listen}", "--report-stdout",
                           "--report-dir", str(reports), "--debug", "-X", "security.protocol=SASL_PLAINTEXT",
                           "-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=alice",
                           "--command-config", inputs["properties"]],
                          tty=tty, stop_when=lambda: reports.is_dir() and any(reports.iterdir()), timeout=30)
    assert b"report_id" in written or reports.exists(), written[-2000:]
    assert leaked(written) == [], written[-3000:]
    assert leaked(files_under(reports)) == []


def test_fleet_analyze_writes_no_secret(inputs):
    root: Path = inputs["root"]
    source = root / "fleet-in"
    source.mkdir(exist_ok=True)
    run(["bootstrap", f"127.0.0.1:{inputs['closed']}", "--no-roundtrip", "--no-listener-scan", "--timeout", "2",
         "--json", "--output", str(source / "r.json"), *secret_settings(inputs)], tty=False)
    out = root / "fleet-out"
    status, written = run(["fleet", "analyze", str(source), "--out", str(out), "--overwrite"], tty=False, timeout=300)
    assert status in (0, 1), written[-3000:]
    assert leaked(written) == [] and leaked(files_under(out)) == []
    assert json.loads((source / "r.json").read_text())["client"]["sasl.password"] == "***"
