"""The registry of running emulations: one JSON file per emulation under ``/run/celltcp``.

An emulation writes its file *before* it creates anything, naming every namespace and device it
is about to create, and removes it last; so at any moment each celltcp namespace on the machine
is listed in the file of the emulation that made it. ``celltcp shell`` reads the files to find a
running emulation of a scenario; ``celltcp emulate --cleanup`` reads them to find the
namespaces of emulations that died without tearing down.

A process is identified by its pid *and* its start time (field 22 of ``/proc/<pid>/stat``, in
clock ticks since boot, proc(5)), so a pid reused by an unrelated process is not mistaken for a
live emulation. ``/run`` is a tmpfs on most systems, emptied at boot together with the
namespaces' mount points, which keeps the registry and the namespaces consistent across
reboots.

File format (``<pid>.json``)::

    {"format": 1, "pid": 4242, "start_time": 123456, "scenario": "/abs/path.toml",
     "hosts": {"ue": {"namespace": "celltcp-4242-ue", "device": "celltcp4242b",
                      "address": "10.0.0.4"}, ...},
     "mtu": 1500, "created": "2024-05-01T12:00:00+00:00"}
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from celltcp.emulate.errors import RegistryError

__all__ = [
    "RUN_DIR", "HostEntry", "Registration", "process_start_time", "pid_alive", "write",
    "remove", "load_all", "running_for",
]

#: Where the registry lives (a tmpfs on most systems, root-writable).
RUN_DIR = Path("/run/celltcp")
_FORMAT = 1


def process_start_time(pid: int) -> int | None:
    """Start time of process ``pid`` in clock ticks since boot, or None when it does not exist."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name (field 2) is parenthesised and may itself contain ')' or spaces: split
    # after the last ')'. The rest starts at field 3 (state), so field 22 is index 19.
    try:
        return int(stat[stat.rindex(")") + 2 :].split()[19])
    except (ValueError, IndexError):
        return None


def pid_alive(pid: int, start_time: int | None) -> bool:
    """True when process ``pid`` exists and, if ``start_time`` is known, started then."""
    now = process_start_time(pid)
    if now is None:
        return False
    return start_time is None or now == start_time


@dataclass(frozen=True)
class HostEntry:
    """One attached host: its namespace, its TUN device's name and its IPv4 address."""

    namespace: str
    device: str
    address: str


@dataclass
class Registration:
    """The registry entry of one emulation."""

    pid: int
    start_time: int | None
    scenario: str
    hosts: dict[str, HostEntry] = field(default_factory=dict)
    mtu: int = 1500
    created: str = ""
    #: The file it was read from or written to.
    path: Path | None = None

    def alive(self) -> bool:
        """True while the emulation's process runs."""
        return pid_alive(self.pid, self.start_time)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": _FORMAT,
            "pid": self.pid,
            "start_time": self.start_time,
            "scenario": self.scenario,
            "hosts": {
                name: {"namespace": h.namespace, "device": h.device, "address": h.address}
                for name, h in self.hosts.items()
            },
            "mtu": self.mtu,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: Path | None = None) -> Registration:
        """Parses a registry file's content; raises ValueError (or KeyError, TypeError) when it
        is not one."""
        if data.get("format") != _FORMAT:
            raise ValueError(f"unknown registry format {data.get('format')!r}")
        hosts = {
            str(name): HostEntry(str(h["namespace"]), str(h["device"]), str(h["address"]))
            for name, h in dict(data["hosts"]).items()
        }
        start = data.get("start_time")
        return cls(
            pid=int(data["pid"]),
            start_time=None if start is None else int(start),
            scenario=str(data["scenario"]),
            hosts=hosts,
            mtu=int(data.get("mtu", 1500)),
            created=str(data.get("created", "")),
            path=path,
        )


def _file(directory: Path, pid: int) -> Path:
    return directory / f"{pid}.json"


def write(reg: Registration, directory: Path = RUN_DIR) -> Path:
    """Writes (or replaces) the registration atomically: a temporary file renamed into place, so
    a reader never sees half a file."""
    try:
        directory.mkdir(mode=0o755, parents=True, exist_ok=True)
        target = _file(directory, reg.pid)
        tmp = target.with_name(f".{target.name}.partial")
        if not reg.created:
            reg.created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        tmp.write_text(json.dumps(reg.to_json(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, target)
    except OSError as e:
        raise RegistryError(
            f"cannot write the emulation registry in {directory}: {e.strerror or e}"
        ) from None
    reg.path = target
    return target


def remove(pid: int, directory: Path = RUN_DIR) -> None:
    """Removes the registration of ``pid`` (absent is not an error)."""
    _file(directory, pid).unlink(missing_ok=True)
    _file(directory, pid).with_name(f".{pid}.json.partial").unlink(missing_ok=True)


def load_all(directory: Path = RUN_DIR) -> tuple[list[Registration], list[Path]]:
    """Every registration in ``directory``, and the files that are not registrations (corrupt,
    or from an unknown format) — clean-up judges those by the pid in their name."""
    regs: list[Registration] = []
    unreadable: list[Path] = []
    try:
        files = sorted(directory.glob("*.json"))
    except OSError:
        return [], []
    for path in files:
        try:
            regs.append(Registration.from_json(json.loads(path.read_text("utf-8")), path))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            unreadable.append(path)
    return regs, unreadable


def running_for(scenario: str | os.PathLike[str], directory: Path = RUN_DIR) -> list[Registration]:
    """Live emulations of the scenario file ``scenario`` (compared by resolved path)."""
    wanted = os.path.realpath(scenario)
    regs, _ = load_all(directory)
    return [r for r in regs if r.scenario == wanted and r.alive()]
