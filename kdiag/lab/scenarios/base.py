"""A lab scenario: one real-world connectivity situation, as plain data, with the verdict kdiag owes it.

A :class:`Scenario` holds everything ``kdiag lab`` needs and nothing it has to guess:

* ``topology``: the network-namespace lab (:mod:`kdiag.lab.netns`): machines, links, routes, DNS,
  published ports, firewalls;
* ``brokers``: the real Kafka brokers, each a :class:`~kdiag.lab.kafka.BrokerSpec` and the lab host it
  runs in (brokers sharing one ``quorum_voters`` form one cluster and start side by side);
* ``processes``: helper processes besides Kafka (Docker's userland proxy, an HTTP server on a port);
* ``setup``: commands run to completion while it comes up: before the brokers (the certificates a TLS
  listener reads) or once they are up (a topic whose partitions sit on chosen brokers);
* ``vantages``: where a client stands (a lab host), the bootstrap string it uses, extra ``kdiag
  bootstrap`` arguments, and the :class:`Expect`\\ ed outcome, with the reasoning in ``why``.

Declaring one::

    Scenario(
        name="ec2-option1",
        title="EC2, Option 1: one listener advertising the public name",
        description="...what a support engineer reads...",
        seed="003 (Connecting to Kafka on a Cloud Provider, first bullet)",
        topology=Topology(name="ec2opt1", hosts=(...), links=(...), ...),
        brokers=(LabBroker("ec2", BrokerSpec(node_id=1, listeners=(...), controller_port=9093)),),
        vantages=(
            Vantage("laptop", host="laptop", bootstrap="ec2-...:9092", expect=healthy(), why="..."),
            Vantage("laptop-internal", host="laptop", bootstrap="ec2-...:19092",
                    expect=problems(finding("ADVERTISED_UNRESOLVABLE", title=("ip-172-...",)))),
        ),
    )

A module in :mod:`kdiag.lab.scenarios` exposes its scenarios as ``SCENARIOS``; the package finds them.
:func:`compare` is the one judge of a run: it turns (expectation, exit status, JSON report) into the
list of differences, empty when the run went as expected.
"""

from __future__ import annotations

import ipaddress
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from kdiag.lab.kafka import BrokerSpec
from kdiag.lab.netns import LabError, Topology, validate

PROBLEM_SEVERITIES = ("error", "warning")
"""The severities an expectation lists exactly; ``info`` findings may come and go."""

STAGES = ("dns", "tcp", "tls", "sasl", "metadata", "advertised", "roundtrip")
STAGE_STATUSES = ("ok", "warn", "fail", "skip")
EXIT_CODES = (0, 1)
"""A vantage ends healthy (0) or with problems found (1); usage errors (2) are not scenarios."""
STATE_DIR = "{state_dir}"
"""Stands for the run's state directory in a :class:`LabStep`'s or :class:`LabProcess`'s ``argv``, in the values of a broker's
``overrides`` and in a vantage's ``args``: where a step leaves files for the brokers and the clients."""
_SCENARIO_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


# --------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class FindingExpect:
    """One finding a vantage must produce: its id, and text its title and its fix must contain."""

    id: str
    title_contains: tuple[str, ...] = ()
    fix_contains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for attribute in ("title_contains", "fix_contains"):
            value = getattr(self, attribute)
            object.__setattr__(self, attribute, (value,) if isinstance(value, str) else tuple(value))


