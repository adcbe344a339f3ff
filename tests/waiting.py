"""Tests wait on conditions, never on fixed sleeps: ``wait_until(predicate, timeout, what)``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float, what: str | Callable[[], str], *,
               step: float = 0.05) -> T:
    """``predicate()``'s first truthy value, asked every ``step`` seconds; AssertionError naming ``what``
    (or what ``what()`` says then: a log's tail) when ``timeout`` seconds pass without one. The predicate
    may assert, to fail at once (a process that exited while it was awaited)."""
    deadline = time.monotonic() + timeout
    while True:
        if result := predicate():
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what if isinstance(what, str) else what()}: not within {timeout:g} s")
        time.sleep(step)
