"""The classes the twelfth collection round's misses asked for (holdout6, scored blind, then read), each from the
source's own format string, with invented hosts (documentation names and addresses) and a near miss beside it."""

from __future__ import annotations

import pytest

from tests.unit.explain.sweep_rows import reads

BROKER = "[2026-12-08 01:00:00,000] INFO [SocketServer brokerId=2] Failed authentication with {peer} ({why}) " \
         "(org.apache.kafka.common.network.Selector)"
REPORTER = "[2026-12-08 01:00:00,000] DEBUG [Producer clientId=reporter] {words} (org.apache.kafka.clients.NetworkClient)"

ROWS = [
    # The broker's Selector (2.x names the client "name/ip", KRaft "/ip (channelId=...)"), with the client's address
    # hidden as pastes hide it: a word in capitals, <...>, ***
    (BROKER.format(peer="INTERNAL_IP/INTERNAL_IP", why="Unsupported SASL mechanism PLAIN"), "SASL_MECHANISM_MISMATCH"),
    (BROKER.format(peer="/<client-ip>", why="Unsupported SASL mechanism PLAIN"), "SASL_MECHANISM_MISMATCH"),
    (BROKER.format(peer="/***", why="Authentication failed: Invalid username or password"), "SASL_AUTH_FAILED"),
    # near miss: a client's own line naming its broker "name/ip" is not the broker's word (no [SocketServer] context)
    ("Failed authentication with CLIENT_HOST/CLIENT_IP (Unsupported SASL mechanism PLAIN)", "no:SASL_MECHANISM_MISMATCH"),
    # NetworkClient's DEBUG "Node -N disconnected.": a bootstrap connection closed, which at a first request is a
    # listener wanting TLS or SASL, or one turning the connection away: readings, none certain
    (REPORTER.format(words="Node -2 disconnected."),
     "or:TLS_EXPECTED or:SASL_REQUIRED or:BROKER_CLOSED_CONNECTION no:BOOTSTRAP_REFUSED"),
    # near miss: a broker the metadata named (a positive id) closes idle connections every connections.max.idle.ms
    (REPORTER.format(words="Node 2 disconnected."), "no:TLS_EXPECTED no:SASL_REQUIRED no:BROKER_CLOSED_CONNECTION"),
]


@pytest.mark.parametrize("text, expectation", ROWS)
def test_holdout6_classes_read_as_their_sources_mean(text, expectation):
    reads(text + "\n", expectation)
