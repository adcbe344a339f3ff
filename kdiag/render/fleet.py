"""The fleet job's terminal summary: worst clusters, ongoing incidents, stale vantages, rejected input.

A pure function of the tables (rows as dicts, as ``kdiag.fleet.job`` and ``kdiag.fleet.reference``
produce them) to text. Cluster names, vantage labels and sources came from the reports, so they pass
through the one sanitizer (``kdiag.render.safe.printable``) before they reach the terminal.
"""

from __future__ import annotations

import datetime as _dt
import io
from collections import defaultdict
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kdiag.render.safe import MAX_NAME, MAX_TEXT, printable

TOP = 10


def outside(text: Any, *, limit: int = MAX_TEXT) -> Text:
    """A cell of outside text: through the one sanitizer, and as plain text (a ``[`` in it is not markup)."""
    return Text(printable(str(text), limit=limit))


def when(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value.replace("T", " ")[:19]
    if isinstance(value, _dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


def worst_clusters(tables: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Clusters by the reports that carried an error finding (then warnings), worst first."""
    score: dict[str, dict[str, Any]] = defaultdict(lambda: {"errors": 0, "warnings": 0, "findings": set()})
    for row in tables.get("findings", ()):
        entry = score[row["cluster"]]
        entry["errors" if row["severity"] == "error" else "warnings"] += row["reports"]
        entry["findings"].add(row["finding_id"])
    ongoing = defaultdict(int)
    for row in tables.get("incidents", ()):
        if row["resolved"] is None:
            ongoing[row["cluster"]] += 1
    ranked = sorted(score.items(), key=lambda kv: (-kv[1]["errors"], -kv[1]["warnings"], kv[0]))
    return [{"cluster": cluster, "errors": e["errors"], "warnings": e["warnings"], "findings": sorted(e["findings"]),
             "ongoing": ongoing[cluster]} for cluster, e in ranked]


def render_summary(tables: dict[str, list[dict[str, Any]]], *, width: int = 100, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system="standard" if color else None, force_terminal=color,
                      highlight=False, emoji=False)
    vantages = tables.get("vantages", [])
    reports = sum(row["reports"] for row in vantages)
    clusters = {row["cluster"] for row in tables.get("stage_latency", [])} | {row["cluster"] for row in
                                                                              tables.get("findings", [])}
    console.print(Text(f"{reports} reports from {len(vantages)} vantages, {len(clusters)} clusters", style="bold"))

    worst = [row for row in worst_clusters(tables) if row["errors"] or row["warnings"]]
    if worst:
        table = Table(title="Worst clusters", title_justify="left", expand=False)
        for column in ("cluster", "error reports", "warning reports", "ongoing", "findings"):
            table.add_column(column)
        for row in worst[:TOP]:
            table.add_row(outside(row["cluster"]), str(row["errors"]), str(row["warnings"]), str(row["ongoing"]),
                          outside(", ".join(row["findings"])))
        console.print(table)
    else:
        console.print("No cluster has a problem in these reports.")

    ongoing = [row for row in tables.get("incidents", []) if row["resolved"] is None]
    if ongoing:
        table = Table(title="Ongoing incidents", title_justify="left")
        for column in ("cluster", "finding", "since", "vantages", "peak", "reports"):
            table.add_column(column)
        for row in sorted(ongoing, key=lambda r: (str(r["onset"]), r["cluster"], r["finding_id"])):
            table.add_row(outside(row["cluster"]), outside(row["finding_id"], limit=MAX_NAME), when(row["onset"]),
                          str(row["vantages"]), str(row["peak_vantages"]), str(row["reports"]))
        console.print(table)
    resolved = sum(1 for row in tables.get("incidents", []) if row["resolved"] is not None)
    console.print(f"{len(ongoing)} ongoing and {resolved} resolved incidents.")

    stale = [row for row in vantages if row["stale"]]
    if stale:
        table = Table(title="Stale vantages (no report within 3 intervals of the newest)", title_justify="left")
        for column in ("vantage", "last report", "interval"):
            table.add_column(column)
        for row in stale:
            interval = row.get("interval_s")
            table.add_row(outside(row["vantage"], limit=MAX_NAME), when(row["last_seen"]),
                          "-" if interval is None else f"{interval:.0f} s")
        console.print(table)

    rejected = tables.get("rejected", [])
    if rejected:
        by_reason: dict[str, int] = defaultdict(int)
        for row in rejected:
            by_reason[row["reason"]] += row["count"]
        parts = ", ".join(f"{count} {reason}" for reason, count in sorted(by_reason.items()))
        console.print(f"Rejected input: {sum(by_reason.values())} records ({parts}); see the rejected table.")
    return buffer.getvalue()