def finding(finding_id: str, *, title: Sequence[str] | str = (), fix: Sequence[str] | str = ()) -> FindingExpect:
    """``finding("ADVERTISED_UNRESOLVABLE", title="kafka0", fix=("Option 1", ...))``."""
    return FindingExpect(finding_id, title_contains=title, fix_contains=fix)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Expect:
    """The outcome of ``kdiag bootstrap`` from one vantage.

    ``findings`` is the exact set of findings of severity error or warning (each with the text its
    title and fix must contain); ``stages`` maps the stages worth pinning to their status; ``hints``
    are info findings that must be there too (other infos may come and go).
    """

    exit_code: int
    findings: tuple[FindingExpect, ...] = ()
    stages: Mapping[str, str] = field(default_factory=dict)
    hints: tuple[FindingExpect, ...] = ()

    def __post_init__(self) -> None:
        for attribute in ("findings", "hints"):
            wanted = tuple(FindingExpect(f) if isinstance(f, str) else f for f in getattr(self, attribute))
            object.__setattr__(self, attribute, wanted)
        object.__setattr__(self, "stages", MappingProxyType(dict(self.stages)))

    @property
    def finding_ids(self) -> frozenset[str]:
        return frozenset(f.id for f in self.findings)

    def summary(self) -> str:
        """``exit 1, ADVERTISED_UNRESOLVABLE`` or ``exit 0, healthy``."""
        ids = ", ".join(sorted(self.finding_ids)) or "healthy"
        return f"exit {self.exit_code}, {ids}"

    def to_json(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "findings": [
                {"id": f.id, "title_contains": list(f.title_contains), "fix_contains": list(f.fix_contains)}
                for f in self.findings
            ],
            "stages": dict(self.stages),
            "hints": [
                {"id": f.id, "title_contains": list(f.title_contains), "fix_contains": list(f.fix_contains)}
                for f in self.hints
            ],
        }


def healthy(*, roundtrip: bool = True) -> Expect:
    """Exit 0, no error or warning finding, every stage ok (the round trip skipped with ``--no-roundtrip``)."""
    stages = {name: "ok" for name in ("dns", "tcp", "metadata", "advertised")}
    stages["roundtrip"] = "ok" if roundtrip else "skip"
    return Expect(0, (), stages)


def problems(*findings: FindingExpect | str, stages: Mapping[str, str] | None = None,
             hints: Sequence[FindingExpect | str] = ()) -> Expect:
    """Exit 1 with exactly these error/warning findings (and at least the info findings ``hints``)."""
    return Expect(1, tuple(FindingExpect(f) if isinstance(f, str) else f for f in findings), stages or {},
                  tuple(hints))


def compare(expect: Expect, exit_code: int, report: Mapping[str, Any] | None) -> list[str]:
    """What differs between the expected outcome and a run's exit status and JSON report; [] if nothing."""
    differences = []
    if exit_code != expect.exit_code:
        differences.append(f"exit status {exit_code}, expected {expect.exit_code}")
    if report is None:
        differences.append("no JSON report was written")
        return differences
    found = [f for f in report.get("findings", ()) if f.get("severity") in PROBLEM_SEVERITIES]
    found_ids = {f["id"] for f in found}
    missing = sorted(expect.finding_ids - found_ids)
    unexpected = sorted(found_ids - expect.finding_ids)
    if missing:
        differences.append(f"missing finding {', '.join(missing)}")
    if unexpected:
        described = "; ".join(f"{f['id']} ({f['severity']}): {f.get('title', '')}" for f in found if f["id"] in unexpected)
        differences.append(f"unexpected finding {described}")
    infos = [f for f in report.get("findings", ()) if f.get("severity") == "info"]
    absent_hints = sorted({hint.id for hint in expect.hints} - {f["id"] for f in infos})
    if absent_hints:
        differences.append(f"missing info finding {', '.join(absent_hints)}")
    for wanted, among in [(w, found) for w in expect.findings] + [(w, infos) for w in expect.hints]:
        for got in (f for f in among if f["id"] == wanted.id):
            for part, texts in (("title", wanted.title_contains), ("fix", wanted.fix_contains)):
                absent = [text for text in texts if text not in got.get(part, "")]
                if absent:
                    differences.append(f"{wanted.id}: its {part} lacks {', '.join(repr(t) for t in absent)}")
    statuses = {stage.get("name"): stage.get("status") for stage in report.get("stages", ())}
    for name, status in expect.stages.items():
        got = statuses.get(name)
        if got != status:
            summary = next((s.get("summary", "") for s in report.get("stages", ()) if s.get("name") == name), "")
            differences.append(f"stage {name} is {got or 'absent'}, expected {status}" + (f" ({summary})" if summary else ""))
    return differences


