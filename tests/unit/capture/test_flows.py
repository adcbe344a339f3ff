"""TCP reassembly and Kafka framing: what a capture looks like when it goes right and wrong."""

from __future__ import annotations

import struct

from kdiag.capture.flows import CaptureAnalyzer
from kdiag.capture.kafka_streams import find_request_start, plausible_request
from kdiag.capture.model import KAFKA, NOT_KAFKA, TLS
from kdiag.capture.pcapio import ACK, FIN, LINKTYPE_LINUX_SLL, PSH, RST, build_tcp
from kdiag.capture.synthetic import (
    TcpConversation,
    api_versions_response,
    find_coordinator_response,
    icmp_unreachable,
    metadata_request,
    metadata_response,
    opaque_request,
    opaque_response,
)
from probes.codec import ApiVersionsRequest, FindCoordinatorRequest, encode_request
from tests.unit.capture.helpers import BROKERS, noise

CLIENT, SERVER = ("192.0.2.10", 50000), ("192.0.2.1", 9092)
EXPECTED = [[(1, "kafka-1.internal", 19092, "rack-a"), (2, "kafka-2.internal", 19092, None)]]
# ApiVersions v3 request: size, api_key 18, version 3, correlation id 1, client_id "rdkafka", then the
# v3 body (compact client_software_name/version) and an empty tag section.
API_VERSIONS = encode_request(ApiVersionsRequest(version=3), correlation_id=1, client_id="rdkafka")
TLS_ALERT = bytes.fromhex("15 03 03 00 02 02 46")  # alert record, TLS 1.2, fatal (2), protocol_version (70)
CLIENT_HELLO = bytes.fromhex("16 03 01 00 2f 01 00 00 2b 03 03") + bytes(32) + b"\x00\x00\x02\x00\x2f\x01\x00"


def kafka_session(conversation: TcpConversation, *, topics=(("orders", 0, 200),), version=9) -> list[int]:
    """ApiVersions, then Metadata; returns the indexes of the Metadata response's segments."""
    conversation.client(API_VERSIONS)
    conversation.server(api_versions_response(1))
    conversation.client(metadata_request(2, version))
    return conversation.server(metadata_response(2, BROKERS, version=version, topics=topics))


def test_metadata_response_over_many_segments_is_reassembled_and_decoded(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=50).handshake()
    kafka_session(conversation)
    conversation.close()
    result = analyse(conversation.packets)
    assert len(conversation.packets) > 100
    assert result.brokers == EXPECTED
    assert result.warnings == []
    [flow] = result.summary.flows
    assert (flow.protocol, flow.handshake, flow.requests, flow.responses, flow.client_id) == (
        KAFKA, "completed", 2, 2, "rdkafka")
    assert flow.apis == ("ApiVersions v3", "Metadata v9")


def test_out_of_order_segments_are_put_back_in_stream_order(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=120).handshake()
    conversation.shuffle(kafka_session(conversation, topics=[("orders", 0, 100)]))
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED
    assert result.warnings == []


def test_retransmissions_and_overlapping_segments_are_delivered_once(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=100).handshake()
    segments = kafka_session(conversation, topics=[("orders", 0, 50)])
    conversation.duplicate(segments[3:6])  # exact retransmissions
    conversation.resend(False, 250, 180)  # a re-segmented retransmission spanning three old segments
    conversation.client(metadata_request(3))
    conversation.server(metadata_response(3, BROKERS[:1]))
    result = analyse(conversation.packets)
    assert result.brokers == [EXPECTED[0], EXPECTED[0][:1]]
    assert result.warnings == []
    assert result.analyzer.connections[0].s2c.duplicates == 4


def test_capture_starting_mid_stream_resynchronises_at_the_next_frame(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=500).handshake()
    produce = conversation.client(opaque_request(0, 9, 7, 3000))  # Produce v9, 3000-byte body
    conversation.server(opaque_response(7, 60))
    conversation.client(metadata_request(8))
    conversation.server(metadata_response(8, BROKERS))
    result = analyse(conversation.packets[produce[2]:])  # no handshake, and half the produce request lost
    assert result.brokers == [[(b.node_id, b.host, b.port, b.rack) for b in BROKERS]]
    [flow] = result.summary.flows
    assert (flow.client, flow.server, flow.handshake) == ("192.0.2.10:50000", "192.0.2.1:9092", "not_seen")
    assert any("the capture starts inside the stream" in w for w in result.warnings)


