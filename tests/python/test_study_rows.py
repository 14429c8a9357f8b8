"""The engine's constructs for claims on rows that are not runs, on synthetic data
(docs/studies.md): a test over a derived frame's rows (one per handover of runs that make
several), ``Equal`` (TOST with an absolute margin, for a reference of 0), ``IfRun`` (a claim
whose runs only one mode makes) and a claim worded from the results. Each test comes out
reproduced, not significant or contradicted as the data say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from celltcp.reproduce.registry import Options
from celltcp.reproduce.verdict import Verdict, equivalence
from celltcp.study import (
    Claim,
    Claims,
    Derived,
    Equal,
    IfRun,
    Replications,
    Results,
    Runs,
    Scenario,
    ShareAbove,
    Study,
    Sweep,
    Welch,
    document,
)

SWEEP = Sweep("trains", Scenario("wired-chain-tcp"), {}, (), Replications(1, 1, "synthetic"))


def _handovers(per_run: list[list[str]]) -> pd.DataFrame:
    """One row per handover of each run (several per run): its index and outcome."""
    return pd.DataFrame(
        [
            {
                "run": r,
                "index": k,
                "last": k == len(outcomes) - 1,
                "handovers": 1,
                "timeout": int(o == "timeout"),
                "halving": int(o == "halving"),
            }
            for r, outcomes in enumerate(per_run)
            for k, o in enumerate(outcomes)
        ]
    )


def _results(frame: pd.DataFrame, runs: pd.DataFrame | None = None, **more: Derived) -> Results:
    study = Study(
        "rows",
        "Rows",
        "Per handover?",
        (SWEEP,),
        (),
        derived=(Derived("handovers", lambda _r: frame), *more.values()),
    )
    frames = {"trains": runs if runs is not None else pd.DataFrame({"run": [0], "point": [0]})}
    return Results(study, True, frames)


def test_a_test_reads_the_rows_of_a_derived_frame_selected_by_its_columns():
    # Three handovers per run: the later ones time out, the first recovers fast.
    frame = _handovers([["halving", "timeout", "timeout"]] * 8)
    later = ShareAbove("timeout", "halving", "handovers", Runs("handovers", {"last": True}))
    first = ShareAbove("timeout", "halving", "handovers", Runs("handovers", {"index": 0}))
    results = _results(frame)
    assert later.evaluate(results).decision.verdict is Verdict.REPRODUCED
    assert first.evaluate(results).decision.verdict is Verdict.CONTRADICTED
    # Two rows of one run are two trials: 8 last handovers, not 24 rows.
    assert "of 8" in later.evaluate(results).detail
    # A name that is neither a sweep nor a derived frame is refused with the name.
    with pytest.raises(KeyError, match="no sweep or derived frame 'nothing'"):
        results.rows(Runs("nothing"))


def test_a_derived_frame_column_without_a_declared_metric_is_printed_as_it_is():
    frame = pd.DataFrame(
        {"group": ["a"] * 5 + ["b"] * 5, "time_s": [2.0, 2.1, 1.9, 2.05, 1.95] * 2}
    )
    frame.loc[frame["group"] == "b", "time_s"] -= 1.0
    test = Welch(
        "time_s", Runs("handovers", {"group": "a"}), Runs("handovers", {"group": "b"}), ">"
    )
    e = test.evaluate(_results(frame))
    assert e.decision.verdict is Verdict.REPRODUCED
    assert e.detail == "a 2; b 1"


@pytest.mark.parametrize(
    ("values", "verdict"),
    [
        ([0.01, -0.02, 0.0, 0.015, -0.01, 0.005], Verdict.REPRODUCED),
        ([0.3, 0.32, 0.29, 0.31, 0.3, 0.28], Verdict.CONTRADICTED),
        ([0.02, -0.06, 0.09, -0.03, 0.07], Verdict.NOT_SIGNIFICANT),
    ],
)
def test_equal_is_tost_around_a_reference_of_zero_with_an_absolute_margin(values, verdict):
    frame = pd.DataFrame({"diff": values})
    e = Equal("diff", Runs("handovers"), 0.0, 0.05).evaluate(_results(frame))
    assert e.decision.verdict is verdict
    assert e.decision == equivalence(np.array(values), 0.0, 0.05)
    assert e.estimate is not None and e.estimate.value == pytest.approx(np.mean(values))
    with pytest.raises(ValueError, match="margin must be > 0"):
        Equal("diff", Runs("handovers"), 0.0, 0.0)


def test_if_run_reports_a_claim_without_its_runs_as_not_run():
    frame = pd.DataFrame({"case": ["best"] * 4, "t": [1.0, 1.02, 0.98, 1.01]})
    runs = Runs("handovers", {"case": "worst"})
    claim = IfRun(Equal("t", runs, 1.0, 0.1), runs, "equivalence test (TOST)", "full mode only")
    e = claim.evaluate(_results(frame))
    assert e.decision.verdict is Verdict.NOT_SIGNIFICANT and e.estimate is None
    assert e.decision.test.kind == "equivalence test (TOST)"
    assert e.decision.test.note == "full mode only"
    # With its runs, the test decides: here the worst case is far from 1.
    worst = pd.concat([frame, pd.DataFrame({"case": ["worst"] * 4, "t": [3.0, 3.1, 2.9, 3.05]})])
    assert claim.evaluate(_results(worst)).decision.verdict is Verdict.CONTRADICTED


def test_a_claim_may_be_worded_from_the_results():
    frame = _handovers([["timeout", "timeout"]] * 6)
    claim = Claim(
        "later",
        "§3",
        lambda r: f"{len(r.derived('handovers'))} handovers: the later ones time out",
        ShareAbove("timeout", "halving", "handovers", Runs("handovers", {"last": True})),
    )
    results = _results(frame)
    study = Study(
        "rows", "Rows", "?", (SWEEP,), (claim,), derived=results.study.derived, report=(Claims(),)
    )
    (row,) = document(study, Results(study, True, results.frames), Options(quick=True)).claims
    assert row.claim == "12 handovers: the later ones time out"
    # 6 timeouts against no fast recovery: the exact binomial p = 2⁻⁶ < 0.05.
    assert row.decision.verdict is Verdict.REPRODUCED
