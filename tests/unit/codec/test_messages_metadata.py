"""Metadata (key 3), v0-v13: request bytes per version, responses decoded from hand-built frames.

Schema: ``MetadataRequest.json`` / ``MetadataResponse.json``, flexible from v9. Wire order of the
response: throttle_time_ms (v3+), brokers (rack v1+), cluster_id (v2+), controller_id (v1+), topics
(topic_id v10+, is_internal v1+, leader_epoch v7+, offline_replicas v5+, topic ops v8+, name
nullable v12+), cluster_authorized_operations (v8-v10), error_code (v13+).
"""

from __future__ import annotations

import uuid

import pytest

from probes.codec import (
    MalformedFrame,
    MetadataBroker,
    MetadataPartition,
    MetadataRequest,
    MetadataResponse,
    MetadataTopic,
    decode_response,
    encode_request,
    encode_response,
)
from probes.codec.errors import kafka_error
from tests.unit.codec.golden import bodies_by_version, golden, request_frame, sized

API_KEY = 3

# --- requests -----------------------------------------------------------------------------------


def test_metadata_v9_all_topics_request_matches_the_reference_vector_with_its_missing_byte():
    # The lab notes print this vector one byte short: their size 0x15 (21) counts
    # include_cluster_authorized_operations, which v8-v10 carry, but the hex leaves it out.
    request = MetadataRequest(version=9, topics=None, allow_auto_topic_creation=True)
    assert encode_request(request, correlation_id=2) == golden(
        "00 00 00 15",             # size 21
        "00 03",                   # api_key 3 (Metadata)
        "00 09",                   # api_version 9
        "00 00 00 02",             # correlation_id 2
        "00 05 6b 64 69 61 67",    # client_id "kdiag"
        "00",                      # header tagged fields: none
        "00",                      # topics: null compact array = all topics
        "01",                      # allow_auto_topic_creation true
        "00",                      # include_cluster_authorized_operations false (v8-v10)
        "00",                      # include_topic_authorized_operations false
        "00",                      # tagged fields: none
    )


ORDERS_BY_NAME = golden("00 06 6f 72 64 65 72 73")  # name "orders" (int16 length)

ONE_TOPIC_REQUEST_BODIES = bodies_by_version({
    range(0, 4): golden(
        "00 00 00 01",             # topics: 1
        ORDERS_BY_NAME.hex(),      #   name "orders"
    ),
    range(4, 8): golden(
        "00 00 00 01",             # topics: 1
        ORDERS_BY_NAME.hex(),      #   name "orders"
        "01",                      # allow_auto_topic_creation true (v4+)
    ),
    range(8, 9): golden(
        "00 00 00 01",             # topics: 1
        ORDERS_BY_NAME.hex(),      #   name "orders"
        "01",                      # allow_auto_topic_creation true
        "00",                      # include_cluster_authorized_operations false (v8-v10)
        "00",                      # include_topic_authorized_operations false (v8+)
    ),
    range(9, 10): golden(
        "02",                      # topics: compact array, 1
        "07 6f 72 64 65 72 73",    #   name "orders" (compact string)
        "00",                      #   tagged fields: none
        "01",                      # allow_auto_topic_creation true
        "00",                      # include_cluster_authorized_operations false
        "00",                      # include_topic_authorized_operations false
        "00",                      # tagged fields: none
    ),
    range(10, 11): golden(
        "02",                      # topics: compact array, 1
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",  # topic_id: zero uuid, asked by name (v10+)
        "07 6f 72 64 65 72 73",    #   name "orders" (compact nullable string from v10)
        "00",                      #   tagged fields: none
        "01",                      # allow_auto_topic_creation true
        "00",                      # include_cluster_authorized_operations false (last in v10)
        "00",                      # include_topic_authorized_operations false
        "00",                      # tagged fields: none
    ),
    range(11, 14): golden(
        "02",                      # topics: compact array, 1
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",  # topic_id: zero uuid
        "07 6f 72 64 65 72 73",    #   name "orders"
        "00",                      #   tagged fields: none
        "01",                      # allow_auto_topic_creation true
        "00",                      # include_topic_authorized_operations false (no cluster ops from v11)
        "00",                      # tagged fields: none
    ),
})


