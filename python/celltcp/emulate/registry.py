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

Programs started in an emulation's namespaces by ``celltcp shell`` are recorded next to it, one
file per program under ``<pid>.programs/`` (the emulation's pid), written by ``celltcp shell``
before it turns into the program (the program keeps the pid and the start time)::

    {"format": 1, "pid": 4343, "start_time": 123999, "host": "ue",
     "namespace": "celltcp-4242-ue", "argv": ["sleep", "60"], "created": "..."}

so that the emulation's teardown and ``celltcp emulate --cleanup`` stop exactly those programs
— even one whose namespace was deleted by hand and lives on unnamed, where ``ip netns pids``
cannot find it.
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
    "RUN_DIR",
    "HostEntry",
    "ProgramEntry",
    "Registration",
    "load_all",
    "load_programs",
    "pid_alive",
    "process_start_time",
    "program_dirs",
    "record_program",
    "remove",
    "remove_program",
    "running_for",
    "write",
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


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _write_json(target: Path, data: Mapping[str, Any]) -> None:
    """Writes ``data`` atomically: a temporary file renamed into place, so a reader never sees
    half a file."""
    tmp = target.with_name(f".{target.name}.partial")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)


def write(reg: Registration, directory: Path = RUN_DIR) -> Path:
    """Writes (or replaces) the registration atomically."""
    try:
        directory.mkdir(mode=0o755, parents=True, exist_ok=True)
        target = _file(directory, reg.pid)
        if not reg.created:
            reg.created = _now()
        _write_json(target, reg.to_json())
    except OSError as e:
        raise RegistryError(
            f"cannot write the emulation registry in {directory}: {e.strerror or e}"
        ) from None
    reg.path = target
    return target


def remove(pid: int, directory: Path = RUN_DIR) -> None:
    """Removes the registration of ``pid`` and its program records (absent is not an error)."""
    _file(directory, pid).unlink(missing_ok=True)
    _file(directory, pid).with_name(f".{pid}.json.partial").unlink(missing_ok=True)
    programs = _programs_dir(directory, pid)
    if programs.is_dir() and not programs.is_symlink():
        for path in programs.iterdir():
            path.unlink(missing_ok=True)
        try:
            programs.rmdir()
        except OSError:
            pass  # a program recorded itself meanwhile: the next clean-up removes it


@dataclass(frozen=True)
class ProgramEntry:
    """A program started by ``celltcp shell`` in a namespace of emulation ``emulation``."""

    pid: int
    start_time: int | None
    host: str
    namespace: str
    argv: tuple[str, ...] = ()
    created: str = ""

    def alive(self) -> bool:
        """True while this very program runs (pid and start time)."""
        return pid_alive(self.pid, self.start_time)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": _FORMAT,
            "pid": self.pid,
            "start_time": self.start_time,
            "host": self.host,
            "namespace": self.namespace,
            "argv": list(self.argv),
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProgramEntry:
        """Parses a program record; raises ValueError (or KeyError, TypeError) when it is not
        one."""
        if data.get("format") != _FORMAT:
            raise ValueError(f"unknown program record format {data.get('format')!r}")
        start = data.get("start_time")
        return cls(
            pid=int(data["pid"]),
            start_time=None if start is None else int(start),
            host=str(data["host"]),
            namespace=str(data["namespace"]),
            argv=tuple(str(a) for a in data.get("argv", [])),
            created=str(data.get("created", "")),
        )


def _programs_dir(directory: Path, emulation: int) -> Path:
    return directory / f"{emulation}.programs"


def record_program(emulation: int, entry: ProgramEntry, directory: Path = RUN_DIR) -> Path:
    """Records ``entry`` as a program of emulation ``emulation`` (atomically)."""
    folder = _programs_dir(directory, emulation)
    try:
        folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        target = folder / f"{entry.pid}.json"
        data = entry.to_json()
        data["created"] = entry.created or _now()
        _write_json(target, data)
    except OSError as e:
        raise RegistryError(
            f"cannot record the program in the emulation registry {folder}: {e.strerror or e}"
        ) from None
    return target


def load_programs(emulation: int, directory: Path = RUN_DIR) -> list[ProgramEntry]:
    """The programs recorded for emulation ``emulation`` (unreadable records are skipped: a
    record is written atomically, so only a hand-edited one can be unreadable)."""
    folder = _programs_dir(directory, emulation)
    entries = []
    try:
        files = sorted(folder.glob("*.json"))
    except OSError:
        return []
    for path in files:
        try:
            entries.append(ProgramEntry.from_json(json.loads(path.read_text("utf-8"))))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return entries


def remove_program(emulation: int, pid: int, directory: Path = RUN_DIR) -> None:
    """Removes one program record (absent is not an error)."""
    (_programs_dir(directory, emulation) / f"{pid}.json").unlink(missing_ok=True)


def program_dirs(directory: Path = RUN_DIR) -> list[int]:
    """Pids of the emulations that have program records, with or without a registration."""
    try:
        names = [p.name for p in directory.glob("*.programs") if p.is_dir()]
    except OSError:
        return []
    return sorted(int(n.split(".")[0]) for n in names if n.split(".")[0].isdigit())


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
