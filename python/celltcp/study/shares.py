"""Claims on how often an event happens in one set of runs: :class:`RateBelow` (an event the
source never saw: "no spurious retransmission", "no overrun"), :class:`ShareAgainst` (a share
above or below a stated proportion: "always avoids the timeout", read as at most 5 %) and
:class:`ShareAbove` (one outcome more frequent than another among the same runs: "TCP times
out, never recovers fast").

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
    binomial_test,
    decide,
    exact_interval,
    rate_below,
    share_test,
)
from celltcp.study.declaration import Evaluation, Runs

if TYPE_CHECKING:
    from celltcp.study.engine import Results

__all__ = ["RateBelow", "ShareAbove", "ShareAgainst"]


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
class ShareAgainst:
    """The share of ``events`` per ``trials`` over ``runs`` ``relation`` the proportion
    ``reference``: the exact binomial test against it
    (:func:`celltcp.reproduce.verdict.binomial_test`), power for a true share ``effect`` away
    (default :data:`celltcp.reproduce.verdict.DEFAULT_PROPORTION_EFFECT`). Unlike
    :class:`RateBelow`, whose equal tails read the verdict off the exact interval, this is the
    test of a claim stated as a share on either side of a number. The estimate is the share with
    its Wilson interval."""

    events: str
    trials: str
    runs: Runs
    reference: float
    relation: Literal[">", "<"]
    effect: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.reference <= 1.0:
            raise ValueError(
                f"ShareAgainst: the reference must be a proportion in [0, 1] (got {self.reference})"
            )

    def evaluate(self, results: Results) -> Evaluation:
        a = Proportion(_sum(results, self.events, self.runs), _sum(results, self.trials, self.runs))
        return Evaluation(
            decide(binomial_test(a, self.reference, self.effect), self.relation),
            Estimate.of_proportion(a),
            f"{self.runs.name()} {a.k}/{a.n} against {self.reference:g}",
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
