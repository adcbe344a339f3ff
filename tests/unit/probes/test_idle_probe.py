"""``probes.idle`` against the scripted fake broker: an answer, silence, and a closed connection, within one run
(``hold_idle``) and across runs (``HeldConnection``)."""

from __future__ import annotations

import socket

from probes.idle import HeldConnection, hold_idle
from probes.kafka import KafkaConnection
from tests.clock import ManualClock
from tests.fakebroker import (API_VERSIONS, METADATA, FakeBroker, answer_api_versions, answer_metadata, close,
                              expect_request, respond)


def _held(script, *, answer_timeout: float = 0.5):  # type: ignore[no-untyped-def]
    with FakeBroker([respond(API_VERSIONS, answer_api_versions()), *script]) as broker:
        with KafkaConnection(socket.create_connection(("127.0.0.1", broker.port))) as conn:
            conn.negotiate(timeout=2.0)
            return hold_idle(conn, seconds=0.2, answer_timeout=answer_timeout)


def test_an_answer_after_the_idle_time_is_ok():
    result = _held([respond(METADATA, answer_metadata(brokers=()))])
    assert result.status == "ok" and 0.15 <= result.idle_s <= 0.5


def test_silence_after_the_idle_time_is_a_timeout():
    result = _held([expect_request(METADATA)], answer_timeout=0.3)
    assert result.status == "timeout" and result.answer_ms >= 250


def test_a_connection_closed_meanwhile_is_closed():
    result = _held([close()])
    assert result.status == "closed" and result.error


# --- HeldConnection: one connection kept idle across kdiag watch's probes ---------------------------------


def _connection(broker: FakeBroker) -> KafkaConnection:
    conn = KafkaConnection(socket.create_connection(("127.0.0.1", broker.port)))
    conn.negotiate(timeout=2.0)
    return conn


def _negotiated(*script) -> FakeBroker:  # type: ignore[no-untyped-def]
    return FakeBroker([respond(API_VERSIONS, answer_api_versions()), *script])


def test_the_first_connection_offered_is_kept_and_not_asked_before_it_is_due():
    with _negotiated() as broker:
        held = HeldConnection(60.0)
        conn = _connection(broker)
        assert held.exchange(conn, answer_timeout=1.0) == (None, True)  # kept: the run must not close it
        assert held.exchange(None, answer_timeout=1.0) == (None, False)  # a run whose bootstrap failed
        assert not held.due()
        held.close()
        assert conn.sock.fileno() == -1


def test_a_due_connection_is_asked_closed_and_replaced_by_the_run_s_own():
    with _negotiated(respond(METADATA, answer_metadata(brokers=()))) as first, _negotiated() as second:
        clock = ManualClock()
        held = HeldConnection(0.2, clock=clock)
        old = _connection(first)
        held.exchange(old, answer_timeout=1.0)
        assert not held.due()
        clock.advance(0.25)
        assert held.due()
        new = _connection(second)
        last, kept = held.exchange(new, answer_timeout=1.0)
        assert last is not None and last.status == "ok" and last.idle_s >= 0.2
        assert kept and old.sock.fileno() == -1 and not held.due()
        held.close()


def test_a_silently_dropped_connection_is_a_timeout_carried_until_the_next_check():
    with _negotiated(expect_request(METADATA)) as dropping, _negotiated() as fresh:
        clock = ManualClock()
        held = HeldConnection(0.2, clock=clock)
        held.exchange(_connection(dropping), answer_timeout=1.0)
        clock.advance(0.25)
        last, _kept = held.exchange(_connection(fresh), answer_timeout=0.3)
        assert last is not None and last.status == "timeout"
        assert held.exchange(None, answer_timeout=1.0) == (last, False)  # not due again yet: the same result
        held.close()


def test_a_run_whose_own_bootstrap_fails_does_not_ask_the_held_connection():
    # A fresh connection that fails says the broker or the path is down; an idle one failing then would be
    # blamed on the idle time. The held connection waits for a run whose bootstrap works.
    from kdiag.orchestrate import BootstrapOptions, run_bootstrap
    from kdiag.report import Endpoint

    with _negotiated() as broker, socket.socket() as unused:  # a Metadata request would fail the fake broker
        unused.bind(("127.0.0.1", 0))  # bound, not listening: connections to it are refused
        held = HeldConnection(0.0)
        held.exchange(_connection(broker), answer_timeout=1.0)
        options = BootstrapOptions(targets=(Endpoint("127.0.0.1", unused.getsockname()[1]),), timeout=10.0,
                                   roundtrip=False, scan_listeners=False)
        report = run_bootstrap(options, held=held)
        assert report.idle is None and held.due()
        assert [header.api_key for header in broker.requests_on(0)] == [API_VERSIONS]  # no Metadata was asked
        held.close()
