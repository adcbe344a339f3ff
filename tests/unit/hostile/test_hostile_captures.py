"""Crafted pcapng files (issue 11, item 2): any bytes give a clean result or one line, exit 1 or 2.

Each test is named after the attack it replays; they go through the real ``kdiag pcap`` entry point.
"""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

from kdiag import cli
from kdiag.capture.model import iso_time
from kdiag.capture.pcapio import CaptureReader, PcapngWriter, build_tcp

SEGMENT = build_tcp("192.0.2.10", "192.0.2.1", 50000, 9092, payload=b"kafka")


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = cli.main(list(args), env=cli.Environment(stdout=stdout, stderr=stderr))
    return status, stdout.getvalue(), stderr.getvalue()


def block(block_type: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", block_type, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def pcapng(*blocks: bytes, interface: bool = True) -> bytes:
    out = io.BytesIO()
    writer = PcapngWriter(out)
    if interface:
        writer.add_interface(1)
    return out.getvalue() + b"".join(blocks)


def pcap_json(tmp_path: Path, data: bytes) -> tuple[int, dict, str]:
    path = tmp_path / "crafted.pcapng"
    path.write_bytes(data)
    status, stdout, stderr = run("pcap", str(path), "--json")
    assert "Traceback" not in stderr
    assert status in (0, 1), stderr
    return status, json.loads(stdout), stderr


def test_truncated_enhanced_packet_block_at_the_end_of_the_file_is_a_warning_not_a_struct_error(tmp_path):
    # an EPB whose length (12) leaves no room for its 20 bytes of fields, the last thing in the file
    _, document, _ = pcap_json(tmp_path, pcapng(struct.pack("<III", 6, 12, 12)))
    assert any("too short" in w["message"] for w in document["warnings"])


def test_truncated_simple_and_obsolete_packet_blocks_are_skipped(tmp_path):
    for block_type in (2, 3):
        reader = CaptureReader(io.BytesIO(pcapng(struct.pack("<III", block_type, 12, 12))))
        assert list(reader) == []
        assert any("too short" in message for _, message in reader.warnings)


def test_truncated_interface_description_block_is_skipped(tmp_path):
    reader = CaptureReader(io.BytesIO(pcapng(struct.pack("<III", 1, 12, 12), interface=False)))
    assert list(reader) == []
    assert reader.warnings


def test_interface_option_running_past_its_block_is_ignored_not_a_struct_error():
    # if_tsoffset (code 14) claiming 8 bytes with none left in the block
    idb = struct.pack("<HHI", 1, 0, 65535) + struct.pack("<HH", 14, 8)
    reader = CaptureReader(io.BytesIO(pcapng(block(1, idb), interface=False)))
    assert list(reader) == []


def test_timestamp_beyond_any_calendar_date_is_said_not_raised(tmp_path):
    out = io.BytesIO()
    writer = PcapngWriter(out)
    writer.add_interface(1)
    body = struct.pack("<IIIII", 0, 0xFFFFFFFF, 0xFFFFFFFF, len(SEGMENT), len(SEGMENT)) + SEGMENT
    _, document, _ = pcap_json(tmp_path, out.getvalue() + block(6, body))
    assert document["flows"] and document["flows"][0]["time"].startswith("out-of-range time")


def test_timestamp_offset_before_year_one_is_said_not_raised(tmp_path):
    idb = struct.pack("<HHI", 1, 0, 65535) + struct.pack("<HHq", 14, 8, -(2 ** 62)) + struct.pack("<HH", 0, 0)
    body = struct.pack("<IIIII", 0, 0, 1, len(SEGMENT), len(SEGMENT)) + SEGMENT
    _, document, _ = pcap_json(tmp_path, pcapng(block(1, idb), block(6, body), interface=False))
    assert document["flows"][0]["time"].startswith("out-of-range time")


def test_iso_time_of_huge_negative_and_infinite_times_is_text():
    for value in (1e300, -1e300, float("inf"), float("nan"), 2.0 ** 64):
        assert iso_time(value).startswith("out-of-range time")
    assert iso_time(0.0) == "1970-01-01T00:00:00.000000Z"


def test_captured_metadata_with_100000_brokers_and_a_1mb_host_name_is_capped_and_cut(tmp_path):
    from kdiag.capture.synthetic import Broker, TcpConversation, metadata_request, metadata_response, write_pcap

    brokers = [Broker(1, "h" * 1_000_000, 9092)] + [Broker(i, "203.0.113.5", 9092) for i in range(2, 100_001)]
    conversation = TcpConversation(("198.51.100.7", 50000), ("203.0.113.5", 9092)).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, brokers))
    path = tmp_path / "big.pcap"
    write_pcap(str(path), conversation.packets)
    status, stdout, stderr = run("pcap", str(path), "--json")
    assert status in (0, 1) and "Traceback" not in stderr, stderr
    metadata = json.loads(stdout)["metadata"][0]
    assert len(metadata["brokers"]) == 128 and metadata["brokers_omitted"] == 100_000 - 128
    assert metadata["brokers"][0]["host"].endswith("…[+999745 chars]")
    assert len(stdout) < 1_000_000
