"""``kdiag findings [ID]``: the catalog of finding ids, like ``brew doctor --list-checks``."""

from __future__ import annotations

from typing import Annotated

import typer

from kdiag.environment import DebugOption, JsonOption, choose_format, environment, format_option
from kdiag.exitstatus import ExitStatus, UsageError

HELP = """\
The catalog of finding ids kdiag reports: severity, what each means, which stage or command raises
it, the usual fix, and the kdiag lab scenarios that reproduce it. With an ID, that one in full.
"""

EPILOG = """\
\b
Examples:
  kdiag findings
  kdiag findings ADVERTISED_UNRESOLVABLE
  kdiag findings --json
"""

FormatOption = format_option(
    "text (default), json (the kdiag.findings/1 document) or markdown (docs/findings.md is this).")


def findings_command(
    ctx: typer.Context,
    finding_id: Annotated[str | None, typer.Argument(metavar="[ID]", show_default=False,
                                                     help="One finding id, e.g. ADVERTISED_UNRESOLVABLE.")] = None,
    fmt: FormatOption = None,
    json_flag: JsonOption = False,
    debug: DebugOption = False,
) -> ExitStatus:
    from kdiag.catalog import catalog, entry
    from kdiag.render.findings import render_catalog

    env = environment(ctx)
    fmt = choose_format(fmt, json_flag)
    if finding_id is None:
        entries = catalog()
    else:
        found = entry(finding_id)
        if found is None:
            raise UsageError(f"no finding id {finding_id!r} (kdiag findings lists them)")
        entries = (found,)
    env.write(render_catalog(entries, fmt, width=env.width))
    return ExitStatus.OK


def register(app: typer.Typer) -> None:
    app.command("findings", help=HELP, epilog=EPILOG,
                short_help="The catalog of finding ids: what each means and how it is fixed.")(findings_command)