def test_capture_starting_with_the_servers_packet_still_guesses_the_roles(analyse):
    conversation = TcpConversation(("192.0.2.10", 40000), ("192.0.2.1", 45000), mss=500)
    conversation.server(opaque_response(6, 40))  # the answer to a request from before the capture
    conversation.client(metadata_request(7))
    conversation.server(metadata_response(7, BROKERS))
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.client, flow.server, flow.protocol) == ("192.0.2.10:40000", "192.0.2.1:45000", KAFKA)
    assert len(result.summary.metadata) == 1


def test_missing_segment_inside_a_frame_loses_that_frame_and_keeps_the_framing(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=200).handshake()
    lost = kafka_session(conversation, topics=[("orders", 0, 60)])
    conversation.client(metadata_request(3))
    conversation.server(metadata_response(3, BROKERS[1:]))
    conversation.drop([lost[2]])
    result = analyse(conversation.packets)
    assert result.brokers == [[(2, "kafka-2.internal", 19092, None)]]  # the second answer still decodes
    [warning] = [w for w in result.warnings if "missing" in w]
    assert "200 bytes missing (the receiver acknowledged them); the Metadata v9 response (correlation id 2) lost, " \
           "framing kept" in warning


def test_missing_segment_inside_a_skipped_frame_costs_nothing_decoded(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=1000).handshake()
    conversation.client(API_VERSIONS)
    conversation.server(api_versions_response(1))
    conversation.client(opaque_request(1, 12, 2, 60))  # Fetch
    fetch = conversation.server(opaque_response(2, 200_000))
    conversation.client(metadata_request(3))
    conversation.server(metadata_response(3, BROKERS))
    conversation.drop([fetch[50], fetch[51]])
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED
    assert any("inside a frame kdiag skips anyway; framing kept" in w for w in result.warnings)
    assert result.summary.flows[0].missing_bytes == 2000


def test_missing_segment_across_frames_is_recovered_by_hunting(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=100).handshake()
    conversation.client(API_VERSIONS)
    conversation.server(api_versions_response(1))
    small = [conversation.client(metadata_request(i, 4))[0] for i in range(2, 5)]  # 25-byte requests
    conversation.server(b"".join(metadata_response(i, BROKERS, version=4) for i in range(2, 5)))
    conversation.drop([small[0]])  # request 2 never seen: its answer matches nothing
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED * 2
    assert any("missing" in w for w in result.warnings)


def test_two_gigabyte_frame_length_is_skipped_with_a_warning_in_bounded_memory():
    conversation = TcpConversation(CLIENT, SERVER, mss=1448).handshake()
    conversation.client(API_VERSIONS)
    conversation.server(api_versions_response(1))
    junk = noise(3000, seed=1)
    bad_request = conversation.client(struct.pack(">i", 0x7FFFFFF0) + junk)  # declares 2 GB, sends 3 KB
    next_request = conversation.client(metadata_request(2))
    bad_response = conversation.server(struct.pack(">i", 0x7FFFFFF0) + bytes(2_000_000))  # 2 GB declared, 2 MB sent
    next_response = conversation.server(metadata_response(2, BROKERS))
    analyzer = CaptureAnalyzer()
    largest = 0
    for number, (timestamp, frame) in enumerate(conversation.packets, 1):
        analyzer.feed(number, timestamp, 1, frame)
        connection = analyzer.connections[0]
        largest = max(largest, len(connection.c2s.buf), len(connection.s2c.buf))
    analyzer.finish()
    assert largest < 64 * 1024
    assert [[b.host for b in md.brokers] for _, md in analyzer.metadata] == [["kafka-1.internal", "kafka-2.internal"]]
    client, server = "192.0.2.10:50000 > 192.0.2.1:9092", "192.0.2.1:9092 > 192.0.2.10:50000"
    assert [(w.packet, w.message) for _, w in analyzer.warnings] == [
        (bad_request[0] + 1, f"{client}: declared frame length 2147483632 (bytes 7f ff ff f0 {junk[:4].hex(' ')}) "
                             "is not a plausible Kafka frame; searching for the next frame start"),
        (next_request[0] + 1, f"{client}: frame boundary found again after skipping 3004 bytes"),
        (bad_response[0] + 1, f"{server}: declared frame length 2147483632 (bytes 7f ff ff f0 00 00 00 00) is not "
                              "a plausible Kafka frame; searching for the next frame start"),
        (next_response[0] + 1, f"{server}: frame boundary found again after skipping 2000004 bytes"),
    ]


