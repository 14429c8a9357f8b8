"""The local backend: a pool of worker processes on this machine.

Processes, not threads, are the unit: the simulation releases the GIL, but decoding summaries
and encoding Parquet do not. Workers are started with the ``forkserver`` method where the
platform has it (a server process imports celltcp once and forks each worker from that state, so
a worker starts in milliseconds and inherits nothing of the parent's threads or open store) and
with ``spawn`` elsewhere. As with any ``spawn``-style start, a script that runs a sweep at import
time must guard it with ``if __name__ == "__main__":``.

At most ``2 × workers`` tasks are queued at once, so a sweep of a million runs holds only a few
tasks in memory and Ctrl-C stops it promptly.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from celltcp.sweep.backend import WorkerLost
from celltcp.sweep.worker import Outcome, Task, execute

__all__ = ["LocalBackend", "start_context"]

#: Imported once by the fork server, before it forks any worker.
_PRELOAD = ["celltcp.sweep.worker", "celltcp.result", "pyarrow.parquet"]


def start_context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (with celltcp preloaded) where available, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


class LocalBackend:
    """Runs tasks on ``workers`` local processes."""

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, tasks: Sequence[Task], on_outcome: Callable[[Outcome], None]) -> None:
        if not tasks:
            return
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(tasks)), mp_context=start_context()
        )
        queued = iter(tasks)
        in_flight: set[Future[Outcome]] = set()
        limit = 2 * self.workers
        received = 0
        try:
            for task in queued:
                in_flight.add(pool.submit(execute, task))
                if len(in_flight) >= limit:
                    break
            while in_flight:
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                lost = 0
                for future in done:
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        lost += 1
                        continue
                    on_outcome(outcome)
                    received += 1
                if lost:
                    cause = "killed, or out of memory"
                    if not received:
                        # Workers that die before any result often could not start at all.
                        cause += (
                            "; a script that starts a sweep must guard it with "
                            "if __name__ == '__main__':"
                        )
                    raise WorkerLost(
                        f"a worker process died ({cause}); "
                        f"{lost + len(in_flight)} runs in progress were lost"
                    )
                for task in queued:
                    in_flight.add(pool.submit(execute, task))
                    if len(in_flight) >= limit:
                        break
        except BaseException:
            # Queued tasks are cancelled; those already running finish in their worker and are
            # discarded (the store records only what was handed over).
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def close(self) -> None:
        """Nothing to release: each :meth:`run` owns its pool."""
