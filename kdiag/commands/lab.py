"""``kdiag lab``: real-broker scenarios in network namespaces, each with the verdict kdiag owes it.

``lab_app`` is the typer sub-app ``register`` adds as ``lab``. The commands are thin: they parse,
check root, and hand over to :mod:`kdiag.lab.runner`; each returns an ``ExitStatus``. Heavy imports
(the scenarios, the runner) happen inside the commands, so ``kdiag --help`` stays fast.
"""

# No ``from __future__ import annotations``: typer reads the options' Annotated types at runtime.

import json
import signal
import time
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from kdiag.environment import DebugOption, Environment, JsonOption, choose_format, environment, format_option
from kdiag.exitstatus import ExitStatus, UsageError
from kdiag.render import Format

if TYPE_CHECKING:
    from kdiag.lab.scenarios.base import Scenario

LIST_SCHEMA = "kdiag.lab-list/1"
RUN_SCHEMA = "kdiag.lab-run/1"

LAB_HELP = """\
Real Kafka brokers in network namespaces, reproducing how people get stuck (an EC2 broker advertising
its internal name, a Docker broker's listeners seen from inside and outside, ...), each scenario with
the findings kdiag must report from each place a client stands. A demo, a training aid, and a test.
Needs root (namespaces, veths, iptables, dnsmasq), Java 17+ and the Kafka jars (Maven Central).
"""

LAB_EPILOG = """\
\b
Examples:
  kdiag lab list
  sudo kdiag lab run ec2-internal-hostname                 # up, kdiag from every vantage, verdicts, down
  sudo kdiag lab run docker-listeners --from outside-fred  # one vantage (or every vantage in a host)
  sudo kdiag lab up docker-listeners                       # keep it up; prints the commands to try
  sudo kdiag lab down                                      # tear down what 'up' holds, and stale leftovers
"""

