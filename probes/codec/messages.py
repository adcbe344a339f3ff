"""Kafka request and response messages kdiag speaks, one declaration per API, every version.

Field names follow the upstream JSON schemas (``clients/src/main/resources/common/message``), so
``node_id``, ``host``, ``port``, ``rack`` and ``controller_id`` mean here what they mean in Kafka.
Each API declares its request encoder and request decoder (for captures), written out version by
version, and its response as one :class:`~probes.codec.schema.Struct` of fields with the versions
that carry them, from which both the response decoder and the response encoder (for synthetic
traffic and tests) are derived.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from probes.codec.errors import NONE, UNSUPPORTED_VERSION, KafkaError
from probes.codec.reader import MalformedFrame, Reader
from probes.codec.schema import (
    BOOLEAN,
    BYTES,
    ERROR_CODE,
    INT16,
    INT32,
    INT64,
    NULLABLE_STRING,
    STRING,
    UUID,
    Array,
    ByTopic,
    Field,
    One,
    ReadFn,
    String,
    Struct,
    WriteFn,
)
from probes.codec.writer import Writer

INT32_MIN = -(2**31)  # an authorized-operations field nobody asked for

# --- ApiVersions (18) ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ApiVersionsRequest:
    API_KEY: ClassVar[int] = 18
    version: int = 3
    client_software_name: str = "kdiag"
    client_software_version: str = "0.1.0"


@dataclass(frozen=True, slots=True)
class ApiVersionRange:
    api_key: int
    min_version: int
    max_version: int


@dataclass(frozen=True, slots=True)
class ApiVersionsResponse:
    API_KEY: ClassVar[int] = 18
    version: int
    error: KafkaError
    api_keys: tuple[ApiVersionRange, ...]
    throttle_time_ms: int = 0

    def range_for(self, api_key: int) -> ApiVersionRange | None:
        return next((r for r in self.api_keys if r.api_key == api_key), None)


def _encode_api_versions(w: Writer, req: ApiVersionsRequest, version: int) -> None:
    if version >= 3:
        w.string(req.client_software_name, flexible=True)
        w.string(req.client_software_version, flexible=True)
        w.empty_tags_if(True)


def _decode_api_versions_request(r: Reader, version: int) -> ApiVersionsRequest:
    if version < 3:
        return ApiVersionsRequest(version=version, client_software_name="", client_software_version="")
    name, sw_version = r.compact_string(), r.compact_string()
    r.tagged_fields()
    return ApiVersionsRequest(version=version, client_software_name=name, client_software_version=sw_version)


class _ApiVersionsResponseStruct(Struct):
    """A broker answers an ApiVersions version it does not know with UNSUPPORTED_VERSION and a v0
    body (KIP-511), whatever version was asked: the error code says which body follows."""

    def read(self, r: Reader, version: int, flexible: bool, /, **extra: Any) -> Any:
        if r.peek_int16() == UNSUPPORTED_VERSION:
            version, flexible, extra = 0, False, {**extra, "version": 0}
        return super().read(r, version, flexible, **extra)

    def write(self, w: Writer, value: Any, version: int, flexible: bool) -> None:
        if value.error.code == UNSUPPORTED_VERSION:
            version, flexible = 0, False
        super().write(w, value, version, flexible)


API_VERSIONS_RESPONSE = _ApiVersionsResponseStruct(
    ApiVersionsResponse,
    Field("error", ERROR_CODE),
    Field("api_keys", Array(Struct(
        ApiVersionRange,
        Field("api_key", INT16),
        Field("min_version", INT16),
        Field("max_version", INT16),
    ))),
    Field("throttle_time_ms", INT32, since=1),
)



# --- Metadata (3) -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MetadataRequest:
    """``topics=None`` asks for every topic (v0 spells that as an empty array)."""

    API_KEY: ClassVar[int] = 3
    version: int = 12
    topics: tuple[str, ...] | None = None
    allow_auto_topic_creation: bool = False
    include_topic_authorized_operations: bool = False


@dataclass(frozen=True, slots=True)
class MetadataBroker:
    node_id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class MetadataPartition:
    error: KafkaError
    partition_index: int
    leader_id: int
    replica_nodes: tuple[int, ...]
    isr_nodes: tuple[int, ...]
    leader_epoch: int = -1
    offline_replicas: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class MetadataTopic:
    error: KafkaError
    name: str | None
    partitions: tuple[MetadataPartition, ...]
    is_internal: bool = False
    topic_id: uuid.UUID | None = None


@dataclass(frozen=True, slots=True)
class MetadataResponse:
    API_KEY: ClassVar[int] = 3
    version: int
    brokers: tuple[MetadataBroker, ...]
    cluster_id: str | None = None
    controller_id: int = -1
    topics: tuple[MetadataTopic, ...] = ()
    throttle_time_ms: int = 0
    error: KafkaError = NONE

    def broker(self, node_id: int) -> MetadataBroker | None:
        return next((b for b in self.brokers if b.node_id == node_id), None)


def _encode_metadata(w: Writer, req: MetadataRequest, version: int) -> None:
    flexible = version >= 9
    topics = req.topics
    if version == 0:
        w.array(list(topics or ()), lambda name: w.string(name), flexible=False)
    elif version < 10:

        def by_name(name: str) -> None:
            w.string(name, flexible)
            w.empty_tags_if(flexible)

        w.array(None if topics is None else list(topics), by_name, flexible)
    else:

        def by_id_and_name(name: str) -> None:
            w.uuid(None)
            w.string(name, flexible=True)
            w.empty_tags_if(True)

        w.array(None if topics is None else list(topics), by_id_and_name, flexible=True)
    if version >= 4:
        w.boolean(req.allow_auto_topic_creation)
    if 8 <= version <= 10:
        w.boolean(False)  # include_cluster_authorized_operations
    if version >= 8:
        w.boolean(req.include_topic_authorized_operations)
    w.empty_tags_if(flexible)


def _decode_metadata_request(r: Reader, version: int) -> MetadataRequest:
    flexible = version >= 9

    def topic() -> str:
        if version >= 10:
            r.uuid()
            name = r.compact_nullable_string() or ""
        else:
            name = r.any_string(flexible) or ""
        r.skip_tags_if(flexible)
        return name

    if version == 0:
        topics = tuple(r.array(lambda: r.string(), flexible=False)) or None
    else:
        found = r.nullable_array(topic, flexible)
        topics = None if found is None else tuple(found)
    allow_auto = r.boolean() if version >= 4 else True
    if 8 <= version <= 10:
        r.boolean()
    include_ops = r.boolean() if version >= 8 else False
    r.skip_tags_if(flexible)
    return MetadataRequest(version, topics, allow_auto, include_ops)


METADATA_RESPONSE = Struct(
    MetadataResponse,
    Field("throttle_time_ms", INT32, since=3),
    Field("brokers", Array(Struct(
        MetadataBroker,
        Field("node_id", INT32),
        Field("host", STRING),
        Field("port", INT32),
        Field("rack", NULLABLE_STRING, since=1),
    ))),
    Field("cluster_id", NULLABLE_STRING, since=2),
    Field("controller_id", INT32, since=1),
    Field("topics", Array(Struct(
        MetadataTopic,
        Field("error", ERROR_CODE),
        Field("name", String(nullable_since=12)),
        Field("topic_id", UUID, since=10),
        Field("is_internal", BOOLEAN, since=1),
        Field("partitions", Array(Struct(
            MetadataPartition,
            Field("error", ERROR_CODE),
            Field("partition_index", INT32),
            Field("leader_id", INT32),
            Field("leader_epoch", INT32, since=7),
            Field("replica_nodes", Array(INT32)),
            Field("isr_nodes", Array(INT32)),
            Field("offline_replicas", Array(INT32), since=5),
        ))),
        Field("topic_authorized_operations", INT32, since=8, kept=False, written=INT32_MIN),
    ))),
    Field("cluster_authorized_operations", INT32, since=8, until=10, kept=False, written=INT32_MIN),
    Field("error", ERROR_CODE, since=13),
)


# --- FindCoordinator (10) -----------------------------------------------------------------------

GROUP_COORDINATOR = 0
TRANSACTION_COORDINATOR = 1


@dataclass(frozen=True, slots=True)
class FindCoordinatorRequest:
    API_KEY: ClassVar[int] = 10
    key: str
    version: int = 4
    key_type: int = GROUP_COORDINATOR


@dataclass(frozen=True, slots=True)
class Coordinator:
    key: str
    node_id: int
    host: str
    port: int
    error: KafkaError = NONE
    error_message: str | None = None


@dataclass(frozen=True, slots=True)
class FindCoordinatorResponse:
    API_KEY: ClassVar[int] = 10
    version: int
    coordinators: tuple[Coordinator, ...]
    throttle_time_ms: int = 0


def _encode_find_coordinator(w: Writer, req: FindCoordinatorRequest, version: int) -> None:
    flexible = version >= 3
    if version <= 3:
        w.string(req.key, flexible)
    if version >= 1:
        w.int8(req.key_type)
    if version >= 4:
        w.array([req.key], lambda key: w.string(key, True), flexible=True)
    w.empty_tags_if(flexible)


def _decode_find_coordinator_request(r: Reader, version: int) -> FindCoordinatorRequest:
    flexible = version >= 3
    key = r.any_string(flexible) if version <= 3 else ""
    key_type = r.int8() if version >= 1 else GROUP_COORDINATOR
    if version >= 4:
        keys = r.array(r.compact_string, flexible=True)
        key = keys[0] if keys else ""
    r.skip_tags_if(flexible)
    return FindCoordinatorRequest(key or "", version, key_type)


FIND_COORDINATOR_RESPONSE = Struct(
    FindCoordinatorResponse,
    Field("throttle_time_ms", INT32, since=1),
    # Before v4 one coordinator, its fields in the response itself; its key is the one asked for.
    Field("coordinators", One(Struct(
        Coordinator,
        Field("error", ERROR_CODE),
        Field("error_message", NULLABLE_STRING, since=1),
        Field("node_id", INT32),
        Field("host", STRING),
        Field("port", INT32),
        implied={"key": ""},
        tagged=False,
    )), until=3),
    Field("coordinators", Array(Struct(
        Coordinator,
        Field("key", STRING),
        Field("node_id", INT32),
        Field("host", STRING),
        Field("port", INT32),
        Field("error", ERROR_CODE),
        Field("error_message", NULLABLE_STRING),
    )), since=4),
)


# --- ListOffsets (2) ----------------------------------------------------------------------------

LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2


@dataclass(frozen=True, slots=True)
class ListOffsetsRequest:
    """Asks one partition for an offset; sent to a partition's leader it proves who answers."""

    API_KEY: ClassVar[int] = 2
    topic: str
    partition_index: int
    version: int = 7
    timestamp: int = LATEST_TIMESTAMP
    current_leader_epoch: int = -1
    replica_id: int = -1
    timeout_ms: int = 5000