# --------------------------------------------------------------------------- the scenario


@dataclass(frozen=True)
class Vantage:
    """A client's place: ``host`` (a lab host), the ``bootstrap`` string it uses and what kdiag must say.

    ``name`` is unique within the scenario (``kdiag lab run NAME --from`` takes it, or a host name);
    ``args`` are extra ``kdiag bootstrap`` arguments (``--no-roundtrip``, ``--topic T``); ``why`` is the
    reasoning behind ``expect``, for the support engineer reading the scenario.
    """

    name: str
    host: str
    bootstrap: str
    expect: Expect
    args: tuple[str, ...] = ()
    why: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))

    @property
    def bootstrap_args(self) -> tuple[str, ...]:
        """The ``kdiag`` arguments of this vantage's run, without the output format."""
        return ("bootstrap", self.bootstrap, *self.args)


@dataclass(frozen=True)
class LabBroker:
    """A real Kafka broker running in lab host ``host``."""

    host: str
    spec: BrokerSpec


@dataclass(frozen=True)
class LabProcess:
    """A helper process in lab host ``host``: up before the brokers, stopped with the lab.

    For what a scenario needs besides Kafka: Docker's userland proxy, an HTTP server on the bootstrap
    port. ``listens_on`` are the TCP ports it must be listening on (in its namespace) before the
    scenario counts as up; ``name`` names it in the step that starts it.
    """

    name: str
    host: str
    argv: tuple[str, ...]
    listens_on: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(self.argv))
        object.__setattr__(self, "listens_on", tuple(self.listens_on))


@dataclass(frozen=True)
class LabStep:
    """A command run to completion in lab host ``host`` while the scenario comes up; it must exit 0.

    ``when="before-brokers"`` runs it after the helper processes and before the brokers start (make the
    certificates a TLS listener reads); ``"after-brokers"`` once they are up, before any vantage runs
    (create a topic with its partitions on chosen brokers). :data:`STATE_DIR` in ``argv`` is replaced by
    the run's state directory. ``name`` names it in the step that runs it.
    """

    name: str
    host: str
    argv: tuple[str, ...]
    when: Literal["before-brokers", "after-brokers"] = "after-brokers"

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(self.argv))


def python_module(module: str, *args: str) -> tuple[str, ...]:
    """``argv`` running ``module`` with this interpreter, for a :class:`LabProcess` or a :class:`LabStep`."""
    return (sys.executable, "-m", module, *args)


@dataclass(frozen=True)
class Scenario:
    """A reproduced situation: the lab, its brokers, and each vantage with its expected outcome.

    ``description`` tells a support engineer what real-world situation this is and why each vantage
    ends as it does; ``seed`` names the passage it reproduces.
    """

    name: str
    title: str
    description: str
    topology: Topology
    brokers: tuple[LabBroker, ...]
    vantages: tuple[Vantage, ...]
    seed: str = ""
    processes: tuple[LabProcess, ...] = ()
    setup: tuple[LabStep, ...] = ()

    def __post_init__(self) -> None:
        for attribute in ("brokers", "vantages", "processes", "setup"):
            object.__setattr__(self, attribute, tuple(getattr(self, attribute)))
        check_scenario(self)

    def vantages_from(self, place: str | None) -> tuple[Vantage, ...]:
        """Every vantage (``None``), the one named ``place``, or all those in lab host ``place``."""
        if place is None:
            return self.vantages
        named = tuple(v for v in self.vantages if v.name == place)
        return named or tuple(v for v in self.vantages if v.host == place)

    def places(self) -> list[str]:
        """What ``--from`` accepts: vantage names and the hosts they stand in."""
        return list(dict.fromkeys([*(v.name for v in self.vantages), *(v.host for v in self.vantages)]))

    def addresses(self, host: str) -> list[str]:
        """The lab addresses of ``host`` (without their prefix), in link order."""
        found = []
        for link in self.topology.links:
            for end, address in ((link.a, link.a_addr), (link.b, link.b_addr)):
                if end == host:
                    found.append(str(ipaddress.ip_interface(address).ip))
        return found

    def broker_groups(self) -> list[tuple[LabBroker, ...]]:
        """The brokers grouped into clusters (one per ``quorum_voters`` string), in declaration order."""
        groups: dict[str, list[LabBroker]] = {}
        for broker in self.brokers:
            groups.setdefault(broker.spec.voters, []).append(broker)
        return [tuple(group) for group in groups.values()]