@pytest.mark.parametrize("version", range(0, 14))
def test_metadata_request_for_one_topic_encodes_each_version_field_by_field(version):
    request = MetadataRequest(version=version, topics=("orders",), allow_auto_topic_creation=True)
    expected = request_frame(API_KEY, version, ONE_TOPIC_REQUEST_BODIES[version], flexible=version >= 9)
    assert encode_request(request, correlation_id=7) == expected


ALL_TOPICS_REQUEST_BODIES = {
    0: golden("00 00 00 00"),      # topics: empty array, which in v0 means all topics
    1: golden("ff ff ff ff"),      # topics: null (-1) = all topics; empty would mean none from v1
    4: golden(
        "ff ff ff ff",             # topics: null = all topics
        "00",                      # allow_auto_topic_creation false
    ),
    12: golden(
        "00",                      # topics: null compact array = all topics
        "00",                      # allow_auto_topic_creation false
        "00",                      # include_topic_authorized_operations false
        "00",                      # tagged fields: none
    ),
}


@pytest.mark.parametrize("version", sorted(ALL_TOPICS_REQUEST_BODIES))
def test_metadata_request_for_all_topics_spells_all_as_each_version_does(version):
    expected = request_frame(API_KEY, version, ALL_TOPICS_REQUEST_BODIES[version], flexible=version >= 9)
    assert encode_request(MetadataRequest(version=version, topics=None), correlation_id=7) == expected


# --- responses ----------------------------------------------------------------------------------
# Two brokers (one with a rack), cluster "lab-cluster", controller 1, topic "orders" with partition 0
# led by broker 1 and partition 1 without a leader (-1, LEADER_NOT_AVAILABLE). The field groups that
# several versions share are written once; each version's frame names them in wire order.

ORDERS_ID = uuid.UUID("6a1c2b3d-4e5f-4071-8293-a4b5c6d7e8f9")
GONE_ID = uuid.UUID("00000000-0000-0000-0000-0000000000ff")

