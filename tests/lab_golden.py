"""Golden JSON reports of every lab scenario's vantages: a refactor must not change what kdiag reports.

Each vantage's report, normalised (:func:`normalise`), is compared with
``tests/fixtures/lab_golden/<scenario>/<vantage>.json``; :func:`assert_matches_golden` fails with a
unified diff when they differ, and fails when the golden file is missing. ``KDIAG_UPDATE_GOLDEN=1``
(re)writes the golden files instead of comparing.

The scenario tests (``tests/integration/lab/test_seed_scenarios.py``, ``test_more_scenarios.py``) call it on
the same runs that check each vantage's verdict, so it costs no broker start-up of its own. The goldens were
recorded from the code before the module restructuring of issue 8 (commit 84536a2): a report that differs
from them is a change of behaviour.

The goldens come from full passes of the scenario tests, each scenario's vantages in their declared order
on a freshly started cluster: an earlier vantage's round trip creates ``kdiag-probe`` and
``__consumer_offsets``, which the later vantages' metadata lists. A vantage run alone (``pytest -k``) may
therefore differ in ``cluster.topics``.

The normaliser neutralises only what legitimately varies from one run to the next; everything else
(statuses, findings, their text and fixes, addresses, ports, node ids, the order of lists) must be
identical. Each rule below says why its field varies.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kdiag.lab.runner import VantageRun

GOLDEN_DIR = Path(__file__).resolve().parent / "fixtures" / "lab_golden"
UPDATE_ENV = "KDIAG_UPDATE_GOLDEN"

VARIES = "<varies>"

TIMING_KEYS = frozenset({
    "generated_at",  # the wall clock when the report was made
    "duration_ms",  # every probe's and stage's own timing (dns, tcp, tls, sasl, metadata, identity, ...)
    "produce_ms",  # the round trip's produce, then consume: librdkafka's and the broker's pace
    "consume_ms",
    "idle_s",  # --idle-check: how long the connection was really held idle, and how long its answer took
    "answer_ms",
})
"""Keys whose value is a clock reading wherever they appear: replaced by ``<varies>`` (null stays null)."""

MEASURED_IN_TEXT = re.compile(r"\b(in|produce|consume) \d+(?:\.\d+)? ms\b")
"""A measured duration written into a stage summary: ``connected to 192.0.2.10:9092 in 1.4 ms`` (tcp),
``(produce 84.5 ms, consume 56 ms)`` (roundtrip). Durations that come from settings (``no answer within 1s``,
``delivery.timeout.ms (120 s)``) are not measured and stay."""

RANDOM_PER_RUN_KEYS = ("report_id", "cluster_id", "serial_number", "sha256", "not_before", "not_after")
"""Values made afresh in every run: a report's own id where reports have one (a UUIDv7: its time and random
bits), the cluster id each lab cluster formats its storage with (``kdiag.lab.kafka.new_cluster_id``,
random), and the broker certificate ``kdiag.lab.certs`` makes in the run's state directory (a random
serial, hence fingerprint; its validity starts when it is made).
Each distinct value becomes ``<KEY-N>`` in order of first appearance, in every string too (the TLS stage
summary says ``valid until <not_after-1>``), so "the same cluster" and "another cluster" still show."""

STATE_DIR = re.compile(r"/run/kdiag-lab/[^/\s\"']+")
"""Each lab run's state directory (certificates, client properties) has a random run name."""

CONTROLLER_IN_TEXT = re.compile(r"\bcontroller \d+\b")
"""In a cluster of several brokers, a KRaft broker answers Metadata with a randomly chosen alive broker as
``controller_id`` (clients cannot reach the KRaft controllers themselves), so the value, and the metadata
stage summary's ``controller N``, vary run to run. With one broker it is always that broker and stays."""

PROBE_TOPIC = "kdiag-probe"
PLACEMENT_KEYS = ("leader_id", "replica_nodes", "isr_nodes")
"""In a cluster of several brokers, the round trip's own topic ``kdiag-probe`` (created through the admin API
with the broker's default placement, when a vantage runs without ``--topic``) lands on a broker the
controller picks at random. So its partitions' placement varies, and so does which partition proves each
broker's identity (``led_partitions`` prefers it, by name, to the scenario's topics): in such a report the
identity checks' ``topic`` and ``partition`` are neutralised too (their ``status`` stays). The scenarios'
own topics (``orders``, ``__consumer_offsets``) are created with a chosen placement and stay.

Each advertised broker is asked for Metadata without topics (the bootstrap's answer lists them), so whether
``__consumer_offsets`` was there yet when a broker answered no longer shows in a report."""


