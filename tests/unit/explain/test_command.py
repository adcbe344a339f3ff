"""``kdiag explain`` through the real entry point: input from TEXT, --file or stdin, exit 0/1/2."""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from kdiag.cli import Environment, main
from kdiag.exitstatus import ExitStatus
from tests.unit.explain.helpers import client_log

EC2_LINE = ("%3|1795271143.024|FAIL|rdkafka#producer-1| [thrd:ip-172-31-18-160.us-west-2.compute.internal:9092/1]: "
            "ip-172-31-18-160.us-west-2.compute.internal:9092/1: Failed to resolve "
            "'ip-172-31-18-160.us-west-2.compute.internal:9092': Name or service not known (after 0ms in state CONNECT)")


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str

    @property
    def document(self) -> dict:
        return json.loads(self.stdout)


class Stdin(io.TextIOWrapper):
    """A piped stdin: text on top, bytes underneath (kdiag reads the bytes)."""


def kdiag(*args: str, stdin: bytes | None = None, stdin_isatty: bool = False) -> Run:
    stream = Stdin(io.BytesIO(stdin or b""), encoding="utf-8")
    env = Environment(stdin=stream, stdout=io.StringIO(), stderr=io.StringIO(), stdin_isatty=stdin_isatty)
    status = main(list(args), env=env)
    return Run(status, env.stdout.getvalue(), env.stderr.getvalue())


def assert_usage_error(run: Run, expected: str) -> None:
    assert run.status == ExitStatus.USAGE
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kdiag: error: ") and expected in lines[0], run.stderr


def test_a_problem_in_text_is_exit_1_with_the_json_document():
    run = kdiag("explain", "--json", EC2_LINE)
    assert run.status == ExitStatus.PROBLEMS, run.stderr
    assert run.document["schema"] == "kdiag.explain/1"
    assert [f["id"] for f in run.document["findings"]] == ["ADVERTISED_UNRESOLVABLE"]


def test_words_given_unquoted_are_joined_into_one_line():
    run = kdiag("explain", "--json", *"connect ECONNREFUSED 127.0.0.1:9092".split())
    assert [f["id"] for f in run.document["findings"]][:1] == ["BOOTSTRAP_REFUSED"]


def test_piped_stdin_is_read_whole_and_dash_reads_it_too():
    paste = client_log("ec2_internal_advertised.console_producer").encode()
    for args in (("explain", "--json"), ("explain", "-", "--json")):
        run = kdiag(*args, stdin=paste)
        assert run.status == 1 and run.document["findings"][0]["id"] == "ADVERTISED_UNRESOLVABLE"


def test_invalid_utf8_on_stdin_is_replaced_not_fatal():
    run = kdiag("explain", "--json", stdin=b"\xff\xfe garbage \x00\x01\n" + EC2_LINE.encode())
    assert run.status == 1 and run.document["binary_lines"] == 1


def test_unknown_input_is_one_calm_line_and_exit_0():
    run = kdiag("explain", stdin=b"everything is fine\nreally\n")
    assert run.status == ExitStatus.OK
    assert run.stdout == "No Kafka client error recognised in 2 lines: kdiag explain has nothing to say about it.\n"
    assert run.stderr == ""


def test_unknown_input_as_json_has_no_findings():
    run = kdiag("explain", "--json", "just words")
    assert run.status == 0 and run.document["findings"] == [] and run.document["unrecognised_lines"] == 1


def test_info_findings_alone_are_exit_0():
    run = kdiag("explain", "--json", "% ERROR: Topic orders [2] error: Broker: Leader not available")
    assert run.status == 0 and [f["severity"] for f in run.document["findings"]] == ["info"]


def test_file_input_plain_and_gzip(tmp_path: Path):
    paste = client_log("bootstrap.refused.console_producer").encode()
    plain, packed = tmp_path / "client.log", tmp_path / "client.log.gz"
    plain.write_bytes(paste)
    packed.write_bytes(gzip.compress(paste))
    for path in (plain, packed):
        run = kdiag("explain", "--file", str(path), "--json")
        assert run.status == 1 and run.document["findings"][0]["id"] == "BOOTSTRAP_REFUSED", run.stderr


def test_a_lone_argument_naming_a_file_is_read_as_the_log(tmp_path: Path):
    log = tmp_path / "producer.log"
    log.write_text(client_log("bootstrap.refused.console_producer"))
    run = kdiag("explain", str(log), "--json")
    assert run.status == 1 and run.document["findings"][0]["id"] == "BOOTSTRAP_REFUSED", run.stderr


def test_markdown_format(tmp_path: Path):
    run = kdiag("explain", "--format", "markdown", EC2_LINE)
    assert run.status == 1 and run.stdout.startswith("## kdiag explain")


@pytest.mark.parametrize("setup, expected", [
    (lambda tmp: str(tmp / "missing.log"), "cannot read --file {path}: No such file or directory"),
    (lambda tmp: str(tmp), "cannot read --file {path}: Is a directory"),
])
def test_unreadable_file_is_one_line_and_exit_2(tmp_path: Path, setup, expected):
    path = setup(tmp_path)
    assert_usage_error(kdiag("explain", "--file", path), expected.format(path=path))


def test_a_corrupt_gzip_file_is_exit_2(tmp_path: Path):
    path = tmp_path / "broken.log.gz"
    path.write_bytes(gzip.compress(b"line\n" * 1000)[:40])
    assert_usage_error(kdiag("explain", "--file", str(path)), f"cannot read --file {path}")


def test_text_and_file_together_is_exit_2(tmp_path: Path):
    assert_usage_error(kdiag("explain", "x", "--file", str(tmp_path / "a.log")), "not both")


def test_no_input_on_a_terminal_is_exit_2_not_a_hang():
    assert_usage_error(kdiag("explain", stdin_isatty=True), "no input")
