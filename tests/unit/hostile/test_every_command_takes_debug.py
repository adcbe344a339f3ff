"""The hint "run with --debug for the traceback" is printed for any command's internal error, so every
(sub)command must accept --debug (issue 11, item 7): walk the assembled typer app and check each one."""

from __future__ import annotations

import typer.main

from kdiag.cli import app


def leaf_commands(command, path=("kdiag",)):
    subcommands = getattr(command, "commands", None)
    if not subcommands:
        yield " ".join(path), command
        return
    for name, sub in subcommands.items():
        yield from leaf_commands(sub, (*path, name))


def test_every_command_and_subcommand_accepts_debug():
    commands = list(leaf_commands(typer.main.get_command(app)))
    assert len(commands) >= 5
    missing = [path for path, command in commands
               if not any("--debug" in getattr(param, "opts", ()) for param in command.params)]
    assert missing == [], f"these commands reject --debug, yet the internal-error hint tells users to add it: {missing}"
