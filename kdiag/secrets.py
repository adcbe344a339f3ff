"""The one secret scrubber: secret values masked wherever they appear in text kdiag writes.

A ``Scrubber`` holds the secret values a run knows (the client settings' passwords and keys,
``ClientSettings.scrubber``; the ones a pasted log gave away, ``kdiag.explain.secrets``) and is
called on text: ``scrubber(text)``. ``Environment.write``/``say`` pass everything a command prints
through the run's scrubber; the views (``kdiag.render.safe.displayable``) call it on every string of
the model *before* escaping, wrapping or quoting it, so no Markdown ``\\|`` or line break can split a
secret out of its reach. Each secret is also masked in the forms kdiag's output may give it: JSON's
escapes, the sanitizer's escapes, Markdown's escaped pipes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

REDACTED = "***"
MIN_SECRET_LENGTH = 4
"""Shorter values are not masked in free text: replacing every "abc" would wreck the text while
protecting next to nothing."""


@dataclass(frozen=True)
class Scrubber:
    """``Scrubber(secrets)(text)``: ``text`` with every secret, in every form, replaced by ``***``."""

    secrets: tuple[str, ...] = ()
    min_length: int = MIN_SECRET_LENGTH
    _forms: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        forms: dict[str, None] = {}
        for secret in self.secrets:
            if len(secret) >= self.min_length:
                forms.update(dict.fromkeys(_forms(secret)))
        # One pass over the text however many secrets there are; longest first, so a secret
        # containing another is masked whole.
        ordered = tuple(sorted(forms, key=len, reverse=True))
        object.__setattr__(self, "_forms", ordered)
        object.__setattr__(self, "_pattern", re.compile("|".join(map(re.escape, ordered))) if ordered else None)

    def __call__(self, text: str) -> str:
        return text if self._pattern is None else self._pattern.sub(REDACTED, text)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def __repr__(self) -> str:
        return f"Scrubber({len(self._forms)} forms of secrets)"

    def adding(self, secrets: Iterable[str]) -> Scrubber:
        """This scrubber, masking ``secrets`` as well."""
        return Scrubber(tuple(dict.fromkeys((*self.secrets, *secrets))), self.min_length)


NO_SECRETS = Scrubber()


def _forms(secret: str) -> tuple[str, ...]:
    import json

    from kdiag.render.safe import printable

    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    return tuple(dict.fromkeys((
        secret,
        escaped,
        json.dumps(secret)[1:-1],          # ensure_ascii, as json.dumps writes by default
        printable(secret, limit=None),     # as a text or Markdown view shows it
        secret.replace("|", "\\|"),        # in a Markdown table cell
        printable(secret, limit=None).replace("|", "\\|"),
    )))