@dataclass(frozen=True, slots=True)
class ListOffsetsPartition:
    topic: str
    partition_index: int
    error: KafkaError
    timestamp: int = -1
    offset: int = -1
    leader_epoch: int = -1


@dataclass(frozen=True, slots=True)
class ListOffsetsResponse:
    API_KEY: ClassVar[int] = 2
    version: int
    partitions: tuple[ListOffsetsPartition, ...]
    throttle_time_ms: int = 0


def _encode_list_offsets(w: Writer, req: ListOffsetsRequest, version: int) -> None:
    flexible = version >= 6
    w.int32(req.replica_id)
    if version >= 2:
        w.int8(0)  # isolation_level READ_UNCOMMITTED

    def partition(index: int) -> None:
        w.int32(index)
        if version >= 4:
            w.int32(req.current_leader_epoch)
        w.int64(req.timestamp)
        if version == 0:
            w.int32(1)  # max_num_offsets
        w.empty_tags_if(flexible)

    def topic(name: str) -> None:
        w.string(name, flexible)
        w.array([req.partition_index], partition, flexible)
        w.empty_tags_if(flexible)

    w.array([req.topic], topic, flexible)
    if version >= 10:
        w.int32(req.timeout_ms)
    w.empty_tags_if(flexible)


def _decode_list_offsets_request(r: Reader, version: int) -> ListOffsetsRequest:
    flexible = version >= 6
    replica_id = r.int32()
    if version >= 2:
        r.int8()
    found: list[tuple[str, int, int, int]] = []

    def partition(name: str) -> None:
        index = r.int32()
        epoch = r.int32() if version >= 4 else -1
        timestamp = r.int64()
        if version == 0:
            r.int32()
        r.skip_tags_if(flexible)
        found.append((name, index, timestamp, epoch))

    def topic() -> None:
        name = r.any_string(flexible) or ""
        r.array(lambda: partition(name), flexible)
        r.skip_tags_if(flexible)

    r.array(topic, flexible)
    timeout_ms = r.int32() if version >= 10 else 0
    r.skip_tags_if(flexible)
    name, index, timestamp, epoch = found[0] if found else ("", -1, LATEST_TIMESTAMP, -1)
    return ListOffsetsRequest(name, index, version, timestamp, epoch, replica_id, timeout_ms)


