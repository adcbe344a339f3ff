"""kdiag's request bytes and the hand-built response goldens, read by an independent decoder: tshark.

Every request version that Wireshark 4.0's Kafka dissector knows (ApiVersions v0-v3, Metadata
v0-v9, FindCoordinator v0-v3, ListOffsets v0-v5, SaslHandshake v0-v1) is written into a pcap (a file
only: nothing is sent), each in its own TCP conversation to port 9092 and followed by a golden answer
where there is one. tshark must decode api key, version, correlation id and client id, the body
fields we spot-check, and flag nothing as malformed.

tshark is a required test tool (CI installs it); its absence fails these tests rather than skipping.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from scapy.all import IP, TCP, Ether, wrpcap

from probes.codec import (
    ApiVersionsRequest,
    FindCoordinatorRequest,
    ListOffsetsRequest,
    MetadataRequest,
    SaslHandshakeRequest,
    encode_request,
)
from tests.unit.codec.golden import sized
from tests.unit.codec.test_messages_api_versions import (
    API_VERSIONS_V0_RESPONSE,
    API_VERSIONS_V1_RESPONSE,
    API_VERSIONS_V3_RESPONSE,
)
from tests.unit.codec.test_messages_find_coordinator import (
    FIND_COORDINATOR_V0_RESPONSE,
    FIND_COORDINATOR_V1_RESPONSE,
    FIND_COORDINATOR_V3_RESPONSE,
)
from tests.unit.codec.test_messages_list_offsets import (
    LIST_OFFSETS_V0_RESPONSE,
    LIST_OFFSETS_V1_RESPONSE,
    LIST_OFFSETS_V4_RESPONSE,
)
from tests.unit.codec.test_messages_metadata import (
    METADATA_V0_RESPONSE,
    METADATA_V1_RESPONSE,
    METADATA_V5_RESPONSE,
    METADATA_V9_RESPONSE,
)
from tests.unit.codec.test_messages_sasl_handshake import SASL_HANDSHAKE_UNSUPPORTED_MECHANISM_RESPONSE

FIELDS = (
    "frame.number", "tcp.srcport", "tcp.dstport", "kafka.api_key", "kafka.api_version", "kafka.correlation_id", "kafka.client_id",
    "kafka.response_key", "kafka.topic_name", "kafka.partition_id", "kafka.coordinator_key", "kafka.consumer_group",
    "kafka.sasl_mechanism", "kafka.client_software_name", "kafka.client_software_version", "kafka.node_id",
    "kafka.host", "kafka.port", "kafka.rack", "kafka.cluster_id", "kafka.leader_id", "kafka.error",
    "kafka.offset", "kafka.api_versions.api_key", "kafka.api_versions.max_version", "kafka.throttle_time",
    "_ws.malformed", "_ws.expert.message",
)


@dataclass(frozen=True)
class Exchange:
    name: str
    request: bytes
    response: bytes | None = None


def requests_tshark_decodes() -> list[Exchange]:
    """One request per version in tshark 4.0's range, correlation id 1000 + index."""
    requests = (
        [ApiVersionsRequest(version=v) for v in range(0, 4)]
        + [MetadataRequest(version=v, topics=("orders",), allow_auto_topic_creation=True) for v in range(0, 10)]
        + [FindCoordinatorRequest("g1", version=v) for v in range(0, 4)]
        + [ListOffsetsRequest("orders", 3, version=v) for v in range(0, 6)]
        + [SaslHandshakeRequest("PLAIN", version=v) for v in range(0, 2)]
    )
    return [Exchange(f"{type(r).__name__}-v{r.version}", encode_request(r, correlation_id=1000 + i))
            for i, r in enumerate(requests)]


