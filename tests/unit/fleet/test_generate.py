"""``kdiag fleet generate``: realistic reports from the real model and rules, deterministic by seed,
with the truth of what it planted."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kdiag.fleet.generate import TRUTH, GenerateError, GenerateOptions, generate, state_report, template, fleet_cluster
from kdiag.report import report_from_dict


def _generate(tmp_path: Path, name: str = "g", **changes: object) -> Path:
    options = dict(reports=1500, clusters=6, vantages=5, out=tmp_path / name, seed=3)
    options.update(changes)
    generate(GenerateOptions(**options))  # type: ignore[arg-type]
    return tmp_path / name


def _lines(out: Path) -> list[str]:
    lines = []
    for path in sorted((out / "reports").iterdir()):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            lines.extend(handle.read().splitlines())
    return lines


def test_the_same_seed_writes_the_same_files_and_truth(tmp_path: Path) -> None:
    a, b = _generate(tmp_path, "a"), _generate(tmp_path, "b")
    assert _lines(a) == _lines(b)
    assert json.loads((a / TRUTH).read_text())["tables"] == json.loads((b / TRUTH).read_text())["tables"]
    assert _lines(_generate(tmp_path, "c", seed=4)) != _lines(a)


def test_every_report_loads_with_the_report_model_and_the_count_is_exact(tmp_path: Path) -> None:
    out = _generate(tmp_path)
    reports = {}
    for line in _lines(out):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("schema") == "kdiag.report/1" and "generated_at" in data and data.get("bootstrap"):
            reports[data["report_id"]] = report_from_dict(data)
    assert len(reports) == 1500
    assert all(r.vantage.label and r.report_id for r in reports.values())


def test_the_scenarios_carry_the_findings_kdiag_really_draws_from_those_facts() -> None:
    cluster = fleet_cluster(0)
    assert template(state_report(cluster, "healthy")).findings == ()
    assert "ADVERTISED_UNRESOLVABLE" in template(state_report(cluster, "ec2_internal")).findings
    assert template(state_report(cluster, "ec2_internal", inside=True)).findings == ()  # resolves inside the VPC
    assert "ADVERTISED_LOOPBACK" in template(state_report(cluster, "docker_listener")).findings
    assert "ADVERTISED_UNREACHABLE" in template(state_report(cluster, "nat_port")).findings
    assert "ADVERTISED_UNREACHABLE" in template(state_report(cluster, "filtered_broker")).findings
    assert template(state_report(cluster, "cluster_down")).findings == ("BOOTSTRAP_REFUSED",)


def test_the_truth_holds_the_planted_episodes_and_their_incidents(tmp_path: Path) -> None:
    truth = json.loads((_generate(tmp_path) / TRUTH).read_text())
    scenarios = {p["scenario"] for p in truth["planted"]}
    assert scenarios == {"ec2_internal", "filtered_broker", "docker_listener", "k8s_service", "nat_port",
                         "cluster_down"}
    incidents = truth["tables"]["incidents"]
    assert {i["cluster"] for i in incidents} == {p["cluster"] for p in truth["planted"]}
    assert [i["finding_id"] for i in incidents if i["resolved"] is None] == ["BOOTSTRAP_REFUSED"]
    assert any(v["stale"] for v in truth["tables"]["vantages"])


def test_an_existing_out_is_refused_without_overwrite(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    with pytest.raises(GenerateError, match="exists"):
        _generate(tmp_path)
    assert list((tmp_path / "g").iterdir()) == []
    _generate(tmp_path, overwrite=True)


def test_generate_creates_the_missing_parents_of_out(tmp_path: Path) -> None:
    out = _generate(tmp_path, "a/b/c")
    assert (out / "reports").is_dir() and (out / TRUTH).is_file()


def test_the_generated_directory_as_written_reads_as_the_truth(tmp_path: Path) -> None:
    """``kdiag fleet analyze OUT`` finds the report files below OUT and skips ``_truth.json``."""
    from kdiag.fleet.inputs import local_files
    from kdiag.fleet.reference import analyze_paths

    out = _generate(tmp_path, "demo")
    files = local_files(str(out))
    assert files and not any(f.endswith(TRUTH) for f in files)
    assert {Path(f).parent.name for f in files} == {"reports", "tickets"}
    tables = analyze_paths([str(out)])
    truth = json.loads((out / TRUTH).read_text())["tables"]
    for row in tables["rejected"]:
        row["source"] = str(Path(row["source"].removeprefix("file://")).relative_to(out))
    assert tables == truth
