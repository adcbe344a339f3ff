"""What a sweep row expects of explain, in a few words: the tests/unit/explain/test_sweep_*.py rows are a library's own
error strings (from its source, at the commit each row cites) with the catalog ids every paste of that shape fits.

An expectation is a space-separated list of:

- ``ID``: certain (an error-severity finding);
- ``likely:ID``: the likely reading (``Likely: `` title), ``or:ID``: an alternative beside it (``Or: `` or ``Maybe: ``);
- ``any:ID``: present whatever its strength or severity (a warning of its own, a role given as two readings).
- ``no:ID``: absent, at any strength (a reading the words rule out).

Nothing but the certain ids may be an error; an empty expectation is a near miss: no error-severity finding at all.
"""

from __future__ import annotations

from kdiag.explain.engine import explain_text

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
