"""Errors of the emulation set-up.

Everything here is something the user can fix (missing privileges, no TUN driver, no iproute2, a
name clash with an existing namespace), so the command line reports each as a user error
(exit status 2). Failures inside the engine stay :class:`celltcp.SimulationError`.
"""

from __future__ import annotations

__all__ = ["EmulationError", "PrivilegeError", "IpCommandError", "TunError", "RegistryError"]


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
