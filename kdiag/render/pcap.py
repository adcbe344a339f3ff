"""The view of ``kdiag pcap`` and of ``--capture``: a CaptureSummary as text, JSON or Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdiag.render import Format

if TYPE_CHECKING:
    from kdiag.capture.model import CaptureSummary


def render_capture(summary: CaptureSummary, fmt: Format) -> str:
    """The summary as text (timeline, then summary), JSON (``kdiag.pcap/1``) or Markdown."""
    if fmt is Format.JSON:
        import json

        from kdiag.capture.model import summary_to_dict

        return json.dumps(summary_to_dict(summary), indent=2) + "\n"
    from kdiag.capture.timeline import render_markdown, render_text

    return render_markdown(summary) if fmt is Format.MARKDOWN else render_text(summary)
