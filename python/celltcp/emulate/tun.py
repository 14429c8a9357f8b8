"""TUN devices: layer-3 virtual interfaces whose packets a process reads and writes.

A device is created by opening the clone device ``/dev/net/tun`` and issuing the ``TUNSETIFF``
ioctl with a ``struct ifreq`` that names it and asks for ``IFF_TUN | IFF_NO_PI``
(Documentation/networking/tuntap.rst): each ``read(2)`` then returns exactly one IP datagram as
the kernel sent it and each ``write(2)`` injects one, with no 4-byte packet-information prefix.
The device is *not* made persistent (no ``TUNSETPERSIST``), so the kernel deletes it as soon as
the last descriptor closes — which is what makes a killed emulation leave no device behind.

The descriptor is opened non-blocking (the engine polls it) and close-on-exec (programs started
inside the namespaces must not inherit it, or they would keep the device alive).
"""

from __future__ import annotations

import errno
import fcntl
import os
import struct
from dataclasses import dataclass

from celltcp.emulate.errors import TunError
from celltcp.emulate.privileges import TUN_PATH

__all__ = ["IFNAMSIZ", "TunDevice", "open_tun"]

#: ``_IOW('T', 202, int)`` of ``linux/if_tun.h``.
TUNSETIFF = 0x400454CA
#: Flags of ``linux/if_tun.h``.
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
#: Interface names hold at most 15 bytes plus the terminating NUL (``linux/if.h``).
IFNAMSIZ = 16
#: ``struct ifreq`` is 40 bytes on 64-bit Linux: the name, then a 24-byte union of which
#: TUNSETIFF reads the leading ``short ifr_flags``.
_IFREQ = struct.Struct(f"{IFNAMSIZ}sH22x")


@dataclass
class TunDevice:
    """An open TUN device: its interface name and the descriptor that keeps it alive."""

    name: str
    fd: int

    def close(self) -> None:
        """Closes the descriptor, which deletes the device (idempotent)."""
        if self.fd >= 0:
            try:
                os.close(self.fd)
            finally:
                self.fd = -1


def open_tun(name: str, *, path: str = TUN_PATH) -> TunDevice:
    """Creates the TUN device ``name`` in the caller's network namespace, in
    ``IFF_TUN | IFF_NO_PI`` mode, with a non-blocking, close-on-exec descriptor.

    Raises TunError when the name is unusable, already taken, or the ioctl is refused.
    """
    encoded = name.encode("ascii", "strict") if name.isascii() else b""
    if not encoded or len(encoded) >= IFNAMSIZ or b"/" in encoded or b" " in encoded:
        raise TunError(f"{name!r} is not a usable interface name (1 to 15 ASCII characters)")
    try:
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise TunError(f"cannot open {path}: {e.strerror}") from None
    try:
        answer = fcntl.ioctl(fd, TUNSETIFF, _IFREQ.pack(encoded, IFF_TUN | IFF_NO_PI))
    except OSError as e:
        os.close(fd)
        # EBUSY: a TUN device of that name is in use; EINVAL: the name is held by a device of
        # another kind.
        taken = e.errno in (errno.EBUSY, errno.EINVAL)
        hint = " (an interface of that name exists already)" if taken else ""
        raise TunError(f"cannot create TUN device {name}: {e.strerror}{hint}") from None
    granted = _IFREQ.unpack(answer)[0].rstrip(b"\0").decode("ascii")
    return TunDevice(granted, fd)
