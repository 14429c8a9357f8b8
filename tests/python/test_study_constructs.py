"""The engine's constructs for studies with per-point claims and their own layout
(docs/studies.md): AnyOf beside AtEvery, Single on one run, parts from the mode's grid,
derived metrics and frames, claim overrides and a declared layout, explicit points, the
within-a-factor and ratio tests, claims by mode with per-point source numbers, on synthetic
results."""

from __future__ import annotations

import pandas as pd
import pytest

from celltcp.reproduce.verdict import Verdict
from celltcp.study import (
    AnyOf,
    AtEvery,
    Claim,
    Claims,
    Derived,
    Metric,
    Options,
    Ratio,
    Replications,
    Results,
    Runs,
    Scenario,
    Section,
    Single,
    Study,
    Sweep,
    Table,
    Text,
    Welch,
    WithinFactor,
    document,
    evaluate,
    points_of,
)
from celltcp.study.engine import _derive_metrics

X = "links.access.a_to_b.loss.p"


def _study(claims=(), derived=(), report=None, metrics=()):
    sweep = Sweep(
        "s",
        Scenario("wired-chain-tcp"),
        {X: (0.1, 0.2)},
        (Metric("g", summary="flows.bulk.goodput_bps"), *metrics),
        Replications(4, 4, "synthetic"),
        quick_axes={X: (0.1,)},
    )
    return Study("t", "T", "q", (sweep,), tuple(claims), derived=derived, report=report)


def _results(study, a_minus_b, quick=False):
    rows = []
    for i, x in enumerate((0.1, 0.2)):
        for run in range(4):
            rows.append({"point": i, "run": run, X: x, "g": 10.0 + run + a_minus_b(x) * (i == 1)})
    return Results(study, quick, {"s": pd.DataFrame(rows)})


def _welch(x, relation):
    return Welch("g", Runs("s", {X: 0.2}), Runs("s", {X: x}), relation)


def test_any_of_holds_at_some_point_where_at_every_does_not():
    parts = {"0.1": _welch(0.1, ">"), "0.2": _welch(0.2, ">")}  # 0.2 vs itself never holds
    r = _results(_study(), lambda x: 20.0)
    assert AnyOf(parts).evaluate(r).decision.verdict is Verdict.REPRODUCED
    assert AtEvery(parts).evaluate(r).decision.verdict is not Verdict.REPRODUCED
    # Nowhere larger: AnyOf cannot hold.
    r = _results(_study(), lambda x: -20.0)
    assert AnyOf({"0.1": _welch(0.1, ">")}).evaluate(r).decision.verdict is Verdict.CONTRADICTED


def test_parts_from_the_modes_grid_and_none_to_test():
    def parts(r):
        return {f"{x:g}": _welch(x, ">") for x in r.axis("s", X) if x < 0.2}

    found = AtEvery(parts).evaluate(_results(_study(), lambda x: 20.0))
    assert list(found.parts) == ["0.1"]
    empty = AtEvery(lambda r: {}, "nothing here").evaluate(_results(_study(), lambda x: 0.0))
    assert (
        empty.decision.verdict is Verdict.NOT_SIGNIFICANT
        and "nothing here" in empty.decision.text()
    )


def test_single_is_a_point_estimate_and_needs_one_run_each():
    r = _results(_study(), lambda x: 20.0)
    one = Runs("s", {X: 0.2, "run": 0})
    other = Runs("s", {X: 0.1, "run": 0})
    e = Single("g", one, other, ">").evaluate(r)
    assert e.decision.verdict is Verdict.NOT_SIGNIFICANT and "agrees" in e.decision.text()
    assert "disagrees" in Single("g", one, other, "<").evaluate(r).decision.text()
    with pytest.raises(ValueError, match="not one each"):
        Single("g", Runs("s", {X: 0.2}), other, ">").evaluate(r)


def test_derived_metrics_and_frames():
    m = Metric("double", derived=lambda rows, _r: rows["g"] * 2)
    loop = Derived("loop", lambda r: r.derived("loop"))
    study = _study(metrics=(m,), derived=(Derived("mean", lambda r: r.frames["s"].mean()), loop))
    r = _results(study, lambda x: 0.0)
    _derive_metrics(r)
    assert list(r.frames["s"]["double"]) == list(r.frames["s"]["g"] * 2)
    assert r.derived("mean")["g"] == pytest.approx(11.5)
    with pytest.raises(ValueError, match="needs itself"):
        r.derived("loop")
    with pytest.raises(ValueError, match="one of"):
        Metric("both", summary="a.b", derived=lambda rows, _r: rows["g"])


