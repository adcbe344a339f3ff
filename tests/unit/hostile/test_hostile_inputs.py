"""Stray files and crafted reports (issue 11, items 6 and 7), through the real entry point: one line
on stderr and exit 2, never a hang, a MemoryError or a traceback. Each test is named after the attack."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from kdiag.cli import Environment, main
from kdiag.report import report_to_json
from tests.unit.diagnose.builders import broker, cluster_report


def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
    env = Environment(stdin=io.StringIO(stdin), stdout=io.StringIO(), stderr=io.StringIO())
    status = main(list(args), env=env)
    return status, env.stdout.getvalue(), env.stderr.getvalue()


def assert_one_line_usage_error(status: int, stdout: str, stderr: str, *needles: str) -> None:
    assert status == 2, stderr
    assert stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("kdiag: error: "), stderr
    assert "Traceback" not in stderr
    for needle in needles:
        assert needle in stderr


@pytest.fixture
def fifo(tmp_path: Path) -> str:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path)


def report_file(tmp_path: Path, text: str, name: str = "r.json") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def real_report() -> dict:
    return json.loads(report_to_json(cluster_report("kafka.example.com:9092", ["198.51.100.1"],
                                                    [broker(1, "kafka.example.com", address="198.51.100.1")])))


# --- item 6: files --------------------------------------------------------------------------------


def test_command_config_dev_zero_is_refused_not_a_memory_error():
    assert_one_line_usage_error(*run("bootstrap", "127.0.0.1:1", "--command-config", "/dev/zero", "--no-roundtrip"),
                                "--command-config /dev/zero", "device")


def test_command_config_fifo_is_refused_not_a_hang(fifo):
    assert_one_line_usage_error(*run("bootstrap", "127.0.0.1:1", "--command-config", fifo), "FIFO")


def test_command_config_larger_than_any_properties_file_is_refused(tmp_path):
    path = tmp_path / "huge.properties"
    path.write_bytes(b"#" * (2 << 20))
    assert_one_line_usage_error(*run("bootstrap", "127.0.0.1:1", "--command-config", str(path)), "larger than")


def test_diff_dev_zero_is_refused_not_a_memory_error(tmp_path):
    good = report_file(tmp_path, json.dumps(real_report()))
    assert_one_line_usage_error(*run("diff", "/dev/zero", good), "/dev/zero")


def test_explain_dev_zero_is_refused_not_a_hang():
    assert_one_line_usage_error(*run("explain", "/dev/zero"), "device")
    assert_one_line_usage_error(*run("explain", "--file", "/dev/zero"), "device")


def test_explain_fifo_is_refused_not_a_hang(fifo):
    assert_one_line_usage_error(*run("explain", "--file", fifo), "FIFO")
    assert_one_line_usage_error(*run("explain", fifo), "FIFO")


def test_explain_nonexistent_log_path_is_exit_2_not_read_as_text():
    assert_one_line_usage_error(*run("explain", "/nonexistent.log"), "/nonexistent.log", "No such file")
    assert_one_line_usage_error(*run("explain", "./producer.log"), "No such file")


def test_explain_pasted_error_lines_are_still_text_not_paths():
    for pasted in ("localhost/127.0.0.1:9092", "Connection to node -1 (localhost/127.0.0.1:9092) could not be "
                   "established. Broker may not be available.", "Local: Message timed out"):
        status, _stdout, stderr = run("explain", pasted)
        assert status in (0, 1) and stderr == "", (pasted, stderr)


def test_pcap_of_a_fifo_or_device_is_refused(fifo):
    assert_one_line_usage_error(*run("pcap", fifo), "FIFO")
    assert_one_line_usage_error(*run("pcap", "/dev/zero"), "device")


def test_explain_stdin_is_capped(monkeypatch):
    from kdiag import inputfile

    monkeypatch.setattr(inputfile, "MAX_LOG", 1000)
    import kdiag.inputfile as module

    stream = module.open_input("-", what="stdin", limit=1000, stdin=io.BytesIO(b"x\n" * 600))
    with pytest.raises(module.InputTooLarge):
        stream.read(4096)


# --- item 7: kdiag diff ---------------------------------------------------------------------------


def test_diff_report_with_a_list_where_an_object_is_expected_names_the_field(tmp_path):
    data = real_report()
    data["cluster"] = ["not", "an", "object"]
    status, stdout, stderr = run("diff", report_file(tmp_path, json.dumps(data)), report_file(
        tmp_path, json.dumps(real_report()), "b.json"))
    assert_one_line_usage_error(status, stdout, stderr, "report.cluster")


def test_diff_finding_evidence_with_lists_for_numbers_is_compared_not_a_type_error(tmp_path):
    data = real_report()
    data["findings"] = [{"id": "X", "severity": "error", "title": "t", "explanation": "e",
                         "evidence": {"node_id": [1, 2], "host": {"a": 1}, "node_ids": [[1]]}}]
    status, _stdout, stderr = run("diff", report_file(tmp_path, json.dumps(data)),
                                  report_file(tmp_path, json.dumps(real_report()), "b.json"))
    assert status == 1 and "internal error" not in stderr, stderr


def test_diff_finding_evidence_that_is_a_list_names_the_field(tmp_path):
    data = real_report()
    data["findings"] = [{"id": "X", "severity": "error", "title": "t", "explanation": "e", "evidence": [1]}]
    assert_one_line_usage_error(*run("diff", report_file(tmp_path, json.dumps(data)),
                                     report_file(tmp_path, json.dumps(real_report()), "b.json")),
                                "report.findings[].evidence")


def test_diff_deeply_nested_report_is_refused_not_a_recursion_error(tmp_path):
    assert_one_line_usage_error(*run("diff", report_file(tmp_path, "[" * 200_000 + "]" * 200_000),
                                     report_file(tmp_path, json.dumps(real_report()), "b.json")), "nested")
    data = real_report()
    data["findings"] = [{"id": "X", "severity": "error", "title": "t", "explanation": "e",
                         "evidence": json.loads("{\"a\":" * 100 + "1" + "}" * 100)}]
    assert_one_line_usage_error(*run("diff", report_file(tmp_path, json.dumps(data), "c.json"),
                                     report_file(tmp_path, json.dumps(real_report()), "b.json")), "nested")


def test_diff_hundred_thousand_digit_number_is_refused(tmp_path):
    text = json.dumps(real_report()).replace('"port": 9092', '"port": ' + "9" * 100_000, 1)
    assert_one_line_usage_error(*run("diff", report_file(tmp_path, text),
                                     report_file(tmp_path, json.dumps(real_report()), "b.json")), "digits")


def test_diff_nan_and_infinity_are_refused(tmp_path):
    text = json.dumps(real_report()).replace('"port": 9092', '"port": NaN', 1)
    assert_one_line_usage_error(*run("diff", report_file(tmp_path, text),
                                     report_file(tmp_path, json.dumps(real_report()), "b.json")), "NaN")


def test_diff_stage_name_that_is_a_list_names_the_stage(tmp_path):
    data = real_report()
    data["stages"][0]["name"] = ["dns"]
    assert_one_line_usage_error(*run("diff", report_file(tmp_path, json.dumps(data)),
                                     report_file(tmp_path, json.dumps(real_report()), "b.json")), "stages[0]")


def test_explain_gzip_bomb_stops_at_the_decompressed_cap(tmp_path, monkeypatch):
    import gzip

    from kdiag.explain import reader

    monkeypatch.setattr(reader, "MAX_BYTES", 1 << 20)
    monkeypatch.setattr(reader._decoded, "__defaults__", (1 << 20,))
    bomb = tmp_path / "bomb.log.gz"
    bomb.write_bytes(gzip.compress(b"A" * (8 << 20)))  # 8 MiB of one line from 8 KB
    status, stdout, stderr = run("explain", "--file", str(bomb))
    assert_one_line_usage_error(status, stdout, stderr, "larger than 1 MiB")
