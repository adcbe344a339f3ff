"""The fleet tables in plain single-process Python (json + dicts): the generator's ground truth and the
benchmark's reference. It follows the same definitions as the Spark job (``kdiag.fleet.job``), written
the straightforward way, so the two are independent implementations of one contract
(``kdiag.fleet.tables``). Times come out as ISO-8601 UTC strings with microseconds.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import hashlib
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from kdiag.fleet.inputs import FILE_SUFFIXES, local_files
from kdiag.fleet.tables import SAMPLES, STALE_INTERVALS
from kdiag.report import SCHEMA
from probes.hostport import hostport

SAMPLE_CHARS = 500


def scrub_sample(line: str) -> str:
    """A rejected line as it may be shown: its secrets masked (the explain scrubber), cut to 500 chars."""
    from kdiag.secrets import Secrets

    secrets = Secrets()
    secrets.learn(line)
    return secrets.scrub(line)[:SAMPLE_CHARS]


def endpoint_text(host: Any, port: Any) -> str:
    return hostport(str(host), port)


def percentile(values: list[float], fraction: float) -> float | None:
    """Linear interpolation between closest ranks, as Spark's ``percentile`` (and numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    lower = math.floor(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def iso(moment: _dt.datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(value: Any) -> _dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = _dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=_dt.timezone.utc)


# --- reading ------------------------------------------------------------------------------------


