"""One deadline per run: computed once, and every blocking step is given what is left of it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Deadline:
    """An absolute point on the monotonic clock."""

    at: float = field(default_factory=time.monotonic)

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + max(0.0, seconds))

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def cap(self, seconds: float) -> float:
        """``seconds``, or less if the deadline comes first."""
        return min(seconds, self.remaining())

    def within(self, seconds: float) -> Deadline:
        """A deadline ``seconds`` from now, but never past this one."""
        return Deadline(min(self.at, time.monotonic() + seconds))


def elapsed_ms(start: float) -> float:
    return round((time.monotonic() - start) * 1000, 1)
