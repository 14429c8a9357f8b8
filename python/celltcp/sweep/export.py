"""``celltcp export STORE --parquet DIR``: a results store as plain Parquet files, for tools that
read Parquet but not DuckDB (pandas, polars, Arrow, Spark, R's arrow, DuckDB itself).

Layout of ``DIR`` (written atomically: it appears whole or not at all):

* ``runs.parquet``: one row per stored run, in the order of the points that wrote them —
  ``key``, ``run``, ``point``, ``seed``, ``status``, ``error``, ``events``, ``wall_s``, each
  parameter as written (``links.access.rate``: ``"20Mbps"``) followed, when it is a quantity
  with a unit, by its value in the SI base unit (``links.access.rate [bit/s]``: ``2e7``), then
  each metric (concrete dotted path), then ``summary`` (the run's summary.json text);
* ``parameter_values.parquet``: the store's ``parameter_values`` table (key, run, name, unit,
  value), the long form of the numeric parameter columns;
* ``scenarios.parquet``: ``key``, ``celltcp_version``, ``scenario`` (the resolved scenario as
  JSON text);
* ``series/<key>/<run>/<name>.parquet``: the kept series of the stored runs, copied.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

__all__ = ["ExportReport", "export_parquet"]


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    runs: int
    scenarios: int
    parameter_values: int
    series_files: int


def export_parquet(
    store_dir: str | os.PathLike[str], out: str | os.PathLike[str], *, overwrite: bool = False
) -> ExportReport:
    """Writes the store in ``store_dir`` as Parquet files into the directory ``out``, under the
    rules of :mod:`celltcp.output` (a directory celltcp did not write is replaced only with
    ``overwrite``).

    Raises ScenarioError (key ``store``) when ``store_dir`` is not a readable store;
    OutputDirError when ``out`` is refused; OSError when it cannot be written.
    """
    from celltcp.output import atomic_output_dir
    from celltcp.sweep.runner import collect_store
    from celltcp.sweep.store import SERIES_DIR, Store

    with Store.open(store_dir, read_only=True) as store:
        frame = collect_store(store)
        tables = store.tables()
        kept = store.kept_series()
        paths = [store.series_path(k, r, n) for k, r, n in kept]

    metrics = list(frame.attrs.get("metrics", []))
    front = [c for c in frame.columns if c not in ("run", "status", "error", "key", *metrics)]
    runs = frame.merge(tables["runs"], on=["key", "run"], how="left", validate="one_to_one")
    columns = [
        "key",
        "run",
        "point",
        "seed",
        "status",
        "error",
        "events",
        "wall_s",
        *front,
        *metrics,
        "summary",
    ]
    runs = runs[columns]
    with atomic_output_dir(out, overwrite=overwrite, writer="celltcp export") as tmp:
        runs.to_parquet(tmp / "runs.parquet", index=False)
        tables["parameter_values"].to_parquet(tmp / "parameter_values.parquet", index=False)
        tables["scenarios"].to_parquet(tmp / "scenarios.parquet", index=False)
        for (key, run, name), source in zip(kept, paths, strict=True):
            target = tmp / SERIES_DIR / key / str(run)
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / f"{name}.parquet")
    return ExportReport(
        runs=len(runs),
        scenarios=len(tables["scenarios"]),
        parameter_values=len(tables["parameter_values"]),
        series_files=len(kept),
    )
