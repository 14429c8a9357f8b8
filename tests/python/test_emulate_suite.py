"""The validation suite (tests/python/emu_tools/suite.py, docs/validation.md): its generated
traces, its verdicts, its RTT estimator and the simulations' kernel configuration without root;
with root and TUN, the fast subset — the kernel and celltcp's TCP on the 10 Mb/s path with loss
1e-4 (Reno) and over the generated trace with outages (BBR), the two cases whose kernel runs vary
least — in under a minute."""

from __future__ import annotations

import pytest

from celltcp import _core
from emu_tools.checks import needs_root_tun
from emu_tools.suite import (
    KERNEL_TCP,
    TOLERANCE,
    TRACE_MS,
    TRACE_SEED,
    compare,
    kernel_run,
    make_trace,
    mean_ci,
    path_rtt_samples,
    rate_schedule,
    ratio_interval,
    sim_run,
    trace_mean_bps,
    verdict,
)

needs_emulate = pytest.mark.skipif(
    not hasattr(_core, "emulate"), reason="this build of celltcp._core has no emulate()"
)


# -- traces ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["markov", "fades", "outages"])
def test_a_generated_trace_is_the_same_every_time_and_loops_after_its_length(shape):
    a, b = make_trace(shape, TRACE_SEED[shape]), make_trace(shape, TRACE_SEED[shape])
    assert a == b
    assert a != make_trace(shape, TRACE_SEED[shape] + 1)
    assert a == sorted(a) and a[0] >= 1 and a[-1] == TRACE_MS


def test_the_shapes_have_their_rates_fades_and_outages():
    markov = rate_schedule("markov", TRACE_SEED["markov"])
    assert set(markov) == {16e6, 3e6}
    fades = rate_schedule("fades", TRACE_SEED["fades"])
    # Deep fades: milliseconds at a few per cent of the usual rate.
    assert sum(r < 1.5e6 for r in fades) > 200
    assert 6e6 < sum(fades) / len(fades) < 14e6
    outages = rate_schedule("outages", TRACE_SEED["outages"])
    assert set(outages) == {0.0, 10e6}
    gaps = [
        b - a
        for a, b in zip(
            make_trace("outages", TRACE_SEED["outages"]),
            make_trace("outages", TRACE_SEED["outages"])[1:],
        )
    ]
    assert max(gaps) >= 300, "an outage is a gap of at least 300 ms between opportunities"
    # A trace carries its schedule's mean rate, to within the last opportunity.
    for shape in ("markov", "fades", "outages"):
        sched = rate_schedule(shape, TRACE_SEED[shape])
        assert trace_mean_bps(make_trace(shape, TRACE_SEED[shape])) == pytest.approx(
            sum(sched) / len(sched), rel=1e-3
        )


def test_an_unknown_shape_is_refused():
    with pytest.raises(ValueError, match="unknown trace shape 'ramp'"):
        rate_schedule("ramp", 1)


# -- the simulation side's estimators and set-up -------------------------------------------------


def test_path_rtt_is_the_kernels_estimator_on_the_senders_traces():
    ms = 1_000_000
    # Four segments of 1000 bytes from offset 1 sent at 0, 1, 2, 3 ms; the second is lost and
    # resent. Cumulative ACKs: 1001 at 50 ms, 1001 again at 52 ms (covers nothing new), 4001
    # at 110 ms once the repair arrived.
    sent = [(0, 1.0), (1 * ms, 1001.0), (2 * ms, 2001.0), (3 * ms, 3001.0)]
    acks = [(50 * ms, 1001.0), (52 * ms, 1001.0), (110 * ms, 4001.0)]
    samples = path_rtt_samples(sent, [1001.0], acks, stream_end=4001.0)
    # The first: 50 ms; the resent one none (Karn); the third and fourth waited behind the
    # hole until 110 ms, and the kernel's estimator counts them so.
    assert samples == [50 * ms, 108 * ms, 107 * ms]
    assert len(path_rtt_samples(sent, [], acks, stream_end=4001.0)) == 4


def test_the_simulations_take_the_kernels_configuration(tmp_path):
    # Every key is one of celltcp's [flows.NAME.tcp] keys, with the kernel's value; the
    # simulation accepts them all.
    assert KERNEL_TCP["frto"] == "true" and KERNEL_TCP["prr"] == "true"
    assert KERNEL_TCP["min_rto"] == '"200ms"' and KERNEL_TCP["initial_window"] == "10"
    r = sim_run("cubic", "cubic", "loss1e-4", 0, tmp_path, nbytes=300_000)
    assert r["kernel_config"] and r["rtt_samples"] > 100
    # One sample per first transmission: the path estimator's mean is at least the base RTT.
    assert r["rtt_mean_s"] >= 0.050


def test_the_kernels_timeout_undo_keeps_bbr_from_resending_the_flight_after_outages(tmp_path):
    # Over the outages trace the queue holds the flight while the link is out: the timeouts are
    # spurious. With celltcp's defaults (no F-RTO, no timestamp undo) every one ends in
    # go-back-N; with the kernel's configuration (F-RTO at recurring timeouts, the timestamp
    # undo) only the probes are resent, as the kernel's 4 (docs/validation.md).
    kernel_set = sim_run("bbr", "bbr", "trace-outages", 0, tmp_path)
    defaults = sim_run("bbr", "bbr", "trace-outages", 0, tmp_path, kernel_config=False)
    assert kernel_set["retransmitted_segments"] <= 12, kernel_set
    assert defaults["retransmitted_segments"] >= 100, defaults


