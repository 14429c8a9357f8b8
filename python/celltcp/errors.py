"""The exceptions of celltcp.

Both classes are created by the compiled core (so that Rust errors map to them in one place) and
re-exported here:

* :class:`ScenarioError` (a ``ValueError``): bad user input. ``args == (message, key)``, where
  ``key`` is the dotted path of the offending value (``"links.access.rate"``) or, for a file that
  is not valid TOML, the file's name. ``str(err)`` reads ``"key: message"``.
* :class:`SimulationError` (a ``RuntimeError``): a failure inside the simulator; always a bug.
"""

from __future__ import annotations

import warnings

from celltcp._core import ScenarioError, SimulationError, bound_error

__all__ = ["ScenarioError", "ScenarioWarning", "SimulationError", "scenario_error"]


def _message(self: ScenarioError) -> str:
    return str(self.args[0]) if self.args else ""


def _key(self: ScenarioError) -> str:
    return str(self.args[1]) if len(self.args) > 1 else ""


def _str(self: ScenarioError) -> str:
    key, message = _key(self), _message(self)
    return f"{key}: {message}" if key else message


# The class comes from the compiled module, whose exception macro cannot define methods; the
# accessors are attached here once, at import, so every ScenarioError reads the same way.
# (The stub declares them as the properties they become here.)
ScenarioError.message = property(_message, doc="What is wrong and what was expected.")  # type: ignore[method-assign, assignment]
ScenarioError.key = property(_key, doc="Dotted path of the offending value.")  # type: ignore[method-assign, assignment]
ScenarioError.__str__ = _str  # type: ignore[method-assign, assignment]


def scenario_error(key: str, message: str) -> ScenarioError:
    """A ScenarioError raised by the Python layer, shaped and bounded like the core's: every
    value it echoes is cut to about 80 characters and control characters are escaped, so that
    a 10 MB value or a binary file still gives one short line."""
    key, message = bound_error(str(key), str(message))
    return ScenarioError(message, key)


class ScenarioWarning(UserWarning):
    """Something a scenario allows but probably does not mean (a UE route that leaves every
    cell's coverage); the run goes ahead. ``args == (message, key)``, read as ScenarioError's."""

    @property
    def message(self) -> str:
        return _message(self)  # type: ignore[arg-type]

    @property
    def key(self) -> str:
        return _key(self)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return _str(self)  # type: ignore[arg-type]


_format_warning = warnings.formatwarning


def _format_scenario_warning(message, category, filename, lineno, line=None):  # type: ignore[no-untyped-def]
    # A scenario warning is about the user's file, not about the line of celltcp that noticed
    # it: one line, as the command's errors are.
    if isinstance(category, type) and issubclass(category, ScenarioWarning):
        return f"celltcp: warning: {message}\n"
    return _format_warning(message, category, filename, lineno, line)


warnings.formatwarning = _format_scenario_warning
