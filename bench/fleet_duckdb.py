"""The six fleet tables in DuckDB, with the Spark job's semantics (``kdiag.fleet.job``), for the
benchmark's single-machine reference: from the raw report files (lines and whole ``*.json`` files,
classified and rejected as the job does) or from the reports table ``kdiag fleet ingest`` writes.
Equal to the plain-Python reference on generated truth (tests/unit/fleet/test_duckdb_reference.py).

    tables = duckdb_tables(json_files=[...])      # or duckdb_tables(table="DIR")
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import Any

from kdiag.fleet.reference import iso, scrub_sample
from kdiag.fleet.tables import SAMPLES, STALE_INTERVALS, TABLES
from kdiag.report import SCHEMA

STRUCTURE = json.dumps({
    "schema": "VARCHAR", "report_id": "VARCHAR", "generated_at": "VARCHAR",
    "vantage": {"hostname": "VARCHAR", "label": "VARCHAR"},
    "bootstrap": [{"host": "VARCHAR", "port": "BIGINT"}],
    "stages": [{"name": "VARCHAR", "status": "VARCHAR", "duration_ms": "DOUBLE"}],
    "cluster": {"cluster_id": "VARCHAR", "brokers": [{"node_id": "BIGINT", "host": "VARCHAR", "port": "BIGINT",
                                                      "dns": {"status": "VARCHAR"},
                                                      "tcp": {"status": "VARCHAR", "duration_ms": "DOUBLE"},
                                                      "kafka": {"status": "VARCHAR"}}]},
    "findings": [{"id": "VARCHAR", "severity": "VARCHAR", "evidence": "JSON"}]})


_STRUCTURE_ESCAPED = STRUCTURE.replace("{", "{{").replace("}", "}}")  # RAW_SQL is formatted again


def _endpoint(host: str, port: str) -> str:
    return f"CASE WHEN contains({host}, ':') THEN '[' || {host} || ']:' || {port} ELSE {host} || ':' || {port} END"


def _list(values: Sequence[str]) -> str:
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


RAW_SQL = f"""
CREATE TEMP TABLE records AS
SELECT source, value,
  CASE WHEN NOT json_valid(value) THEN 'not_json'
       WHEN json_type(value) != 'OBJECT' OR json_extract(value, '$.schema') IS NULL THEN 'not_a_report'
       WHEN json_extract_string(value, '$.schema') IS DISTINCT FROM '{SCHEMA}' THEN 'schema_version'
  END AS pre
FROM (SELECT filename AS source, column0 AS value
      FROM read_csv({{lines}}, columns = {{{{'column0': 'VARCHAR'}}}}, header = false, delim = '\x01', quote = '',
                    escape = '', auto_detect = false, filename = true, max_line_size = 16777216)
      UNION ALL SELECT filename, content FROM read_text({{whole}}))
WHERE trim(value, ' \t\r\n') != '';
CREATE TEMP TABLE parsed AS
SELECT source, value, pre, p, try_cast(p.generated_at AS TIMESTAMPTZ) AS ts
FROM (SELECT *, CASE WHEN pre IS NULL THEN json_transform(value, '{_STRUCTURE_ESCAPED}') END AS p FROM records);
CREATE TEMP TABLE rejected_records AS
SELECT source, coalesce(pre, 'bad_field') AS reason, value FROM parsed
WHERE pre IS NOT NULL OR ts IS NULL OR p.bootstrap IS NULL OR len(p.bootstrap) < 1;
CREATE TEMP TABLE raw AS
SELECT coalesce(nullif(p.report_id, ''), 'sha256:' || sha256(value)) AS key, ts,
       array_to_string(list_transform(p.bootstrap, lambda e: {_endpoint('e.host', 'e.port::VARCHAR')}), ',') AS cluster,
       p.cluster.cluster_id AS cluster_id,
       coalesce(nullif(p.vantage.label, ''), nullif(p.vantage.hostname, ''), 'unknown') AS vantage,
       list_filter(coalesce(p.findings, []), lambda f, i: list_position(list_transform(p.findings, lambda g: g.id), f.id) = i)
         AS findings,
       coalesce(p.cluster.brokers, []) AS brokers, coalesce(p.stages, []) AS stages
FROM parsed WHERE pre IS NULL AND ts IS NOT NULL AND p.bootstrap IS NOT NULL AND len(p.bootstrap) >= 1;
"""

TABLE_SQL = """
CREATE TEMP TABLE raw AS
SELECT key, ts, cluster, cluster_id, vantage, findings, brokers, stages
FROM read_parquet('{table}/reports/*/*/*.parquet', hive_partitioning = false);
CREATE TEMP TABLE rejected_records AS
SELECT source, reason, value FROM read_parquet('{table}/rejected/*/*.parquet', hive_partitioning = false);
"""

TABLES_SQL = f"""
CREATE TEMP TABLE stream AS
SELECT *, list_transform(findings, lambda f: f.id) AS ids,
       lag(ts) OVER w AS prev_ts, lag(list_transform(findings, lambda f: f.id)) OVER w AS prev_ids,
       lead(list_transform(findings, lambda f: f.id)) OVER w AS next_ids, lead(ts) OVER w AS next_ts