def test_claim_overrides_and_an_own_layout():
    claim = Claim(
        "c",
        "here",
        "0.2 above 0.1",
        AtEvery({"0.1": _welch(0.1, ">")}),
        detail=lambda e, r: "own detail " + ",".join(e.parts),
        estimate=lambda e, r: None,
    )
    layout = (
        Section("First"),
        Text(lambda r: f"{len(r.frames['s'])} runs"),
        Claims(),
        Table("", ("a",), lambda r: [("1",)]),
        Table("", ("b",), lambda r: [("2",)]),
    )
    study = _study(claims=(claim,), report=layout)
    doc = document(study, _results(study, lambda x: 20.0), None)  # type: ignore[arg-type]
    record = doc.claims_record()
    assert record["claims"][0]["ours_text"] == "own detail 0.1"
    assert record["claims"][0]["ours"] is None
    # Two tables under one heading: the second is "First (2)", as claims.json names them.
    assert list(record["tables"]) == ["First", "First (2)"]
    assert "8 runs" in doc.markdown()


def test_explicit_points_in_place_of_a_grid():
    # A set-up that depends on another axis: two readings at 0.1, one at 0.2, per mode.
    points = [{X: 0.1, "r": "a"}, {X: 0.1, "r": "b"}, {X: 0.2, "r": "a"}]
    sweep = Sweep(
        "p",
        Scenario("wired-chain-tcp"),
        {},
        (Metric("g", summary="flows.bulk.goodput_bps"),),
        Replications(1, 1, "synthetic"),
        points=points,
        quick_points=points[:1],
        quick={"simulation.duration": "1s"},
    )
    assert points_of(sweep, False) == [dict(p) for p in points]
    assert points_of(sweep, True) == [{"simulation.duration": "1s", X: 0.1, "r": "a"}]
    # The keys the points vary, with their values in order; one value only is no axis.
    assert sweep.axes_of(False) == {X: [0.1, 0.2], "r": ["a", "b"]}
    assert sweep.axes_of(True) == {}
    with pytest.raises(ValueError, match="axes or explicit points"):
        Sweep("q", Scenario("x"), {X: (0.1,)}, (), Replications(1, 1, "x"), points=points)
    study = Study("t", "T", "q", (sweep,), ())
    with pytest.raises(ValueError, match="sets it itself"):
        study.with_overrides({"r": "c"})


def test_within_factor_and_ratio_of_means():
    study = _study()
    near = _results(study, lambda x: 0.0)  # 10–13 at both points: mean 11.5
    reference = WithinFactor("g", Runs("s", {X: 0.1}), 11.0)
    assert reference.evaluate(near).decision.verdict is Verdict.REPRODUCED
    far = WithinFactor("g", Runs("s", {X: 0.1}), 40.0).evaluate(near)
    assert far.decision.verdict is Verdict.CONTRADICTED
    assert far.estimate is not None and far.estimate.value == pytest.approx(11.5)
    # The ratio of the means on the log scale: 0.2's twice 0.1's.
    double = _results(study, lambda x: 11.5)
    ratio = Ratio("g", Runs("s", {X: 0.2}), Runs("s", {X: 0.1}), ">").evaluate(double)
    assert ratio.decision.verdict is Verdict.REPRODUCED
    assert ratio.estimate is not None and ratio.estimate.value == pytest.approx(2.0)
    assert "ratio" in ratio.decision.test.kind
    assert Ratio("g", Runs("s", {X: 0.2}), Runs("s", {X: 0.1}), "<").evaluate(
        double
    ).decision.verdict is (Verdict.CONTRADICTED)


def test_claims_by_mode_and_per_point_source_numbers():
    at_every = AtEvery({"0.1": _welch(0.1, ">")})
    claims = (
        Claim(
            "points",
            "here",
            "0.2 above 0.1, two source numbers",
            at_every,
            estimate=lambda e, r: None,
            points=lambda e, r: [(11.5, 11.0), (11.5, 40.0)],
        ),
        Claim("full only", "here", "only in full mode", at_every, when=lambda r: not r.quick),
    )
    study = _study(claims=claims)
    quick = _results(study, lambda x: 20.0, quick=True)
    assert list(evaluate(study, quick)) == ["points"]
    assert list(evaluate(study, _results(study, lambda x: 20.0))) == ["points", "full only"]
    record = document(study, quick, Options(quick=True)).claims_record()
    (row,) = record["claims"]
    assert row["magnitude"].startswith("magnitude off at 1 of 2 points")
    assert row["ratios"] == pytest.approx([11.5 / 11.0, 11.5 / 40.0])


def test_a_subsection_of_an_own_layout():
    study = _study(report=(Section("Top"), Section("Below", 3), Table("", ("a",), lambda r: [])))
    md = document(study, _results(study, lambda x: 0.0), None).markdown()  # type: ignore[arg-type]
    assert "\n## Top\n" in md and "\n### Below\n" in md
