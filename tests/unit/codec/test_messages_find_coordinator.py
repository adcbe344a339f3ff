"""FindCoordinator (key 10), v0-v6: request bytes per version, responses decoded from hand-built frames.

Schema: ``FindCoordinatorRequest.json`` / ``FindCoordinatorResponse.json``, flexible from v3; v4
replaced the single key and single answer by arrays (KIP-699).
"""

from __future__ import annotations

import pytest

from probes.codec import (
    Coordinator,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    decode_response,
    encode_request,
    encode_response,
)
from probes.codec.errors import kafka_error
from tests.unit.codec.golden import bodies_by_version, golden, request_frame, sized

API_KEY = 10

GROUP_G1_REQUEST_BODIES = bodies_by_version({
    range(0, 1): golden(
        "00 02 67 31",             # key "g1" (the group id)
    ),
    range(1, 3): golden(
        "00 02 67 31",             # key "g1"
        "00",                      # key_type 0 GROUP (v1+)
    ),
    range(3, 4): golden(
        "03 67 31",                # key "g1" (compact string)
        "00",                      # key_type 0 GROUP
        "00",                      # tagged fields: none
    ),
    range(4, 7): golden(
        "00",                      # key_type 0 GROUP (key itself is gone from v4)
        "02",                      # coordinator_keys: compact array, 1
        "03 67 31",                #   "g1"
        "00",                      # tagged fields: none
    ),
})


@pytest.mark.parametrize("version", range(0, 7))
def test_find_coordinator_request_for_a_group_encodes_each_version_field_by_field(version):
    expected = request_frame(API_KEY, version, GROUP_G1_REQUEST_BODIES[version], flexible=version >= 3)
    assert encode_request(FindCoordinatorRequest("g1", version=version), correlation_id=7) == expected


def test_find_coordinator_request_for_a_transaction_sends_key_type_one():
    request = FindCoordinatorRequest("txn-1", version=4, key_type=1)
    assert encode_request(request, correlation_id=7) == request_frame(API_KEY, 4, golden(
        "01",                      # key_type 1 TRANSACTION
        "02",                      # coordinator_keys: compact array, 1
        "06 74 78 6e 2d 31",       #   "txn-1"
        "00",                      # tagged fields: none
    ), flexible=True)


# --- responses ----------------------------------------------------------------------------------

FIND_COORDINATOR_V0_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00",                       # error_code NONE
    "00 00 00 01",                 # node_id 1
    "00 0b 6b 61 66 6b 61 2d 31 2e 6c 61 6e",  # host "kafka-1.lan"
    "00 00 23 84",                 # port 9092
)

FIND_COORDINATOR_V1_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00 00 0a",                 # throttle_time_ms 10 (v1+)
    "00 0f",                       # error_code 15 COORDINATOR_NOT_AVAILABLE
    "00 13 63 6f 6f 72 64 69 6e 61 74 6f 72 20 6c 6f 61 64 69 6e 67",  # error_message "coordinator loading"
    "ff ff ff ff",                 # node_id -1
    "00 00",                       # host ""
    "ff ff ff ff",                 # port -1
)

FIND_COORDINATOR_V3_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none (flexible from v3)
    "00 00 00 0a",                 # throttle_time_ms 10
    "00 00",                       # error_code NONE
    "00",                          # error_message null (compact)
    "00 00 00 01",                 # node_id 1
    "0c 6b 61 66 6b 61 2d 31 2e 6c 61 6e",  # host "kafka-1.lan"
    "00 00 23 84",                 # port 9092
    "00",                          # tagged fields: none
)

FIND_COORDINATOR_V4_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none
    "00 00 00 0a",                 # throttle_time_ms 10
    "02",                          # coordinators: compact array, 1
    "03 67 31",                    #   key "g1"
    "00 00 00 01",                 #   node_id 1
    "0c 6b 61 66 6b 61 2d 31 2e 6c 61 6e",  # host "kafka-1.lan"
    "00 00 23 84",                 #   port 9092
    "00 00",                       #   error_code NONE
    "00",                          #   error_message null
    "00",                          #   tagged fields: none
    "00",                          # tagged fields: none
)

KAFKA_1 = Coordinator("", 1, "kafka-1.lan", 9092, kafka_error(0), None)


DECODED = [
    (0, FIND_COORDINATOR_V0_RESPONSE, FindCoordinatorResponse(0, (KAFKA_1,), 0)),
    (1, FIND_COORDINATOR_V1_RESPONSE, FindCoordinatorResponse(1, (
        Coordinator("", -1, "", -1, kafka_error(15), "coordinator loading"),), 10)),
    (2, FIND_COORDINATOR_V1_RESPONSE, FindCoordinatorResponse(2, (
        Coordinator("", -1, "", -1, kafka_error(15), "coordinator loading"),), 10)),
    (3, FIND_COORDINATOR_V3_RESPONSE, FindCoordinatorResponse(3, (KAFKA_1,), 10)),
    (4, FIND_COORDINATOR_V4_RESPONSE, FindCoordinatorResponse(4, (
        Coordinator("g1", 1, "kafka-1.lan", 9092, kafka_error(0), None),), 10)),
    (6, FIND_COORDINATOR_V4_RESPONSE, FindCoordinatorResponse(6, (
        Coordinator("g1", 1, "kafka-1.lan", 9092, kafka_error(0), None),), 10)),
]
IDS = ["v0", "v1", "v2", "v3", "v4", "v6"]


@pytest.mark.parametrize(("version", "frame", "expected"), DECODED, ids=IDS)
def test_find_coordinator_response_decodes_the_coordinator_or_its_error(version, frame, expected):
    assert decode_response(frame, api_key=API_KEY, api_version=version) == (7, expected)


@pytest.mark.parametrize(("version", "frame", "expected"), DECODED[:2] + DECODED[3:5], ids=["v0", "v1", "v3", "v4"])
def test_find_coordinator_response_encodes_to_the_golden_frame(version, frame, expected):
    assert encode_response(expected, correlation_id=7) == sized(frame)
