"""The bounded reader: whole lines out of blocks, long lines cut, bytes decoded, gzip read through."""

from __future__ import annotations

import gzip
import io

import pytest

from kdiag.explain.reader import blocks_of, read_blocks, read_lines

RAW = b"first\r\nsecond \xc3\xa9\n" + b"x" * 50 + b"\n\x00binary\xff\nlast line"  # CRLF, UTF-8, not UTF-8


def lines(data: bytes, **kwargs) -> list[tuple[int, str, bool, bool]]:
    found = []
    for block in read_blocks(io.BytesIO(data), **kwargs):
        found += [(block.first + i, text, i in block.truncated, i in block.binary) for i, text in enumerate(block.lines)]
    return found


EXPECTED = [(1, "first", False, False), (2, "second é", False, False), (3, "x" * 16, True, False),
            (4, "\x00binary\ufffd", False, True), (5, "last line", False, False)]


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 8, 13, 64, 1 << 20])
def test_lines_are_the_same_whatever_the_block_boundaries(block_size):
    assert lines(RAW, max_line=16, block_size=block_size) == EXPECTED


def test_a_huge_line_is_cut_and_the_rest_skipped_not_kept():
    data = b"a" * (5 << 20) + b"\nnext\n"
    found = lines(data, max_line=100, block_size=4096)
    assert found == [(1, "a" * 100, True, False), (2, "next", False, False)]


def test_text_streams_are_read_too():
    assert [line.text for line in read_lines(io.StringIO("one\ntwo\n"))] == ["one", "two"]


def test_gzip_input_is_read_through():
    raw = io.BufferedReader(io.BytesIO(gzip.compress(b"g1\ng2\n")))
    assert [line.text for line in read_lines(raw)] == ["g1", "g2"]


def test_blocks_of_lines_in_hand_are_cut_like_a_stream():
    [block] = blocks_of(["short", "y" * 20], max_line=8)
    assert block.lines == ["short", "y" * 8] and block.truncated == {1}
