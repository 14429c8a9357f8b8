"""Studies as declarations over one engine: ``celltcp study FILE``.

A study declares its scenarios (an example's name or a file, with dotted-key overrides), its
sweeps (axes by dotted key, replications per mode with the power statement behind them), the
metrics read from every run (a path into ``summary.json`` or a function of a kept series), its
claims (the source's statement and number if any, the statistic and the statistical test of
:mod:`celltcp.reproduce.verdict` that decides it, the expected relation), and its tables and
figures. The engine (:mod:`celltcp.study.engine`) runs the sweeps through :func:`celltcp.sweep`
into a results store, decides every claim and writes the report and ``claims.json`` as the
reproductions do. docs/studies.md shows how to write one.

>>> from celltcp.study import load, write
>>> study = load("celltcp.studies.lossy_link")
>>> [s.name for s in study.sweeps]
['lossy-link']
>>> write(study, "out/lossy-link", quick=True)  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import runpy
from pathlib import Path

from celltcp.reproduce.registry import Options, ReproductionError
from celltcp.study.availability import IfRun
from celltcp.study.declaration import (
    AnyOf,
    AtEvery,
    Block,
    Blocks,
    Claim,
    Claims,
    Derived,
    Equivalent,
    Evaluation,
    Figure,
    Fisher,
    Items,
    MeanAgainst,
    Metric,
    NonInferior,
    Paired,
    Ratio,
    Replications,
    Runs,
    Scenario,
    Section,
    Single,
    Study,
    Sweep,
    Table,
    Test,
    Text,
    Untestable,
    Welch,
    WithinFactor,
)
from celltcp.study.dependent import After
from celltcp.study.engine import Results, document, evaluate, parse_set, points_of, run, write
from celltcp.study.margins import Equal
from celltcp.study.ratios import RatioOfRatios
from celltcp.study.selection import Chosen, HeldOut, NearBest, Split
from celltcp.study.shares import RateBelow, ShareAbove, ShareAgainst

__all__ = [
    "After",
    "AnyOf",
    "AtEvery",
    "Block",
    "Blocks",
    "Chosen",
    "Claim",
    "Claims",
    "Derived",
    "Equal",
    "Equivalent",
    "Evaluation",
    "Figure",
    "Fisher",
    "HeldOut",
    "IfRun",
    "Items",
    "MeanAgainst",
    "Metric",
    "NearBest",
    "NonInferior",
    "Options",
    "Paired",
    "RateBelow",
    "Ratio",
    "RatioOfRatios",
    "Replications",
    "Results",
    "Runs",
    "Scenario",
    "Section",
    "ShareAbove",
    "ShareAgainst",
    "Single",
    "Split",
    "Study",
    "Sweep",
    "Table",
    "Test",
    "Text",
    "Untestable",
    "Welch",
    "WithinFactor",
    "document",
    "evaluate",
    "load",
    "parse_set",
    "points_of",
    "run",
    "write",
]


def load(source: str) -> Study:
    """The study declared by ``source``: a Python file or a module name (``celltcp.studies.
    lossy_link``) whose ``STUDY`` is a :class:`Study`. ReproductionError otherwise."""
    path = Path(source)
    if path.suffix == ".py":
        if not path.is_file():
            raise ReproductionError(f"{source}: no such study file")
        namespace = runpy.run_path(str(path))
    else:
        try:
            namespace = vars(importlib.import_module(source))
        except ImportError as e:
            raise ReproductionError(f"{source}: not a study file or module ({e})") from None
    study = namespace.get("STUDY")
    if not isinstance(study, Study):
        raise ReproductionError(f"{source}: declares no STUDY (a celltcp.study.Study)")
    return study
