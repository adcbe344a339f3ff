"""Every lab scenario, every vantage: kdiag's time to its verdict vs a default client's time to fail or succeed.

For each scenario that :mod:`kdiag.lab.scenarios` exposes when this runs (or those named by
``--scenarios``), the scenario is brought up (its wall time recorded) and then, from each vantage's
namespace with the vantage's bootstrap string:

1. ``kdiag bootstrap … --format json`` exactly as ``kdiag lab run`` runs it (``LiveScenario.run``),
   ``--kdiag-runs`` times per vantage, one vantage after the other, while nothing else runs;
2. then, after an unmeasured warm-up that gets the topic auto-created (:func:`warm_up_topics`), all
   vantages side by side, the real clients with default settings:

   * a confluent-kafka ``Producer`` with only ``bootstrap.servers`` set producing one message (to the
     vantage's ``--topic``, else to kdiag's probe topic, as kdiag's round trip does) and waiting for its
     delivery report (``bench.default_producer``; librdkafka's ``message.timeout.ms``
     is 300 s), timed from process start to the report;
   * the Kafka 3.9.2 console producer (``kafka.tools.ConsoleProducer``, the JVM options and
     tools-log4j of ``kafka-console-producer.sh``), one line on stdin, timed until it exits
     (``max.block.ms`` 60 s, ``delivery.timeout.ms`` 120 s); ``--no-java`` leaves it out.

   Each client is stopped at ``--cap`` seconds; its ratio is then a lower bound.

The ratio is client time / kdiag time. The target, from issue 3, is kdiag ≥ 30× faster wherever the
client waits on a timeout (its failure is a timeout, or it hit the cap); where it succeeds, or fails
on an answer rather than a timeout, the ratio is reported and marked n/a. A vantage that needs security settings to speak its
listener's protocol (``-X security.protocol=…``, ``--command-config``) passes those, and only those,
to the clients: their timeouts stay at the defaults.

Run (as root, in the sandbox; it takes about six minutes per scenario whose clients time out):

    python -m kdiag.lab.sandbox -- python -m bench.bench_lab [--scenarios NAME …] [--no-java] [--cap S]

Writes ``bench/results/lab.json`` after each scenario (``complete`` false until the end).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import REPO, RESULTS, write_results
from kdiag.exitstatus import UsageError
from kdiag.lab import kafka
from kdiag.lab.netns import LabError
from kdiag.lab.runner import LiveScenario, scenario_up
from kdiag.lab.sandbox import in_sandbox
from kdiag.lab.scenarios import Scenario, Vantage, all_scenarios
from probes.roundtrip import PROBE_TOPIC

TARGET_RATIO = 30
DEFAULT_CAP = 330.0
WARMUP_CAP = 10.0
"""Seconds each vantage's unmeasured topic warm-up may take (:func:`warm_up_topics`)."""
DEFAULT_TOPIC = PROBE_TOPIC
"""Without ``--topic``, the clients produce where kdiag's round trip does: its probe topic, which kdiag creates
with the Admin API when missing (so it exists even where auto-create is off, once a healthy run made it)."""
CONSOLE_PRODUCER_VERSION = "3.9.2"
CONSOLE_PRODUCER_JVM = (
    "-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true",
)  # fmt: skip
"""What ``kafka-console-producer.sh`` gives the JVM: its KAFKA_HEAP_OPTS and kafka-run-class.sh's defaults."""
TOOLS_LOG4J = (
    "log4j.rootLogger=WARN, stderr\n"
    "log4j.appender.stderr=org.apache.log4j.ConsoleAppender\n"
    "log4j.appender.stderr.layout=org.apache.log4j.PatternLayout\n"
    "log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
    "log4j.appender.stderr.Target=System.err\n"
    # Not in tools-log4j.properties: the producer's effective configuration, recorded in the results.
    "log4j.logger.org.apache.kafka.clients.producer.ProducerConfig=INFO\n"
)
"""The distribution's config/tools-log4j.properties, plus the ProducerConfig dump."""
RECORDED_JAVA_CONFIG = ("max.block.ms", "delivery.timeout.ms", "request.timeout.ms", "linger.ms", "retries",
                        "acks", "reconnect.backoff.max.ms")
SECURITY_PREFIXES = ("security.", "sasl.", "ssl.", "enable.ssl.")
"""The client settings a vantage may pass on to the clients: what it takes to speak the listener's protocol."""
LOG_EXCERPT_LINES = 6


# --------------------------------------------------------------------------- a vantage's client settings


