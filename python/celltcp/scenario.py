"""Scenarios as Python objects: load, edit by dotted path, save, validate.

A :class:`Scenario` holds the scenario file's tables as plain dicts. It does not interpret values:
units, defaults and cross-references are checked by the core (:meth:`Scenario.validate`, or when
the scenario runs), so a scenario built in Python is judged by exactly the rules that judge a
file. The format is described in ``docs/scenarios.md``.
"""

from __future__ import annotations

import contextlib
import copy as _copy
import datetime as _dt
import errno
import json
import os
import re
import stat
import sys
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, Union

import tomli_w

from celltcp import _core
from celltcp.errors import ScenarioError, ScenarioWarning, scenario_error
from celltcp.output import atomic_write_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["MAX_DEPTH", "PathLike", "Scenario", "read_input_file", "toml_value"]

PathLike = Union[str, "os.PathLike[str]"]

_MISSING: Any = object()
#: Returned by get() in membership tests; distinct from _MISSING, which means "no default".
_ABSENT: Any = object()

#: Python types that TOML can store (tables and arrays are checked element by element).
_SCALARS = (str, bool, int, float, _dt.datetime, _dt.date, _dt.time)


#: Deepest nesting of tables and arrays a scenario or sweep file may have (a table inside a
#: table is one level, an array one more). The deepest key of the format is 6 levels down
#: (``cells.c.ues.u.downlink_loss.kind``); the core's TOML parser stops at 80, and Python's
#: recursion long before 1,000, so the bound is checked here, on the parsed tree, without
#: recursion.
MAX_DEPTH = 32
#: Largest scenario or sweep file read, bytes.
MAX_FILE_BYTES = 16 << 20
#: TOML integers are 64-bit signed (TOML 1.0, "Integer"); Python's are unbounded.
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
#: The key of the core's errors about a scenario's text as a whole (crates/scenario error.rs).
_FILE_KEY = "scenario"


def split_key(path: str) -> list[str]:
    """Splits a dotted key such as ``links.access.rate``; a key with an empty part or a part
    with spaces around it is an error naming the key. The one rule for ``Scenario.set``,
    ``run(set=...)``, ``--set`` and sweep keys (the core applies the same to overrides)."""
    if not isinstance(path, str) or not path:
        raise scenario_error(
            str(path), "is not a dotted key; use e.g. 'links.access.rate' (a non-empty string)"
        )
    parts = path.split(".")
    if any(not p or p.strip() != p for p in parts):
        raise scenario_error(
            path, "is not a dotted key; use e.g. 'links.access.rate' (no empty parts or spaces)"
        )
    if len(parts) > MAX_DEPTH:
        raise scenario_error(
            path,
            f"a key of {len(parts)} parts is nested more than {MAX_DEPTH} tables deep; "
            "the format needs at most 6",
        )
    return parts


_split = split_key


def _check_storable(key: str, value: Any, depth: int = 0) -> None:
    """Refuses what a scenario cannot hold, naming the innermost key: values TOML cannot
    represent (None, objects), integers outside 64 bits, and nesting deeper than
    :data:`MAX_DEPTH` (``depth`` is the level ``value`` sits at). Walks without recursion, so
    a value nested 50,000 levels deep is refused rather than overflowing the stack."""
    stack: list[tuple[str, Any, int]] = [(key, value, depth)]
    while stack:
        where, node, level = stack.pop()
        if isinstance(node, (Mapping, list, tuple)) and level >= MAX_DEPTH:
            raise scenario_error(
                where,
                f"nested more than {MAX_DEPTH} tables or arrays deep; the format needs at most 6",
            )
        if isinstance(node, Mapping):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise scenario_error(
                        where, f"table keys must be strings, not {type(k).__name__}"
                    )
                stack.append((f"{where}.{k}" if where else k, v, level + 1))
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                stack.append((f"{where}[{i}]", v, level + 1))
        elif isinstance(node, bool):
            continue
        elif isinstance(node, int):
            if not _INT_MIN <= node <= _INT_MAX:
                # Not str(node): Python refuses to write an int of more than 4300 digits.
                shown = (
                    str(node)
                    if node.bit_length() <= 128
                    else f"an integer of {node.bit_length()} bits"
                )
                raise scenario_error(
                    where, f"{shown} is out of range; TOML integers are from -2^63 to 2^63-1"
                )
        elif not isinstance(node, _SCALARS):
            raise scenario_error(where, f"a {type(node).__name__} cannot be stored in a scenario")


