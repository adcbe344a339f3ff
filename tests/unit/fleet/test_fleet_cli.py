"""``kdiag fleet``'s bad input: one line, exit 2, nothing written in --out; all refused before Spark starts.
And the views: the terminal summary and the HTML report as text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kdiag.cli import main
from kdiag.environment import Environment
from kdiag.fleet.reference import analyze_records
from kdiag.render.fleet import render_summary
from kdiag.render.fleet_html import render_html
from tests.unit.fleet.test_reference import report


def _run(*args: str) -> tuple[int, str, str]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    code = main(list(args), env=env)
    return code, env.stdout.getvalue(), env.stderr.getvalue()  # type: ignore[attr-defined]


@pytest.fixture()
def reports(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(report(0, "a")[1] + "\n", encoding="utf-8")
    return path


def _one_line_exit_2(code: int, stderr: str, expected: str) -> None:
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith("kdiag: error: ") and expected in stderr, stderr


def test_a_missing_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, _, stderr = _run("fleet", "analyze", str(tmp_path / "nope"), "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "no such file or directory")
    assert not (tmp_path / "out").exists()


def test_a_glob_matching_nothing_and_an_empty_directory_are_refused(tmp_path: Path) -> None:
    code, _, stderr = _run("fleet", "analyze", str(tmp_path / "*.jsonl"), "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "no file matches")
    code, _, stderr = _run("fleet", "analyze", str(tmp_path), "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "no *.jsonl")


def test_an_existing_out_is_refused_without_overwrite(tmp_path: Path, reports: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep").write_text("mine")
    code, _, stderr = _run("fleet", "analyze", str(reports), "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "give --overwrite")
    assert (tmp_path / "out" / "keep").read_text() == "mine"


def test_an_unknown_master_is_refused(tmp_path: Path, reports: Path) -> None:
    code, _, stderr = _run("fleet", "analyze", str(reports), "--out", str(tmp_path / "out"), "--master", "bogus://x")
    _one_line_exit_2(code, stderr, "not a Spark master URL")
    code, _, stderr = _run("fleet", "analyze", str(reports), "--out", str(tmp_path / "out"),
                           "--master", "spark://127.0.0.1:1")
    _one_line_exit_2(code, stderr, "no Spark master answers")


def test_no_java_is_one_line(tmp_path: Path, reports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _, stderr = _run("fleet", "analyze", str(reports), "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "no Java runtime")


def test_a_bad_kafka_url_and_a_bad_time_are_refused(tmp_path: Path) -> None:
    code, _, stderr = _run("fleet", "analyze", "kafka://broker:9092", "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "kafka://BOOTSTRAP/TOPIC")
    code, _, stderr = _run("fleet", "analyze", "x", "--out", str(tmp_path / "out"), "--since", "yesterday")
    _one_line_exit_2(code, stderr, "ISO 8601")


def test_every_fleet_subcommand_takes_debug(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("analyze", "ingest", "generate"):
        code, _, _ = _run("fleet", command, "--help")
        assert code == 0 and "--debug" in capsys.readouterr().out


def _tables() -> dict:
    return analyze_records([report(0, "k8s/prod/a", ("BOOTSTRAP_REFUSED",)), report(5, "k8s/prod/a"),
                            report(0, "evil\x1b[31m"), report(5, "evil\x1b[31m"), report(40, "k8s/prod/a", ("BOOTSTRAP_REFUSED",)),
                            ("f", "sasl.password=hunter2")])


def test_the_summary_names_the_worst_cluster_and_the_ongoing_incident_and_escapes_outside_text() -> None:
    text = render_summary(_tables(), width=120)
    assert "Worst clusters" in text and "k1.example.com:9092" in text
    assert "Ongoing incidents" in text and "BOOTSTRAP_REFUSED" in text
    assert "\x1b" not in text and "evil\\x1b[31m" in text
    assert "Rejected input: 1 records (1 not_json)" in text and "hunter2" not in text


def test_the_html_report_is_self_contained_and_escapes_outside_text() -> None:
    page = render_html(_tables())
    assert "<script src" not in page and "http://" not in page.split("</script>")[-1]
    assert "evil\x1b" not in page.split("kdiag-charts")[0] or "<td>evil" in page
    assert "<td>sasl.password=***</td>" in page
    assert "Plotly.newPlot" in page and 'id="timeline"' in page and 'id="heatmap"' in page


def test_kdiag_help_and_fleet_help_import_no_spark() -> None:
    import subprocess
    import sys

    code = ("import sys; from kdiag.cli import main; main(['fleet', '--help']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'plotly', 'duckdb', 'py4j')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_generate_prints_the_command_that_analyzes_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "new dir" / "demo"
    code, stdout, _ = _run("fleet", "generate", "--out", str(out), "--reports", "300", "--clusters", "2",
                           "--vantages", "2", "--no-truth")
    assert code == 0 and (out / "reports").is_dir()
    assert f"kdiag fleet analyze '{out}' --out '{out}-analyzed'" in stdout


def test_a_directory_stands_for_the_report_files_below_it_but_not_hidden_ones(tmp_path: Path) -> None:
    from kdiag.fleet.inputs import local_files

    for name in ("a/x.jsonl", "a/b/y.json", "a/_truth.json", "a/_meta/z.jsonl", "a/.tmp/w.jsonl", "a/notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}\n")
    assert local_files(str(tmp_path / "a")) == [str(tmp_path / "a/b/y.json"), str(tmp_path / "a/x.jsonl")]


def test_the_summary_shows_outside_text_through_the_one_sanitizer_and_never_as_markup() -> None:
    tables = analyze_records([report(0, "[bold]v\u202e1", ("BOOTSTRAP_REFUSED",)), report(5, "[bold]v\u202e1"),
                              report(0, "w"), report(59, "w")])
    text = render_summary(tables, width=200)
    assert "[bold]v\\u202e1" in text and "\u202e" not in text


def test_ingest_refuses_a_missing_directory_a_bad_trigger_and_no_input_in_one_line(tmp_path: Path) -> None:
    code, _, stderr = _run("fleet", "ingest", str(tmp_path / "nope"), "--table", str(tmp_path / "t"), "--once")
    _one_line_exit_2(code, stderr, "not a directory")
    code, _, stderr = _run("fleet", "ingest", str(tmp_path), "--table", str(tmp_path / "t"), "--trigger", "soon")
    _one_line_exit_2(code, stderr, "an interval such as 30s")
    code, _, stderr = _run("fleet", "ingest", "kafka://broker:9092", "--table", str(tmp_path / "t"))
    _one_line_exit_2(code, stderr, "kafka://BOOTSTRAP/TOPIC")
    code, _, stderr = _run("fleet", "analyze", "--out", str(tmp_path / "out"))
    _one_line_exit_2(code, stderr, "INPUT... or --table DIR")
    assert not (tmp_path / "t").exists() and not (tmp_path / "out").exists()
