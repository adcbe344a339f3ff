"""The real entry point, driven with an injected environment: exit status, stderr and the report."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kdiag import orchestrate
from kdiag import __version__
from kdiag.cli import Environment, main
from kdiag.exitstatus import ExitStatus
from kdiag.orchestrate import BootstrapOptions
from kdiag.finding import Finding
from kdiag.report import BrokerReport, Cluster, Endpoint, Report, Stage, Vantage
from probes.results import DnsResult, KafkaCheck, TcpResult

PASSWORD = "hunter2"


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str
    options: list[BootstrapOptions] = field(default_factory=list)

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()


def _report(options: BootstrapOptions, *, findings: tuple[Finding, ...] = (), advertised: str = "ok") -> Report:
    broker = BrokerReport(
        node_id=1, host="kafka-1.internal", port=9092,
        dns=DnsResult(host="kafka-1.internal", status="ok" if advertised == "ok" else "nxdomain"),
        tcp=TcpResult(status="ok" if advertised == "ok" else "skip"),
        kafka=KafkaCheck(status="ok" if advertised == "ok" else "skip"),
    )
    return Report(
        bootstrap=options.targets,
        stages=(Stage("dns", "ok", 1.0, "resolves"), Stage("tcp", "ok", 0.5, "connected"),
                Stage("metadata", "ok", 2.0, "1 broker"), Stage("advertised", advertised, 3.0, "checked"),
                Stage("roundtrip", "ok" if advertised == "ok" else "skip", 4.0, "done")),
        cluster=Cluster(cluster_id="c1", controller_id=1, brokers=(broker,)),
        findings=findings,
        vantage=Vantage("laptop", ("192.0.2.10",)),
        generated_at="2026-11-21T14:00:00Z",
        client={key: value for key, value in options.client_settings.items()},  # careless on purpose
    )


UNRESOLVABLE = Finding(
    id="ADVERTISED_UNRESOLVABLE", severity="error",
    title="Broker 1 advertises a name this machine cannot resolve",
    explanation="kafka-1.internal only resolves inside the cluster's network.",
    evidence={"node_id": 1, "host": "kafka-1.internal"},
    fix="advertised.listeners=EXTERNAL://broker.example.com:9092",
)


def healthy(options: BootstrapOptions) -> Report:
    return _report(options)


def failing(options: BootstrapOptions) -> Report:
    return _report(options, findings=(UNRESOLVABLE,), advertised="fail")


@pytest.fixture
def kdiag(monkeypatch: pytest.MonkeyPatch):
    """Runs ``kdiag ARGS`` through the real entry point with ``run_bootstrap`` replaced."""

    def run(*args: str, result=healthy, stderr_isatty: bool = False) -> Run:
        calls: list[BootstrapOptions] = []

        def fake_run_bootstrap(options: BootstrapOptions, *, progress=None) -> Report:
            calls.append(options)
            if progress is not None:
                progress("dns", None)
                progress("dns", Stage("dns", "ok", 1.0, "resolves"))
            if isinstance(result, BaseException):
                raise result
            return result(options)

        monkeypatch.setattr(orchestrate, "run_bootstrap", fake_run_bootstrap)
        env = Environment(stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO(),
                          stderr_isatty=stderr_isatty)
        status = main(list(args), env=env)
        return Run(status, env.stdout.getvalue(), env.stderr.getvalue(), calls)

    return run


def _assert_one_line_usage_error(run: Run, expected: str) -> None:
    assert run.status == ExitStatus.USAGE == 2
    assert len(run.stderr_lines) == 1, run.stderr
    assert run.stderr_lines[0].startswith("kdiag: error: ")
    assert expected in run.stderr_lines[0]
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    assert run.options == []  # nothing was run


# --- bad input: one line, exit 2 ----------------------------------------------------------------


@pytest.mark.parametrize(("address", "expected"), [
    ("host:", "bootstrap address 'host:': missing port"),
    (":9092", "bootstrap address ':9092': missing host"),
    ("host:99999", "port 99999 is out of range (1-65535)"),
    ("host:abc", "port 'abc' is not a number"),
    ("a:1,,b:2", "empty bootstrap address (element 2 of 'a:1,,b:2')"),
    ("::1:9092", "put IPv6 addresses in brackets: [::1]:9092"),
    ("", "no bootstrap address given"),
])
def test_bad_bootstrap_address_is_one_line_and_exit_2(kdiag, address: str, expected: str) -> None:
    _assert_one_line_usage_error(kdiag("bootstrap", address), expected)


def test_unknown_client_setting_is_exit_2(kdiag) -> None:
    run = kdiag("bootstrap", "broker:9092", "-X", "foo=1")
    _assert_one_line_usage_error(
        run, "unknown client setting 'foo' (librdkafka property names, e.g. security.protocol)")


def test_unreadable_command_config_is_exit_2(kdiag, tmp_path: Path) -> None:
    missing = tmp_path / "nope.properties"
    run = kdiag("bootstrap", "broker:9092", "--command-config", str(missing))
    _assert_one_line_usage_error(run, f"cannot read --command-config {missing}: No such file or directory")


@pytest.mark.parametrize(("args", "expected"), [
    (("bootstrap", "broker:9092", "--bogus"), "No such option: --bogus (see 'kdiag bootstrap --help')"),
    (("bootstrap",), "Missing argument 'HOST[:PORT][,...]'"),
    (("bootstrap", "broker", "--timeout", "soon"), "Invalid value for '--timeout'"),
    (("bootstrap", "broker", "--format", "xml"), "Invalid value for '--format'"),
    (("bootstrap", "broker", "-X"), "Option '-X' requires an argument"),
    (("frobnicate",), "No such command 'frobnicate'"),
])
def test_click_usage_errors_are_one_line_and_exit_2(kdiag, args: tuple[str, ...], expected: str) -> None:
    _assert_one_line_usage_error(kdiag(*args), expected)


@pytest.mark.parametrize(("args", "expected"), [
    (("--timeout", "0"), "--timeout must be more than 0 and at most 3600 seconds, got 0"),
    (("--timeout", "3601"), "--timeout must be more than 0 and at most 3600 seconds, got 3601"),
    (("--timeout", "nan"), "--timeout must be more than 0"),
    (("--connect-timeout", "-1"), "--connect-timeout must be more than 0"),
    (("--metadata-version", "14"), "--metadata-version must be between 0 and 13, got 14"),
    (("--metadata-version", "-1"), "--metadata-version must be between 0 and 13, got -1"),
    (("--json", "--format", "markdown"), "--json and --format markdown disagree"),
    (("--topic", "has space"), "topic names may hold only letters, digits"),
    (("--output", "/nonexistent-dir/report.json"), "cannot write --output /nonexistent-dir/report.json"),
    (("--listener-ports", "9093,http"), "--listener-ports takes ports 1-65535, comma-separated: 'http' is not one"),
    (("--listener-ports", "70000"), "--listener-ports takes ports 1-65535, comma-separated: '70000' is not one"),
    (("--listener-ports", "9093", "--no-listener-scan"), "--listener-ports and --no-listener-scan contradict"),
])
def test_option_values_are_checked_before_anything_runs(kdiag, args: tuple[str, ...], expected: str) -> None:
    _assert_one_line_usage_error(kdiag("bootstrap", "broker:9092", *args), expected)


def test_no_arguments_prints_help_and_exits_2(kdiag) -> None:
    run = kdiag()
    assert run.status == 2
    assert "Usage: kdiag" in run.stderr
    assert "bootstrap" in run.stderr


# --- --version and --help -----------------------------------------------------------------------


def test_version(kdiag) -> None:
    run = kdiag("--version")
    assert (run.status, run.stdout, run.stderr) == (0, f"kdiag {__version__}\n", "")
    assert __version__ == "0.1.0"


def test_bootstrap_help_has_an_example(kdiag, capsys: pytest.CaptureFixture[str]) -> None:
    run = kdiag("bootstrap", "--help")
    out = capsys.readouterr().out
    assert run.status == 0
    assert "kdiag bootstrap ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092" in out
    for option in ("--format", "--json", "--timeout", "--connect-timeout", "--topic", "--no-roundtrip", "-X",
                   "--command-config", "--metadata-version", "--output", "--debug"):
        assert option in out
    assert "internal error" in out  # the exit status of a kdiag bug is documented


def test_help_imports_nothing_heavy() -> None:
    code = ("import sys; from kdiag.cli import main; main(['--help']); "
            "print(sorted(m for m in ('confluent_kafka', 'dns', 'scapy', 'pyspark', 'kdiag.orchestrate', 'probes.kafka', 'probes.codec')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().split("\n")[-1] == "[]"


# --- the run: exit 0 / 1 and the report ---------------------------------------------------------


def test_healthy_cluster_exits_0_with_the_calm_line(kdiag) -> None:
    run = kdiag("bootstrap", "broker.example.com")
    assert run.status == ExitStatus.OK == 0
    assert run.stdout.rstrip("\n").endswith(
        "No problems found: every advertised broker resolves and answers from here.")
    assert run.stderr == ""  # no progress view on a pipe


def test_findings_exit_1_and_json_is_the_report(kdiag) -> None:
    run = kdiag("bootstrap", "broker.example.com:9092", "--json", result=failing)
    assert run.status == ExitStatus.PROBLEMS == 1
    report = json.loads(run.stdout)
    assert report["schema"] == "kdiag.report/1"
    assert report["bootstrap"] == [{"host": "broker.example.com", "port": 9092}]
    assert [f["id"] for f in report["findings"]] == ["ADVERTISED_UNRESOLVABLE"]
    assert run.stderr == ""


def test_format_markdown(kdiag) -> None:
    run = kdiag("bootstrap", "broker.example.com:9092", "--format", "markdown", result=failing)
    assert run.status == 1
    assert run.stdout.startswith("## kdiag report for broker.example.com:9092\n")
    assert "### ❌ ADVERTISED_UNRESOLVABLE — " in run.stdout
    assert "\x1b" not in run.stdout


def test_a_failed_stage_without_a_finding_still_exits_1(kdiag) -> None:
    run = kdiag("bootstrap", "broker", result=lambda options: _report(options, advertised="fail"))
    assert run.status == 1


def test_options_reach_the_orchestrator(kdiag, tmp_path: Path) -> None:
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SSL\nclient.id=from-file\nkey.serializer=x\n")
    run = kdiag("bootstrap", "PLAINTEXT://b1:9093, [::1]", "--timeout", "20", "--connect-timeout", "2",
                "--topic", "kdiag.probe", "--metadata-version", "9", "--command-config", str(config),
                "-X", "security.protocol=SASL_SSL", "-Xsasl.mechanism=PLAIN")
    (options,) = run.options
    assert options.targets == (Endpoint("b1", 9093), Endpoint("::1", 9092))
    assert (options.timeout, options.connect_timeout, options.topic, options.roundtrip) == (20, 2, "kdiag.probe", True)
    assert options.metadata_version == 9
    assert options.client_settings == {"security.protocol": "SASL_SSL", "client.id": "from-file",
                                       "sasl.mechanisms": "PLAIN"}
    assert run.stderr_lines == ["kdiag: warning: --command-config: ignored Java-only settings librdkafka has"
                                " no equivalent for: key.serializer"]


def test_no_roundtrip_and_default_connect_timeout_within_a_short_budget(kdiag) -> None:
    run = kdiag("bootstrap", "broker", "--no-roundtrip", "--timeout", "2")
    (options,) = run.options
    assert (options.roundtrip, options.timeout, options.connect_timeout) == (False, 2, 2)
    assert run.stderr == ""  # the default is clamped silently


def test_connect_timeout_longer_than_timeout_is_clamped_and_said(kdiag) -> None:
    run = kdiag("bootstrap", "broker", "--timeout", "5", "--connect-timeout", "8")
    assert run.options[0].connect_timeout == 5
    assert run.stderr_lines == ["kdiag: note: --connect-timeout 8 is longer than --timeout 5; using 5"]


def test_output_file_gets_the_json_report_whatever_the_format(kdiag, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    run = kdiag("bootstrap", "broker", "--format", "markdown", "--output", str(path), result=failing)
    assert run.status == 1
    assert run.stdout.startswith("## kdiag report for broker:9092")
    assert json.loads(path.read_text())["findings"][0]["id"] == "ADVERTISED_UNRESOLVABLE"


# --- secrets ------------------------------------------------------------------------------------


def _leaky(options: BootstrapOptions) -> Report:
    """A report from a careless run: the password in a stage summary and in the client settings."""
    report = failing(options)
    summary = f"auth as alice with {options.client_settings['sasl.password']} failed"
    return Report(**{**report.__dict__, "stages": (Stage("sasl", "fail", 1.0, summary),)})


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_password_from_x_never_appears_in_output(kdiag, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "report.json"
    run = kdiag("bootstrap", "broker", "--format", fmt, "--output", str(path), "-X", "security.protocol=SASL_SSL",
                "-X", f"sasl.password={PASSWORD}", "-X", "sasl.username=alice", result=_leaky)
    assert run.options[0].client_settings["sasl.password"] == PASSWORD  # the client gets it
    assert run.status == 1
    assert PASSWORD not in run.stdout
    assert PASSWORD not in run.stderr
    assert PASSWORD not in path.read_text()
    assert "alice" in run.stdout


def test_password_never_appears_in_an_internal_error(kdiag) -> None:
    run = kdiag("bootstrap", "broker", "-X", f"sasl.password={PASSWORD}", "--debug",
                result=RuntimeError(f"client said: bad password {PASSWORD}"))
    assert run.status == 1
    assert "Traceback" in run.stderr  # --debug
    assert PASSWORD not in run.stderr


# --- the boundary ---------------------------------------------------------------------------------


def test_internal_error_is_one_line_exit_1_without_traceback(kdiag) -> None:
    run = kdiag("bootstrap", "broker", "--json", result=RuntimeError("boom"))
    assert run.status == ExitStatus.PROBLEMS
    assert run.stderr_lines == [
        "kdiag: internal error: RuntimeError: boom (run with --debug for the traceback)"]
    assert run.stdout == ""  # no report


def test_internal_error_with_debug_shows_the_traceback(kdiag) -> None:
    run = kdiag("bootstrap", "broker", "--debug", result=RuntimeError("boom"))
    assert run.status == 1
    assert run.stderr.startswith("Traceback (most recent call last):")
    assert run.stderr_lines[-1] == "kdiag: internal error: RuntimeError: boom"


def test_interrupt_exits_130(kdiag) -> None:
    run = kdiag("bootstrap", "broker", result=KeyboardInterrupt())
    assert run.status == ExitStatus.INTERRUPTED == 130
    assert "Traceback" not in run.stderr


# --- the live view --------------------------------------------------------------------------------


def test_live_progress_on_a_terminal_in_text_mode(kdiag) -> None:
    run = kdiag("bootstrap", "broker", stderr_isatty=True)
    assert run.status == 0
    assert "✓ dns" in run.stderr
    assert "✓ dns" not in run.stdout.split("\n")[0]


def test_no_live_progress_in_json_mode_even_on_a_terminal(kdiag) -> None:
    run = kdiag("bootstrap", "broker", "--json", stderr_isatty=True)
    assert run.stderr == ""
    json.loads(run.stdout)


def test_python_dash_m_kdiag_is_the_same_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "kdiag", "--version"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, f"kdiag {__version__}\n")
