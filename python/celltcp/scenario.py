"""Scenarios as Python objects: load, edit by dotted path, save, validate.

A :class:`Scenario` holds the scenario file's tables as plain dicts. It does not interpret values:
units, defaults and cross-references are checked by the core (:meth:`Scenario.validate`, or when
the scenario runs), so a scenario built in Python is judged by exactly the rules that judge a
file. The format is described in ``docs/scenarios.md``.
"""

from __future__ import annotations

import copy as _copy
import datetime as _dt
import json
import os
import sys
from collections.abc import Mapping
from typing import Any, Union

import tomli_w

from celltcp import _core
from celltcp.errors import scenario_error
from celltcp.output import atomic_write_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["Scenario", "PathLike"]

PathLike = Union[str, "os.PathLike[str]"]

_MISSING: Any = object()
#: Returned by get() in membership tests; distinct from _MISSING, which means "no default".
_ABSENT: Any = object()

#: Python types that TOML can store (tables and arrays are checked element by element).
_SCALARS = (str, bool, int, float, _dt.datetime, _dt.date, _dt.time)


def _split(path: str) -> list[str]:
    """Splits a dotted path; empty segments are an error naming the path."""
    if not isinstance(path, str) or not path:
        raise scenario_error(str(path), "a key path must be a non-empty dotted string")
    parts = path.split(".")
    if any(not p for p in parts):
        raise scenario_error(path, "a key path must not have empty segments")
    return parts


def _check_storable(key: str, value: Any) -> None:
    """Refuses values TOML cannot represent (None, objects), naming the innermost key."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise scenario_error(key, f"table keys must be strings, not {type(k).__name__}")
            _check_storable(f"{key}.{k}", v)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_storable(f"{key}[{i}]", v)
    elif not isinstance(value, _SCALARS):
        raise scenario_error(key, f"a {type(value).__name__} cannot be stored in a scenario")


def _plain(value: Any) -> Any:
    """Deep copy into plain dicts and lists (tuples become lists, as TOML has only arrays)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Scenario:
    """A scenario: TOML tables as nested dicts, with the file it came from (if any).

    >>> s = Scenario.from_toml('[simulation]\\nduration = "1s"\\n')
    >>> s.set("links.access.rate", "10Mbps")
    >>> s.get("links.access.rate")
    '10Mbps'
    """

    __slots__ = ("_data", "source")

    def __init__(self, data: Mapping[str, Any] | None = None, *, source: str | None = None):
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise scenario_error("", f"a scenario is a table, not a {type(data).__name__}")
        for key, value in data.items():
            if not isinstance(key, str):
                raise scenario_error(str(key), "top-level keys must be strings")
            _check_storable(key, value)
        self._data: dict[str, Any] = _plain(data)
        #: Where the scenario was read from (a path), for messages and default output names.
        self.source = source

    # -- construction -------------------------------------------------------------------------

    @property
    def base_dir(self) -> str | None:
        """Directory that relative file references (trace files) resolve against: the scenario
        file's directory when it was loaded from a file, else None (the current directory)."""
        if self.source and os.path.isfile(self.source):
            return os.path.dirname(os.path.abspath(self.source))
        return None

    @classmethod
    def load(cls, path: PathLike) -> Scenario:
        """Reads a scenario file. An unreadable file raises OSError; bad TOML a ScenarioError
        whose key is the file name."""
        name = os.fspath(path)
        with open(name, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise scenario_error(name, f"not UTF-8 text (byte {e.start})") from None
        return cls.from_toml(text, source=name)

    @classmethod
    def from_toml(cls, text: str, *, source: str | None = None) -> Scenario:
        """Parses TOML text. Syntax errors raise ScenarioError with the line and column; the key
        is ``source`` (or ``"<toml>"``)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise scenario_error(source or "<toml>", f"invalid TOML: {e}") from None
        return cls(data, source=source)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Builds a scenario from nested mappings (deep-copied)."""
        return cls(data)

    def copy(self) -> Scenario:
        """An independent deep copy."""
        return Scenario(_copy.deepcopy(self._data), source=self.source)

    # -- access by dotted path ----------------------------------------------------------------

    def get(self, path: str, default: Any = _MISSING) -> Any:
        """The value at a dotted path such as ``"links.access.rate"``.

        A missing key returns ``default`` when given, else raises ScenarioError naming it.
        Tables are returned as copies, so editing them does not change the scenario.
        """
        node: Any = self._data
        parts = _split(path)
        for i, part in enumerate(parts):
            if not isinstance(node, dict) or part not in node:
                if default is not _MISSING:
                    return default
                where = ".".join(parts[: i + 1])
                if isinstance(node, dict):
                    raise scenario_error(where, "no such key in the scenario")
                raise scenario_error(where, f"{'.'.join(parts[:i])} is a value, not a table")
            node = node[part]
        return _copy.deepcopy(node)

    def set(self, path: str, value: Any) -> Scenario:
        """Stores ``value`` at a dotted path, creating missing tables; returns ``self``.

        Values are stored as given (``"10Mbps"``, ``5``, ``{"kind": "droptail"}``); they are
        checked against the format by :meth:`validate` or when the scenario runs.
        """
        parts = _split(path)
        _check_storable(path, value)
        node = self._data
        for i, part in enumerate(parts[:-1]):
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                where = ".".join(parts[: i + 1])
                raise scenario_error(path, f"{where} is a value, not a table")
            node = child
        node[parts[-1]] = _plain(value)
        return self

    def __contains__(self, path: str) -> bool:
        return self.get(path, _ABSENT) is not _ABSENT

    # -- conversion ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the tables."""
        return _copy.deepcopy(self._data)

    def to_toml(self) -> str:
        """The scenario as TOML text."""
        return tomli_w.dumps(self._data)

    def save(self, path: PathLike) -> None:
        """Writes the scenario as TOML, replacing the file atomically."""
        atomic_write_text(path, self.to_toml())

    def validate(self, overrides: list[tuple[str, str]] | None = None) -> dict[str, Any]:
        """Checks the scenario with the core; returns the resolved scenario (every default
        filled in, units normalised) as a dict. Raises ScenarioError naming the key."""
        return json.loads(_core.validate(self.to_toml(), list(overrides or []), self.base_dir))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{len(self._data[t])} {t}"
            for t in ("nodes", "links", "flows")
            if isinstance(self._data.get(t), dict)
        )
        origin = f" from {self.source!r}" if self.source else ""
        return f"<Scenario{origin}: {counts or 'empty'}>"

