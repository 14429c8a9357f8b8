"""Programs run inside the namespaces for the length of an emulation (``--exec HOST=CMD``).

As with Mahimahi's shells, the emulation serves the programs: it ends once every program has
exited (or earlier, at the end of the duration or on a stop signal, in which case the programs
still running are stopped: SIGTERM, then SIGKILL after a grace period). Each command is run by
``/bin/sh -c`` inside its host's namespace, so it may use the shell's syntax and the variables
of :meth:`EmulationSession.environment` (``$CELLTCP_ADDR_SERVER`` …).
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from celltcp.emulate import cleanup
from celltcp.emulate.errors import EmulationError
from celltcp.emulate.session import EmulationSession

__all__ = ["ExecSpec", "ProgramResult", "Programs", "parse_exec"]

#: Seconds between SIGTERM and SIGKILL when the emulation ends before a program.
GRACE_S = 2.0


@dataclass(frozen=True)
class ExecSpec:
    """``--exec HOST=CMD``: a shell command to run in ``host``'s namespace."""

    host: str
    command: str


def parse_exec(text: str) -> ExecSpec:
    """Parses ``HOST=CMD`` (split at the first ``=``); raises EmulationError when malformed."""
    host, sep, command = text.partition("=")
    host, command = host.strip(), command.strip()
    if not sep or not host or not command:
        raise EmulationError(
            f"--exec {text!r}: expected HOST=COMMAND, e.g. --exec ue='curl http://$CELLTCP_ADDR_SERVER/'"
        )
    return ExecSpec(host, command)


@dataclass
class ProgramResult:
    """How one program ended.

    ``exit_code``: its exit status, or None when a signal ended it (``signal`` names it).
    ``stopped``: True when the emulation ended first and stopped it. ``wall_s``: seconds it ran.
    """

    host: str
    command: str
    pid: int
    exit_code: int | None
    signal: str | None
    stopped: bool
    wall_s: float

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def describe(self) -> str:
        if self.exit_code is not None:
            how = f"exit status {self.exit_code}"
        else:
            how = f"killed by {self.signal}"
        if self.stopped:
            how += " (stopped at the end of the emulation)"
        return f"{self.host}: {self.command!r}: {how} after {self.wall_s:.2f} s"

    def to_json(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "command": self.command,
            "pid": self.pid,
            "exit_code": self.exit_code,
            "signal": self.signal,
            "stopped": self.stopped,
            "wall_s": self.wall_s,
        }


class Programs:
    """The ``--exec`` programs of one emulation: started together, watched by a thread that
    requests the emulation's stop once all have exited, and finished by :meth:`finish`."""

    def __init__(self, session: EmulationSession, specs: Iterable[ExecSpec]):
        self.session = session
        self.specs = list(specs)
        self._procs: list[tuple[ExecSpec, subprocess.Popen[Any], float]] = []
        self._ended: dict[int, float] = {}
        self._watcher: threading.Thread | None = None
        #: True once every program exited by itself.
        self.all_exited = threading.Event()

    def start(self) -> None:
        """Starts every program; with none, nothing is watched and the emulation runs on."""
        for spec in self.specs:
            proc = self.session.spawn(spec.host, ["/bin/sh", "-c", spec.command])
            self._procs.append((spec, proc, time.monotonic()))
        if self._procs:
            self._watcher = threading.Thread(target=self._watch, name="celltcp-exec", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        for _, proc, _ in self._procs:
            proc.wait()
            self._ended.setdefault(proc.pid, time.monotonic())
        self.all_exited.set()
        self.session.request_stop()

    def finish(self) -> list[ProgramResult]:
        """Stops the programs still running and returns how each ended, in ``--exec`` order."""
        running = [proc for _, proc, _ in self._procs if proc.poll() is None]
        stopped = {proc.pid for proc in running}
        cleanup.stop_processes([proc.pid for proc in running], grace_s=GRACE_S)
        results = []
        for spec, proc, started in self._procs:
            try:
                code = proc.wait(timeout=GRACE_S + 1.0)
            except subprocess.TimeoutExpired:
                code = None
            ended = self._ended.setdefault(proc.pid, time.monotonic())
            signame = None
            if code is not None and code < 0:
                signame = signal.Signals(-code).name
            results.append(
                ProgramResult(
                    host=spec.host,
                    command=spec.command,
                    pid=proc.pid,
                    exit_code=code if code is not None and code >= 0 else None,
                    signal=signame if code is not None else "SIGKILL (not reaped)",
                    stopped=proc.pid in stopped,
                    wall_s=ended - started,
                )
            )
        return results
