"""The fleet pipeline's output tables and their columns: a contract, documented in docs/report.md beside
the report schema. The Spark job writes each as Parquet under ``--out/<table>/``; the plain-Python
reference (``kdiag.fleet.reference``) produces rows with the same keys."""

from __future__ import annotations

TABLES: dict[str, tuple[str, ...]] = {
    "findings": ("cluster", "cluster_id", "finding_id", "severity", "reports", "vantages", "first_seen", "last_seen",
                 "example"),
    "reachability": ("cluster", "node_id", "endpoint", "vantage", "attempts", "successes", "success_rate",
                     "connect_p50_ms", "connect_p95_ms", "dominant_failure"),
    "incidents": ("cluster", "finding_id", "onset", "resolved", "vantages", "peak_vantages", "reports"),
    "stage_latency": ("cluster", "stage", "runs", "p50_ms", "p95_ms", "p99_ms"),
    "vantages": ("vantage", "reports", "first_seen", "last_seen", "interval_s", "stale"),
    "rejected": ("source", "reason", "count", "sample"),
}
"""Table name -> its columns, in order. Times are UTC timestamps; ``interval_s`` is the vantage's usual
interval between reports (the median gap of each cluster it probes)."""

KEYS: dict[str, tuple[str, ...]] = {
    "findings": ("cluster", "finding_id"),
    "reachability": ("cluster", "node_id", "endpoint", "vantage"),
    "incidents": ("cluster", "finding_id", "onset"),
    "stage_latency": ("cluster", "stage"),
    "vantages": ("vantage",),
    "rejected": ("source", "reason"),
}
"""Each table's primary key: no two rows share one."""

REJECT_REASONS = ("not_json", "not_a_report", "schema_version", "bad_field")
"""Why a line was rejected: it is not JSON; it is JSON but not a report object (no ``schema``); its
``schema`` is not ``kdiag.report/1``; a field the tables need is missing or of the wrong type (no
``generated_at`` timestamp, no ``bootstrap``)."""

STALE_INTERVALS = 3
"""A vantage is stale when it sent no report within this many of its usual intervals before the
newest report of the input."""

SAMPLES = 5
"""Rejected lines kept per (source, reason), secrets scrubbed."""
