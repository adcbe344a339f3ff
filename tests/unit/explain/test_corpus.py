"""``kdiag explain`` on the corpus of real user output (tests/corpus/explain): the accuracy never goes down.

The floors are the figures measured when they were last raised (``python -m bench.explain_corpus``,
BENCHMARKS.md); raise them as the corpus and explain grow, never lower them to let a change in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.explain_corpus import (CORPUS, Case, MalformedCase, load_case, load_corpus, run_corpus, score, tallies,
                                  total)

RIGHT_FLOOR = 0.978  # the share of cases right, as last measured (765 of 782: holdout7 joined, with its (A) classes)
WRONG_CEILING = 0.002  # the share with an error finding the thread contradicts (1: a librdkafka SCRAM bug's "invalid credentials")
FAMILY_FLOOR = 0.933  # every family's share right (lowest: other 93.3 %, 42 of 45, once holdout7 joined)
MIN_CASES = 782


@pytest.fixture(scope="module")
def results():
    return run_corpus(load_corpus())


def test_the_corpus_is_well_formed_and_large_enough():
    cases = load_corpus()
    assert len(cases) >= MIN_CASES
    assert all(case.family == case.path.parent.name for case in cases)


def test_explain_never_crashes_on_a_real_case(results):
    crashed = [r.case.path.name for r in results if r.verdict == "crashed"]
    assert crashed == []


def test_accuracy_on_the_corpus_does_not_go_down(results):
    every = total(results)
    assert every.right_share >= RIGHT_FLOOR
    assert every.counts["wrong"] / every.total <= WRONG_CEILING


def test_no_family_falls_below_its_floor(results):
    low = {family: round(t.right_share, 3) for family, t in tallies(results, "family").items()
           if t.right_share < FAMILY_FLOOR}
    assert low == {}


# --- the scoring itself (README.md's rules) -----------------------------------------------------------


def _case(expected=(), also_ok=()) -> Case:
    return Case(Path("x/y.toml"), "x", "https://example.invalid", "a cause", tuple(expected), tuple(also_ok),
                "a line", "client")


def test_right_needs_every_expected_id_and_no_other_error():
    assert score(_case(["TLS_EXPECTED"]), [("TLS_EXPECTED", "warning"), ("NO_LEADER", "info")])[0] == "right"
    assert score(_case(["TLS_EXPECTED"]), [("TLS_EXPECTED", "error"), ("SASL_REQUIRED", "warning")])[0] == "right"


def test_an_error_outside_expected_and_also_ok_is_wrong():
    assert score(_case(["TLS_EXPECTED"]), [("TLS_EXPECTED", "error"), ("SASL_REQUIRED", "error")])[0] == "wrong"
    assert score(_case(["TLS_EXPECTED"], ["SASL_REQUIRED"]), [("SASL_REQUIRED", "error")])[0] == "missed"
    assert score(_case([]), [("BOOTSTRAP_REFUSED", "error")])[0] == "wrong"


def test_no_catalog_id_fits_is_right_without_an_error_finding():
    assert score(_case([]), [])[0] == "right"
    assert score(_case([]), [("ROUNDTRIP_FAILED", "warning")])[0] == "right"


def test_an_absent_expected_id_is_missed():
    assert score(_case(["ADVERTISED_LOOPBACK"]), [])[0] == "missed"
    assert score(_case(["ADVERTISED_LOOPBACK"]), [("BOOTSTRAP_REFUSED", "warning")])[0] == "missed"


def test_a_malformed_case_is_refused_with_its_path(tmp_path):
    family = tmp_path / "java"
    family.mkdir()
    case = family / "bad.toml"
    case.write_text('url = "u"\nfamily = "kafkajs"\n')
    with pytest.raises(MalformedCase, match="bad.toml"):
        load_case(case)


def test_the_corpus_directory_is_the_readmes():
    assert (CORPUS / "README.md").is_file()


def test_a_right_answer_says_how_firmly_it_named_the_cause():
    from bench.explain_corpus import Scored, firmness, strength

    assert [strength(t) for t in ("Likely: x", "Or: x", "Maybe: x", "The broker")] == ["likely", "or", "maybe",
                                                                                       "certain"]
    found = (("TLS_EXPECTED", "warning"), ("SASL_REQUIRED", "warning"), ("TLS_EXPECTED", "warning"))
    among = Scored(_case(["TLS_EXPECTED"]), "right", found, "", ("maybe", "maybe", "or"))
    firm = Scored(_case(["TLS_EXPECTED"]), "right", found[:1], "", ("certain",))
    assert among.expected_strength() == "or" and firm.expected_strength() == "certain"
    assert Scored(_case(), "right", (), "", ()).expected_strength() == ""
    summary = firmness([among, firm])
    assert (summary["right_certain"], summary["right_or"], summary["readings_max"]) == (1, 1, 3)
