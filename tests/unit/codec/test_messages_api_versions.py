"""ApiVersions (key 18), v0-v4: request bytes per version, responses decoded from hand-built frames.

Schema: ``ApiVersionsRequest.json`` / ``ApiVersionsResponse.json`` (flexible from v3; the response
header stays v0 in every version, KIP-511).
"""

from __future__ import annotations

import pytest

from probes.codec import (
    ApiVersionRange,
    ApiVersionsRequest,
    ApiVersionsResponse,
    decode_response,
    encode_request,
    encode_response,
)
from probes.codec.errors import kafka_error
from tests.unit.codec.golden import bodies_by_version, golden, request_frame, sized

API_KEY = 18

# --- requests -----------------------------------------------------------------------------------


def test_api_versions_v0_request_matches_the_reference_vector():
    assert encode_request(ApiVersionsRequest(version=0), correlation_id=1) == golden(
        "00 00 00 0f",             # size 15
        "00 12",                   # api_key 18 (ApiVersions)
        "00 00",                   # api_version 0
        "00 00 00 01",             # correlation_id 1
        "00 05 6b 64 69 61 67",    # client_id "kdiag"
    )                              # body: empty


def test_api_versions_v3_request_matches_the_reference_vector():
    request = ApiVersionsRequest(version=3, client_software_name="kdiag", client_software_version="0.1")
    assert encode_request(request, correlation_id=1) == golden(
        "00 00 00 1b",             # size 27
        "00 12",                   # api_key 18 (ApiVersions)
        "00 03",                   # api_version 3
        "00 00 00 01",             # correlation_id 1
        "00 05 6b 64 69 61 67",    # client_id "kdiag" (classic int16 string in header v2)
        "00",                      # header tagged fields: none
        "06 6b 64 69 61 67",       # client_software_name "kdiag" (compact: length + 1)
        "04 30 2e 31",             # client_software_version "0.1"
        "00",                      # tagged fields: none
    )


API_VERSIONS_REQUEST_BODIES = bodies_by_version({
    range(0, 3): b"",              # v0-v2: no fields
    range(3, 5): golden(
        "06 6b 64 69 61 67",       # client_software_name "kdiag"
        "06 30 2e 31 2e 30",       # client_software_version "0.1.0"
        "00",                      # tagged fields: none
    ),
})


@pytest.mark.parametrize("version", range(0, 5))
def test_api_versions_request_encodes_each_version_field_by_field(version):
    request = ApiVersionsRequest(version=version, client_software_name="kdiag", client_software_version="0.1.0")
    expected = request_frame(API_KEY, version, API_VERSIONS_REQUEST_BODIES[version], flexible=version >= 3)
    assert encode_request(request, correlation_id=7) == expected


# --- responses ----------------------------------------------------------------------------------

THREE_RANGES = (ApiVersionRange(18, 0, 4), ApiVersionRange(3, 0, 12), ApiVersionRange(17, 0, 1))

API_VERSIONS_V0_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7 (response header v0)
    "00 00",                       # error_code NONE
    "00 00 00 03",                 # api_keys: 3
    "00 12 00 00 00 04",           #   api_key 18 ApiVersions, min 0, max 4
    "00 03 00 00 00 0c",           #   api_key 3 Metadata, min 0, max 12
    "00 11 00 00 00 01",           #   api_key 17 SaslHandshake, min 0, max 1
)

API_VERSIONS_V1_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00",                       # error_code NONE
    "00 00 00 03",                 # api_keys: 3
    "00 12 00 00 00 04",           #   ApiVersions 0-4
    "00 03 00 00 00 0c",           #   Metadata 0-12
    "00 11 00 00 00 01",           #   SaslHandshake 0-1
    "00 00 00 0a",                 # throttle_time_ms 10 (v1+)
)

