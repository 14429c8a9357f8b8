"""The local backend: a pool of worker processes on this machine.

Processes, not threads, are the unit: the simulation releases the GIL, but decoding summaries
and encoding Parquet do not. Workers are started with the ``forkserver`` method where the
platform has it (a server process imports celltcp once and forks each worker from that state, so
a worker starts in milliseconds and inherits nothing of the parent's threads or open store) and
with ``spawn`` elsewhere. As with any ``spawn``-style start, a script that runs a sweep at import
time must guard it with ``if __name__ == "__main__":``.

Each worker has a pipe of its own, which only it and the parent hold. That is what makes a
worker's death safe to detect: an outcome carries the run's series (often hundreds of kilobytes),
and a worker killed half-way through sending one leaves a partial message. On a pipe shared by
all workers (as in :class:`concurrent.futures.ProcessPoolExecutor`) the reader then waits for
the rest forever, because the surviving workers keep the pipe open; on a worker's own pipe the
read ends with end-of-file, and the sweep stops with :class:`WorkerLost`.

A worker holds at most two tasks (one running, one queued behind it, so that it never waits for
the parent between runs), so a sweep of a million runs holds only a few tasks in memory and
Ctrl-C stops it promptly.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Union

from celltcp.sweep.backend import WorkerLost
from celltcp.sweep.worker import Outcome, Task, execute

__all__ = ["LocalBackend", "start_context"]

#: Imported once by the fork server, before it forks any worker.
_PRELOAD = ["celltcp.sweep.worker", "celltcp.result", "pyarrow.parquet"]

#: Tasks a worker holds at once: the one it runs and the next.
_DEPTH = 2

#: Seconds a worker is given to exit after its pipe is closed, before it is killed.
_EXIT_GRACE_S = 5.0


def start_context() -> _Context:
    """``forkserver`` (with celltcp preloaded) where available, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def _serve(conn: Connection) -> None:
    """A worker's loop: a task in, its outcome out, until the parent closes the pipe."""
    # Ctrl-C reaches the whole process group; the parent alone decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(execute(task))


#: The two start methods a sweep uses; both create processes (BaseContext does not say so).
_Context = Union[multiprocessing.context.ForkServerContext, multiprocessing.context.SpawnContext]  # noqa: UP007 (a runtime alias)


class _Worker:
    """One worker process, its pipe, and the tasks sent to it, oldest first."""

    def __init__(self, ctx: _Context):
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_serve, args=(child,), name="celltcp-worker", daemon=True)
        self.process.start()
        # The parent must not hold the worker's end, or the worker's death would not close it.
        child.close()
        self.pending: deque[Task] = deque()

    def send(self, task: Task) -> None:
        self.conn.send(task)
        self.pending.append(task)

    def receive(self) -> Outcome:
        """The outcome of the oldest pending task; EOFError or OSError if the worker died."""
        outcome: Outcome = self.conn.recv()
        self.pending.popleft()
        return outcome

    def stop(self, kill: bool) -> None:
        self.conn.close()
        if kill:
            self.process.kill()
        self.process.join(_EXIT_GRACE_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class LocalBackend:
    """Runs tasks on ``workers`` local processes."""

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, tasks: Sequence[Task], on_outcome: Callable[[Outcome], None]) -> None:
        if not tasks:
            return
        ctx = start_context()
        queued = iter(tasks)
        remaining = len(tasks)
        pool: list[_Worker] = []
        clean = False
        try:
            for _ in range(min(self.workers, len(tasks))):
                pool.append(_Worker(ctx))  # one at a time: a failed start stops those started
            received = 0
            unsent = _fill(pool, queued, remaining, received)
            while any(w.pending for w in pool):
                busy = {w.conn: w for w in pool if w.pending}
                for conn in wait(list(busy)):
                    worker = busy[conn]  # type: ignore[index]  # wait() returns what it was given
                    try:
                        outcome = worker.receive()
                    except (EOFError, OSError):
                        raise _lost(pool, received) from None
                    on_outcome(outcome)
                    received += 1
                unsent = _fill(pool, queued, unsent, received)
            clean = True
        finally:
            # On any failure (a lost worker, Ctrl-C, an error while storing an outcome) the
            # workers are killed: what they were running is discarded, as the store records
            # only what was handed over.
            for worker in pool:
                worker.stop(kill=not clean)

    def close(self) -> None:
        """Nothing to release: each :meth:`run` owns its pool."""


def _fill(pool: list[_Worker], queued: Iterator[Task], unsent: int, received: int) -> int:
    """Sends tasks to idle workers first, then a second one to each while plenty remain (at the
    tail a second task would wait behind a run while another worker idles). Returns how many
    tasks are still unsent."""
    for depth in range(1, _DEPTH + 1):
        for worker in pool:
            if unsent == 0:
                return 0
            if len(worker.pending) < depth and (depth == 1 or unsent >= len(pool)):
                try:
                    worker.send(next(queued))
                except OSError:  # the worker died since its last outcome
                    raise _lost(pool, received) from None
                unsent -= 1
    return unsent


def _lost(pool: list[_Worker], received: int) -> WorkerLost:
    cause = "killed, or out of memory"
    if not received:
        # Workers that die before any result often could not start at all.
        cause += "; a script that starts a sweep must guard it with if __name__ == '__main__':"
    in_progress = sum(len(w.pending) for w in pool)
    return WorkerLost(f"a worker process died ({cause}); {in_progress} runs in progress were lost")
