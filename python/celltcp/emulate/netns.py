"""Network namespaces and links, through iproute2's ``ip`` command.

Every name this module creates starts with :data:`PREFIX` and carries the process id of the
emulation that owns it, so that clean-up can tell celltcp's leftovers from everything else and
never touches a namespace or an interface it did not create:

* namespace ``celltcp-<pid>-<host>`` (``ip netns`` names are file names under ``/run/netns``);
* TUN device ``celltcp<pid><letter>``, letter ``a``, ``b``, … per attached host, because an
  interface name holds at most 15 bytes (``IFNAMSIZ`` - 1) and a pid up to 7 digits.

Per namespace, ``/etc/netns/<namespace>/`` holds a ``hosts`` file naming every node of the
scenario by its address and a ``resolv.conf`` pointing at the namespace's own loopback;
``ip netns exec`` mounts them over ``/etc/hosts`` and ``/etc/resolv.conf`` for the programs it
starts (ip-netns(8)). So ``curl http://remote/`` works, and a name lookup that would need a
DNS server (unreachable: the namespace's only way out is the emulated path) fails at once
instead of after the resolver's timeouts — Python's ``http.server``, for one, looks up its own
address before it listens.

A host's namespace is configured as a host on a point-to-point link, the way Mahimahi's shells
are: ``lo`` up, the TUN device up with the host's scenario address as a /32 and a default route
through it, so every packet a program sends to another address enters the emulated path. IPv6
is disabled inside the namespace before the device arrives, so the kernel sends no router
solicitations or MLD reports into an IPv4-only path (RFC 4861 §6.3.7, RFC 3810 §5).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from celltcp.emulate.errors import IpCommandError

__all__ = [
    "ETC_NETNS",
    "MAX_HOSTS",
    "PREFIX",
    "add_namespace",
    "check_host_name",
    "configure_host",
    "delete_link",
    "delete_namespace",
    "device_name",
    "disable_ipv6",
    "exec_argv",
    "ip",
    "list_etc",
    "list_links",
    "list_namespaces",
    "move_link",
    "namespace_name",
    "namespace_pids",
    "parse_device_name",
    "parse_namespace_name",
    "remove_etc",
    "write_etc",
]

PREFIX = "celltcp"
#: Attached hosts per emulation: one device letter each.
MAX_HOSTS = 26
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: Host names usable inside a namespace name (a file name under /run/netns).
_HOST_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_NAMESPACE = re.compile(rf"{PREFIX}-([0-9]+)-({_HOST_NAME.pattern})")
_DEVICE = re.compile(rf"{PREFIX}([0-9]+)([a-z])")
#: Seconds an ``ip`` command may take before it is considered hung.
_TIMEOUT_S = 20.0


def check_host_name(host: str) -> None:
    """Raises IpCommandError when ``host`` cannot be part of a namespace name."""
    if not _HOST_NAME.fullmatch(host):
        raise IpCommandError(
            f"host {host!r} cannot name a network namespace (letters, digits, '_', '.', '-'; "
            "at most 64 characters)"
        )


def namespace_name(pid: int, host: str) -> str:
    """``celltcp-<pid>-<host>``."""
    check_host_name(host)
    return f"{PREFIX}-{pid}-{host}"


def device_name(pid: int, index: int) -> str:
    """``celltcp<pid><letter>`` for the ``index``-th attached host (0-based)."""
    if not 0 <= index < MAX_HOSTS:
        raise IpCommandError(f"at most {MAX_HOSTS} hosts can be attached to one emulation")
    name = f"{PREFIX}{pid}{_LETTERS[index]}"
    if len(name) > 15:
        raise IpCommandError(f"process id {pid} is too long for an interface name")
    return name


def parse_namespace_name(name: str) -> tuple[int, str] | None:
    """``(pid, host)`` of a celltcp namespace name, or None for any other name."""
    m = _NAMESPACE.fullmatch(name)
    return (int(m.group(1)), m.group(2)) if m else None


def parse_device_name(name: str) -> tuple[int, int] | None:
    """``(pid, index)`` of a celltcp device name, or None for any other name."""
    m = _DEVICE.fullmatch(name)
    return (int(m.group(1)), _LETTERS.index(m.group(2))) if m else None


def ip(
    *args: str, check: bool = True, timeout: float = _TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Runs ``ip ARGS``; a failure (when ``check``) raises IpCommandError quoting the command and
    ``ip``'s own message."""
    argv = ["ip", *args]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise IpCommandError("the 'ip' command (iproute2) is not installed") from None
    except subprocess.TimeoutExpired:
        raise IpCommandError(f"'{' '.join(argv)}' did not finish within {timeout:g} s") from None
    if check and proc.returncode != 0:
        reason = " ".join(proc.stderr.split()) or f"exit status {proc.returncode}"
        raise IpCommandError(f"'{' '.join(argv)}' failed: {reason}")
    return proc


def add_namespace(name: str) -> None:
    """Creates the namespace; an existing one of that name is an error (never reused)."""
    if name in list_namespaces():
        raise IpCommandError(
            f"network namespace {name} exists already (left by a killed emulation? "
            "run 'celltcp emulate --cleanup')"
        )
    ip("netns", "add", name)


