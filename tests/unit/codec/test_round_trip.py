"""Every request kdiag can send decodes back to itself, in every version it speaks (captures rely on it),
and so does every response the codec decodes (synthetic traffic and tests encode them).

Fields a version does not carry come back at the value that version implies (no client software
name before ApiVersions v3, auto-creation implied before Metadata v4, no rack before Metadata v1,
...), so each message is built with exactly what its version can say.
"""

from __future__ import annotations

import uuid

import pytest

from probes.codec import (
    SPECS,
    ApiVersionRange,
    ApiVersionsRequest,
    ApiVersionsResponse,
    Coordinator,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsResponse,
    MalformedFrame,
    MetadataBroker,
    MetadataPartition,
    MetadataRequest,
    MetadataResponse,
    MetadataTopic,
    RequestHeader,
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    decode_request,
    decode_response,
    encode_request,
    encode_response,
    kafka_error,
)
from probes.codec.messages import EARLIEST_TIMESTAMP, TRANSACTION_COORDINATOR


def api_versions(version: int) -> list:
    if version < 3:
        return [ApiVersionsRequest(version, client_software_name="", client_software_version="")]
    return [ApiVersionsRequest(version, client_software_name="kdiag", client_software_version="0.1.0")]


def metadata(version: int) -> list:
    allow_auto = True if version < 4 else False  # before v4 the broker always may auto-create
    include_ops = version >= 8
    requests = [MetadataRequest(version, ("orders", "payments"), allow_auto, include_ops),
                MetadataRequest(version, None, allow_auto, include_ops)]
    if version >= 1:  # from v1 an empty array means "no topics", distinct from null
        requests.append(MetadataRequest(version, (), allow_auto, include_ops))
    return requests


def find_coordinator(version: int) -> list:
    key_type = TRANSACTION_COORDINATOR if version >= 1 else 0
    return [FindCoordinatorRequest("txn-1", version=version, key_type=key_type)]


def list_offsets(version: int) -> list:
    return [ListOffsetsRequest("orders", 3, version=version, timestamp=EARLIEST_TIMESTAMP,
                               current_leader_epoch=7 if version >= 4 else -1, replica_id=-1,
                               timeout_ms=5000 if version >= 10 else 0)]


def sasl_handshake(version: int) -> list:
    return [SaslHandshakeRequest("SCRAM-SHA-512", version=version)]


def sasl_authenticate(version: int) -> list:
    return [SaslAuthenticateRequest(b"\0alice\0alice-secret", version=version),
            SaslAuthenticateRequest(b"", version=version)]


BUILDERS = {18: api_versions, 3: metadata, 10: find_coordinator, 2: list_offsets, 17: sasl_handshake,
            36: sasl_authenticate}


def every_request() -> list:
    return [
        pytest.param(request, id=f"{spec.name}-v{version}-{i}")
        for api_key, spec in sorted(SPECS.items())
        for version in range(spec.min_version, spec.max_version + 1)
        for i, request in enumerate(BUILDERS[api_key](version))
    ]


def test_round_trip_covers_every_api_the_codec_speaks():
    assert set(BUILDERS) == set(SPECS)


@pytest.mark.parametrize("request_", every_request())
def test_request_decodes_back_to_itself(request_):
    frame = encode_request(request_, correlation_id=0x7FFFFFFF)
    header, decoded = decode_request(frame[4:])
    assert header == RequestHeader(request_.API_KEY, request_.version, 0x7FFFFFFF, "kdiag")
    assert decoded == request_


def test_request_with_a_null_client_id_decodes_back_to_itself():
    frame = encode_request(MetadataRequest(12), correlation_id=1, client_id=None)
    assert frame[12:14] == b"\xff\xff"  # client_id: null (-1)
    assert decode_request(frame[4:]) == (RequestHeader(3, 12, 1, None), MetadataRequest(12))


def test_request_of_an_api_kdiag_does_not_decode_keeps_its_header():
    produce_v3 = bytes.fromhex("0000 0003 00000009 0005 6b64696167 ffff 00007530 00000000")
    header, body = decode_request(produce_v3)
    assert header == RequestHeader(0, 3, 9, "kdiag")
    assert header.api_name == "Produce"
    assert body is None


# --- responses ------------------------------------------------------------------------------------

OK = kafka_error(0)


def api_versions_response(version: int) -> list:
    ranges = (ApiVersionRange(18, 0, 4), ApiVersionRange(3, 0, 13), ApiVersionRange(10, 0, 6))
    throttle = 25 if version >= 1 else 0
    return [ApiVersionsResponse(version, OK, ranges, throttle),
            ApiVersionsResponse(version, kafka_error(-1), (), throttle),
            ApiVersionsResponse(0, kafka_error(35), (ApiVersionRange(18, 0, 2),))]  # always a v0 body


