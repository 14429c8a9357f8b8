"""Seed 002, the handover episodes beyond the recovery grid (docs/seed-002.md): Fig. 1's zero
throughput is the RTO; SACK is what turns the testbed's 40 ms discard from a timeout into a
fast recovery; a discard during the recovery from another lowers ssthresh again; a discard in
the initial slow start times out."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from celltcp.reproduce.registry import Options
from celltcp.reproduce.seed002 import (
    ABLATION_SWEEP,
    FIG1,
    FIG1_CELL,
    MSS_BYTES,
    QUICK,
    SLOW_START,
    TRAINS,
    slow_start_span,
    study_of,
)
from celltcp.study import run


@pytest.fixture
def measure(tmp_path):
    """Runs one sweep of the study (and the probes it needs) on a plan changed from the quick
    one by ``changes``; the results."""

    def go(sweep, **changes):
        none = {"testbed_rates": (), "sawtooth_buffers": (), "ablation_variants": ()}
        plan = replace(QUICK, **{**none, **changes})
        return run(study_of(plan, [sweep]), Options(quick=True, workers=2, store=tmp_path / "runs"))

    return go


def test_fig1_zero_throughput_is_the_rto_and_the_ramp_stays_in_slow_start(measure):
    rows = measure(FIG1, fig1_phases=1).derived("fig1").set_index("min_rto_s")
    assert (rows["outcome"] == "timeout").all() and rows["slow_start_through"].all()
    # RFC 6298's 1 s floor against Linux's 200 ms: the receiver waits for the RTO and one
    # way of the path; the seed's ≈ 300 ms needs the lower floor.
    assert 1.0 < rows.loc[1.0, "zero_s"] < 1.15
    assert 0.2 < rows.loc[0.2, "zero_s"] < 0.35
    # ssthresh = half the 2·BDP flight: the window reaches 0.9·BDP in slow start, whatever
    # the floor.
    assert rows["ssthresh_segments"].min() >= 0.9 * FIG1_CELL.bdp_segments
    assert rows.loc[1.0, "cwnd_ramp_s"] == pytest.approx(rows.loc[0.2, "cwnd_ramp_s"])


def test_sack_turns_the_40ms_discard_from_a_timeout_into_a_fast_recovery(measure):
    variants = ("the scenario", "no SACK (NewReno partial ACKs)")
    rows = measure(ABLATION_SWEEP, ablation_variants=variants, ablation_phases=3).derived(
        "ablation"
    )
    sack = rows[rows["variant"] == "the scenario"]
    newreno = rows[rows["variant"] != "the scenario"]
    assert (sack["outcome"] == "halving").all() and (sack["rto_retransmissions"] == 0).all()
    # NewReno repairs one hole per RTT and re-arms the timer on the first partial ACK only:
    # a burst of more holes than the RTO holds rounds times out.
    assert (newreno["outcome"] == "timeout").sum() >= 2
    timed_out = newreno[newreno["outcome"] == "timeout"]
    assert (timed_out["dropped"] > timed_out["fast_retransmissions"]).all()


def test_a_discard_during_the_recovery_lowers_ssthresh_and_buffer_transfer_does_not(measure):
    rows = measure(TRAINS, train_phases=1, train_handovers=2).derived("trains")
    discard = rows[rows["variant"] == "discard"].set_index("index")
    assert (discard["outcome"] == "timeout").all()
    assert discard.loc[1, "ssthresh_segments"] < discard.loc[0, "ssthresh_segments"]
    single = rows[rows["variant"] == "single"].iloc[0]
    assert discard.loc[1, "cwnd_back_s"] > single["cwnd_back_s"]
    assert (rows[rows["variant"] == "forward + extra"]["outcome"] == "none").all()


def test_a_discard_in_the_initial_slow_start_times_out_and_the_earliest_recovers_slowest(measure):
    results = measure(SLOW_START, slow_start_phases=3)
    rows, (start, end) = results.derived("slow start"), slow_start_span(results)
    assert 0 < start < end < 1.0
    assert (rows["outcome"] == "timeout").all()
    # ssthresh is half the window of the slow start at the handover.
    assert rows["ssthresh_segments"].is_monotonic_increasing
    first = rows.iloc[0]
    assert first["ssthresh_segments"] * MSS_BYTES < 0.9 * 41.7 * MSS_BYTES
    assert not first["slow_start_through"] and math.isfinite(first["cwnd_ramp_s"])
    assert first["cwnd_ramp_s"] == rows["cwnd_ramp_s"].max()