BROKERS_V0 = golden(
    "00 00 00 02",                 # brokers: 2
    "00 00 00 01",                 #   node_id 1
    "00 06 6b 31 2e 6c 61 6e",     #   host "k1.lan"
    "00 00 23 84",                 #   port 9092
    "00 00 00 02",                 #   node_id 2
    "00 06 6b 32 2e 6c 61 6e",     #   host "k2.lan"
    "00 00 23 85",                 #   port 9093
)
BROKERS_V1 = golden(
    "00 00 00 02",                 # brokers: 2
    "00 00 00 01",                 #   node_id 1
    "00 06 6b 31 2e 6c 61 6e",     #   host "k1.lan"
    "00 00 23 84",                 #   port 9092
    "00 02 72 31",                 #   rack "r1" (v1+)
    "00 00 00 02",                 #   node_id 2
    "00 06 6b 32 2e 6c 61 6e",     #   host "k2.lan"
    "00 00 23 85",                 #   port 9093
    "ff ff",                       #   rack null
)
BROKERS_FLEXIBLE = golden(
    "03",                          # brokers: compact array, 2 (length + 1)
    "00 00 00 01",                 #   node_id 1
    "07 6b 31 2e 6c 61 6e",        #   host "k1.lan" (compact string)
    "00 00 23 84",                 #   port 9092
    "03 72 31",                    #   rack "r1"
    "00",                          #   tagged fields: none
    "00 00 00 02",                 #   node_id 2
    "07 6b 32 2e 6c 61 6e",        #   host "k2.lan"
    "00 00 23 85",                 #   port 9093
    "00",                          #   rack null (compact: 0)
    "00",                          #   tagged fields: none
)
ORDERS_PARTITIONS_V0 = golden(
    "00 00 00 02",                 # partitions: 2
    "00 00",                       #   error_code NONE
    "00 00 00 00",                 #   partition_index 0
    "00 00 00 01",                 #   leader_id 1
    "00 00 00 02 00 00 00 01 00 00 00 02",  # replica_nodes [1, 2]
    "00 00 00 02 00 00 00 01 00 00 00 02",  # isr_nodes [1, 2]
    "00 05",                       #   error_code 5 LEADER_NOT_AVAILABLE
    "00 00 00 01",                 #   partition_index 1
    "ff ff ff ff",                 #   leader_id -1: no leader
    "00 00 00 01 00 00 00 02",     #   replica_nodes [2]
    "00 00 00 00",                 #   isr_nodes []
)
ORDERS_PARTITIONS_V5 = golden(
    "00 00 00 02",                 # partitions: 2
    "00 00",                       #   error_code NONE
    "00 00 00 00",                 #   partition_index 0
    "00 00 00 01",                 #   leader_id 1
    "00 00 00 02 00 00 00 01 00 00 00 02",  # replica_nodes [1, 2]
    "00 00 00 02 00 00 00 01 00 00 00 02",  # isr_nodes [1, 2]
    "00 00 00 00",                 #   offline_replicas [] (v5+)
    "00 05",                       #   error_code 5 LEADER_NOT_AVAILABLE
    "00 00 00 01",                 #   partition_index 1
    "ff ff ff ff",                 #   leader_id -1
    "00 00 00 01 00 00 00 02",     #   replica_nodes [2]
    "00 00 00 00",                 #   isr_nodes []
    "00 00 00 01 00 00 00 02",     #   offline_replicas [2]
)
ORDERS_PARTITIONS_FLEXIBLE = golden(
    "03",                          # partitions: compact array, 2
    "00 00",                       #   error_code NONE
    "00 00 00 00",                 #   partition_index 0
    "00 00 00 01",                 #   leader_id 1
    "00 00 00 05",                 #   leader_epoch 5 (v7+)
    "03 00 00 00 01 00 00 00 02",  #   replica_nodes [1, 2]
    "03 00 00 00 01 00 00 00 02",  #   isr_nodes [1, 2]
    "01",                          #   offline_replicas []
    "00",                          #   tagged fields: none
    "00 05",                       #   error_code 5 LEADER_NOT_AVAILABLE
    "00 00 00 01",                 #   partition_index 1
    "ff ff ff ff",                 #   leader_id -1
    "00 00 00 03",                 #   leader_epoch 3
    "02 00 00 00 02",              #   replica_nodes [2]
    "01",                          #   isr_nodes []
    "02 00 00 00 02",              #   offline_replicas [2]
    "00",                          #   tagged fields: none
)
CLUSTER_ID = golden("00 0b 6c 61 62 2d 63 6c 75 73 74 65 72")        # cluster_id "lab-cluster"
CLUSTER_ID_FLEXIBLE = golden("0c 6c 61 62 2d 63 6c 75 73 74 65 72")  # cluster_id "lab-cluster" (compact)
ORDERS_ID_BYTES = golden("6a 1c 2b 3d 4e 5f 40 71 82 93 a4 b5 c6 d7 e8 f9")  # topic_id of "orders"

METADATA_V0_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    BROKERS_V0,                    # brokers: node_id, host, port
    "00 00 00 01",                 # topics: 1
    "00 00",                       #   error_code NONE
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    ORDERS_PARTITIONS_V0,          #   partitions
)

METADATA_V1_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    BROKERS_V1,                    # brokers, with rack (v1+)
    "00 00 00 01",                 # controller_id 1 (v1+)
    "00 00 00 01",                 # topics: 1
    "00 00",                       #   error_code NONE
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    "00",                          #   is_internal false (v1+)
    ORDERS_PARTITIONS_V0,          #   partitions
)

