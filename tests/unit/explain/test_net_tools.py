"""telnet, netcat and curl in their own words (netkit/GNU/BSD/busybox telnet, OpenBSD nc, nmap's ncat, curl): a user
trying a broker's address by hand. Each says whether the name resolved and the port connected; none says the address's
role, so the paste decides it, else both readings are given."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, ids, only

ROLE_UNKNOWN = [
    # (paste, the reading kdiag gives first, the other role's reading)
    ("Trying 192.0.2.10...\ntelnet: Unable to connect to remote host: Connection timed out\n",
     "BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE"),
    ("Trying 192.0.2.10...\ntelnet: connect to address 192.0.2.10: Connection refused\n"
     "telnet: Unable to connect to remote host\n", "BOOTSTRAP_REFUSED", "ADVERTISED_UNREACHABLE"),
    ("$ telnet kafka.example.com 9092\ntelnet: could not resolve kafka.example.com/9092: Name or service not known\n",
     "BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE"),
    ("telnet: can't connect to remote host (192.0.2.10): No route to host", "BOOTSTRAP_UNREACHABLE",
     "ADVERTISED_UNREACHABLE"),
    ("nc: connect to 192.0.2.10 port 9092 (tcp) failed: Connection refused", "BOOTSTRAP_REFUSED",
     "ADVERTISED_UNREACHABLE"),
    ("nc: connectx to 192.0.2.10 port 9092 (tcp) failed: Operation timed out", "BOOTSTRAP_TIMEOUT",
     "ADVERTISED_UNREACHABLE"),
    ('nc: getaddrinfo for host "kafka.example.com" port 9092: Name or service not known', "BOOTSTRAP_UNRESOLVABLE",
     "ADVERTISED_UNRESOLVABLE"),
    ("$ ncat -v 192.0.2.10 9092\nNcat: Version 7.80 ( https://nmap.org/ncat )\nNcat: TIMEOUT.\n",
     "BOOTSTRAP_TIMEOUT", "ADVERTISED_UNREACHABLE"),
    ('Ncat: Could not resolve hostname "kafka.example.com": Name or service not known. QUITTING.',
     "BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE"),
    ("curl: (7) Failed to connect to 192.0.2.10 port 9092 after 3 ms: Connection refused", "BOOTSTRAP_REFUSED",
     "ADVERTISED_UNREACHABLE"),
    ("curl: (7) Failed connect to 192.0.2.10:9092; Connection refused", "BOOTSTRAP_REFUSED", "ADVERTISED_UNREACHABLE"),
    ("curl: (6) Could not resolve host: kafka.example.com", "BOOTSTRAP_UNRESOLVABLE", "ADVERTISED_UNRESOLVABLE"),
]


@pytest.mark.parametrize("paste,first,other", ROLE_UNKNOWN, ids=[p.splitlines()[-1][:40] for p, _, _ in ROLE_UNKNOWN])
def test_a_tools_failure_with_no_role_in_the_paste_gives_both_readings(paste, first, other):
    found = explained(paste).findings
    assert [f.id for f in found] == [first, other]
    assert all(f.severity == "warning" and f.evidence["certain"] is False for f in found)
    assert found[0].evidence["client"] == "tool" and "connection test" in found[0].explanation


def test_the_command_line_names_the_endpoint_telnet_tries_by_address():
    paste = "$ telnet kafka-1.corp.example 9093\nTrying 192.0.2.10...\ntelnet: Unable to connect to remote host: " \
            "Connection refused\n"
    found = explained(paste).findings[0]
    assert (found.evidence["host"], found.evidence["port"]) == ("kafka-1.corp.example", 9093)


def test_a_tool_at_the_clients_bootstrap_address_is_the_bootstrap():
    paste = ("bootstrap.servers = [192.0.2.10:9092]\n$ nc -vz 192.0.2.10 9092\n"
             "nc: connect to 192.0.2.10 port 9092 (tcp) failed: Connection refused\n")
    found = only(explained(paste), "BOOTSTRAP_REFUSED")
    assert found.severity == "error" and found.evidence["role"] == "bootstrap"


def test_a_tools_success_and_a_port_of_another_service_say_nothing():
    assert ids(explained("Trying 192.0.2.10...\nConnected to kafka-1.example.\nEscape character is '^]'.\n")) == []
    assert ids(explained("curl: (7) Failed to connect to 192.0.2.10 port 80 after 1 ms: Connection refused")) == []
    assert ids(explained("Trying to reconnect...\nConnection refused somewhere")) == []


@pytest.mark.parametrize("command", ["$ nc -vz kafka-1.corp.example 9093", "# ncat -v -w 5 kafka-1.corp.example 9093",
                                     "netcat kafka-1.corp.example 9093"])
def test_a_netcat_command_line_names_the_endpoint_of_the_words_below_it(command):
    found = explained(f"{command}\nNcat: Connection refused.\n").findings[0]
    assert (found.id, found.evidence["host"], found.evidence["port"]) == ("BOOTSTRAP_REFUSED", "kafka-1.corp.example",
                                                                          9093)


@pytest.mark.parametrize("paste", ["curl: (7) Failed to connect to 192.0.2.10 port 8083 after 1 ms: Connection refused",
                                   "nc: connect to 192.0.2.10 port 2181 (tcp) failed: Connection refused",
                                   "$ telnet 192.0.2.10 8081\nTrying 192.0.2.10...\ntelnet: Unable to connect to remote "
                                   "host: Connection refused\n"])
def test_a_tool_at_another_services_port_says_nothing_about_a_broker(paste):
    assert ids(explained(paste)) == []


def test_telnet_refused_on_localhosts_ipv6_then_connected_on_ipv4_is_the_family_split():
    paste = ("$ telnet localhost 9092\nTrying ::1...\ntelnet: connect to address ::1: Connection refused\n"
             "Trying 127.0.0.1...\nConnected to localhost.\nEscape character is '^]'.\n")
    [found] = explained(paste).findings
    assert (found.id, found.evidence["host"], found.evidence["port"]) == ("ADVERTISED_ADDRESS_FAMILY_SPLIT", "localhost",
                                                                          9092)


def test_telnet_refused_on_both_of_localhosts_addresses_is_a_refusal():
    paste = ("$ telnet localhost 9092\nTrying ::1...\ntelnet: connect to address ::1: Connection refused\n"
             "Trying 127.0.0.1...\ntelnet: connect to address 127.0.0.1: Connection refused\n")
    assert "ADVERTISED_ADDRESS_FAMILY_SPLIT" not in ids(explained(paste))
    assert ids(explained(paste))[0] == "BOOTSTRAP_REFUSED"
