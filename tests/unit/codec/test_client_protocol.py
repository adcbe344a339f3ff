"""KafkaClientProtocol: requests out as bytes, bytes in as (correlation_id, response), matched by id."""

from __future__ import annotations

import pytest

from probes.codec import (
    ApiVersionRange,
    ApiVersionsRequest,
    ApiVersionsResponse,
    KafkaClientProtocol,
    MalformedFrame,
    MetadataRequest,
    MetadataResponse,
    NotKafka,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    kafka_error,
)
from tests.unit.codec.golden import golden

API_VERSIONS_V0_ANSWER_TO_1 = golden(
    "00 00 00 10",                 # size 16
    "00 00 00 01",                 # correlation_id 1
    "00 00",                       # error_code NONE
    "00 00 00 01",                 # api_keys: 1
    "00 12 00 00 00 04",           #   ApiVersions 0-4
)
SASL_HANDSHAKE_ANSWER_TO_2 = golden(
    "00 00 00 11",                 # size 17
    "00 00 00 02",                 # correlation_id 2
    "00 00",                       # error_code NONE
    "00 00 00 01",                 # mechanisms: 1
    "00 05 50 4c 41 49 4e",        #   "PLAIN"
)
METADATA_V9_ANSWER_TO_2 = golden(
    "00 00 00 15",                 # size 21
    "00 00 00 02",                 # correlation_id 2
    "00",                          # response header tagged fields: none (v1)
    "00 00 00 00",                 # throttle_time_ms 0
    "01",                          # brokers: compact array, 0
    "00",                          # cluster_id null
    "ff ff ff ff",                 # controller_id -1
    "01",                          # topics: compact array, 0
    "80 00 00 00",                 # cluster_authorized_operations INT32_MIN
    "00",                          # tagged fields: none
)

API_VERSIONS_0_TO_4 = ApiVersionsResponse(0, kafka_error(0), (ApiVersionRange(18, 0, 4),), 0)
PLAIN_ENABLED = SaslHandshakeResponse(1, kafka_error(0), ("PLAIN",))


def pipelined() -> KafkaClientProtocol:
    protocol = KafkaClientProtocol()
    assert protocol.send_request(ApiVersionsRequest(version=0))[0] == 1
    assert protocol.send_request(SaslHandshakeRequest("PLAIN", version=1))[0] == 2
    return protocol


def test_send_request_numbers_requests_and_returns_their_frames():
    protocol = KafkaClientProtocol()
    first_id, first = protocol.send_request(ApiVersionsRequest(version=0))
    second_id, _ = protocol.send_request(ApiVersionsRequest(version=0))
    assert (first_id, second_id) == (1, 2)
    assert first == golden("00 00 00 0f", "00 12 00 00", "00 00 00 01", "00 05 6b 64 69 61 67")
    assert protocol.in_flight == 2


def test_correlation_ids_wrap_to_one_and_never_go_negative():
    protocol = KafkaClientProtocol(first_correlation_id=0x7FFFFFFF)
    ids = [protocol.send_request(ApiVersionsRequest(version=0))[0] for _ in range(2)]
    assert ids == [0x7FFFFFFF, 1]


def test_two_pipelined_requests_answered_in_order_in_one_chunk():
    protocol = pipelined()
    responses = protocol.receive_bytes(API_VERSIONS_V0_ANSWER_TO_1 + SASL_HANDSHAKE_ANSWER_TO_2)
    assert responses == [(1, API_VERSIONS_0_TO_4), (2, PLAIN_ENABLED)]
    assert protocol.in_flight == 0


def test_two_pipelined_requests_answered_one_byte_at_a_time():
    protocol = pipelined()
    stream = API_VERSIONS_V0_ANSWER_TO_1 + SASL_HANDSHAKE_ANSWER_TO_2
    responses = []
    for i in range(len(stream)):
        got = protocol.receive_bytes(stream[i : i + 1])
        if got:
            responses.append((i + 1, got))
    assert responses == [(len(API_VERSIONS_V0_ANSWER_TO_1), [(1, API_VERSIONS_0_TO_4)]),
                         (len(stream), [(2, PLAIN_ENABLED)])]


