"""``kdiag fleet generate``: a fleet's worth of realistic reports, deterministic by seed, with the truth.

Every report is built with the real report model (``kdiag.report``) and diagnosed by the real rules
(``kdiag.diagnose.diagnose``), so its findings are what kdiag produces for those facts. A fleet of
``vantages`` sidecars (labels ``k8s/<network>/app-<n>``, four networks) probes each of ``clusters``
clusters every 30 s. Each cluster lives healthy, then goes through one of the seed scenarios — an EC2
broker advertising its VPC-internal name, a Docker listener advertising localhost, a Kubernetes
headless-service name, a NAT'd port, a filtered broker, the whole cluster down — for the vantages it
affects, with each vantage's onset and recovery a round or two apart, and recovers (the last cluster
stays broken: an ongoing incident). One vantage goes quiet two thirds of the way through (stale).

The output is what real sources look like: ``reports/part-*.jsonl`` written in overlapping time
ranges (out of order across files), late arrivals, duplicates (a gzipped ``*.jsonl.gz`` re-delivery,
and ticket attachments: pretty-printed ``tickets/*.json``), and a few lines that are not reports.
``_truth.json`` beside them (its ``_`` keeps it out of ``kdiag fleet analyze OUT``, as Spark skips
``_SUCCESS``) holds the planted episodes and every table computed from the written
files by the plain-Python reference (``kdiag.fleet.reference``), the ground truth for the Spark job.

A report's facts depend only on (cluster, state, vantage), so each (cluster, state) is built and
diagnosed once and its JSON is a template whose id, time, vantage and latencies are filled per report.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import os
import random
import re
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kdiag.report import (AdvertisedDetail, BrokerReport, Cluster, CoordinatorReport, DnsDetail, Endpoint,
                          MetadataDetail, Report, RoundtripDetail, Stage, TcpDetail, Vantage, report_to_dict,
                          report_to_json)
from probes.results import (DnsResult, IdentityCheck, KafkaBroker, KafkaCheck, PartitionInfo, TcpResult,
                            TopicInfo)

START = _dt.datetime(2026, 11, 20, tzinfo=_dt.timezone.utc)
INTERVAL_S = 30.0
NETWORKS = ("prod-eu", "prod-us", "office", "staging")
INSIDE = "prod-eu"  # the network that sits inside the clusters' VPC / Kubernetes cluster
SCENARIOS = ("ec2_internal", "filtered_broker", "docker_listener", "k8s_service", "nat_port", "cluster_down")
BROKERS = 3
MIN_ROUNDS_FOR_INCIDENTS = 20
LATE_FRACTION = 0.005
DUPLICATE_FRACTION = 0.01
TICKETS = 3
REPORTS_PER_FILE = 50_000
TRUTH = "_truth.json"


class GenerateError(ValueError):
    """The generator's options are wrong (one line, for the CLI's UsageError)."""


@dataclass(frozen=True)
class GenerateOptions:
    reports: int
    clusters: int
    vantages: int
    out: Path
    seed: int = 0
    truth: bool = True
    overwrite: bool = False


@dataclass(frozen=True)
class Planted:
    """One planted episode on one vantage: the scenario's state from round ``start`` up to (not
    including) round ``end`` (None: still broken at the end of the data)."""

    cluster: str
    scenario: str
    vantage: str
    start: int
    end: int | None


@dataclass(frozen=True)
class GenerateResult:
    out: Path
    reports: int
    lines: int
    files: int
    planted: tuple[Planted, ...]


# --- the clusters and their states, as kdiag would record them ---------------------------------


@dataclass(frozen=True)
class FleetCluster:
    index: int
    bootstrap: tuple[Endpoint, ...]
    cluster_id: str

    @property
    def name(self) -> str:
        return ",".join(str(e) for e in self.bootstrap)

    def host(self, node_id: int) -> str:
        return f"b{node_id}.c{self.index}.example.com"

    def address(self, node_id: int) -> str:
        return f"203.0.113.{(self.index * 8 + node_id) % 250 + 1}"


def fleet_cluster(index: int) -> FleetCluster:
    hosts = [f"b1.c{index}.example.com"] + ([f"b2.c{index}.example.com"] if index % 2 == 0 else [])
    return FleetCluster(index, tuple(Endpoint(h, 9092) for h in hosts), f"Q2x1c3Rlci{index:02d}AAAAAAAAAA"[:22])


def _dns_ok(host: str, address: str) -> DnsResult:
    return DnsResult(host=host, status="ok", addresses=(address,), source="system", dns_status="ok",
                     dns_addresses=(address,), nameserver="192.0.2.53")


def _dns_fail(host: str, status: str = "nxdomain") -> DnsResult:
    return DnsResult(host=host, status=status, source="system", dns_status=status, nameserver="192.0.2.53")


_TCP_ERRORS = {"refused": "[Errno 111] Connection refused", "timeout": "timed out"}


def _tcp(status: str, address: str, port: int) -> TcpResult:
    return TcpResult(status=status, address=address, port=port, error=_TCP_ERRORS.get(status),
                     duration_ms=3000.0 if status == "timeout" else 0.5)


def _broker(cluster: FleetCluster, node_id: int, *, host: str | None = None, port: int = 9092,
            dns: str = "ok", tcp: str = "ok") -> BrokerReport:
    host = host or cluster.host(node_id)
    address = "127.0.0.1" if host == "localhost" else cluster.address(node_id)
    if dns != "ok":
        return BrokerReport(node_id=node_id, host=host, port=port, dns=_dns_fail(host, dns))
    broker = BrokerReport(node_id=node_id, host=host, port=port, dns=_dns_ok(host, address),
                          tcp=_tcp(tcp, address, port))
    if tcp != "ok":
        return broker
    return replace(broker, kafka=KafkaCheck(status="ok", cluster_id=cluster.cluster_id),
                   identity=IdentityCheck(status="ok", topic="orders", cluster_id=cluster.cluster_id))


def _topics(node_ids: list[int]) -> tuple[TopicInfo, ...]:
    def spread(count: int) -> tuple[PartitionInfo, ...]:
        return tuple(PartitionInfo(partition=p, leader_id=node_ids[p % len(node_ids)],
                                   replica_nodes=tuple(node_ids), isr_nodes=tuple(node_ids)) for p in range(count))

    return (TopicInfo(name="orders", partitions=spread(3)),
            TopicInfo(name="__consumer_offsets", partitions=spread(3), is_internal=True))


def _with_cluster(cluster: FleetCluster, brokers: list[BrokerReport]) -> Report:
    """A report whose bootstrap worked and returned ``brokers``, its stages consistent with them."""
    first = cluster.bootstrap[0]
    address = cluster.address(1)
    usable = sum(1 for b in brokers if b.reachable)
    all_good = usable == len(brokers)
    kafka = KafkaCheck(status="ok", api_versions_version=3, metadata_version=12, cluster_id=cluster.cluster_id,
                       controller_id=1, brokers=tuple(KafkaBroker(b.node_id, b.host, b.port) for b in brokers))
    roundtrip = (RoundtripDetail(topic="orders", partition=0, offset=42, produce_ms=4.0, consume_ms=6.0) if all_good
                 else RoundtripDetail(reason="blocked by advertised"))
    stages = (
        Stage("dns", "ok", 2.0, f"{first.host} resolves", DnsDetail((_dns_ok(first.host, address),))),
        Stage("tcp", "ok", 0.5, f"{first} accepts connections", TcpDetail((_tcp("ok", address, first.port),))),
        Stage("metadata", "ok", 6.0, f"{len(brokers)} brokers", MetadataDetail(endpoint=str(first), kafka=kafka)),
        Stage("advertised", "ok" if all_good else "fail", 12.0, f"{usable}/{len(brokers)} brokers usable",
              AdvertisedDetail(checked=len(brokers), reachable=usable)),
        Stage("roundtrip", "ok" if all_good else "skip", 10.0, "", roundtrip),
    )
    coordinator_broker = brokers[0]
    coordinator = CoordinatorReport(group="kdiag-probe", node_id=coordinator_broker.node_id,
                                    host=coordinator_broker.host, port=coordinator_broker.port,
                                    dns=coordinator_broker.dns,
                                    tcp=coordinator_broker.tcp if coordinator_broker.tcp.status != "skip" else None)
    return Report(bootstrap=cluster.bootstrap, stages=stages,
                  cluster=Cluster(cluster_id=cluster.cluster_id, controller_id=1, brokers=tuple(brokers),
                                  topics=_topics([b.node_id for b in brokers]), coordinator=coordinator))


def _cluster_down(cluster: FleetCluster) -> Report:
    first = cluster.bootstrap[0]
    attempt = _tcp("refused", cluster.address(1), first.port)
    stages = (
        Stage("dns", "ok", 2.0, f"{first.host} resolves", DnsDetail((_dns_ok(first.host, cluster.address(1)),))),
        Stage("tcp", "fail", 0.5, f"{first}: connection refused", TcpDetail((attempt,))),
        Stage("metadata", "skip", 0.0, "blocked by tcp", MetadataDetail(reason="blocked by tcp")),
        Stage("advertised", "skip", 0.0, "blocked by tcp", AdvertisedDetail(reason="blocked by tcp")),
        Stage("roundtrip", "skip", 0.0, "blocked by tcp", RoundtripDetail(reason="blocked by tcp")),
    )
    return Report(bootstrap=cluster.bootstrap, stages=stages)


def state_report(cluster: FleetCluster, state: str, *, inside: bool = False) -> Report:
    """The facts of ``cluster`` in ``state`` ("healthy" or a scenario) as seen from a vantage inside or
    outside the clusters' network, not yet diagnosed."""
    brokers = [_broker(cluster, n) for n in range(1, BROKERS + 1)]
    if state == "healthy":
        pass
    elif state == "ec2_internal":  # broker 1 advertises its VPC-internal name: resolves inside only
        host = f"ip-10-{cluster.index % 250}-0-11.eu-west-1.compute.internal"
        brokers[0] = _broker(cluster, 1, host=host, dns="ok" if inside else "nxdomain")
    elif state == "k8s_service":  # broker 2 advertises its headless-service name
        host = f"kafka-2.kafka-headless.c{cluster.index}.svc.cluster.local"
        brokers[1] = _broker(cluster, 2, host=host, dns="ok" if inside else "nxdomain")
    elif state == "docker_listener":  # broker 3 advertises the container's localhost listener
        brokers[2] = _broker(cluster, 3, host="localhost", tcp="refused")
    elif state == "nat_port":  # broker 3 advertises the port behind the NAT, not the forwarded one
        brokers[2] = _broker(cluster, 3, port=19092, tcp="refused")
    elif state == "filtered_broker":  # a firewall drops broker 2's port from some networks
        brokers[1] = _broker(cluster, 2, tcp="ok" if inside else "timeout")
    elif state == "cluster_down":
        return _cluster_down(cluster)
    else:
        raise ValueError(f"unknown state {state!r}")
    return _with_cluster(cluster, brokers)


