"""The summary a capture gives, its findings, and how it renders."""

from __future__ import annotations

import json

from kdiag.capture.model import CaptureSummary, summary_to_dict
from kdiag.capture.pcapio import ACK, RST, SYN
from kdiag.capture.synthetic import (
    Broker,
    TcpConversation,
    api_versions_response,
    find_coordinator_response,
    metadata_request,
    metadata_response,
)
from kdiag.render.pcap import render_markdown, render_text, render_timeline
from kdiag.jsonform import from_json
from probes.codec import ApiVersionsRequest, FindCoordinatorRequest, encode_request
from tests.unit.capture.helpers import BROKERS

CLIENT = "198.51.100.7"


def bootstrap_session(port: int, brokers, *, client_port: int = 50000, start: float = 1_700_000_000.0,
                      server: str = "203.0.113.5", topics=()) -> TcpConversation:
    conversation = TcpConversation((CLIENT, client_port), (server, port), start=start).handshake()
    conversation.client(encode_request(ApiVersionsRequest(version=3), correlation_id=1, client_id="rdkafka"))
    conversation.server(api_versions_response(1))
    conversation.client(metadata_request(2, client_id="rdkafka"))
    conversation.server(metadata_response(2, brokers, topics=topics))
    conversation.close()
    return conversation


def attempt(server: tuple[str, int], *, answer: str, start: float, client_port: int = 50100,
            syns: int = 1) -> TcpConversation:
    return TcpConversation((CLIENT, client_port), server, start=start).handshake(answer=answer, syns=syns)


def test_each_listener_shows_the_broker_list_it_advertised(analyse):
    """The seed's BOB/FRED case: the same broker advertises kafka0:29092 on one port, localhost:9092 on the other."""
    bob = bootstrap_session(29092, [Broker(0, "kafka0", 29092)])
    fred = bootstrap_session(9092, [Broker(0, "localhost", 9092)], client_port=50001, start=1_700_000_001.0)
    summary = analyse(bob.packets + fred.packets).summary
    assert [(v.port, v.servers, [(b.node_id, b.host, b.port) for b in v.brokers]) for v in summary.listeners] == [
        (29092, ("203.0.113.5:29092",), [(0, "kafka0", 29092)]),
        (9092, ("203.0.113.5:9092",), [(0, "localhost", 9092)]),
    ]
    assert summary.bootstrap == ("203.0.113.5:29092", "203.0.113.5:9092")
    [client] = summary.clients
    assert (client.address, client.connections, client.client_ids) == (CLIENT, 2, ("rdkafka",))


def test_loopback_advertised_to_a_remote_client_is_advertised_loopback(analyse):
    summary = analyse(bootstrap_session(9092, [Broker(1, "localhost", 9092)]).packets).summary
    [finding] = summary.findings
    assert (finding.id, finding.severity) == ("ADVERTISED_LOOPBACK", "error")
    assert finding.title == "Broker 1 advertises localhost:9092, but this client reached the cluster at 203.0.113.5:9092"
    assert finding.evidence["capture"] == {"client": f"{CLIENT}:50000", "server": "203.0.113.5:9092", "packet": 10}
    assert "advertised.listeners=" in finding.fix


def test_loopback_advertised_to_a_loopback_client_is_fine(analyse):
    conversation = TcpConversation(("127.0.0.1", 50000), ("127.0.0.1", 9092)).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, [Broker(1, "127.0.0.1", 9092)]))
    assert analyse(conversation.packets).summary.findings == ()


