"""Declarations of celltcp.study beyond one comparison of means (docs/studies.md), on synthetic
runs: held-out selection (the choice sees only the selection runs, the test only the held-out
ones, so a threshold picked for a lucky mean cannot decide its own test), the ratio of ratios, and
sweeps counted as one experiment."""

from __future__ import annotations

import pandas as pd
import pytest

from celltcp.reproduce.verdict import Verdict
from celltcp.study import (
    HeldOut,
    Metric,
    NearBest,
    RatioOfRatios,
    Replications,
    Results,
    Runs,
    Scenario,
    Split,
    Study,
    Sweep,
    Welch,
)

K = "dch.radio.rlc.max_dat"
R = "dch.radio.rate"


def _study() -> Study:
    sweep = Sweep(
        "curve",
        Scenario("001/ftp-dch"),
        {K: (1, 3, 6, "unlimited")},
        (Metric("tput", summary="dch.radio.rlc_throughput_bps"),),
        Replications(4, 4, "synthetic"),
    )
    return Study("s", "s", "q", (sweep,), ())


def _results(values: dict[object, list[float]]) -> Results:
    """One row per (MaxDAT, run) of the curve with the given throughput per run number."""
    rows = [
        {"point": i, "run": r, K: k, "tput": x}
        for i, (k, xs) in enumerate(values.items())
        for r, x in enumerate(xs)
    ]
    return Results(_study(), True, {"curve": pd.DataFrame(rows)})


def _order(v: object) -> float:
    return float("inf") if v == "unlimited" else float(str(v))


CHOOSE = NearBest("tput", Runs("curve"), K, 0.95, order=_order)


def _rise(m: object) -> Welch:
    return Welch("tput", Runs("curve", {K: m}), Runs("curve", {K: 1}), ">")


def test_the_choice_sees_only_the_selection_runs():
    # Even runs (0, 2) make MaxDAT 3 look best; the odd runs would have chosen 6.
    r = _results(
        {
            1: [50, 51, 49, 50],
            3: [100, 60, 101, 61],
            6: [80, 99, 81, 100],
            "unlimited": [70, 70, 71, 70],
        }
    )
    assert CHOOSE(Split().part(r, True)) == 3
    assert CHOOSE(Split().part(r, False)) == 6
    assert CHOOSE(Split(selection=1).part(r, True)) == 6


def test_near_best_is_the_smallest_value_above_the_lowest_within_the_share():
    r = _results({1: [100.0] * 4, 3: [96.0] * 4, 6: [99.0] * 4, "unlimited": [100.0] * 4})
    # The lowest is best, but the choice is never the lowest when the grid has others.
    assert CHOOSE(r) == 3
    r = _results({1: [100.0] * 4, 3: [50.0] * 4, 6: [60.0] * 4, "unlimited": [55.0] * 4})
    # None within 95 %: the best above the lowest.
    assert CHOOSE(r) == 6


def test_the_test_reads_only_the_held_out_runs():
    # A threshold that is high on the selection runs only: on the held-out runs it is no
    # better than MaxDAT 1, so the claim is not reproduced; selection bias would have made it.
    lucky = _results(
        {
            1: [50, 50, 51, 49],
            3: [90, 50, 91, 49],
            6: [60, 48, 61, 51],
            "unlimited": [55, 50, 56, 51],
        }
    )
    e = HeldOut(CHOOSE, _rise).evaluate(lucky)
    assert e.chosen == 3
    assert e.decision.verdict is not Verdict.REPRODUCED
    assert e.decision.test.n == (2, 2)
    real = _results(
        {
            1: [50, 51, 49, 50],
            3: [90, 91, 92, 89],
            6: [91, 90, 90, 92],
            "unlimited": [90, 91, 89, 90],
        }
    )
    assert HeldOut(CHOOSE, _rise).evaluate(real).decision.verdict is Verdict.REPRODUCED
    falls = _results({1: [90, 91, 92, 89], 3: [50, 51, 49, 50], 6: [40] * 4, "unlimited": [30] * 4})
    assert HeldOut(CHOOSE, _rise).evaluate(falls).decision.verdict is Verdict.CONTRADICTED


