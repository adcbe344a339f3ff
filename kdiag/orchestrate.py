"""Runs the probe stages against a bootstrap list under one deadline and assembles the report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kdiag.report import Endpoint, Report, Stage

# progress(stage_name, stage) is called with stage=None when a stage starts and with the finished
# Stage when it ends; renderers use it for the live view on a terminal.
Progress = Callable[[str, Stage | None], None]


@dataclass(frozen=True)
class BootstrapOptions:
    targets: tuple[Endpoint, ...]
    timeout: float = 10.0
    connect_timeout: float = 3.0
    topic: str | None = None
    roundtrip: bool = True
    metadata_version: int | None = None
    client_settings: dict[str, str] = field(default_factory=dict)  # librdkafka names, secrets included
    group: str | None = None


def run_bootstrap(options: BootstrapOptions, *, progress: Progress | None = None) -> Report:
    raise NotImplementedError("being written")
