"""Claims on how often an event happens in one set of runs: :class:`RateBelow` (an event the
source never saw: "no spurious retransmission", "no overrun") and :class:`ShareAbove` (one
outcome more frequent than another among the same runs: "TCP times out, never recovers fast").

Both are thin declarations over :mod:`celltcp.reproduce.verdict`, like the tests of
:mod:`celltcp.study.declaration`: a share is the sum of a metric of events over the sum of a
metric of trials (one handover per run: both per run, the trials metric 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from celltcp.reproduce.verdict import (
    ZERO_TOLERANCE,
    Estimate,
    Proportion,
    decide,
    exact_interval,
    rate_below,
    share_test,
)
from celltcp.study.declaration import Evaluation, Runs

if TYPE_CHECKING:
    from celltcp.study.engine import Results

__all__ = ["RateBelow", "ShareAbove"]


def _sum(results: Results, metric: str, runs: Runs) -> int:
    return int(results.values(metric, runs).sum())


@dataclass(frozen=True)
class RateBelow:
    """The rate of ``events`` per ``trials`` over ``runs`` below ``tolerance``: a claim that an
    event does not happen, by the exact binomial test against the tolerance
    (:func:`celltcp.reproduce.verdict.rate_below`; with none seen it needs 72 trials at 0.05).
    The estimate is the rate with its Wilson interval; the detail gives the exact
    (Clopper–Pearson) interval the verdict is read from."""

    events: str
    trials: str
    runs: Runs
    tolerance: float = ZERO_TOLERANCE

    def __post_init__(self) -> None:
        if not 0.0 < self.tolerance < 1.0:
            raise ValueError(f"RateBelow: the tolerance must be in (0, 1) (got {self.tolerance})")

    def evaluate(self, results: Results) -> Evaluation:
        a = Proportion(_sum(results, self.events, self.runs), _sum(results, self.trials, self.runs))
        low, high = exact_interval(a.k, a.n)
        interval = "n/a" if a.n == 0 else f"[{low:.3f}, {high:.3f}]"
        return Evaluation(
            rate_below(a, self.tolerance),
            Estimate.of_proportion(a),
            f"{self.runs.name()} {a.k}/{a.n} (exact 95 % interval {interval})",
        )


@dataclass(frozen=True)
class ShareAbove:
    """Among ``runs``, the outcome counted by ``a`` more (``">"``) or less (``"<"``) frequent
    than the one counted by ``b`` (each run in at most one of the two): the exact binomial test
    of a's count given the runs in either class
    (:func:`celltcp.reproduce.verdict.share_test`), power for ``effect``. The estimate is a's
    share of the ``trials``."""

    a: str
    b: str
    trials: str
    runs: Runs
    relation: Literal[">", "<"] = ">"
    effect: float | None = None

    def evaluate(self, results: Results) -> Evaluation:
        k_a, k_b = _sum(results, self.a, self.runs), _sum(results, self.b, self.runs)
        n = _sum(results, self.trials, self.runs)
        return Evaluation(
            decide(share_test(k_a, k_b, n, self.effect), self.relation),
            Estimate.of_proportion(Proportion(k_a, n)),
            f"{self.runs.name()}: {self.a} {k_a}, {self.b} {k_b} of {n}",
        )
