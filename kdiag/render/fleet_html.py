"""The fleet job's self-contained HTML report: an incident timeline per cluster, an endpoint x vantage
reachability heatmap, stage latency, and the tables.

Charts are drawn by plotly.js, inlined from the ``plotly`` Python package installed with the ``fleet``
extra (``plotly/package_data/plotly.min.js``): the file fetches no script, font or style from the
network, so it opens offline. Every value from the reports reaches the page as JSON data (for the
charts) or HTML-escaped text (for the tables). When the charts have drawn, the page sets
``data-charts-drawn`` on its body to their number (what the headless-Chromium test reads).
"""

from __future__ import annotations

import datetime as _dt
import html
import importlib.util
import json
from pathlib import Path
from typing import Any

from kdiag.fleet.tables import TABLES

TABLE_ROWS = 500


class ChartLibraryMissing(RuntimeError):
    """plotly (the fleet extra) is not installed."""


def plotly_js() -> str:
    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise ChartLibraryMissing("the HTML report needs plotly: pip install 'kdiag[fleet]'")
    return (Path(spec.origin).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")


def _value(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return value.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value


def _plain(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: _value(v) for k, v in row.items()} for row in rows]


def _time(value: str | None) -> str | None:
    return None if value is None else value.replace("T", " ").rstrip("Z")


def chart_data(tables: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The three charts' traces and layouts, as plotly.js takes them."""
    incidents = _plain(tables.get("incidents", []))
    vantages = _plain(tables.get("vantages", []))
    newest = max((row["last_seen"] for row in vantages), default=None)
    bars: dict[bool, dict[str, list[Any]]] = {False: {"y": [], "base": [], "x": [], "text": []},
                                              True: {"y": [], "base": [], "x": [], "text": []}}
    for row in sorted(incidents, key=lambda r: (r["cluster"], r["finding_id"], r["onset"])):
        ongoing = row["resolved"] is None
        end = newest if ongoing else row["resolved"]
        start = _dt.datetime.fromisoformat(row["onset"])
        stop = _dt.datetime.fromisoformat(end) if end else start
        bar = bars[ongoing]
        bar["y"].append(f"{row['cluster']} · {row['finding_id']}")
        bar["base"].append(_time(row["onset"]))
        bar["x"].append(max(1000.0, (stop - start).total_seconds() * 1000))
        bar["text"].append(f"{row['vantages']} vantages (peak {row['peak_vantages']}), {row['reports']} reports")
    timeline = [{"type": "bar", "orientation": "h", "name": "ongoing" if ongoing else "resolved",
                 "marker": {"color": "#d62728" if ongoing else "#ff7f0e"}, "hovertext": bar["text"], **{
                     k: bar[k] for k in ("y", "base", "x")}} for ongoing, bar in bars.items() if bar["y"]]
    reach = _plain(tables.get("reachability", []))
    rows = sorted({(r["cluster"], r["node_id"], r["endpoint"]) for r in reach})
    columns = sorted({r["vantage"] for r in reach})
    z: list[list[float | None]] = [[None] * len(columns) for _ in rows]
    row_index = {key: i for i, key in enumerate(rows)}
    column_index = {v: i for i, v in enumerate(columns)}
    for r in reach:
        z[row_index[(r["cluster"], r["node_id"], r["endpoint"])]][column_index[r["vantage"]]] = r["success_rate"]
    heatmap = [{"type": "heatmap", "z": z, "x": columns, "zmin": 0, "zmax": 1, "colorscale": [[0, "#d73027"], [0.5, "#fee08b"], [1, "#1a9850"]],
                "y": [f"{cluster} · {node} · {endpoint}" for cluster, node, endpoint in rows]}]
    latency = _plain(tables.get("stage_latency", []))
    stages = [{"type": "bar", "name": cluster, "x": [r["stage"] for r in latency if r["cluster"] == cluster],
               "y": [r["p95_ms"] for r in latency if r["cluster"] == cluster]}
              for cluster in sorted({r["cluster"] for r in latency})]
    height = 120 + 22 * max(len(rows), len({y for bar in timeline for y in bar["y"]}), 1)
    return {
        "timeline": {"data": timeline, "layout": {"title": {"text": "Incidents"}, "barmode": "overlay",
                                                  "xaxis": {"type": "date"}, "height": height,
                                                  "margin": {"l": 420}}},
        "heatmap": {"data": heatmap, "layout": {"title": {"text": "Success rate: endpoint x vantage"},
                                                "height": height, "margin": {"l": 420, "b": 160}}},
        "latency": {"data": stages, "layout": {"title": {"text": "Stage latency, p95 of ok runs (ms)"},
                                               "barmode": "group", "yaxis": {"type": "log"}}},
    }


def _table(name: str, rows: list[dict[str, Any]]) -> str:
    columns = TABLES[name]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for row in _plain(rows)[:TABLE_ROWS]:
        cells = "".join(f"<td>{html.escape(_cell(row.get(c)))}</td>" for c in columns)
        body.append(f"<tr>{cells}</tr>")
    more = f"<p>{len(rows) - TABLE_ROWS} more rows in the Parquet table.</p>" if len(rows) > TABLE_ROWS else ""
    return (f"<h2 id='{name}'>{name} ({len(rows)} rows)</h2><div class='scroll'><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>{more}")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


_SCRIPT = """
(function () {
  var charts = JSON.parse(document.getElementById('kdiag-charts').textContent);
  var names = ['timeline', 'heatmap', 'latency'];
  Promise.all(names.map(function (name) {
    return Plotly.newPlot(name, charts[name].data, charts[name].layout, {staticPlot: false, responsive: true});
  })).then(function () {
    var drawn = document.querySelectorAll('.js-plotly-plot .main-svg').length ? names.length : 0;
    document.body.setAttribute('data-charts-drawn', String(drawn));
  }, function (error) {
    document.body.setAttribute('data-charts-error', String(error));
  });
})();
"""


def render_html(tables: dict[str, list[dict[str, Any]]], *, title: str = "kdiag fleet report") -> str:
    data = json.dumps(chart_data(tables), ensure_ascii=True).replace("</", "<\\/")
    sections = "".join(_table(name, tables.get(name, [])) for name in TABLES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:">
<style>body{{font-family:sans-serif;margin:1.5em}} table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:2px 6px;white-space:pre;text-align:left}} .scroll{{max-height:30em;overflow:auto}}</style>
<script>{plotly_js()}</script></head>
<body><h1>{html.escape(title)}</h1>
<div id="timeline"></div><div id="heatmap"></div><div id="latency"></div>
{sections}
<script type="application/json" id="kdiag-charts">{data}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
