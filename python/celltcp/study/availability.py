"""A claim on runs that only one mode makes: :class:`IfRun`.

Some points are too long for the quick mode (a recovery of 68 s, say) but the claim on them
stays in the report: not significant, for the reason that its runs were not made, with the
kind of the test that would decide it. :meth:`celltcp.study.Claim.when` leaves such a claim
out instead; :class:`IfRun` keeps it in the claims table and in ``claims.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from celltcp.reproduce.verdict import unavailable
from celltcp.study.declaration import Evaluation, Runs, Test

if TYPE_CHECKING:
    from celltcp.study.engine import Results

__all__ = ["IfRun"]


@dataclass(frozen=True)
class IfRun:
    """``test`` when ``runs`` holds at least one run; otherwise not significant, the test
    named ``kind`` (its family, "equivalence test (TOST)") not made for the reason ``note``
    (:func:`celltcp.reproduce.verdict.unavailable`), without an estimate."""

    test: Test
    runs: Runs
    kind: str
    note: str

    def evaluate(self, results: Results) -> Evaluation:
        if len(results.rows(self.runs)) == 0:
            return Evaluation(unavailable(self.kind, self.note), None)
        return self.test.evaluate(results)
