"""The fuzz targets: every decoder and parser that reads outside input, each as ``target(data: bytes)``.

A target feeds ``data`` to one decoder the way kdiag does and returns normally or raises the one error
type that decoder documents for bad input (``ALLOWED``): any other exception is a finding. The same
functions serve the short hypothesis properties of the normal test suite (``tests/unit/fuzz``) and the
million-input coverage-guided runs of ``bench/fuzz/run.py`` (atheris), so both prove one thing.

| target          | what it reads                                                    | allowed error       |
|-----------------|------------------------------------------------------------------|---------------------|
| codec           | a broker's bytes: framing, every response (api, version), requests | MalformedFrame    |
| pcap            | a capture file: pcap records, pcapng blocks and options, link/IP/TCP | CaptureError      |
| flows           | the same, then TCP reassembly, Kafka per flow, findings, summary  | CaptureError       |
| explain         | a pasted log: line splitting, the patterns, secrets                | (none)            |
| report          | a report for diff and the fleet: JSON, the schema, the diff, its views | ReportFormatError, UsageError |
| report_loader   | the same report decoder alone (JSON, schema, Report and back), fast  | ReportFormatError  |
| client_settings | a client.properties and -X values                                 | UsageError         |

Seeds (valid inputs the mutations start from) are built here from kdiag's own encoders, so they stay
valid as the formats grow.
"""

from __future__ import annotations

import functools
import io
import json
import random
from collections.abc import Callable

from kdiag.exitstatus import UsageError
from kdiag.jsonform import ReportFormatError

MAX_INPUT = 1 << 16


# --- codec ------------------------------------------------------------------------------------------


def codec(data: bytes) -> None:
    """Bytes as a broker's answer: the first two bytes choose the (api, version), the rest is the frame;
    then the whole input through the framing and the client protocol in uneven reads."""
    from probes.codec import SPECS, FrameBuffer, KafkaClientProtocol, MalformedFrame, decode_request, decode_response
    from probes.codec.messages import ApiVersionsRequest, MetadataRequest

    specs = _specs()
    if len(data) >= 2:
        api_key, version = specs[data[0] % len(specs)], data[1]
        spec = SPECS[api_key]
        version = spec.min_version + version % (spec.max_version - spec.min_version + 1)
        try:
            decode_response(data[2:], api_key=api_key, api_version=version)
        except MalformedFrame:
            pass
    try:
        decode_request(data)
    except MalformedFrame:
        pass
    buffer = FrameBuffer(max_frame_size=1 << 16)
    protocol = KafkaClientProtocol(max_frame_size=1 << 16)
    protocol.send_request(ApiVersionsRequest(version=3, client_software_version="0"))
    protocol.send_request(MetadataRequest(version=12, topics=None))
    step = (data[0] % 64 + 1) if data else 1
    for start in range(0, len(data), step):
        chunk = data[start:start + step]
        try:
            buffer.feed(chunk)
        except MalformedFrame:
            break
    try:
        protocol.receive_bytes(data)
        protocol.receive_bytes(b"")
    except MalformedFrame:
        pass


@functools.cache
def _specs() -> list[int]:
    from probes.codec import SPECS

    return sorted(SPECS)


def codec_seeds() -> list[bytes]:
    """One valid response frame per (api, version), prefixed with the two selector bytes."""
    from kdiag.capture.synthetic import Broker, api_versions_response, metadata_response

    seeds = []
    specs = _specs()
    metadata, api_versions = 3, 18
    for version in range(0, 13):
        frame = metadata_response(7, [Broker(1, "broker-1.example.com", 9092), Broker(2, "198.51.100.2", 9093)],
                                  version=version) if version >= 1 else None
        if frame is not None:
            seeds.append(bytes([specs.index(metadata), version]) + frame[4:])
    for version in range(0, 4):
        seeds.append(bytes([specs.index(api_versions), version]) + api_versions_response(7, version=version)[4:])
    return seeds


# --- pcap -------------------------------------------------------------------------------------------