def metadata_response(version: int) -> list:
    partitions = (
        MetadataPartition(OK, 0, 2, (2, 3), (2, 3), leader_epoch=7 if version >= 7 else -1,
                          offline_replicas=(3,) if version >= 5 else ()),
        MetadataPartition(kafka_error(5), 1, -1, (3,), (), leader_epoch=-1),
    )
    topics = [MetadataTopic(OK, "orders", partitions, is_internal=False,
                            topic_id=uuid.UUID(int=0x6A1C) if version >= 10 else None),
              MetadataTopic(kafka_error(3), "gone", (), topic_id=uuid.UUID(int=0) if version >= 10 else None)]
    if version >= 1:
        topics.append(MetadataTopic(OK, "__consumer_offsets", (), is_internal=True,
                                    topic_id=uuid.UUID(int=0x0FF5E7) if version >= 10 else None))
    if version >= 12:
        topics.append(MetadataTopic(kafka_error(100), None, (), topic_id=uuid.UUID(int=0xFF)))
    brokers = (MetadataBroker(2, "kafka-2.lan", 9092, "rack-b" if version >= 1 else None),
               MetadataBroker(3, "ip-172-31-18-160.us-west-2.compute.internal", 9093))
    return [MetadataResponse(
        version, brokers, cluster_id="lab-cluster" if version >= 2 else None,
        controller_id=3 if version >= 1 else -1, topics=tuple(topics),
        throttle_time_ms=10 if version >= 3 else 0, error=kafka_error(129 if version >= 13 else 0),
    ), MetadataResponse(version, ())]


def find_coordinator_response(version: int) -> list:
    message = "coordinator loading" if version >= 1 else None
    throttle = 10 if version >= 1 else 0
    if version < 4:  # one coordinator, for the key asked
        return [FindCoordinatorResponse(version, (Coordinator("", 2, "kafka-2.lan", 9092),), throttle),
                FindCoordinatorResponse(version, (Coordinator("", -1, "", -1, kafka_error(15), message),), throttle)]
    return [FindCoordinatorResponse(version, (Coordinator("g1", 2, "kafka-2.lan", 9092),
                                              Coordinator("g2", -1, "", -1, kafka_error(15), message)), throttle),
            FindCoordinatorResponse(version, (), throttle)]


def list_offsets_response(version: int) -> list:
    def found(topic: str, index: int, offset: int) -> ListOffsetsPartition:
        return ListOffsetsPartition(topic, index, OK, timestamp=1_700_000_000_000 if version >= 1 else -1,
                                    offset=offset, leader_epoch=4 if version >= 4 else -1)

    partitions = (found("orders", 0, 42), found("orders", 3, 0),
                  ListOffsetsPartition("orders", 5, kafka_error(6)), found("payments", 1, 7))
    return [ListOffsetsResponse(version, partitions, 10 if version >= 2 else 0)]


def sasl_handshake_response(version: int) -> list:
    return [SaslHandshakeResponse(version, OK, ("PLAIN", "SCRAM-SHA-512")),
            SaslHandshakeResponse(version, kafka_error(33), ())]


def sasl_authenticate_response(version: int) -> list:
    lifetime = 3_600_000 if version >= 1 else 0
    return [SaslAuthenticateResponse(version, OK, None, b"v=signature", lifetime),
            SaslAuthenticateResponse(version, kafka_error(58), "Authentication failed", b"", 0)]


RESPONSE_BUILDERS = {18: api_versions_response, 3: metadata_response, 10: find_coordinator_response,
                     2: list_offsets_response, 17: sasl_handshake_response, 36: sasl_authenticate_response}


def every_response() -> list:
    return [
        pytest.param(version, response, id=f"{spec.name}-v{version}-{i}")
        for api_key, spec in sorted(SPECS.items())
        for version in range(spec.min_version, spec.max_version + 1)
        for i, response in enumerate(RESPONSE_BUILDERS[api_key](version))
    ]


def test_response_round_trip_covers_every_api_the_codec_speaks():
    assert set(RESPONSE_BUILDERS) == set(SPECS)


@pytest.mark.parametrize(("asked_version", "response"), every_response())
def test_response_decodes_back_to_itself(asked_version, response):
    frame = encode_response(response, correlation_id=0x7FFFFFFF)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert decode_response(frame[4:], api_key=response.API_KEY, api_version=asked_version) == (0x7FFFFFFF, response)


def test_response_of_a_version_the_codec_does_not_speak_is_refused():
    with pytest.raises(MalformedFrame, match="Metadata v14 is outside"):
        encode_response(MetadataResponse(14, ()), correlation_id=1)