def test_a_split_is_checked():
    with pytest.raises(ValueError, match="every"):
        Split(every=1)
    with pytest.raises(ValueError, match="selection"):
        Split(every=2, selection=2)
    with pytest.raises(ValueError, match="share"):
        NearBest("tput", Runs("curve"), K, 1.5)


def _rates(study_gain: dict[int, tuple[list[float], list[float]]]) -> Results:
    sweep = Sweep(
        "w",
        Scenario("001/ftp-dch"),
        {R: (64, 256), "iw": (1, 4)},
        (Metric("tput", summary="dch.radio.rlc_throughput_bps"),),
        Replications(3, 3, "synthetic"),
    )
    rows = [
        {"point": 0, "run": i, R: k, "iw": iw, "tput": x}
        for k, (one, four) in study_gain.items()
        for iw, xs in ((1, one), (4, four))
        for i, x in enumerate(xs)
    ]
    return Results(Study("s", "s", "q", (sweep,), ()), True, {"w": pd.DataFrame(rows)})


def _gain(k: int) -> tuple[Runs, Runs]:
    return Runs("w", {R: k, "iw": 4}), Runs("w", {R: k, "iw": 1})


def test_a_ratio_of_ratios_is_decided_both_ways():
    test = RatioOfRatios("tput", _gain(256), _gain(64), ">")
    larger = _rates({256: ([100, 101, 99], [150, 151, 149]), 64: ([50, 51, 49], [55, 54, 56])})
    e = test.evaluate(larger)
    assert e.decision.verdict is Verdict.REPRODUCED
    assert e.estimate is not None and e.estimate.value == pytest.approx(1.5 / 1.1, rel=1e-2)
    assert "×" in e.detail
    smaller = _rates({256: ([100, 101, 99], [105, 104, 106]), 64: ([50, 51, 49], [80, 81, 79])})
    assert test.evaluate(smaller).decision.verdict is Verdict.CONTRADICTED
    same = _rates({256: ([100, 120, 80], [150, 170, 130]), 64: ([50, 60, 40], [75, 85, 65])})
    assert test.evaluate(same).decision.verdict is Verdict.NOT_SIGNIFICANT


def _counted(events: list[float], other: list[float] | None = None) -> Results:
    """One point of the curve with a metric per run (``event``) and, optionally, a second."""
    rows = [
        {"point": 0, "run": i, K: 6, "event": x, "other": (other or [0.0] * len(events))[i]}
        for i, x in enumerate(events)
    ]
    return Results(_study(), True, {"curve": pd.DataFrame(rows)})


def test_sweeps_counted_as_one_experiment():
    """The two arms of one experiment, each its own sweep (reading metrics of its own), count
    their runs under the experiment's name; a sweep without ``count_as`` under its own."""
    from celltcp.study import Options, run

    metrics = (Metric("goodput", summary="flows.bulk.goodput_bps"),)
    reps = Replications(2, 2, "smoke")
    short = {"simulation.duration": "1s"}
    lossy = {**short, "links.access.a_to_b.loss.p": 0.01}
    study = Study(
        "arms",
        "arms",
        "q",
        (
            Sweep("plain", Scenario("wired-chain-tcp", short), {}, metrics, reps, count_as="arm"),
            Sweep("lossy", Scenario("wired-chain-tcp", lossy), {}, metrics, reps, count_as="arm"),
            Sweep("alone", Scenario("wired-chain-tcp", short), {}, metrics, reps),
        ),
        (),
    )
    results = run(study, Options(quick=True, workers=1))
    assert results.runs == {"arm": 4, "alone": 2}
    assert set(results.frames) == {"plain", "lossy", "alone"}
    assert len(results.frames["lossy"]) == 2
