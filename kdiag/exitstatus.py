"""kdiag's exit statuses (CONTRACT.md) and the one exception that means "the user's input is wrong"."""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kdiag.report import Report


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


def has_problems(report: Report) -> bool:
    """A report has problems when a finding is an error or a warning, or a stage failed.

    A failed stage that no diagnosis rule explained still counts: exit 0 promises the cluster is
    usable from here, and a failed stage says it is not.
    """
    return bool(report.problems) or any(stage.failed for stage in report.stages)


def exit_status_for(report: Report) -> ExitStatus:
    return ExitStatus.PROBLEMS if has_problems(report) else ExitStatus.OK
