"""Bring a scenario up, run ``kdiag bootstrap`` from its vantages, judge each run, take it all down.

:func:`scenario_up` is the one way a scenario comes to life: the topology (:func:`~kdiag.lab.netns.lab_up`),
its helper processes and ``before-brokers`` setup steps, then the brokers, each cluster's nodes started
side by side, in their hosts' namespaces, with their data in the run's state directory, then its
``after-brokers`` setup steps. ``{state_dir}`` in a step's argv, in a broker override's value or in a
vantage's arguments is that run's state directory. Whatever fails on the way (a setup step, a broker
that does not start, Ctrl-C, SIGTERM from ``kdiag lab down``) tears down everything made so far and
raises; a :class:`~kdiag.lab.netns.LabError` names the step.

A run records ``scenario.json`` in its state directory (``/run/kdiag-lab/<run>/``), so ``kdiag lab down``
finds the ``kdiag lab up`` processes holding a scenario up and asks them to tear it down.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from kdiag.lab import netns
from kdiag.lab.kafka import KAFKA_VERSION, BrokerSpec, KafkaCluster, KafkaLabError, uts_hostname_prefix
from kdiag.lab.netns import LabError, LiveTopology, cleanup_stale, lab_up
from kdiag.lab.scenarios.base import STATE_DIR, LabBroker, LabProcess, LabStep, Scenario, Vantage, compare

SCENARIO_RECORD = "scenario.json"
VANTAGE_TIMEOUT = 120.0
"""Seconds one ``kdiag bootstrap`` run may take before the lab gives up on it (kdiag's own budget is 10 s)."""
BROKER_START_TIMEOUT = 90.0
"""Seconds a scenario's brokers may take to start (about 4 s each on a 2-core machine)."""
PROCESS_READY_TIMEOUT = 10.0
"""Seconds a scenario's helper process may take to listen on its ports."""
SETUP_STEP_TIMEOUT = 60.0
"""Seconds one setup step of a scenario may take."""
STOP_WAIT = 30.0
"""Seconds ``kdiag lab down`` waits for an ``up`` process to finish its teardown."""

Mode = Literal["up", "run"]


def kdiag_command() -> list[str]:
    """How this interpreter runs kdiag (the same code, whatever ``kdiag`` is first on PATH)."""
    return [sys.executable, "-m", "kdiag"]


def shown_kdiag() -> str:
    """How to run kdiag in a command printed for a person."""
    return "kdiag" if shutil.which("kdiag") else f"{shlex.quote(sys.executable)} -m kdiag"


# --------------------------------------------------------------------------- one vantage's run


@dataclass(frozen=True)
class VantageRun:
    """What ``kdiag bootstrap`` did from one vantage, and how that compares with the expectation."""

    vantage: Vantage
    namespace: str
    command: str
    exit_code: int
    output: str
    stderr: str
    report: dict[str, Any] | None
    seconds: float
    differences: tuple[str, ...]

    @property
    def as_expected(self) -> bool:
        return not self.differences

    def found(self) -> str:
        """``exit 1, ADVERTISED_UNRESOLVABLE``: what happened, in the words of ``Expect.summary``."""
        ids = sorted({f["id"] for f in (self.report or {}).get("findings", ()) if f.get("severity") in ("error", "warning")})
        return f"exit {self.exit_code}, {', '.join(ids) or 'healthy'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.vantage.name,
            "host": self.vantage.host,
            "namespace": self.namespace,
            "command": self.command,
            "why": self.vantage.why,
            "expected": self.vantage.expect.to_json(),
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 3),
            "as_expected": self.as_expected,
            "differences": list(self.differences),
            "report": self.report,
        }


# --------------------------------------------------------------------------- a scenario that is up