def records(paths: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(source, text) for every non-blank line of the line files and every whole ``*.json`` file."""
    for path in paths:
        for file in local_files(path):
            source = "file://" + file if file.startswith("/") else file
            if file.endswith(FILE_SUFFIXES):
                with open(file, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                if text.strip():
                    yield source, text
                continue
            opener = gzip.open if file.endswith(".gz") else open
            with opener(file, "rt", encoding="utf-8", errors="replace", newline="") as handle:
                for line in handle:
                    line = line.rstrip("\n").rstrip("\r")
                    if line.strip():
                        yield source, line


def classify_record(text: str) -> tuple[str | None, dict[str, Any] | None]:
    """(reject reason, None) or (None, the report)."""
    try:
        data = json.loads(text)
    except ValueError:
        return "not_json", None
    if not isinstance(data, dict) or "schema" not in data:
        return "not_a_report", None
    if data["schema"] != SCHEMA:
        return "schema_version", None
    bootstrap = data.get("bootstrap")
    if parse_time(data.get("generated_at")) is None or not isinstance(bootstrap, list) or not bootstrap:
        return "bad_field", None
    return None, data


# --- the tables ---------------------------------------------------------------------------------


def analyze_paths(paths: Iterable[str], *, min_vantages: int = 1) -> dict[str, list[dict[str, Any]]]:
    return analyze_records(records(paths), min_vantages=min_vantages)


def analyze_records(items: Iterable[tuple[str, str]], *, min_vantages: int = 1) -> dict[str, list[dict[str, Any]]]:
    rejected: dict[tuple[str, str], list[Any]] = {}
    reports: dict[str, dict[str, Any]] = {}
    for source, text in items:
        reason, data = classify_record(text)
        if reason is not None:
            entry = rejected.setdefault((source, reason), [0, []])
            entry[0] += 1
            entry[1].append(text)
            if len(entry[1]) > SAMPLES * 4:
                entry[1] = sorted(entry[1])[:SAMPLES]
            continue
        assert data is not None
        key = data.get("report_id") or "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
        reports.setdefault(key, data)
    facts = [_facts(key, data) for key, data in reports.items()]
    return {
        "findings": findings_table(facts),
        "reachability": reachability_table(facts),
        "incidents": incidents_table(facts, min_vantages=min_vantages),
        "stage_latency": stage_latency_table(facts),
        "vantages": vantages_table(facts),
        "rejected": [{"source": source, "reason": reason, "count": count,
                      "sample": [scrub_sample(s) for s in sorted(samples)[:SAMPLES]]}
                     for (source, reason), (count, samples) in sorted(rejected.items())],
    }


def _facts(key: str, data: dict[str, Any]) -> dict[str, Any]:
    vantage = data.get("vantage") or {}
    cluster = data.get("cluster") or {}
    seen: dict[str, dict[str, Any]] = {}
    for finding in data.get("findings") or ():
        seen.setdefault(finding.get("id"), finding)
    return {
        "key": key, "ts": parse_time(data["generated_at"]),
        "cluster": ",".join(endpoint_text(e.get("host"), e.get("port")) for e in data["bootstrap"]),
        "cluster_id": cluster.get("cluster_id"),
        "vantage": vantage.get("label") or vantage.get("hostname") or "unknown",
        "findings": seen, "brokers": cluster.get("brokers") or (), "stages": data.get("stages") or (),
    }


def _latest(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return max(rows, key=lambda f: (f["ts"], f["key"]))


def findings_table(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_cluster: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in facts:
        by_cluster[f["cluster"]].append(f)
    cluster_ids = {}
    for cluster, rows in by_cluster.items():
        known = [f for f in rows if f["cluster_id"] is not None]
        cluster_ids[cluster] = _latest(known)["cluster_id"] if known else None
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for f in facts:
        for finding_id in f["findings"]:
            groups[(f["cluster"], finding_id)].append(f)
    table = []
    for (cluster, finding_id), rows in sorted(groups.items()):
        latest = _latest(rows)["findings"][finding_id]
        table.append({"cluster": cluster, "cluster_id": cluster_ids[cluster], "finding_id": finding_id,
                      "severity": latest.get("severity"), "reports": len(rows),
                      "vantages": len({f["vantage"] for f in rows}),
                      "first_seen": iso(min(f["ts"] for f in rows)), "last_seen": iso(max(f["ts"] for f in rows)),
                      "example": json.dumps(latest.get("evidence"), ensure_ascii=False, separators=(",", ":"))})
    return table


def broker_failure(broker: dict[str, Any]) -> str | None:
    """The first status that is not ok of DNS, TCP and Kafka (``missing`` when a step has none, as the
    Spark job and DuckDB read it); None when all three are ok."""
    for part in ("dns", "tcp", "kafka"):
        status = (broker.get(part) or {}).get("status")
        if status != "ok":
            return "missing" if status is None else status
    return None


def reachability_table(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, int, str, str], dict[str, Any]] = {}
    for f in facts:
        for broker in f["brokers"]:
            key = (f["cluster"], broker.get("node_id"), endpoint_text(broker.get("host"), broker.get("port")),
                   f["vantage"])
            entry = groups.setdefault(key, {"attempts": 0, "successes": 0, "connect": [], "failures": Counter()})
            entry["attempts"] += 1
            failure = broker_failure(broker)
            if failure is None:
                entry["successes"] += 1
            else:
                entry["failures"][failure] += 1
            tcp = broker.get("tcp") or {}
            if tcp.get("status") == "ok":
                entry["connect"].append(float(tcp.get("duration_ms") or 0.0))
    table = []
    for (cluster, node_id, endpoint, vantage), e in sorted(groups.items()):
        dominant = min(e["failures"].items(), key=lambda kv: (-kv[1], kv[0]))[0] if e["failures"] else None
        table.append({"cluster": cluster, "node_id": node_id, "endpoint": endpoint, "vantage": vantage,
                      "attempts": e["attempts"], "successes": e["successes"],
                      "success_rate": e["successes"] / e["attempts"],
                      "connect_p50_ms": percentile(e["connect"], 0.5), "connect_p95_ms": percentile(e["connect"], 0.95),
                      "dominant_failure": dominant})
    return table


def stage_latency_table(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for f in facts:
        for stage in f["stages"]:
            if stage.get("status") == "ok":
                groups[(f["cluster"], stage.get("name"))].append(float(stage.get("duration_ms") or 0.0))
    return [{"cluster": cluster, "stage": stage, "runs": len(values), "p50_ms": percentile(values, 0.5),
             "p95_ms": percentile(values, 0.95), "p99_ms": percentile(values, 0.99)}
            for (cluster, stage), values in sorted(groups.items())]


def _streams(facts: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Each (cluster, vantage)'s reports in time order."""
    streams: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for f in facts:
        streams[(f["cluster"], f["vantage"])].append(f)
    for rows in streams.values():
        rows.sort(key=lambda f: (f["ts"], f["key"]))
    return streams


def vantages_table(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not facts:
        return []
    newest = max(f["ts"] for f in facts)
    gaps: dict[str, list[float]] = defaultdict(list)
    for (_, vantage), rows in _streams(facts).items():
        gaps[vantage].extend((b["ts"] - a["ts"]).total_seconds() for a, b in zip(rows, rows[1:]))
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in facts:
        groups[f["vantage"]].append(f)
    table = []
    for vantage, rows in sorted(groups.items()):
        last = max(f["ts"] for f in rows)
        interval = percentile(gaps[vantage], 0.5)
        stale = interval is not None and (newest - last).total_seconds() > STALE_INTERVALS * interval
        table.append({"vantage": vantage, "reports": len(rows), "first_seen": iso(min(f["ts"] for f in rows)),
                      "last_seen": iso(last), "interval_s": interval, "stale": stale})
    return table


def episodes(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per cluster x finding x vantage: from a report carrying the finding to the vantage's first later
    report without it (its time is the end; none: ongoing)."""
    out = []
    for (cluster, vantage), rows in _streams(facts).items():
        open_: dict[str, dict[str, Any]] = {}
        for f in rows:
            for finding_id in list(open_):
                if finding_id not in f["findings"]:
                    episode = open_.pop(finding_id)
                    episode["end"] = f["ts"]
                    out.append(episode)
            for finding_id in f["findings"]:
                episode = open_.setdefault(finding_id, {"cluster": cluster, "vantage": vantage,
                                                        "finding_id": finding_id, "start": f["ts"], "end": None,
                                                        "reports": 0})
                episode["reports"] += 1
        out.extend(open_.values())
    return out


def incidents_table(facts: list[dict[str, Any]], *, min_vantages: int = 1) -> list[dict[str, Any]]:
    """Unions of each cluster's overlapping or touching episodes of one finding."""
    far = _dt.datetime.max.replace(tzinfo=_dt.timezone.utc)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for episode in episodes(facts):
        groups[(episode["cluster"], episode["finding_id"])].append(episode)
    table = []
    for (cluster, finding_id), items in sorted(groups.items()):
        items.sort(key=lambda e: e["start"])
        merged: list[list[dict[str, Any]]] = []
        reach = None
        for episode in items:
            end = episode["end"] or far
            if merged and reach is not None and episode["start"] <= reach:
                merged[-1].append(episode)
                reach = max(reach, end)
            else:
                merged.append([episode])
                reach = end
        for incident in merged:
            events = sorted([(e["start"], 1) for e in incident] + [(e["end"], -1) for e in incident if e["end"]])
            active = peak = 0
            for _, step in events:  # at one instant, ends (-1) sort before starts (+1)
                active += step
                peak = max(peak, active)
            ongoing = any(e["end"] is None for e in incident)
            if peak < min_vantages:
                continue
            table.append({"cluster": cluster, "finding_id": finding_id, "onset": iso(incident[0]["start"]),
                          "resolved": None if ongoing else iso(max(e["end"] for e in incident)),
                          "vantages": len({e["vantage"] for e in incident}), "peak_vantages": peak,
                          "reports": sum(e["reports"] for e in incident)})
    return table
