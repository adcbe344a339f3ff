"""The terminal's drawing surface: a rich console of fixed width drawing into a string, and the
symbols and styles every text view uses for statuses and severities."""

from __future__ import annotations

import io

from rich.console import Console

STAGE_SYMBOL = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "–"}
SEVERITY_SYMBOL = {"error": "✗", "warning": "!", "info": "i"}
TONE_STYLE = {"good": "green", "doubt": "yellow", "bad": "red", "off": "dim"}
SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}
INDENT = 2


def text_console(*, width: int = 100, color: bool = False) -> Console:
    """A rich console of fixed width that draws into a string (read it back with :func:`console_text`)."""
    return Console(
        file=io.StringIO(), width=width, color_system="truecolor" if color else None,
        force_terminal=color, record=False, highlight=False, emoji=False, markup=False,
    )


def console_text(console: Console) -> str:
    """What a :func:`text_console` drew: trailing spaces cut, one newline at the end."""
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n") + "\n"
