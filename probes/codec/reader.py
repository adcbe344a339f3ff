"""One bounded cursor over a Kafka frame: every decode goes through it.

Every read checks the bytes that remain first and raises :class:`MalformedFrame` on underrun, so a
truncated, hostile or simply foreign byte string can never make a decoder read past the frame or
allocate an array whose declared length the frame could not possibly hold.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_INT8 = struct.Struct(">b")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_UINT32 = struct.Struct(">I")


class MalformedFrame(ValueError):
    """The bytes do not decode as the Kafka message they were taken for."""

    def __init__(self, message: str, *, offset: int | None = None) -> None:
        super().__init__(message if offset is None else f"{message} (at byte {offset})")
        self.offset = offset


class Reader:
    """A cursor over ``data[start:end]``; reads advance it and never cross ``end``."""

    __slots__ = ("_data", "_pos", "_end")

    def __init__(self, data: bytes | bytearray | memoryview, start: int = 0, end: int | None = None) -> None:
        self._data = bytes(data) if not isinstance(data, bytes) else data
        self._pos = start
        self._end = len(self._data) if end is None else end

    @property
    def position(self) -> int:
        return self._pos

    @property
    def remaining(self) -> int:
        return self._end - self._pos

    def _take(self, size: int, what: str) -> int:
        if size < 0 or self._pos + size > self._end:
            raise MalformedFrame(f"{what}: needs {size} bytes, {self.remaining} left", offset=self._pos)
        start = self._pos
        self._pos += size
        return start

    def int8(self) -> int:
        return _INT8.unpack_from(self._data, self._take(1, "int8"))[0]

    def int16(self) -> int:
        return _INT16.unpack_from(self._data, self._take(2, "int16"))[0]

    def peek_int16(self) -> int:
        """The int16 at the cursor, without moving it (an underrun raises as ``int16`` does)."""
        start = self._pos = self._take(2, "int16")
        return _INT16.unpack_from(self._data, start)[0]

    def int32(self) -> int:
        return _INT32.unpack_from(self._data, self._take(4, "int32"))[0]

    def uint32(self) -> int:
        return _UINT32.unpack_from(self._data, self._take(4, "uint32"))[0]

    def int64(self) -> int:
        return _INT64.unpack_from(self._data, self._take(8, "int64"))[0]

    def boolean(self) -> bool:
        return self._data[self._take(1, "boolean")] != 0

    def uuid(self) -> uuid.UUID:
        start = self._take(16, "uuid")
        return uuid.UUID(bytes=self._data[start : start + 16])

    def raw(self, size: int, what: str = "bytes") -> bytes:
        start = self._take(size, what)
        return self._data[start : start + size]

    def uvarint(self) -> int:
        """An unsigned LEB128 varint of at most 5 bytes (Kafka's uint32 varint)."""
        value = shift = 0
        for _ in range(5):
            byte = self._data[self._take(1, "varint")]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
        raise MalformedFrame("varint longer than 5 bytes", offset=self._pos)

    # --- strings and bytes -------------------------------------------------------------------

    def _text(self, size: int, what: str) -> str:
        try:
            return self.raw(size, what).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedFrame(f"{what} is not UTF-8", offset=self._pos - size) from exc

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise MalformedFrame("null where a string is required", offset=self._pos - 2)
        return value

    def nullable_string(self) -> str | None:
        size = self.int16()
        return None if size < 0 else self._text(size, "string")

    def compact_string(self) -> str:
        value = self.compact_nullable_string()
        if value is None:
            raise MalformedFrame("null where a compact string is required", offset=self._pos - 1)
        return value

    def compact_nullable_string(self) -> str | None:
        size = self.uvarint() - 1
        return None if size < 0 else self._text(size, "compact string")

    def any_string(self, flexible: bool, *, nullable: bool = False) -> str | None:
        if flexible:
            return self.compact_nullable_string() if nullable else self.compact_string()
        return self.nullable_string() if nullable else self.string()

    def nullable_bytes(self, flexible: bool) -> bytes | None:
        size = self.uvarint() - 1 if flexible else self.int32()
        return None if size < 0 else self.raw(size, "bytes")

    # --- arrays and tags -----------------------------------------------------------------------

    def array_length(self, flexible: bool) -> int:
        """An array's element count, or -1 for null; never more than the bytes that remain."""
        length = self.uvarint() - 1 if flexible else self.int32()
        if length > self.remaining:
            raise MalformedFrame(f"array claims {length} elements, {self.remaining} bytes left", offset=self._pos)
        if length < -1:  # -1 is null; any other negative length is no array at all
            raise MalformedFrame(f"array claims a negative length {length}", offset=self._pos)
        return length

    def array(self, item: Callable[[], T], flexible: bool) -> list[T]:
        length = self.array_length(flexible)
        return [item() for _ in range(length)] if length > 0 else []

    def nullable_array(self, item: Callable[[], T], flexible: bool) -> list[T] | None:
        length = self.array_length(flexible)
        if length < 0:
            return None
        return [item() for _ in range(length)]

    def int32_array(self, flexible: bool) -> list[int]:
        return self.array(self.int32, flexible)

    def tagged_fields(self) -> dict[int, bytes]:
        """Reads a tagged-field section; unknown tags are kept as raw bytes, never interpreted."""
        fields: dict[int, bytes] = {}
        for _ in range(self.uvarint()):
            tag = self.uvarint()
            fields[tag] = self.raw(self.uvarint(), "tagged field")
        return fields

    def skip_tags_if(self, flexible: bool) -> None:
        if flexible:
            self.tagged_fields()

    def expect_end(self, what: str) -> None:
        """Trailing bytes are tolerated (newer minor fields) but underrun was already an error."""
        if self._pos > self._end:  # pragma: no cover - _take makes this impossible
            raise MalformedFrame(f"{what} overran its frame", offset=self._pos)