@dataclass(frozen=True)
class ClientOptions:
    """What the clients of one vantage are given besides the bootstrap string."""

    topic: str
    librdkafka: Mapping[str, str] = field(default_factory=dict)
    java: Mapping[str, str] | None = field(default_factory=dict)
    """``None``: the vantage's settings have no Java equivalent here (``java_reason`` says which)."""
    java_reason: str = ""


def client_options(args: Sequence[str]) -> ClientOptions:
    """The topic and security settings in a vantage's ``kdiag bootstrap`` arguments (``{state_dir}`` replaced)."""
    from kdiag.clientconfig import load_client_settings, parse_java_properties, parse_x_options

    topic, x_options, command_config = DEFAULT_TOPIC, [], None
    pending = list(args)
    while pending:
        arg = pending.pop(0)
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in ("--topic", "--command-config", "-X"):
            if not equals:
                value = pending.pop(0) if pending else ""
            if name == "--topic":
                topic = value
            elif name == "--command-config":
                command_config = value
            else:
                x_options.append(value)
        elif arg.startswith("-X") and len(arg) > 2:
            x_options.append(arg[2:])
    try:
        settings = load_client_settings(x_options, command_config).settings
        x_settings = parse_x_options(x_options).settings
    except UsageError as error:
        raise LabError(f"vantage arguments {' '.join(args)}: {error}") from None
    java: dict[str, str] = {}
    if command_config is not None:
        java.update(_security(parse_java_properties(Path(command_config).read_text(errors="replace"))))
    mapped, unmapped = _java_names(_security(x_settings))
    if unmapped:
        return ClientOptions(topic, _security(settings), None, f"no Java equivalent for {', '.join(unmapped)} here")
    java.update(mapped)
    return ClientOptions(topic, _security(settings), java)


def _security(settings: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in settings.items() if key.startswith(SECURITY_PREFIXES)}


def _java_names(settings: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """librdkafka security settings under their Java names, and those this bench cannot map."""
    java, unmapped = {}, []
    mechanism = settings.get("sasl.mechanisms", "PLAIN")
    for key, value in settings.items():
        if key in ("security.protocol", "ssl.endpoint.identification.algorithm"):
            java[key] = "" if value == "none" else value
        elif key == "sasl.mechanisms":
            java["sasl.mechanism"] = value
        elif key == "ssl.ca.location":
            java.update({"ssl.truststore.location": value, "ssl.truststore.type": "PEM"})
        elif key in ("sasl.username", "sasl.password") and mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
            module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
                      else "org.apache.kafka.common.security.scram.ScramLoginModule")
            username, password = settings.get("sasl.username", ""), settings.get("sasl.password", "")
            java["sasl.jaas.config"] = f'{module} required username="{username}" password="{password}";'
        else:
            unmapped.append(key)
    return java, unmapped


# --------------------------------------------------------------------------- one process, timed, capped


@dataclass(frozen=True)
class Timed:
    """One client process: its first stdout line and when it came, how it ended and when."""

    first_line: str
    first_line_s: float | None
    exit_code: int | None
    exit_s: float
    capped: bool


def run_capped(argv: Sequence[str], *, cap: float, stdin_text: str, stderr_path: Path) -> Timed:
    """Run ``argv`` (already prefixed for its namespace), feeding ``stdin_text``; SIGKILL its group at ``cap`` s."""
    capped = threading.Event()
    with stderr_path.open("w") as stderr:
        started = time.monotonic()
        process = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                   cwd=REPO, start_new_session=True)

    def stop() -> None:
        capped.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(cap, stop)
    timer.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(stdin_text)
            process.stdin.close()
        except BrokenPipeError:
            pass
        first_line = process.stdout.readline()
        first_line_s = time.monotonic() - started if first_line else None
        process.stdout.read()
        process.wait()
        exit_s = time.monotonic() - started
    finally:
        timer.cancel()
        if process.poll() is None:
            stop()
            process.wait()
    return Timed(first_line.strip(), first_line_s, None if capped.is_set() else process.returncode, exit_s,
                 capped.is_set())


# --------------------------------------------------------------------------- the clients


