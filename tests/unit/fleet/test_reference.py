"""The fleet tables' definitions, on hand-made reports through the plain-Python reference (the ground
truth the Spark job is tested against): episodes, incidents, k-of-N, stale vantages, rejects."""

from __future__ import annotations

import json
from typing import Any

from kdiag.fleet.reference import analyze_records, percentile

T0 = "2026-11-20T00:00:{:02d}Z"


def report(second: int, vantage: str, findings: tuple[str, ...] = (), *, rid: str | None = None,
           cluster: str = "k1.example.com", brokers: list[dict[str, Any]] | None = None) -> tuple[str, str]:
    data = {"schema": "kdiag.report/1", "report_id": rid or f"id-{vantage}-{second}", "generated_at": T0.format(second),
            "vantage": {"hostname": "h-" + vantage, "label": vantage}, "bootstrap": [{"host": cluster, "port": 9092}],
            "stages": [{"name": "dns", "status": "ok", "duration_ms": float(second)}],
            "cluster": {"cluster_id": "abc", "brokers": brokers or []},
            "findings": [{"id": f, "severity": "error", "evidence": {"at": second}} for f in findings]}
    return "file:///x.jsonl", json.dumps(data)


def incidents(*records: tuple[str, str], min_vantages: int = 1) -> list[dict[str, Any]]:
    return analyze_records(records, min_vantages=min_vantages)["incidents"]


def test_an_episode_ends_at_the_vantages_first_later_report_without_the_finding() -> None:
    [incident] = incidents(report(0, "a"), report(10, "a", ("X",)), report(20, "a", ("X",)), report(30, "a"))
    assert incident["onset"] == "2026-11-20T00:00:10.000000Z"
    assert incident["resolved"] == "2026-11-20T00:00:30.000000Z"
    assert (incident["vantages"], incident["peak_vantages"], incident["reports"]) == (1, 1, 2)


def test_an_episode_without_a_later_clean_report_is_ongoing() -> None:
    [incident] = incidents(report(10, "a", ("X",)), report(20, "a", ("X",)))
    assert incident["resolved"] is None


def test_overlapping_and_touching_episodes_of_vantages_are_one_incident() -> None:
    rows = incidents(report(10, "a", ("X",)), report(20, "a"),  # a: [10, 20)
                     report(20, "b", ("X",)), report(30, "b"),  # b: [20, 30) touches a
                     report(25, "c", ("X",)), report(35, "c"),  # c: [25, 35) overlaps b
                     report(50, "a", ("X",)), report(55, "a"))  # a again, later: a second incident
    assert [(r["onset"][17:19], r["resolved"][17:19], r["vantages"], r["peak_vantages"]) for r in rows] == [
        ("10", "35", 3, 2), ("50", "55", 1, 1)]


def test_input_order_and_duplicates_do_not_change_the_result() -> None:
    records = [report(10, "a", ("X",)), report(20, "a"), report(15, "b", ("X",)), report(40, "b")]
    shuffled = [records[3], records[1], records[0], records[2], records[0], records[3]]
    assert incidents(*records) == incidents(*shuffled)


def test_min_vantages_keeps_incidents_that_many_vantages_saw_at_once() -> None:
    records = [report(10, "a", ("X",)), report(20, "a"), report(30, "b", ("X",)), report(40, "b"),
               report(50, "a", ("Y",)), report(50, "b", ("Y",)), report(60, "a"), report(60, "b")]
    assert {r["finding_id"] for r in incidents(*records, min_vantages=2)} == {"Y"}


def test_a_vantage_that_went_quiet_for_three_intervals_is_stale() -> None:
    records = [report(s, "a") for s in range(0, 60, 5)] + [report(s, "b") for s in range(0, 40, 5)]
    table = {row["vantage"]: row for row in analyze_records(records)["vantages"]}
    assert table["a"]["interval_s"] == 5.0 and not table["a"]["stale"]
    assert table["b"]["stale"]  # last at 35 s, the newest at 55 s: 20 s > 3 x 5 s


def test_reachability_counts_attempts_successes_and_the_dominant_failure() -> None:
    ok = {"node_id": 1, "host": "b1", "port": 9092, "dns": {"status": "ok"}, "tcp": {"status": "ok", "duration_ms": 2.0},
          "kafka": {"status": "ok"}}
    refused = {**ok, "tcp": {"status": "refused", "duration_ms": 0.1}, "kafka": {"status": "skip"}}
    nx = {**ok, "dns": {"status": "nxdomain"}, "tcp": {"status": "skip"}, "kafka": {"status": "skip"}}
    records = [report(0, "a", brokers=[ok]), report(1, "a", brokers=[refused]), report(2, "a", brokers=[nx]),
               report(3, "a", brokers=[nx])]
    [row] = analyze_records(records)["reachability"]
    assert (row["endpoint"], row["attempts"], row["successes"], row["success_rate"], row["dominant_failure"]) == (
        "b1:9092", 4, 1, 0.25, "nxdomain")
    assert row["connect_p50_ms"] == 2.0


def test_a_broker_step_without_a_status_is_a_failure_named_missing_as_spark_and_duckdb_read_it() -> None:
    unfinished = {"node_id": 1, "host": "b1", "port": 9092, "dns": {"status": "ok"},
                  "tcp": {"status": "ok", "duration_ms": 2.0}}  # no kafka step: not a success
    [row] = analyze_records([report(0, "a", brokers=[unfinished])])["reachability"]
    assert (row["successes"], row["dominant_failure"]) == (0, "missing")


def test_lines_that_are_not_reports_are_counted_sampled_and_scrubbed() -> None:
    records = [("f", "sasl.password=hunter2 oops"), ("f", "[1]"), ("f", '{"schema": "kdiag.report/9"}'),
               ("f", '{"schema": "kdiag.report/1", "bootstrap": []}')]
    rejected = {r["reason"]: r for r in analyze_records(records)["rejected"]}
    assert set(rejected) == {"not_json", "not_a_report", "schema_version", "bad_field"}
    assert rejected["not_json"]["sample"] == ["sasl.password=*** oops"]


def test_percentiles_interpolate_between_ranks_like_spark() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([10.0], 0.95) == 10.0
    assert percentile([], 0.5) is None