class LiveScenario:
    """A scenario whose lab and brokers are up; use it only inside :func:`scenario_up`."""

    def __init__(self, scenario: Scenario, live: LiveTopology, clusters: Sequence[KafkaCluster]) -> None:
        self.scenario = scenario
        self.live = live
        self.clusters = tuple(clusters)

    def ns(self, host: str) -> str:
        return self.live.ns(host)

    def args(self, vantage: Vantage) -> list[str]:
        """The vantage's ``kdiag`` arguments in this run (``{state_dir}`` replaced)."""
        return [in_run(arg, self.live.state_dir) for arg in vantage.bootstrap_args]

    def command(self, vantage: Vantage) -> str:
        """The command a person runs (as root) to see what this vantage sees."""
        args = " ".join(shlex.quote(arg) for arg in self.args(vantage))
        return f"ip netns exec {self.ns(vantage.host)} {shown_kdiag()} {args}"

    def run(self, vantage: Vantage, *, fmt: str = "json", color: bool = False, timeout: float = VANTAGE_TIMEOUT) -> VantageRun:
        """Run ``kdiag bootstrap`` from ``vantage`` printing ``fmt``, and judge its JSON report.

        Run the vantages of one lab one after the other, not side by side: on a cluster this fresh, one
        run's round trip creates ``__consumer_offsets`` while another proves broker identity with
        ListOffsets on it, and the partition still loading answers NOT_LEADER_OR_FOLLOWER, which reads
        as ADVERTISED_WRONG_BROKER. One after the other, each run takes about a second.
        """
        report_path = self.live.state_dir / f"report-{vantage.name}.json"
        report_path.unlink(missing_ok=True)
        # Under the lab host's name, so each report says where it was made ("from laptop").
        argv = [*uts_hostname_prefix(vantage.host), *kdiag_command(), *self.args(vantage), "--format", fmt,
                "--output", str(report_path)]
        env = {**os.environ, "FORCE_COLOR": "1"} if color else {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
        started = time.monotonic()
        try:
            done = subprocess.run(
                self.live.exec_argv(vantage.host, argv), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=timeout, env=env, check=False,
            )  # fmt: skip
            exit_code, output, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as expired:
            exit_code, output = -1, _text(expired.stdout)
            stderr = _text(expired.stderr) + f"\nkdiag lab: kdiag bootstrap did not finish within {timeout:g} s"
        seconds = time.monotonic() - started
        try:
            report: dict[str, Any] | None = json.loads(report_path.read_text())
        except (OSError, ValueError):
            report = None
        differences = compare(vantage.expect, exit_code, report)
        return VantageRun(vantage, self.ns(vantage.host), self.command(vantage), exit_code, output, stderr, report,
                          seconds, tuple(differences))


def _text(value: bytes | str | None) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value or ""


@contextmanager
def scenario_up(scenario: Scenario, *, version: str = KAFKA_VERSION, mode: Mode = "run") -> Iterator[LiveScenario]:
    """Bring ``scenario`` up for the ``with`` block: its lab, then its brokers; always torn down afterwards.

    Raises :class:`LabError` naming the step that failed, after tearing down what was made.
    """
    with lab_up(scenario.topology) as live:
        _record(live, scenario, mode)
        for process in scenario.processes:
            _start_process(live, process)
        for step in scenario.setup:
            if step.when == "before-brokers":
                _run_setup_step(live, step)
        with ExitStack() as brokers:
            clusters = []
            # One cluster after the other, each cluster's nodes side by side; all from this thread,
            # since a broker dies with the thread that started it (kafka._parent_death_guard).
            for group in scenario.broker_groups():
                clusters.append(brokers.enter_context(_start_cluster(live, group, version)))
            for step in scenario.setup:
                if step.when == "after-brokers":
                    _run_setup_step(live, step)
            yield LiveScenario(scenario, live, clusters)


def in_run(text: str, state_dir: Path) -> str:
    """``text`` with ``{state_dir}`` replaced by this run's state directory."""
    return text.replace(STATE_DIR, str(state_dir))


def _in_run_spec(spec: BrokerSpec, state_dir: Path) -> BrokerSpec:
    if not any(STATE_DIR in value for value in spec.overrides.values()):
        return spec
    return replace(spec, overrides={key: in_run(value, state_dir) for key, value in spec.overrides.items()})


def _start_cluster(live: LiveTopology, group: Sequence[LabBroker], version: str) -> KafkaCluster:
    nodes = ", ".join(f"{broker.spec.node_id} in {broker.host}" for broker in group)
    step = f"start Kafka {version} broker{'s' if len(group) > 1 else ''} {nodes}"
    specs = [_in_run_spec(broker.spec, live.state_dir) for broker in group]
    try:
        return KafkaCluster.start(
            specs, version=version, workdir=live.state_dir / "kafka",
            netns=[live.ns(broker.host) for broker in group], timeout=BROKER_START_TIMEOUT,
        )  # fmt: skip
    except (KafkaLabError, ValueError) as error:
        raise LabError(f"step {step} failed: {error}", step=step, stderr=str(error)) from None


def _start_process(live: LiveTopology, process: LabProcess) -> None:
    """Start ``process`` in its host (the lab stops it) and wait until it listens on its ports."""
    step = f"start {process.name} in {process.host}"
    log_path = live.state_dir / f"process-{process.name}.log"
    with log_path.open("wb") as log:
        try:
            started = live.popen(process.host, [in_run(arg, live.state_dir) for arg in process.argv],
                                 stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as error:
            raise LabError(f"step {step} failed: {error}", step=step, argv=process.argv) from None
    deadline = time.monotonic() + PROCESS_READY_TIMEOUT
    while not all(_tcp_listening(started.pid, port) for port in process.listens_on):
        reason = None
        if started.poll() is not None:
            reason = f"it exited with status {started.returncode}"
        elif time.monotonic() > deadline:
            reason = f"not listening on {', '.join(map(str, process.listens_on))} after {PROCESS_READY_TIMEOUT:g} s"
        if reason:
            output = log_path.read_text(errors="replace").strip()[-2000:]
            raise LabError(f"step {step} failed: {shlex.join(process.argv)}: {reason}" + (f"\n{output}" if output else ""),
                           step=step, argv=process.argv, stderr=output)
        time.sleep(0.02)


def _run_setup_step(live: LiveTopology, setup: LabStep) -> None:
    """Run ``setup`` in its host to completion; a LabError naming it, with its output, unless it exits 0."""
    step = f"{setup.name} in {setup.host}"
    argv = [in_run(arg, live.state_dir) for arg in setup.argv]
    try:
        done = live.run(setup.host, argv, timeout=SETUP_STEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise LabError.step_failed(step, argv, f"did not finish within {SETUP_STEP_TIMEOUT:g} s") from None
    except OSError as error:
        raise LabError.step_failed(step, argv, str(error)) from None
    if done.returncode != 0:
        output = (done.stderr.strip() or done.stdout.strip())[-2000:]
        raise LabError.step_failed(step, argv, output or f"exit status {done.returncode}")


def _tcp_listening(pid: int, port: int) -> bool:
    """Whether the network namespace of ``pid`` has a TCP socket listening on ``port`` (any address)."""
    for table in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                return True
    return False


def _record(live: LiveTopology, scenario: Scenario, mode: Mode) -> None:
    record = {
        "scenario": scenario.name,
        "mode": mode,
        "pid": os.getpid(),
        "namespaces": dict(live.layout.namespaces),
    }
    (live.state_dir / SCENARIO_RECORD).write_text(json.dumps(record, indent=2) + "\n")


# --------------------------------------------------------------------------- labs held up by `kdiag lab up`


@dataclass(frozen=True)
class RunningLab:
    """A scenario some ``kdiag lab up`` (or ``run``) process holds up right now."""

    scenario: str
    mode: str
    pid: int
    state_dir: Path
    namespaces: dict[str, str]


def running_labs(name: str | None = None, *, mode: Mode | None = "up") -> list[RunningLab]:
    """The scenario labs up right now whose owner lives (of scenario ``name``, held by ``mode``)."""
    if not netns.STATE_ROOT.is_dir():
        return []
    labs = []
    for record_path in sorted(netns.STATE_ROOT.glob(f"*/{SCENARIO_RECORD}")):
        state_dir = record_path.parent
        try:
            record = json.loads(record_path.read_text())
        except (OSError, ValueError):
            continue
        if not netns.owner_alive(state_dir):
            continue
        if (name is None or record.get("scenario") == name) and (mode is None or record.get("mode") == mode):
            labs.append(RunningLab(record.get("scenario", "?"), record.get("mode", "?"), int(record.get("pid", 0)),
                                   state_dir, dict(record.get("namespaces", {}))))
    return labs


def stop_running(name: str | None = None, *, wait: float = STOP_WAIT) -> tuple[list[RunningLab], list[str]]:
    """Ask each ``kdiag lab up`` holding ``name`` (every scenario: None) to tear down, wait, then clean stale runs.

    Returns the labs stopped and the namespaces :func:`cleanup_stale` removed (a run killed before its
    teardown, or one that did not finish in ``wait`` seconds and was killed).
    """
    labs = running_labs(name)
    for lab in labs:
        _signal_owner(lab, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while any(netns.owner_alive(lab.state_dir) for lab in labs) and time.monotonic() < deadline:
        time.sleep(0.1)
    stuck = [lab for lab in labs if netns.owner_alive(lab.state_dir)]
    for lab in stuck:
        _signal_owner(lab, signal.SIGKILL)  # its brokers die with it (parent-death signal)
    deadline = time.monotonic() + 5.0
    while any(netns.owner_alive(lab.state_dir) for lab in stuck) and time.monotonic() < deadline:
        time.sleep(0.05)
    return labs, cleanup_stale()


def _signal_owner(lab: RunningLab, signum: signal.Signals) -> None:
    if netns.owner_alive(lab.state_dir):  # the pid is still that run's, not a recycled one
        try:
            os.kill(lab.pid, signum)
        except ProcessLookupError:
            pass