def golden_answers() -> list[Exchange]:
    """The response goldens (correlation id 7), each after a request it answers."""
    pairs = [
        (ApiVersionsRequest(version=0), API_VERSIONS_V0_RESPONSE),
        (ApiVersionsRequest(version=1), API_VERSIONS_V1_RESPONSE),
        (ApiVersionsRequest(version=3), API_VERSIONS_V3_RESPONSE),
        (MetadataRequest(version=0), METADATA_V0_RESPONSE),
        (MetadataRequest(version=1), METADATA_V1_RESPONSE),
        (MetadataRequest(version=5), METADATA_V5_RESPONSE),
        (MetadataRequest(version=9), METADATA_V9_RESPONSE),
        (FindCoordinatorRequest("g1", version=0), FIND_COORDINATOR_V0_RESPONSE),
        (FindCoordinatorRequest("g1", version=1), FIND_COORDINATOR_V1_RESPONSE),
        (FindCoordinatorRequest("g1", version=3), FIND_COORDINATOR_V3_RESPONSE),
        (ListOffsetsRequest("orders", 3, version=0), LIST_OFFSETS_V0_RESPONSE),
        (ListOffsetsRequest("orders", 3, version=1), LIST_OFFSETS_V1_RESPONSE),
        (ListOffsetsRequest("orders", 3, version=4), LIST_OFFSETS_V4_RESPONSE),
        (SaslHandshakeRequest("PLAIN", version=1), SASL_HANDSHAKE_UNSUPPORTED_MECHANISM_RESPONSE),
    ]
    return [Exchange(f"{type(r).__name__}-v{r.version}-answer", encode_request(r, correlation_id=7), sized(answer))
            for r, answer in pairs]


def conversation(client_port: int, exchange: Exchange) -> list:
    """The request from client_port to 9092, then its answer, with consistent sequence numbers."""
    client, server = ("127.0.0.1", client_port), ("127.0.0.1", 9092)
    link = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    packets = [link / IP(src=client[0], dst=server[0])
               / TCP(sport=client[1], dport=server[1], flags="PA", seq=1, ack=1) / exchange.request]
    if exchange.response is not None:
        packets.append(link / IP(src=server[0], dst=client[0])
                       / TCP(sport=server[1], dport=client[1], flags="PA", seq=1, ack=1 + len(exchange.request))
                       / exchange.response)
    return packets


REQUESTS = requests_tshark_decodes()
ANSWERS = golden_answers()
CLIENT_PORTS = {exchange.name: 40000 + i for i, exchange in enumerate(REQUESTS + ANSWERS)}


@pytest.fixture(scope="module")
def decoded(tmp_path_factory) -> dict[tuple[int, bool], dict[str, str]]:
    """tshark's reading of the pcap: {(client port, is response): {field: value}}."""
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.fail("tshark is a required test tool (apt-get install tshark): the codec cross-check cannot run")
    pcap = Path(tmp_path_factory.mktemp("tshark")) / "kdiag-requests.pcap"
    wrpcap(str(pcap), [p for exchange in REQUESTS + ANSWERS for p in conversation(CLIENT_PORTS[exchange.name], exchange)])
    command = [tshark, "-n", "-r", str(pcap), "-d", "tcp.port==9092,kafka", "-T", "fields",
               "-E", "separator=\t", "-E", "aggregator=,", "-E", "occurrence=a"]
    for field in FIELDS:
        command += ["-e", field]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    rows: dict[tuple[int, bool], dict[str, str]] = {}
    for line in done.stdout.splitlines():
        row = dict(zip(FIELDS, line.split("\t")))
        is_response = row["tcp.srcport"] == "9092"
        client_port = int(row["tcp.dstport"] if is_response else row["tcp.srcport"])
        rows[(client_port, is_response)] = row
    assert len(rows) == len(REQUESTS) + 2 * len(ANSWERS), done.stdout
    return rows


def request_row(decoded, exchange: Exchange) -> dict[str, str]:
    return decoded[(CLIENT_PORTS[exchange.name], False)]


def response_row(decoded, exchange: Exchange) -> dict[str, str]:
    return decoded[(CLIENT_PORTS[exchange.name], True)]


# tshark notes, as expert info, every range in an ApiVersions answer beyond what it can dissect
# (ApiVersions v4, Metadata v10+): a remark on the content, not on the bytes.
BEYOND_TSHARK = re.compile(r"Unsupported \w+ version\. Supports v\d+-\d+\.")


def assert_clean(row: dict[str, str], *, api_versions_answer: bool = False) -> None:
    assert row["_ws.malformed"] == "", row
    complaints = [m for m in row["_ws.expert.message"].split(",")
                  if m and not (api_versions_answer and BEYOND_TSHARK.fullmatch(m))]
    assert complaints == [], row