def delete_namespace(name: str) -> None:
    """Deletes a celltcp namespace (refuses any other name); absent is not an error."""
    if parse_namespace_name(name) is None:
        raise IpCommandError(f"refusing to delete namespace {name!r}: not created by celltcp")
    if name in list_namespaces():
        ip("netns", "delete", name)


def list_namespaces() -> list[str]:
    """Names of the named network namespaces (``ip netns list``; lines read ``NAME (id: N)``)."""
    out = ip("netns", "list").stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def namespace_pids(name: str) -> list[int]:
    """Processes running in the namespace (``ip netns pids``); empty when it is gone."""
    proc = ip("netns", "pids", name, check=False)
    if proc.returncode != 0:
        return []
    return [int(tok) for tok in proc.stdout.split() if tok.isdigit()]


def list_links(namespace: str | None = None) -> list[str]:
    """Interface names in ``namespace`` (None: this process's namespace)."""
    where = ["-n", namespace] if namespace else []
    out = ip("-j", *where, "link", "show").stdout
    try:
        return [str(link["ifname"]) for link in json.loads(out or "[]")]
    except (ValueError, KeyError, TypeError):
        unexpected = f"'ip -j link show' printed unexpected output: {out[:200]!r}"
        raise IpCommandError(unexpected) from None


def delete_link(name: str) -> None:
    """Deletes a celltcp interface of this namespace (refuses any other name)."""
    if parse_device_name(name) is None:
        raise IpCommandError(f"refusing to delete interface {name!r}: not created by celltcp")
    ip("link", "delete", "dev", name)


def move_link(device: str, namespace: str) -> None:
    """Moves an interface of this namespace into ``namespace``."""
    ip("link", "set", "dev", device, "netns", namespace)


#: Written from inside the namespace: /proc/sys/net resolves against the reader's namespace.
_DISABLE_IPV6 = (
    "import os\n"
    "for conf in ('default', 'all'):\n"
    "    path = f'/proc/sys/net/ipv6/conf/{conf}/disable_ipv6'\n"
    "    if os.path.exists(path):\n"
    "        with open(path, 'w') as f: f.write('1')\n"
)


def disable_ipv6(namespace: str) -> None:
    """Turns IPv6 off in the namespace, for the interfaces present and those moved in later
    (``default``). A kernel without IPv6 has nothing to turn off."""
    argv = exec_argv(namespace, [sys.executable, "-I", "-c", _DISABLE_IPV6])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)
    if proc.returncode != 0:
        reason = " ".join(proc.stderr.split()[-30:]) or f"exit status {proc.returncode}"
        raise IpCommandError(f"cannot disable IPv6 in namespace {namespace}: {reason}")


def configure_host(namespace: str, device: str, address: str, mtu: int) -> None:
    """Brings up ``lo`` and ``device`` (MTU ``mtu`` bytes) in ``namespace``, gives the device
    ``address``/32 and routes everything else through it."""
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        raise IpCommandError(f"{address!r} is not an IPv4 address") from None
    ns = ("-n", namespace)
    ip(*ns, "link", "set", "dev", "lo", "up")
    ip(*ns, "link", "set", "dev", device, "mtu", str(mtu), "up")
    ip(*ns, "address", "add", f"{address}/32", "dev", device)
    ip(*ns, "route", "add", "default", "dev", device)


def exec_argv(namespace: str, argv: Sequence[str]) -> list[str]:
    """The command line running ``argv`` inside ``namespace``."""
    return ["ip", "netns", "exec", namespace, *argv]


#: Per-namespace configuration files that ``ip netns exec`` mounts over /etc (ip-netns(8)).
ETC_NETNS = Path("/etc/netns")

_RESOLV_CONF = """\
# Written by celltcp for an emulated host: the namespace reaches no DNS server, so lookups go
# to its own loopback, where nothing listens, and fail at once; names are in /etc/hosts.
nameserver 127.0.0.1
options timeout:1 attempts:1
"""


def write_etc(namespace: str, names: Mapping[str, str], directory: Path = ETC_NETNS) -> None:
    """Writes ``hosts`` (``names``: node name → IPv4 address) and ``resolv.conf`` for the
    programs of ``namespace``."""
    if parse_namespace_name(namespace) is None:
        raise IpCommandError(f"refusing to configure {namespace!r}: not created by celltcp")
    lines = ["127.0.0.1\tlocalhost"]
    lines += [f"{address}\t{name}" for name, address in names.items()]
    target = directory / namespace
    try:
        target.mkdir(parents=True, exist_ok=True)
        (target / "hosts").write_text("\n".join(lines) + "\n", encoding="ascii")
        (target / "resolv.conf").write_text(_RESOLV_CONF, encoding="ascii")
    except (OSError, UnicodeError) as e:
        reason = getattr(e, "strerror", None) or e
        raise IpCommandError(f"cannot write {target}: {reason}") from None


def remove_etc(namespace: str, directory: Path = ETC_NETNS) -> None:
    """Removes the files of a celltcp namespace (refuses any other name; absent is fine)."""
    if parse_namespace_name(namespace) is None:
        raise IpCommandError(f"refusing to remove {directory / namespace}: not created by celltcp")
    target = directory / namespace
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)


def list_etc(directory: Path = ETC_NETNS) -> list[str]:
    """Names of the celltcp namespaces that have files under ``directory``."""
    try:
        return sorted(n for n in os.listdir(directory) if parse_namespace_name(n) is not None)
    except OSError:
        return []
