"""Where the runs of a sweep execute: the interface shared by the local pool and Ray.

A backend takes tasks and calls back, in the parent process, with each outcome as it arrives
(in any order); the caller alone writes to the store. Outcomes do not depend on the backend or
on the number of workers, because each run is a deterministic function of its task.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Protocol

from celltcp.errors import scenario_error
from celltcp.sweep.worker import Outcome, Task

__all__ = ["BACKENDS", "Backend", "WorkerLost", "default_workers", "make_backend"]

BACKENDS = ("local", "ray")


class WorkerLost(RuntimeError):
    """A worker process (or a Ray node) died, e.g. killed or out of memory. Runs that finished
    before are stored; running the sweep again completes the rest."""


class Backend(Protocol):
    def run(self, tasks: Sequence[Task], on_outcome: Callable[[Outcome], None]) -> None:
        """Executes every task, calling ``on_outcome`` in this process for each result.

        An exception raised by ``on_outcome`` stops the backend and propagates. Raises
        :class:`WorkerLost` when a worker dies; outcomes received before are already handed over.
        """

    def close(self) -> None:
        """Releases the workers (idempotent)."""


def default_workers() -> int:
    """The CPUs this process may run on."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        return max(os.cpu_count() or 1, 1)


def check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise scenario_error("workers", f"{workers!r} is not a number of workers (an integer >= 1)")
    return workers


def make_backend(name: str, *, workers: int, address: str | None) -> Backend:
    """Connects the named backend. Raises ScenarioError (key ``backend`` or ``address``) when it
    cannot be used: Ray missing, or its address unreachable."""
    if name == "local":
        if address is not None:
            raise scenario_error("address", "an address is only used with the ray backend")
        from celltcp.sweep.local import LocalBackend

        return LocalBackend(workers)
    if name == "ray":
        from celltcp.sweep.ray_backend import RayBackend

        return RayBackend(address=address, workers=workers)
    raise scenario_error("backend", f"{name!r} is not a backend; use one of: {', '.join(BACKENDS)}")