METADATA_V5_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00 00 0a",                 # throttle_time_ms 10 (v3+, first field)
    BROKERS_V1,                    # brokers
    CLUSTER_ID,                    # cluster_id "lab-cluster" (v2+)
    "00 00 00 01",                 # controller_id 1
    "00 00 00 01",                 # topics: 1
    "00 00",                       #   error_code NONE
    "00 06 6f 72 64 65 72 73",     #   name "orders"
    "00",                          #   is_internal false
    ORDERS_PARTITIONS_V5,          #   partitions, with offline_replicas (v5+)
)

METADATA_V9_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none (header v1, flexible)
    "00 00 00 0a",                 # throttle_time_ms 10
    BROKERS_FLEXIBLE,              # brokers
    CLUSTER_ID_FLEXIBLE,           # cluster_id "lab-cluster"
    "00 00 00 01",                 # controller_id 1
    "02",                          # topics: compact array, 1
    "00 00",                       #   error_code NONE
    "07 6f 72 64 65 72 73",        #   name "orders"
    "00",                          #   is_internal false
    ORDERS_PARTITIONS_FLEXIBLE,    #   partitions, with leader_epoch (v7+)
    "80 00 00 00",                 #   topic_authorized_operations INT32_MIN: not asked for (v8+)
    "00",                          #   tagged fields: none
    "80 00 00 00",                 # cluster_authorized_operations INT32_MIN (v8-v10)
    "00",                          # tagged fields: none
)

METADATA_V10_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none
    "00 00 00 0a",                 # throttle_time_ms 10
    BROKERS_FLEXIBLE,              # brokers
    CLUSTER_ID_FLEXIBLE,           # cluster_id "lab-cluster"
    "00 00 00 01",                 # controller_id 1
    "02",                          # topics: compact array, 1
    "00 00",                       #   error_code NONE
    "07 6f 72 64 65 72 73",        #   name "orders"
    ORDERS_ID_BYTES,               #   topic_id (v10+)
    "00",                          #   is_internal false
    ORDERS_PARTITIONS_FLEXIBLE,    #   partitions
    "80 00 00 00",                 #   topic_authorized_operations INT32_MIN
    "00",                          #   tagged fields: none
    "80 00 00 00",                 # cluster_authorized_operations INT32_MIN (last version to carry it)
    "00",                          # tagged fields: none
)

METADATA_V12_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none
    "00 00 00 0a",                 # throttle_time_ms 10
    BROKERS_FLEXIBLE,              # brokers
    CLUSTER_ID_FLEXIBLE,           # cluster_id "lab-cluster"
    "00 00 00 01",                 # controller_id 1
    "03",                          # topics: compact array, 2
    "00 00",                       #   error_code NONE
    "07 6f 72 64 65 72 73",        #   name "orders"
    ORDERS_ID_BYTES,               #   topic_id
    "00",                          #   is_internal false
    ORDERS_PARTITIONS_FLEXIBLE,    #   partitions
    "80 00 00 00",                 #   topic_authorized_operations INT32_MIN
    "00",                          #   tagged fields: none
    "00 64",                       #   error_code 100 UNKNOWN_TOPIC_ID: a topic asked for by id
    "00",                          #   name null (nullable from v12)
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ff",  # topic_id
    "00",                          #   is_internal false
    "01",                          #   partitions: compact array, 0
    "80 00 00 00",                 #   topic_authorized_operations INT32_MIN
    "00",                          #   tagged fields: none
    "00",                          # tagged fields: none (no cluster_authorized_operations from v11)
)

METADATA_V13_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none
    "00 00 00 0a",                 # throttle_time_ms 10
    BROKERS_FLEXIBLE,              # brokers
    CLUSTER_ID_FLEXIBLE,           # cluster_id "lab-cluster"
    "00 00 00 01",                 # controller_id 1
    "02",                          # topics: compact array, 1
    "00 00",                       #   error_code NONE
    "07 6f 72 64 65 72 73",        #   name "orders"
    ORDERS_ID_BYTES,               #   topic_id
    "00",                          #   is_internal false
    ORDERS_PARTITIONS_FLEXIBLE,    #   partitions
    "80 00 00 00",                 #   topic_authorized_operations INT32_MIN
    "00",                          #   tagged fields: none
    "00 81",                       # error_code 129 REBOOTSTRAP_REQUIRED (v13+, KIP-1102), after the topics
    "00",                          # tagged fields: none
)

