"""Plain-text tables of sweep statistics for the terminal (``celltcp sweep``, ``celltcp stats``)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from celltcp.report import format_metric, format_table
from celltcp.sweep.stats import outcomes, summarize

__all__ = ["stats_json", "stats_text"]

#: Characters of a scenario key shown in tables (the full key is in the store).
_KEY_CHARS = 8


def _number(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, (int,)) and not isinstance(x, bool):
        return str(x)
    return f"{float(x):.6g}"


def _cell(column: str, value: Any) -> str:
    if column == "key" and isinstance(value, str):
        return value[:_KEY_CHARS]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return str(value)


def _labels(table: pd.DataFrame) -> list[str]:
    """The columns that name the grid point (those before ``metric``)."""
    columns = list(table.columns)
    return columns[: columns.index("metric")]


def stats_text(frame: pd.DataFrame, confidence: float = 0.95) -> str:
    """The numeric and categorical statistics of a sweep's frame as text tables."""
    level = f"{confidence * 100:g}%"
    blocks = []
    numeric = summarize(frame, confidence=confidence)
    if len(numeric):
        labels = _labels(numeric)
        header = [
            *labels,
            "metric",
            "n",
            "failed",
            "mean",
            "std",
            f"{level} CI low",
            f"{level} CI high",
        ]
        rows = [
            [
                *(_cell(c, r[c]) for c in labels),
                r["metric"],
                _number(int(r["n"])),
                _number(int(r["failed"])),
                *(format_metric(r["metric"], r[c]) for c in ("mean", "std", "ci_low", "ci_high")),
            ]
            for _, r in numeric.iterrows()
        ]
        blocks.append(
            f"means with Student-t {level} confidence intervals\n" + format_table(header, rows)
        )
    categorical = outcomes(frame, confidence=confidence)
    if len(categorical):
        labels = _labels(categorical)
        header = [*labels, "metric", "outcome", "k/n", "p", f"{level} CI low", f"{level} CI high"]
        rows = [
            [
                *(_cell(c, r[c]) for c in labels),
                r["metric"],
                str(r["outcome"]),
                f"{int(r['k'])}/{int(r['n'])}",
                _number(r["p"]),
                _number(r["ci_low"]),
                _number(r["ci_high"]),
            ]
            for _, r in categorical.iterrows()
        ]
        blocks.append(
            f"outcome probabilities with Wilson {level} score intervals\n"
            + format_table(header, rows)
        )
    if not blocks:
        return "no metrics to summarise"
    return "\n\n".join(blocks)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return _plain(value.item())
    return value


def stats_json(frame: pd.DataFrame, confidence: float = 0.95) -> dict[str, Any]:
    """The same statistics as plain data: ``{"confidence", "metrics", "outcomes"}``."""

    def records(table: pd.DataFrame) -> list[dict[str, Any]]:
        return [{k: _plain(v) for k, v in row.items()} for row in table.to_dict("records")]

    return {
        "confidence": confidence,
        "metrics": records(summarize(frame, confidence=confidence)),
        "outcomes": records(outcomes(frame, confidence=confidence)),
    }