def test_tls_alert_answering_a_kafka_request_is_recognised(analyse):
    conversation = TcpConversation(CLIENT, SERVER).handshake()
    conversation.client(API_VERSIONS)
    conversation.server(TLS_ALERT)
    conversation.close()
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.protocol, flow.foreign_from, flow.foreign.kind, flow.client_spoke_kafka) == (
        TLS, "server", "tls_alert", True)
    assert "protocol_version" in flow.foreign.description
    assert [f.id for f in result.summary.findings] == ["TLS_EXPECTED"]


def test_tls_client_hello_on_a_kafka_port_that_hangs_up_is_tls_unexpected(analyse):
    conversation = TcpConversation(CLIENT, SERVER).handshake()
    conversation.client(CLIENT_HELLO)
    conversation._packet(False, RST | ACK)  # noqa: SLF001 - the plaintext listener closes
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.protocol, flow.foreign_from, flow.server_answer, flow.reset_by) == (TLS, "client", None, "server")
    assert [f.id for f in result.summary.findings] == ["TLS_UNEXPECTED"]


def test_tls_in_both_directions_is_listed_but_not_a_problem(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 9093)).handshake()
    conversation.client(CLIENT_HELLO)
    conversation.server(bytes.fromhex("16 03 03 00 31 02 00 00 2d 03 03") + bytes(45))  # ServerHello
    conversation.client(bytes.fromhex("17 03 03 00 20") + noise(32, seed=2))
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.protocol, flow.server_answer) == (TLS, "tls")
    assert result.summary.findings == ()


def test_http_answer_to_a_kafka_request_is_not_kafka(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 8080)).handshake()
    conversation.client(API_VERSIONS)
    conversation.server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.protocol, flow.foreign.kind) == (NOT_KAFKA, "http")
    [finding] = result.summary.findings
    assert finding.id == "NOT_KAFKA" and finding.evidence["port"] == 8080


def test_garbage_on_a_forced_port_is_a_non_kafka_flow_not_a_crash(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 7777), mss=300).handshake()
    garbage = bytes(range(256)) * 40
    conversation.client(b"\xde\xad\xbe\xef" + garbage)
    conversation.server(garbage[::-1])
    result = analyse(conversation.packets, ports=(7777,))
    [flow] = result.summary.flows
    assert (flow.protocol, flow.foreign_from, flow.foreign.kind) == (NOT_KAFKA, "client", "binary")
    assert flow.client_bytes == len(garbage) + 4


def test_garbage_mid_stream_on_a_kafka_connection_is_skipped_with_a_warning(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=400).handshake()
    conversation.client(API_VERSIONS)
    conversation.server(api_versions_response(1))
    conversation.client(b"\xff\xfe\xfd\xfc" + bytes(range(256)) * 4)
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, BROKERS))
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED
    assert any("is not a plausible Kafka frame" in w for w in result.warnings)
    assert any("frame boundary found again" in w for w in result.warnings)


def test_kafka_is_recognised_on_any_port_by_its_framing(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 31337)).handshake()
    kafka_session(conversation)
    other = TcpConversation(("192.0.2.10", 50001), ("192.0.2.1", 5000), mss=400).handshake()
    other.client(noise(2000, seed=3))
    other.server(noise(2000, seed=4))
    result = analyse(conversation.packets + other.packets)
    assert [(f.server, f.protocol) for f in result.summary.flows] == [("192.0.2.1:31337", KAFKA)]
    assert result.summary.other_flows == 1
    assert result.brokers == EXPECTED


def test_forced_port_reads_kafka_even_from_the_middle_of_a_request(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 6000), mss=40)
    conversation.client(API_VERSIONS[10:] + metadata_request(2))
    conversation.server(metadata_response(2, BROKERS))
    result = analyse(conversation.packets, ports=(6000,))
    assert result.brokers == EXPECTED


