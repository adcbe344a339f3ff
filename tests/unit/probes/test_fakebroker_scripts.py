"""The fake broker itself: a script that does not run as written fails the test that used it."""

from __future__ import annotations

import socket

import pytest

from probes.codec import ApiVersionsRequest, MetadataRequest, encode_request
from tests.fakebroker import API_VERSIONS, METADATA, FakeBroker, answer_api_versions, expect_request, respond
from tests.waiting import wait_until


def send_request(port: int, request, *, answered: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(encode_request(request, correlation_id=5))
        return sock.recv(4096) if answered else b""


def test_script_answers_and_records_the_request_header():
    with FakeBroker([respond(API_VERSIONS, answer_api_versions())]) as broker:
        answer = send_request(broker.port, ApiVersionsRequest(version=3))
    assert answer[4:8] == b"\x00\x00\x00\x05"  # the answer carries the request's correlation id
    [(connection, header)] = broker.requests
    assert (connection, header.api_key, header.api_version, header.client_id) == (0, 18, 3, "kdiag")


def test_request_of_another_api_than_the_script_expects_fails_at_the_end_of_the_block():
    with pytest.raises(AssertionError, match="connection 0: expected api key 3, got 18 v0"):
        with FakeBroker([expect_request(METADATA)]) as broker:
            send_request(broker.port, ApiVersionsRequest(version=0))


def test_connection_no_script_was_written_for_fails_at_the_end_of_the_block():
    with pytest.raises(AssertionError, match="no script for connection 1"):
        with FakeBroker([expect_request(METADATA)]) as broker:
            send_request(broker.port, MetadataRequest(version=1), answered=False)
            send_request(broker.port, MetadataRequest(version=1), answered=False)
            wait_until(lambda: broker.connections >= 2, 2, "the second connection accepted", step=0.01)
