"""The live view on a terminal while the stages run: a spinner per running stage, ✓/✗ when done.

Only for a terminal (the CLI decides: stderr is a TTY and the format is text). The view is drawn on
stderr and cleared when the run ends, so the report on stdout is all that stays. It draws through
its own rich console, not ``Environment.write``, so it takes the run's scrubber: every stage is
shown as ``kdiag.render.safe.displayable`` makes it (secrets scrubbed, outside text printable).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from kdiag.orchestrate import Progress
from kdiag.render.common import stage_time, tone
from kdiag.render.safe import displayable, printable
from kdiag.render.console import STAGE_SYMBOL, TONE_STYLE
from kdiag.report import Stage


class LiveProgress:
    """``with LiveProgress(stderr_console) as progress: run_bootstrap(options, progress=progress)``."""

    def __init__(self, console: Console, *, transient: bool = True, scrub: Callable[[str], str] | None = None) -> None:
        self._console = console
        self._scrub = scrub or (lambda text: text)
        self._lock = threading.Lock()
        self._order: list[str] = []
        self._done: dict[str, Stage] = {}
        self._spinners: dict[str, Spinner] = {}
        self._live = Live(
            self, console=console, transient=transient, refresh_per_second=12.5,
            redirect_stdout=False, redirect_stderr=False,
        )

    def __enter__(self) -> Progress:
        self._live.start()
        return self.update

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._live.stop()

    def update(self, name: str, stage: Stage | None) -> None:
        """The ``progress`` callback: ``stage`` is None when ``name`` starts, the Stage when it ends."""
        with self._lock:
            if name not in self._order:
                self._order.append(name)
            if stage is None:
                self._done.pop(name, None)
                self._spinners[name] = Spinner("dots", text=Text(printable(self._scrub(name))), style="cyan")
            else:
                self._done[name] = displayable(stage, self._scrub)
        self._live.refresh()

    def __rich__(self) -> RenderableType:
        with self._lock:
            lines: list[RenderableType] = []
            for name in self._order:
                stage = self._done.get(name)
                lines.append(self._spinners[name] if stage is None else _finished(stage))
        return Group(*lines)


def _finished(stage: Stage) -> Text:
    line = Text()
    line.append(STAGE_SYMBOL.get(stage.status, "?"), style=TONE_STYLE[tone(stage.status)])
    line.append(f" {stage.name}")
    time = stage_time(stage)
    if time:
        line.append(f"  {time}", style="dim")
    if stage.summary:
        line.append(f"  {stage.summary}")
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line
