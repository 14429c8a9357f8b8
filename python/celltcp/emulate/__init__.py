"""Real-time emulation: real programs in Linux network namespaces, their packets carried by the
simulated path (``celltcp emulate``, ``celltcp shell``; guide in docs/emulation.md).

The engine runs in real time in the compiled core (``celltcp._core.emulate``); this package
owns everything on the system side: privileges (:mod:`.privileges`), TUN devices (:mod:`.tun`),
namespaces and addresses (:mod:`.netns`), the registry of running emulations
(:mod:`.registry`), clean-up of leftovers (:mod:`.cleanup`), the session that ties them together
with signal handling (:mod:`.session`), programs run inside the namespaces (:mod:`.programs`),
the run itself (:mod:`.runner`) and the two commands (:mod:`.cli`).
"""

from __future__ import annotations

from celltcp.emulate.errors import EmulationError, PrivilegeError, RealTimeError
from celltcp.emulate.session import EmulationSession, Interrupted

__all__ = ["EmulationError", "EmulationSession", "Interrupted", "PrivilegeError", "RealTimeError"]