def pcap(data: bytes) -> None:
    """Bytes as a capture file, through the reader (pcap records, pcapng blocks and their options) and
    the link/IP/TCP parser of every packet."""
    from kdiag.capture.pcapio import CaptureError, CaptureReader, parse_tcp

    try:
        reader = CaptureReader(io.BytesIO(data), name="fuzz")
    except CaptureError:
        return
    for _number, _timestamp, linktype, frame in reader:
        parse_tcp(linktype, frame)


def flows(data: bytes) -> None:
    """Bytes as a capture file, all the way: reader, TCP reassembly, Kafka framing and decoding per
    flow, findings and the kdiag.pcap/1 summary (slower per input: a shorter run than the reader's)."""
    from kdiag.capture.flows import CaptureAnalyzer
    from kdiag.capture.model import summary_to_dict
    from kdiag.capture.pcapio import CaptureError, CaptureReader
    from kdiag.capture.timeline import summarize

    try:
        reader = CaptureReader(io.BytesIO(data), name="fuzz")
    except CaptureError:
        return
    analyzer = CaptureAnalyzer(keep_events=100)
    analyzer.feed_packets(reader)
    analyzer.finish()
    json.dumps(summary_to_dict(summarize(analyzer, source="fuzz", warnings=[])))


def pcap_seeds() -> list[bytes]:
    from kdiag.capture.pcapio import LINKTYPE_LINUX_SLL, PcapngWriter, PcapWriter
    from kdiag.capture.synthetic import Broker, TcpConversation, metadata_request, metadata_response

    conversation = TcpConversation(("198.51.100.7", 50000), ("203.0.113.5", 9092)).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, [Broker(1, "203.0.113.5", 9092), Broker(2, "kafka-2", 9092)]))
    seeds = []
    out = io.BytesIO()
    writer = PcapWriter(out)
    for timestamp, frame in conversation.packets:
        writer.write(timestamp, frame)
    seeds.append(out.getvalue())
    out = io.BytesIO()
    writer_ng = PcapngWriter(out)
    writer_ng.add_interface(1, tsresol=9)
    writer_ng.add_interface(LINKTYPE_LINUX_SLL)
    for timestamp, frame in conversation.packets:
        writer_ng.write(0, timestamp, frame)
    writer_ng.write_simple(conversation.packets[0][1])
    seeds.append(out.getvalue())
    return seeds


# --- explain ----------------------------------------------------------------------------------------


def explain(data: bytes) -> None:
    """Bytes as a pasted log, through the line reader (short lines, small blocks, to reach the edges)
    and every pattern; and the first line as TEXT on the command line."""
    from kdiag.explain.engine import explain as explain_blocks
    from kdiag.explain.engine import explanation_to_dict
    from kdiag.explain.reader import read_blocks
    from kdiag.secrets import Secrets

    explanation = explain_blocks(read_blocks(io.BytesIO(data), max_line=512, block_size=257))
    json.dumps(explanation_to_dict(explanation))
    secrets = Secrets()
    line = data[:512].decode("utf-8", "replace")
    secrets.learn(line)
    secrets.scrub(line)


