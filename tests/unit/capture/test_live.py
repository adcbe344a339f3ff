"""Live capture without a network: the privilege check, the filter, the backend choice, and that scapy
stays unloaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdiag.capture import live
from kdiag.capture.session import start_live_capture
from kdiag.capture.pcapio import CaptureError
from kdiag.exitstatus import UsageError
from kdiag.report import Endpoint

REPO = Path(__file__).resolve().parents[3]


def test_without_net_raw_the_capture_refuses_with_one_line_saying_how_to_grant_it(monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: False)
    with pytest.raises(UsageError) as error:
        start_live_capture((Endpoint("127.0.0.1", 9092),), iface="lo")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("live capture needs root or the CAP_NET_RAW capability")
    assert "--cap-add NET_RAW" in message and "securityContext.capabilities.add: [NET_RAW]" in message


def test_capability_is_read_from_the_effective_set(monkeypatch, tmp_path):
    status = tmp_path / "status"
    status.write_text("Name:\tpython\nCapEff:\t00000000a80425fb\n")  # Docker's default set: NET_RAW (bit 13) in
    real_open = open
    monkeypatch.setattr("builtins.open", lambda path, *a, **k: real_open(status if path == "/proc/self/status"
                                                                          else path, *a, **k))
    assert live.has_capture_permission()
    status.write_text("Name:\tpython\nCapEff:\t00000000a80405fb\n")  # --cap-drop NET_RAW
    assert not live.has_capture_permission()


def test_bpf_filter_takes_tcp_and_the_icmp_errors_answering_a_syn():
    assert live.bpf_filter((), loopback=False) == "(tcp) or icmp[icmptype] == icmp-unreach or icmp6"
    assert live.bpf_filter((9092, 19092, 9092), loopback=True) == (
        "inbound and ((tcp and (port 9092 or port 19092)) or icmp[icmptype] == icmp-unreach or icmp6)")


def test_importing_the_capture_command_does_not_import_scapy():
    code = ("import sys, kdiag.capture.session, kdiag.capture.timeline, kdiag.capture.flows; "
            "print(any(m == 'scapy' or m.startswith('scapy.') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_an_interface_that_does_not_exist_is_one_line(monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: True)
    with pytest.raises(UsageError, match=r"^no network interface kdiag-nope0 here \(there are: lo"):
        start_live_capture((Endpoint("127.0.0.1", 9092),), iface="kdiag-nope0")


def test_an_unwritable_pcap_out_is_one_line_before_any_socket_opens(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: True)
    monkeypatch.setattr(live.LiveCapture, "_new_sniffer", lambda self: pytest.fail("socket opened"))
    with pytest.raises(UsageError, match=r"^cannot write --pcap-out .*/missing/x\.pcap: No such file or directory$"):
        start_live_capture((Endpoint("127.0.0.1", 9092),), iface="lo", pcap_out=str(tmp_path / "missing" / "x.pcap"))


# --- the backend: raw packet sockets on Linux, scapy's sniffer elsewhere or on request --------------------


def test_backend_is_raw_on_linux_and_scapy_elsewhere_or_when_asked(monkeypatch):
    monkeypatch.delenv(live.BACKEND_ENV, raising=False)
    monkeypatch.setattr(live.sys, "platform", "linux")
    assert live.default_backend() == "raw" and live.LiveCapture().backend == "raw"
    monkeypatch.setattr(live.sys, "platform", "darwin")
    assert live.default_backend() == "scapy"
    monkeypatch.setattr(live.sys, "platform", "linux")
    monkeypatch.setenv(live.BACKEND_ENV, "scapy")
    assert live.LiveCapture().backend == "scapy"


def test_an_unknown_backend_is_one_line_naming_the_two_there_are(monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: True)
    monkeypatch.setenv(live.BACKEND_ENV, "pcapy")
    with pytest.raises(UsageError, match=r"^KDIAG_CAPTURE_BACKEND=pcapy: the capture backends are raw \(Linux "
                                         r"packet sockets\) and scapy$"):
        start_live_capture((Endpoint("127.0.0.1", 9092),), iface="lo")


def test_the_raw_backend_off_linux_says_to_use_scapy(monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: True)
    monkeypatch.setattr(live.sys, "platform", "darwin")
    with pytest.raises(CaptureError, match=r"^the raw capture backend needs Linux packet sockets: set "
                                          r"KDIAG_CAPTURE_BACKEND=scapy$"):
        live.LiveCapture(iface="lo", backend="raw").start()


# --- without CAP_NET_RAW, for real: kdiag run as nobody ---------------------------------------------------


def as_nobody(argv: list[str]) -> list[str]:
    """``argv`` as user nobody without capabilities but CAP_DAC_READ_SEARCH, which only lets it read
    an interpreter installed under a private home (/root/.pyenv); it grants no network privilege."""
    if os.geteuid() != 0:
        if live.has_capture_permission():
            pytest.skip("this user has CAP_NET_RAW and, not being root, cannot drop it")
        return argv
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all,+dac_read_search",
            "--ambient-caps=+dac_read_search", *argv]


@pytest.mark.parametrize("backend", ["raw", "scapy"])
def test_bootstrap_capture_as_nobody_is_one_line_on_stderr_and_exit_2(backend):
    done = subprocess.run(as_nobody([sys.executable, "-m", "kdiag", "bootstrap", "127.0.0.1:1", "--capture"]),
                          capture_output=True, text=True, timeout=60, cwd=REPO,
                          env={**os.environ, live.BACKEND_ENV: backend})
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("kdiag: error: live capture needs root or the CAP_NET_RAW capability: ")
    assert "--cap-add NET_RAW" in done.stderr


NO_PRIVILEGE_CHECK = """\
import sys
from kdiag.capture import live
live.check_capture_permission = lambda: None  # past kdiag's own check: the socket itself is refused
try:
    live.LiveCapture(iface=sys.argv[1], backend=sys.argv[2]).start()
except live.CapturePermissionError as error:
    print(error)
"""


@pytest.mark.parametrize(("backend", "iface"), [("raw", "lo"), ("raw", "any"), ("scapy", "lo")])
def test_a_packet_socket_refused_by_the_kernel_is_the_same_permission_message(backend, iface):
    done = subprocess.run(as_nobody([sys.executable, "-c", NO_PRIVILEGE_CHECK, iface, backend]), capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout == live.PERMISSION_HINT + "\n"
