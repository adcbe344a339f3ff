"""The JSON form of kdiag's frozen dataclasses, both ways, driven by their type hints.

``to_json(obj)`` gives plain dicts/lists (tuples become lists, None stays null);
``from_json(cls, data)`` rebuilds the dataclass, ignoring keys it does not know (so a newer
report still loads) and using field defaults for keys that are missing; every value is checked
against its field's type, and a wrong one raises :class:`ReportFormatError` naming the field.

``loads(text)`` is ``json.loads`` for JSON that came from outside (``kdiag diff``, the fleet): no
NaN or Infinity, no number longer than any a report holds, no nesting deeper than ``MAX_DEPTH``;
each refused with one line, never a RecursionError or a ten-second bignum.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import json
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
    if origin in (dict, collections.abc.Mapping) or tp is dict or origin is typing.Mapping:
        if not isinstance(data, dict):
            raise ReportFormatError(f"{where}: expected an object")
        return data
    if tp is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if tp in (int, float, str, bool) and not isinstance(data, tp):
        raise ReportFormatError(f"{where}: expected {tp.__name__}, got {type(data).__name__}")
    return data


MAX_DEPTH = 64
"""Nesting a kdiag document never reaches (a report is about 8 deep; evidence a few more)."""
MAX_NUMBER_LENGTH = 32
"""Characters of one JSON number: an int64 is 20, a float's repr at most 24."""


def _number(kind: type) -> Any:
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_LENGTH:
            raise ReportFormatError(f"a number of {len(text)} digits, longer than any a kdiag document holds "
                                    f"(starts {text[:12]}…)")
        return kind(text)

    return parse


def _constant(name: str) -> Any:
    raise ReportFormatError(f"{name} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """JSON from outside, bounded: see the module's docstring. Raises ReportFormatError only."""
    try:
        data = json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_constant)
    except RecursionError:
        raise ReportFormatError(f"nested deeper than the {MAX_DEPTH} levels a kdiag document has") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportFormatError(f"is not JSON: {exc}") from None
    _check_depth(data)
    return data


def _check_depth(data: Any) -> None:
    """Iteratively (a recursive check would be the very RecursionError it guards against)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            raise ReportFormatError(f"nested deeper than the {MAX_DEPTH} levels a kdiag document has")
        stack.extend((child, depth + 1) for child in children)
