"""Attacks through text that came from outside: escape sequences, OSC titles, BEL, CR, LF and bidi
overrides in what a broker advertises, a pasted log, a capture or a report file. Every text and
Markdown view shows them visibly escaped, and never lets one split a copy-paste line; JSON keeps them
exact. Secrets are scrubbed before Markdown escapes anything, and the live progress view scrubs too."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from kdiag.capture.session import analyse_file
from kdiag.capture.synthetic import Broker, write_pcap
from kdiag.cli import Environment, main
from kdiag.diagnose import diagnose
from kdiag.diff import diff_reports
from kdiag.explain.engine import explain_text, explanation_to_dict
from kdiag.finding import Finding
from kdiag.render import Format, render
from kdiag.render.diff import render_diff
from kdiag.render.explain import render_explanation
from kdiag.render.lab import render_run
from kdiag.render.pcap import render_capture
from kdiag.render.progress import LiveProgress
from kdiag.secrets import Scrubber
from kdiag.report import BrokerReport, Stage, report_from_dict, report_to_json
from probes.results import DnsResult
from render_samples import failing_report, healthy_report
from tests.unit.capture.test_timeline import bootstrap_session

ATTACK = "\x1b]0;pwned\x07\x1b[2J\r\nrm -rf ~ #\u202e"
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x0arm -rf ~ #\\u202e"
HOST = f"evil{ATTACK}.internal"
SHOWN_HOST = f"evil{SHOWN}.internal"
VIEWS = [Format.TEXT, Format.MARKDOWN]


def assert_safe(text: str) -> None:
    """Nothing in ``text`` but printable characters and its own line breaks."""
    bad = sorted({char for char in text if char != "\n" and not char.isprintable()})
    assert not bad, f"unescaped {bad!r} in:\n{text}"
    assert "\nrm -rf" not in text and not any(line.lstrip(" -#>`").startswith("rm -rf") for line in text.split("\n"))


def hostile_broker_report():
    """The failing sample, its broker advertising HOST in rack ATTACK, diagnosed by the real rules."""
    report = failing_report()
    broker = BrokerReport(node_id=1, host=HOST, port=9092, rack=f"rack{ATTACK}",
                          dns=DnsResult(host=HOST, status="nxdomain"))
    report = replace(report, cluster=replace(report.cluster, brokers=(broker,), cluster_id=f"id{ATTACK}"),
                     stages=(*report.stages, Stage("roundtrip", "fail", 1.0, f"no such topic t{ATTACK}")))
    return report.with_findings(diagnose(report))


@pytest.mark.parametrize("fmt", VIEWS, ids=str)
def test_an_escape_in_an_advertised_host_and_rack_is_shown_escaped(fmt: Format) -> None:
    text = render(hostile_broker_report(), fmt, color=False)
    assert_safe(text)
    assert SHOWN_HOST in text and f"rack{SHOWN}" in text and f"no such topic t{SHOWN}" in text


def test_an_escape_in_an_advertised_host_stays_exact_in_json() -> None:
    report = hostile_broker_report()
    data = json.loads(render(report, Format.JSON))
    assert data["cluster"]["brokers"][0]["host"] == HOST
    assert data["cluster"]["brokers"][0]["rack"] == f"rack{ATTACK}"
    assert data["cluster"]["cluster_id"] == f"id{ATTACK}"
    assert report_from_dict(data).findings == report.findings


@pytest.mark.parametrize("fmt", VIEWS, ids=str)
def test_a_newline_in_an_advertised_host_never_splits_a_fix_line(fmt: Format) -> None:
    report = hostile_broker_report()
    assert report.findings and any(HOST in f.fix for f in report.findings)  # the rule quoted it in the fix
    text = render(report, fmt)
    fix_lines = [line for line in text.split("\n") if "advertised.listeners=INTERNAL://" in line]
    assert fix_lines and all(f"INTERNAL://{SHOWN_HOST}:9092,EXTERNAL://" in line for line in fix_lines)
    assert_safe(text)


@pytest.mark.parametrize("fmt", VIEWS, ids=str)
def test_an_escape_in_a_topic_and_a_cluster_id_quoted_by_a_finding_is_shown_escaped(fmt: Format) -> None:
    topic = f"orders{ATTACK}"
    finding = Finding("TOPIC_X", "error", f"Topic {topic} is missing", f"The cluster id{ATTACK} has no {topic}.",
                      {"topic": topic, "cluster_id": f"id{ATTACK}"}, f"kafka-topics.sh --create --topic {topic}")
    text = render(replace(healthy_report(), findings=(finding,)), fmt)
    assert_safe(text)
    assert f"--create --topic orders{SHOWN}" in text and f"cluster_id: id{SHOWN}" in text


REFUSED = ("k.example.com:9092/bootstrap: Connect to ipv4#192.0.2.7:9092 failed: Connection refused"
           " (after 0ms in state CONNECT)")


# explain takes a terminal's colour and title sequences (ESC ...) off a pasted line before reading it; what
# control characters it leaves still reach the views only through the sanitizer
LINE_ATTACK = "\x9b2J\x07\x90pwned\u202e rm -rf ~ #"


@pytest.mark.parametrize("fmt", VIEWS, ids=str)
def test_an_escape_in_an_explained_log_line_is_shown_escaped(fmt: Format) -> None:
    explanation = explain_text(f"{REFUSED} {LINE_ATTACK} {ATTACK}")
    assert explanation.findings
    text = render_explanation(explanation, fmt)
    assert_safe(text)
    assert "\\x9b2J" in text and "\\x90pwned\\u202e" in text  # C1 controls and a bidi override, shown escaped
    assert "pwned\\x07\\x1b[2J" not in text  # the ESC sequences went before the line was read


def strings(value: object) -> list[str]:
    """Every string in a loaded JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_an_escape_in_an_explained_log_line_stays_exact_in_json() -> None:
    explanation = explain_text(f"{REFUSED} {LINE_ATTACK}")
    data = json.loads(render_explanation(explanation, Format.JSON))
    assert data == explanation_to_dict(explanation)
    assert any(LINE_ATTACK in s for s in strings(data))


