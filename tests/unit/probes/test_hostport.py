"""``host:port`` is written by one function, with brackets around an IPv6 literal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from probes.hostport import bracketed, hostport

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(("host", "port", "written"), [
    ("kafka-1.example.com", 9092, "kafka-1.example.com:9092"),
    ("10.0.0.7", 9093, "10.0.0.7:9093"),
    ("::1", 9092, "[::1]:9092"),
    ("fe80::1%eth0", 9092, "[fe80::1%eth0]:9092"),
    ("::", "<port>", "[::]:<port>"),
])
def test_an_ipv6_literal_is_bracketed_and_any_other_host_is_not(host, port, written) -> None:
    assert hostport(host, port) == written
    assert bracketed(host) == written.rsplit(":", 1)[0]


def test_no_other_module_brackets_a_host_itself() -> None:
    """``[{host}]:{port}`` or ``[{host}]" if ":" in`` in an f-string anywhere else is a second formatter."""
    copies = [f"{path.relative_to(REPO)}:{number}"
              for root in ("kdiag", "probes") for path in sorted((REPO / root).rglob("*.py"))
              if path != REPO / "probes" / "hostport.py"
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
              if re.search(r"""f["'].*\[\{[^}]+\}\](:\{|["'] if ["']:["'] in)""", line)]
    assert copies == []


def test_no_module_writes_a_host_and_port_unbracketed() -> None:
    """``f"{host}:{port}"`` (or ``{x.host}:{x.port}``) writes ``::1:9092`` for an IPv6 literal: a
    reader cannot tell the port from the address. Each such place calls ``hostport`` instead."""
    unbracketed = [f"{path.relative_to(REPO)}:{number}"
                   for root in ("kdiag", "probes") for path in sorted((REPO / root).rglob("*.py"))
                   for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                   if re.search(r"""f["'][^"']*\{(\w+\.)*host\}:\{(\w+\.)*port\}""", line)]
    assert unbracketed == []


def test_a_tls_handshake_with_an_ipv6_literal_names_it_bracketed() -> None:
    from probes.results import TlsResult
    from probes.tls import describe

    assert "with [::1]:9093" in describe(TlsResult("ok", host="::1", port=9093, version="TLSv1.3", cipher="X"))