class _OldStyleOffsets:
    """ListOffsets v0's ``old_style_offsets``: an array of offsets, of which kdiag asks for one."""

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        def read(r: Reader) -> int:
            offsets = r.array(r.int64, flexible)
            return offsets[0] if offsets else -1

        def write(w: Writer, offset: int) -> None:
            w.array([] if offset == -1 else [offset], w.int64, flexible)

        return read, write


LIST_OFFSETS_RESPONSE = Struct(
    ListOffsetsResponse,
    Field("throttle_time_ms", INT32, since=2),
    Field("partitions", ByTopic(Struct(
        ListOffsetsPartition,
        Field("partition_index", INT32),
        Field("error", ERROR_CODE),
        Field("offset", _OldStyleOffsets(), until=0),
        Field("timestamp", INT64, since=1),
        Field("offset", INT64, since=1),
        Field("leader_epoch", INT32, since=4),
    ))),
)


# --- SaslHandshake (17) -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SaslHandshakeRequest:
    API_KEY: ClassVar[int] = 17
    mechanism: str
    version: int = 1


@dataclass(frozen=True, slots=True)
class SaslHandshakeResponse:
    API_KEY: ClassVar[int] = 17
    version: int
    error: KafkaError
    mechanisms: tuple[str, ...] = field(default_factory=tuple)


