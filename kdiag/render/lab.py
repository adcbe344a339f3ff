"""The views of ``kdiag lab``: the scenario list, what ``lab up`` prints, and each vantage's report
with its verdict (``lab run``). Pure: the lab's model in, text out (the JSON forms are the model's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kdiag.render.formats import Format
from kdiag.render.markup import inline_code
from kdiag.render.safe import printable, printable_lines

if TYPE_CHECKING:
    from kdiag.lab.runner import LiveScenario, VantageRun
    from kdiag.lab.scenarios.base import Scenario


def scenario_list(scenarios: Sequence[Scenario]) -> str:
    """``kdiag lab list``: one line per scenario, name and title."""
    width = max(len(scenario.name) for scenario in scenarios)
    return "".join(f"{scenario.name:<{width}}  {scenario.title}\n" for scenario in scenarios)


def describe_live(live: LiveScenario, version: str, *, seconds: float) -> str:
    """What ``kdiag lab up`` prints once the scenario is up: where everything is, and what to run."""
    scenario = live.scenario
    lines = [f"{scenario.name} is up ({seconds:.1f} s): {scenario.title}", "", "Namespaces:"]
    width = max(len(host.name) for host in scenario.topology.hosts)
    ns_width = max(len(live.ns(host.name)) for host in scenario.topology.hosts)
    for host in scenario.topology.hosts:
        addresses = ", ".join(scenario.addresses(host.name))
        lines.append(f"  {host.name:<{width}}  {live.ns(host.name):<{ns_width}}  {addresses}".rstrip())
    lines += ["", f"Kafka {version}:"]
    for broker in scenario.brokers:
        spec = broker.spec
        advertised = (",".join(listener.url for listener in spec.advertised) if spec.advertised is not None
                      else "(unset: the canonical host name)")
        lines.append(f"  broker {spec.node_id} in {broker.host}:")
        lines.append(f"    listeners={','.join(listener.url for listener in spec.listeners)}")
        lines.append(f"    advertised.listeners={advertised}")
        if spec.hostname:
            lines.append(f"    host name {spec.hostname}")
    lines += ["", "Try (as root); each comment says what kdiag should find there:"]
    for vantage in scenario.vantages:
        lines.append(f"  # {vantage.name}: {vantage.expect.summary()}")
        lines.append(f"  {live.command(vantage)}")
    lines += ["", f"Held up until Ctrl-C or: kdiag lab down {scenario.name}", ""]
    return "\n".join(lines)


def verdict(run: VantageRun) -> list[str]:
    """``as expected: exit 1, ADVERTISED_LOOPBACK``, or what differs, one line each."""
    if run.as_expected:
        return [f"as expected: {run.vantage.expect.summary()}"]
    return [f"NOT as expected: got {printable(run.found())}, expected {run.vantage.expect.summary()}",
            *(f"  - {printable(difference)}" for difference in run.differences)]


def render_run(run: VantageRun, fmt: Format) -> str:
    """One vantage's report (the kdiag run's own output, which drew it safe already), what it wrote on
    stderr (shown printable, line by line) and the verdict."""
    vantage = run.vantage
    stderr = [line for line in printable_lines(run.stderr) if line.strip()]
    if fmt is Format.MARKDOWN:
        parts = [f"## {vantage.name}: from {vantage.host}", "", inline_code(run.command), "", vantage.why, "",
                 run.output.rstrip(), ""]
        parts += [f"> {line}" for line in stderr] + ([""] if stderr else [])
        parts += [f"**{line}**" if i == 0 else line for i, line in enumerate(verdict(run))] + ["", ""]
        return "\n".join(parts)
    rule = "─" * 100
    parts = [rule, f"{vantage.name}: from {vantage.host}", f"$ {run.command}"]
    parts += [f"  {vantage.why}"] if vantage.why else []
    parts += [rule, run.output.rstrip(), *(f"stderr: {line}" for line in stderr)]
    parts += ["", *(f"» {line}" for line in verdict(run)), "", ""]
    return "\n".join(parts)


def summary_line(name: str, runs: Sequence[VantageRun], fmt: Format) -> str:
    matched = sum(run.as_expected for run in runs)
    differing = [run.vantage.name for run in runs if not run.as_expected]
    text = f"{name}: {matched} of {len(runs)} vantage{'s' if len(runs) > 1 else ''} as expected"
    if differing:
        text += f"; not as expected: {', '.join(differing)}"
    return (f"**{text}**\n" if fmt is Format.MARKDOWN else f"{text}\n")
