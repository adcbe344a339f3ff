"""``probes.idle.hold_idle`` against the scripted fake broker: an answer, silence, and a closed connection."""

from __future__ import annotations

import socket

from probes.idle import hold_idle
from probes.kafka import KafkaConnection
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