def _encode_sasl_handshake(w: Writer, req: SaslHandshakeRequest, version: int) -> None:
    w.string(req.mechanism)


def _decode_sasl_handshake_request(r: Reader, version: int) -> SaslHandshakeRequest:
    return SaslHandshakeRequest(r.string(), version)


SASL_HANDSHAKE_RESPONSE = Struct(
    SaslHandshakeResponse,
    Field("error", ERROR_CODE),
    Field("mechanisms", Array(STRING)),
)


# --- SaslAuthenticate (36) ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SaslAuthenticateRequest:
    """One SASL token after SaslHandshake v1. ``auth_bytes`` may hold a password (PLAIN is
    ``\\0user\\0password``), so it is left out of ``repr``."""

    API_KEY: ClassVar[int] = 36
    auth_bytes: bytes = field(repr=False)
    version: int = 2


@dataclass(frozen=True, slots=True)
class SaslAuthenticateResponse:
    API_KEY: ClassVar[int] = 36
    version: int
    error: KafkaError
    error_message: str | None = None
    auth_bytes: bytes = field(default=b"", repr=False)
    session_lifetime_ms: int = 0


def _encode_sasl_authenticate(w: Writer, req: SaslAuthenticateRequest, version: int) -> None:
    flexible = version >= 2
    w.nullable_bytes(req.auth_bytes, flexible)
    w.empty_tags_if(flexible)


def _decode_sasl_authenticate_request(r: Reader, version: int) -> SaslAuthenticateRequest:
    flexible = version >= 2
    auth_bytes = r.nullable_bytes(flexible) or b""
    r.skip_tags_if(flexible)
    return SaslAuthenticateRequest(auth_bytes, version)


SASL_AUTHENTICATE_RESPONSE = Struct(
    SaslAuthenticateResponse,
    Field("error", ERROR_CODE),
    Field("error_message", NULLABLE_STRING),
    Field("auth_bytes", BYTES),
    Field("session_lifetime_ms", INT64, since=1),
)


# --- the API table ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ApiSpec:
    """What kdiag knows of one Kafka API: its versions and how each direction is (de)coded."""

    key: int
    name: str
    min_version: int
    max_version: int
    flexible_from: int | None
    encode_request: Callable[[Writer, Any, int], None]
    decode_request: Callable[[Reader, int], Any]
    response: Struct  # the response body's fields, from which it is both decoded and encoded

    def decode_response(self, r: Reader, version: int) -> Any:
        return self.response.read(r, version, self.is_flexible(version), version=version)

    def encode_response(self, w: Writer, response: Any, version: int) -> None:
        self.response.write(w, response, version, self.is_flexible(version))

    def is_flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    def response_header_flexible(self, version: int) -> bool:
        # ApiVersionsResponse always carries a v0 header, even in flexible versions (KIP-511).
        return self.key != ApiVersionsRequest.API_KEY and self.is_flexible(version)

    def pick_version(self, broker: ApiVersionRange | None) -> int | None:
        """The highest version both kdiag and the broker speak, or None if the ranges miss."""
        if broker is None:
            return None
        best = min(self.max_version, broker.max_version)
        return best if best >= max(self.min_version, broker.min_version) else None