@pytest.mark.parametrize("index", range(len(REQUESTS)), ids=[e.name for e in REQUESTS])
def test_tshark_decodes_the_request_header_of_every_version_without_malformed(decoded, index):
    exchange = REQUESTS[index]
    row = request_row(decoded, exchange)
    api_key, version = int.from_bytes(exchange.request[4:6], "big"), int.from_bytes(exchange.request[6:8], "big")
    assert (row["kafka.api_key"], row["kafka.api_version"]) == (str(api_key), str(version))
    assert row["kafka.correlation_id"] == str(1000 + index)
    assert row["kafka.client_id"] == "kdiag"
    assert_clean(row)


def test_tshark_reads_the_request_bodies_fields(decoded):
    by_name = {e.name: request_row(decoded, e) for e in REQUESTS}
    assert by_name["ApiVersionsRequest-v3"]["kafka.client_software_name"] == "kdiag"
    assert by_name["ApiVersionsRequest-v3"]["kafka.client_software_version"] == "0.1.0"
    for version in range(0, 10):
        assert by_name[f"MetadataRequest-v{version}"]["kafka.topic_name"] == "orders"
    assert by_name["FindCoordinatorRequest-v0"]["kafka.consumer_group"] == "g1"
    for version in range(1, 4):
        assert by_name[f"FindCoordinatorRequest-v{version}"]["kafka.coordinator_key"] == "g1"
    for version in range(0, 6):
        row = by_name[f"ListOffsetsRequest-v{version}"]
        assert (row["kafka.topic_name"], row["kafka.partition_id"]) == ("orders", "3")
    assert by_name["SaslHandshakeRequest-v1"]["kafka.sasl_mechanism"] == "PLAIN"


@pytest.mark.parametrize("index", range(len(ANSWERS)), ids=[e.name for e in ANSWERS])
def test_tshark_decodes_every_golden_response_without_malformed(decoded, index):
    exchange = ANSWERS[index]
    row = response_row(decoded, exchange)
    assert row["kafka.response_key"] == str(int.from_bytes(exchange.request[4:6], "big"))
    assert row["kafka.correlation_id"] == "7"
    assert_clean(row, api_versions_answer=row["kafka.response_key"] == "18")
    assert_clean(request_row(decoded, exchange))


def test_tshark_reads_the_metadata_goldens_brokers_and_partitions(decoded):
    rows = {e.name: response_row(decoded, e) for e in ANSWERS}
    for version in (0, 1, 5, 9):
        row = rows[f"MetadataRequest-v{version}-answer"]
        assert row["kafka.node_id"] == ("1,2" if version == 0 else "1,2,1")  # brokers, then controller_id (v1+)
        assert row["kafka.host"] == "k1.lan,k2.lan"
        assert row["kafka.port"] == "9092,9093"
        assert row["kafka.topic_name"] == "orders"
        assert row["kafka.leader_id"] == "1,-1"
        assert row["kafka.rack"] == ("" if version == 0 else "r1,[ Null ]")  # broker 2 has no rack
        assert row["kafka.cluster_id"] == ("lab-cluster" if version >= 2 else "")


def test_tshark_reads_the_other_goldens_fields(decoded):
    rows = {e.name: response_row(decoded, e) for e in ANSWERS}
    assert rows["ApiVersionsRequest-v3-answer"]["kafka.api_versions.api_key"] == "18,3,17"
    assert rows["ApiVersionsRequest-v3-answer"]["kafka.api_versions.max_version"] == "4,12,1"
    assert rows["ApiVersionsRequest-v1-answer"]["kafka.throttle_time"] == "10"
    assert rows["FindCoordinatorRequest-v0-answer"]["kafka.host"] == "kafka-1.lan"
    assert rows["FindCoordinatorRequest-v1-answer"]["kafka.error"] == "15"
    assert rows["FindCoordinatorRequest-v3-answer"]["kafka.port"] == "9092"
    assert rows["ListOffsetsRequest-v0-answer"]["kafka.offset"] == "42"
    assert rows["ListOffsetsRequest-v4-answer"]["kafka.offset"] == "42"
    assert rows["ListOffsetsRequest-v4-answer"]["kafka.partition_id"] == "3"
    assert rows["SaslHandshakeRequest-v1-answer"]["kafka.sasl_mechanism"] == "PLAIN,SCRAM-SHA-512"
    assert rows["SaslHandshakeRequest-v1-answer"]["kafka.error"] == "33"