lab_app = typer.Typer(
    name="lab",
    help=LAB_HELP,
    epilog=LAB_EPILOG,
    short_help="Reproduce real-world connectivity problems with real brokers in network namespaces.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

ScenarioArgument = Annotated[str, typer.Argument(metavar="NAME", show_default=False, help="A scenario (kdiag lab list).")]
JsonFlag = JsonOption
FormatFlag = format_option(
    "text (each report and its verdict, default), json (the kdiag.lab-run/1 document) or markdown.")
KafkaVersionOption = Annotated[Optional[str], typer.Option(
    "--kafka-version", metavar="VERSION", show_default=False,
    help="The Apache Kafka release the brokers run (default: the newest kdiag is tested with).",
)]


def _needs_root(env: "Environment") -> bool:
    """Say so in one line, and return True, when this process cannot build a lab."""
    from kdiag.lab.netns import LabError, require_root

    try:
        require_root()
    except LabError as error:
        env.say(str(error))
        return True
    return False


def _scenario(name: str) -> "Scenario":
    from kdiag.lab.netns import LabError
    from kdiag.lab.scenarios import get_scenario

    try:
        return get_scenario(name)
    except LabError as error:
        raise UsageError(str(error)) from None


def _version(version: Optional[str]) -> str:
    import re

    from kdiag.lab.kafka import KAFKA_VERSION

    if version is not None and not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise UsageError(f"--kafka-version {version!r} is not a Kafka release version (e.g. {KAFKA_VERSION})")
    return version or KAFKA_VERSION


def _did_not_come_up(env: "Environment", scenario: "Scenario", error: Exception) -> ExitStatus:
    """The step that failed, then (for a broker) its log tail; everything made was torn down already."""
    lines = str(error).splitlines() or [type(error).__name__]
    env.say(f"kdiag lab: {scenario.name} did not come up: {lines[0]}")
    for line in lines[1:]:  # the broker's log: said line by line, scrubbed and printable
        env.say(f"  {line}")
    env.say("kdiag lab: everything it had made is torn down")
    return ExitStatus.PROBLEMS


# --------------------------------------------------------------------------- kdiag lab list


@lab_app.command("list", short_help="The scenarios, by name.",
                 help="The scenarios: name and title (--json: everything, with each vantage's expected outcome).")
def list_command(ctx: typer.Context, json_flag: JsonFlag = False, debug: DebugOption = False) -> ExitStatus:
    from kdiag.lab.scenarios import all_scenarios
    from kdiag.render.lab import scenario_list

    env = environment(ctx)
    scenarios = all_scenarios()
    if json_flag:
        document = {"schema": LIST_SCHEMA, "scenarios": [scenario_json(scenario) for scenario in scenarios]}
        env.write(json.dumps(document, indent=2) + "\n")
        return ExitStatus.OK
    env.write(scenario_list(scenarios))
    return ExitStatus.OK


def scenario_json(scenario: "Scenario") -> dict:
    return {
        "name": scenario.name,
        "title": scenario.title,
        "description": scenario.description,
        "seed": scenario.seed,
        "hosts": [{"name": host.name, "addresses": scenario.addresses(host.name)} for host in scenario.topology.hosts],
        "brokers": [{"node_id": broker.spec.node_id, "host": broker.host} for broker in scenario.brokers],
        "vantages": [
            {"name": vantage.name, "host": vantage.host, "bootstrap": vantage.bootstrap, "args": list(vantage.args),
             "expected": vantage.expect.to_json(), "why": vantage.why}
            for vantage in scenario.vantages
        ],
    }


# --------------------------------------------------------------------------- kdiag lab up


@lab_app.command("up", short_help="Bring a scenario up and hold it; prints the commands to try.",
                 help="Bring a scenario up and hold it until Ctrl-C or 'kdiag lab down'; prints the namespaces and the "
                      "kdiag commands to try from each, with what each should find.")
def up_command(ctx: typer.Context, name: ScenarioArgument, kafka_version: KafkaVersionOption = None,
               debug: DebugOption = False) -> ExitStatus:
    from kdiag.lab.kafka import KafkaLabError
    from kdiag.lab.netns import LabError
    from kdiag.lab.runner import scenario_up
    from kdiag.render.lab import describe_live

    env = environment(ctx)
    if _needs_root(env):
        return ExitStatus.USAGE
    scenario = _scenario(name)
    version = _version(kafka_version)
    _bringing_up(env, scenario, version)
    started = time.monotonic()
    try:
        with scenario_up(scenario, version=version, mode="up") as live:
            env.write(describe_live(live, version, seconds=time.monotonic() - started))
            stopped_by = _hold()
            env.say(f"kdiag lab: {stopped_by}: tearing {scenario.name} down")
    except (LabError, KafkaLabError) as error:
        return _did_not_come_up(env, scenario, error)
    env.say(f"kdiag lab: {scenario.name} is torn down")
    return ExitStatus.OK


def _hold() -> str:
    """Wait for Ctrl-C or SIGTERM/SIGHUP (``kdiag lab down``); return which."""
    try:
        while True:
            signal.pause()
    except KeyboardInterrupt:
        return "Ctrl-C"
    except SystemExit:  # lab_up turns SIGTERM/SIGHUP into SystemExit while the lab is up
        return "asked to stop"


def _bringing_up(env: "Environment", scenario: "Scenario", version: str) -> None:
    brokers = len(scenario.brokers)
    env.say(f"kdiag lab: bringing up {scenario.name}: {len(scenario.topology.hosts)} namespaces, "
            f"{brokers} Kafka {version} broker{'s' if brokers > 1 else ''}")


# --------------------------------------------------------------------------- kdiag lab down


@lab_app.command("down", short_help="Tear down what 'kdiag lab up' holds, and stale leftovers.",
                 help="Tear down the scenario NAME held up by 'kdiag lab up' (every one without NAME), and whatever "
                      "crashed runs left behind. Nothing to tear down is fine.")
def down_command(
    ctx: typer.Context,
    name: Annotated[Optional[str], typer.Argument(metavar="[NAME]", show_default=False,
                                                  help="The scenario to tear down (default: every one).")] = None,
    debug: DebugOption = False,
) -> ExitStatus:
    from kdiag.lab.netns import LabError
    from kdiag.lab.runner import stop_running

    env = environment(ctx)
    if _needs_root(env):
        return ExitStatus.USAGE
    if name is not None:
        _scenario(name)
    try:
        stopped, stale = stop_running(name)
    except LabError as error:
        env.say(f"kdiag lab: teardown incomplete: {error}")
        return ExitStatus.PROBLEMS
    for lab in stopped:
        env.write(f"tore down {lab.scenario} (kdiag lab up, pid {lab.pid})\n")
    if stale:
        env.write(f"removed {len(stale)} stale namespace{'s' if len(stale) > 1 else ''}: {', '.join(stale)}\n")
    if not stopped and not stale:
        env.write(f"nothing to tear down: {name} is not up\n" if name else "nothing to tear down\n")
    return ExitStatus.OK


# --------------------------------------------------------------------------- kdiag lab run


@lab_app.command("run", short_help="Up, kdiag from each vantage, compare with the expected outcome, down.",
                 help="Bring a scenario up, run kdiag bootstrap from each vantage (or the --from one), print each report "
                      "and whether it is as expected, tear it down. Exit 0 when every vantage went as expected, 1 if not.")
def run_command(
    ctx: typer.Context,
    name: ScenarioArgument,
    place: Annotated[Optional[str], typer.Option(
        "--from", metavar="PLACE", show_default=False,
        help="Only this vantage, or every vantage in this host (default: all of them).",
    )] = None,
    fmt: FormatFlag = None,
    json_flag: JsonFlag = False,
    kafka_version: KafkaVersionOption = None,
    debug: DebugOption = False,
) -> ExitStatus:
    from kdiag.lab.kafka import KafkaLabError
    from kdiag.lab.netns import LabError
    from kdiag.lab.runner import scenario_up
    from kdiag.render.lab import render_run, summary_line

    env = environment(ctx)
    fmt = choose_format(fmt, json_flag)
    if _needs_root(env):
        return ExitStatus.USAGE
    scenario = _scenario(name)
    vantages = scenario.vantages_from(place)
    if not vantages:
        raise UsageError(f"--from {place}: {scenario.name} has no such vantage or host (try: {', '.join(scenario.places())})")
    version = _version(kafka_version)
    _bringing_up(env, scenario, version)
    started = time.monotonic()
    try:
        with scenario_up(scenario, version=version, mode="run") as live:
            env.say(f"kdiag lab: up in {time.monotonic() - started:.1f} s; running kdiag bootstrap from "
                    f"{len(vantages)} vantage{'s' if len(vantages) > 1 else ''}")
            runs = []
            for vantage in vantages:
                run = live.run(vantage, fmt=fmt.value, color=env.color and fmt is Format.TEXT)
                runs.append(run)
                if fmt is not Format.JSON:
                    env.write(render_run(run, fmt))
    except (LabError, KafkaLabError) as error:
        return _did_not_come_up(env, scenario, error)
    matched = sum(run.as_expected for run in runs)
    if fmt is Format.JSON:
        document = {"schema": RUN_SCHEMA, "scenario": scenario.name, "kafka_version": version,
                    "as_expected": matched == len(runs), "vantages": [run.to_json() for run in runs]}
        env.write(json.dumps(document, indent=2) + "\n")
    else:
        env.write(summary_line(scenario.name, runs, fmt))
    env.say(f"kdiag lab: {scenario.name} is torn down ({time.monotonic() - started:.1f} s in all)")
    return ExitStatus.OK if matched == len(runs) else ExitStatus.PROBLEMS


def register(app: typer.Typer) -> None:
    app.add_typer(lab_app, name="lab")