@pytest.fixture
def hostile_capture(tmp_path: Path):
    path = tmp_path / "hostile.pcap"
    write_pcap(str(path), bootstrap_session(9092, [Broker(1, HOST, 9092, f"rack{ATTACK}")]).packets)
    return analyse_file(str(path), keep_events=100)


@pytest.mark.parametrize("fmt", VIEWS, ids=str)
def test_an_escape_in_a_pcap_string_is_shown_escaped(hostile_capture, fmt: Format) -> None:
    text = render_capture(hostile_capture, fmt)
    assert_safe(text)
    assert f"{SHOWN_HOST}:9092" in text and f"rack{SHOWN}" in text


def test_an_escape_in_a_pcap_string_stays_exact_in_json(hostile_capture) -> None:
    data = json.loads(render_capture(hostile_capture, Format.JSON))
    assert data["metadata"][0]["brokers"][0]["host"] == HOST


def _diff():
    a = failing_report()
    b = hostile_broker_report()
    return diff_reports(a, b, a_file="a.json", b_file=f"b{ATTACK}.json")


@pytest.mark.parametrize("fmt", VIEWS, ids=str)
def test_an_escape_in_a_diffed_report_field_is_shown_escaped(fmt: Format) -> None:
    text = render_diff(_diff(), fmt)
    assert_safe(text)
    assert SHOWN_HOST in text


def test_an_escape_in_a_diffed_report_field_stays_exact_in_json() -> None:
    assert any(HOST in s for s in strings(json.loads(render_diff(_diff(), Format.JSON))))


def test_kdiag_diff_through_the_real_entry_point_prints_hostile_reports_escaped(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(report_to_json(failing_report()))
    b.write_text(report_to_json(hostile_broker_report()))
    for fmt in ("text", "markdown"):
        env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
        main(["diff", str(a), str(b), "--format", fmt], env=env)
        assert_safe(env.stdout.getvalue())
        assert SHOWN_HOST in env.stdout.getvalue()


def test_an_escape_in_a_lab_runs_stderr_is_shown_escaped() -> None:
    from tests.unit.lab.test_lab_command import vantage_run

    # stderr is lines: each shown on its own (prefixed) line, with what is in it escaped
    run = replace(vantage_run("outside-fred", 1, ["ADVERTISED_LOOPBACK"]), stderr="warning \x1b]0;pwned\x07\u202e\r\n")
    for fmt in VIEWS:
        text = render_run(run, fmt)
        assert_safe(text)
        assert "warning \\x1b]0;pwned\\x07\\u202e\n" in text


SECRET = "pa|ss-w0rd`x"


def test_a_secret_survives_no_markdown_escaping() -> None:
    """A table cell escapes ``|`` and inline code lengthens its fence: scrubbing first means neither can
    hide the secret from the scrubber."""
    report = replace(healthy_report(), stages=(Stage("sasl", "fail", 1.0, f"auth failed with {SECRET}"),),
                     findings=(Finding("SASL_X", "error", "t", f"sent {SECRET}", {"password_seen": SECRET}),))
    scrub = Scrubber((SECRET,))
    for fmt in VIEWS:
        assert "ss-w0rd" not in render(report, fmt, width=30, scrub=scrub)  # before any escaping or wrapping
    assert "ss-w0rd" not in scrub(render(report, Format.JSON))  # JSON: as Environment.write scrubs it
    assert "| ❌ | sasl | 1.0 ms | auth failed with *** |" in render(report, Format.MARKDOWN, scrub=scrub)


def test_the_live_progress_view_scrubs_and_escapes_what_it_draws() -> None:
    console = Console(file=io.StringIO(), width=200, color_system=None, force_terminal=False)
    with LiveProgress(console, transient=False, scrub=Scrubber((SECRET,))) as progress:
        progress("sasl", None)
        progress("sasl", Stage("sasl", "fail", 2.0, f"auth failed with {SECRET} at {HOST}"))
    drawn = console.file.getvalue()
    assert "ss-w0rd" not in drawn
    assert "auth failed with *** at evil\\x1b]0;pwned\\x07" in drawn
    assert "\x1b]0;" not in drawn and "\u202e" not in drawn


def test_an_escape_in_a_command_config_key_is_shown_escaped_on_stderr(tmp_path: Path) -> None:
    """``kdiag: warning: ... ignored Java-only settings: <key>`` quotes the file: one printable line."""
    from kdiag.environment import load_settings

    config = tmp_path / "client.properties"
    config.write_text(f"sasl.mechanism=PLAIN\nfoo{ATTACK}.bar=1\n", encoding="utf-8")
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    load_settings(env, [], str(config))
    err = env.stderr.getvalue()
    assert_safe(err)
    assert err.count("\n") == 1 and "foo\\x1b]0;pwned\\x07\\x1b[2J" in err
