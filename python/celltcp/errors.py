"""The exceptions of celltcp.

Both classes are created by the compiled core (so that Rust errors map to them in one place) and
re-exported here:

* :class:`ScenarioError` (a ``ValueError``): bad user input. ``args == (message, key)``, where
  ``key`` is the dotted path of the offending value (``"links.access.rate"``) or, for a file that
  is not valid TOML, the file's name. ``str(err)`` reads ``"key: message"``.
* :class:`SimulationError` (a ``RuntimeError``): a failure inside the simulator; always a bug.
"""

from __future__ import annotations

from celltcp._core import ScenarioError, SimulationError, bound_error

__all__ = ["ScenarioError", "SimulationError", "scenario_error"]


def _message(self: ScenarioError) -> str:
    return str(self.args[0]) if self.args else ""


def _key(self: ScenarioError) -> str:
    return str(self.args[1]) if len(self.args) > 1 else ""


def _str(self: ScenarioError) -> str:
    key, message = _key(self), _message(self)
    return f"{key}: {message}" if key else message


# The class comes from the compiled module, whose exception macro cannot define methods; the
# accessors are attached here once, at import, so every ScenarioError reads the same way.
setattr(ScenarioError, "message", property(_message, doc="What is wrong and what was expected."))
setattr(ScenarioError, "key", property(_key, doc="Dotted path of the offending value."))
setattr(ScenarioError, "__str__", _str)


def scenario_error(key: str, message: str) -> ScenarioError:
    """A ScenarioError raised by the Python layer, shaped and bounded like the core's: every
    value it echoes is cut to about 80 characters and control characters are escaped, so that
    a 10 MB value or a binary file still gives one short line."""
    key, message = bound_error(str(key), str(message))
    return ScenarioError(message, key)
