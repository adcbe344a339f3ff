"""``kdiag findings`` and the catalog behind it: equal to the rules, to what explain, the capture and
the lab really raise, and to docs/findings.md."""

from __future__ import annotations

import ast
import io
import json
from pathlib import Path

import pytest

from kdiag.capture.findings import CAPTURE_RULES
from kdiag.catalog import catalog
from kdiag.cli import main
from kdiag.diagnose import RULES
from kdiag.environment import Environment
from kdiag.lab.scenarios import all_scenarios
from kdiag.render import Format
from kdiag.render.findings import render_catalog
from tests.unit.explain.helpers import CLIENT_LOGS, client_log, explained

REPO = Path(__file__).resolve().parents[2]
ENTRIES = {entry.id: entry for entry in catalog()}


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(list(args), env=Environment(stdout=stdout, stderr=stderr))
    return status, stdout.getvalue(), stderr.getvalue()


def string_constants(package: str) -> set[str]:
    found = set()
    for path in (REPO / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found


def test_every_id_a_diagnosis_rule_raises_is_in_the_catalog_with_the_rules_title_and_severity():
    for rule in RULES:
        assert rule.id in ENTRIES, rule.id
        assert (ENTRIES[rule.id].title, ENTRIES[rule.id].severity) == (rule.title, rule.severity)


def test_every_rule_id_has_its_meaning_where_it_is_raised_and_its_usual_fix_written_in_the_catalog():
    from kdiag.catalog import ENTRY_TEXTS

    assert sorted(rule.id for rule in RULES if rule.id not in ENTRY_TEXTS) == []
    assert all(e.meaning and e.raised_by and e.fix for e in ENTRIES.values())


def test_every_catalog_id_has_a_rule_or_a_pattern_that_raises_it():
    raisers = {rule.id for rule in RULES} | string_constants("kdiag/explain") | string_constants("kdiag/capture")
    assert sorted(set(ENTRIES) - raisers) == []


def test_every_id_the_capture_raises_is_catalogued_as_raised_by_pcap():
    capture_ids = set(CAPTURE_RULES) | (string_constants("kdiag/capture") & set(ENTRIES))
    assert sorted(i for i in capture_ids if "pcap" not in ENTRIES[i].raised_by) == []
    assert sorted(i for i, e in ENTRIES.items() if "pcap" in e.raised_by and i not in capture_ids) == []


def test_every_id_explain_raises_on_real_client_output_is_catalogued_as_raised_by_explain():
    seen = {finding.id for log in sorted(CLIENT_LOGS.glob("*.log")) for finding in explained(client_log(log.stem)).findings}
    assert seen, "the real client logs explain to something"
    assert sorted(i for i in seen if i not in ENTRIES or "explain" not in ENTRIES[i].raised_by) == []


def test_every_id_catalogued_as_raised_by_explain_is_one_explain_can_raise():
    """The converse: an id the catalog says explain raises has a builder, or is made by explain's own code by name."""
    from kdiag.explain.builders import BUILDERS

    source = "".join(path.read_text() for path in (REPO / "kdiag" / "explain").rglob("*.py"))
    claimed = [i for i, e in ENTRIES.items() if "explain" in e.raised_by]
    assert sorted(i for i in claimed if i not in BUILDERS and f'"{i}"' not in source) == []


def test_every_id_a_lab_scenario_expects_is_in_the_catalog_and_lists_that_scenario():
    for scenario in all_scenarios():
        for vantage in scenario.vantages:
            for expected in (*vantage.expect.findings, *vantage.expect.hints):
                assert scenario.name in ENTRIES[expected.id].scenarios, (scenario.name, expected.id)


def test_docs_findings_md_is_the_catalog_as_markdown():
    # Regenerate with: kdiag findings --format markdown > docs/findings.md
    assert (REPO / "docs" / "findings.md").read_text(encoding="utf-8") == render_catalog(catalog(), Format.MARKDOWN)


def test_kdiag_findings_lists_every_id_one_line_each():
    status, out, err = run("findings")
    assert (status, err) == (0, "")
    listed = [line.split()[0] for line in out.splitlines()[: len(ENTRIES)]]
    assert listed == list(ENTRIES)
    assert out.splitlines()[0].split()[:2] == ["BOOTSTRAP_UNRESOLVABLE", "error"]


def test_kdiag_findings_id_explains_one_in_full_whatever_its_case():
    status, out, _ = run("findings", "advertised_unresolvable")
    assert status == 0
    assert out.startswith("ADVERTISED_UNRESOLVABLE (error): An advertised broker host does not resolve from here\n")
    assert "Raised by  kdiag bootstrap (stage advertised), kdiag explain" in out
    assert "ec2-internal-hostname" in out


def test_kdiag_findings_json_is_the_kdiag_findings_1_document():
    status, out, _ = run("findings", "--json")
    document = json.loads(out)
    assert status == 0 and document["schema"] == "kdiag.findings/1"
    assert [f["id"] for f in document["findings"]] == list(ENTRIES)
    assert set(document["findings"][0]) == {"id", "severity", "title", "meaning", "raised_by", "fix", "scenarios"}


@pytest.mark.parametrize("args", [("findings", "NO_SUCH_ID"), ("findings", "--format", "yaml")])
def test_kdiag_findings_bad_input_is_one_line_and_exit_2(args):
    status, out, err = run(*args)
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and err.startswith("kdiag: error:")