def diagnosed(report: Report) -> Report:
    from kdiag.diagnose import diagnose

    return report.with_findings(diagnose(report))


def affects(scenario: str, network: str) -> bool:
    """Which vantages a scenario breaks: the name-based and firewall ones only those outside the VPC."""
    if scenario in ("ec2_internal", "k8s_service"):
        return network != INSIDE
    if scenario == "filtered_broker":
        return network in ("office", "staging")
    return True


# --- templates: a diagnosed report's JSON with its per-report fields left open ------------------

_HOLE = re.compile(r'"@@(\w+)@@"')


@dataclass(frozen=True)
class Template:
    """A report's JSON split at its holes: ``parts[0] + value(holes[0]) + parts[1] + ...``."""

    parts: tuple[str, ...]
    holes: tuple[str, ...]
    findings: tuple[str, ...]

    def fill(self, values: dict[str, str]) -> str:
        out = [self.parts[0]]
        for hole, part in zip(self.holes, self.parts[1:]):
            out.append(values[hole])
            out.append(part)
        return "".join(out)


def template(report: Report) -> Template:
    report = diagnosed(report)
    data = report_to_dict(replace(report, report_id="@@rid@@", generated_at="@@ts@@"))
    data["vantage"] = "@@vantage@@"
    for stage in data["stages"]:
        if stage["status"] == "ok":
            stage["duration_ms"] = f"@@stage_{stage['name']}@@"
    for broker in (data.get("cluster") or {}).get("brokers", ()):
        if broker["tcp"]["status"] == "ok":
            broker["tcp"]["duration_ms"] = f"@@connect_{broker['node_id']}@@"
    pieces = _HOLE.split(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return Template(tuple(pieces[0::2]), tuple(pieces[1::2]), tuple(dict.fromkeys(f.id for f in report.findings)))


# --- the plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FleetVantage:
    index: int
    network: str
    offset_s: float
    base_ms: float
    quiet_after: int | None  # the round from which it sends nothing

    @property
    def label(self) -> str:
        return f"k8s/{self.network}/app-{self.index}"

    @property
    def hostname(self) -> str:
        return f"pod-{self.network}-{self.index:03d}"

    def json(self) -> str:
        return json.dumps(asdict(Vantage(self.hostname, (f"10.{NETWORKS.index(self.network)}.0.{self.index % 250}",),
                                         self.label)), separators=(",", ":"))


_NETWORK_MS = {"prod-eu": 0.6, "prod-us": 38.0, "office": 21.0, "staging": 2.5}


def plan(options: GenerateOptions, rng: random.Random) -> tuple[list[FleetCluster], list[FleetVantage], int,
                                                                 list[Planted]]:
    rounds = 1  # enough rounds for ``reports``, the quiet vantage's silence counted
    while _reports_in(rounds, options) < options.reports:
        rounds = max(rounds + 1, rounds * options.reports // max(1, _reports_in(rounds, options)))
    clusters = [fleet_cluster(i) for i in range(options.clusters)]
    vantages = [FleetVantage(k, NETWORKS[k % len(NETWORKS)], round(rng.uniform(0, 25), 3),
                             _NETWORK_MS[NETWORKS[k % len(NETWORKS)]], None) for k in range(options.vantages)]
    if options.vantages >= 3:
        quiet = vantages[-1]
        vantages[-1] = replace(quiet, quiet_after=rounds * 2 // 3)
    planted: list[Planted] = []
    if rounds < MIN_ROUNDS_FOR_INCIDENTS:
        return clusters, vantages, rounds, planted
    for cluster in clusters:
        scenario = SCENARIOS[cluster.index % len(SCENARIOS)]
        start = rng.randint(rounds // 10, rounds // 4)
        end = start + rng.randint(max(3, rounds // 20), max(4, rounds // 5))
        windows: list[tuple[int, int | None]] = [(start, end)]
        again = end + rng.randint(3, max(4, rounds // 10))  # it comes back once
        if cluster.index == len(clusters) - 1:
            windows.append((again, None))  # ... and the last cluster is still broken at the end
        elif again + 4 < rounds:
            windows.append((again, min(rounds - 1, again + rng.randint(3, max(4, rounds // 10)))))
        for vantage in vantages:
            if not affects(scenario, vantage.network):
                continue
            for first, last in windows:  # each vantage sees the onset and the recovery within a round or two
                begin = first + rng.randint(0, 2)
                finish = None if last is None else last + rng.randint(-1, 1)
                planted.append(Planted(cluster.name, scenario, vantage.label, begin, finish))
    return clusters, vantages, rounds, planted


def _reports_in(rounds: int, options: GenerateOptions) -> int:
    quiet = rounds - rounds * 2 // 3 if options.vantages >= 3 else 0
    return options.clusters * (rounds * options.vantages - quiet)


# --- writing ----------------------------------------------------------------------------------

JUNK = (
    ("not_json", "sasl.password=hunter2 ERROR connection reset by peer"),
    ("not_json", '{"schema": "kdiag.report/1", "report_id": "truncated'),
    ("not_a_report", "[1, 2, 3]"),
    ("not_a_report", '{"level": "info", "msg": "kdiag watch started"}'),
    ("schema_version", '{"schema": "kdiag.report/2", "report_id": "0190aaaa-0000-7000-8000-000000000001", '
                       '"generated_at": "2026-11-20T00:00:00Z", "bootstrap": []}'),
    ("bad_field", '{"schema": "kdiag.report/1", "report_id": "0190aaaa-0000-7000-8000-000000000002", '
                  '"bootstrap": [{"host": "b1.c0.example.com", "port": 9092}]}'),
)
"""Lines that are not reports, written into the input to be counted and sampled (one secret among them)."""


def _report_id(rng: random.Random, ms: int) -> str:
    value = (ms & (1 << 48) - 1) << 80 | 0x7 << 76 | rng.getrandbits(12) << 64 | 0b10 << 62 | rng.getrandbits(62)
    return str(uuid.UUID(int=value))


def _timestamp(seconds: float) -> str:
    moment = START + _dt.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-4] + "Z"


def generate(options: GenerateOptions, progress: Callable[[int], None] | None = None) -> GenerateResult:
    """Writes ``options.reports`` reports (plus duplicates and junk) under ``options.out`` and, unless
    ``truth`` is off, ``_truth.json``. Refuses an existing ``out`` unless ``overwrite``; creates its
    missing parents; writes into a temporary sibling and renames it at the end, so nothing is half-written."""
    if options.reports < 1 or options.clusters < 1 or options.vantages < 1:
        raise GenerateError("--reports, --clusters and --vantages must be at least 1")
    out = options.out
    if out.exists() and not options.overwrite:
        raise GenerateError(f"{out} exists; give --overwrite to replace it")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GenerateError(f"--out {out}: cannot create {out.parent} ({exc.strerror or exc})") from None
    work = out.parent / f".{out.name}.generating-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        result = _write(options, work, progress)
        if options.truth:
            from kdiag.fleet.reference import analyze_paths

            tickets = [str(work / "tickets")] if any((work / "tickets").iterdir()) else []
            tables = analyze_paths([str(work / "reports"), *tickets])
            for row in tables["rejected"]:  # sources relative to the generated directory
                row["source"] = os.path.relpath(row["source"].removeprefix("file://"), work)
            truth = {"generator": {"reports": options.reports, "clusters": options.clusters,
                                   "vantages": options.vantages, "seed": options.seed,
                                   "start": _timestamp(0), "interval_s": INTERVAL_S},
                     "planted": [asdict(p) for p in result.planted], "tables": tables}
            (work / TRUTH).write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return replace(result, out=out)


def _write(options: GenerateOptions, work: Path, progress: Callable[[int], None] | None) -> GenerateResult:
    rng = random.Random(options.seed)
    clusters, vantages, rounds, planted = plan(options, rng)
    templates: dict[tuple[int, str, bool], Template] = {}

    def template_for(cluster: FleetCluster, state: str, inside: bool) -> Template:
        key = (cluster.index, state, inside)
        if key not in templates:
            templates[key] = template(state_report(cluster, state, inside=inside))
        return templates[key]

    windows: dict[tuple[str, str], list[Planted]] = {}
    for p in planted:
        windows.setdefault((p.cluster, p.vantage), []).append(p)
    scenario_of = {c.name: SCENARIOS[c.index % len(SCENARIOS)] for c in clusters}
    changed: dict[str, list[tuple[int, int | None]]] = {c.name: [] for c in clusters}
    for p in planted:  # when each cluster's configuration was changed: its vantages' earliest onset to latest end
        changed[p.cluster].append((p.start, p.end))
    reports_dir = work / "reports"
    (work / "tickets").mkdir(parents=True)
    reports_dir.mkdir()
    files = max(2, -(-options.reports // REPORTS_PER_FILE))
    handles = [open(reports_dir / f"part-{n:04d}.jsonl", "w", encoding="utf-8") for n in range(files)]
    late: list[str] = []
    tickets = 0
    written = 0
    lines = 0
    vantage_json = {v.index: v.json() for v in vantages}
    try:
        with gzip.open(reports_dir / "redelivered.jsonl.gz", "wt", encoding="utf-8") as redelivered:
            for line, state in _report_lines(rng, clusters, vantages, rounds, windows, scenario_of, changed,
                                             template_for, vantage_json):
                if written >= options.reports:
                    break
                written += 1
                if rng.random() < LATE_FRACTION:
                    late.append(line)
                else:
                    handles[rng.randrange(files)].write(line + "\n")
                lines += 1
                if rng.random() < DUPLICATE_FRACTION:
                    redelivered.write(line + "\n")
                    lines += 1
                if state != "healthy" and tickets < TICKETS and rng.random() < 0.05:
                    tickets += 1  # a ticket's attachment: the same report, pretty-printed
                    pretty = json.dumps(json.loads(line), indent=2, ensure_ascii=False)
                    (work / "tickets" / f"ticket-{tickets}.json").write_text(pretty + "\n", encoding="utf-8")
                    lines += 1
                if progress is not None and written % 100_000 == 0:
                    progress(written)
    finally:
        for handle in handles:
            handle.close()
    rng.shuffle(late)
    with open(reports_dir / "late.jsonl", "w", encoding="utf-8") as handle:
        handle.writelines(line + "\n" for line in late)
        handle.writelines(junk + "\n" for _, junk in JUNK)
    lines += len(JUNK)
    return GenerateResult(work, written, lines, files + 2 + tickets, tuple(planted))


def _report_lines(rng: random.Random, clusters: list[FleetCluster], vantages: list[FleetVantage], rounds: int,
                  windows: dict[tuple[str, str], list[Planted]], scenario_of: dict[str, str],
                  changed: dict[str, list[tuple[int, int | None]]], template_for: Callable[[FleetCluster, str, bool], Template],
                  vantage_json: dict[int, str]) -> Iterator[tuple[str, str]]:
    lognormal = rng.lognormvariate
    for r in range(rounds):
        for vantage in vantages:
            if vantage.quiet_after is not None and r >= vantage.quiet_after:
                continue
            inside = vantage.network == INSIDE
            for c, cluster in enumerate(clusters):
                state = "healthy"
                for p in windows.get((cluster.name, vantage.label), ()):
                    if p.start <= r and (p.end is None or r < p.end):
                        state = p.scenario
                if state == "healthy" and inside and scenario_of[cluster.name] in ("ec2_internal", "k8s_service"):
                    # inside the VPC the internal name resolves: the change shows only in the endpoint
                    if any(first <= r and (last is None or r < last) for first, last in changed[cluster.name]):
                        state = scenario_of[cluster.name]
                seconds = r * INTERVAL_S + vantage.offset_s + c * 0.25 + rng.random() * 0.2
                ms = int((START.timestamp() + seconds) * 1000)
                connect = vantage.base_ms
                values = {"rid": f'"{_report_id(rng, ms)}"', "ts": f'"{_timestamp(seconds)}"',
                          "vantage": vantage_json[vantage.index],
                          "stage_dns": f"{lognormal(0.7, 0.4):.3f}", "stage_tcp": f"{connect * lognormal(0, 0.2):.3f}",
                          "stage_metadata": f"{connect * 2 + lognormal(1.5, 0.3):.3f}",
                          "stage_advertised": f"{connect * 4 + lognormal(2.0, 0.3):.3f}",
                          "stage_roundtrip": f"{connect * 6 + lognormal(2.5, 0.4):.3f}"}
                for n in range(1, BROKERS + 1):
                    values[f"connect_{n}"] = f"{connect * lognormal(0, 0.25):.3f}"
                yield template_for(cluster, state, inside).fill(values), state


def example_report(seed: int = 0) -> str:
    """One diagnosed report of a scenario, pretty-printed (for documentation and tests)."""
    return report_to_json(diagnosed(state_report(fleet_cluster(seed), "ec2_internal")))
