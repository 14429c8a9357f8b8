"""Held-out selection: a parameter chosen on one part of the runs, the claim tested on the rest.

A claim of the form "there is a MaxDAT above which the throughput is at its best" names no
point until one is chosen from the data, and a point chosen for its high mean always looks
good on the runs it was chosen on (selection bias: the chosen mean is the largest of several
noisy means). :class:`HeldOut` splits the runs by run number (:class:`Split`, even and odd by
default), lets a choice (:class:`NearBest`, or any function of the results) see only the
selection runs, and evaluates the test built for the chosen value on the held-out runs only,
so that the choice does not decide the test. Every replication is an independent run of the
same point (docs/sweeps.md), so the two halves are independent samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from celltcp.study.declaration import Evaluation, Runs, Test

if TYPE_CHECKING:
    from celltcp.study.engine import Results

__all__ = ["Chosen", "HeldOut", "NearBest", "Split"]


@dataclass(frozen=True)
class Split:
    """Which replications choose and which test: run numbers ``r`` with ``r % every ==
    selection`` choose, the others are held out. The default splits even from odd runs, so
    that n replications per point leave ⌊n/2⌋ for the test."""

    every: int = 2
    selection: int = 0

    def __post_init__(self) -> None:
        if self.every < 2 or not 0 <= self.selection < self.every:
            raise ValueError(
                f"split: every must be at least 2 and selection in [0, every) "
                f"(got every={self.every}, selection={self.selection})"
            )

    def chooses(self, run: int) -> bool:
        """Whether replication ``run`` is one the choice sees."""
        return run % self.every == self.selection

    def part(self, results: Results, choosing: bool) -> Results:
        """The results restricted to the selection runs (``choosing``) or to the held-out
        ones: every sweep's rows filtered by run number, derived frames recomputed on them."""
        frames = {}
        for name, frame in results.frames.items():
            runs = frame["run"].astype(int).to_numpy()
            keep = np.array([self.chooses(int(r)) is choosing for r in runs], dtype=bool)
            frames[name] = frame[keep]
        return replace(results, frames=frames, _derived={})


@dataclass(frozen=True)
class NearBest:
    """The choice of a threshold on one axis: among the axis's values above its smallest (in
    ``order``), the smallest whose mean of ``metric`` over ``runs`` is at least ``share`` of
    the best mean of all values; failing one, the value above the smallest with the highest
    mean. Never the smallest value itself unless the grid has no other, so that a curve that
    does not rise from it fails the test built on the choice instead of comparing a value with
    itself.

    Attributes:
        metric: the metric whose means are compared.
        runs: the runs the axis's values are taken from (the other axes fixed by ``where``).
        axis: the dotted key of the axis the threshold is a value of.
        share: how close to the best mean counts as "at its best" (0.95: within 5 %).
        order: value → sort key (e.g. "unlimited" → ∞); default the value itself.
    """

    metric: str
    runs: Runs
    axis: str
    share: float = 0.95
    order: Callable[[Any], float] | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.share <= 1.0:
            raise ValueError(f"near-best choice: share must be in (0, 1] (got {self.share})")

    def means(self, results: Results) -> list[tuple[Any, float]]:
        """(axis value, mean of the metric) per value of the axis in ``runs``, in ``order``."""
        rows = results.rows(self.runs)
        key = self.order or float
        out: dict[Hashable, list[float]] = {}
        first: dict[Hashable, Any] = {}
        for value, x in zip(rows[self.axis], rows[self.metric].astype(float), strict=True):
            out.setdefault(value, []).append(float(x))
            first.setdefault(value, value)
        means = [(first[v], float(np.mean(xs))) for v, xs in out.items()]
        return sorted(means, key=lambda vm: key(vm[0]))

    def __call__(self, results: Results) -> Any:
        means = self.means(results)
        if not means:
            raise ValueError(f"near-best choice: no runs of {self.runs.name()} to choose on")
        lowest, above = means[0], means[1:]
        if not above:
            return lowest[0]
        best = max(m for _, m in means if not math.isnan(m))
        near = [v for v, m in above if m >= self.share * best]
        if near:
            return near[0]
        return max(above, key=lambda vm: vm[1])[0]


@dataclass(frozen=True)
class Chosen(Evaluation):
    """The evaluation of a :class:`HeldOut` test: the held-out test's, with the value the
    selection runs chose."""

    chosen: Any = None


@dataclass(frozen=True)
class HeldOut:
    """A test at a point chosen from the data, evaluated on runs the choice did not see.

    ``choose`` sees the selection runs of ``split`` (a :class:`NearBest`, or any function of
    the results giving a value); ``test`` builds the claim's test for the chosen value, and
    that test reads the held-out runs only. The evaluation (:class:`Chosen`) is the test's,
    with the chosen value beside for the claim's own detail."""

    choose: Callable[[Results], Any]
    test: Callable[[Any], Test]
    split: Split = Split()

    def evaluate(self, results: Results) -> Chosen:
        chosen = self.choose(self.split.part(results, True))
        e = self.test(chosen).evaluate(self.split.part(results, False))
        return Chosen(e.decision, e.estimate, e.detail, e.parts, chosen)
