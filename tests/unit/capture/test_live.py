"""Live capture without a network: the privilege check, the filter, and that scapy stays unloaded."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kdiag.capture import live
from kdiag.capture.command import start_live_capture
from kdiag.exitstatus import UsageError
from kdiag.report import Endpoint


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
    code = ("import sys, kdiag.capture.command, kdiag.capture.timeline, kdiag.capture.flows; "
            "print(any(m == 'scapy' or m.startswith('scapy.') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_an_interface_that_does_not_exist_is_one_line(monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: True)
    with pytest.raises(UsageError, match=r"^no network interface kdiag-nope0 here \(there are: lo"):
        start_live_capture((Endpoint("127.0.0.1", 9092),), iface="kdiag-nope0")


def test_an_unwritable_pcap_out_is_one_line_before_any_socket_opens(tmp_path, monkeypatch):
    monkeypatch.setattr(live, "has_capture_permission", lambda: True)
    monkeypatch.setattr(live.LiveCapture, "_open_sockets", lambda self, ifaces: pytest.fail("socket opened"))
    with pytest.raises(UsageError, match=r"^cannot write --pcap-out .*/missing/x\.pcap: No such file or directory$"):
        start_live_capture((Endpoint("127.0.0.1", 9092),), iface="lo", pcap_out=str(tmp_path / "missing" / "x.pcap"))