API_VERSIONS_V3_FIELDS = golden(
    "00 00 00 07",                 # correlation_id 7: header v0 even in flexible versions, no tag byte
    "00 00",                       # error_code NONE
    "04",                          # api_keys: compact array, 3 (length + 1)
    "00 12 00 00 00 04 00",        #   ApiVersions 0-4, tagged fields: none
    "00 03 00 00 00 0c 00",        #   Metadata 0-12, tagged fields: none
    "00 11 00 00 00 01 00",        #   SaslHandshake 0-1, tagged fields: none
    "00 00 00 0a",                 # throttle_time_ms 10
)
API_VERSIONS_V3_RESPONSE = golden(
    API_VERSIONS_V3_FIELDS,        # the fields above, then
    "02",                          # tagged fields: 2 (kdiag keeps none of them)
    "00 17",                       #   tag 0 SupportedFeatures, 23 bytes:
    "02",                          #     features: compact array, 1
    "11 6d 65 74 61 64 61 74 61 2e 76 65 72 73 69 6f 6e",  # name "metadata.version"
    "00 01 00 15",                 #     min_version 1, max_version 21
    "00",                          #     tagged fields: none
    "01 08",                       #   tag 1 FinalizedFeaturesEpoch, 8 bytes:
    "00 00 00 00 00 00 00 05",     #     epoch 5
)

# What a broker answers to an ApiVersions version it does not speak: a v0 body (KIP-511).
UNSUPPORTED_VERSION_V0_BODY = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 23",                       # error_code 35 UNSUPPORTED_VERSION
    "00 00 00 01",                 # api_keys: 1, an int32 count (v0), not a compact array
    "00 12 00 00 00 02",           #   api_key 18 ApiVersions, min 0, max 2: what the broker speaks
)


def test_api_versions_v0_response_decodes_error_and_ranges():
    assert decode_response(API_VERSIONS_V0_RESPONSE, api_key=API_KEY, api_version=0) == (
        7, ApiVersionsResponse(0, kafka_error(0), THREE_RANGES, 0))


@pytest.mark.parametrize("version", [1, 2])
def test_api_versions_v1_and_v2_responses_decode_throttle_time(version):
    assert decode_response(API_VERSIONS_V1_RESPONSE, api_key=API_KEY, api_version=version) == (
        7, ApiVersionsResponse(version, kafka_error(0), THREE_RANGES, 10))


@pytest.mark.parametrize("version", [3, 4])
def test_api_versions_flexible_response_has_a_v0_header_and_skips_feature_tags(version):
    correlation_id, response = decode_response(API_VERSIONS_V3_RESPONSE, api_key=API_KEY, api_version=version)
    assert correlation_id == 7
    assert response == ApiVersionsResponse(version, kafka_error(0), THREE_RANGES, 10)
    assert response.range_for(3) == ApiVersionRange(3, 0, 12)
    assert response.range_for(10) is None


@pytest.mark.parametrize("asked_version", [1, 3, 4])
def test_unsupported_version_answer_is_decoded_as_the_v0_body_the_broker_sends(asked_version):
    correlation_id, response = decode_response(UNSUPPORTED_VERSION_V0_BODY, api_key=API_KEY,
                                               api_version=asked_version)
    assert correlation_id == 7
    assert response.error == kafka_error(35)
    assert response.error.name == "UNSUPPORTED_VERSION"
    assert response.range_for(API_KEY) == ApiVersionRange(18, 0, 2)


# What kdiag writes for a flexible version: the v3 answer above without the feature tags it drops.
API_VERSIONS_V3_WITHOUT_TAGS = golden(
    API_VERSIONS_V3_FIELDS,        # correlation_id, error_code, api_keys, throttle_time_ms as above
    "00",                          # tagged fields: none
)


@pytest.mark.parametrize(("frame", "response"), [
    (API_VERSIONS_V0_RESPONSE, ApiVersionsResponse(0, kafka_error(0), THREE_RANGES, 0)),
    (API_VERSIONS_V1_RESPONSE, ApiVersionsResponse(1, kafka_error(0), THREE_RANGES, 10)),
    (API_VERSIONS_V3_WITHOUT_TAGS, ApiVersionsResponse(3, kafka_error(0), THREE_RANGES, 10)),
], ids=["v0", "v1", "v3"])
def test_api_versions_response_encodes_to_the_golden_frame(frame, response):
    assert encode_response(response, correlation_id=7) == sized(frame)


@pytest.mark.parametrize("version", [0, 3, 4])
def test_unsupported_version_answer_is_encoded_as_a_v0_body_whatever_the_version(version):
    response = ApiVersionsResponse(version, kafka_error(35), (ApiVersionRange(18, 0, 2),))
    assert encode_response(response, correlation_id=7) == sized(UNSUPPORTED_VERSION_V0_BODY)
