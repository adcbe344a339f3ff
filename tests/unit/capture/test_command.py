"""``kdiag pcap`` through the real entry point: exit status, stderr, the kdiag.pcap/1 document."""

from __future__ import annotations

import io
import json
from pathlib import Path

from kdiag import cli
from kdiag.capture.session import broker_statuses
from kdiag.capture.synthetic import Broker, TcpConversation, metadata_request, metadata_response, write_pcap
from kdiag.exitstatus import ExitStatus
from kdiag.report import BrokerReport, Cluster, CoordinatorReport, Endpoint, Report
from probes.results import DnsResult, KafkaCheck, TcpResult


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = cli.main(list(args), env=cli.Environment(stdout=stdout, stderr=stderr))
    return status, stdout.getvalue(), stderr.getvalue()


def capture(tmp_path: Path, brokers, name: str = "kafka.pcap") -> str:
    conversation = TcpConversation(("198.51.100.7", 50000), ("203.0.113.5", 9092)).handshake()
    conversation.client(metadata_request(2))
    conversation.server(metadata_response(2, brokers))
    path = tmp_path / name
    write_pcap(str(path), conversation.packets)
    return str(path)


def test_healthy_capture_exits_0_with_the_json_document(tmp_path):
    status, stdout, stderr = run("pcap", capture(tmp_path, [Broker(1, "203.0.113.5", 9092)]), "--json")
    assert (status, stderr) == (ExitStatus.OK, "")
    document = json.loads(stdout)
    assert document["schema"] == "kdiag.pcap/1"
    assert {"flows", "metadata", "findings", "warnings"} <= set(document)
    assert document["metadata"][0]["brokers"] == [{"node_id": 1, "host": "203.0.113.5", "port": 9092, "rack": None}]
    assert document["timeline"] == []  # --json keeps no timeline: a multi-GB capture stays small


def test_capture_with_findings_exits_1_and_prints_the_timeline(tmp_path):
    status, stdout, _ = run("pcap", capture(tmp_path, [Broker(1, "localhost", 9092)]))
    assert status == ExitStatus.PROBLEMS
    assert "Metadata v9 response correlation_id=2" in stdout
    assert "      node 1  localhost:9092  rack -" in stdout
    assert "ERROR ADVERTISED_LOOPBACK" in stdout


def test_markdown_format(tmp_path):
    status, stdout, _ = run("pcap", capture(tmp_path, [Broker(1, "203.0.113.5", 9092)]), "--format", "markdown")
    assert status == ExitStatus.OK and stdout.startswith("## kdiag pcap: ")


def test_file_that_is_not_a_capture_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("broker 1 at localhost:9092\n")
    status, stdout, stderr = run("pcap", str(path))
    assert (status, stdout) == (ExitStatus.USAGE, "")
    assert stderr == (f"kdiag: error: {path}: not a pcap or pcapng capture (starts with 'broker 1 at loca', "
                      "magic 62726f6b)\n")


def test_missing_file_is_one_line_and_exit_2(tmp_path):
    status, _, stderr = run("pcap", str(tmp_path / "nope.pcap"))
    assert status == ExitStatus.USAGE
    assert stderr == f"kdiag: error: cannot read {tmp_path / 'nope.pcap'}: No such file or directory\n"


def test_bad_port_is_one_line_and_exit_2(tmp_path):
    status, _, stderr = run("pcap", capture(tmp_path, []), "--port", "70000")
    assert (status, stderr) == (ExitStatus.USAGE, "kdiag: error: --port 70000 is not a TCP port (1-65535)\n")


def test_truncated_capture_still_decodes_what_it_holds_and_warns(tmp_path):
    path = capture(tmp_path, [Broker(1, "203.0.113.5", 9092)])
    data = Path(path).read_bytes()
    Path(path).write_bytes(data + data[24:60])  # a partial extra record at the end
    status, stdout, _ = run("pcap", path, "--json")
    document = json.loads(stdout)
    assert status == ExitStatus.OK
    assert len(document["metadata"]) == 1
    assert document["warnings"][0]["packet"] == 8
    assert document["warnings"][0]["message"].startswith("the capture is truncated: packet 8")


def test_broker_statuses_name_the_first_failing_stage_of_each_broker():
    report = Report(bootstrap=(Endpoint("b", 9092),), cluster=Cluster(brokers=(
        BrokerReport(1, "kafka-1.internal", 9092, dns=DnsResult("kafka-1.internal", "nxdomain")),
        BrokerReport(2, "10.0.0.2", 9092, dns=DnsResult("10.0.0.2", "ok"), tcp=TcpResult("timeout")),
        BrokerReport(3, "10.0.0.3", 9092, dns=DnsResult("10.0.0.3", "ok"), tcp=TcpResult("ok"),
                     kafka=KafkaCheck("ok")),
    ), coordinator=CoordinatorReport("g", 3, "10.0.0.3", 9093, tcp=TcpResult("refused"))))
    assert broker_statuses(report) == {("kafka-1.internal", 9092): "nxdomain", ("10.0.0.2", 9092): "timeout",
                                       ("10.0.0.3", 9092): "ok", ("10.0.0.3", 9093): "refused"}
