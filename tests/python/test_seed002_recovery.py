"""Seed 002, validation 1: recovery time after a handover without buffer transfer against
``celltcp.models.handover_recovery_time_s`` (docs/seed-002.md has the full grid)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import tomllib

import celltcp
from celltcp.models import handover_recovery_rounds_s
from celltcp.reproduce.registry import Options, ReproductionError
from celltcp.reproduce.seed002 import (
    PACKET_BYTES,
    QUICK,
    RATES_BPS,
    RECOVERY,
    RECOVERY_FRACTION,
    RTTS_S,
    RecoveryCell,
    recovery_cells,
    study_of,
    wire_delay_s,
)
from celltcp.study import run
from conftest import EXAMPLES

SCENARIO = EXAMPLES / "002" / "handover-link.toml"


def _table(tmp_path, cells, phases=1):
    plan = replace(QUICK, cells=tuple(cells), recovery_phases=phases)
    results = run(
        study_of(plan, [RECOVERY]), Options(quick=True, workers=2, store=tmp_path / "runs")
    )
    rows = results.derived("recovery runs")
    assert len(rows) == len(cells) * phases
    # The first RTO retransmission comes after the interruption: it is not lost, so the
    # timer's backoff never enters the ramp.
    assert (rows["first_rto_s"] > rows["attach_s"]).all()
    return results.derived("recovery table")


def test_example_file_has_the_testbed_rtt():
    # The file's wire delay is the one that makes the base RTT 50 ms at 10 Mb/s.
    doc = tomllib.loads(SCENARIO.read_text())
    assert doc["links"]["wire"]["delay"] == f"{wire_delay_s(10e6, 0.05) * 1e3:.3f}ms"


@pytest.mark.parametrize(("rate", "rtt"), [(1e6, 0.1), (10e6, 0.05), (100e6, 0.01)])
def test_measured_base_rtt_is_the_nominal_one(rate, rtt):
    # One segment in flight, acknowledged at once: every RTT sample of the data (not of the
    # handshake's small segments) is the base RTT the wire delay was computed for.
    result = celltcp.run(
        SCENARIO,
        set={
            "links.access.rate": f"{rate / 1e6:g}Mbps",
            "links.wire.delay": f"{round(wire_delay_s(rate, rtt) * 1e9)}ns",
            "flows.bulk.tcp.delayed_ack": False,
            "flows.bulk.tcp.rcv_buf": "1448B",
            "events": "[]",
            "simulation.duration": "2s",
            "trace.tcp": "['rtt']",
        },
    )
    tcp = result.series["tcp"]
    samples = tcp[(tcp["var"] == "rtt") & (tcp["time_s"] > 1.0)]["value"]
    assert len(samples) > 5
    assert samples.min() == pytest.approx(rtt, rel=1e-6)
    assert samples.max() == pytest.approx(rtt, rel=1e-6)


def test_impossible_rtt_is_an_error():
    with pytest.raises(ReproductionError, match="shorter than the path's fixed part"):
        wire_delay_s(1e6, 0.010)


def test_grid_skips_only_bdps_below_four_segments():
    cells, skipped = recovery_cells(RATES_BPS, RTTS_S, [("best", False)])
    assert skipped == [(1e6, 0.010)]  # 0.83 segments
    assert len(cells) == len(RATES_BPS) * len(RTTS_S) - 1
    assert all(c.bdp_segments >= 4 for c in cells)


def test_cells_force_the_window_at_the_handover():
    best = RecoveryCell(10e6, 0.05, "best", False)
    worst = RecoveryCell(10e6, 0.05, "worst", True)
    assert (best.window_segments, worst.window_segments) == (83, 42)  # 2·BDP and BDP
    o = worst.overrides(0)
    assert o["flows.bulk.tcp.rcv_buf"] == f"{42 * 1448}B"
    assert o["links.access.queue"]["limit"] == "52p"  # the whole window fits
    assert o["flows.bulk.tcp.abc"] == 0 and o["flows.bulk.tcp.delayed_ack"] == "40ms"
    # The interruption outlasts one RTT (the sender times out) but not the RTO.
    assert 0.05 < worst.interruption_s < 1.0


def test_worst_case_ramp_is_within_20_percent_of_the_model(tmp_path):
    cells = [
        RecoveryCell(10e6, 0.05, "worst", False),
        RecoveryCell(5e6, 0.1, "worst", False),
        RecoveryCell(5e6, 0.1, "worst", True),
    ]
    table = _table(tmp_path, cells)
    assert (table["timeouts"] == table["runs"]).all()
    for _, row in table.iterrows():
        assert row["ratio"] == pytest.approx(1.0, abs=0.2), row.to_dict()
        assert row["cwnd_ratio"] == pytest.approx(1.0, abs=0.2), row.to_dict()


def test_best_case_ramp_time_is_within_20_percent_of_the_model(tmp_path):
    cells = [
        RecoveryCell(10e6, 0.05, "best", False),
        RecoveryCell(10e6, 0.05, "best", True),
        RecoveryCell(100e6, 0.01, "best", True),
    ]
    table = _table(tmp_path, cells)
    assert (table["timeouts"] == table["runs"]).all()
    # ramp_time runs from the retransmission's arrival to the start of the first goodput window
    # at 90 %, so it tracks the sender's window (within one RTT) and both follow the model.
    lag_rtts = (table["ramp_s"] - table["cwnd_ramp_s"]).abs() / table["rtt_s"]
    assert (lag_rtts <= 1.0).all(), lag_rtts
    for _, row in table.iloc[:2].iterrows():
        assert row["ratio"] == pytest.approx(1.0, abs=0.2), row.to_dict()
        assert row["cwnd_ratio"] == pytest.approx(1.0, abs=0.2), row.to_dict()
    # At 10 ms with delayed ACKs the 40 ms timer (4 RTTs) stalls the lone segment after the
    # timeout and the odd segment of each small flight: the sender's own window is slower than
    # the model's fluid slow start, and ramp_time with it. The miss is the model's.
    timer_bound = table.iloc[2]
    assert timer_bound["cwnd_ratio"] > 1.2 and timer_bound["ratio"] > 1.2


def test_full_grid(tmp_path):
    cells, _ = recovery_cells(
        RATES_BPS, RTTS_S, [("best", False), ("best", True), ("worst", False), ("worst", True)]
    )
    table = _table(tmp_path, cells)
    assert len(table) == 44 and (table["timeouts"] == table["runs"]).all()
    # Goodput is back at 90 % for the analytics' hold time in every cell with a BDP of 40
    # segments or more. Below, with delayed ACKs at 10 ms, the 40 ms timer (4 RTTs) stalls an
    # 8-segment window often enough that a run may never hold 90 % over 100 ms of 11 ms windows.
    big = table[table["bdp_segments"] >= 40]
    assert (big["recovered"] == big["runs"]).all()
    # The 84 s case of the seed (to 90 %: 68.1 s) agrees within 2 %.
    slow = table[
        (table["rate_bps"] == 100e6)
        & (table["rtt_s"] == 0.1)
        & (table["case"] == "worst")
        & table["delayed_ack"]
    ].iloc[0]
    assert slow["model_s"] == pytest.approx(68.1, abs=0.1)
    assert slow["ratio"] == pytest.approx(1.0, abs=0.02)
    # The model holds by ramp_time wherever the ramp has rounds to speak of (BDP ≥ 40 segments),
    # best and worst case, unless the 40 ms delayed-ACK timer is 4 RTTs long.
    timer_bound = table["delayed_ack"] & (table["rtt_s"] < 0.05)
    fluid = table[(table["bdp_segments"] >= 40) & ~timer_bound]
    assert len(fluid) == 22
    assert ((fluid["ratio"] - 1).abs() <= 0.2).all(), fluid[["rate_bps", "rtt_s", "ratio"]]
    # The sender's window follows the model within 20 % there too.
    assert ((fluid["cwnd_ratio"] - 1).abs() <= 0.2).all(), fluid[["rate_bps", "cwnd_ratio"]]
    # The worst case, hundreds of RTTs of congestion avoidance, holds even with the timer.
    long = table[(table["case"] == "worst") & (table["bdp_segments"] >= 40)]
    assert ((long["ratio"] - 1).abs() <= 0.2).all(), long[["rate_bps", "rtt_s", "ratio"]]
    # In the best case ramp_time is within one RTT of the sender's window with a BDP ≥ 40: the
    # receiver-side measure adds neither the averaging window nor the one-way trip.
    best = table[(table["case"] == "best") & (table["bdp_segments"] >= 40)]
    lag_rtts = (best["ramp_s"] - best["cwnd_ramp_s"]).abs() / best["rtt_s"]
    assert (lag_rtts <= 1.0).all(), lag_rtts
    # The one best-case cell outside ±20 % of the fluid model with a BDP ≥ 40 is timer-bound,
    # and so is its window: 100 Mb/s, 10 ms, delayed ACKs.
    fluid_out = best[(best["ratio"] - 1).abs() > 0.2]
    assert len(fluid_out) == 1 and timer_bound[fluid_out.index].all()
    assert (fluid_out["cwnd_ratio"] > 1.2).all()
    # Against whole rounds with ssthresh from the flight, the sender's window is on time in
    # every cell, and ramp_time within ±20 % everywhere but in four best-case cells with a BDP
    # below 10 segments, where one segment of alignment is as much as the 90 % threshold's
    # tolerance within the averaging window (docs/seed-002.md).
    assert ((table["cwnd_rounds_ratio"] - 1).abs() <= 0.01).all(), table["cwnd_rounds_ratio"]
    out = table[(table["rounds_ratio"] - 1).abs() > 0.2]
    assert sorted(zip(out["rate_bps"], out["rtt_s"], out["delayed_ack"])) == [
        (1e6, 0.05, True),
        (1e6, 0.1, True),
        (5e6, 0.01, False),
        (5e6, 0.01, True),
    ]
    assert (out["case"] == "best").all() and (out["bdp_segments"] < 10).all()
    assert table["cwnd_ramp_s"].notna().all()


def test_small_bdp_ramp_is_within_20_percent_of_the_round_model(tmp_path):
    # Three cells outside ±20 % of the fluid model (1.22, 1.24 and 2.08 ×): BDPs of 21 and 4
    # segments, where slow start is a few whole rounds and, with delayed ACKs, the 40 ms timer
    # stalls the lone retransmission. Stepped ACK by ACK, the model follows them.
    cells = [
        RecoveryCell(5e6, 0.05, "best", False),
        RecoveryCell(5e6, 0.05, "worst", True),
        RecoveryCell(5e6, 0.01, "worst", True),
    ]
    table = _table(tmp_path, cells)
    assert (table["timeouts"] == table["runs"]).all()
    assert ((table["ratio"] - 1).abs() > 0.2).all()  # the fluid model misses all three
    for _, row in table.iterrows():
        assert row["rounds_ratio"] == pytest.approx(1.0, abs=0.2), row.to_dict()
        # The sender's window is where the model puts it, to the ACK.
        assert row["cwnd_rounds_ratio"] == pytest.approx(1.0, abs=0.01), row.to_dict()
    # In the best case the sender's window reaches 90 % of the BDP on the model's ACK.
    best = table.iloc[0]
    assert best["cwnd_ramp_s"] == pytest.approx(
        handover_recovery_rounds_s(
            5e6,
            0.05,
            PACKET_BYTES,
            case="best",
            delayed_ack=False,
            target_fraction=RECOVERY_FRACTION,
        ),
        rel=0.01,
    )
