"""The JSON form of kdiag's frozen dataclasses, both ways, driven by their type hints.

``to_json(obj)`` gives plain dicts/lists (tuples become lists, None stays null);
``from_json(cls, data)`` rebuilds the dataclass, ignoring keys it does not know (so a newer
report still loads) and using field defaults for keys that are missing.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")


class ReportFormatError(ValueError):
    """The JSON does not have the shape of a kdiag report."""


def to_json(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, (list, tuple)):
        return [to_json(item) for item in obj]
    if isinstance(obj, dict):
        return {str(key): to_json(value) for key, value in obj.items()}
    return obj


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json(tp: Any, data: Any, *, where: str = "report") -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if data is None:
            return None
        return from_json(args[0], data, where=where)
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise ReportFormatError(f"{where}: expected an object, got {type(data).__name__}")
        hints = _hints(tp)
        values = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                values[f.name] = from_json(hints[f.name], data[f.name], where=f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ReportFormatError(f"{where}: missing field {f.name!r}")
        return tp(**values)
    if origin is tuple:
        if not isinstance(data, list):
            raise ReportFormatError(f"{where}: expected a list")
        item = typing.get_args(tp)[0]
        return tuple(from_json(item, value, where=f"{where}[]") for value in data)
    if origin is dict or tp is dict or origin is typing.Mapping:
        if not isinstance(data, dict):
            raise ReportFormatError(f"{where}: expected an object")
        return data
    if tp is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if tp in (int, float, str, bool) and not isinstance(data, tp):
        raise ReportFormatError(f"{where}: expected {tp.__name__}, got {type(data).__name__}")
    return data
