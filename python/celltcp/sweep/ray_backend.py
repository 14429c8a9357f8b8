"""The Ray backend: the same runs as the local pool, on a Ray cluster.

Install with ``pip install 'celltcp[ray]'``. Each run is one Ray task needing one CPU; the task
returns its :class:`~celltcp.sweep.worker.Outcome` (summary and Parquet bytes) to this process,
which alone writes the store, so the cluster's nodes need celltcp installed but no shared file
system. Failed tasks are not retried by Ray (``max_retries=0``): a run that fails is a result.

Without an address, an already initialised Ray (``ray.init`` earlier in this process) is used,
or a local instance with ``workers`` CPUs is started and stopped again at the end. With an
address (``HOST:PORT`` of the head node's GCS, ``ray://HOST:PORT`` for Ray Client, or ``auto``),
the host is first probed with a plain TCP connection, because ``ray.init`` on an unreachable
address retries for minutes.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Sequence
from typing import Any

from celltcp.errors import scenario_error
from celltcp.sweep.backend import WorkerLost
from celltcp.sweep.worker import Outcome, Task, execute

__all__ = ["RayBackend", "probe_address"]

#: Seconds to wait for the TCP probe of a Ray address.
PROBE_TIMEOUT_S = 5.0


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise scenario_error(
            "backend", "the ray backend needs Ray; install it with pip install 'celltcp[ray]'"
        ) from None
    return ray


def probe_address(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Checks that ``HOST:PORT`` (optionally ``ray://HOST:PORT``) accepts TCP connections.
    ``auto`` and ``local`` are left to Ray. Raises ScenarioError (key ``address``)."""
    if address in ("auto", "local"):
        return
    target = address.split("://", 1)[1] if "://" in address else address
    host, sep, port_text = target.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise scenario_error("address", f"{address!r} is not HOST:PORT (e.g. 10.0.0.5:6379)")
    try:
        with socket.create_connection((host, int(port_text)), timeout=timeout_s):
            pass
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise scenario_error(
            "address", f"{address}: cannot reach a Ray cluster ({reason})"
        ) from None


class RayBackend:
    """Runs tasks as Ray tasks of one CPU each."""

    def __init__(self, *, address: str | None, workers: int):
        ray = _import_ray()
        self._ray = ray
        self._owns = False
        if address is None and ray.is_initialized():
            return
        if address is not None:
            probe_address(address)
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.WARNING,
        }
        if address is None:
            options["num_cpus"] = workers
        try:
            ray.init(address=address, **options)
        except Exception as e:
            key = "address" if address else "backend"
            raise scenario_error(
                key, f"cannot start Ray at {address or 'this machine'}: {' '.join(str(e).split())}"
            ) from None
        self._owns = True

    def _capacity(self) -> int:
        try:
            return max(int(self._ray.cluster_resources().get("CPU", 1)), 1)
        except Exception:
            return 1

    def run(self, tasks: Sequence[Task], on_outcome: Callable[[Outcome], None]) -> None:
        if not tasks:
            return
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=0)(execute)
        limit = 2 * self._capacity()
        queued = iter(tasks)
        in_flight: list[Any] = []
        try:
            for task in queued:
                in_flight.append(remote.remote(task))
                if len(in_flight) >= limit:
                    break
            while in_flight:
                ready, in_flight = ray.wait(in_flight, num_returns=1)
                for ref in ready:
                    try:
                        outcome = ray.get(ref)
                    except ray.exceptions.RayError as e:
                        raise WorkerLost(
                            f"a Ray worker or node failed ({type(e).__name__}); "
                            f"{len(in_flight) + 1} runs in progress were lost"
                        ) from e
                    on_outcome(outcome)
                for task in queued:
                    in_flight.append(remote.remote(task))
                    if len(in_flight) >= limit:
                        break
        except BaseException:
            for ref in in_flight:
                try:
                    ray.cancel(ref)
                except Exception:
                    pass
            raise

    def close(self) -> None:
        if self._owns:
            self._ray.shutdown()
            self._owns = False