def test_syns_to_an_advertised_address_without_answer_are_advertised_unreachable(analyse):
    bootstrap = bootstrap_session(9092, [Broker(1, "203.0.113.5", 9092), Broker(2, "10.1.2.3", 9092)])
    to_broker_1 = attempt(("203.0.113.5", 9092), answer="syn_ack", start=1_700_000_002.0)
    to_broker_2 = attempt(("10.1.2.3", 9092), answer="none", syns=3, start=1_700_000_002.5, client_port=50101)
    summary = analyse(bootstrap.packets + to_broker_1.packets + to_broker_2.packets).summary
    assert [(a.server, a.node_ids, a.handshake, a.syn_packets, a.matched_by) for a in summary.advertised_connections] == [
        ("203.0.113.5:9092", (1,), "completed", 1, "address"),
        ("10.1.2.3:9092", (2,), "no_answer", 3, "address"),
    ]
    [finding] = summary.findings
    assert finding.id == "ADVERTISED_UNREACHABLE"
    assert finding.title == "Broker 2 advertises 10.1.2.3:9092, a private address this machine cannot reach"
    assert finding.evidence["tcp_status"] == "timeout"


def test_refused_connection_to_an_advertised_name_is_matched_by_port(analyse):
    bootstrap = bootstrap_session(9092, [Broker(1, "kafka-1.internal", 19092)])
    refused = attempt(("10.9.9.9", 19092), answer="rst", start=1_700_000_003.0)
    summary = analyse(bootstrap.packets + refused.packets).summary
    [connection] = summary.advertised_connections
    assert (connection.advertised, connection.handshake, connection.matched_by) == (
        "kafka-1.internal:19092", "refused", "port")
    assert summary.findings == ()  # a name's address is not in the capture: no claim about it
    assert "handshake refused after 1 SYN(s)  (matched by port: the name's address is not in the capture)" \
        in render_text(summary)


def test_resolutions_from_the_same_run_match_names_by_address(analyse):
    bootstrap = bootstrap_session(9092, [Broker(1, "kafka-1.internal", 19092)])
    refused = attempt(("10.9.9.9", 19092), answer="rst", start=1_700_000_003.0)
    result = analyse(bootstrap.packets + refused.packets)
    from kdiag.capture.timeline import summarize

    summary = summarize(result.analyzer, source="live", resolutions={"kafka-1.internal": ["10.9.9.9"]})
    assert summary.advertised_connections[0].matched_by == "address"
    assert [f.id for f in summary.findings] == ["ADVERTISED_UNREACHABLE"]


def test_unreachable_coordinator_is_coordinator_unreachable(analyse):
    conversation = TcpConversation((CLIENT, 50000), ("203.0.113.5", 9092)).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, [Broker(1, "203.0.113.5", 9092), Broker(2, "203.0.113.6", 9092)]))
    conversation.client(encode_request(FindCoordinatorRequest("orders-app", version=2), correlation_id=3))
    conversation.server(find_coordinator_response(3, 2, "203.0.113.6", 9093))
    to_coordinator = attempt(("203.0.113.6", 9093), answer="rst", start=1_700_000_002.0)
    summary = analyse(conversation.packets + to_coordinator.packets).summary
    [finding] = summary.findings
    assert finding.id == "COORDINATOR_UNREACHABLE"
    assert finding.title.startswith("The consumer-group coordinator for orders-app (broker 2 at 203.0.113.6:9093)")


def test_error_codes_in_decoded_responses_are_counted(analyse):
    summary = analyse(bootstrap_session(9092, BROKERS, topics=[("missing", 3, 0), ("ok", 0, 1)]).packets).summary
    assert [(e.api, e.error, e.code, e.count, e.subject) for e in summary.errors] == [
        ("Metadata v9", "UNKNOWN_TOPIC_OR_PARTITION", 3, 1, "missing")]


def test_connection_refused_to_the_bootstrap_is_listed(analyse):
    refused = TcpConversation((CLIENT, 50000), ("203.0.113.5", 9092)).handshake(answer="rst")
    summary = analyse(refused.packets).summary
    [flow] = summary.flows
    assert (flow.handshake, flow.syn_packets, flow.reset_by) == ("refused", 1, "server")
    assert "Connections that never completed:\n  198.51.100.7:50000 > 203.0.113.5:9092  refused (1 SYN)" \
        in render_text(summary)