SPECS: dict[int, ApiSpec] = {
    spec.key: spec
    for spec in (
        ApiSpec(18, "ApiVersions", 0, 4, 3,
                _encode_api_versions, _decode_api_versions_request, API_VERSIONS_RESPONSE),
        ApiSpec(3, "Metadata", 0, 13, 9, _encode_metadata, _decode_metadata_request, METADATA_RESPONSE),
        ApiSpec(10, "FindCoordinator", 0, 6, 3,
                _encode_find_coordinator, _decode_find_coordinator_request, FIND_COORDINATOR_RESPONSE),
        ApiSpec(2, "ListOffsets", 0, 10, 6, _encode_list_offsets, _decode_list_offsets_request, LIST_OFFSETS_RESPONSE),
        ApiSpec(17, "SaslHandshake", 0, 1, None,
                _encode_sasl_handshake, _decode_sasl_handshake_request, SASL_HANDSHAKE_RESPONSE),
        ApiSpec(36, "SaslAuthenticate", 0, 2, 2,
                _encode_sasl_authenticate, _decode_sasl_authenticate_request, SASL_AUTHENTICATE_RESPONSE),
    )
}

# Names of every API key, so a capture can label what kdiag does not decode.
API_NAMES: dict[int, str] = {
    0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 4: "LeaderAndIsr", 5: "StopReplica",
    6: "UpdateMetadata", 7: "ControlledShutdown", 8: "OffsetCommit", 9: "OffsetFetch",
    10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup",
    15: "DescribeGroups", 16: "ListGroups", 17: "SaslHandshake", 18: "ApiVersions", 19: "CreateTopics",
    20: "DeleteTopics", 21: "DeleteRecords", 22: "InitProducerId", 23: "OffsetForLeaderEpoch",
    24: "AddPartitionsToTxn", 25: "AddOffsetsToTxn", 26: "EndTxn", 27: "WriteTxnMarkers",
    28: "TxnOffsetCommit", 29: "DescribeAcls", 30: "CreateAcls", 31: "DeleteAcls", 32: "DescribeConfigs",
    33: "AlterConfigs", 34: "AlterReplicaLogDirs", 35: "DescribeLogDirs", 36: "SaslAuthenticate",
    37: "CreatePartitions", 38: "CreateDelegationToken", 39: "RenewDelegationToken",
    40: "ExpireDelegationToken", 41: "DescribeDelegationToken", 42: "DeleteGroups", 43: "ElectLeaders",
    44: "IncrementalAlterConfigs", 45: "AlterPartitionReassignments", 46: "ListPartitionReassignments",
    47: "OffsetDelete", 48: "DescribeClientQuotas", 49: "AlterClientQuotas",
    50: "DescribeUserScramCredentials", 51: "AlterUserScramCredentials", 52: "Vote", 53: "BeginQuorumEpoch",
    54: "EndQuorumEpoch", 55: "DescribeQuorum", 56: "AlterPartition", 57: "UpdateFeatures", 58: "Envelope",
    59: "FetchSnapshot", 60: "DescribeCluster", 61: "DescribeProducers", 62: "BrokerRegistration",
    63: "BrokerHeartbeat", 64: "UnregisterBroker", 65: "DescribeTransactions", 66: "ListTransactions",
    67: "AllocateProducerIds", 68: "ConsumerGroupHeartbeat", 69: "ConsumerGroupDescribe",
    71: "GetTelemetrySubscriptions", 72: "PushTelemetry", 74: "ListClientMetricsResources",
    75: "DescribeTopicPartitions", 76: "ShareGroupHeartbeat", 77: "ShareGroupDescribe", 78: "ShareFetch",
    79: "ShareAcknowledge", 80: "AddRaftVoter", 81: "RemoveRaftVoter", 82: "UpdateRaftVoter",
    83: "InitializeShareGroupState", 84: "ReadShareGroupState", 85: "WriteShareGroupState",
    86: "DeleteShareGroupState", 87: "ReadShareGroupStateSummary", 88: "StreamsGroupHeartbeat",
    89: "StreamsGroupDescribe", 90: "DescribeShareGroupOffsets", 91: "AlterShareGroupOffsets",
    92: "DeleteShareGroupOffsets",
}


def api_name(api_key: int) -> str:
    return API_NAMES.get(api_key, f"ApiKey{api_key}")


def spec_for(api_key: int, version: int) -> ApiSpec:
    spec = SPECS.get(api_key)
    if spec is None:
        raise MalformedFrame(f"kdiag does not decode {api_name(api_key)} (api key {api_key})")
    if not spec.min_version <= version <= spec.max_version:
        raise MalformedFrame(f"{spec.name} v{version} is outside the versions kdiag decodes "
                             f"(v{spec.min_version}-v{spec.max_version})")
    return spec
