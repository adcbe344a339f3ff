"""The Kafka wire codec: sans-I/O, shared by the active probes and the packet capture.

Requests become bytes, bytes become ``(correlation_id, response)``; nothing here opens a socket.
"""

from probes.codec.errors import KafkaError, kafka_error
from probes.codec.framing import (
    MAX_FRAME_SIZE,
    ForeignBytes,
    FrameBuffer,
    FrameTooLarge,
    KafkaClientProtocol,
    NotKafka,
    RequestHeader,
    decode_request,
    decode_request_header,
    decode_response,
    encode_request,
    encode_response,
    foreign_or_garbage,
    identify_foreign,
    preview_bytes,
    response_correlation_id,
)
from probes.codec.messages import (
    SPECS,
    ApiSpec,
    ApiVersionRange,
    ApiVersionsRequest,
    ApiVersionsResponse,
    Coordinator,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsResponse,
    MetadataBroker,
    MetadataPartition,
    MetadataRequest,
    MetadataResponse,
    MetadataTopic,
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    api_name,
    spec_for,
)
from probes.codec.reader import MalformedFrame, Reader
from probes.codec.writer import Writer

__all__ = [name for name in dir() if not name.startswith("_")]
