"""Steady-state TCP throughput models: BDP, Mathis, PFTK, and Jain's fairness index.

The Mathis and PFTK formulas are computed by the core (``celltcp_tcp::models``, the one
implementation the simulator's validation tests compare with); this module checks the arguments.

Units: rates in bits per second, times in seconds, sizes in bytes, windows in segments.
``p`` is the probability that a segment is lost (more exactly, in PFTK, the probability of a
"loss indication" per segment sent, losses within one round being correlated).

References
----------
* M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The Macroscopic Behavior of the TCP Congestion
  Avoidance Algorithm", CCR 27(3), 1997 -- ``BW = MSS/RTT * C/sqrt(p)``.
* J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and its
  Empirical Validation", SIGCOMM 1998 (PFTK). Equation numbers below are the paper's: (13)/(16)
  expected window and rounds, (24) the timeout probability Q-hat, (28) f(p), (31) the full model
  with the receiver window limit, (32) the approximate model.
* R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of Fairness and Discrimination for Resource
  Allocation in Shared Computer Systems", DEC-TR-301, 1984.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from celltcp import _core

from ._validate import at_least, non_negative, positive, probability

__all__ = [
    "bdp_bytes",
    "bdp_segments",
    "jain_fairness",
    "mathis_throughput_bps",
    "pftk_approx_throughput_bps",
    "pftk_backoff_factor",
    "pftk_expected_window_segments",
    "pftk_throughput_bps",
    "pftk_timeout_probability",
]

BITS_PER_BYTE = 8.0


def bdp_bytes(rate_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product in bytes: ``rate_bps * rtt_s / 8``.

    ``rate_bps`` is the bottleneck rate in bits per second (> 0); ``rtt_s`` the round-trip time
    in seconds (> 0). Example: 10 Mbit/s and 200 ms give 250,000 bytes.
    """
    rate = positive("rate_bps", rate_bps)
    rtt = positive("rtt_s", rtt_s)
    return rate * rtt / BITS_PER_BYTE


def bdp_segments(rate_bps: float, rtt_s: float, mss_bytes: float) -> float:
    """Bandwidth-delay product in segments of ``mss_bytes`` bytes (not rounded)."""
    mss = positive("mss_bytes", mss_bytes)
    return bdp_bytes(rate_bps, rtt_s) / mss


def mathis_throughput_bps(
    mss_bytes: float, rtt_s: float, p: float, c: float = math.sqrt(1.5)
) -> float:
    """Mathis et al. steady-state throughput in bits per second: ``8 * MSS/RTT * C/sqrt(p)``.

    ``mss_bytes`` > 0, ``rtt_s`` > 0, ``p`` in (0, 1]. The default ``C = sqrt(3/2)`` is the
    periodic-loss constant for an ACK per segment; with delayed ACKs (b = 2) use
    ``C = sqrt(3/4)`` (the constant is ``sqrt(3/(2b))``). The model ignores timeouts and the
    receiver window, so it overestimates throughput at high loss.
    """
    mss = positive("mss_bytes", mss_bytes)
    rtt = positive("rtt_s", rtt_s)
    loss = probability("p", p, allow_zero=False)
    constant = positive("c", c)
    return _core.mathis_throughput_bps(mss, rtt, loss, constant)


def pftk_backoff_factor(p: float) -> float:
    """PFTK eq. (28): ``f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6`` (dimensionless).

    The expected duration of a sequence of timeouts is ``T0 * f(p) / (1 - p)``: each further
    timeout in a row doubles the timer (RFC 6298 (5.5)) up to 64 * T0, hence the powers of two.
    ``p`` in [0, 1].
    """
    return _core.pftk_backoff_factor(probability("p", p))


def pftk_timeout_probability(p: float, window_segments: float) -> float:
    """PFTK eq. (24): ``Q-hat(p, w)``, the probability that a loss in a window of ``w`` segments
    is detected by a retransmission timeout rather than by three duplicate ACKs.

    ``Q-hat = min(1, (1 - (1-p)^3) (1 + (1-p)^3 (1 - (1-p)^(w-3))) / (1 - (1-p)^w))``; a window
    of at most 3 segments cannot produce three duplicate ACKs, so Q-hat is 1 there. As p -> 0,
    Q-hat -> min(1, 3/w). ``p`` in (0, 1), ``window_segments`` > 0.
    """
    loss = probability("p", p, allow_zero=False, allow_one=False)
    window = positive("window_segments", window_segments)
    return _core.pftk_timeout_probability(loss, window)


