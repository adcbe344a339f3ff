"""A real broker that accepts connections and does not answer them: frozen (BROKER_STALLED), or turning
the client's address away (BROKER_CLOSED_CONNECTION). The scripted hostile peers (tests/unit/hostile)
show the same findings on bytes written by hand; these show what a real Apache Kafka broker does."""

from __future__ import annotations

import pytest

from kdiag.lab.kafka import free_ports
from tests.kdiag_cli import run_kdiag
from tests.netns_broker import BROKER_BOOTSTRAP, CLIENT_ADDRESS, broker_beside_client

TIMEOUT = 3.0

pytestmark = pytest.mark.broker


def errors(run) -> set[str]:  # type: ignore[no-untyped-def]
    return {f["id"] for f in run.report["findings"] if f["severity"] in ("error", "warning")}


def test_a_frozen_broker_is_broker_stalled_within_the_timeout(kafka_broker):
    """SIGSTOP, as a long stop-the-world GC pause or a hung JVM looks from outside: the kernel still
    completes the TCP handshake and buffers the request; nothing reads it."""
    [refused] = free_ports(1)
    startup = run_kdiag("bootstrap", f"127.0.0.1:{refused}", "--json", "--no-listener-scan").seconds
    with kafka_broker.frozen():
        run = run_kdiag("bootstrap", kafka_broker.bootstrap_servers, "--json", "--timeout", str(TIMEOUT))
    assert run.exit_code == 1, run.stderr
    assert run.seconds - startup < TIMEOUT + 1, (run.seconds, startup)
    assert (run.stage("tcp")["status"], run.stage("metadata")["status"]) == ("ok", "fail")
    assert errors(run) == {"BROKER_STALLED"}, run.report["findings"]
    stalled = run.finding("BROKER_STALLED")
    host, port = kafka_broker.client_address
    assert stalled["title"] == (f"Bootstrap address {host}:{port} accepted the connection, but the process behind "
                                "it is not reading")
    evidence = stalled["evidence"]
    assert (evidence["host"], evidence["port"], evidence["kafka_status"]) == (host, port, "error")
    assert "no answer to ApiVersions within" in evidence["what"]
    assert "no reaction" in evidence["what"] and "(frozen or hung)" in evidence["what"]
    assert "kill -CONT" in stalled["fix"]
    assert run.stage("metadata")["detail"]["kafka"]["foreign"]["kind"] == "hung"

    resumed = run_kdiag("bootstrap", kafka_broker.bootstrap_servers, "--json", "--no-roundtrip")
    assert resumed.exit_code == 0, resumed.stdout  # the same broker, answering again once resumed


@pytest.mark.netns
def test_a_broker_that_turns_the_clients_address_away_is_broker_closed_connection(tmp_path):
    """max.connections.per.ip.overrides: the broker accepts the connection, logs `Rejected connection from
    /IP, address already has the configured maximum of N connections` and closes it unanswered. The
    client needs an address of its own for that (the broker's own connections come from 127.0.0.1)."""
    overrides = {"max.connections.per.ip.overrides": f"{CLIENT_ADDRESS}:0"}
    with broker_beside_client("connlimit", tmp_path, overrides=overrides) as (live, broker):
        run = run_kdiag("bootstrap", BROKER_BOOTSTRAP, "--json", "--timeout", str(TIMEOUT), netns=live.ns("client"))
        log = "\n".join(broker.log_tail(200))
    assert "Rejected connection from /192.0.2.10, address already has the configured maximum of 0 connections" in log
    assert run.exit_code == 1, run.stderr
    assert (run.stage("tcp")["status"], run.stage("metadata")["status"]) == ("ok", "fail")
    assert errors(run) == {"BROKER_CLOSED_CONNECTION"}, run.report["findings"]
    closed = run.finding("BROKER_CLOSED_CONNECTION")
    assert closed["title"] == "Bootstrap address 192.0.2.1:9092 accepted the connection, then closed it without answering"
    evidence = closed["evidence"]
    assert (evidence["host"], evidence["port"], evidence["kafka_status"]) == ("192.0.2.1", 9092, "error")
    assert "(kdiag connected from 192.0.2.10)" in evidence["what"]
    assert "Rejected connection from" in closed["explanation"]
    assert "max.connections.per.ip.overrides" in closed["fix"] and "KAFKA_MAX_CONNECTIONS_PER_IP" in closed["fix"]
    assert run.seconds < TIMEOUT + 2  # a close is an answer: nothing is waited out


def test_a_broker_at_its_listeners_connection_limit_is_broker_stalled_and_named(tmp_path):
    """listener.name.<listener>.max.connections (KIP-402): at the limit the broker stops accepting on that
    listener, and new connections wait in the kernel's queue unread, as they would on a frozen broker. The
    finding names the limit beside the freeze; once a connection closes, the next one is served."""
    import socket

    from kdiag.lab.kafka import KafkaBroker, loopback_specs

    limit = 8  # room for kdiag's own: the bootstrap connection stays open while it checks broker and landings
    spec = loopback_specs(1, overrides={"listener.name.plaintext.max.connections": str(limit)})[0]
    with KafkaBroker.start(spec, workdir=tmp_path) as broker:
        holders = [socket.create_connection(broker.client_address, timeout=5) for _ in range(limit)]
        try:
            run = run_kdiag("bootstrap", broker.bootstrap_servers, "--json", "--timeout", str(TIMEOUT),
                            "--no-listener-scan")
        finally:
            for holder in holders:
                holder.close()
        freed = run_kdiag("bootstrap", broker.bootstrap_servers, "--json", "--no-roundtrip", "--timeout", "20")
    assert run.exit_code == 1, run.stderr
    assert (run.stage("tcp")["status"], run.stage("metadata")["status"]) == ("ok", "fail")
    assert errors(run) == {"BROKER_STALLED"}, run.report["findings"]
    stalled = run.finding("BROKER_STALLED")
    assert stalled["title"].endswith("accepted the connection, but the process behind it is not reading")
    assert "max.connections" in stalled["explanation"] and "KIP-402" in stalled["explanation"]
    assert "max.connections" in stalled["fix"]
    assert run.stage("metadata")["detail"]["kafka"]["foreign"]["kind"] == "hung"
    assert freed.exit_code == 0, freed.stdout  # the slot is free again: served at once
