"""Seed 003 experiment 5-3: the scenario's geometry, the verdicts, and the quick reproduction."""

from __future__ import annotations

import itertools
import re

import pandas as pd
import pytest

from celltcp.cli import main
from celltcp.reproduce.seed003 import QUICK, SWEEP_5_3
from celltcp.reproduce.seed003_exp5_3 import (
    CLAIMS,
    CONTROLLERS,
    EXP_5_3,
    SEED_5_9,
    SPEEDS_KMH,
    a3_offsets,
    delay_note,
    extreme,
    results,
    trend,
)
from celltcp.reproduce.verdict import Verdict
from celltcp.study import Options, Results, Study, evaluate
from celltcp.study import run as run_study
from celltcp.study.engine import _derive_metrics

#: The reproduction's experiment 5-3 alone, with its claims.
EXP5_3_STUDY = Study("exp5-3", "Experiment 5-3", "q", (SWEEP_5_3,), CLAIMS)


def _handover(cause: str, source: str, target: str, at_s: float) -> dict:
    return {"cause": cause, "source": source, "target": target, "decision_s": at_s}


def test_a3_offsets_are_metres_past_the_border_between_source_and_target():
    # 36 km/h = 10 m/s: at 14 s the UE is at 140 m, 15 m past the enb1/enb2 border (125 m).
    runs = [_handover("a3", "enb1", "enb2", 14.0), _handover("a3", "enb2", "enb3", 38.0)]
    assert a3_offsets(runs, 36.0) == pytest.approx([15.0, 5.0])
    # Radio link failures are not A3 handovers; a jump over a cell is not "the next eNB".
    assert a3_offsets([_handover("rlf", "enb5", "enb5", 90.0)], 36.0) == []
    assert a3_offsets([_handover("a3", "enb1", "enb3", 30.0)], 36.0) is None


def _means_frame(name: str, means: dict[str, list[float]]) -> Results:
    """Experiment 5-3's rows with three runs around each mean (±1 %) of ``name``."""
    rows = [
        {"flows.bulk.cc": c, "mobility.ue.speed": f"{v}km/h", "run": run, name: m * k}
        for c, ms in means.items()
        for v, m in zip(SPEEDS_KMH, ms)
        for run, k in enumerate((0.99, 1.0, 1.01))
    ]
    return Results(EXP5_3_STUDY, True, {EXP_5_3: pd.DataFrame(rows)})


def test_trend_decision_names_the_steps_that_break_it():
    def verdict(test, name, means):
        return test.evaluate(_means_frame(name, means)).decision

    falling = {c: [4.0, 3.0, 2.0, 1.0] for c in CONTROLLERS}
    assert verdict(trend("thr"), "thr", falling).verdict is Verdict.REPRODUCED
    one_up = {**falling, "petra": [4.0, 5.0, 2.0, 1.0]}
    decision = verdict(trend("thr"), "thr", one_up)
    assert decision.verdict is Verdict.CONTRADICTED and "P 25→50 contradicted" in decision.text()
    assert verdict(trend("loss", rising=True), "loss", one_up).verdict is Verdict.CONTRADICTED
    flat = {c: [2.0] * 4 for c in CONTROLLERS}
    assert verdict(trend("thr"), "thr", flat).verdict is Verdict.NOT_SIGNIFICANT
    best = {
        "newreno": [1.0] * 4,
        "westwood-original": [2.0] * 4,
        "petra": [3.0] * 4,
        "westwood": [9.0] * 4,
    }  # Westwood+ takes no part in the seed's claims
    assert verdict(extreme("thr", "petra"), "thr", best).verdict is Verdict.REPRODUCED
    assert verdict(extreme("thr", "newreno", lowest=True), "thr", best).verdict is (
        Verdict.REPRODUCED
    )


