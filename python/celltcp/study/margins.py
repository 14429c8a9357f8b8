"""A mean equal to a reference within an absolute margin: :class:`Equal`.

:class:`~celltcp.study.Equivalent` states its margin as a share of the reference, which a
reference of 0 ("the simulated overrun probability less the model's is 0 within ±0.05") or a
margin read off a plot in the metric's own unit ("≈ 0.3 s, within ±0.1 s") cannot use. This is
the same two one-sided tests (TOST, :func:`celltcp.reproduce.verdict.equivalence`) on
[reference − margin, reference + margin] in the metric's unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from celltcp.reproduce.verdict import Estimate, Sample, equivalence
from celltcp.study.declaration import Evaluation, Runs, _mean_text

if TYPE_CHECKING:
    from celltcp.study.engine import Results

__all__ = ["Equal"]


@dataclass(frozen=True)
class Equal:
    """``mean(runs)`` equal to ``reference`` within ±``margin`` (> 0, in the metric's unit): the
    TOST of :func:`celltcp.reproduce.verdict.equivalence`; contradicted when the mean is
    significantly outside. The estimate is the runs' mean."""

    metric: str
    runs: Runs
    reference: float
    margin: float

    def __post_init__(self) -> None:
        if not self.margin > 0:
            raise ValueError(f"Equal: the margin must be > 0 (got {self.margin})")

    def evaluate(self, results: Results) -> Evaluation:
        values = Sample.of(results.values(self.metric, self.runs))
        return Evaluation(
            equivalence(values, self.reference, self.margin),
            Estimate.of_sample(values),
            _mean_text(self.metric, self.runs, results),
        )
