"""The rows of a sweep of one client library's own error strings (tests/unit/explain/test_sweep_<family>.py): a paste
synthesized from a format string of the library's source (invented hosts only; each row cites the source and its
commit), and what explain must answer for every paste of that shape. Two forms, one meaning:

- a ``Row`` (``row(name, paste, reading, *ids)``) and ``mismatch``: one reading for the row's ids: ``certain``
  (exactly these ids, as errors), ``likely`` (the first id the "Likely:" reading, the others among the readings,
  no error), ``reading`` (each id among the hedged readings, no error) or ``none`` (no error, no warning);
- ``reads(text, expectation)``: a space-separated list of ``ID`` (certain: an error-severity finding),
  ``likely:ID`` (the ``Likely: `` reading), ``or:ID`` (an alternative beside it: ``Or: `` or ``Maybe: ``),
  ``any:ID`` (present at any strength or severity: a warning of its own, a role given as two readings) and
  ``no:ID`` (absent: a reading the words rule out), for rows whose answer mixes strengths. Nothing but the certain
  ids may be an error; an empty expectation is a near miss: no error-severity finding at all.
"""


from __future__ import annotations

from dataclasses import dataclass

from kdiag.explain.engine import explain_text

CERTAIN, LIKELY, READING, NONE = "certain", "likely", "reading", "none"


@dataclass(frozen=True)
class Row:
    """``certain``: exactly these ids, as errors. ``likely``: the first id the "Likely:" reading, the others among the
    readings, no error. ``reading``: each id among the hedged readings (Likely/Or/Maybe), no error. ``none``: the words
    show no cause a finding names: no error, no warning."""

    name: str
    paste: str
    reading: str
    ids: tuple[str, ...] = ()


def row(name: str, paste: str, reading: str, *ids: str) -> Row:
    return Row(name, paste, reading, ids)


def mismatch(r: Row) -> str | None:
    """What is wrong with explain's answer to the row's paste; None when it is right."""
    findings = explain_text(r.paste).findings
    errors = sorted(f.id for f in findings if f.severity == "error")
    warnings = {f.id: f.title for f in findings if f.severity == "warning"}
    if r.reading == CERTAIN:
        return None if errors == sorted(r.ids) else f"errors {errors}, want {sorted(r.ids)}"
    if errors:
        return f"errors {errors}, want none"
    if r.reading == NONE:
        return f"warnings {sorted(warnings)}, want none" if warnings else None
    missing = [i for i in r.ids if i not in warnings]
    if missing:
        return f"readings {sorted(warnings)} lack {missing}"
    if r.reading == LIKELY and not warnings[r.ids[0]].startswith("Likely"):
        return f"{r.ids[0]} is not the Likely reading: {warnings[r.ids[0]]!r}"
    return None


def ids_of(rows: list[Row]) -> list[str]:
    return [r.name for r in rows]



# --- the expectation form ---------------------------------------------------------------------

_PREFIXES = {"likely": ("Likely: ",), "or": ("Or: ", "Maybe: ")}


def reads(text: str, expectation: str) -> None:
    """Asserts explain reads ``text`` as ``expectation`` says."""
    findings = explain_text(text).findings
    shown = [(f.id, f.severity, f.title.split(":", 1)[0] if f.title.startswith(("Likely: ", "Or: ", "Maybe: ")) else "")
             for f in findings]
    certain = set()
    for token in expectation.split():
        strength, _, finding_id = token.rpartition(":")
        if not strength:
            certain.add(finding_id)
            assert any(f.id == finding_id and f.severity == "error" for f in findings), (token, shown)
        elif strength == "any":
            assert any(f.id == finding_id for f in findings), (token, shown)
        elif strength == "no":
            assert all(f.id != finding_id for f in findings), (token, shown)
        else:
            assert any(f.id == finding_id and f.severity != "error" and f.title.startswith(_PREFIXES[strength])
                       for f in findings), (token, shown)
    errors = {f.id for f in findings if f.severity == "error"}
    assert errors <= certain, (expectation, shown)
