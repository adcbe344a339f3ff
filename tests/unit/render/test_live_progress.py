"""The live view: one line per stage, a spinner while it runs and ✓/✗ with its summary when done."""

from __future__ import annotations

import io

from rich.console import Console

from kdiag.render.progress import LiveProgress
from kdiag.report import Stage


def _console(*, terminal: bool) -> Console:
    return Console(file=io.StringIO(), width=60, color_system=None, force_terminal=terminal)


def test_finished_stages_show_their_mark_time_and_summary() -> None:
    console = _console(terminal=False)
    with LiveProgress(console, transient=False) as progress:
        progress("dns", None)
        progress("dns", Stage("dns", "ok", 3.1, "broker resolves to 10.0.0.1"))
        progress("tcp", None)
        progress("tcp", Stage("tcp", "fail", 3000.0, "connect to 10.0.0.1:9092 timed out"))
        progress("metadata", None)
    lines = console.file.getvalue().split("\n")
    assert lines[0] == "✓ dns  3.1 ms  broker resolves to 10.0.0.1"
    assert lines[1] == "✗ tcp  3,000 ms  connect to 10.0.0.1:9092 timed out"
    assert lines[2].endswith(" metadata")  # still spinning when the view closed


def test_a_long_summary_stays_on_one_line() -> None:
    console = _console(terminal=False)
    with LiveProgress(console, transient=False) as progress:
        progress("roundtrip", Stage("roundtrip", "warn", 12.0, "word " * 40))
    (line,) = console.file.getvalue().strip("\n").split("\n")
    assert line.startswith("! roundtrip  12 ms  word word")
    assert line.endswith("…")


def test_the_view_is_cleared_when_the_run_ends() -> None:
    console = _console(terminal=True)
    with LiveProgress(console) as progress:
        progress("dns", None)
        progress("dns", Stage("dns", "ok", 1.0, "fine"))
    output = console.file.getvalue()
    assert "✓ dns" in output
    assert "\x1b[2K" in output.rsplit("✓ dns", 1)[1]  # erased after it was last drawn
