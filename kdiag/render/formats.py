"""The output formats a command prints, chosen by ``--format``; re-exported as ``kdiag.render.Format``.

Its own module so that the views in ``kdiag.render`` can name it without importing the package that
dispatches to them."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import TypeVar

T = TypeVar("T")


class Format(str, Enum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"

    def __str__(self) -> str:
        return self.value


def draw(model: T, fmt: Format, *, as_json: Callable[[T], str], as_text: Callable[[T, int, bool], str],
         as_markdown: Callable[[T], str], width: int = 100, color: bool = False,
         scrub: Callable[[str], str] | None = None) -> str:
    """The one way a model becomes ``fmt``: JSON exact, from the model as it is; TEXT (``width``
    columns, ``color``) and MARKDOWN from the model as ``kdiag.render.safe.displayable`` makes it,
    every string scrubbed by ``scrub`` and then made printable, before any escaping or wrapping."""
    fmt = Format(fmt)
    if fmt is Format.JSON:
        return as_json(model)
    from kdiag.render.safe import displayable

    shown = displayable(model, scrub)
    return as_markdown(shown) if fmt is Format.MARKDOWN else as_text(shown, width, color)
