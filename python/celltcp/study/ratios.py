"""A ratio of two ratios of means: "the gain is larger on faster channels".

A claim that one change helps more at one point than at another compares two ratios, (a₀/a₁)
at the first point with (b₀/b₁) at the second; with four independent sets of runs the test is
:func:`celltcp.reproduce.verdict.ratios_test` (log scale, delta-method standard error,
Welch–Satterthwaite degrees of freedom over the four samples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from celltcp.reproduce.verdict import Estimate, Sample, decide, ratios_test
from celltcp.study.declaration import Evaluation, Runs

if TYPE_CHECKING:
    from celltcp.study.engine import Results

__all__ = ["RatioOfRatios"]


@dataclass(frozen=True)
class RatioOfRatios:
    """``(mean(a₀)/mean(a₁)) / (mean(b₀)/mean(b₁)) relation 1`` for one metric over four
    independent sets of runs. The estimate is the ratio of the ratios with its delta-method
    interval; the power is for a relative change ``effect`` of it (default
    :data:`celltcp.reproduce.verdict.DEFAULT_RELATIVE_EFFECT`)."""

    metric: str
    a: tuple[Runs, Runs]
    b: tuple[Runs, Runs]
    relation: Literal[">", "<"]
    effect: float | None = None

    def samples(self, results: Results) -> tuple[tuple[Sample, Sample], tuple[Sample, Sample]]:
        """The four samples, as (a₀, a₁), (b₀, b₁)."""

        def pair(p: tuple[Runs, Runs]) -> tuple[Sample, Sample]:
            return (
                Sample.of(results.values(self.metric, p[0])),
                Sample.of(results.values(self.metric, p[1])),
            )

        return pair(self.a), pair(self.b)

    def evaluate(self, results: Results) -> Evaluation:
        a, b = self.samples(results)
        test = ratios_test(a, b, effect=self.effect)
        detail = "; ".join(
            f"{num.name()} / {den.name()} ×{Estimate.of_ratio(*s).text(2)}"
            for (num, den), s in ((self.a, a), (self.b, b))
        )
        return Evaluation(decide(test, self.relation), Estimate.of_ratios(a, b), detail)
