"""One module per ``kdiag`` subcommand, each owning its options, its run function and ``register(app)``.

Adding a command: write ``kdiag/commands/<name>.py`` with a typer function that takes
``ctx: typer.Context`` and the shared options of ``kdiag.environment`` (``--debug`` at least), gets the
``Environment`` with ``environment(ctx)``, raises ``UsageError`` for bad input and returns an
``ExitStatus``; give it a ``register(app)`` and add its name to ``NAMES``. Its views go in
``kdiag/render/``.
"""

from __future__ import annotations

import importlib

import typer

NAMES = ("bootstrap", "watch", "explain", "diff", "pcap", "lab", "findings", "fleet")


def register_all(app: typer.Typer) -> None:
    for name in NAMES:
        importlib.import_module(f"kdiag.commands.{name}").register(app)