def normalise(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with what varies from run to run neutralised (a new dict; ``report`` is left alone)."""
    data = copy.deepcopy(report)
    cluster = data.get("cluster") or {}
    brokers = cluster.get("brokers") or []
    if len(brokers) > 1:
        _neutralise_controller(data)
        if any(topic.get("name") == PROBE_TOPIC for topic in _topic_lists(data)):
            _neutralise_probe_placement(data, brokers)
    found: dict[str, str] = {}
    _collect_random_values(data, found)
    return _rewrite(data, found)


def _topic_lists(value: Any) -> list[dict[str, Any]]:
    """Every topic entry (a dict with ``name`` and ``partitions``) anywhere in ``value``."""
    found = []
    if isinstance(value, dict):
        if isinstance(value.get("name"), str) and isinstance(value.get("partitions"), list):
            found.append(value)
        for item in value.values():
            found.extend(_topic_lists(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_topic_lists(item))
    return found


def _neutralise_controller(value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "controller_id" and item is not None:
                value[key] = VARIES
            elif key == "summary" and isinstance(item, str):
                value[key] = CONTROLLER_IN_TEXT.sub(f"controller {VARIES}", item)
            else:
                _neutralise_controller(item)
    elif isinstance(value, list):
        for item in value:
            _neutralise_controller(item)


def _neutralise_probe_placement(data: dict[str, Any], brokers: list[dict[str, Any]]) -> None:
    for topic in _topic_lists(data):
        if topic["name"] == PROBE_TOPIC:
            for partition in topic["partitions"]:
                partition.update({key: VARIES for key in PLACEMENT_KEYS if key in partition})
    for broker in brokers:
        identity = broker.get("identity") or {}
        identity.update({key: VARIES for key in ("topic", "partition") if identity.get(key) is not None})
    for stage in data.get("stages") or []:  # the load-balancer check proves each landing with the same partitions
        for landing in (stage.get("detail") or {}).get("landings") or []:
            landing.update({key: VARIES for key in ("topic", "partition") if landing.get(key) is not None})


def _collect_random_values(value: Any, found: dict[str, str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in RANDOM_PER_RUN_KEYS and isinstance(item, str) and item not in found:
                found[item] = f"<{key}-{sum(1 for p in found.values() if p.startswith(f'<{key}-')) + 1}>"
            _collect_random_values(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect_random_values(item, found)


def _rewrite(value: Any, found: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {key: (VARIES if key in TIMING_KEYS and item is not None else _rewrite(item, found))
                for key, item in value.items()}
    if isinstance(value, list):
        return [_rewrite(item, found) for item in value]
    if isinstance(value, str):
        return _rewrite_text(value, found)
    return value


def _rewrite_text(text: str, found: dict[str, str]) -> str:
    for original, placeholder in found.items():
        text = text.replace(original, placeholder)
    text = MEASURED_IN_TEXT.sub(rf"\1 {VARIES} ms", text)
    return STATE_DIR.sub("{state_dir}", text)


# --------------------------------------------------------------------------- the comparison


def golden_path(scenario: str, vantage: str) -> Path:
    return GOLDEN_DIR / scenario / f"{vantage}.json"


def scenario_of(run: VantageRun) -> str:
    """The name of the scenario ``run``'s vantage belongs to."""
    from kdiag.lab.scenarios import all_scenarios

    for scenario in all_scenarios():
        if any(vantage is run.vantage for vantage in scenario.vantages):
            return scenario.name
    names = [scenario.name for scenario in all_scenarios() if run.vantage in scenario.vantages]
    if len(names) != 1:
        raise AssertionError(f"vantage {run.vantage.name} belongs to {len(names)} scenarios: {names}")
    return names[0]


def as_text(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def assert_matches_golden(run: VantageRun) -> None:
    """``run``'s normalised report is its golden file's, or (``KDIAG_UPDATE_GOLDEN=1``) becomes it."""
    scenario = scenario_of(run)
    path = golden_path(scenario, run.vantage.name)
    assert run.report is not None, f"{scenario}/{run.vantage.name}: no JSON report ({run.command})"
    actual = as_text(normalise(run.report))
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    relative = path.relative_to(GOLDEN_DIR.parent.parent.parent)
    if not path.exists():
        raise AssertionError(f"{scenario}/{run.vantage.name}: no golden report {relative}; "
                             f"record it with {UPDATE_ENV}=1")
    expected = path.read_text()
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                                            fromfile=f"golden {relative}", tofile=f"this run ({run.command})"))
        raise AssertionError(f"{scenario}/{run.vantage.name}: the normalised report differs from its golden "
                             f"(if the change is intended, re-record with {UPDATE_ENV}=1):\n{diff}")