def test_responses_pair_with_requests_by_correlation_id(analyse):
    conversation = TcpConversation(CLIENT, SERVER).handshake()
    conversation.client(metadata_request(10, 1) + encode_request(ApiVersionsRequest(version=0), correlation_id=11))
    conversation.server(api_versions_response(11, version=0) + metadata_response(10, BROKERS, version=1))
    result = analyse(conversation.packets)
    assert [md.api_version for md in result.summary.metadata] == [1]
    kinds = [(e.kind, e.api, e.correlation_id) for e in result.summary.timeline if e.kind in ("request", "response")]
    assert kinds == [("request", "Metadata", 10), ("request", "ApiVersions", 11), ("response", "ApiVersions", 11),
                     ("response", "Metadata", 10)]


def test_requests_without_answers_are_still_kafka(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 12345)).handshake()
    for correlation_id in range(1, 4):  # an acks=0 producer: requests only
        conversation.client(opaque_request(0, 3, correlation_id, 300))
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.protocol, flow.requests, flow.responses) == (KAFKA, 3, 0)


def test_single_unanswered_request_is_kafka_at_the_end_of_the_capture(analyse):
    conversation = TcpConversation(CLIENT, ("192.0.2.1", 12345)).handshake()
    conversation.client(metadata_request(1))
    conversation._packet(False, FIN | ACK)  # noqa: SLF001 - e.g. a SASL listener hanging up
    result = analyse(conversation.packets)
    [flow] = result.summary.flows
    assert (flow.protocol, flow.requests, flow.apis) == (KAFKA, 1, ("Metadata v9",))


def test_a_response_that_does_not_decode_is_a_warning_and_the_rest_goes_on(analyse):
    conversation = TcpConversation(CLIENT, SERVER).handshake()
    conversation.client(metadata_request(2))
    good = metadata_response(2, BROKERS)
    conversation.server(good[:8] + b"\xff" * (len(good) - 8))  # right frame, body garbage
    conversation.client(metadata_request(3))
    conversation.server(metadata_response(3, BROKERS))
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED
    assert any("Metadata v9 response (correlation id 2) does not decode" in w for w in result.warnings)


def test_metadata_response_above_the_decode_limit_is_skipped_with_a_warning(analyse):
    conversation = TcpConversation(CLIENT, SERVER).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, BROKERS, topics=[("big", 0, 400)]))
    conversation.client(metadata_request(3))
    conversation.server(metadata_response(3, BROKERS))
    result = analyse(conversation.packets, decode_cap=4096)
    assert result.brokers == EXPECTED
    assert any("above the 4096-byte decode limit; not decoded" in w for w in result.warnings)


def test_snap_length_cut_segments_are_reported_as_lost(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=1000).handshake()
    conversation.client(metadata_request(2))
    segments = conversation.server(metadata_response(2, BROKERS, topics=[("t", 0, 100)]))
    conversation.client(metadata_request(3))
    conversation.server(metadata_response(3, BROKERS))
    index = segments[1]
    timestamp, frame = conversation.packets[index]
    conversation.packets[index] = (timestamp, frame[:200])
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED
    assert any("cut off by the capture's snap length" in w for w in result.warnings)


def test_ipv6_over_linux_cooked_capture(analyse):
    conversation = TcpConversation(("2001:db8::10", 50000), ("2001:db8::1", 9092), linktype=LINKTYPE_LINUX_SLL)
    conversation.handshake()
    kafka_session(conversation)
    result = analyse(conversation.packets, linktype=LINKTYPE_LINUX_SLL)
    assert result.brokers == EXPECTED
    assert result.summary.flows[0].client == "[2001:db8::10]:50000"


def test_find_coordinator_answers_are_kept(analyse):
    conversation = TcpConversation(CLIENT, SERVER).handshake()
    conversation.client(encode_request(FindCoordinatorRequest("orders-app", version=2), correlation_id=4))
    conversation.server(find_coordinator_response(4, 2, "kafka-2.internal", 19092))
    result = analyse(conversation.packets)
    [coordinator] = result.summary.coordinators
    assert (coordinator.key, coordinator.node_id, coordinator.host, coordinator.port) == (
        "orders-app", 2, "kafka-2.internal", 19092)  # a v2 answer has no key: the request's is kept


