"""Claims on how often an event happens in one set of runs (celltcp.study.RateBelow,
ShareAgainst and ShareAbove, docs/studies.md), on synthetic runs: each comes out reproduced, not significant or
contradicted as the counts say, and its decision is the verdict module's on the summed
counts."""

from __future__ import annotations

import pandas as pd
import pytest

from celltcp.reproduce.registry import Options  # noqa: F401  (celltcp.reproduce first)
from celltcp.reproduce.verdict import (
    Proportion,
    Verdict,
    binomial_test,
    decide,
    rate_below,
    share_test,
)
from celltcp.study import (
    RateBelow,
    Replications,
    Results,
    Runs,
    Scenario,
    ShareAbove,
    ShareAgainst,
    Study,
    Sweep,
)

SWEEP = Sweep("h", Scenario("wired-chain-tcp"), {}, (), Replications(1, 1, "synthetic"))
STUDY = Study("shares", "Shares", "How often?", (SWEEP,), ())
ALL = Runs("h")


def _runs(outcomes: list[str], policy: str = "forward") -> pd.DataFrame:
    """One handover per run with the outcome given: event columns of 0/1, trials 1."""
    return pd.DataFrame(
        [
            {
                "point": i,
                "run": 0,
                "policy": policy,
                "handovers": 1,
                "timeout": int(o == "timeout"),
                "halving": int(o == "halving"),
            }
            for i, o in enumerate(outcomes)
        ]
    )


def _results(frame: pd.DataFrame) -> Results:
    return Results(STUDY, True, {"h": frame})


def test_rate_below_needs_enough_runs_without_the_event():
    never = RateBelow("timeout", "handovers", ALL)
    assert never.evaluate(_results(_runs(["none"] * 72))).decision.verdict is Verdict.REPRODUCED
    # 71 runs without one: the exact interval's upper end is still above 0.05.
    few = never.evaluate(_results(_runs(["none"] * 71)))
    assert few.decision.verdict is Verdict.NOT_SIGNIFICANT
    assert few.decision.test.n_for_power == 72
    often = never.evaluate(_results(_runs(["timeout"] * 10 + ["none"] * 30)))
    assert often.decision.verdict is Verdict.CONTRADICTED
    assert "10/40" in often.detail and "exact 95 % interval [0.127, 0.412]" in often.detail


def test_rate_below_sums_over_the_runs_it_names():
    frame = pd.concat(
        [_runs(["timeout"] * 5 + ["none"] * 15, "discard"), _runs(["none"] * 80, "forward")],
        ignore_index=True,
    )
    claim = RateBelow("timeout", "handovers", Runs("h", {"policy": "forward"}), tolerance=0.1)
    e = claim.evaluate(_results(frame))
    assert e.decision == rate_below(Proportion(0, 80), 0.1)
    assert e.estimate is not None and e.estimate.n == 80
    with pytest.raises(ValueError, match="tolerance"):
        RateBelow("timeout", "handovers", ALL, tolerance=0.0)


def test_share_above_compares_two_outcomes_of_the_same_runs():
    more = ShareAbove("timeout", "halving", "handovers", ALL)
    runs = ["timeout"] * 12 + ["halving"] * 1 + ["none"] * 3
    e = more.evaluate(_results(_runs(runs)))
    assert e.decision.verdict is Verdict.REPRODUCED
    assert e.decision == decide(share_test(12, 1, 16), ">")
    assert e.estimate is not None and e.estimate.value == pytest.approx(12 / 16)
    assert "timeout 12, halving 1 of 16" in e.detail
    against = more.evaluate(_results(_runs(["halving"] * 12 + ["timeout"])))
    assert against.decision.verdict is Verdict.CONTRADICTED
    even = more.evaluate(_results(_runs(["halving", "timeout"] * 4)))
    assert even.decision.verdict is Verdict.NOT_SIGNIFICANT
    fewer = ShareAbove("timeout", "halving", "handovers", ALL, "<")
    assert fewer.evaluate(_results(_runs(runs))).decision.verdict is Verdict.CONTRADICTED


def test_share_against_a_stated_proportion():
    """ "Always avoids the timeout", read as at most 5 %: the exact binomial test of the share
    against 0.05, either side, on the runs it names."""
    below = ShareAgainst("timeout", "handovers", Runs("h", {"policy": "forward"}), 0.05, "<")
    frame = pd.concat(
        [_runs(["timeout"] * 20, "discard"), _runs(["none"] * 100, "forward")], ignore_index=True
    )
    e = below.evaluate(_results(frame))
    assert e.decision.verdict is Verdict.REPRODUCED
    assert e.decision == decide(binomial_test(Proportion(0, 100), 0.05), "<")
    assert e.decision.test.kind == "exact binomial test against 0.05"
    assert e.estimate is not None and e.estimate.n == 100 and "0/100 against 0.05" in e.detail
    often = below.evaluate(_results(_runs(["timeout"] * 20 + ["none"] * 80)))
    assert often.decision.verdict is Verdict.CONTRADICTED
    # 1 in 10: neither side of 0.05 can be told.
    one = below.evaluate(_results(_runs(["timeout"] + ["none"] * 9)))
    assert one.decision.verdict is Verdict.NOT_SIGNIFICANT
    above = ShareAgainst("timeout", "handovers", ALL, 0.05, ">")
    assert above.evaluate(_results(_runs(["timeout"] * 20 + ["none"] * 80))).decision.verdict is (
        Verdict.REPRODUCED
    )
    with pytest.raises(ValueError, match="reference"):
        ShareAgainst("timeout", "handovers", ALL, 1.5, "<")
