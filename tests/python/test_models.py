"""Tests of celltcp.models: worked numbers, limits, the seeds' figures, monotonicity, errors.

Every expected number is computed by hand in the comment next to it. Run with
``cd /work/main && PYTHONPATH=python python3 -m pytest tests/python/test_models.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import math
import sys
from pathlib import Path

import pytest

_PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"


def _load_models():
    """``celltcp.models``; if the package cannot be imported (its ``__init__`` needs the compiled
    core, which may not be built), the models directory is loaded as a standalone package, since
    the models use only the standard library."""
    if str(_PYTHON_DIR) not in sys.path:
        sys.path.insert(0, str(_PYTHON_DIR))
    try:
        return importlib.import_module("celltcp.models")
    except ImportError:
        directory = _PYTHON_DIR / "celltcp" / "models"
        name = "_celltcp_models_standalone"
        spec = importlib.util.spec_from_file_location(
            name, directory / "__init__.py", submodule_search_locations=[str(directory)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module


m = _load_models()
approx = pytest.approx


# --------------------------------------------------------------------------------------------
# BDP, Mathis, Jain


def test_bdp_worked_numbers():
    # 10e6 b/s * 0.2 s / 8 = 250,000 bytes; / 1500 = 166.67 segments.
    assert m.bdp_bytes(10e6, 0.2) == approx(250_000.0)
    assert m.bdp_segments(10e6, 0.2, 1500) == approx(166.6667, rel=1e-6)


def test_mathis_worked_number_and_scaling():
    # 8 * 1460 B / 0.1 s * sqrt(1.5) / sqrt(0.01) = 116,800 * 1.224745 * 10 = 1,430,502 b/s.
    assert m.mathis_throughput_bps(1460, 0.1, 0.01) == approx(1_430_502.0, rel=1e-6)
    # 1/sqrt(p): four times the loss, half the rate; twice the RTT, half the rate.
    base = m.mathis_throughput_bps(1460, 0.1, 0.01)
    assert m.mathis_throughput_bps(1460, 0.1, 0.04) == approx(base / 2)
    assert m.mathis_throughput_bps(1460, 0.2, 0.01) == approx(base / 2)
    # The constant scales linearly: C = sqrt(3/4) (b = 2) gives base / sqrt(2).
    b2 = m.mathis_throughput_bps(1460, 0.1, 0.01, c=math.sqrt(0.75))
    assert b2 == approx(base / math.sqrt(2))


def test_jain_fairness_worked_numbers():
    assert m.jain_fairness([5.0, 5.0, 5.0, 5.0]) == approx(1.0)
    assert m.jain_fairness([1.0, 0.0, 0.0, 0.0]) == approx(0.25)  # one flow takes all: 1/n
    # (1+2+3)^2 / (3 * (1+4+9)) = 36/42 = 0.857143
    assert m.jain_fairness([1, 2, 3]) == approx(36 / 42)
    # Scale invariant and safe with huge rates (squares would overflow without scaling).
    assert m.jain_fairness([1e300, 2e300, 3e300]) == approx(36 / 42)
    assert m.jain_fairness(x for x in (2.0, 2.0)) == approx(1.0)


# --------------------------------------------------------------------------------------------
# PFTK


def test_pftk_helpers_worked_numbers():
    # f(0.5) = 1 + .5 + 2(.25) + 4(.125) + 8(.0625) + 16(.03125) + 32(.015625) = 4.0
    assert m.pftk_backoff_factor(0.5) == approx(4.0)
    assert m.pftk_backoff_factor(0.0) == 1.0
    # E[W_u](p=0.01, b=2) = 4/6 + sqrt(8*0.99/(6*0.01) + (4/6)^2) = 0.6667 + 11.5085 = 12.1752
    assert m.pftk_expected_window_segments(0.01, 2) == approx(12.1752, rel=1e-4)
    # Q(0.01, 12.1752) = 0.029701 * 1.085474 / 0.115175 = 0.27992
    assert m.pftk_timeout_probability(0.01, 12.1752) == approx(0.27992, rel=1e-3)
    # A window of <= 3 segments cannot yield 3 duplicate ACKs: Q = 1.
    assert m.pftk_timeout_probability(0.01, 3) == 1.0
    assert m.pftk_timeout_probability(0.01, 2.5) == 1.0
    # p -> 0: Q -> 3/w.
    assert m.pftk_timeout_probability(1e-7, 30) == approx(0.1, rel=1e-4)


def test_pftk_full_worked_number():
    # p = 0.01, b = 2, RTT = 0.1 s, T0 = 0.4 s, MSS = 1500 B; E[W] = 12.1752, Q = 0.27992,
    # f = 1.010204. Segments: 99 + 12.1752 + 0.27992/0.99 = 111.4580.
    # Seconds: 0.1 (12.1752 + 1) + 0.27992 * 0.4 * 1.010204 / 0.99 = 1.31752 + 0.11425 = 1.43177.
    # 111.4580 / 1.43177 = 77.846 segments/s * 12,000 bits = 934,150 b/s.
    assert m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4) == approx(934_150.0, rel=1e-4)


def test_pftk_full_window_limited_worked_number():
    # W_max = 8 < E[W] = 12.18: second branch. Q(0.01, 8) = 0.029701 * 1.047555 / 0.077255
    # = 0.40273. Segments: 99 + 8 + 0.40273/0.99 = 107.4068. Seconds: 0.1 (2/8*8 + 0.99/(0.08) + 2)
    # + 0.40273 * 0.4 * 1.010204 / 0.99 = 1.6375 + 0.16438 = 1.80188.
    # 107.4068 / 1.80188 = 59.608 segments/s * 12,000 = 715,300 b/s (below W_max/RTT = 80/s).
    assert m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4, w_max_segments=8) == approx(
        715_300.0, rel=1e-4
    )
    # A W_max above E[W] does not bind.
    assert m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4, w_max_segments=100) == approx(
        m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4)
    )


def test_pftk_approx_worked_number_and_cap():
    # RTT sqrt(2bp/3) = 0.1 sqrt(0.013333) = 0.0115470;
    # T0 min(1, 3 sqrt(3bp/8)) p (1 + 32p^2) = 0.4 * 0.259808 * 0.01 * 1.0032 = 0.0010426.
    # 1 / 0.0125896 = 79.431 segments/s * 12,000 = 953,170 b/s.
    assert m.pftk_approx_throughput_bps(1500, 0.1, 0.01, 0.4) == approx(953_170.0, rel=1e-5)
    # The W_max/RTT cap: 20 segments / 0.1 s * 12,000 = 2.4e6 b/s; 5 segments: 600,000 b/s.
    assert m.pftk_approx_throughput_bps(1500, 0.1, 0.01, 0.4, w_max_segments=20) == approx(
        953_170.0, rel=1e-5
    )
    assert m.pftk_approx_throughput_bps(1500, 0.1, 0.01, 0.4, w_max_segments=5) == approx(600_000.0)
    # p = 1 is allowed in the approximation: Q = 1, 1 / (0.1 sqrt(4/3) + 0.4 * 33) = 0.075107/s.
    assert m.pftk_approx_throughput_bps(1, 0.1, 1.0, 0.4) == approx(
        8 / (0.1 * math.sqrt(4 / 3) + 0.4 * 33)
    )


@pytest.mark.parametrize("p", [1e-4, 1e-6])
def test_pftk_limits_as_p_goes_to_zero(p):
    # Without timeouts mattering, full -> approximate -> Mathis with C = sqrt(3/(2b)).
    full = m.pftk_throughput_bps(1500, 0.1, p, 0.4, b=2)
    assert full / m.pftk_approx_throughput_bps(1500, 0.1, p, 0.4, b=2) == approx(1.0, abs=5e-3)
    assert full / m.mathis_throughput_bps(1500, 0.1, p, c=math.sqrt(0.75)) == approx(1.0, abs=5e-3)


def test_pftk_window_limit_as_p_goes_to_zero():
    # W_max/RTT = 10 / 0.1 s = 100 segments/s = 1.2e6 b/s at 1500 B.
    assert m.pftk_throughput_bps(1500, 0.1, 1e-7, 0.4, w_max_segments=10) == approx(1.2e6, rel=1e-4)


def test_pftk_monotonicity():
    ps = [1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.6, 0.9]
    full = [m.pftk_throughput_bps(1500, 0.1, p, 0.4) for p in ps]
    appr = [m.pftk_approx_throughput_bps(1500, 0.1, p, 0.4) for p in ps]
    assert all(a > b for a, b in itertools.pairwise(full))
    assert all(a > b for a, b in itertools.pairwise(appr))
    # Longer RTT or T0, lower throughput; larger W_max, higher (until it stops binding).
    assert m.pftk_throughput_bps(1500, 0.2, 0.01, 0.4) < m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4)
    assert m.pftk_throughput_bps(1500, 0.1, 0.05, 1.0) < m.pftk_throughput_bps(1500, 0.1, 0.05, 0.4)
    capped = [m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4, w_max_segments=w) for w in (2, 4, 8, 12)]
    assert all(a < b for a, b in itertools.pairwise(capped))


# --------------------------------------------------------------------------------------------
# Slow start and congestion avoidance


def test_growth_factors_per_rfc():
    assert m.slow_start_growth_factor() == 2.0  # ACK per segment
    assert m.slow_start_growth_factor(delayed_ack=True) == 1.5  # RFC 5681 min(N, SMSS)
    assert m.slow_start_growth_factor(delayed_ack=True, abc_limit=1) == 1.5  # RFC 3465 L = 1
    assert m.slow_start_growth_factor(delayed_ack=True, abc_limit=2) == 2.0  # RFC 3465 L = 2
    assert m.slow_start_growth_factor(delayed_ack=False, abc_limit=2) == 2.0
    assert m.congestion_avoidance_increase_segments() == 1.0
    assert m.congestion_avoidance_increase_segments(delayed_ack=True) == 0.5
    assert m.congestion_avoidance_increase_segments(delayed_ack=True, abc_limit=2) == 1.0


def test_slow_start_rounds_and_time():
    assert m.slow_start_rounds(1024) == approx(10.0)  # 1 -> 1024 doubling: log2(1024)
    assert m.slow_start_rounds(1024, initial_window=4) == approx(8.0)  # log2(256)
    # ln(1024)/ln(1.5) = 6.93147 / 0.405465 = 17.0951
    assert m.slow_start_rounds(1024, delayed_ack=True) == approx(17.0951, rel=1e-5)
    assert m.slow_start_rounds(1024, delayed_ack=True, abc_limit=2) == approx(10.0)
    assert m.slow_start_time_s(1024, 0.1) == approx(1.0)
    assert m.slow_start_time_s(1024, 0.1, delayed_ack=True) == approx(1.70951, rel=1e-5)
    assert m.slow_start_rounds(3, initial_window=4) == 0.0  # already there
    times = [m.slow_start_time_s(w, 0.05, delayed_ack=True) for w in (2, 10, 100, 1000)]
    assert all(a < b for a, b in itertools.pairwise(times))


def test_slow_start_bytes_delivered():
    # Rounds carry 1, 2, ..., 512 segments = 1023 segments before cwnd = 1024.
    assert m.slow_start_bytes_delivered(1024, 1000) == approx(1_023_000.0)
    # g = 1.5: (W - IW)/(g - 1) = 2 * 1023 segments.
    assert m.slow_start_bytes_delivered(1024, 1000, delayed_ack=True) == approx(2_046_000.0)
    # IW = 4, g = 2: 4 + 8 + ... + 512 = 1020 segments.
    assert m.slow_start_bytes_delivered(1024, 1000, initial_window=4) == approx(1_020_000.0)
    assert m.slow_start_bytes_delivered(2, 1000, initial_window=4) == 0.0


def test_congestion_avoidance_time():
    # 50 -> 100 segments at +1 per 0.1 s: 5 s; with delayed ACKs (+1/2): 10 s.
    assert m.congestion_avoidance_time_s(50, 100, 0.1) == approx(5.0)
    assert m.congestion_avoidance_time_s(50, 100, 0.1, delayed_ack=True) == approx(10.0)
    assert m.congestion_avoidance_time_s(100, 50, 0.1) == 0.0


# --------------------------------------------------------------------------------------------
# Handover recovery (seed 002)

# 100 Mbit/s * 0.1 s / (8 * 1500 B) = 833.33 segments.
_W = 100e6 * 0.1 / (8 * 1500)


def test_recovery_best_case_seed_002_below_one_second():
    # Seed: "best-case recovery time is below 1 second even at 100 Mbps and 100 ms RTT".
    # Reproduced with growth factor 2 (delayed ACK with ABC L = 2, or no delayed ACK):
    # 0.1 * log2(833.33) = 0.1 * 9.7027 = 0.970 s.
    t = m.handover_recovery_time_s(100e6, 0.1, 1500, case="best", abc_limit=2)
    assert t == approx(0.1 * math.log2(_W))
    assert t == approx(0.9703, rel=1e-4)
    assert t < 1.0
    assert m.handover_recovery_time_s(100e6, 0.1, 1500, case="best", delayed_ack=False) == approx(t)
    # Delayed ACK without ABC (g = 1.5) would not be below 1 s: 0.1 * 6.7254 / 0.40547 = 1.659 s.
    slow = m.handover_recovery_time_s(100e6, 0.1, 1500, case="best")
    assert slow == approx(1.6587, rel=1e-4)


def test_recovery_worst_case_seed_002_84_seconds():
    # Seed: worst case "84 seconds" at 100 Mbps, 100 ms, TCP with delayed ACK and no ABC.
    # Slow start to W/2: 0.1 * ln(416.67)/ln(1.5) = 0.1 * 6.03229 / 0.405465 = 1.4877 s;
    # congestion avoidance +1/2 segment per RTT over 416.67 segments: 83.333 s. Total 84.82 s,
    # 1.0 % above the seed's 84 s.
    phases = m.handover_recovery_phases(100e6, 0.1, 1500, case="worst")
    assert phases.slow_start_s == approx(1.4877, rel=1e-4)
    assert phases.congestion_avoidance_s == approx(83.3333, rel=1e-6)
    total = m.handover_recovery_time_s(100e6, 0.1, 1500, case="worst")
    assert total == approx(phases.total_s)
    assert 84.0 <= total <= 85.0
    assert total / 84.0 - 1.0 == approx(0.0098, abs=5e-4)
    # With ABC (L = 2): 0.1 * log2(416.67) + 41.667 = 0.870 + 41.667 = 42.54 s.
    abc = m.handover_recovery_time_s(100e6, 0.1, 1500, case="worst", abc_limit=2)
    assert abc == approx(42.537, rel=1e-4)


def test_recovery_monotonicity_and_cases():
    rates = [1e6, 5e6, 10e6, 100e6]
    for case in ("best", "worst"):
        times = [m.handover_recovery_time_s(r, 0.05, 1500, case=case) for r in rates]
        assert all(a < b for a, b in itertools.pairwise(times))
    for r in rates:
        best = m.handover_recovery_time_s(r, 0.1, 1500, case="best")
        worst = m.handover_recovery_time_s(r, 0.1, 1500, case="worst")
        assert best < worst
    # BDP below the loss window: nothing to recover in slow start.
    tiny = m.handover_recovery_phases(10e3, 0.01, 1500, case="best")  # 0.0083 segments
    assert tiny.total_s == 0.0


# --------------------------------------------------------------------------------------------
# Buffer overrun (seed 002, Fig. 6 setting: 10 Mbit/s, 200 ms)


def test_buffer_overrun_worked_example():
    # D = B = 166.67 segments; sawtooth [D, 2D]; tau = 0.05/0.2 = 0.25;
    # W* = B + D (1 - tau) = 1.75 D; density ∝ W: P = (4 - 3.0625) / (4 - 1) = 0.3125.
    assert m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.05) == approx(0.3125)
    # Extra buffer D/8 = 31,250 B: W* = 1.875 D, P = (4 - 3.515625) / 3 = 0.161458.
    assert m.buffer_overrun_probability(
        250e3, 10e6, 0.2, 0.05, extra_buffer_bytes=31_250
    ) == approx(0.161458, rel=1e-5)


def test_buffer_overrun_small_buffer_branch():
    # No buffer: W_max = D = 166.67, W_min = 83.33, uniform density (no queueing).
    # Extra 45,000 B = 30 segments < D * tau = 41.67: W* = 30 / 0.25 = 120;
    # P = (166.67 - 120) / (166.67 - 83.33) = 0.56.
    assert m.buffer_overrun_probability(0, 10e6, 0.2, 0.05, extra_buffer_bytes=45_000) == approx(
        0.56
    )
    # 30,000 B = 20 segments: W* = 80 < W_min, so every phase overflows.
    assert m.buffer_overrun_probability(0, 10e6, 0.2, 0.05, extra_buffer_bytes=30_000) == 1.0


def test_buffer_overrun_limits_and_extra_buffer():
    assert m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.0) == 0.0  # no interruption
    # An interruption of a full RTT or more puts the whole window in the buffer: W > B always.
    assert m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.2) == approx(1.0)
    assert m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.3) == approx(1.0)
    # Extra buffer R/8 * min(T, RTT): 10e6/8 * 0.05 = 62,500 B removes the overrun.
    extra = m.overrun_free_extra_buffer_bytes(10e6, 0.2, 0.05)
    assert extra == approx(62_500.0)
    assert m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.05, extra_buffer_bytes=extra) == 0.0
    assert m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.05, extra_buffer_bytes=extra - 1500) > 0


def test_buffer_overrun_monotonicity():
    by_time = [m.buffer_overrun_probability(250e3, 10e6, 0.2, t) for t in (0.04, 0.1, 0.15, 0.19)]
    assert all(a < b for a, b in itertools.pairwise(by_time))
    by_extra = [
        m.buffer_overrun_probability(250e3, 10e6, 0.2, 0.1, extra_buffer_bytes=e)
        for e in (0, 20e3, 60e3, 100e3)
    ]
    assert all(a > b for a, b in itertools.pairwise(by_extra))
    assert all(0.0 <= p <= 1.0 for p in by_time + by_extra)


# --------------------------------------------------------------------------------------------
# X2 handover data (seed 000, Section IV)


def _enumerate_timeout(cwnd_max, cwnd_ho):
    """Round-by-round D_SS: the rounds before the handover, then slow start capped at
    ssthresh for k rounds, then +1 per round from ssthresh."""
    half, ss = cwnd_max // 2, cwnd_ho / 2
    k = m.x2_slow_start_rounds(cwnd_ho)
    total = sum(range(half, cwnd_ho))
    for j in range(cwnd_max - cwnd_ho + 1):
        total += min(2.0**j, ss) if j < k else ss + j - k
    return total


def test_x2_worked_numbers():
    # D_I(64) = 1.5 * 32 * 33 = 1584 = 32 + 33 + ... + 64.
    assert m.x2_throughput_ideal_segments(64) == approx(1584.0)
    assert m.x2_throughput_ideal_segments(64) == sum(range(32, 65))
    # D_WH(64, 48) = 1584 - 24 * 17 = 1176; D_WH(64, 64) = 1584 - 32 = 1552.
    assert m.x2_throughput_window_halving_segments(64, 48) == approx(1176.0)
    assert m.x2_throughput_window_halving_segments(64, 64) == approx(1552.0)
    # k(48) = ceil(log2 24) + 1 = 6; D_SS = 1176 - 6*17 - (6*18 + 15 - (1+2+4+8+16+24)) = 1006.
    assert m.x2_slow_start_rounds(48) == 6
    assert m.x2_slow_start_rounds(64) == 6  # log2(32) + 1, the paper's eq. (5) exactly
    assert m.x2_throughput_timeout_segments(64, 48) == approx(1006.0)
    # Handover at the peak (N = 1 < k = 6): 1552 - 6 - (6*26 + 15 - 63) = 1438, 90.8 % of D_I.
    assert m.x2_throughput_timeout_segments(64, 64) == approx(1438.0)
    # Weights multiply: f = 1/3 each (the paper's Fig. 4 setting).
    assert m.x2_throughput_ideal_segments(64, 1 / 3) == approx(528.0)
    assert m.x2_throughput_timeout_segments(64, 48, probability_dss=0.5) == approx(503.0)


@pytest.mark.parametrize("cwnd_max,cwnd_ho", [(64, 48), (64, 40), (120, 90), (128, 64), (100, 70)])
def test_x2_timeout_closed_form_matches_rounds(cwnd_max, cwnd_ho):
    # Where the slow start ends inside the interval (k <= N) eq. (3) equals the round sum.
    assert m.x2_slow_start_rounds(cwnd_ho) <= cwnd_max - cwnd_ho + 1
    assert m.x2_throughput_timeout_segments(cwnd_max, cwnd_ho) == approx(
        _enumerate_timeout(cwnd_max, cwnd_ho)
    )


def test_x2_ordering():
    for w in (40, 64, 120):
        for c in (w // 2 + 2, (3 * w) // 4, w):
            d_i = m.x2_throughput_ideal_segments(w)
            d_wh = m.x2_throughput_window_halving_segments(w, c)
            d_ss = m.x2_throughput_timeout_segments(w, c)
            assert d_ss < d_wh < d_i


def test_x2_normalized_throughput_fig4_points():
    # The seed's own set-up (Table II: cwndMAX 44) with the handover at the peak, Fig. 4's
    # continuous lines: D_I = 1.5*22*23 = 759; D_WH = 759 - 22*1 = 737;
    # k = ceil(log2 22) + 1 = 6, deficit (16+...+21) - (1+2+4+8+16+22) = 111 - 53 = 58,
    # D_SS = 737 - 6*1 - 58 = 673.
    assert m.x2_normalized_throughput(44, 44, "halving") == approx(737 / 759)
    assert m.x2_normalized_throughput(44, 44, "timeout") == approx(673 / 759)
    # The middle of [SSthresh, cwndMAX] (Fig. 4's marked lines): W = 64, cwnd_ho = 48.
    assert m.x2_normalized_throughput(64, 48, "halving") == approx(1176 / 1584)
    assert m.x2_normalized_throughput(64, 48, "timeout") == approx(1006 / 1584)
    # Fig. 4's axis: every curve inside 50-100 % over cwndMAX 40-120, the timeout below the
    # halving, and the middle position below the peak.
    for w in range(40, 121, 4):
        for c in (w, 3 * w / 4):
            wh = m.x2_normalized_throughput(w, c, "halving")
            ss = m.x2_normalized_throughput(w, c, "timeout")
            assert 0.5 < ss < wh < 1.0
        assert m.x2_normalized_throughput(w, 3 * w / 4, "halving") < m.x2_normalized_throughput(
            w, w, "halving"
        )
    with pytest.raises(ValueError, match="case"):
        m.x2_normalized_throughput(44, 44, "slow start")


# --------------------------------------------------------------------------------------------
# Multiple ACK copies (seed 004)


def test_multi_ack_probabilities_worked_numbers():
    assert m.all_acks_lost_probability(0.1, 3) == approx(0.001)
    assert m.radio_loss_probability(0.1, 1) == approx(0.19)  # 1 - 0.9 * 0.9
    assert m.radio_loss_probability(0.1, 2) == approx(0.109)  # 1 - 0.9 * 0.99
    assert m.ack_loss_effective_p(0.1, 0.01, 1) == approx(0.1981)  # 1 - 0.99 * 0.81
    assert m.ack_loss_effective_p(0.1, 0.01, 2) == approx(1 - 0.99 * 0.891)
    assert m.ack_loss_effective_p(0.0, 0.01, 3) == approx(0.01)


def test_p_err_estimator_inverts_the_model():
    # 1 - sqrt((1 - 0.1981)/(1 - 0.01)) = 1 - sqrt(0.81) = 0.1
    assert m.p_err_estimate(0.1981, 0.01) == approx(0.1)
    for p_err in (0.0, 0.05, 0.3, 0.9):
        observed = m.ack_loss_effective_p(p_err, 0.02, 1)
        assert m.p_err_estimate(observed, 0.02) == approx(p_err, abs=1e-12)
    assert m.p_err_estimate(0.005, 0.01) == 0.0  # below p_buff: noise, clamped


def test_loss_rate_ewma():
    # 0.875 * 0 + 0.125 * 1 = 0.125; then 0.875 * 0.125 = 0.109375; then 0.875 * 0.109375 + 0.125
    assert m.loss_rate_ewma([1.0, 0.0, 1.0]) == approx([0.125, 0.109375, 0.2207031])
    assert m.loss_rate_ewma([0.2] * 200)[-1] == approx(0.2, rel=1e-9)  # converges
    assert m.loss_rate_ewma([]) == []


def test_multi_ack_throughput_worked_number():
    # p = 0.1981: 0.1 sqrt(2p/3) = 0.036341; 0.4 * 3 sqrt(3p/8) * p (1 + 32p^2)
    # = 0.4 * 0.817674 * 0.446873 = 0.146158; 1 / 0.182499 = 5.4795 segments/s * 800 b = 4383.6.
    assert m.multi_ack_throughput_bps(100, 0.1, 0.4, 0.1, 0.01, 1) == approx(4383.6, rel=1e-4)
    one = m.multi_ack_throughput_bps(100, 0.1, 0.4, 0.1, 0.01, 1)
    two = m.multi_ack_throughput_bps(100, 0.1, 0.4, 0.1, 0.01, 2)
    assert two > one
    # A per-copy p_buff sequence is indexed by the number of copies.
    assert m.multi_ack_throughput_bps(100, 0.1, 0.4, 0.1, [0.01, 0.1], 2) == approx(one)


def test_seed_004_range_not_implied_by_constant_p_buff():
    # With one p_buff for every number of copies, p(2) < p(1) for all 0 < p_err < 1, so two ACKs
    # beat one on the whole domain, and three beat two everywhere: the seed's
    # "two ACKs best for 0.1 < p_err < 0.47" is not reproduced by these formulas.
    assert m.two_ack_p_err_range(0.1, 0.4, 0.01, grid=200) == (0.0, 1.0)
    assert m.two_ack_p_err_range(0.1, 0.4, 0.01, max_copies=3, grid=200) is None
    assert m.best_ack_copies(0.05, 0.01, 0.1, 0.4, max_copies=3) == 3


def test_seed_004_range_reproduced_with_implied_p_buff():
    # Seed: two ACKs best for 0.1 < p_err < 0.47 (RTT 100 ms, T0 400 ms, p_buff = 0.01).
    # Tie 1 vs 2 at p_err = 0.1: p_buff(2) = 1 - 0.99 * 0.81 / 0.891 = 0.1 exactly.
    pb2 = m.crossover_p_buff(0.1, 1, 2, 0.01)
    assert pb2 == approx(0.1)
    # Tie 2 vs 3 at p_err = 0.47: 1 - 0.9 * 0.53 * 0.7791 / (0.53 * 0.896177) = 0.21758.
    pb3 = m.crossover_p_buff(0.47, 2, 3, pb2)
    assert pb3 == approx(0.21758, rel=1e-4)
    low, high = m.two_ack_p_err_range(0.1, 0.4, [0.01, pb2, pb3], max_copies=3, grid=200)
    assert low == approx(0.10, abs=1e-6)
    assert high == approx(0.47, abs=1e-6)
    # RTT and T0 drop out: S_TCP is monotone in p, so only p(n) decides.
    other = m.two_ack_p_err_range(0.5, 2.0, [0.01, pb2, pb3], max_copies=3, grid=200)
    assert other == approx((low, high), abs=1e-6)
    assert m.best_ack_copies(0.05, [0.01, pb2, pb3], 0.1, 0.4, max_copies=3) == 1
    assert m.best_ack_copies(0.3, [0.01, pb2, pb3], 0.1, 0.4, max_copies=3) == 2
    assert m.best_ack_copies(0.6, [0.01, pb2, pb3], 0.1, 0.4, max_copies=3) == 3


# --------------------------------------------------------------------------------------------
# Errors: ValueError naming the parameter


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: m.bdp_bytes(0, 0.1), "rate_bps"),
        (lambda: m.bdp_bytes(1e6, -1), "rtt_s"),
        (lambda: m.bdp_bytes(float("nan"), 0.1), "rate_bps"),
        (lambda: m.bdp_bytes("10Mbps", 0.1), "rate_bps"),
        (lambda: m.bdp_segments(1e6, 0.1, 0), "mss_bytes"),
        (lambda: m.mathis_throughput_bps(1460, 0.1, 0), "p"),
        (lambda: m.mathis_throughput_bps(1460, 0.1, 1.5), "p"),
        (lambda: m.mathis_throughput_bps(1460, 0.1, 0.01, c=0), "c"),
        (lambda: m.pftk_throughput_bps(1500, 0.1, 1.0, 0.4), "p"),
        (lambda: m.pftk_throughput_bps(1500, 0.1, 0.01, 0), "t0_s"),
        (lambda: m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4, b=0.5), "b"),
        (lambda: m.pftk_throughput_bps(1500, 0.1, 0.01, 0.4, w_max_segments=0), "w_max_segments"),
        (lambda: m.pftk_approx_throughput_bps(-1, 0.1, 0.01, 0.4), "mss_bytes"),
        (lambda: m.pftk_timeout_probability(0.01, 0), "window_segments"),
        (lambda: m.jain_fairness([]), "values"),
        (lambda: m.jain_fairness([1, -1]), "values[1]"),
        (lambda: m.jain_fairness([0, 0]), "values"),
        (lambda: m.jain_fairness("12"), "values"),
        (lambda: m.jain_fairness(5), "values"),
        (lambda: m.slow_start_rounds(0), "target_window_segments"),
        (lambda: m.slow_start_rounds(10, initial_window=0), "initial_window"),
        (lambda: m.slow_start_rounds(10, abc_limit=3), "abc_limit"),
        (lambda: m.slow_start_rounds(10, abc_limit=0.5), "abc_limit"),
        (lambda: m.slow_start_rounds(10, delayed_ack="yes"), "delayed_ack"),
        (lambda: m.slow_start_time_s(10, 0), "rtt_s"),
        (lambda: m.slow_start_bytes_delivered(10, 0), "mss_bytes"),
        (lambda: m.congestion_avoidance_time_s(-1, 10, 0.1), "from_window_segments"),
        (lambda: m.handover_recovery_time_s(100e6, 0.1, 1500, case="typical"), "case"),
        (lambda: m.handover_recovery_time_s(0, 0.1, 1500, case="best"), "rate_bps"),
        (lambda: m.handover_recovery_time_s(1e6, 0.1, 0, case="worst"), "mss_bytes"),
        (lambda: m.buffer_overrun_probability(-1, 10e6, 0.2, 0.05), "buffer_bytes"),
        (lambda: m.buffer_overrun_probability(1e5, 10e6, 0.2, -0.05), "interruption_s"),
        (lambda: m.buffer_overrun_probability(1e5, 10e6, 0.2, 0.05, beta=1.0), "beta"),
        (
            lambda: m.buffer_overrun_probability(1e5, 10e6, 0.2, 0.05, extra_buffer_bytes=-1),
            "extra_buffer_bytes",
        ),
        (
            lambda: m.buffer_overrun_probability(1e5, 10e6, 0.2, 0.05, w_max_segments=0.5),
            "w_max_segments",
        ),
        (lambda: m.overrun_free_extra_buffer_bytes(10e6, 0.2, -1), "interruption_s"),
        (lambda: m.x2_throughput_ideal_segments(2), "cwnd_max_segments"),
        (lambda: m.x2_throughput_ideal_segments(64, 1.5), "probability_di"),
        (lambda: m.x2_throughput_window_halving_segments(64, 20), "cwnd_ho_segments"),
        (lambda: m.x2_throughput_timeout_segments(64, 65), "cwnd_ho_segments"),
        (lambda: m.x2_slow_start_rounds(1), "cwnd_ho_segments"),
        (lambda: m.all_acks_lost_probability(0.1, 0), "copies"),
        (lambda: m.all_acks_lost_probability(0.1, 1.5), "copies"),
        (lambda: m.all_acks_lost_probability(0.1, True), "copies"),
        (lambda: m.ack_loss_effective_p(-0.1, 0.01), "p_err"),
        (lambda: m.ack_loss_effective_p(0.1, 2), "p_buff"),
        (lambda: m.p_err_estimate(0.1, 1.0), "p_buff"),
        (lambda: m.loss_rate_ewma([0.1], gain=0), "gain"),
        (lambda: m.loss_rate_ewma([0.1, 2.0]), "samples[1]"),
        (lambda: m.multi_ack_throughput_bps(100, 0.1, 0.4, 0.0, 0.0, 1), "p_err, p_buff"),
        (lambda: m.multi_ack_throughput_bps(100, 0.1, 0.4, 0.1, [0.01], 2), "p_buff"),
        (lambda: m.best_ack_copies(1.0, 0.01, 0.1, 0.4), "p_err"),
        (lambda: m.two_ack_p_err_range(0.1, 0.4, 0.01, max_copies=1), "max_copies"),
        (lambda: m.crossover_p_buff(0.1, 2, 2, 0.01), "copies_high"),
    ],
)
def test_bad_inputs_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(f"{name}:")
    assert "expected" in str(info.value)


def test_recovery_to_a_fraction_of_the_bdp():
    # 10 Mbit/s, 100 ms, 1500 B: W = 83.33 segments. Without delayed ACK (g = 2, a = 1):
    # best case to 0.9 W = 75 segments: 0.1 * log2(75) = 0.6229 s;
    # worst case: slow start to W/2 = 41.67 (0.1 * log2(41.67) = 0.5381 s), then congestion
    # avoidance 41.67 -> 75 at one segment per RTT: 3.3333 s.
    best = m.handover_recovery_time_s(
        10e6, 0.1, 1500, case="best", delayed_ack=False, target_fraction=0.9
    )
    assert best == approx(0.1 * math.log2(75.0), rel=1e-9)
    worst = m.handover_recovery_phases(
        10e6, 0.1, 1500, case="worst", delayed_ack=False, target_fraction=0.9
    )
    assert worst.slow_start_s == approx(0.1 * math.log2(250.0 / 6.0), rel=1e-9)
    assert worst.congestion_avoidance_s == approx(0.1 * (75.0 - 250.0 / 6.0), rel=1e-9)
    # A target below W/2 is reached in slow start alone, in the worst case as in the best.
    low = m.handover_recovery_phases(
        10e6, 0.1, 1500, case="worst", delayed_ack=False, target_fraction=0.4
    )
    assert low.congestion_avoidance_s == 0.0
    assert low.slow_start_s == approx(0.1 * math.log2(0.4 * 250.0 / 3.0), rel=1e-9)
    # The default is the whole BDP.
    assert m.handover_recovery_time_s(10e6, 0.1, 1500, case="best") == approx(
        m.handover_recovery_time_s(10e6, 0.1, 1500, case="best", target_fraction=1.0)
    )
    with pytest.raises(ValueError, match="target_fraction"):
        m.handover_recovery_time_s(10e6, 0.1, 1500, case="best", target_fraction=1.5)
    with pytest.raises(ValueError, match="target_fraction"):
        m.handover_recovery_time_s(10e6, 0.1, 1500, case="best", target_fraction=0.0)


# --------------------------------------------------------------------------------------------
# Recovery in whole rounds (docs/models.md, "Recovery in whole rounds")

# 10 segments of 1500 bytes per 100 ms: W = 10, one segment per tau = 10 ms at the bottleneck.
_W10 = {"rate_bps": 10 * 1500 * 8 / 0.1, "rtt_s": 0.1, "mss_bytes": 1500}


def _rounds(case="best", **kw):
    return m.handover_recovery_rounds_s(**_W10, case=case, **kw)


def test_rounds_every_segment_acknowledged_hand_computed():
    # cwnd 1 -> 2 at RTT, 4 at 2 RTT + tau, 8 at 3 RTT + 3 tau; the fourth round's ACKs arrive
    # at 4 RTT + j tau and lift cwnd to 9 and then 10 = W (the best case's ssthresh).
    expected = {0.2: 0.1, 0.4: 0.21, 0.8: 0.33, 0.9: 0.40, 1.0: 0.41}
    for fraction, t in expected.items():
        assert _rounds(delayed_ack=False, target_fraction=fraction) == approx(t), fraction
    # Fluid model: log2(10) RTT = 0.332 s, 0.8 RTT earlier.
    assert m.handover_recovery_time_s(**_W10, case="best", delayed_ack=False) == approx(
        0.3322, abs=1e-4
    )


def test_rounds_delayed_ack_timer_hand_computed():
    # The lone retransmission is acknowledged by the 40 ms timer: cwnd 2 at RTT + D = 0.14 s.
    assert _rounds(target_fraction=0.2) == approx(0.14)
    # Its two segments leave the bottleneck tau apart; the second one is acknowledged at once
    # (one ACK for two segments, +1 without byte counting): cwnd 3 at 2 RTT + D + tau.
    assert _rounds(target_fraction=0.3) == approx(0.25)
    # With byte counting (L = 2) that ACK adds 2: cwnd 4 at the same instant.
    assert _rounds(target_fraction=0.4, abc_limit=2) == approx(0.25)
    # The timer changes nothing while it is 0, and a longer one stalls the first round longer.
    assert _rounds(target_fraction=0.2, delack_timeout_s=0.0) == approx(0.1)
    assert _rounds(target_fraction=0.2, delack_timeout_s=0.2) == approx(0.3)


def test_rounds_worst_case_hand_computed():
    # ssthresh = 5: round 3's first ACK takes cwnd from 4 to 5; its other three ACKs and round
    # 4's first two give the 5 credits of congestion avoidance: cwnd 6 at 4 RTT + tau.
    assert _rounds("worst", delayed_ack=False, target_fraction=0.5) == approx(0.3)
    assert _rounds("worst", delayed_ack=False, target_fraction=0.6) == approx(0.41)


def test_rounds_ssthresh_from_the_flight_hand_computed():
    # A flight of 10 segments at the timeout gives the worst case's W/2 = 5: nothing changes.
    assert _rounds("worst", delayed_ack=False, target_fraction=0.5, flight_segments=10) == approx(
        0.3
    )
    # A flight of 9 gives ssthresh 4.5 (RFC 5681 eq. (4)): round 3's first ACK lifts cwnd from 4
    # to 4.5 and counts one credit; its other three ACKs bring the credit to 4, and round 4's
    # first ACK to 5 >= 4.5: cwnd 5.5 at 4 RTT, a whole round later than with ssthresh 5.
    assert _rounds("worst", delayed_ack=False, target_fraction=0.5, flight_segments=9) == approx(
        0.4
    )
    # The best case's 2·W flight is its ssthresh W.
    assert _rounds(delayed_ack=False, flight_segments=20) == approx(0.41)
    # ssthresh never falls below 2 segments: from a flight of 2, congestion avoidance from 2.
    assert _rounds(delayed_ack=False, flight_segments=2) > _rounds("worst", delayed_ack=False)
    with pytest.raises(ValueError, match="flight_segments"):
        _rounds(flight_segments=0)


def test_rounds_converge_to_the_fluid_model():
    args = (100e6, 0.1, 1500)
    for case, delayed, rel in [
        ("best", False, 0.08),
        ("best", True, 0.04),
        ("worst", False, 0.006),
        ("worst", True, 0.005),
    ]:
        rounds = m.handover_recovery_rounds_s(*args, case=case, delayed_ack=delayed)
        fluid = m.handover_recovery_time_s(*args, case=case, delayed_ack=delayed)
        # Whole rounds are never faster than the fluid growth, and the best case differs by
        # less than one RTT (the last, partly used round).
        assert fluid < rounds < fluid * (1 + rel), (case, delayed)
        if case == "best":
            assert rounds - fluid < 0.1
    # The seed's 84 s case: 85.20 s against 84.82 s.
    assert m.handover_recovery_rounds_s(*args, case="worst") == approx(85.20, abs=0.01)


def test_rounds_edge_cases_and_errors():
    assert _rounds(initial_window=10) == 0.0
    with pytest.raises(ValueError, match="case"):
        _rounds("typical")
    with pytest.raises(ValueError, match="target_fraction"):
        _rounds(target_fraction=1.5)
    with pytest.raises(ValueError, match="delack_timeout_s"):
        _rounds(delack_timeout_s=-1)
    with pytest.raises(ValueError, match="abc_limit"):
        _rounds(abc_limit=3)
    with pytest.raises(ValueError, match="initial_window"):
        _rounds(initial_window=0.5)
    with pytest.raises(ValueError, match="delayed_ack"):
        _rounds(delayed_ack=1)
