"""Pure renderers: a Report in, text out, chosen by ``Format``.

Importing this package is cheap (``kdiag --help`` imports it for the ``--format`` choices); each
renderer and rich are imported when a report is rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kdiag.render.formats import Format, draw

if TYPE_CHECKING:
    from kdiag.report import Report


def render(report: Report, fmt: Format, *, width: int = 100, color: bool = False,
           scrub: Callable[[str], str] | None = None) -> str:
    """The report as ``fmt``, ending in a newline, with secret client settings masked. Only TEXT
    uses ``width`` and ``color``; JSON and Markdown never carry terminal escapes. TEXT and MARKDOWN
    show every string scrubbed by ``scrub`` (the run's ``Environment.scrub``) and made printable
    (``kdiag.render.safe``); JSON is exact (``Environment.write`` scrubs it as it is written)."""
    from dataclasses import replace

    from kdiag.secrets import redact

    # Whoever built the report should have masked the secrets in its client settings; a renderer
    # is the last place a password could still leak, so mask them again.
    report = replace(report, client=redact(report.client))
    return draw(report, fmt, as_json=_json, as_text=_text, as_markdown=_markdown, width=width, color=color,
                scrub=scrub)


def _json(report: Report) -> str:
    from kdiag.report import report_to_json

    return report_to_json(report) + "\n"


def _text(report: Report, width: int, color: bool) -> str:
    from kdiag.render.text import render_text

    return render_text(report, width=width, color=color)


def _markdown(report: Report) -> str:
    from kdiag.render.markdown import render_markdown

    return render_markdown(report)


__all__ = ["Format", "render"]
