"""Reading a pasted log in bounded blocks of lines, whatever it holds.

``read_blocks(stream)`` reads a binary or text stream ``BLOCK_SIZE`` characters at a time and yields
``Block``s of whole lines. Memory stays bounded by one block: a line longer than ``MAX_LINE``
characters is cut there and the rest of it is skipped as it streams by, never buffered. Bytes that
are not UTF-8 decode to replacement characters (incrementally, so a character split between two
reads survives); a line with NUL bytes is marked binary. A gzip-compressed file (``app.log.gz``) is
read through gzip, still one block at a time.

Blocks rather than lines because the scan is per block: ``engine`` looks for every pattern's literal
needle in a whole block at C speed and runs regexes only on the few lines a needle hit.
"""

from __future__ import annotations

import codecs
import gzip
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

MAX_LINE = 4096
"""Characters kept of one line; a client error line is far shorter, a minified JSON blob is not."""

BLOCK_SIZE = 1 << 20
"""Characters read at a time."""

LINES_PER_BLOCK = 4096
"""Lines per block when the input is already lines (TEXT on the command line)."""

MAX_BYTES = 4 << 30
"""Bytes read of one log, after decompression: a .gz of a few MB can inflate to terabytes."""

_GZIP_MAGIC = b"\x1f\x8b"


class LogTooLarge(OSError):
    """The log (decompressed) is larger than ``MAX_BYTES``: an I/O error to the command, one line and exit 2."""


@dataclass(frozen=True)
class Block:
    """Consecutive whole lines: ``lines[i]`` is line number ``first + i`` (1-based), without its break; once
    normalised (``normalize``), ``first + i`` is its place among the lines read and ``number(i)`` its number in
    the input."""

    first: int
    lines: list[str]
    truncated: frozenset[int] = frozenset()  # indices of lines cut at MAX_LINE
    binary: frozenset[int] = frozenset()  # indices of lines holding NUL bytes
    numbers: tuple[int, ...] = ()  # the input's line number of each line, once lines were joined or split

    def number(self, index: int) -> int:
        """The input's line number of ``lines[index]``."""
        return self.numbers[index] if self.numbers else self.first + index


@dataclass(frozen=True)
class LogLine:
    number: int
    text: str
    truncated: bool = False
    binary: bool = False


def read_blocks(stream: IO[bytes] | IO[str], *, max_line: int = MAX_LINE,
                block_size: int = BLOCK_SIZE) -> Iterator[Block]:
    """The lines of ``stream`` in blocks, each line cut to ``max_line`` characters."""
    source = _binary(stream)
    if source is not None:
        source = _ungzipped(source)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        chunks: Iterator[str] = _decoded(source, decoder, block_size)
    else:
        chunks = iter(lambda: stream.read(block_size), "")  # type: ignore[arg-type, return-value]
    return _split(chunks, max_line)


def blocks_of(lines: Iterable[str], *, max_line: int = MAX_LINE) -> Iterator[Block]:
    """Lines already in hand (a test, TEXT on the command line) as blocks, cut like a stream's."""
    first, batch, truncated = 1, [], set()
    for line in lines:
        if len(line) > max_line:
            truncated.add(len(batch))
            line = line[:max_line]
        batch.append(line)
        if len(batch) == LINES_PER_BLOCK:
            yield _block(first, batch, truncated)
            first, batch, truncated = first + len(batch), [], set()
    if batch:
        yield _block(first, batch, truncated)


def text_blocks(text: str, *, max_line: int = MAX_LINE) -> Iterator[Block]:
    return read_blocks(io.StringIO(text), max_line=max_line)


def read_lines(stream: IO[bytes] | IO[str], *, max_line: int = MAX_LINE) -> Iterator[LogLine]:
    """One line at a time, for callers that want lines rather than blocks."""
    for block in read_blocks(stream, max_line=max_line):
        for index, text in enumerate(block.lines):
            yield LogLine(block.first + index, text, index in block.truncated, index in block.binary)


def _binary(stream: IO[bytes] | IO[str]) -> IO[bytes] | None:
    """The byte stream under ``stream``, or None for a text stream that has none (StringIO)."""
    if isinstance(stream, io.TextIOBase):
        return getattr(stream, "buffer", None)  # sys.stdin: its bytes, not its strict decoding
    return stream  # type: ignore[return-value]


def _ungzipped(stream: IO[bytes]) -> IO[bytes]:
    peek = getattr(stream, "peek", None)
    head = peek(2)[:2] if peek is not None else b""
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream)  # type: ignore[return-value]
    return stream


def _decoded(stream: IO[bytes], decoder: codecs.IncrementalDecoder, block_size: int,
             max_bytes: int = MAX_BYTES) -> Iterator[str]:
    total = 0
    while True:
        raw = stream.read(block_size)
        total += len(raw)
        if total > max_bytes:
            raise LogTooLarge(f"the log is larger than {max_bytes >> 20} MiB (decompressed); give kdiag the part "
                              "around the failure")
        text = decoder.decode(raw, final=not raw)
        if text:
            yield text
        if not raw:
            return


def _split(chunks: Iterable[str], max_line: int) -> Iterator[Block]:
    """Whole lines out of chunks: the unfinished last line of a chunk is carried to the next one, and
    a line grown past ``max_line`` keeps its first ``max_line`` characters and drops the rest."""
    number = 1
    carry, carry_cut = "", False
    for chunk in chunks:
        pieces = chunk.split("\n")
        if len(pieces) == 1:  # no line ends in this chunk
            carry, carry_cut = _grow(carry, carry_cut, chunk, max_line)
            continue
        head, carry_cut_now = _grow(carry, carry_cut, pieces[0], max_line)
        lines, truncated = [head], ({0} if carry_cut_now else set())
        for piece in pieces[1:-1]:
            if len(piece) > max_line:
                truncated.add(len(lines))
                piece = piece[:max_line]
            lines.append(piece)
        carry, carry_cut = _grow("", False, pieces[-1], max_line)
        # the first line may have come mostly from earlier chunks: check it as well as this chunk
        yield _block(number, lines, truncated, cr="\r" in chunk or "\r" in head, nul="\x00" in chunk or "\x00" in head)
        number += len(lines)
    if carry or carry_cut:
        yield _block(number, [carry], {0} if carry_cut else set())


def _grow(carry: str, cut: bool, more: str, max_line: int) -> tuple[str, bool]:
    if cut:
        return carry, True
    carry += more
    if len(carry) > max_line:
        return carry[:max_line], True
    return carry, False


def _block(first: int, lines: list[str], truncated: set[int], *, cr: bool = True, nul: bool = True) -> Block:
    """``cr`` and ``nul``: whether the text may hold them at all (a chunk-wide check is cheaper)."""
    if cr:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    binary = frozenset(i for i, line in enumerate(lines) if "\x00" in line) if nul else frozenset()
    return Block(first, lines, frozenset(truncated), binary)