@dataclass(frozen=True)
class ClientRun:
    """How one client ended from one vantage: ``succeeded``, ``failed``, ``cap`` (no outcome by the cap) or ``skipped``."""

    client: str
    outcome: str
    seconds: float | None = None
    timed_out: bool = False
    error: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClientRun:
        """The outcome part of :meth:`to_json`'s form, back (for ``--render-only``)."""
        return cls(data["client"], data["outcome"], data["seconds"], data["timed_out"], data["error"])

    @property
    def waited_on_timeout(self) -> bool:
        return self.outcome == "cap" or (self.outcome == "failed" and self.timed_out)

    def ratio(self, kdiag_s: float) -> float | None:
        return None if self.seconds is None else self.seconds / kdiag_s

    def to_json(self) -> dict[str, Any]:
        return {"client": self.client, "outcome": self.outcome,
                "seconds": None if self.seconds is None else round(self.seconds, 3), "timed_out": self.timed_out,
                "waited_on_timeout": self.waited_on_timeout, "error": self.error, **self.details}


def _excerpt(text: str) -> list[str]:
    """The first and last lines of a client's log, for the results (its logs repeat over a timeout)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) <= 2 * LOG_EXCERPT_LINES:
        return lines
    return [*lines[:LOG_EXCERPT_LINES], f"… {len(lines) - 2 * LOG_EXCERPT_LINES} lines …", *lines[-LOG_EXCERPT_LINES:]]


def confluent_kafka_producer(live: LiveScenario, vantage: Vantage, options: ClientOptions, *, cap: float,
                             workdir: Path) -> ClientRun:
    settings = {"bootstrap.servers": vantage.bootstrap, **options.librdkafka}
    argv = live.live.exec_argv(vantage.host, [sys.executable, "-m", "bench.default_producer", options.topic])
    log = workdir / f"confluent-kafka-{vantage.name}.log"
    timed = run_capped(argv, cap=cap, stdin_text=json.dumps(settings), stderr_path=log)
    details: dict[str, Any] = {"topic": options.topic, "settings_beyond_bootstrap": sorted(options.librdkafka),
                               "exit_s": round(timed.exit_s, 3), "exit_code": timed.exit_code,
                               "log_excerpt": _excerpt(log.read_text(errors="replace"))}
    try:
        report = json.loads(timed.first_line)
    except ValueError:
        report = None
    if report is None:
        if timed.capped:
            return ClientRun("confluent-kafka", "cap", timed.exit_s, details=details)
        return ClientRun("confluent-kafka", "failed", timed.exit_s, error=f"exited {timed.exit_code} without a "
                         "delivery report", details=details)
    details["in_process_s"] = report["seconds"]
    details["error_name"] = report.get("error_name", "")
    return ClientRun("confluent-kafka", report["outcome"], timed.first_line_s, timed_out=report.get("timed_out", False),
                     error=report.get("error", ""), details=details)


@dataclass(frozen=True)
class ConsoleProducer:
    """How to start the Kafka console producer: java, the 3.9.2 jars and kafka-tools-api, a tools-log4j file."""

    java: str
    classpath: str
    log4j: Path

    @classmethod
    def find(cls, workdir: Path) -> ConsoleProducer | str:
        """The console producer, or why it cannot run here.

        The broker's jars (``kafka.install``) leave out kafka-tools-api, which ConsoleProducer needs;
        scripts/setup puts it in ``<cache>/3.9.2/tools``.
        """
        java = shutil.which("java")
        if java is None:
            return "java not found"
        try:
            lib = kafka.install(CONSOLE_PRODUCER_VERSION)
        except kafka.KafkaLabError as error:
            return f"Kafka {CONSOLE_PRODUCER_VERSION} jars unavailable: {error}"
        tools = kafka.cache_root() / CONSOLE_PRODUCER_VERSION / "tools"
        if not (tools / f"kafka-tools-api-{CONSOLE_PRODUCER_VERSION}.jar").is_file():
            return (f"no kafka-tools-api in {tools}: mvn -q -B dependency:copy "
                    f"-Dartifact=org.apache.kafka:kafka-tools-api:{CONSOLE_PRODUCER_VERSION} -DoutputDirectory={tools}")
        log4j = workdir / "tools-log4j.properties"
        log4j.write_text(TOOLS_LOG4J)
        return cls(java, f"{lib}/*{os.pathsep}{tools}/*", log4j)

    def argv(self, bootstrap: str, topic: str, config: Path | None) -> list[str]:
        return [self.java, *CONSOLE_PRODUCER_JVM, f"-Dlog4j.configuration=file:{self.log4j}", "-cp", self.classpath,
                "kafka.tools.ConsoleProducer", "--bootstrap-server", bootstrap, "--topic", topic,
                *(("--producer.config", str(config)) if config else ())]


_SEND_ERROR = "Error when sending message"
_CONFIG_LINE = re.compile(r"^\s+([a-z0-9.]+) = (.*)$")
_CONFIG_START, _CONFIG_END = "ProducerConfig values:", "(org.apache.kafka.clients.producer.ProducerConfig)"


def _java_log(text: str) -> tuple[dict[str, str], list[str]]:
    """The recorded effective settings from the ProducerConfig dump, and the other lines, stack frames left out."""
    effective, lines, in_dump = {}, [], False
    for line in text.splitlines():
        if _CONFIG_START in line:
            in_dump = True
        elif in_dump:
            match = _CONFIG_LINE.match(line)
            if match and match[1] in RECORDED_JAVA_CONFIG:
                effective[match[1]] = match[2]
            in_dump = _CONFIG_END not in line
        elif line.strip() and not line.startswith(("\tat ", "\t... ")):
            lines.append(line)
    return effective, lines


def _java_error(lines: Sequence[str]) -> tuple[str, str]:
    """The failed send (the ERROR and the exception after it), and any other ERROR or uncaught exception.

    Without either, the last exception or warning the client logged (a connection it kept retrying).
    """
    send, other = "", []
    for index, line in enumerate(lines):
        if _SEND_ERROR in line and not send:
            send = " | ".join(part.strip() for part in lines[index:index + 2])
        elif " ERROR " in line or line.startswith("Exception in thread"):
            other.append(" | ".join(part.strip() for part in lines[index:index + 2]))
    if send or other:
        return send, " | ".join(other[:2])
    complaints = [line for line in lines if "Exception" in line or " WARN " in line]
    return "", complaints[-1].strip() if complaints else ""


def console_producer(live: LiveScenario, vantage: Vantage, options: ClientOptions, *, cap: float, workdir: Path,
                     tool: ConsoleProducer) -> ClientRun:
    if options.java is None:
        return ClientRun("console-producer", "skipped", error=options.java_reason)
    config = None
    if options.java:
        config = workdir / f"producer-{vantage.name}.properties"
        config.write_text("".join(f"{key}={value}\n" for key, value in options.java.items()))
    log = workdir / f"console-producer-{vantage.name}.log"
    timed = run_capped(live.live.exec_argv(vantage.host, tool.argv(vantage.bootstrap, options.topic, config)), cap=cap,
                       stdin_text="kdiag-bench\n", stderr_path=log)
    text = log.read_text(errors="replace")
    effective, lines = _java_log(text)
    details: dict[str, Any] = {"topic": options.topic, "settings_beyond_bootstrap": sorted(options.java),
                               "exit_code": timed.exit_code, "effective_config": effective,
                               "log_excerpt": _excerpt("\n".join(lines))}
    send_error, other_error = _java_error(lines)
    error = " | also: ".join(part for part in (send_error, other_error) if part)
    timed_out = "TimeoutException" in send_error
    if timed.capped:
        return ClientRun("console-producer", "cap", timed.exit_s, error=error, details=details)
    if timed.exit_code != 0 or _SEND_ERROR in text:
        return ClientRun("console-producer", "failed", timed.exit_s, timed_out=timed_out,
                         error=error or f"exit status {timed.exit_code}", details=details)
    return ClientRun("console-producer", "succeeded", timed.exit_s, details=details)


# --------------------------------------------------------------------------- one scenario


@dataclass(frozen=True)
class KdiagTimes:
    """``kdiag bootstrap`` from one vantage, run ``len(seconds)`` times, and whether each said what it should."""

    seconds: tuple[float, ...]
    found: tuple[str, ...]
    differences: tuple[tuple[str, ...], ...]

    @property
    def median_s(self) -> float:
        return statistics.median(self.seconds)

    @property
    def as_expected(self) -> bool:
        return not any(self.differences)

    def to_json(self) -> dict[str, Any]:
        return {"median_s": round(self.median_s, 3), "runs_s": [round(s, 3) for s in self.seconds],
                "found": list(self.found), "as_expected": self.as_expected,
                "differences": [list(d) for d in self.differences]}


def time_kdiag(live: LiveScenario, vantage: Vantage, runs: int) -> KdiagTimes:
    done = [live.run(vantage, fmt="json") for _ in range(runs)]
    return KdiagTimes(tuple(run.seconds for run in done), tuple(run.found() for run in done),
                      tuple(run.differences for run in done))


def verdict(kdiag_s: float, clients: Sequence[ClientRun]) -> str:
    """Over the clients that waited on a timeout: ``meets target (…)``, ``**misses target** (…)``; else ``n/a (no timeout)``."""
    waited = [client for client in clients if client.waited_on_timeout]
    if not waited:
        return "n/a (no timeout)"
    short = [client for client in waited if (client.ratio(kdiag_s) or 0) < TARGET_RATIO]
    if not short:
        return "meets target (" + ", ".join(client.client for client in waited) + ")"
    return "**misses target** (" + ", ".join(client.client for client in short) + ")"


def bench_scenario(scenario: Scenario, *, cap: float, java: bool, kdiag_runs: int) -> dict[str, Any]:
    print(f"bench: {scenario.name}: bringing it up", file=sys.stderr, flush=True)
    started = time.monotonic()
    result: dict[str, Any] = {"name": scenario.name, "title": scenario.title}
    try:
        with scenario_up(scenario) as live:
            result["up_s"] = round(time.monotonic() - started, 2)
            workdir = live.live.state_dir / "bench"
            workdir.mkdir()
            phase = time.monotonic()
            kdiag_times = {vantage.name: time_kdiag(live, vantage, kdiag_runs) for vantage in scenario.vantages}
            result["kdiag_phase_s"] = round(time.monotonic() - phase, 2)
            print(f"bench: {scenario.name}: up in {result['up_s']} s, kdiag done; clients side by side (cap {cap:g} s)",
                  file=sys.stderr, flush=True)
            phase = time.monotonic()
            warmup = warm_up_topics(live, scenario.vantages, workdir=workdir / "warmup")
            result["warmup_s"] = round(time.monotonic() - phase, 2)
            phase = time.monotonic()
            clients = clients_side_by_side(live, scenario.vantages, cap=cap, java=java, workdir=workdir)
            result["clients_phase_s"] = round(time.monotonic() - phase, 2)
            teardown = time.monotonic()
        result["teardown_s"] = round(time.monotonic() - teardown, 2)
    except LabError as error:
        result["error"] = str(error)
        result["total_s"] = round(time.monotonic() - started, 2)
        print(f"bench: {scenario.name}: {error}", file=sys.stderr, flush=True)
        return result
    result["total_s"] = round(time.monotonic() - started, 2)
    result["vantages"] = []
    for vantage in scenario.vantages:
        times, runs = kdiag_times[vantage.name], clients[vantage.name]
        result["vantages"].append({
            "name": vantage.name, "host": vantage.host, "bootstrap": vantage.bootstrap, "args": list(vantage.args),
            "expected": vantage.expect.summary(), "kdiag": times.to_json(),
            "topic_warmup": {key: warmup[vantage.name].to_json()[key] for key in ("outcome", "seconds", "error")},
            "clients": {run.client: run.to_json() for run in runs},
            "ratios": {run.client: None if run.ratio(times.median_s) is None else round(run.ratio(times.median_s), 1)
                       for run in runs},
            "verdict": verdict(times.median_s, runs),
        })  # fmt: skip
    return result


def _side_by_side(jobs: Sequence[tuple[str, Callable[[], ClientRun]]], vantages: Sequence[Vantage]) -> dict[str, list[ClientRun]]:
    """Run every job at once; each vantage's results in job order."""
    runs: dict[str, list[ClientRun]] = {vantage.name: [] for vantage in vantages}
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [(name, pool.submit(job)) for name, job in jobs]
        for name, future in futures:
            runs[name].append(future.result())
    return runs