def explain_seeds() -> list[bytes]:
    from pathlib import Path

    logs = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "client_logs"
    seeds = [path.read_bytes()[:768] for path in sorted(logs.glob("*.log"))[:12]]  # short: a million of them
    seeds.append(b"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                 b'username="bob" password="hunter2";\nsasl.password hunter2\n--password hunter2 x\n')
    return seeds


# --- report (kdiag diff, the fleet) -----------------------------------------------------------------


def report(data: bytes) -> None:
    """Bytes as a report file: the bounded JSON, the schema check, then a diff against a real report
    rendered in every format. Structure-aware too: the first byte chooses raw bytes or a mutation of a
    real report (a value replaced at a path the next bytes choose), since random bytes are rarely JSON."""
    from kdiag.diff import diff_reports, diff_to_dict
    from kdiag.render import Format
    from kdiag.render.diff import render_diff

    loaded = _loaded_report(data)
    if loaded is None:
        return
    base = _base_report()
    for a, b in ((loaded, base), (base, loaded)):
        diff = diff_reports(a, b)
        json.dumps(diff_to_dict(diff))
        for fmt in (Format.TEXT, Format.MARKDOWN):
            render_diff(diff, fmt)


_JSON_VALUES: tuple[object, ...] = (None, True, 0, -1, 2 ** 31, 1.5, "", "x", "\x1b[31m", [], {}, [1], {"a": 1},
                                    ["x"], [None], {"node_id": [1]}, "ok", "fail", 10 ** 19)


def _mutated_report(data: bytes) -> object:
    document = json.loads(json.dumps(_base_document()))
    rng = random.Random(data)
    paths = _base_paths()
    for _ in range(1 + data[0] % 4):
        path = paths[rng.randrange(len(paths))]
        value = json.loads(json.dumps(_JSON_VALUES[rng.randrange(len(_JSON_VALUES))]))  # a copy: no shared lists
        if not path:
            return value
        parent = document
        try:
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = value
        except (KeyError, IndexError, TypeError):  # an earlier mutation replaced what this path went through
            continue
    return document


@functools.cache
def _base_paths() -> list[tuple]:
    """The real report's paths, enumerated once: re-walking the document for every input cost half the time."""
    return list(_paths(_base_document()))


def _paths(value: object, prefix: tuple = ()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, prefix + (index,))


@functools.cache
def _base_document() -> dict:
    from kdiag.report import report_to_dict

    return report_to_dict(_base_report())


@functools.cache
def _base_report():
    from kdiag.diagnose import diagnose
    from tests.unit.diagnose.builders import broker, cluster_report, unresolvable

    report = cluster_report("ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092", ["54.191.84.122"],
                            [unresolvable(1, "ip-172-31-18-160.us-west-2.compute.internal"),
                             broker(2, "kafka-2.example.com", address="198.51.100.2")])
    return report.with_findings(diagnose(report))


def report_loader(data: bytes) -> None:
    """The decoder alone, at a million-input pace: bytes (or a mutated real report) through the bounded
    JSON and the schema check into a Report and back to its dict; ``report`` adds the diff and its views."""
    from kdiag.report import report_to_dict

    loaded = _loaded_report(data)
    if loaded is not None:
        report_to_dict(loaded)


def _loaded_report(data: bytes):  # type: ignore[no-untyped-def]
    """The Report the bytes decode to, or None for the decoder's one error (ReportFormatError). Raw bytes
    when they look like JSON, else a mutation of a real report; either way through the same bounded JSON
    as a file goes (kdiag.inputfile.load_report)."""
    from kdiag.jsonform import loads
    from kdiag.report import report_from_dict

    try:
        return report_from_dict(loads(data if data[:1] == b"{" or not data else json.dumps(_mutated_report(data))))
    except ReportFormatError:
        return None


def report_seeds() -> list[bytes]:
    return [json.dumps(_base_document()).encode(), b"\x00", b"\x01\x02", b"\x03" * 8]


# --- client settings --------------------------------------------------------------------------------


def client_settings(data: bytes) -> None:
    """Bytes as a client.properties (UTF-8 or Latin-1, as read_command_config decodes), and each line as
    an -X argument."""
    from kdiag.clientconfig import from_java_properties, parse_java_properties, parse_x_option

    text = data.decode("utf-8", "replace")
    try:
        settings = from_java_properties(parse_java_properties(text))
        settings.redacted()
        settings.scrub(text)
    except UsageError:
        pass
    for line in text.splitlines()[:8]:
        try:
            parse_x_option(line)
        except UsageError:
            pass


def client_settings_seeds() -> list[bytes]:
    return [b"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security."
            b'plain.PlainLoginModule required username="bob" password="hunter2";\nssl.truststore.type=PEM\n',
            b"bootstrap.servers : a:9092\\\n  ,b:9092\nsasl.password hunter2\n# comment\n! other\nkey\\u0041=v\n"]


TARGETS: dict[str, tuple[Callable[[bytes], None], Callable[[], list[bytes]]]] = {
    "codec": (codec, codec_seeds),
    "pcap": (pcap, pcap_seeds),
    "flows": (flows, pcap_seeds),
    "explain": (explain, explain_seeds),
    "report": (report, report_seeds),
    "report_loader": (report_loader, report_seeds),
    "client_settings": (client_settings, client_settings_seeds),
}
"""name -> (target, seeds)."""
