"""Seed 002, validation 2: handovers with buffer transfer. A queue enlarged by
``overrun_free_extra_buffer_bytes`` loses nothing and TCP does not react; a smaller one
overflows as often as ``buffer_overrun_probability`` says (docs/seed-002.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from celltcp.models import bdp_bytes, buffer_overrun_probability
from celltcp.reproduce.registry import Options
from celltcp.reproduce.seed002 import (
    FIG6,
    FIG6_BUFFER_BYTES,
    FIG6_RTT_S,
    OVERRUN_SAWTOOTH,
    QUICK,
    SIZED,
    study_of,
    window_quantiles,
)
from celltcp.study import run

RATE, RTT = 10e6, 0.05
BDP = round(bdp_bytes(RATE, RTT))  # 62 500 B


def _measure(store, sweep, **changes):
    """Runs one sweep of the study (and the probes it needs) on a plan changed from the quick
    one by ``changes``; the results."""
    none = {"testbed_rates": (), "sawtooth_buffers": (), "ablation_variants": ()}
    plan = replace(QUICK, **{**none, **changes})
    return run(study_of(plan, [sweep]), Options(quick=True, workers=2, store=store))


@pytest.fixture(scope="module")
def sized(tmp_path_factory):
    """The overrun-free check at 40 and 300 ms: three sawtooth windows and the peak, and the
    peak with two packets less."""
    store = tmp_path_factory.mktemp("sized") / "runs"
    return _measure(store, SIZED, sized_interruptions=(0.040, 0.300), sized_windows=3)


def test_window_quantiles_follow_the_models_time_density():
    # 10 Mb/s, 200 ms, 250 kB: sawtooth [D, 2D] with D = 166.7 segments.
    d = bdp_bytes(RATE, FIG6_RTT_S) / 1500
    ws = window_quantiles(d, 2 * d, 2000)
    assert ws == sorted(ws) and d <= ws[0] and ws[-1] <= 2 * d
    for interruption in (0.04, 0.1):
        # W* = D + B − D·T/RTT: the share of windows above it is the model's probability.
        threshold = d + d - d * interruption / FIG6_RTT_S
        share = sum(w > threshold for w in ws) / len(ws)
        model = buffer_overrun_probability(FIG6_BUFFER_BYTES, RATE, FIG6_RTT_S, interruption)
        assert share == pytest.approx(model, abs=1e-3)


def test_sized_buffer_loses_nothing_and_tcp_does_not_react(sized):
    rows = sized.derived("sized")
    assert len(rows) == 8  # three sawtooth windows and the peak, per interruption
    assert set(rows["window_segments"]) == {51, 66, 78, 83}
    assert list(rows["queue_bytes"].unique()) == [BDP + 50_000, BDP + 62_500]
    assert (rows["outcome"] == "none").all(), rows
    assert (rows["drops"] == 0).all() and (rows["rto_retransmissions"] == 0).all()


def test_two_packets_less_overflow_at_the_peak(sized):
    rows = sized.derived("short")
    assert list(rows["window_segments"]) == [83, 83]
    assert (rows["drops"] > 0).all() and (rows["outcome"] == "halving").all(), rows


def test_undersized_buffer_overruns_as_often_as_the_model_says(tmp_path):
    # The real sawtooth of a two-BDP queue, 20 handovers spread over one AIMD cycle.
    n = 20
    results = _measure(
        tmp_path / "runs",
        OVERRUN_SAWTOOTH,
        sawtooth_buffers=(2.0,),
        sawtooth_interruptions=(0.040,),
        sawtooth_phases=n,
    )
    row = results.derived("sawtooth overrun").iloc[0]
    assert row["buffer_bytes"] == 2 * BDP
    assert row["overruns"] > 0
    assert row["p_model"] == pytest.approx(0.616, abs=1e-3)
    # Midpoint sampling of a cycle whose overrun phases form one interval: error ≤ 2/n.
    assert abs(row["p_sim"] - row["p_model"]) <= 2 / n


@pytest.mark.slow
def test_sawtooth_overruns_for_several_buffers_and_interruptions(tmp_path):
    n = 40
    results = _measure(
        tmp_path / "runs",
        OVERRUN_SAWTOOTH,
        sawtooth_buffers=(1.0, 2.0, 3.0),
        sawtooth_interruptions=(0.040, 0.100, 0.300),
        sawtooth_phases=n,
    )
    rows = results.derived("sawtooth overrun")
    assert sorted(set(rows["buffer_bytes"])) == [BDP, 2 * BDP, 3 * BDP] and len(rows) == 9
    diff = (rows["p_sim"] - rows["p_model"]).abs()
    assert (diff <= 2 / n).all(), rows


@pytest.mark.slow
def test_fig6_emulated_windows_follow_the_model(tmp_path):
    n = 20
    results = _measure(
        tmp_path / "runs",
        FIG6,
        fig6_interruptions=(0.040, 0.100, 0.200),
        fig6_extras=(0.0, 0.25, 0.5, 0.75, 1.0),
        fig6_windows=n,
    )
    rows = results.derived("fig6 overrun")
    assert (rows["rtt_s"] == FIG6_RTT_S).all() and (rows["buffer_bytes"] == FIG6_BUFFER_BYTES).all()
    assert ((rows["p_sim"] - rows["p_model"]).abs() <= 2 / n).all(), rows
    assert (rows[rows["extra_bytes"] > 0].groupby("interruption_s")["p_sim"].last() == 0).all()