def test_each_response_is_decoded_with_the_version_of_its_own_request():
    protocol = KafkaClientProtocol()
    protocol.send_request(ApiVersionsRequest(version=0))
    protocol.send_request(MetadataRequest(version=9))
    [(_, metadata)] = protocol.receive_bytes(METADATA_V9_ANSWER_TO_2)
    assert metadata == MetadataResponse(9, (), None, -1, (), 0)
    assert protocol.in_flight == 1


def test_response_matches_its_request_by_correlation_id_not_by_arrival_order():
    protocol = pipelined()
    assert protocol.receive_bytes(SASL_HANDSHAKE_ANSWER_TO_2) == [(2, PLAIN_ENABLED)]
    assert protocol.receive_bytes(API_VERSIONS_V0_ANSWER_TO_1) == [(1, API_VERSIONS_0_TO_4)]


def test_response_with_an_unknown_correlation_id_raises_malformed_frame():
    protocol = KafkaClientProtocol()
    protocol.send_request(SaslHandshakeRequest("PLAIN", version=1))  # id 1 in flight
    with pytest.raises(MalformedFrame, match="correlation id 2 matches no request in flight"):
        protocol.receive_bytes(SASL_HANDSHAKE_ANSWER_TO_2)


def test_second_answer_to_the_same_request_raises_malformed_frame():
    protocol = pipelined()
    protocol.receive_bytes(SASL_HANDSHAKE_ANSWER_TO_2)
    with pytest.raises(MalformedFrame, match="correlation id 2 matches no request in flight"):
        protocol.receive_bytes(SASL_HANDSHAKE_ANSWER_TO_2)


def test_zookeeper_answer_raises_not_kafka():
    zookeeper_connect_response = golden(
        "00 00 00 24",             # length 36
        "00 00 00 00",             # protocolVersion 0 (where Kafka puts the correlation id)
        "00 00 75 30",             # timeOut 30000
        "01 23 45 67 89 ab cd ef", # sessionId
        "00 00 00 10",             # passwd: 16 bytes
        "00" * 16,
    )
    protocol = KafkaClientProtocol()
    protocol.send_request(ApiVersionsRequest())
    with pytest.raises(NotKafka) as raised:
        protocol.receive_bytes(zookeeper_connect_response)
    assert raised.value.foreign.kind == "zookeeper"


def test_tls_alert_answer_raises_not_kafka():
    protocol = KafkaClientProtocol()
    protocol.send_request(ApiVersionsRequest())
    with pytest.raises(NotKafka) as raised:
        protocol.receive_bytes(bytes.fromhex("15 03 03 00 02 02 28"))
    assert raised.value.foreign.kind == "tls_alert"


@pytest.mark.parametrize("bad", [bytes.fromhex("15 03 03 00 02 02 28"), bytes.fromhex("7f ff ff ff")],
                         ids=["tls_alert", "too_large"])
def test_responses_before_a_bad_frame_in_the_same_read_are_returned_and_the_next_call_raises(bad):
    protocol = pipelined()
    assert protocol.receive_bytes(API_VERSIONS_V0_ANSWER_TO_1 + bad) == [(1, API_VERSIONS_0_TO_4)]
    with pytest.raises(MalformedFrame):
        protocol.receive_bytes(b"")


def test_response_before_an_answer_to_no_request_is_returned_and_the_next_call_raises():
    protocol = KafkaClientProtocol()
    protocol.send_request(ApiVersionsRequest(version=0))  # id 1 in flight; nothing asked with id 2
    assert protocol.receive_bytes(API_VERSIONS_V0_ANSWER_TO_1 + SASL_HANDSHAKE_ANSWER_TO_2) == [
        (1, API_VERSIONS_0_TO_4)]
    with pytest.raises(MalformedFrame, match="correlation id 2 matches no request in flight"):
        protocol.receive_bytes(b"")