RESPONSES = {0: METADATA_V0_RESPONSE, 1: METADATA_V1_RESPONSE, 5: METADATA_V5_RESPONSE, 9: METADATA_V9_RESPONSE,
             10: METADATA_V10_RESPONSE, 12: METADATA_V12_RESPONSE, 13: METADATA_V13_RESPONSE}


def expected_metadata(version: int) -> MetadataResponse:
    """What each golden response above says, with the fields its version does not carry at their defaults."""
    orders = MetadataTopic(
        error=kafka_error(0),
        name="orders",
        partitions=(
            MetadataPartition(kafka_error(0), 0, 1, (1, 2), (1, 2),
                              leader_epoch=5 if version >= 7 else -1, offline_replicas=()),
            MetadataPartition(kafka_error(5), 1, -1, (2,), (),
                              leader_epoch=3 if version >= 7 else -1, offline_replicas=(2,) if version >= 5 else ()),
        ),
        is_internal=False,
        topic_id=ORDERS_ID if version >= 10 else None,
    )
    topics = (orders,)
    if version == 12:
        topics += (MetadataTopic(kafka_error(100), None, (), False, GONE_ID),)
    return MetadataResponse(
        version=version,
        brokers=(MetadataBroker(1, "k1.lan", 9092, "r1" if version >= 1 else None), MetadataBroker(2, "k2.lan", 9093)),
        cluster_id="lab-cluster" if version >= 2 else None,
        controller_id=1 if version >= 1 else -1,
        topics=topics,
        throttle_time_ms=10 if version >= 3 else 0,
        error=kafka_error(129 if version >= 13 else 0),
    )


@pytest.mark.parametrize("version", sorted(RESPONSES))
def test_metadata_response_decodes_brokers_cluster_controller_and_partitions(version):
    assert decode_response(RESPONSES[version], api_key=API_KEY, api_version=version) == (7, expected_metadata(version))


def test_metadata_v12_topic_asked_by_id_decodes_with_a_null_name():
    _, response = decode_response(METADATA_V12_RESPONSE, api_key=API_KEY, api_version=12)
    unknown = response.topics[1]
    assert (unknown.name, unknown.topic_id, unknown.error.name) == (None, GONE_ID, "UNKNOWN_TOPIC_ID")


def test_metadata_v13_top_level_error_code_is_read_after_the_topics():
    _, response = decode_response(METADATA_V13_RESPONSE, api_key=API_KEY, api_version=13)
    assert response.error.name == "REBOOTSTRAP_REQUIRED"
    assert response.error.code == 129


def test_metadata_leaderless_partition_keeps_leader_minus_one_and_its_error():
    _, response = decode_response(METADATA_V9_RESPONSE, api_key=API_KEY, api_version=9)
    partition = response.topics[0].partitions[1]
    assert (partition.leader_id, partition.error.name, response.broker(partition.leader_id)) == (
        -1, "LEADER_NOT_AVAILABLE", None)


@pytest.mark.parametrize("version", sorted(RESPONSES))
def test_metadata_response_cut_short_anywhere_raises_malformed_frame(version):
    frame = RESPONSES[version]
    for end in range(len(frame)):
        with pytest.raises(MalformedFrame):
            decode_response(frame[:end], api_key=API_KEY, api_version=version)


@pytest.mark.parametrize("version", sorted(RESPONSES))
def test_metadata_response_encodes_to_the_golden_frame(version):
    assert encode_response(expected_metadata(version), correlation_id=7) == sized(RESPONSES[version])
