"""The engine's constructs for a study whose claims read frames derived from several sweeps
(docs/studies.md, seed 000's model): a set of runs over a derived frame, the equivalence test
within an absolute margin of a model, a claim the runs cannot test, the source's text and number
computed from the results, and a scenario whose tables are replaced whole; on synthetic data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from celltcp.reproduce.registry import Options
from celltcp.reproduce.verdict import Verdict
from celltcp.study import (
    Claim,
    Derived,
    Equal,
    Equivalent,
    Metric,
    Replications,
    Results,
    Runs,
    Scenario,
    Study,
    Sweep,
    Untestable,
    Welch,
    document,
    evaluate,
)

SWEEP = Sweep(
    "s",
    Scenario("wired-chain-tcp"),
    {},
    (Metric("g", summary="flows.bulk.goodput_bps"),),
    Replications(4, 4, "synthetic"),
)


def _frame(shift: float, n: int = 8) -> pd.DataFrame:
    """Two arms of one experiment (as two sweeps would give them), side by side: ``b``'s values
    those of ``a`` plus ``shift``, and a per-run gap around ``shift``."""
    spread = np.linspace(-0.05, 0.05, n)
    return pd.DataFrame(
        [
            {
                "arm": arm,
                "run": i,
                "value": 1.0 + d + (shift if arm == "b" else 0.0),
                "gap": shift + d,
            }
            for arm in ("a", "b")
            for i, d in enumerate(spread)
        ]
    )


def _study(frame: pd.DataFrame, claims=()) -> Study:
    return Study(
        "t", "T", "q", (SWEEP,), tuple(claims), derived=(Derived("arms", lambda _r: frame),)
    )


def _results(frame: pd.DataFrame, claims=()) -> Results:
    sweep_rows = pd.DataFrame([{"point": 0, "run": r, "g": 10.0 + r} for r in range(4)])
    return Results(_study(frame, claims), True, {"s": sweep_rows})


def _arm(arm: str) -> Runs:
    return Runs("arms", {"arm": arm})


def test_a_set_of_runs_reads_a_derived_frame_as_a_sweep():
    r = _results(_frame(0.5))
    assert list(r.values("value", _arm("a"))) == pytest.approx(
        list(1.0 + np.linspace(-0.05, 0.05, 8))
    )
    more = Welch("value", _arm("b"), _arm("a"), ">", statistic="difference").evaluate(r)
    assert more.decision.verdict is Verdict.REPRODUCED
    assert more.estimate is not None and more.estimate.value == pytest.approx(0.5)
    less = Welch("value", _arm("b"), _arm("a"), "<").evaluate(r)
    assert less.decision.verdict is Verdict.CONTRADICTED
    # Equal arms: not significant.
    same = Welch("value", _arm("b"), _arm("a"), ">").evaluate(_results(_frame(0.0)))
    assert same.decision.verdict is Verdict.NOT_SIGNIFICANT
    # A sweep of that name comes first; an unknown name or column is an error naming it.
    assert list(r.values("g", Runs("s"))) == [10.0, 11.0, 12.0, 13.0]
    with pytest.raises(KeyError, match="no sweep or derived frame 'other'"):
        r.rows(Runs("other"))
    with pytest.raises(KeyError, match="'arms' has no axis or column 'colour'"):
        r.rows(Runs("arms", {"colour": "red"}))


def test_equivalence_within_an_absolute_margin():
    def verdict(shift: float) -> Verdict:
        test = Equal("gap", _arm("a"), 0.0, 0.1)
        return test.evaluate(_results(_frame(shift))).decision.verdict

    # A per-run gap from a model: at 0 within ±0.1, at 0.5 significantly outside.
    assert verdict(0.0) is Verdict.REPRODUCED
    assert verdict(0.5) is Verdict.CONTRADICTED
    assert verdict(0.09) is Verdict.NOT_SIGNIFICANT
    e = Equal("gap", _arm("a"), 0.0, 0.1).evaluate(_results(_frame(0.0)))
    assert e.decision.test.kind == "equivalence test (TOST) within ±0.1 of 0"
    # The relative form reads the margin as a share of the reference.
    rel = Equivalent("value", _arm("a"), 1.0, 0.1).evaluate(_results(_frame(0.0)))
    assert rel.decision.verdict is Verdict.REPRODUCED
    assert rel.decision.test.kind == "equivalence test (TOST) within ±0.1 of 1"


def test_an_untestable_claim_is_never_decided_and_says_why():
    claim = Claim(
        "middle",
        "Fig. 4",
        "the handover in the middle of the cycle",
        Untestable("not testable", lambda r: f"{len(r.derived('arms'))} runs at the peak"),
    )
    r = _results(_frame(0.5), (claim,))
    (e,) = evaluate(r.study, r).values()
    assert e.decision.verdict is Verdict.NOT_SIGNIFICANT and e.estimate is None
    assert e.decision.test.describe().startswith("not testable") and "16 runs at the peak" in (
        e.decision.test.describe()
    )


def test_the_source_text_and_number_may_be_computed_from_the_results():
    def model(r: Results) -> float:
        # A model read at the parameters the runs measured: here half their mean gap.
        return float(r.derived("arms")["gap"].mean()) / 2

    claim = Claim(
        "model",
        "eq. (2)",
        "the runs follow the model",
        Welch("value", _arm("b"), _arm("a"), ">", statistic="difference"),
        source_text=lambda r: f"{model(r):.2f} (the model at the runs' parameters)",
        source_value=model,
    )
    r = _results(_frame(0.5), (claim,))
    (row,) = document(r.study, r, Options(quick=True)).claims_record()["claims"]
    assert row["seed_text"] == "0.25 (the model at the runs' parameters)"
    assert row["seed"] == pytest.approx(0.25)
    # ours 0.5 against the model's 0.25: twice, off the ×1.5 magnitude.
    assert row["magnitude"].startswith("magnitude off")
    assert claim.source(r) == ("0.25 (the model at the runs' parameters)", pytest.approx(0.25))


def test_a_scenario_replaces_whole_tables_before_its_overrides():
    droptail = {"kind": "droptail", "limit": "90p"}
    scenario = Scenario(
        "000/aqm", {"epc.ecn_decap": "drop_not_ect"}, {"links.s1u_source.queue": droptail}
    )
    base = scenario.base()
    # The file's RED thresholds are gone with the table; the overrides are the points' to set.
    assert base.get("links.s1u_source.queue") == droptail
    assert base.get("links.s1u_target.queue")["kind"] == "red"
    assert base.get("epc.ecn_decap") != "drop_not_ect"
    assert Scenario("000/aqm").base().get("links.s1u_source.queue")["kind"] == "red"
    with pytest.raises(Exception, match="links.s1u_source.queue"):
        Scenario("000/aqm", tables={"links.s1u_source.queue": {"kind": "fifo"}}).base().validate()


def test_what_was_run_names_the_replaced_tables():
    sweep = Sweep(
        "aqm",
        Scenario("000/aqm", {"epc.ecn_decap": "rfc6040"}, {"links.s1u_source.queue": {}}),
        {},
        (Metric("g", summary="flows.bulk.goodput_bps"),),
        Replications(2, 2, "synthetic"),
    )
    study = Study("t", "T", "q", (sweep,), ())
    rows = pd.DataFrame([{"point": 0, "run": r, "g": 1.0 + r} for r in range(2)])
    md = document(study, Results(study, True, {"aqm": rows}), Options(quick=True)).markdown()
    assert "`000/aqm` with `links.s1u_source.queue` replaced, `epc.ecn_decap` = 'rfc6040'" in md