def test_timeline_marks_hosts_the_same_run_found_unusable(analyse):
    conversation = bootstrap_session(9092, BROKERS)
    summary = analyse(conversation.packets[:11], statuses={("kafka-1.internal", 19092): "nxdomain",
                                                          ("kafka-2.internal", 19092): "ok"}).summary
    assert render_timeline(summary) == [
        f"22:13:20.000100 {CLIENT}:50000 > 203.0.113.5:9092: Flags [S]",
        f"22:13:20.000200 203.0.113.5:9092 > {CLIENT}:50000: Flags [S.]",
        f"22:13:20.000400 {CLIENT}:50000 > 203.0.113.5:9092: ApiVersions v3 request correlation_id=1 "
        "client_id=rdkafka software=kdiag/0.1.0",
        f"22:13:20.000600 203.0.113.5:9092 > {CLIENT}:50000: ApiVersions v3 response correlation_id=1 (0.2 ms)",
        f"22:13:20.000800 {CLIENT}:50000 > 203.0.113.5:9092: Metadata v9 request correlation_id=2 client_id=rdkafka "
        "topics=all",
        f"22:13:20.001000 203.0.113.5:9092 > {CLIENT}:50000: Metadata v9 response correlation_id=2 (0.2 ms)",
        "    cluster_id MkU3OEVBNTcwNTJENDM2Qg, controller 1, 2 brokers",
        "      node 1  kafka-1.internal:19092  rack rack-a  [nxdomain]",
        "      node 2  kafka-2.internal:19092  rack -",
    ]


def test_text_summary_of_a_healthy_capture(analyse):
    summary = analyse(bootstrap_session(9092, [Broker(1, "203.0.113.5", 9092)]).packets).summary
    text = render_text(summary)
    summary_part = text.split("\n\n", 1)[1]
    assert summary_part == (
        f"{summary.source}: 14 packets, 14 TCP, 1 Kafka connections, 1 Metadata responses decoded\n"
        "\nClients:\n"
        f"  {CLIENT}  1 connection(s)  client_id rdkafka\n"
        "Bootstrap endpoints: 203.0.113.5:9092\n"
        "\nAdvertised brokers, per listener (the server port the client connected on):\n"
        "  port 9092 via 203.0.113.5:9092  (1 response(s), cluster_id MkU3OEVBNTcwNTJENDM2Qg, controller 1)\n"
        "    node 1  203.0.113.5:9092  rack -\n"
        "\nNo problems seen in the captured traffic.\n")


def test_markdown_has_the_broker_table_and_the_findings(analyse):
    summary = analyse(bootstrap_session(9092, [Broker(1, "localhost", 9092)]).packets).summary
    markdown = render_markdown(summary)
    assert "| 9092 | 203.0.113.5:9092 | 1 | `localhost:9092` | - |" in markdown
    assert "#### ❌ ADVERTISED_LOOPBACK — " in markdown  # the finding layout every command shares
    assert "No problems seen" not in markdown


def test_json_has_the_contract_shape_and_round_trips(analyse):
    summary = analyse(bootstrap_session(9092, BROKERS).packets).summary
    document = json.loads(json.dumps(summary_to_dict(summary)))
    assert list(document)[:8] == ["schema", "source", "packets", "tcp_packets", "flows", "metadata", "findings",
                                  "warnings"]
    assert document["schema"] == "kdiag.pcap/1"
    [metadata] = document["metadata"]
    assert {k: metadata[k] for k in ("client", "server", "api_version", "cluster_id", "controller_id")} == {
        "client": f"{CLIENT}:50000", "server": "203.0.113.5:9092", "api_version": 9,
        "cluster_id": "MkU3OEVBNTcwNTJENDM2Qg", "controller_id": 1}
    assert metadata["brokers"] == [{"node_id": 1, "host": "kafka-1.internal", "port": 19092, "rack": "rack-a"},
                                   {"node_id": 2, "host": "kafka-2.internal", "port": 19092, "rack": None}]
    assert from_json(CaptureSummary, document) == summary