def warm_up_topics(live: LiveScenario, vantages: Sequence[Vantage], *, workdir: Path) -> dict[str, ClientRun]:
    """One unmeasured message from every vantage at once (``WARMUP_CAP`` s each), before the measured clients.

    It gets each vantage's topic auto-created (where the broker allows it and the vantage reaches a
    broker) before any measured client asks for it, as an application's topic exists before the
    application runs. Without it the clients, started side by side, race to create it, and which one
    asks first changes what the others meet: a console producer whose first metadata answer lacks the
    topic blocks in send() for max.block.ms (60 s); one that finds it appends the record, then waits for
    a producer id from the broker it cannot reach, and its delivery.timeout.ms never fires.
    """
    workdir.mkdir()
    jobs = [(vantage.name, lambda v=vantage: confluent_kafka_producer(
        live, v, client_options(live.args(v)[2:]), cap=WARMUP_CAP, workdir=workdir)) for vantage in vantages]
    return {name: runs[0] for name, runs in _side_by_side(jobs, vantages).items()}


def clients_side_by_side(live: LiveScenario, vantages: Sequence[Vantage], *, cap: float, java: bool,
                         workdir: Path) -> dict[str, list[ClientRun]]:
    """Every vantage's clients, all started at once; each stopped at ``cap`` seconds."""
    tool = ConsoleProducer.find(workdir) if java else None
    jobs: list[tuple[str, Callable[[], ClientRun]]] = []
    for vantage in vantages:
        options = client_options(live.args(vantage)[2:])
        jobs.append((vantage.name, lambda v=vantage, o=options: confluent_kafka_producer(live, v, o, cap=cap,
                                                                                      workdir=workdir)))
        if isinstance(tool, ConsoleProducer):
            jobs.append((vantage.name, lambda v=vantage, o=options: console_producer(live, v, o, cap=cap,
                                                                                  workdir=workdir, tool=tool)))
        elif isinstance(tool, str):
            jobs.append((vantage.name, lambda reason=tool: ClientRun("console-producer", "skipped", error=reason)))
    return _side_by_side(jobs, vantages)


