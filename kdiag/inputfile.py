"""Opening a file the user named, safely: every command that reads one goes through here.

A stray argument must not hang kdiag or exhaust its memory: ``/dev/zero`` never ends, a FIFO blocks
until someone writes, a directory is not a file, and a 2 GB "client.properties" is not one either.
So an input is a **regular file** (or ``-``, standard input, where a command reads a stream), and
what is read of it is capped:

* ``read_input(path, what=..., limit=...)``: the whole file as bytes, for inputs kdiag parses in one
  piece (a ``--command-config`` file, a report for ``kdiag diff``); larger than ``limit``: refused.
* ``open_input(path, what=..., limit=...)``: a binary stream for inputs kdiag reads in bounded
  chunks (a pasted log, a capture); reading past ``limit`` raises :class:`InputTooLarge`.

Every refusal is a :class:`~kdiag.exitstatus.UsageError`: one line naming the file, exit 2.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING, BinaryIO

from kdiag.exitstatus import UsageError

if TYPE_CHECKING:
    from kdiag.report import Report

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

MAX_COMMAND_CONFIG = 1 * MIB
"""A client.properties is a few hundred bytes; with inline PEM certificates, a few tens of KB."""
MAX_REPORT = 64 * MIB
"""A kdiag.report/1 of the largest cluster kdiag reports in full (it caps the brokers it lists) is a few MB."""
MAX_LOG = 4 * GIB
"""A pasted or attached client log: read as a stream in bounded memory, but not forever."""

STDIN = "-"


class InputTooLarge(UsageError):
    """An input grew past what kdiag reads of it."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "Is a directory"
    if stat.S_ISFIFO(mode):
        return "it is a FIFO (a named pipe); pipe it to standard input with '-' instead"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a file"
    if stat.S_ISSOCK(mode):
        return "it is a socket"
    return "it is not a regular file"


def _size_text(size: int) -> str:
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if size >= unit:
            return f"{size / unit:g} {name}"
    return f"{size} bytes"


def _open_regular(path: str, what: str, limit: int | None) -> BinaryIO:
    """The open file at ``path``, checked on the open descriptor (no race with a swapped path).
    ``what`` names the input in messages (``--command-config``); empty: the path alone."""
    what = f"{what} " if what else ""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below anyway.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UsageError(f"cannot read {what}{path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"cannot read {what}{path}: {_kind(info.st_mode)}")
        if limit is not None and info.st_size > limit:
            raise UsageError(f"cannot read {what}{path}: it is {_size_text(info.st_size)}, larger than the "
                             f"{_size_text(limit)} kdiag reads")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | os.PathLike[str], *, what: str, limit: int) -> bytes:
    """The whole regular file at ``path``, at most ``limit`` bytes (a file that grew past it is refused)."""
    path = os.fspath(path)
    with _open_regular(path, what, limit) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputTooLarge(f"cannot read {what} {path}: larger than the {_size_text(limit)} kdiag reads")
    return data


class _Capped:
    """A binary stream that raises :class:`InputTooLarge` once more than ``limit`` bytes were read."""

    def __init__(self, stream: BinaryIO, *, limit: int, name: str) -> None:
        self._stream = stream
        self._left = limit
        self._limit = limit
        self._name = name

    def read(self, size: int = -1) -> bytes:
        want = self._left + 1 if size is None or size < 0 else min(size, self._left + 1)
        data = self._stream.read(want)
        self._left -= len(data)
        if self._left < 0:
            raise InputTooLarge(f"{self._name}: more than the {_size_text(self._limit)} kdiag reads; "
                                "give it the part around the failure")
        return data

    def read1(self, size: int = -1) -> bytes:
        return self.read(size if size is not None and size >= 0 else 1 << 16)

    def peek(self, size: int = 0) -> bytes:
        peek = getattr(self._stream, "peek", None)
        return peek(size) if peek is not None else b""

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._stream.tell()

    def close(self) -> None:
        self._stream.close()

    @property
    def closed(self) -> bool:
        return self._stream.closed

    def __enter__(self) -> _Capped:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_input(path: str | os.PathLike[str], *, what: str, limit: int | None,
               stdin: BinaryIO | None = None) -> BinaryIO:
    """A binary stream over the regular file at ``path`` (``-``: ``stdin``, or this process's standard
    input) that refuses to read past ``limit`` bytes (None: a regular file of any size, read in bounded
    chunks by its reader, as a capture is). The caller closes it (closing stdin's wrapper closes
    nothing of the process's)."""
    path = os.fspath(path)
    if path == STDIN:
        source = stdin if stdin is not None else sys.stdin.buffer
        return _Capped(_Unclosed(source), limit=limit or MAX_LOG, name="standard input")  # type: ignore[return-value]
    handle = _open_regular(path, what, None)
    if limit is None:
        return handle
    return _Capped(handle, limit=limit, name=f"{what} {path}")  # type: ignore[return-value]


class _Unclosed:
    """Standard input, left open when the capped reader over it is closed."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.closed = False

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def close(self) -> None:
        self.closed = True


def looks_like_path(text: str) -> bool:
    """Whether a lone command-line argument was meant as a file name rather than pasted text.

    What users paste is an error line: words and spaces, often with ``host/ip:port`` inside. A path
    has no whitespace and starts like one (``/``, ``./``, ``../``, ``~``) or ends in a log's
    extension. ``localhost/127.0.0.1:9092`` is not a path; ``/var/log/app.log`` and ``app.log`` are.
    """
    if not text or any(c.isspace() for c in text):
        return False
    if text.startswith(("/", "./", "../", "~")):
        return True
    return text.lower().endswith((".log", ".txt", ".out", ".err", ".gz", ".json"))


def load_report(path: str | os.PathLike[str]) -> Report:
    """A report file, read and checked: a regular file of at most ``MAX_REPORT`` bytes (else a
    UsageError), bounded JSON (``jsonform.loads``) checked field by field against the model; raises
    ReportFormatError with one line naming the file and the field on anything wrong. ``kdiag diff``
    loads here; the report model itself does no I/O."""
    from kdiag.jsonform import ReportFormatError, loads
    from kdiag.report import report_from_dict

    raw = read_input(path, what="report", limit=MAX_REPORT)
    try:
        return report_from_dict(loads(raw))
    except ReportFormatError as exc:
        raise ReportFormatError(f"{os.fspath(path)}: {exc}") from None
