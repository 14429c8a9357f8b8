"""Scenarios as Python objects: load, edit by dotted path, save, validate.

A :class:`Scenario` wraps the core's parsed document (``celltcp._core.Document``): the file is
parsed once, by the core, which also owns the dotted-path get and set (the rules of ``--set``),
the guards against hostile input (regular files of bounded size, nesting at most
:data:`MAX_DEPTH` deep, 64-bit integers) and the TOML the scenario is written back as. Values
cross as the plain Python values ``tomllib`` gives. The scenario does not interpret values:
units, defaults and cross-references are checked by the core (:meth:`Scenario.validate`, or
when the scenario runs) on the same tree, so a scenario built in Python is judged by exactly the
rules that judge a file. The format is described in ``docs/scenarios.md``.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping
from typing import Any, Union

from celltcp import _core
from celltcp.errors import ScenarioWarning
from celltcp.output import atomic_write_text

__all__ = ["MAX_DEPTH", "PathLike", "Scenario", "parse_toml", "read_toml", "toml_value"]

PathLike = Union[str, "os.PathLike[str]"]

_MISSING: Any = object()
#: Returned by get() in membership tests; distinct from _MISSING, which means "no default".
_ABSENT: Any = object()

#: Deepest nesting of tables and arrays a scenario or sweep file may have (a table inside a
#: table is one level, an array one more); the deepest key of the format is 6 levels down
#: (``cells.c.ues.u.downlink_loss.kind``). The core's bound.
MAX_DEPTH: int = _core.MAX_DEPTH


def toml_value(value: Any, key: str = "") -> str:
    """A value as inline TOML, the form ``--set key=VALUE`` reads (tables become inline tables);
    a value TOML cannot hold is a ScenarioError naming ``key``. Written by the core.

    >>> toml_value({"kind": "codel", "target": "5ms"})
    '{ kind = "codel", target = "5ms" }'
    """
    return _core.toml_value(value, key)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """The tables of TOML text (a scenario, a sweep file), parsed and bounded by the core; any
    error about the text is a ScenarioError whose key is ``source``, with the text's own line
    and column."""
    return _core.Document.parse(text, source).to_dict()


def read_toml(path: PathLike) -> dict[str, Any]:
    """The tables of the TOML file at ``path`` (a regular file of at most 64 MiB), read and
    parsed by the core. A missing or unreadable file raises OSError, a directory
    IsADirectoryError; anything else refused is a ScenarioError naming the path."""
    return _core.Document.read(os.fspath(path)).to_dict()


class Scenario:
    """A scenario: the core's parsed document, with the file it came from (if any).

    >>> s = Scenario.from_toml('[simulation]\\nduration = "1s"\\n')
    >>> _ = s.set("links.access.rate", "10Mbps")
    >>> s.get("links.access.rate")
    '10Mbps'
    """

    __slots__ = ("_doc", "source")

    def __init__(self, data: Mapping[str, Any] | None = None, *, source: str | None = None):
        self._doc = _core.Document(data)
        #: Where the scenario was read from (a path), for messages and default output names.
        self.source = source

    @classmethod
    def _wrap(cls, doc: _core.Document, source: str | None) -> Scenario:
        scenario = cls.__new__(cls)
        scenario._doc = doc
        scenario.source = source
        return scenario

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
        """Reads a scenario file (a regular file of at most 64 MiB). An unreadable file raises
        OSError; bad TOML a ScenarioError whose key is the file name."""
        name = os.fspath(path)
        return cls._wrap(_core.Document.read(name), name)

    @classmethod
    def from_toml(cls, text: str, *, source: str | None = None) -> Scenario:
        """Parses TOML text. Syntax errors raise ScenarioError with the line and column; the key
        is ``source`` (or ``"<toml>"``)."""
        return cls._wrap(_core.Document.parse(text, source or "<toml>"), source)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Builds a scenario from nested mappings (copied)."""
        return cls(data)

    def copy(self) -> Scenario:
        """An independent deep copy."""
        return Scenario._wrap(self._doc.copy(), self.source)

    # -- access by dotted path ----------------------------------------------------------------

    def get(self, path: str, default: Any = _MISSING) -> Any:
        """The value at a dotted path such as ``"links.access.rate"``.

        A missing key returns ``default`` when given, else raises ScenarioError naming it.
        Tables are returned as copies, so editing them does not change the scenario.
        """
        if default is _MISSING:
            return self._doc.get(path)
        return self._doc.get(path, default)

    def set(self, path: str, value: Any) -> Scenario:
        """Stores ``value`` at a dotted path, creating missing tables; returns ``self``.

        The rules of ``--set`` (docs/scenarios.md): a node, link or flow that does not exist is
        added only as a whole table. Values are stored as given (``"10Mbps"``, ``5``,
        ``{"kind": "droptail"}``); they are checked against the format by :meth:`validate` or
        when the scenario runs.
        """
        self._doc.set(path, value)
        return self

    def __contains__(self, path: str) -> bool:
        return self.get(path, _ABSENT) is not _ABSENT

    # -- conversion ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the tables."""
        return self._doc.to_dict()

    def to_toml(self) -> str:
        """The scenario as TOML text, written by the core."""
        return self._doc.to_toml()

    def save(self, path: PathLike) -> None:
        """Writes the scenario as TOML, replacing the file atomically."""
        atomic_write_text(path, self.to_toml())

    def _resolve(self, overrides: list[tuple[str, str]] | None = None) -> str:
        """The resolved scenario as the core's JSON text, the warnings emitted (see
        :meth:`validate`)."""
        echo, found = _core.validate(self._doc, list(overrides or []), self.base_dir)
        for key, message in found:
            warnings.warn(ScenarioWarning(message, key), stacklevel=3)
        return echo

    def validate(self, overrides: list[tuple[str, str]] | None = None) -> dict[str, Any]:
        """Checks the scenario with the core, as a run would before its first event; returns the
        resolved scenario (every default filled in, units normalised) as a dict. Raises
        ScenarioError naming the key; what is allowed but probably not meant (a UE route that
        leaves every cell's coverage) is a :class:`~celltcp.errors.ScenarioWarning`."""
        resolved: dict[str, Any] = json.loads(self._resolve(overrides))
        return resolved

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return bool(self._doc == other._doc)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{len(table)} {t}"
            for t in ("nodes", "links", "flows")
            if isinstance(table := self.get(t, None), dict)
        )
        origin = f" from {self.source!r}" if self.source else ""
        return f"<Scenario{origin}: {counts or 'empty'}>"
