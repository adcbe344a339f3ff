"""Bootstrap addresses the way users type and paste them, and one clear line for each mistake."""

from __future__ import annotations

import pytest

from kdiag.exitstatus import UsageError
from kdiag.report import Endpoint
from kdiag.target import parse_bootstrap


@pytest.mark.parametrize(("text", "expected"), [
    ("broker.example.com:9093", [("broker.example.com", 9093)]),
    ("broker.example.com", [("broker.example.com", 9092)]),
    ("10.0.0.1:19092", [("10.0.0.1", 19092)]),
    ("10.0.0.1", [("10.0.0.1", 9092)]),
    ("[::1]:9093", [("::1", 9093)]),
    ("[::1]", [("::1", 9092)]),
    ("[fe80::1%eth0]:9092", [("fe80::1%eth0", 9092)]),
    ("::1", [("::1", 9092)]),
    ("fe80::1", [("fe80::1", 9092)]),
    ("2001:db8:0:0:0:0:0:1", [("2001:db8:0:0:0:0:0:1", 9092)]),
    ("a:1,b:2", [("a", 1), ("b", 2)]),
    ("  a:1 , b  ", [("a", 1), ("b", 9092)]),
    ("PLAINTEXT://kafka0:29092", [("kafka0", 29092)]),
    ("LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092", [("kafka0", 29092), ("localhost", 9092)]),
    ("SASL_SSL://[::1]:9094", [("::1", 9094)]),
    ("broker.example.com.:9092", [("broker.example.com.", 9092)]),
    ("kafka_broker_1:9092", [("kafka_broker_1", 9092)]),  # a Docker Compose v1 container name
    ("ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092",
     [("ec2-54-191-84-122.us-west-2.compute.amazonaws.com", 9092)]),
    ("a:1,A:1,a:2", [("a", 1), ("a", 2)]),  # duplicates dropped, order kept
    ("a:65535", [("a", 65535)]),
    (("x" * 63 + ".") * 3 + "x" * 61, [(("x" * 63 + ".") * 3 + "x" * 61, 9092)]),  # 253 characters
])
def test_accepted_forms(text: str, expected: list[tuple[str, int]]) -> None:
    assert parse_bootstrap(text) == tuple(Endpoint(host, port) for host, port in expected)


@pytest.mark.parametrize(("text", "message"), [
    ("", "no bootstrap address given (expected HOST[:PORT], e.g. broker.example.com:9092)"),
    ("   ", "no bootstrap address given (expected HOST[:PORT], e.g. broker.example.com:9092)"),
    ("host:", "bootstrap address 'host:': missing port after ':' (expected HOST:PORT, or leave out ':' for port 9092)"),
    (":9092", "bootstrap address ':9092': missing host before ':9092' (expected HOST:PORT, e.g. broker.example.com:9092)"),
    ("host:99999", "bootstrap address 'host:99999': port 99999 is out of range (1-65535)"),
    ("host:0", "bootstrap address 'host:0': port 0 is out of range (1-65535)"),
    ("host:" + "9" * 5000, "is out of range (1-65535)"),
    ("host:abc", "bootstrap address 'host:abc': port 'abc' is not a number"),
    ("host:+1", "bootstrap address 'host:+1': port '+1' is not a number"),
    ("a:1,,b:2", "empty bootstrap address (element 2 of 'a:1,,b:2'); separate addresses with single commas"),
    ("a:1,", "empty bootstrap address (element 2 of 'a:1,'); separate addresses with single commas"),
    ("bro ker:9092", "bootstrap address 'bro ker:9092': contains a space inside the address"),
    ("broker\x07:9092", "bootstrap address 'broker\\x07:9092': contains the control character '\\x07'"),
    ("bro\tker", "bootstrap address 'bro\\tker': contains the control character '\\t'"),
    ("::1:9092", "bootstrap address '::1:9092': ambiguous IPv6 address and port; put IPv6 addresses in brackets: [::1]:9092"),
    ("2001:db8::1:19092", "put IPv6 addresses in brackets: [2001:db8::1]:19092"),
    ("a:b:c", "bootstrap address 'a:b:c': neither HOST:PORT nor an IPv6 address (put IPv6 addresses in brackets: [::1]:9092)"),
    ("[::1", "bootstrap address '[::1': missing ']' after the IPv6 address"),
    ("[]:9092", "bootstrap address '[]:9092': empty brackets"),
    ("[10.0.0.1]:9092", "bootstrap address '[10.0.0.1]:9092': '10.0.0.1' in brackets is not an IPv6 address"),
    ("[::1]9092", "bootstrap address '[::1]9092': unexpected '9092' after ']'"),
    ("[::1]:", "bootstrap address '[::1]:': missing port after ':'"),
    ("PLAINTEXT://", "bootstrap address 'PLAINTEXT://': no host after the listener prefix"),
    ("bro$ker:9092", "bootstrap address 'bro$ker:9092': host 'bro$ker' contains '$', which is not allowed in a host name"),
    ("a..b:9092", "bootstrap address 'a..b:9092': host 'a..b' has an empty label ('..' or a leading '.')"),
    ("-broker:9092", "bootstrap address '-broker:9092': label '-broker' starts or ends with '-'"),
    ("x" * 64 + ".com", "label '" + "x" * 64 + "' is 64 characters long (at most 63 per label)"),
    (("x" * 60 + ".") * 4 + "x" * 10, "host name is 254 characters long (at most 253)"),
    ("999.1.1.1:9092", "bootstrap address '999.1.1.1:9092': '999.1.1.1' is not a valid IPv4 address"),
    ("münchen.de", "bootstrap address 'münchen.de': host 'münchen.de' is not ASCII; use its ASCII (xn--) form"),
])
def test_rejections_name_the_offending_element(text: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_bootstrap(text)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_very_long_element_is_shortened_in_the_message() -> None:
    with pytest.raises(UsageError) as raised:
        parse_bootstrap("x" * 300 + ":1")
    assert len(str(raised.value)) < 200
    assert "…" in str(raised.value)
