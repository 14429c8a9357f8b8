"""What emulation needs from the system, checked before anything is created.

* ``CAP_NET_ADMIN`` (capability 12, ``linux/capability.h``): creating TUN devices (TUNSETIFF),
  moving links between network namespaces, assigning addresses and routes.
* ``CAP_SYS_ADMIN`` (capability 21): ``ip netns add`` calls ``unshare(CLONE_NEWNET)`` and
  bind-mounts the namespace under ``/run/netns``; ``ip netns exec`` enters it with ``setns``.
* ``/dev/net/tun`` openable for reading and writing (the ``tun`` driver, and in a container the
  device passed in).
* ``ip`` from iproute2 on ``PATH``.

The effective set (``CapEff`` in ``/proc/self/status``, a hexadecimal bit mask, proc(5)) is what
the kernel checks, so a root process whose bounding set lacks a capability is refused like any
other user. All problems are gathered into one message, each with the way to obtain it.
"""

from __future__ import annotations

import errno
import os
import shutil
from dataclasses import dataclass

from celltcp.emulate.errors import PrivilegeError

__all__ = ["CAP_NET_ADMIN", "CAP_SYS_ADMIN", "TUN_PATH", "Missing", "check", "missing"]

#: Capability numbers of ``linux/capability.h``.
CAP_NET_ADMIN = 12
CAP_SYS_ADMIN = 21

#: The TUN/TAP clone device (Documentation/networking/tuntap.rst).
TUN_PATH = "/dev/net/tun"

_HOW_CAPS = (
    "run as root (e.g. 'sudo celltcp emulate ...'); in a container add "
    "'--cap-add NET_ADMIN --cap-add SYS_ADMIN --device /dev/net/tun'"
)


@dataclass(frozen=True)
class Missing:
    """One unmet requirement: what is missing and how to get it."""

    what: str
    how: str

    def __str__(self) -> str:
        return f"{self.what} ({self.how})"


def effective_capabilities(status_path: str = "/proc/self/status") -> int:
    """The effective capability mask of this process (``CapEff``); 0 when unreadable."""
    try:
        with open(status_path, encoding="ascii") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split(":", 1)[1].strip(), 16)
    except (OSError, ValueError):
        pass
    return 0


def _tun_problem(path: str) -> Missing | None:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENOENT:
            return Missing(
                f"{path} does not exist",
                "load the tun driver with 'modprobe tun'; in a container pass the device in "
                "with '--device /dev/net/tun'",
            )
        return Missing(f"{path} cannot be opened: {e.strerror}", _HOW_CAPS)
    os.close(fd)
    return None


def missing(
    *, status_path: str = "/proc/self/status", tun_path: str | None = TUN_PATH
) -> list[Missing]:
    """Every unmet requirement, in the order a user would fix them (empty when all are met).
    ``tun_path=None`` skips the TUN check (entering a namespace needs no TUN device)."""
    problems: list[Missing] = []
    caps = effective_capabilities(status_path)
    absent = [
        name
        for bit, name in ((CAP_NET_ADMIN, "CAP_NET_ADMIN"), (CAP_SYS_ADMIN, "CAP_SYS_ADMIN"))
        if not caps >> bit & 1
    ]
    if absent:
        problems.append(Missing(f"capability {' and '.join(absent)} not held", _HOW_CAPS))
    tun = None if tun_path is None else _tun_problem(tun_path)
    if tun is not None:
        problems.append(tun)
    if shutil.which("ip") is None:
        problems.append(
            Missing(
                "the 'ip' command is not on PATH", "install iproute2, e.g. 'apt install iproute2'"
            )
        )
    return problems


def check(*, status_path: str = "/proc/self/status", tun_path: str | None = TUN_PATH) -> None:
    """Raises :class:`PrivilegeError` naming every unmet requirement; returns when all are met."""
    problems = missing(status_path=status_path, tun_path=tun_path)
    if problems:
        raise PrivilegeError(
            "emulation needs network administration rights: " + "; ".join(str(p) for p in problems)
        )