def test_only_flows_that_matter_are_listed(analyse):
    kafka = bootstrap_session(9092, [Broker(1, "203.0.113.5", 9092)])
    https = TcpConversation((CLIENT, 50200), ("192.0.2.80", 443)).handshake()
    https.client(bytes.fromhex("16 03 01 00 05 01 00 00 01 00"))
    https.server(bytes.fromhex("16 03 03 00 05 02 00 00 01 00"))
    summary = analyse(kafka.packets + https.packets).summary
    assert [f.server for f in summary.flows] == ["203.0.113.5:9092"]
    assert summary.other_flows == 1


def test_no_kafka_at_all_lists_every_flow(analyse):
    https = TcpConversation((CLIENT, 50200), ("192.0.2.80", 8443)).handshake()
    https.client(bytes.fromhex("16 03 01 00 05 01 00 00 01 00"))
    https.server(bytes.fromhex("16 03 03 00 05 02 00 00 01 00"))
    summary = analyse(https.packets).summary
    assert [(f.server, f.protocol) for f in summary.flows] == [("192.0.2.80:8443", "tls")]


def test_syn_retransmissions_and_resets_appear_in_the_timeline(analyse):
    bootstrap = bootstrap_session(9092, [Broker(1, "10.1.2.3", 9092)])
    silent = attempt(("10.1.2.3", 9092), answer="none", syns=2, start=1_700_000_002.0)
    reset = TcpConversation((CLIENT, 50300), ("203.0.113.5", 9092), start=1_700_000_003.0)
    reset._packet(True, SYN)  # noqa: SLF001
    reset._packet(False, RST | ACK, seq=0)  # noqa: SLF001
    lines = render_timeline(analyse(bootstrap.packets + silent.packets + reset.packets).summary)
    assert [line.split(": ", 1)[1] for line in lines[-4:]] == [
        "Flags [S]", "Flags [S] retransmission 1", "Flags [S]", "Flags [R]"]


def test_live_scope_keeps_the_runs_endpoints_and_what_they_advertised(analyse):
    from kdiag.capture.timeline import summarize

    bootstrap = bootstrap_session(9092, [Broker(1, "203.0.113.5", 19092)])
    to_broker = attempt(("203.0.113.5", 19092), answer="syn_ack", start=1_700_000_002.0)
    controller = bootstrap_session(9093, [Broker(7, "203.0.113.9", 9093)], client_port=50500,
                                   start=1_700_000_003.0)  # the lab broker's own traffic
    result = analyse(bootstrap.packets + to_broker.packets + controller.packets)
    summary = summarize(result.analyzer, source="live", scope_ports=[9092])
    assert [f.server for f in summary.flows] == ["203.0.113.5:9092", "203.0.113.5:19092"]
    assert [md.server for md in summary.metadata] == ["203.0.113.5:9092"]
    assert summary.other_flows == 1
    assert all(event.dst != "203.0.113.5:9093" and event.src != "203.0.113.5:9093" for event in summary.timeline)
    assert [e.metadata for e in summary.timeline if e.metadata is not None] == [0]


def test_timeline_is_in_packet_order_when_detection_dates_frames_after_the_fact(analyse):
    first = bootstrap_session(31000, BROKERS)
    second = bootstrap_session(31001, BROKERS, client_port=50001, start=1_700_000_000.00005)
    merged = sorted(first.packets + second.packets, key=lambda packet: packet[0])
    timeline = analyse(merged).summary.timeline
    assert [e.packet for e in timeline] == sorted(e.packet for e in timeline)
    assert len([e for e in timeline if e.kind == "request"]) == 4


def test_a_version_newer_than_the_codec_is_one_warning_not_one_per_frame(analyse):
    conversation = TcpConversation((CLIENT, 50000), ("203.0.113.5", 9092)).handshake()
    for correlation_id in (2, 3):
        conversation.client(metadata_request(correlation_id, 9)[:6] + b"\x00\x0e" + metadata_request(correlation_id, 9)[8:])
        conversation.server(metadata_response(correlation_id, BROKERS))
    summary = analyse(conversation.packets).summary
    assert [w.message for w in summary.warnings] == [
        "Metadata v14 responses are not decoded: kdiag decodes Metadata v0-v13"]
    assert summary.metadata == ()
