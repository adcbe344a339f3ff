"""ListOffsets (key 2), v0-v10: request bytes per version, responses decoded from hand-built frames.

Schema: ``ListOffsetsRequest.json`` / ``ListOffsetsResponse.json``, flexible from v6. kdiag asks
one partition (here "orders" partition 3, earliest offset, leader epoch 7, timeout 5000 ms).
"""

from __future__ import annotations

import pytest

from probes.codec import (
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsResponse,
    decode_response,
    encode_request,
    encode_response,
)
from probes.codec.errors import kafka_error
from probes.codec.messages import EARLIEST_TIMESTAMP
from tests.unit.codec.golden import bodies_by_version, golden, request_frame, sized

API_KEY = 2

ORDERS_3 = golden(
    "00 00 00 01",                 # topics: 1
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    "00 00 00 01",                 #   partitions: 1
    "00 00 00 03",                 #     partition_index 3
)
ORDERS_3_FLEXIBLE = golden(
    "02",                          # topics: compact array, 1
    "07 6f 72 64 65 72 73",        #   name "orders" (compact string)
    "02",                          #   partitions: compact array, 1
    "00 00 00 03",                 #     partition_index 3
)

ORDERS_3_REQUEST_BODIES = bodies_by_version({
    range(0, 1): golden(
        "ff ff ff ff",             # replica_id -1: a consumer, not a broker
        ORDERS_3,                  # topics / partitions
        "ff ff ff ff ff ff ff fe", #     timestamp -2: earliest
        "00 00 00 01",             #     max_num_offsets 1 (v0 only)
    ),
    range(1, 2): golden(
        "ff ff ff ff",             # replica_id -1
        ORDERS_3,                  # topics / partitions
        "ff ff ff ff ff ff ff fe", #     timestamp -2
    ),
    range(2, 4): golden(
        "ff ff ff ff",             # replica_id -1
        "00",                      # isolation_level 0 READ_UNCOMMITTED (v2+)
        ORDERS_3,                  # topics / partitions
        "ff ff ff ff ff ff ff fe", #     timestamp -2
    ),
    range(4, 6): golden(
        "ff ff ff ff",             # replica_id -1
        "00",                      # isolation_level 0
        ORDERS_3,                  # topics / partitions
        "00 00 00 07",             #     current_leader_epoch 7 (v4+)
        "ff ff ff ff ff ff ff fe", #     timestamp -2
    ),
    range(6, 10): golden(
        "ff ff ff ff",             # replica_id -1
        "00",                      # isolation_level 0
        ORDERS_3_FLEXIBLE,         # topics / partitions
        "00 00 00 07",             #     current_leader_epoch 7
        "ff ff ff ff ff ff ff fe", #     timestamp -2
        "00",                      #     tagged fields: none
        "00",                      #   tagged fields: none
        "00",                      # tagged fields: none
    ),
    range(10, 11): golden(
        "ff ff ff ff",             # replica_id -1
        "00",                      # isolation_level 0
        ORDERS_3_FLEXIBLE,         # topics / partitions
        "00 00 00 07",             #     current_leader_epoch 7
        "ff ff ff ff ff ff ff fe", #     timestamp -2
        "00",                      #     tagged fields: none
        "00",                      #   tagged fields: none
        "00 00 13 88",             # timeout_ms 5000 (v10+)
        "00",                      # tagged fields: none
    ),
})


@pytest.mark.parametrize("version", range(0, 11))
def test_list_offsets_request_for_one_partition_encodes_each_version_field_by_field(version):
    request = ListOffsetsRequest("orders", 3, version=version, timestamp=EARLIEST_TIMESTAMP, current_leader_epoch=7,
                                 timeout_ms=5000)
    expected = request_frame(API_KEY, version, ORDERS_3_REQUEST_BODIES[version], flexible=version >= 6)
    assert encode_request(request, correlation_id=7) == expected


# --- responses ----------------------------------------------------------------------------------

LIST_OFFSETS_V0_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00 00 01",                 # topics: 1
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    "00 00 00 01",                 #   partitions: 1
    "00 00 00 03",                 #     partition_index 3
    "00 00",                       #     error_code NONE
    "00 00 00 01",                 #     old_style_offsets: 1 (v0 only)
    "00 00 00 00 00 00 00 2a",     #       42
)

LIST_OFFSETS_V1_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00 00 01",                 # topics: 1
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    "00 00 00 01",                 #   partitions: 1
    "00 00 00 03",                 #     partition_index 3
    "00 00",                       #     error_code NONE
    "ff ff ff ff ff ff ff ff",     #     timestamp -1 (v1+)
    "00 00 00 00 00 00 00 2a",     #     offset 42 (v1+)
)

LIST_OFFSETS_V4_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00 00 0a",                 # throttle_time_ms 10 (v2+)
    "00 00 00 01",                 # topics: 1
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    "00 00 00 01",                 #   partitions: 1
    "00 00 00 03",                 #     partition_index 3
    "00 00",                       #     error_code NONE
    "ff ff ff ff ff ff ff ff",     #     timestamp -1
    "00 00 00 00 00 00 00 2a",     #     offset 42
    "00 00 00 07",                 #     leader_epoch 7 (v4+)
)

LIST_OFFSETS_V6_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none (flexible from v6)
    "00 00 00 0a",                 # throttle_time_ms 10
    "02",                          # topics: compact array, 1
    "07 6f 72 64 65 72 73",        #   name "orders"
    "02",                          #   partitions: compact array, 1
    "00 00 00 03",                 #     partition_index 3
    "00 06",                       #     error_code 6 NOT_LEADER_OR_FOLLOWER: asked the wrong broker
    "ff ff ff ff ff ff ff ff",     #     timestamp -1
    "ff ff ff ff ff ff ff ff",     #     offset -1
    "ff ff ff ff",                 #     leader_epoch -1
    "00",                          #     tagged fields: none
    "00",                          #   tagged fields: none
    "00",                          # tagged fields: none
)

FOUND_42 = ListOffsetsPartition("orders", 3, kafka_error(0), timestamp=-1, offset=42, leader_epoch=-1)


DECODED = [
    (0, LIST_OFFSETS_V0_RESPONSE, ListOffsetsResponse(0, (FOUND_42,), 0)),
    (1, LIST_OFFSETS_V1_RESPONSE, ListOffsetsResponse(1, (FOUND_42,), 0)),
    (4, LIST_OFFSETS_V4_RESPONSE, ListOffsetsResponse(4, (
        ListOffsetsPartition("orders", 3, kafka_error(0), -1, 42, 7),), 10)),
    (6, LIST_OFFSETS_V6_RESPONSE, ListOffsetsResponse(6, (
        ListOffsetsPartition("orders", 3, kafka_error(6), -1, -1, -1),), 10)),
    (10, LIST_OFFSETS_V6_RESPONSE, ListOffsetsResponse(10, (
        ListOffsetsPartition("orders", 3, kafka_error(6), -1, -1, -1),), 10)),
]


@pytest.mark.parametrize(("version", "frame", "expected"), DECODED, ids=["v0", "v1", "v4", "v6", "v10"])
def test_list_offsets_response_decodes_offset_or_partition_error(version, frame, expected):
    assert decode_response(frame, api_key=API_KEY, api_version=version) == (7, expected)


@pytest.mark.parametrize(("version", "frame", "expected"), DECODED[:4], ids=["v0", "v1", "v4", "v6"])
def test_list_offsets_response_encodes_to_the_golden_frame(version, frame, expected):
    assert encode_response(expected, correlation_id=7) == sized(frame)