def _frame(thr, delay, loss, handovers, runs: int = 3) -> pd.DataFrame:
    """A sweep DataFrame of ``runs`` runs per (controller, speed), each figure within ±1 % of
    the given mean."""
    rows = []
    for cc in CONTROLLERS:
        for i, v in enumerate(SPEEDS_KMH):
            for run in range(runs):
                k = 1.0 + 0.01 * (run - (runs - 1) / 2)
                rows.append(
                    {
                        "mobility.ue.speed": f"{v}km/h",
                        "flows.bulk.cc": cc,
                        "run": run,
                        "flows.bulk.throughput_bps": thr[cc][i] * 1e6 * k,
                        "flows.bulk.delay_mean_s": delay[cc][i] / 1e3 * k,
                        "flows.bulk.loss_ratio": loss[cc][i] / 100.0 * k,
                        "flows.bulk.sender.timeouts": 0,
                        "handovers.list": handovers(v),
                        "simulated_time_s": 100.0,
                    }
                )
    return pd.DataFrame(rows)


def _claims(frame: pd.DataFrame) -> dict[str, object]:
    """The claims' evaluations by their words, on a synthetic sweep."""
    found = Results(EXP5_3_STUDY, True, {EXP_5_3: frame})
    _derive_metrics(found)
    evaluations = evaluate(EXP5_3_STUDY, found)
    return {c.claim: evaluations[c.key].decision for c in CLAIMS}


def test_claims_follow_the_numbers():
    # PETRA highest throughput and lowest loss everywhere, loss rising, throughput falling:
    # every claim of the seed holds except its delays, which no path can have.
    thr = {
        "newreno": [4, 3, 2, 1],
        "westwood-original": [5, 4, 3, 2],
        "petra": [6, 5, 4, 3],
        "westwood": [9, 8, 7, 6],
    }
    loss = {
        "newreno": [2, 3, 4, 5],
        "westwood-original": [3, 4, 5, 6],
        "petra": [1, 2, 3, 4],
        "westwood": [0, 1, 1, 1],
    }
    delay = {
        "newreno": [25, 25, 25, 25],
        "westwood-original": [26, 26, 26, 26],
        "petra": [27] * 4,
        "westwood": [30] * 4,
    }

    def border(v: float) -> list[dict]:
        return [_handover("a3", "enb1", "enb2", (125.0 + 20.0) / (v / 3.6))]

    res = results(_frame(thr, delay, loss, border))
    verdicts = {claim: d.verdict for claim, d in _claims(_frame(thr, delay, loss, border)).items()}
    assert verdicts["throughput falls with speed (Mb/s at 25 → 100 km/h)"] is Verdict.REPRODUCED
    assert verdicts["PETRA has the highest throughput (every speed)"] is Verdict.REPRODUCED
    assert verdicts["loss (%) rises with speed"] is Verdict.REPRODUCED
    assert verdicts["PETRA has the lowest loss (text: in all experiments)"] is Verdict.REPRODUCED
    longest = 'PETRA has the longest delays (text: "some"; the seed\'s table: 25 and 75 km/h)'
    assert verdicts[longest] is Verdict.REPRODUCED
    assert delay_note(res).startswith("Table 5.9's delay values are **not comparable**")
    assert all(c.a3_at_borders and c.rlf_beyond_last_enb for c in res.checks)
    assert [c.offset_min_m for c in res.checks] == pytest.approx([20.0] * 4)
    # NewReno ahead at the two lower speeds: PETRA's lead is contradicted there.
    thr["newreno"] = [9, 8, 2, 1]
    highest = _claims(_frame(thr, delay, loss, border))[
        "PETRA has the highest throughput (every speed)"
    ]
    assert highest.verdict is Verdict.CONTRADICTED
    assert "25 km/h P > N contradicted" in highest.text()
    # One run per point: never reproduced.
    one = {c: d.verdict for c, d in _claims(_frame(thr, delay, loss, border, 1)).items()}
    assert set(one.values()) == {Verdict.NOT_SIGNIFICANT}