def pftk_expected_window_segments(p: float, b: float = 2.0) -> float:
    """PFTK eq. (13): unconstrained mean window at a loss indication, in segments.

    ``E[W_u] = (2+b)/(3b) + sqrt(8(1-p)/(3bp) + ((2+b)/(3b))^2)``, where ``b`` is the number of
    segments acknowledged by one ACK (2 with delayed ACKs, RFC 5681 section 4.2). ``p`` in
    (0, 1), ``b`` >= 1.
    """
    loss = probability("p", p, allow_zero=False, allow_one=False)
    acked = at_least("b", b, 1.0)
    return _core.pftk_expected_window_segments(loss, acked)


def pftk_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    t0_s: float,
    b: float = 2.0,
    w_max_segments: float | None = None,
) -> float:
    """PFTK full model, eq. (31), in bits per second (segments per second times 8 * MSS).

    With ``q = 1 - p``, ``E[W_u]`` from eq. (13), ``Q-hat`` from eq. (24) and ``f`` from (28)::

        if E[W_u] < W_max:
            B = (q/p + E[W_u] + Q(E[W_u])/q)
                / (RTT (b/2 E[W_u] + 1) + Q(E[W_u]) T0 f(p)/q)
        else:
            B = (q/p + W_max + Q(W_max)/q)
                / (RTT (b/8 W_max + q/(p W_max) + 2) + Q(W_max) T0 f(p)/q)

    The numerator is the mean number of segments sent between two timeout sequences (triple
    duplicate ACK periods plus the ``1/q`` segments of a timeout sequence); the denominator is
    the mean time that takes. ``w_max_segments=None`` means no receiver-window limit. As p -> 0
    without ``w_max`` the model tends to the Mathis formula with ``C = sqrt(3/(2b))``; with
    ``w_max`` it tends to ``W_max/RTT``.

    Parameters: ``mss_bytes`` > 0; ``rtt_s`` > 0 (seconds); ``p`` in (0, 1) (the model divides by
    ``1 - p``); ``t0_s`` > 0, the first retransmission timeout (seconds); ``b`` >= 1, segments
    per ACK; ``w_max_segments`` >= 1 or None.
    """
    mss = positive("mss_bytes", mss_bytes)
    rtt = positive("rtt_s", rtt_s)
    loss = probability("p", p, allow_zero=False, allow_one=False)
    t0 = positive("t0_s", t0_s)
    acked = at_least("b", b, 1.0)
    w_max = None if w_max_segments is None else at_least("w_max_segments", w_max_segments, 1.0)
    return _core.pftk_throughput_bps(mss, rtt, loss, t0, acked, w_max)


def pftk_approx_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    t0_s: float,
    b: float = 2.0,
    w_max_segments: float | None = None,
) -> float:
    """PFTK approximate model, eq. (32), in bits per second::

        B = min(W_max/RTT, 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))

    segments per second, times 8 * MSS. This is the ``S_TCP`` of the multiple-ACK study
    (seed 004), which writes the same denominator but without the ``W_max/RTT`` term; passing
    ``w_max_segments=None`` (the default) reproduces that rendering exactly. The ``32 p^2`` term
    is the truncation of ``f(p)`` used by the paper for this approximation.

    Parameters: ``mss_bytes`` > 0; ``rtt_s`` > 0; ``p`` in (0, 1]; ``t0_s`` > 0 (seconds);
    ``b`` >= 1 (segments per ACK); ``w_max_segments`` >= 1 or None.
    """
    mss = positive("mss_bytes", mss_bytes)
    rtt = positive("rtt_s", rtt_s)
    loss = probability("p", p, allow_zero=False)
    t0 = positive("t0_s", t0_s)
    acked = at_least("b", b, 1.0)
    w_max = None if w_max_segments is None else at_least("w_max_segments", w_max_segments, 1.0)
    return _core.pftk_approx_throughput_bps(mss, rtt, loss, t0, acked, w_max)


def jain_fairness(values: Iterable[float]) -> float:
    """Jain's fairness index ``(sum x)^2 / (n * sum x^2)`` of n allocations (dimensionless).

    1 when all values are equal, ``1/n`` when one flow takes everything. ``values``: at least
    one finite number >= 0 (e.g. per-flow throughputs in bits per second), not all zero.
    """
    items = [non_negative(f"values[{i}]", v) for i, v in enumerate(_as_list(values))]
    if not items:
        raise ValueError("values: empty; expected at least one allocation")
    total = math.fsum(items)
    if total == 0.0:
        raise ValueError("values: all zero; expected at least one allocation > 0")
    # Scale by the largest value first so that squaring cannot overflow for huge rates.
    largest = max(items)
    scaled = [v / largest for v in items]
    return math.fsum(scaled) ** 2 / (len(scaled) * math.fsum(v * v for v in scaled))


def _as_list(values: Iterable[float]) -> list[object]:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"values: {values!r} is not a sequence; expected numbers >= 0")
    try:
        return list(values)
    except TypeError:
        raise ValueError(f"values: {values!r} is not iterable; expected numbers >= 0") from None