def test_a_new_connection_on_the_same_four_tuple_is_a_new_flow(analyse):
    first = TcpConversation(CLIENT, SERVER).handshake()
    first.client(metadata_request(1))
    first.server(metadata_response(1, BROKERS))
    first.close()
    second = TcpConversation(CLIENT, SERVER, start=1_700_000_010.0, client_isn=90000).handshake()
    second.client(metadata_request(1))
    second.server(metadata_response(1, BROKERS))
    result = analyse(first.packets + second.packets)
    assert len(result.summary.flows) == 2
    assert result.brokers == EXPECTED * 2


def test_sequence_numbers_wrapping_around_zero(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=100, server_isn=0xFFFFFF00).handshake()
    kafka_session(conversation)
    result = analyse(conversation.packets)
    assert result.brokers == EXPECTED and result.warnings == []


def test_plausible_request_rejects_what_is_not_a_client_header():
    assert plausible_request(API_VERSIONS[4:]).api_key == 18
    assert plausible_request(b"\x00\x63\x00\x00\x00\x00\x00\x01\xff\xff") is None  # api key 99
    assert plausible_request(b"\x00\x03\x00\x40\x00\x00\x00\x01\xff\xff") is None  # version 64
    assert plausible_request(b"\x00\x03\x00\x09\x80\x00\x00\x01\xff\xff") is None  # negative correlation id
    assert plausible_request(b"\x00\x03\x00\x09\x00\x00\x00\x01\x00\x03a\x01b") is None  # control character


def test_hunt_is_not_stalled_by_a_false_frame_start_overlapping_the_real_one():
    # Two bytes before a real request + its size field read as a 97 MB frame whose "header" is the
    # real one shifted by two: its client_id (the real length field, 00 05) is not printable.
    request = metadata_request(2)
    assert find_request_start(b"\x05\xd7" + request) == (2, True)


def test_request_hunt_skips_runs_of_zeros_quickly():
    buf = bytes(1_000_000) + metadata_request(5)
    assert find_request_start(buf) == (1_000_000, True)


def test_icmp_unreachable_marks_the_connection_attempt(analyse):
    syn = build_tcp("192.0.2.10", "203.0.113.5", 50000, 19092, seq=1, flags=0x02)
    icmp = build_tcp("192.0.2.10", "203.0.113.5", 1, 1)[:14]  # an Ethernet header
    packets = [(1.0, syn), (1.1, icmp + icmp_unreachable(syn[14:], v6=False, code=1))]
    result = analyse(packets, ports=(19092,))
    assert result.summary.flows[0].handshake == "unreachable"


def test_ack_only_and_non_tcp_packets_are_counted_not_parsed(analyse):
    udp = bytearray(build_tcp("192.0.2.10", "192.0.2.1", 1, 2))
    udp[23] = 17
    packets = [(1.0, bytes(udp)), (1.1, build_tcp("192.0.2.10", "192.0.2.1", 50000, 9092, flags=ACK))]
    result = analyse(packets)
    assert (result.summary.packets, result.summary.tcp_packets) == (2, 1)


def test_psh_data_in_a_syn_is_part_of_the_stream(analyse):
    conversation = TcpConversation(CLIENT, SERVER)
    conversation._packet(True, 0x02 | PSH, API_VERSIONS)  # noqa: SLF001 - TCP Fast Open
    conversation.seq[True] += 1 + len(API_VERSIONS)
    conversation._packet(False, 0x02 | ACK)  # noqa: SLF001
    conversation.seq[False] += 1
    conversation.server(api_versions_response(1))
    result = analyse(conversation.packets)
    assert result.summary.flows[0].apis == ("ApiVersions v3",)


def test_capture_ending_inside_a_metadata_response_says_so(analyse):
    conversation = TcpConversation(CLIENT, SERVER, mss=500).handshake()
    conversation.client(metadata_request(2))
    segments = conversation.server(metadata_response(2, BROKERS, topics=[("orders", 0, 100)]))
    frame_size = len(metadata_response(2, BROKERS, topics=[("orders", 0, 100)])) - 4
    result = analyse(conversation.packets[:segments[2] + 1])
    assert result.summary.metadata == ()
    assert result.warnings == [f"{segments[2] + 1}: 192.0.2.1:9092 > 192.0.2.10:50000: the capture ends inside the "
                               f"Metadata v9 response (correlation id 2): 1496 of {frame_size} bytes seen"]