# --------------------------------------------------------------------------- the summary


def _client_text(run: dict[str, Any], cap: float) -> str:
    outcome, seconds = run["outcome"], run["seconds"]
    if outcome == "skipped":
        return f"skipped ({run['error']})"
    if outcome == "cap":
        return f"no outcome by the {cap:g} s cap"
    if outcome == "succeeded":
        return f"succeeded {seconds:.1f} s"
    return f"failed {seconds:.1f} s ({'timeout' if run['timed_out'] else 'no timeout'})"


def _expected_text(summary: str) -> str:
    """``exit 1, A, B`` -> ``A, B``; ``exit 0, healthy`` -> ``healthy``."""
    return summary.split(", ", 1)[1] if ", " in summary else summary


def summary_md(results: dict[str, Any]) -> str:
    cap, java = results["cap_s"], results["console_producer"] is not None
    header = ["scenario", "vantage", "expected findings", "kdiag s", "confluent-kafka producer", "ratio"]
    if java:
        header += ["console producer", "ratio"]
    header.append("verdict (target ≥ 30× for the clients that wait on a timeout)")
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    unexpected, counted = [], {"meets target": 0, "misses": 0, "n/a": 0}
    for scenario in results["scenarios"]:
        if "error" in scenario:
            rows.append(f"| {scenario['name']} | — | — | did not come up: {scenario['error'].splitlines()[0]} |"
                        + " |" * (len(header) - 4))
            continue
        for vantage in scenario["vantages"]:
            kdiag = vantage["kdiag"]
            mark = "" if kdiag["as_expected"] else " ✗"
            if not kdiag["as_expected"]:
                unexpected.append(f"{scenario['name']} / {vantage['name']}: " + "; ".join(
                    sorted({d for run in kdiag["differences"] for d in run})))
            cells = [scenario["name"], vantage["name"], _expected_text(vantage["expected"]),
                     f"{kdiag['median_s']:.2f}{mark}"]
            for name in ("confluent-kafka", "console-producer") if java else ("confluent-kafka",):
                run = vantage["clients"][name]
                ratio = vantage["ratios"][name]
                cells += [_client_text(run, scenario.get("cap_s", cap)),
                          "—" if ratio is None else ("≥ " if run["outcome"] == "cap" else "") + _ratio_plain(ratio)]
            cells.append(vantage["verdict"])
            counted["meets target" if vantage["verdict"].startswith("meets target") else
                    "n/a" if vantage["verdict"].startswith("n/a") else "misses"] += 1
            rows.append("| " + " | ".join(cells) + " |")
    scenario_rows = ["| scenario | vantages | bring up | kdiag runs | topic warm-up | clients side by side | teardown | total |",
                     "|---|---|---|---|---|---|---|---|"]
    for scenario in results["scenarios"]:
        if "error" in scenario:
            scenario_rows.append(f"| {scenario['name']} | — | did not come up | — | — | — | — | {scenario['total_s']:.0f} s |")
            continue
        scenario_rows.append(
            f"| {scenario['name']} | {len(scenario['vantages'])} | {scenario['up_s']:.1f} s | "
            f"{scenario['kdiag_phase_s']:.1f} s | {scenario.get('warmup_s', 0):.1f} s | {scenario['clients_phase_s']:.1f} s | {scenario['teardown_s']:.1f} s | "
            f"{scenario['total_s']:.0f} s |")
    total = results["total_s"]
    lines = [
        f"Per vantage, kdiag and the client in one run: kdiag's time to its verdict vs the real client's time to fail or succeed, from the "
        f"same namespace with the same bootstrap string. Of {sum(counted.values())} vantages, "
        f"{counted['meets target']} meet the target, {counted['misses']} miss it and {counted['n/a']} are n/a (no "
        "client waited on a timeout). Whole run: "
        f"{total / 60:.1f} min ({total:.0f} s) for {results.get('measured_now', len(results['scenarios']))} scenarios.",
        *_runs_note(results),
        "",
        *rows,
        "",
        "Bringing each scenario up and down (wall time):",
        "",
        *scenario_rows,
        "",
        "Notes:",
        f"- **kdiag s**: whole-process wall time of `kdiag bootstrap … --format json` in the vantage's namespace, as "
        f"`kdiag lab run` runs it (`ip netns exec`, `unshare --uts`, `python -m kdiag`), median of "
        f"{results['kdiag_runs']} runs, the vantages one after the other with nothing else running. ✗ marks a vantage "
        "where kdiag's findings differed from the scenario's expected set (listed below).",
        f"- **confluent-kafka producer** (confluent-kafka {results['confluent_kafka']}, librdkafka "
        f"{results['librdkafka']}): a `Producer` with only `bootstrap.servers` set producing one message to the "
        f"vantage's `--topic`, else kdiag's own probe topic `{DEFAULT_TOPIC}` (the topic kdiag's round trip used: it creates "
        "it when missing; where no kdiag run got that far the broker auto-creates it), timed from process start (Python start-up and "
        "import included, as for kdiag) to its delivery report. librdkafka's `message.timeout.ms` (300 s) bounds it.",
    ]
    if java:
        lines.append(
            f"- **console producer**: `kafka.tools.ConsoleProducer` from the Kafka {CONSOLE_PRODUCER_VERSION} jars with "
            "the JVM options and tools-log4j of `kafka-console-producer.sh`, one line on stdin, timed until it "
            "exits. Besides the producer's defaults (`max.block.ms` 60 s, `delivery.timeout.ms` 120 s) the tool sets "
            "its own (`request.timeout.ms` 1500, `linger.ms` 1000, `retries` 3: the effective values are in the JSON). "
            "It is idempotent (the producer's default since Kafka 3.0): where the topic's leader is advertised at "
            "an address it cannot reach, it appends the record, then asks that broker for a producer id over and "
            "over, and `delivery.timeout.ms` never fires (seen still retrying at the cap, below); where its first "
            "metadata answer lacks the topic, `send()` instead gives up after `max.block.ms` (60 s).")
    lines += [
        "- **timeout**: the client's failure is its own timeout (librdkafka `_MSG_TIMED_OUT`, or "
        "`UNKNOWN_TOPIC_OR_PART` once `topic.metadata.propagation.max.ms`, 30 s, has passed; a Java "
        "`TimeoutException` for the failed send), or it had no outcome by the cap (the ratio is then a lower bound, shown ≥). Only "
        "there does the 30× target apply. A client that succeeds, or fails on an answer rather than a timeout (the "
        "console producer rejects an unresolvable bootstrap name in its constructor, and gives up on "
        "NOT_LEADER_OR_FOLLOWER after the 3 retries the tool sets), is n/a: its ratio is shown all the same.",
        f"- **topic warm-up**: before the measured clients, every vantage sends one unmeasured message at once "
        f"({WARMUP_CAP:g} s cap), so the topic is auto-created (where the broker allows it and some vantage reaches "
        "a broker) before any measured client asks for it, as an application's topic exists before it runs. "
        "Otherwise the clients, started side by side, race to create it, and the first to ask changes what the "
        "others meet.",
        f"- All clients of a scenario ({'two' if java else 'one'} per vantage) start at once on this 2-core machine, "
        "so their start-up (JVMs above all) contends for the CPU: fast outcomes are slower than a client alone "
        "would be, while a 60-300 s timeout moves by a few seconds.",
        "- One keyless message lands on one partition. Where only some partitions or only consumers are broken "
        "(a broker of several misadvertised, the group coordinator unreachable), the producer may well succeed: "
        "its column is what one producer saw, not the extent of the failure kdiag reports.",
    ]
    if unexpected:
        lines += ["", "Vantages where kdiag's findings differed from the expected set:", "",
                  *(f"- {line}" for line in unexpected)]
    return "\n".join(lines)