# -- verdicts -------------------------------------------------------------------------------------


def test_verdict_has_three_outcomes():
    bounds = TOLERANCE["goodput_bps"]
    assert verdict(0.95, 1.05, bounds) == "pass"
    assert verdict(0.60, 0.80, bounds) == "fail"
    assert verdict(1.20, 1.40, bounds) == "fail"
    assert verdict(0.80, 0.95, bounds) == "open"
    assert verdict(0.80, 1.20, bounds) == "open"


def test_mean_ci_and_ratio_interval_by_hand():
    # 1, 2, 3: mean 2, s = 1, t(2) = 4.303: half-width 4.303/√3 = 2.4843.
    m, h = mean_ci([1.0, 2.0, 3.0])
    assert (m, h) == pytest.approx((2.0, 4.303 / 3**0.5))
    assert mean_ci([5.0]) == (5.0, 0.0)
    r, lo, hi = ratio_interval([2.0, 2.0], [1.0, 1.0])
    assert (r, lo, hi) == (2.0, 2.0, 2.0)
    r, lo, hi = ratio_interval([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
    assert r == 1.0 and lo < 0.5 and hi > 2.0


def test_compare_on_synthetic_runs():
    kernel = [
        {"goodput_bps": v, "retransmitted_segments": n, "rtt_mean_s": 0.05}
        for v, n in [(9.5e6, 10), (9.6e6, 12), (9.4e6, 11)]
    ]
    close = [
        {"goodput_bps": v, "retransmitted_segments": n, "rtt_mean_s": 0.052}
        for v, n in [(9.3e6, 12), (9.4e6, 13), (9.35e6, 12)]
    ]
    assert compare(close, kernel, "goodput_bps")["verdict"] == "pass"
    assert compare(close, kernel, "retransmitted_segments")["verdict"] == "pass"
    assert compare(close, kernel, "rtt_mean_s")["verdict"] == "pass"
    many = [dict(r, retransmitted_segments=40) for r in close]
    assert compare(many, kernel, "retransmitted_segments")["verdict"] == "fail"
    # Two runs without retransmissions on either side compare equal ((0 + 1)/(0 + 1)).
    none = [dict(r, retransmitted_segments=0) for r in close]
    c = compare(none, [dict(r, retransmitted_segments=0) for r in kernel], "retransmitted_segments")
    assert c["verdict"] == "pass" and c["ratio"] == 1.0
    spread = [dict(r, goodput_bps=v) for r, v in zip(close, [6e6, 9e6, 12e6])]
    assert compare(spread, kernel, "goodput_bps")["verdict"] == "open"


# -- the fast subset, with the kernel -------------------------------------------------------------


@needs_root_tun
@needs_emulate
@pytest.mark.parametrize(
    ("case", "cc", "sim_cc", "metrics"),
    [
        # Both stacks overshoot in slow start and repair it the same way: 88–92 against 97.
        ("loss1e-4", "reno", "newreno", {"rtt", "retransmissions"}),
        # With the kernel's configuration (F-RTO at recurring timeouts, the timestamp undo) celltcp
        # no longer resends the flight that the outages only delayed (354 before; 6 now against the
        # kernel's 4 on an idle machine). The kernel's own count rises with the machine's load (20–89
        # at a load average of 9, its emulated path running late), so this case checks that
        # celltcp's does not exceed it, not a band. Its mean RTT stays out: 0.85 of the kernel's on
        # an idle machine by the same estimator, on the edge of the ±20 % band under load.
        ("trace-outages", "bbr", "bbr", {"retransmissions at most"}),
    ],
)
def test_the_fast_subset_agrees_with_the_kernel(tmp_path, case, cc, sim_cc, metrics):
    kernel = kernel_run(cc, case, 0, tmp_path)
    sims = [sim_run(sim_cc, cc, case, rep, tmp_path) for rep in range(3)]
    g = mean_ci([s["goodput_bps"] for s in sims])[0]
    assert 0.85 <= g / kernel["goodput_bps"] <= 1.15, (g, kernel)
    if "rtt" in metrics:
        rtt = mean_ci([s["rtt_mean_s"] for s in sims])[0]
        assert 0.8 <= rtt / kernel["rtt_mean_s"] <= 1.2, (rtt, kernel)
    n = mean_ci([s["retransmitted_segments"] for s in sims])[0]
    k = kernel["retransmitted_segments"]
    if "retransmissions" in metrics:
        assert 1 / 1.5 <= (n + 1) / (k + 1) <= 1.5, (n, kernel)
    if "retransmissions at most" in metrics:
        # The suite's factor of 1.5 (as count + 1) as an upper bound; a handful also agrees:
        # one probe per expiry, and the stacks' RTO formulas differ (Linux's SRTT + 200 ms,
        # celltcp's max(200 ms, SRTT + 4·RTTVAR)), so 6 against 4 is one expiry more per
        # outage, not a go-back-N of the flight.
        assert (n + 1) / (k + 1) <= 1.5 or n <= 12, (n, kernel)
