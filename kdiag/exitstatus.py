"""kdiag's exit statuses (CONTRACT.md) and the one exception that means "the user's input is wrong"."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What a script can rely on.

    ``PROBLEMS`` is also used when kdiag itself fails unexpectedly (an internal error): the run
    could not show that the cluster is healthy, stdout then carries no report, and stderr one line
    starting ``kdiag: internal error:``. The contract has no other code for it.
    """

    OK = 0
    PROBLEMS = 1
    USAGE = 2
    INTERRUPTED = 130


class UsageError(Exception):
    """Bad input or usage; ``str(error)`` is the one-line message shown after ``kdiag: error:``."""