def test_the_seed_numbers_are_table_5_9():
    # Spot checks against the seed's text: PETRA at 25 km/h, TCPW at 100 km/h.
    assert SEED_5_9["petra"]["delay"][0] == 8.43 and SEED_5_9["petra"]["loss"][0] == 9.20
    tcpw = SEED_5_9["westwood-original"]
    assert tcpw["delay"][3] == 7.39 and tcpw["loss"][3] == 40.63


def test_the_scenario_hands_over_at_the_borders_and_fails_only_beyond_the_last_cell():
    """One run of each point of the quick mode (100 s each): the behaviour docs/seed-003.md and
    the scenario file describe."""
    found = run_study(EXP5_3_STUDY, Options(quick=True, workers=2))
    assert found.runs == {EXP_5_3: len(CONTROLLERS) * len(SPEEDS_KMH) * QUICK.runs_5_3}
    res = results(found.frames[EXP_5_3])
    by_speed = {c.speed_kmh: c for c in res.checks}
    # 694 m at 25 km/h: three borders crossed; the faster runs pass all four.
    assert [by_speed[v].a3 for v in SPEEDS_KMH] == [3, 4, 4, 4]
    for check in res.checks:
        assert check.a3_ordered and check.a3_at_borders, check
        # Later past the border at higher speed: a fixed delay after a fixed hysteresis point.
        assert 5.0 < check.offset_min_m <= check.offset_max_m < 40.0, check
    assert by_speed[25].offset_max_m < by_speed[100].offset_min_m
    # Coverage ends about 800 m past eNB5 (x = 1000 m): only the two faster runs get there.
    assert by_speed[25].rlf == by_speed[50].rlf == 0
    for v in (75, 100):
        assert by_speed[v].rlf > 0 and 1700.0 < by_speed[v].first_rlf_x_m < by_speed[v].end_x_m
    # Out of coverage for good: one failure, then no suitable cell to re-establish in.
    assert by_speed[75].rlf == by_speed[100].rlf == 1
    # Fig. 5.12's first claim: the further the UE drives out, the less it receives — except
    # for the original Westwood, which collapses at every speed (docs/seed-003.md).
    for cc in CONTROLLERS:
        thr = [res.figures[cc][v]["thr"].mean for v in SPEEDS_KMH]
        if cc == "westwood-original":
            loss = [res.figures[cc][v]["loss"].mean for v in SPEEDS_KMH]
            assert max(thr) < 0.5 and min(loss) > 25.0, (thr, loss)
        else:
            assert all(b < a for a, b in itertools.pairwise(thr)), (cc, thr)
        # Every delay lies above the wired path's one-way propagation (23 ms).
        assert all(res.figures[cc][v]["delay"].mean > 23.0 for v in SPEEDS_KMH)
    decisions = evaluate(EXP5_3_STUDY, found)
    assert len(decisions) == 5 and all(
        isinstance(e.decision.verdict, Verdict) for e in decisions.values()
    )


@pytest.mark.slow
def test_quick_reproduction_reports_experiment_5_3(tmp_path):
    out = tmp_path / "rep"
    assert main(["reproduce", "003", "--quick", "--out", str(out), "--workers", "2"]) == 0
    md = (out / "report.md").read_text()
    assert "celltcp/examples/003/exp5-3.toml" in md and "## Experiment 5-3" in md
    rows = [line for line in md.splitlines() if re.match(r"\| (5\.9|Fig\. 5\.12) \|", line)]
    assert len(rows) == 5
    assert all(re.search(r"\| \*\*(reproduced|not significant|contradicted)\*\*", r) for r in rows)
    assert "delay values are **not comparable**" in md
    # Table 5.9 beside celltcp's figures: 4 speeds × 4 controllers.
    detail = md.split("### Table 5.9: delay and loss")[1]
    lines = [ln for ln in detail.splitlines() if re.match(r"\| (25|50|75|100) \| ", ln)]
    assert len(lines) == 16
    assert "| 25 | PETRA | 8.43 |" in detail and "| 100 | NewReno | 3.3 |" in detail
    assert "radio link failures only beyond the last eNB** (x > 1000 m): yes" in md
    assert "| 100 | 2778 | 4 |" in md
