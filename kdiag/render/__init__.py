"""Pure renderers: a Report in, text out, chosen by ``Format``.

Importing this package is cheap (``kdiag --help`` imports it for the ``--format`` choices); each
renderer and rich are imported when a report is rendered.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kdiag.report import Report


class Format(str, Enum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"

    def __str__(self) -> str:
        return self.value


def render(report: Report, fmt: Format, *, width: int = 100, color: bool = False) -> str:
    """The report as ``fmt``, ending in a newline, with secret client settings masked. Only TEXT
    uses ``width`` and ``color``; JSON and Markdown never carry terminal escapes."""
    from dataclasses import replace

    from kdiag.clientconfig import redact

    fmt = Format(fmt)
    # Whoever built the report should have masked the secrets in its client settings; a renderer
    # is the last place a password could still leak, so mask them again.
    report = replace(report, client=redact(report.client))
    if fmt is Format.JSON:
        from kdiag.report import report_to_json

        return report_to_json(report) + "\n"
    if fmt is Format.MARKDOWN:
        from kdiag.render.markdown import render_markdown

        return render_markdown(report)
    from kdiag.render.text import render_text

    return render_text(report, width=width, color=color)


__all__ = ["Format", "render"]