FROM (SELECT DISTINCT ON (key) * FROM raw)
WINDOW w AS (PARTITION BY cluster, vantage ORDER BY ts, key);

CREATE TEMP TABLE findings_t AS
WITH ids AS (SELECT cluster, arg_max(cluster_id, (ts, key)) AS cluster_id FROM stream
             WHERE cluster_id IS NOT NULL GROUP BY cluster),
     f AS (SELECT cluster, vantage, ts, key, unnest(findings) AS f FROM stream)
SELECT f.cluster, ids.cluster_id, f.f.id AS finding_id, arg_max(f.f.severity, (ts, key)) AS severity,
       count(*) AS reports, count(DISTINCT vantage) AS vantages, min(ts) AS first_seen, max(ts) AS last_seen,
       arg_max(f.f.evidence::VARCHAR, (ts, key)) AS example
FROM f LEFT JOIN ids USING (cluster) GROUP BY f.cluster, ids.cluster_id, f.f.id;

CREATE TEMP TABLE reachability_t AS
WITH a AS (
  SELECT cluster, b.node_id AS node_id, {_endpoint('b.host', 'b.port::VARCHAR')} AS endpoint, vantage,
         CASE WHEN coalesce(b.dns.status, 'missing') != 'ok' THEN coalesce(b.dns.status, 'missing')
              WHEN coalesce(b.tcp.status, 'missing') != 'ok' THEN coalesce(b.tcp.status, 'missing')
              WHEN coalesce(b.kafka.status, 'missing') != 'ok' THEN coalesce(b.kafka.status, 'missing') END AS failure,
         CASE WHEN b.tcp.status = 'ok' THEN coalesce(b.tcp.duration_ms, 0) END AS connect_ms
  FROM (SELECT cluster, vantage, unnest(brokers) AS b FROM stream)),
totals AS (
  SELECT cluster, node_id, endpoint, vantage, count(*) AS attempts, count(*) FILTER (failure IS NULL) AS successes,
         quantile_cont(connect_ms, 0.5) AS connect_p50_ms, quantile_cont(connect_ms, 0.95) AS connect_p95_ms
  FROM a GROUP BY ALL),
dominant AS (
  SELECT cluster, node_id, endpoint, vantage, arg_min(failure, (-n, failure)) AS dominant_failure
  FROM (SELECT cluster, node_id, endpoint, vantage, failure, count(*) AS n FROM a WHERE failure IS NOT NULL
        GROUP BY ALL) GROUP BY ALL)
SELECT cluster, node_id, endpoint, vantage, attempts, successes, successes / attempts AS success_rate,
       connect_p50_ms, connect_p95_ms, dominant_failure
FROM totals LEFT JOIN dominant USING (cluster, node_id, endpoint, vantage);

CREATE TEMP TABLE stage_latency_t AS
SELECT cluster, s.name AS stage, count(*) AS runs, quantile_cont(coalesce(s.duration_ms, 0), 0.5) AS p50_ms,
       quantile_cont(coalesce(s.duration_ms, 0), 0.95) AS p95_ms, quantile_cont(coalesce(s.duration_ms, 0), 0.99) AS p99_ms
FROM (SELECT cluster, unnest(stages) AS s FROM stream) WHERE s.status = 'ok' GROUP BY ALL;

CREATE TEMP TABLE vantages_t AS
WITH v AS (SELECT vantage, count(*) AS reports, min(ts) AS first_seen, max(ts) AS last_seen,
                  quantile_cont(epoch_us(ts) - epoch_us(prev_ts), 0.5) / 1e6 AS interval_s
           FROM stream GROUP BY vantage)
SELECT vantage, reports, first_seen, last_seen, interval_s,
       coalesce(interval_s IS NOT NULL
                AND (epoch_us(max(last_seen) OVER ()) - epoch_us(last_seen)) / 1e6 > {STALE_INTERVALS} * interval_s,
                false) AS stale
FROM v;

CREATE TEMP TABLE episodes AS
WITH m AS (
  SELECT cluster, vantage, ts, key, next_ts, finding_id,
         NOT coalesce(list_contains(prev_ids, finding_id), false) AS is_start,
         NOT coalesce(list_contains(next_ids, finding_id), false) AS closes,
         row_number() OVER (PARTITION BY cluster, vantage, finding_id ORDER BY ts, key) AS n
  FROM (SELECT *, unnest(ids) AS finding_id FROM stream)),