def _ratio_plain(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.1f}×"


# --------------------------------------------------------------------------- main


def _runs_note(results: dict[str, Any]) -> list[str]:
    """With --merge the rows come from several runs: say which, and each run's client cap."""
    runs: dict[tuple[str, float], list[str]] = {}
    for scenario in results["scenarios"]:
        key = (scenario.get("measured_at", results.get("measured_at", "?"))[:10], scenario.get("cap_s", results["cap_s"]))
        runs.setdefault(key, []).append(scenario["name"])
    if len(runs) < 2:
        return []
    parts = [f"{len(names)} scenarios on {day} (clients capped at {cap:.0f} s)" for (day, cap), names in sorted(runs.items())]
    return ["", "The rows come from separate runs, each row's kdiag and client times from the same run: "
            + "; ".join(parts) + ". The whole-run time above is the last run's."]


def render_only() -> None:
    """Rewrite the verdicts and ``summary_md`` of ``bench/results/lab.json`` from its own figures."""
    path = RESULTS / "lab.json"
    results = json.loads(path.read_text())
    for scenario in results["scenarios"]:
        for vantage in scenario.get("vantages", ()):
            runs = [ClientRun.from_json(run) for run in vantage["clients"].values()]
            vantage["verdict"] = verdict(vantage["kdiag"]["median_s"], runs)
    results["summary_md"] = summary_md(results)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {path.relative_to(REPO)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", nargs="+", metavar="NAME", help="only these scenarios (default: all)")
    parser.add_argument("--no-java", action="store_true", help="leave out the Kafka console producer")
    parser.add_argument("--cap", type=float, default=DEFAULT_CAP,
                        help="stop waiting for a client after this many seconds (librdkafka's default "
                             "message.timeout.ms is 300 s); the ratio is then a lower bound")
    parser.add_argument("--kdiag-runs", type=int, default=3, help="kdiag runs per vantage (the median is used)")
    parser.add_argument("--merge", action="store_true",
                        help="keep bench/results/lab.json's other scenarios, replacing only those measured now")
    parser.add_argument("--render-only", action="store_true",
                        help="measure nothing: recompute the verdicts and summary of bench/results/lab.json")
    args = parser.parse_args()
    if args.render_only:
        render_only()
        return
    if not in_sandbox():
        raise SystemExit("bench: run it in the sandbox: python -m kdiag.lab.sandbox -- python -m bench.bench_lab")
    import confluent_kafka

    scenarios = all_scenarios()
    if args.scenarios:
        known = {scenario.name: scenario for scenario in scenarios}
        unknown = [name for name in args.scenarios if name not in known]
        if unknown:
            raise SystemExit(f"bench: no scenario {', '.join(unknown)} (known: {', '.join(known)})")
        scenarios = tuple(known[name] for name in args.scenarios)
    started = time.monotonic()
    results: dict[str, Any] = {
        "title": "kdiag lab scenarios: time to the verdict vs a default client",
        "broker_version": kafka.KAFKA_VERSION, "confluent_kafka": confluent_kafka.__version__,
        "librdkafka": confluent_kafka.libversion()[0],
        "console_producer": None if args.no_java else CONSOLE_PRODUCER_VERSION, "cap_s": args.cap,
        "kdiag_runs": args.kdiag_runs, "target_ratio": TARGET_RATIO, "complete": False, "scenarios": [],
    }  # fmt: skip
    kept: list[dict[str, Any]] = []
    if args.merge and (RESULTS / "lab.json").exists():
        earlier = json.loads((RESULTS / "lab.json").read_text())
        if (earlier["console_producer"] is None) != args.no_java:
            raise SystemExit("bench: --merge needs the same clients as the earlier run (--no-java or not)")
        measuring = {scenario.name for scenario in scenarios}
        kept = [{"measured_at": earlier["measured_at"], "cap_s": earlier["cap_s"], **scenario}
                for scenario in earlier["scenarios"] if scenario["name"] not in measuring]
    results["scenarios"] = kept
    for scenario in scenarios:
        measured = bench_scenario(scenario, cap=args.cap, java=not args.no_java, kdiag_runs=args.kdiag_runs)
        results["scenarios"].append({"measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                     "cap_s": args.cap, **measured})
        results["total_s"] = round(time.monotonic() - started, 1)
        results["measured_now"] = len(results["scenarios"]) - len(kept)
        results["complete"] = scenario is scenarios[-1]
        write_results("lab", {**results, "summary_md": summary_md(results)})
    print(summary_md(results))


if __name__ == "__main__":
    main()
