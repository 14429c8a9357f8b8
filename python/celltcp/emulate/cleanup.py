"""Removal of namespaces and devices: an emulation's own at its end, and those left behind by
emulations that were killed (``celltcp emulate --cleanup``).

What counts as left behind, judged conservatively so that a running emulation is never harmed:

* a registry file whose process is gone (pid and start time, see :mod:`registry`): every
  namespace and device it lists, then the file;
* a namespace ``celltcp-<pid>-<host>`` (or its files under ``/etc/netns``) or an interface
  ``celltcp<pid><letter>`` with no live registration, whose pid no longer exists (an emulation
  killed before its file was written cannot exist, since the file is written first; this
  catches files deleted by hand);
* nothing whose name lacks the celltcp pattern, whatever the registry says.

Processes still running in a namespace that is being removed (programs started with ``--exec``
or ``celltcp shell``) are stopped first — SIGTERM, then SIGKILL after a grace period — because
a namespace stays alive as long as one process is inside it, and because those programs lost
their network with the emulation.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from celltcp.emulate import netns, registry
from celltcp.emulate.errors import EmulationError

__all__ = ["CleanupReport", "stop_processes", "remove_namespace", "cleanup_stale"]

#: Seconds between SIGTERM and SIGKILL for processes left in a namespace.
GRACE_S = 2.0


@dataclass
class CleanupReport:
    """What :func:`cleanup_stale` removed, what it left alone, and what failed."""

    namespaces: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    registrations: list[int] = field(default_factory=list)
    processes: list[int] = field(default_factory=list)
    #: Pids of live emulations (or live unregistered owners) whose resources were kept.
    kept: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def removed_anything(self) -> bool:
        return bool(self.namespaces or self.devices or self.registrations)


def _signal(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return False


def stop_processes(pids: list[int], grace_s: float = GRACE_S) -> list[int]:
    """SIGTERM to each of ``pids``, SIGKILL to those alive after ``grace_s``; returns the pids
    that were signalled. Never signals this process."""
    pids = [p for p in pids if p != os.getpid()]
    signalled = [p for p in pids if _signal(p, signal.SIGTERM)]
    deadline = time.monotonic() + grace_s
    alive = list(signalled)
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [p for p in alive if registry.process_start_time(p) is not None and not _zombie(p)]
    for p in alive:
        _signal(p, signal.SIGKILL)
    return signalled


def _zombie(pid: int) -> bool:
    """A zombie has exited (it only awaits its parent's wait), so it holds no namespace."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
        return stat[stat.rindex(")") + 2 :].startswith("Z")
    except (OSError, ValueError):
        return True


def remove_namespace(name: str, grace_s: float = GRACE_S) -> list[int]:
    """Stops the processes inside celltcp namespace ``name``, deletes it and its files under
    /etc/netns; returns the pids stopped. Absent is not an error; a name without the celltcp
    pattern is refused."""
    if netns.parse_namespace_name(name) is None:
        raise EmulationError(f"refusing to remove namespace {name!r}: not created by celltcp")
    stopped = stop_processes(netns.namespace_pids(name), grace_s)
    netns.delete_namespace(name)
    netns.remove_etc(name)
    return stopped


def _remove_registered(reg: registry.Registration, report: CleanupReport, present: set[str],
                       links: set[str], directory: Path) -> None:
    for entry in reg.hosts.values():
        try:
            # Only names carrying the registration's own pid: a file never speaks for another
            # emulation's resources.
            ns_owner = netns.parse_namespace_name(entry.namespace)
            dev_owner = netns.parse_device_name(entry.device)
            if ns_owner and ns_owner[0] == reg.pid:
                if entry.namespace in present:
                    report.processes += remove_namespace(entry.namespace)
                    report.namespaces.append(entry.namespace)
                    present.discard(entry.namespace)
                else:
                    netns.remove_etc(entry.namespace)
            if entry.device in links and dev_owner and dev_owner[0] == reg.pid:
                netns.delete_link(entry.device)
                report.devices.append(entry.device)
                links.discard(entry.device)
        except EmulationError as e:
            report.errors.append(str(e))
    registry.remove(reg.pid, directory)
    report.registrations.append(reg.pid)


def cleanup_stale(directory: Path = registry.RUN_DIR) -> CleanupReport:
    """Removes what dead emulations left behind (see the module's description)."""
    report = CleanupReport()
    regs, unreadable = registry.load_all(directory)
    present = set(netns.list_namespaces())
    links = set(netns.list_links())
    live: set[int] = set()
    for reg in regs:
        if reg.alive():
            live.add(reg.pid)
            report.kept.append(reg.pid)
        else:
            _remove_registered(reg, report, present, links, directory)
    for path in unreadable:
        stem = path.stem
        if stem.isdigit() and registry.process_start_time(int(stem)) is None:
            path.unlink(missing_ok=True)
            report.registrations.append(int(stem))

    def orphaned(pid: int) -> bool:
        if pid in live:
            return False
        if registry.process_start_time(pid) is not None:
            if pid not in report.kept:
                report.kept.append(pid)
            return False
        return True

    for name in sorted(present | set(netns.list_etc())):
        parsed = netns.parse_namespace_name(name)
        if parsed and orphaned(parsed[0]):
            try:
                if name in present:
                    report.processes += remove_namespace(name)
                    report.namespaces.append(name)
                else:
                    netns.remove_etc(name)
            except (EmulationError, OSError) as e:
                report.errors.append(str(e))
    for name in sorted(links):
        parsed = netns.parse_device_name(name)
        if parsed and orphaned(parsed[0]):
            try:
                netns.delete_link(name)
                report.devices.append(name)
            except EmulationError as e:
                report.errors.append(str(e))
    return report
