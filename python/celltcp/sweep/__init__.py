"""Parameter sweeps with replications, a results store and statistics.

>>> import celltcp
>>> sweep_file = celltcp.examples.path("sweeps/access-rate")                 # doctest: +SKIP
>>> runs = celltcp.sweep(sweep_file, store="out/rates")                      # doctest: +SKIP
>>> celltcp.sweep.summarize(runs)                                            # doctest: +SKIP

``celltcp.sweep`` is this module, and calling it runs a sweep (:func:`sweep`); its other names
are reached as attributes (``celltcp.sweep.summarize``, ``celltcp.sweep.Store``). The format
of sweep files is in ``docs/sweeps.md`` and :mod:`celltcp.sweep.spec`.
"""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any

from celltcp.sweep.backend import WorkerLost
from celltcp.sweep.metrics import DEFAULT_METRICS
from celltcp.sweep.runner import SweepReport, collect, execute_sweep, sweep
from celltcp.sweep.spec import (
    Point,
    ResolvedPoint,
    SweepSpec,
    expand_points,
    load_spec,
    resolve_points,
    scenario_key,
)
from celltcp.sweep.stats import mean_interval, outcomes, summarize, t_quantile, wilson_interval
from celltcp.sweep.store import Store

__all__ = [
    "DEFAULT_METRICS",
    "Point",
    "ResolvedPoint",
    "Store",
    "SweepReport",
    "SweepSpec",
    "WorkerLost",
    "collect",
    "execute_sweep",
    "expand_points",
    "load_spec",
    "mean_interval",
    "outcomes",
    "resolve_points",
    "scenario_key",
    "summarize",
    "sweep",
    "t_quantile",
    "wilson_interval",
]


class _SweepModule(types.ModuleType):
    """This module, made callable: ``celltcp.sweep(...)`` is :func:`sweep`. A module attribute
    and a function cannot share the name ``celltcp.sweep`` otherwise, because importing a
    submodule (``celltcp.sweep.stats``) rebinds the package attribute to the module."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return sweep(*args, **kwargs)


# help(), IPython's tooltips and inspect.signature(celltcp.sweep) show sweep's own parameters
# and documentation, not (*args, **kwargs).
_signature = inspect.signature(sweep)
_SweepModule.__call__.__signature__ = _signature.replace(  # type: ignore[attr-defined]
    parameters=[
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY),
        *_signature.parameters.values(),
    ]
)
_SweepModule.__call__.__doc__ = sweep.__doc__
sys.modules[__name__].__class__ = _SweepModule
