"""Removal of namespaces and devices: an emulation's own at its end, and those left behind by
emulations that were killed (``celltcp emulate --cleanup``).

What is removed is what the registry recorded (see :mod:`registry`), judged conservatively so
that a running emulation is never harmed:

* a registry file whose process is gone (pid and start time): the programs recorded for it
  (started by ``celltcp shell``, each checked by pid and start time), every namespace and device
  the file lists, then the file;
* program records of a dead emulation whose registry file is gone: those programs;
* nothing whose name lacks the celltcp pattern, whatever the registry says.

A namespace ``celltcp-<pid>-<host>`` (or its files under ``/etc/netns``) or an interface
``celltcp<pid><letter>`` that no registry file names, whose pid no longer exists, is only
*reported* (:attr:`CleanupReport.unregistered`): celltcp writes its file before it creates
anything, so such a name was not made by an emulation that the registry knows — perhaps by
hand, or by another program using the same pattern. It is removed only when the caller says so
(``--force``, or a yes to the question ``celltcp emulate --cleanup`` asks on a terminal).

Processes still running in a namespace that is being removed (programs started with ``--exec``
or ``celltcp shell``) are stopped first — SIGTERM, then SIGKILL after a grace period — because
a namespace stays alive as long as one process is inside it, and because those programs lost
their network with the emulation.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from celltcp.emulate import netns, registry
from celltcp.emulate.errors import EmulationError

__all__ = [
    "CleanupReport",
    "cleanup_stale",
    "remove_namespace",
    "stop_processes",
    "stop_recorded_programs",
]

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
    #: Names of the celltcp patterns with a dead owner that no registry file names, as
    #: ``namespace NAME``, ``files /etc/netns/NAME`` or ``device NAME``; removed only when
    #: forced (then also listed in namespaces/devices).
    unregistered: list[str] = field(default_factory=list)
    #: True when the unregistered names were removed.
    forced: bool = False

    @property
    def removed_anything(self) -> bool:
        return bool(self.namespaces or self.devices or self.registrations or self.processes)


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


def stop_recorded_programs(
    emulation: int, directory: Path = registry.RUN_DIR, grace_s: float = GRACE_S
) -> list[int]:
    """Stops the programs ``celltcp shell`` recorded for emulation ``emulation`` that still run
    (pid *and* start time: a reused pid is left alone) and removes their records; returns the
    pids signalled."""
    entries = registry.load_programs(emulation, directory)
    running = [e.pid for e in entries if e.alive()]
    stopped = stop_processes(running, grace_s)
    for e in entries:
        registry.remove_program(emulation, e.pid, directory)
    return stopped


def _remove_registered(
    reg: registry.Registration,
    report: CleanupReport,
    present: set[str],
    links: set[str],
    directory: Path,
) -> None:
    report.processes += stop_recorded_programs(reg.pid, directory)
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


def cleanup_stale(
    directory: Path = registry.RUN_DIR,
    *,
    force: bool = False,
    confirm: Callable[[list[str]], bool] | None = None,
) -> CleanupReport:
    """Removes what dead emulations left behind, as the registry recorded it (see the module's
    description). Names of the celltcp patterns that no registry file names are listed in
    :attr:`CleanupReport.unregistered` and removed only when ``force`` is true or
    ``confirm(names)`` returns true."""
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
    # Program records whose emulation's file is gone (removed by hand, or unreadable).
    for pid in registry.program_dirs(directory):
        if pid not in live and registry.process_start_time(pid) is None:
            report.processes += stop_recorded_programs(pid, directory)
            registry.remove(pid, directory)

    def orphaned(pid: int) -> bool:
        if pid in live:
            return False
        if registry.process_start_time(pid) is not None:
            if pid not in report.kept:
                report.kept.append(pid)
            return False
        return True

    namespaces = [
        name
        for name in sorted(present | set(netns.list_etc()))
        if (parsed := netns.parse_namespace_name(name)) and orphaned(parsed[0])
    ]
    devices = [
        name
        for name in sorted(links)
        if (device := netns.parse_device_name(name)) and orphaned(device[0])
    ]
    report.unregistered = [
        f"namespace {n}" if n in present else f"files {netns.ETC_NETNS / n}" for n in namespaces
    ] + [f"device {d}" for d in devices]
    if not report.unregistered:
        return report
    report.forced = force or (confirm is not None and confirm(list(report.unregistered)))
    if not report.forced:
        return report
    for name in namespaces:
        try:
            if name in present:
                report.processes += remove_namespace(name)
                report.namespaces.append(name)
            else:
                netns.remove_etc(name)
        except (EmulationError, OSError) as e:
            report.errors.append(str(e))
    for name in devices:
        try:
            netns.delete_link(name)
            report.devices.append(name)
        except EmulationError as e:
            report.errors.append(str(e))
    return report
