"""``kdiag diff``: two reports of one cluster from two places, built with the dataclasses, no network."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from kdiag.cli import Environment, main
from kdiag.diagnose import diagnose
from kdiag.diff import KINDS, diff_reports, diff_to_dict
from kdiag.render.diff import render_diff
from kdiag.exitstatus import ExitStatus
from kdiag.render import Format
from kdiag.report import Report, Vantage, report_to_json
from probes.results import TcpResult
from tests.unit.diagnose.builders import CLUSTER_ID, broker, cluster_report, unresolvable

EC2 = "ip-172-31-18-160.us-west-2.compute.internal"
EC2_PUBLIC = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092"
INSIDE = Vantage("ip-172-31-18-160", ("172.31.18.160",))
LAPTOP = Vantage("laptop", ("192.0.2.10",))


def diagnosed(report: Report) -> Report:
    return report.with_findings(diagnose(report))


def inside_vpc() -> Report:
    return diagnosed(cluster_report(EC2_PUBLIC, ["172.31.18.160"], [broker(1, EC2, address="172.31.18.160")],
                                    vantage=INSIDE))


def from_laptop() -> Report:
    return diagnosed(cluster_report(EC2_PUBLIC, ["54.191.84.122"], [unresolvable(1, EC2)], vantage=LAPTOP))


def kinds(diff) -> list[tuple[str, str]]:
    return [(d.kind, d.subject) for d in diff.differences]


def test_the_same_report_twice_has_no_differences():
    report = inside_vpc()
    diff = diff_reports(report, report)
    assert diff.same_cluster is True and diff.differences == () and diff.findings == ()
    assert "No differences" in render_diff(diff, Format.TEXT)


def test_the_seeds_it_works_on_the_broker_machine_but_not_from_my_laptop():
    diff = diff_reports(inside_vpc(), from_laptop())
    assert diff.same_cluster is True
    assert ("dns", f"broker 1 {EC2}") in kinds(diff)
    dns = next(d for d in diff.differences if d.subject == f"broker 1 {EC2}")
    assert (dns.a, dns.b) == ("ok (172.31.18.160)", "nxdomain")
    assert "resolves from A (ip-172-31-18-160) but not from B (laptop)" in dns.explanation
    assert ("stage", "roundtrip") in kinds(diff)
    assert [(side, f.id) for side, f in diff.findings] == [("b", "ADVERTISED_UNRESOLVABLE")]
    split = next(d for d in diff.differences if d.kind == "dns" and d.subject.startswith("bootstrap"))
    assert "split-horizon" in split.explanation  # the public name: the private IP inside, the public one outside


def test_a_port_open_from_one_side_only():
    closed = broker(2, "kafka-2.example.com", address="203.0.113.12")
    closed = replace(closed, tcp=TcpResult("timeout", "203.0.113.12", 9092, error="timed out"))
    a = diagnosed(cluster_report("kafka-1.example.com:9092", ["203.0.113.11"],
                                 [broker(1, "kafka-1.example.com"), broker(2, "kafka-2.example.com")], vantage=INSIDE))
    b = diagnosed(cluster_report("kafka-1.example.com:9092", ["203.0.113.11"],
                                 [broker(1, "kafka-1.example.com"), closed], vantage=LAPTOP))
    diff = diff_reports(a, b)
    tcp = next(d for d in diff.differences if d.kind == "tcp")
    assert (tcp.subject, tcp.a, tcp.b) == ("broker 2 kafka-2.example.com:9092", "ok", "timeout")
    assert "security group" in tcp.explanation


def test_different_advertised_addresses_for_one_node_are_a_different_listener_bob_and_fred():
    bob = diagnosed(cluster_report("kafka0:29092", ["192.0.2.20"], [broker(0, "kafka0", 29092, address="192.0.2.20")],
                                   vantage=Vantage("container", ("192.0.2.30",))))
    fred = diagnosed(cluster_report("localhost:9092", ["127.0.0.1"], [broker(0, "localhost", 9092,
                                                                             address="127.0.0.1")],
                                    vantage=Vantage("docker-host", ("192.0.2.1",))))
    diff = diff_reports(bob, fred)
    assert kinds(diff)[:2] == [("bootstrap", "bootstrap"), ("advertised", "broker 0")]
    advertised = diff.differences[1]
    assert (advertised.a, advertised.b) == ("kafka0:29092", "localhost:9092")
    assert "different listeners" in advertised.explanation


def test_different_clusters_are_said_first():
    other = replace(from_laptop(), cluster=replace(from_laptop().cluster, cluster_id="another-cluster"))
    diff = diff_reports(inside_vpc(), other)
    assert diff.same_cluster is False and diff.differences[0].kind == "cluster"


def test_a_side_that_never_reached_the_cluster_leaves_same_cluster_unknown():
    unreachable = replace(from_laptop(), cluster=None)
    diff = diff_reports(inside_vpc(), unreachable)
    assert diff.same_cluster is None
    assert all(d.kind in KINDS for d in diff.differences)


def test_json_document_shape():
    document = diff_to_dict(diff_reports(inside_vpc(), from_laptop(), a_file="a.json", b_file="b.json"))
    assert document["schema"] == "kdiag.diff/1"
    assert set(document) == {"schema", "a", "b", "same_cluster", "differences", "findings"}
    assert document["a"]["vantage"]["hostname"] == "ip-172-31-18-160" and document["a"]["file"] == "a.json"
    assert document["a"]["cluster_id"] == CLUSTER_ID
    assert all(set(d) == {"kind", "subject", "a", "b", "explanation"} for d in document["differences"])
    [finding] = document["findings"]
    assert finding["seen_from"] == "b" and finding["id"] == "ADVERTISED_UNRESOLVABLE"


def test_markdown_view():
    text = render_diff(diff_reports(inside_vpc(), from_laptop()), Format.MARKDOWN)
    assert text.startswith("## kdiag diff") and "| Kind | Subject | A | B |" in text
    assert "Only from B (laptop):" in text


# --- the command ------------------------------------------------------------------------------------


def kdiag(*args: str) -> tuple[int, str, str]:
    env = Environment(stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO())
    status = main(list(args), env=env)
    return status, env.stdout.getvalue(), env.stderr.getvalue()


@pytest.fixture
def reports(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "inside.json", tmp_path / "laptop.json"
    a.write_text(report_to_json(inside_vpc()))
    b.write_text(report_to_json(from_laptop()))
    return a, b


def test_command_exit_1_when_the_reports_differ_and_0_when_not(reports):
    a, b = reports
    status, out, err = kdiag("diff", str(a), str(b), "--json")
    assert status == ExitStatus.PROBLEMS, err
    assert json.loads(out)["b"]["file"] == str(b)
    status, out, err = kdiag("diff", str(a), str(a))
    assert status == ExitStatus.OK and "No differences" in out and err == ""


def test_command_warns_on_stderr_when_the_clusters_differ(tmp_path, reports):
    a, _ = reports
    other = tmp_path / "other.json"
    other.write_text(report_to_json(replace(inside_vpc(), cluster=replace(inside_vpc().cluster, cluster_id="x"))))
    status, _, err = kdiag("diff", str(a), str(other))
    assert status == 1 and err.startswith("kdiag: warning: ") and "different clusters" in err


@pytest.mark.parametrize("content, expected", [
    (None, "No such file or directory"),
    ("not json", "is not JSON"),
    ('{"schema": "kdiag.explain/1", "findings": []}', "schema is 'kdiag.explain/1'"),
    ('{"schema": "kdiag.report/1", "stages": [{"status": "ok"}]}', "stages[0] has no name"),
])
def test_a_bad_report_file_is_one_line_and_exit_2(tmp_path, reports, content, expected):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    status, out, err = kdiag("diff", str(reports[0]), str(bad))
    assert status == ExitStatus.USAGE and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("kdiag: error: ") and expected in err, err
    assert str(bad) in err
