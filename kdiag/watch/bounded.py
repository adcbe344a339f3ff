"""One probe at a time, each bounded by its own deadline, so a hang cannot stall the loop.

``run_bootstrap`` already keeps to its run's deadline, but a stage blocked in a client library or a
resolver can outlive it. The probe therefore runs in its own thread, and the caller waits for it at
most ``timeout + grace``. A thread still running then is an *overrun*: Python cannot kill it, so it
is left to finish on its own and no new probe starts until it has (the next ticks report ``busy``).
A stuck thread thus costs one thread, never a pile of them, and ``/livez`` fails when no probe has
finished for ``2 × interval + timeout``, so the kubelet restarts the container.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """``status``: ``done`` (``value`` set), ``error`` (``error`` set: the probe raised), ``overrun``
    (still running at the deadline), ``busy`` (an earlier overrun probe is still running)."""

    status: str
    seconds: float
    value: T | None = None
    error: BaseException | None = None


class BoundedRunner(Generic[T]):
    """Runs ``work`` in a thread of its own, one at a time, waiting at most ``timeout + grace``."""

    def __init__(self, name: str, *, grace: float) -> None:
        self.name = name
        self.grace = grace
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self, work: Callable[[], T], *, timeout: float, stop: threading.Event | None = None) -> Outcome[T]:
        if self.busy:
            return Outcome("busy", 0.0)
        slot: dict[str, object] = {}

        def target() -> None:
            try:
                slot["value"] = work()
            except BaseException as exc:  # noqa: BLE001 - carried to the caller, who reports it
                slot["error"] = exc

        started = time.monotonic()
        thread = threading.Thread(target=target, name=self.name, daemon=True)
        self._thread = thread
        thread.start()
        limit = started + timeout + self.grace
        while thread.is_alive() and time.monotonic() < limit:
            thread.join(min(0.1, max(0.0, limit - time.monotonic())))
            if stop is not None and stop.is_set():
                break
        seconds = time.monotonic() - started
        if thread.is_alive():
            return Outcome("overrun", seconds)
        if "error" in slot:
            return Outcome("error", seconds, error=slot["error"])  # type: ignore[arg-type]
        return Outcome("done", seconds, value=slot.get("value"))  # type: ignore[arg-type]
