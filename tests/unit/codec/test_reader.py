"""The bounded reader: every primitive raises MalformedFrame on underrun, never reads past its end,
never allocates for an array the remaining bytes could not hold."""

from __future__ import annotations

import uuid

import pytest

from probes.codec import MalformedFrame, Reader


def reader(hex_bytes: str) -> Reader:
    return Reader(bytes.fromhex(hex_bytes))


# (what, the bytes one short of a whole value, how to read it)
UNDERRUNS = [
    ("int8", "", lambda r: r.int8()),
    ("int16", "00", lambda r: r.int16()),
    ("int32", "00 00 00", lambda r: r.int32()),
    ("uint32", "00 00 00", lambda r: r.uint32()),
    ("int64", "00 00 00 00 00 00 00", lambda r: r.int64()),
    ("boolean", "", lambda r: r.boolean()),
    ("uuid", "00" * 15, lambda r: r.uuid()),
    ("raw", "00 00", lambda r: r.raw(3)),
    ("uvarint", "80 80", lambda r: r.uvarint()),
    ("string length", "00", lambda r: r.string()),
    ("string bytes", "00 05 6b 64 69 61", lambda r: r.string()),
    ("nullable_string bytes", "00 02 6b", lambda r: r.nullable_string()),
    ("compact_string length", "", lambda r: r.compact_string()),
    ("compact_string bytes", "06 6b 64 69 61", lambda r: r.compact_string()),
    ("compact_nullable_string bytes", "03 6b", lambda r: r.compact_nullable_string()),
    ("nullable_bytes", "00 00 00 04 01 02 03", lambda r: r.nullable_bytes(False)),
    ("compact nullable_bytes", "05 01 02 03", lambda r: r.nullable_bytes(True)),
    ("array length", "00 00 00", lambda r: r.array(r.int32, False)),
    ("array element", "00 00 00 02 00 00 00 01 00 00", lambda r: r.array(r.int32, False)),
    ("compact array element", "03 00 00 00 01", lambda r: r.int32_array(True)),
    ("nullable_array element", "00 00 00 01 00", lambda r: r.nullable_array(r.int16, False)),
    ("tagged field count", "", lambda r: r.tagged_fields()),
    ("tagged field data", "01 00 04 ff ff", lambda r: r.tagged_fields()),
]


@pytest.mark.parametrize(("what", "data", "read"), UNDERRUNS, ids=[u[0] for u in UNDERRUNS])
def test_every_primitive_raises_malformed_frame_on_underrun(what, data, read):
    with pytest.raises(MalformedFrame):
        read(reader(data))


def test_reader_never_reads_past_its_end_even_when_the_buffer_goes_on():
    r = Reader(bytes.fromhex("00 00 00 01 00 00 00 02"), 0, 6)
    assert r.int32() == 1
    with pytest.raises(MalformedFrame, match=r"int32: needs 4 bytes, 2 left \(at byte 4\)"):
        r.int32()


def test_primitives_read_big_endian_values():
    r = reader("ff  ff fe  ff ff ff fd  ff ff ff ff  ff ff ff ff ff ff ff fc  01"
               "  6a 1c 2b 3d 4e 5f 40 71 82 93 a4 b5 c6 d7 e8 f9")
    assert (r.int8(), r.int16(), r.int32(), r.uint32(), r.int64(), r.boolean()) == (-1, -2, -3, 0xFFFFFFFF, -4, True)
    assert r.uuid() == uuid.UUID("6a1c2b3d-4e5f-4071-8293-a4b5c6d7e8f9")
    assert r.remaining == 0


def test_null_strings_arrays_and_bytes_read_as_none():
    assert reader("ff ff").nullable_string() is None
    assert reader("00").compact_nullable_string() is None
    assert reader("ff ff ff ff").nullable_bytes(False) is None
    assert reader("00").nullable_bytes(True) is None
    assert reader("ff ff ff ff").nullable_array(lambda: 0, False) is None
    assert reader("00").nullable_array(lambda: 0, True) is None


def test_null_where_a_string_is_required_raises_malformed_frame():
    with pytest.raises(MalformedFrame, match="null where a string is required"):
        reader("ff ff").string()
    with pytest.raises(MalformedFrame, match="null where a compact string is required"):
        reader("00").compact_string()


@pytest.mark.parametrize(("data", "flexible"), [("7f ff ff ff 00 00 00 01", False), ("ff ff ff ff 07 00 00", True),
                                                ("00 00 00 05 00 00 00 01", False)],
                         ids=["int32_max", "compact_uint32_max", "five_in_four_bytes"])
def test_array_claiming_more_elements_than_bytes_left_raises_before_reading_any(data, flexible):
    reads = []

    def element() -> int:
        reads.append(1)
        return 0

    with pytest.raises(MalformedFrame, match="array claims"):
        reader(data).array(element, flexible)
    assert reads == []


@pytest.mark.parametrize(("data", "value"), [("00", 0), ("7f", 127), ("80 01", 128), ("ff ff ff ff 0f", 0xFFFFFFFF)])
def test_uvarint_of_up_to_five_bytes_reads(data, value):
    assert reader(data).uvarint() == value


def test_uvarint_longer_than_five_bytes_raises():
    with pytest.raises(MalformedFrame, match="varint longer than 5 bytes"):
        reader("ff ff ff ff ff 01").uvarint()


@pytest.mark.parametrize(("data", "read"), [
    ("00 02 c3 28", lambda r: r.string()),
    ("00 01 ff", lambda r: r.nullable_string()),
    ("03 c3 28", lambda r: r.compact_string()),
    ("02 80", lambda r: r.compact_nullable_string()),
], ids=["string", "nullable_string", "compact_string", "compact_nullable_string"])
def test_non_utf8_string_raises_malformed_frame(data, read):
    with pytest.raises(MalformedFrame, match="not UTF-8"):
        read(reader(data))


def test_utf8_string_decodes():
    assert reader("00 04 c3 a9 c3 a9").string() == "éé"


def test_unknown_tagged_fields_are_kept_as_raw_bytes():
    r = reader("02 00 01 aa 05 02 bb cc 7f")
    assert r.tagged_fields() == {0: b"\xaa", 5: b"\xbb\xcc"}
    assert r.int8() == 0x7F
