"""Message fields declared once, and both read and written from that one declaration.

A message body is a :class:`Struct`: its dataclass and its :class:`Field` s in wire order, each
carried by a range of versions, the way the upstream JSON schemas list them (``"versions": "1+"``,
``"nullableVersions": "12+"``). For each version the struct compiles, once, a reader and a writer
from the same list, so decoder and encoder can never disagree on which fields a version carries or
in which order. Flexible versions (KIP-482) get compact strings, bytes and arrays and a tagged-field
section after every struct without a word per field; unknown tags are skipped when read, none are
written.

Every read goes through the bounded :class:`~probes.codec.reader.Reader`, so a declaration can
never read past its frame.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Protocol

from probes.codec.errors import KafkaError, kafka_error
from probes.codec.reader import Reader
from probes.codec.writer import Writer

ReadFn = Callable[[Reader], Any]
WriteFn = Callable[[Writer, Any], None]


class FieldType(Protocol):
    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        """The reader and writer of this type in ``version``."""
        ...


class _Primitive:
    """A fixed-size type: ``Reader.<name>`` reads it, ``Writer.<name>`` writes it."""

    def __init__(self, name: str) -> None:
        self._codec = (getattr(Reader, name), getattr(Writer, name))

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        return self._codec


INT8 = _Primitive("int8")
INT16 = _Primitive("int16")
INT32 = _Primitive("int32")
INT64 = _Primitive("int64")
BOOLEAN = _Primitive("boolean")
UUID = _Primitive("uuid")  # written as sixteen zero bytes for None, as Kafka spells "no id"


class String:
    """A string, compact in flexible versions; null allowed from ``nullable_since`` on (never if None)."""

    def __init__(self, *, nullable_since: int | None = None) -> None:
        self.nullable_since = nullable_since

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        nullable = self.nullable_since is not None and version >= self.nullable_since
        if flexible:
            read = Reader.compact_nullable_string if nullable else Reader.compact_string
        else:
            read = Reader.nullable_string if nullable else Reader.string

        def write(w: Writer, value: str | None) -> None:
            w.string(value, flexible)

        return read, write


STRING = String()
NULLABLE_STRING = String(nullable_since=0)


class _Bytes:
    """Nullable bytes (compact in flexible versions); null reads as ``b""``."""

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        def read(r: Reader) -> bytes:
            return r.nullable_bytes(flexible) or b""

        def write(w: Writer, value: bytes) -> None:
            w.nullable_bytes(value, flexible)

        return read, write


BYTES = _Bytes()


class _ErrorCode:
    """An int16 error code, read as the named :class:`KafkaError` (unknown codes keep their number)."""

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        def read(r: Reader) -> KafkaError:
            return kafka_error(r.int16())

        def write(w: Writer, value: KafkaError) -> None:
            w.int16(value.code)

        return read, write


ERROR_CODE = _ErrorCode()


class Array:
    """An array of ``item`` (compact in flexible versions), read as a tuple; null reads as ``()``."""

    def __init__(self, item: FieldType) -> None:
        self.item = item

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        read_item, write_item = self.item.codec(version, flexible)

        def read(r: Reader) -> tuple[Any, ...]:
            return tuple([read_item(r) for _ in range(r.array_length(flexible))])

        def write(w: Writer, items: Any) -> None:
            w.array(items, lambda item: write_item(w, item), flexible)

        return read, write


_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class Field:
    """One field in wire order, carried by versions ``since`` to ``until`` (inclusive, None: all later).

    ``kept=False`` declares a field kdiag reads past and does not keep (its dataclass has no such
    attribute); it is written as ``written``.
    """

    name: str
    type: FieldType
    since: int = 0
    until: int | None = None
    kept: bool = True
    written: Any = _MISSING

    def carried_in(self, version: int) -> bool:
        return version >= self.since and (self.until is None or version <= self.until)


class Struct:
    """A dataclass read and written as its declared fields, then (flexible versions) its tags.

    ``implied`` gives dataclass attributes that this layout never carries on the wire (the key of a
    coordinator before FindCoordinator v4). ``tagged=False`` for fields spliced into an enclosing
    struct, whose tagged-field section is the enclosing one's.
    """

    def __init__(self, cls: type, *fields: Field, implied: Mapping[str, Any] | None = None,
                 tagged: bool = True) -> None:
        self.cls = cls
        self.fields = fields
        self.implied = dict(implied or {})
        self.tagged = tagged
        self._compiled: dict[tuple[int, bool], tuple[Callable[..., Any], WriteFn]] = {}

    def read(self, r: Reader, version: int, flexible: bool, /, **extra: Any) -> Any:
        """One struct from ``r``; ``extra`` are attributes that come from outside it (the version)."""
        return self.codec(version, flexible)[0](r, **extra)

    def write(self, w: Writer, value: Any, version: int, flexible: bool) -> None:
        self.codec(version, flexible)[1](w, value)

    def codec(self, version: int, flexible: bool) -> tuple[Callable[..., Any], WriteFn]:
        compiled = self._compiled.get((version, flexible))
        if compiled is None:
            compiled = self._compiled[(version, flexible)] = self._compile(version, flexible)
        return compiled

    def _compile(self, version: int, flexible: bool) -> tuple[Callable[..., Any], WriteFn]:
        carried = [(f, *f.type.codec(version, flexible)) for f in self.fields if f.carried_in(version)]
        readers = [(f.name if f.kept else None, read) for f, read, _ in carried]
        writers = [(attrgetter(f.name) if f.kept else _constant(f.written), write) for f, _, write in carried]
        cls, implied, tags = self.cls, self.implied, flexible and self.tagged

        def read(r: Reader, **values: Any) -> Any:
            if implied:
                values.update(implied)
            for name, read_field in readers:
                value = read_field(r)
                if name is not None:
                    values[name] = value
            if tags:
                r.tagged_fields()
            return cls(**values)

        def write(w: Writer, value: Any) -> None:
            for get, write_field in writers:
                write_field(w, get(value))
            if tags:
                w.uvarint(0)

        return read, write


def _constant(value: Any) -> Callable[[Any], Any]:
    if value is _MISSING:
        raise TypeError("a field that is not kept needs the value it is written with")
    return lambda _message: value


class One:
    """A struct spliced field by field into the enclosing one, read as a one-element tuple (the single
    coordinator of FindCoordinator before v4, which later versions return as an array)."""

    def __init__(self, struct: Struct) -> None:
        self.struct = struct

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        read_struct, write_struct = self.struct.codec(version, flexible)

        def read(r: Reader) -> tuple[Any]:
            return (read_struct(r),)

        def write(w: Writer, items: tuple[Any, ...]) -> None:
            write_struct(w, items[0])

        return read, write


class ByTopic:
    """Topics, each a name and an array of ``partition`` s, read as one flat tuple of partitions that
    carry their topic's name in ``topic``, and written grouped by topic again (consecutive runs)."""

    def __init__(self, partition: Struct) -> None:
        self.partition = partition

    def codec(self, version: int, flexible: bool) -> tuple[ReadFn, WriteFn]:
        read_name, write_name = STRING.codec(version, flexible)
        read_partition, write_partition = self.partition.codec(version, flexible)

        def read(r: Reader) -> tuple[Any, ...]:
            partitions: list[Any] = []

            def topic() -> None:
                name = read_name(r)
                partitions.extend(r.array(lambda: read_partition(r, topic=name), flexible))
                r.skip_tags_if(flexible)

            r.array(topic, flexible)
            return tuple(partitions)

        def write(w: Writer, partitions: Any) -> None:
            def topic(group: tuple[str, list[Any]]) -> None:
                write_name(w, group[0])
                w.array(group[1], lambda p: write_partition(w, p), flexible)
                w.empty_tags_if(flexible)

            groups = [(name, list(run)) for name, run in itertools.groupby(partitions, key=attrgetter("topic"))]
            w.array(groups, topic, flexible)

        return read, write
