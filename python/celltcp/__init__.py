"""celltcp: a fast, deterministic packet-level simulator of TCP over cellular networks.

>>> import celltcp
>>> result = celltcp.run(celltcp.examples.path("wired-chain"), seed=1)  # doctest: +SKIP
>>> result.flows[["goodput_bps", "delay_mean_s"]]                # doctest: +SKIP

The simulator itself is compiled (``celltcp._core``, private); this package is its public API:
:class:`Scenario`, :func:`run`, :class:`RunResult` and the two exceptions. The analytic models
live in ``celltcp.models``, sweeps in ``celltcp.sweep`` (callable: ``celltcp.sweep(FILE)``
runs a sweep file) and the scenario library shipped with the package in ``celltcp.examples``,
each imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from celltcp import _core
from celltcp.errors import ScenarioError, SimulationError

if TYPE_CHECKING:
    from celltcp.result import RunResult
    from celltcp.runner import run
    from celltcp.scenario import Scenario

__version__: str = _core.__version__

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "run",
    "sweep",
]

#: Submodules imported on first attribute access, so ``import celltcp`` stays light.
_LAZY_SUBMODULES = frozenset({"examples", "models", "sweep"})
#: Names of the public API imported on first access, with their module: ``RunResult`` needs
#: pandas and pyarrow, which cost most of a second to import and which ``celltcp --version``,
#: ``--help`` or ``validate`` never use.
_LAZY_NAMES = {
    "RunResult": "celltcp.result",
    "run": "celltcp.runner",
    "Scenario": "celltcp.scenario",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_SUBMODULES | set(_LAZY_NAMES))
