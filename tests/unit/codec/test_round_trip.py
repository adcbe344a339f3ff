"""Every request kdiag can send decodes back to itself, in every version it speaks (captures rely on it).

Fields a version does not carry come back at the value that version implies (no client software
name before ApiVersions v3, auto-creation implied before Metadata v4, ...), so each request is built
with exactly what its version can say.
"""

from __future__ import annotations

import pytest

from probes.codec import (
    SPECS,
    ApiVersionsRequest,
    FindCoordinatorRequest,
    ListOffsetsRequest,
    MetadataRequest,
    RequestHeader,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
    decode_request,
    encode_request,
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