def check_scenario(scenario: Scenario) -> None:
    """Raise :class:`LabError` if ``scenario`` names unknown hosts, repeats names or expects the impossible."""
    where = f"scenario {scenario.name!r}"
    if not _SCENARIO_NAME.fullmatch(scenario.name) or len(scenario.name) > 40:
        raise LabError(f"invalid {where}: the name must be 1-40 of a-z, 0-9 and inner '-'")
    if not scenario.title.strip() or not scenario.description.strip():
        raise LabError(f"invalid {where}: it needs a title and a description")
    validate(scenario.topology)
    hosts = {host.name for host in scenario.topology.hosts}
    if not scenario.brokers:
        raise LabError(f"invalid {where}: it has no broker")
    node_ids = [broker.spec.node_id for broker in scenario.brokers]
    if len(set(node_ids)) != len(node_ids):
        raise LabError(f"invalid {where}: duplicate broker node ids {node_ids}")
    for broker in scenario.brokers:
        if broker.host not in hosts:
            raise LabError(f"invalid {where}: broker {broker.spec.node_id} runs in unknown host {broker.host!r}")
    for process in scenario.processes:
        if process.host not in hosts:
            raise LabError(f"invalid {where}: process {process.name!r} runs in unknown host {process.host!r}")
        if not process.argv:
            raise LabError(f"invalid {where}: process {process.name!r} has no command")
    for step in scenario.setup:
        if step.host not in hosts:
            raise LabError(f"invalid {where}: setup step {step.name!r} runs in unknown host {step.host!r}")
        if not step.argv:
            raise LabError(f"invalid {where}: setup step {step.name!r} has no command")
        if step.when not in ("before-brokers", "after-brokers"):
            raise LabError(f"invalid {where}: setup step {step.name!r} runs {step.when!r}, not before-brokers "
                           "or after-brokers")
    if not scenario.vantages:
        raise LabError(f"invalid {where}: it has no vantage")
    names = [vantage.name for vantage in scenario.vantages]
    if len(set(names)) != len(names):
        raise LabError(f"invalid {where}: duplicate vantage names in {names}")
    for vantage in scenario.vantages:
        _check_vantage(where, vantage, hosts)


def _check_vantage(where: str, vantage: Vantage, hosts: set[str]) -> None:
    label = f"{where}, vantage {vantage.name!r}"
    if vantage.host not in hosts:
        raise LabError(f"invalid {label}: unknown host {vantage.host!r} (hosts: {', '.join(sorted(hosts))})")
    if not vantage.bootstrap.strip():
        raise LabError(f"invalid {label}: empty bootstrap")
    expect = vantage.expect
    if expect.exit_code not in EXIT_CODES:
        raise LabError(f"invalid {label}: exit code {expect.exit_code} is not one of {EXIT_CODES}")
    if (expect.exit_code == 0) != (not expect.findings):
        raise LabError(f"invalid {label}: exit 0 goes with no error/warning finding, exit 1 with at least one")
    if len(expect.finding_ids) != len(expect.findings):
        raise LabError(f"invalid {label}: a finding id is expected twice")
    for stage, status in expect.stages.items():
        if stage not in STAGES or status not in STAGE_STATUSES:
            raise LabError(f"invalid {label}: stage {stage}={status} (stages {STAGES}, statuses {STAGE_STATUSES})")
    if any(arg in ("--json", "--format", "--output") or arg.startswith(("--format=", "--output=")) for arg in vantage.args):
        raise LabError(f"invalid {label}: the lab chooses the output format; leave --json/--format/--output out")