def read_input_file(path: PathLike, *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    A FIFO would block the read until a writer comes, a device such as ``/dev/zero`` never
    ends: anything but a regular file, and a file larger than ``limit``, is a ScenarioError
    naming the path. A missing or unreadable file raises OSError, as ``open`` does.
    """
    name = os.fspath(path)
    if "\0" in str(name):
        # No file has such a name; os.stat would raise ValueError rather than OSError.
        raise scenario_error(str(name), "a file name cannot contain a NUL character")
    info = os.stat(name)  # does not open: opening a FIFO would block
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if not stat.S_ISREG(info.st_mode):
        raise scenario_error(
            name, "not a regular file (a FIFO, a socket or a device); give the path of a file"
        )
    if info.st_size > limit:
        raise scenario_error(name, f"larger than {limit >> 20} MiB, the most a file may have")
    # O_NONBLOCK: should the path have become a FIFO since, the open does not wait for a writer.
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise scenario_error(name, "not a regular file; give the path of a file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise scenario_error(name, f"larger than {limit >> 20} MiB, the most a file may have")
    return data


#: A dotted key with more parts than this is refused before tomllib reads it: tomllib's work on
#: a dotted key grows with the square of its length (5,000 parts take seconds, 50,000 minutes).
#: Far above MAX_DEPTH, which the parsed tree is held to exactly.
_MAX_KEY_PARTS = 200


def _dotted_key_parts(line: str) -> int:
    """Parts of the key a line starts with (``a.b.c = 1``, ``[a.b.c]``, ``[[a.b]]``), counting
    dots outside quotes only. A line of a multi-line string may be counted too; only a key of
    more than :data:`_MAX_KEY_PARTS` parts matters, which no string line is likely to look
    like."""
    text = line.lstrip()
    if text.startswith("["):
        text = text.lstrip("[")
        end = text.find("]")
    else:
        end = text.find("=")
    if end < 0:
        return 0
    parts, quote = 1, ""
    for ch in text[:end]:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts += 1
    return parts


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parses TOML text; a syntax error, or nesting deeper than :data:`MAX_DEPTH`, raises
    ScenarioError whose key is ``source``. tomllib's positions are the text's own lines and
    columns."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.count(".") > _MAX_KEY_PARTS and _dotted_key_parts(line) > _MAX_KEY_PARTS:
            raise scenario_error(
                source,
                f"line {number}: a key of more than {_MAX_KEY_PARTS} dotted parts is "
                f"nested more than {MAX_DEPTH} tables deep; the format needs at most 6",
            )
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise scenario_error(source, f"invalid TOML: {e}") from None
    except ValueError:
        # Python converts at most 4300 decimal digits to an int (sys.get_int_max_str_digits);
        # tomllib lets that ValueError out. No scenario value needs more than 20 digits.
        long_digits = re.search(r"[0-9a-fA-FxXoObB_]{4300,}", text)
        where = f"line {text.count(chr(10), 0, long_digits.start()) + 1}: " if long_digits else ""
        raise scenario_error(
            source, f"{where}an integer of thousands of digits; integers fit in 64 bits"
        ) from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively: a few hundred levels
        # exhaust Python's stack long before the tree could be checked.
        raise scenario_error(
            source,
            f"nested more than {MAX_DEPTH} tables or arrays deep; the format needs at most 6",
        ) from None
    try:
        for key, value in data.items():
            _check_storable(key, value, 1)
    except ScenarioError as e:
        raise scenario_error(source, f"{e.key}: {e.message}") from None
    return data


def _toml_string(text: str) -> str:
    # TOML basic strings (TOML 1.0, "String"): escape the quote, the backslash and control
    # characters; everything else is literal UTF-8.
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")


def toml_value(value: Any) -> str:
    """A value as inline TOML, the form ``--set key=VALUE`` reads (tables become inline tables).

    >>> toml_value({"kind": "codel", "target": "5ms"})
    '{ kind = "codel", target = "5ms" }'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        items = []
        for k, v in value.items():
            name = k if _BARE_KEY.match(k) else _toml_string(k)
            items.append(f"{name} = {toml_value(v)}")
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"a {type(value).__name__} is not a TOML value")


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

    __slots__ = ("_data", "_text", "source")

    def __init__(self, data: Mapping[str, Any] | None = None, *, source: str | None = None):
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise scenario_error("", f"a scenario is a table, not a {type(data).__name__}")
        for key, value in data.items():
            if not isinstance(key, str):
                raise scenario_error(str(key), "top-level keys must be strings")
            _check_storable(key, value, 1)
        self._data: dict[str, Any] = _plain(data)
        #: Where the scenario was read from (a path), for messages and default output names.
        self.source = source
        # The TOML text the tables were parsed from, while they are unchanged: the core then
        # reads the user's own text, so any position it reports is the user's line and column.
        self._text: str | None = None

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
        raw = read_input_file(name)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise scenario_error(name, f"not UTF-8 text (byte {e.start})") from None
        return cls.from_toml(text, source=name)

    @classmethod
    def from_toml(cls, text: str, *, source: str | None = None) -> Scenario:
        """Parses TOML text. Syntax errors raise ScenarioError with the line and column; the key
        is ``source`` (or ``"<toml>"``)."""
        scenario = cls(parse_toml(text, source or "<toml>"), source=source)
        scenario._text = text
        return scenario

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Builds a scenario from nested mappings (deep-copied)."""
        return cls(data)

    def copy(self) -> Scenario:
        """An independent deep copy."""
        twin = Scenario(_copy.deepcopy(self._data), source=self.source)
        twin._text = self._text
        return twin

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
        _check_storable(path, value, len(parts))
        node = self._data
        for i, part in enumerate(parts[:-1]):
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                where = ".".join(parts[: i + 1])
                raise scenario_error(path, f"{where} is a value, not a table")
            node = child
        node[parts[-1]] = _plain(value)
        self._text = None
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

    def _core_text(self) -> str:
        """The text the core reads: the TOML the scenario was parsed from while unchanged (so
        that the core's messages point into the user's file), else :meth:`to_toml`."""
        return self._text if self._text is not None else self.to_toml()

    def save(self, path: PathLike) -> None:
        """Writes the scenario as TOML, replacing the file atomically."""
        atomic_write_text(path, self.to_toml())

    @contextlib.contextmanager
    def file_named_in_errors(self) -> Iterator[None]:
        """The core names the text it reads ``scenario`` in an error about the text as a whole
        (a TOML number it cannot hold, ``1e999``); this names the file instead, when the
        scenario came from one."""
        try:
            yield
        except ScenarioError as e:
            if e.key != _FILE_KEY or not self.source:
                raise
            raise scenario_error(self.source, e.message) from None

    def validate(self, overrides: list[tuple[str, str]] | None = None) -> dict[str, Any]:
        """Checks the scenario with the core, as a run would before its first event; returns the
        resolved scenario (every default filled in, units normalised) as a dict. Raises
        ScenarioError naming the key; what is allowed but probably not meant (a UE route that
        leaves every cell's coverage) is a :class:`~celltcp.errors.ScenarioWarning`."""
        with self.file_named_in_errors():
            echo, found = _core.validate(self._core_text(), list(overrides or []), self.base_dir)
        for key, message in found:
            warnings.warn(ScenarioWarning(message, key), stacklevel=2)
        resolved: dict[str, Any] = json.loads(echo)
        return resolved

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