s AS (
  SELECT *, max(CASE WHEN is_start THEN ts END) OVER r AS start, max(CASE WHEN is_start THEN n END) OVER r AS start_n
  FROM m WINDOW r AS (PARTITION BY cluster, vantage, finding_id ORDER BY ts, key
                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
SELECT cluster, vantage, finding_id, start, next_ts AS "end", n - start_n + 1 AS reports FROM s WHERE closes;

CREATE TEMP TABLE incident_episodes AS
SELECT *, sum(new) OVER (PARTITION BY cluster, finding_id ORDER BY start, vantage
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS incident
FROM (SELECT *, CASE WHEN reach IS NULL OR start > reach THEN 1 ELSE 0 END AS new
      FROM (SELECT *, max(coalesce("end", TIMESTAMPTZ '9999-12-31 00:00:00+00')) OVER (
                PARTITION BY cluster, finding_id ORDER BY start, vantage
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach FROM episodes));

CREATE TEMP TABLE incidents_t AS
WITH events AS (SELECT cluster, finding_id, incident, start AS moment, 1 AS step FROM incident_episodes
                UNION ALL SELECT cluster, finding_id, incident, "end", -1 FROM incident_episodes WHERE "end" IS NOT NULL),
peaks AS (SELECT cluster, finding_id, incident, max(active) AS peak_vantages
          FROM (SELECT *, sum(step) OVER (PARTITION BY cluster, finding_id, incident ORDER BY moment, step
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS active FROM events)
          GROUP BY ALL),
inc AS (SELECT cluster, finding_id, incident, min(start) AS onset,
               CASE WHEN count(*) FILTER ("end" IS NULL) > 0 THEN NULL ELSE max("end") END AS resolved,
               count(DISTINCT vantage) AS vantages, sum(reports) AS reports
        FROM incident_episodes GROUP BY ALL)
SELECT cluster, finding_id, onset, resolved, vantages, peak_vantages, reports
FROM inc JOIN peaks USING (cluster, finding_id, incident) WHERE peak_vantages >= {{min_vantages}};

CREATE TEMP TABLE rejected_t AS
SELECT source, reason, count(*) AS count, list(value ORDER BY value)[1:{SAMPLES}] AS sample
FROM rejected_records GROUP BY ALL;
"""


def duckdb_tables(*, json_files: Sequence[str] = (), table: str | None = None, min_vantages: int = 1,
                  threads: int = 2) -> dict[str, list[dict[str, Any]]]:
    """The six tables as the reference gives them (rows as dicts, times as ISO strings, samples scrubbed).
    KDIAG_BENCH_DUCKDB_MEMORY and KDIAG_BENCH_DUCKDB_TEMP (a directory) bound its memory and say where
    it spills, for inputs larger than memory (4 M reports are 24 GB of JSON)."""
    import os

    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}; SET TimeZone = 'UTC'; SET preserve_insertion_order = false")
    if os.environ.get("KDIAG_BENCH_DUCKDB_MEMORY"):
        con.execute("SET memory_limit = ?", [os.environ["KDIAG_BENCH_DUCKDB_MEMORY"]])
    if os.environ.get("KDIAG_BENCH_DUCKDB_TEMP"):
        con.execute("SET temp_directory = ?", [os.environ["KDIAG_BENCH_DUCKDB_TEMP"]])
        con.execute("SET max_temp_directory_size = '30GB'")
    if table is not None:
        con.execute(TABLE_SQL.format(table=table))
    else:
        lines = [f for f in json_files if not f.endswith(".json")]
        whole = [f for f in json_files if f.endswith(".json")]
        con.execute(RAW_SQL.format(lines=_list(lines), whole=_list(whole) if whole else "[]")
                    if whole else RAW_SQL.replace("UNION ALL SELECT filename, content FROM read_text({whole})", "")
                    .format(lines=_list(lines)))
    con.execute(TABLES_SQL.format(min_vantages=int(min_vantages)))
    out: dict[str, list[dict[str, Any]]] = {}
    for name in TABLES:
        cursor = con.execute(f"SELECT {', '.join(_quoted(c) for c in TABLES[name])} FROM {name}_t")
        rows = [dict(zip(TABLES[name], (_value(v) for v in values))) for values in cursor.fetchall()]
        if name == "rejected":
            for row in rows:
                row["sample"] = [scrub_sample(s) for s in row["sample"]]
        out[name] = rows
    return out


def _quoted(column: str) -> str:
    return f'"{column}"'


def _value(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        return iso(value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc))
    return value
