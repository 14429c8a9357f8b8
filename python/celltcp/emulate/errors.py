"""Errors of the emulation set-up.

Everything here but :class:`RealTimeError` is something the user can fix before starting
(missing privileges, no TUN driver, no iproute2, a name clash with an existing namespace), so the
command line reports each as a user error (exit status 2). Failures inside the engine stay
:class:`celltcp.SimulationError`; the one failure that is the machine's and not a bug, an engine
that cannot keep up with real time, is the subclass :class:`RealTimeError` (its own exit status).
"""

from __future__ import annotations

from celltcp.errors import SimulationError

__all__ = [
    "REAL_TIME_MARKER",
    "EmulationError",
    "IpCommandError",
    "PrivilegeError",
    "RealTimeError",
    "RegistryError",
    "TunError",
]

#: How the engine's message for a run that fell behind real time begins (crate celltcp-emu,
#: ``EmuError::TooSlow``); the compiled core raises it as a SimulationError with that text.
REAL_TIME_MARKER = "cannot keep up with real time"


class EmulationError(Exception):
    """The emulation could not be set up or reached; the message says what to do."""


class PrivilegeError(EmulationError):
    """The process lacks a capability or a device that emulation needs."""


class IpCommandError(EmulationError):
    """An ``ip`` (iproute2) command failed; the message quotes the command and its stderr."""


class TunError(EmulationError):
    """A TUN device could not be created."""


class RegistryError(EmulationError):
    """The registry of running emulations (under ``/run/celltcp``) is unusable, or has no
    emulation matching the request."""


class RealTimeError(SimulationError):
    """The engine fell further behind the wall clock than ``max_lag`` for over a second: the
    machine cannot emulate this path in real time (too fast a rate, too many flows or cells, or
    too much else running). The message says by how much and what to lower."""

    @classmethod
    def recognise(cls, error: SimulationError) -> SimulationError:
        """``error`` as a RealTimeError when its message is the engine's real-time failure,
        else ``error`` itself."""
        from celltcp import _core

        # The core raises its own RealTimeError (crates/py/src/errors.rs); the marker keeps an
        # older build of the core recognised.
        text = str(error)
        if isinstance(error, _core.RealTimeError) or text.startswith(REAL_TIME_MARKER):
            return cls(text)
        return error
