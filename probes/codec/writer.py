"""The encoding side of the codec: a growing buffer with Kafka's primitive types."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


class Writer:
    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts = bytearray()

    def getvalue(self) -> bytes:
        return bytes(self._parts)

    def int8(self, value: int) -> None:
        self._parts += struct.pack(">b", value)

    def int16(self, value: int) -> None:
        self._parts += struct.pack(">h", value)

    def int32(self, value: int) -> None:
        self._parts += struct.pack(">i", value)

    def int64(self, value: int) -> None:
        self._parts += struct.pack(">q", value)

    def boolean(self, value: bool) -> None:
        self._parts.append(1 if value else 0)

    def uuid(self, value: uuid.UUID | None) -> None:
        self._parts += (value or uuid.UUID(int=0)).bytes

    def raw(self, data: bytes) -> None:
        self._parts += data

    def uvarint(self, value: int) -> None:
        while value > 0x7F:
            self._parts.append((value & 0x7F) | 0x80)
            value >>= 7
        self._parts.append(value)

    def string(self, value: str | None, flexible: bool = False) -> None:
        """A (nullable) string, compact in flexible versions."""
        data = None if value is None else value.encode("utf-8")
        if flexible:
            self.uvarint(0 if data is None else len(data) + 1)
        else:
            self.int16(-1 if data is None else len(data))
        if data:
            self._parts += data

    def nullable_bytes(self, value: bytes | None, flexible: bool) -> None:
        if flexible:
            self.uvarint(0 if value is None else len(value) + 1)
        else:
            self.int32(-1 if value is None else len(value))
        if value:
            self._parts += value

    def array(self, items: Sequence[T] | None, write_item: Callable[[T], None], flexible: bool) -> None:
        if flexible:
            self.uvarint(0 if items is None else len(items) + 1)
        else:
            self.int32(-1 if items is None else len(items))
        for item in items or ():
            write_item(item)

    def empty_tags_if(self, flexible: bool) -> None:
        if flexible:
            self.uvarint(0)
