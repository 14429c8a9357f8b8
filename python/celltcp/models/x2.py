"""Data delivered over one congestion-avoidance cycle around an X2 handover with forwarding
(seed study 000: Pacifico et al., "Improving TCP Performance During the Intra LTE Handover",
GLOBECOM 2009, Section IV, eqs. (1)-(5)).

Units: windows in segments; the results are amounts of data in segments (one segment per unit
of window per RTT), delivered over the interval ``[RTT1, RTT2]`` of the paper's Fig. 3: one
sawtooth of congestion avoidance in which cwnd grows by one segment per RTT from
``SSthresh = cwnd_max/2`` to ``cwnd_max`` (``cwnd_max/2 + 1`` rounds).

The handover starts at the round where the window is ``cwnd_ho`` (``SSthresh <= cwnd_ho <=
cwnd_max``), so ``N = cwnd_max - cwnd_ho + 1`` rounds are affected. Three cases:

* ``D_I`` (eq. 1), the handover is transparent::

      D_I = sum_{i = cwnd_max/2}^{cwnd_max} i = 3/2 * cwnd_max/2 * (cwnd_max/2 + 1)

* ``D_WH`` (eq. 2), a loss from the router buffer halves the window to
  ``SSthresh_HO = cwnd_ho/2`` (fast recovery); each of the N rounds then carries ``cwnd_ho/2``
  segments less::

      D_WH = D_I - cwnd_ho/2 * (cwnd_max - cwnd_ho + 1)

* ``D_SS`` (eq. 3), a spurious timeout: cwnd restarts from 1 and slow start carries
  ``2^i`` segments in round ``i`` for ``k = log2(SSthresh_HO) + 1`` rounds (eq. 5), after which
  congestion avoidance resumes ``k`` segments below the window-halving case::

      D_SS = D_WH - k * (cwnd_max - cwnd_ho + 1)
                  - sum_{i=0}^{k-1} (cwnd_ho/2 - k + i - 2^i)

  The second line is the slow-start deficit ``sum (cwnd_ho/2 + i - 2^i)`` against the
  window-halving case, minus the ``k * k`` already counted in ``k * N``.

The paper weighs each case by its probability of occurrence (``f_DI``, ``f_DWH``, ``f_DSS``); the
``probability`` argument is that weight (1 gives the amount of data of the case itself).

Where the text leaves a gap this module decides as follows, and says so:

* eq. (5) gives a whole number of rounds only when ``SSthresh_HO`` is a power of two; here
  ``k = ceil(log2(SSthresh_HO)) + 1`` and the last slow-start round carries
  ``min(2^i, SSthresh_HO)`` (RFC 5681 section 3.1: slow start ends at ssthresh). For powers of
  two this is exactly the paper's expression.
* eq. (3) assumes the slow start ends inside the interval (``k <= N``). When it does not (e.g.
  ``cwnd_ho = cwnd_max``, where N = 1) the closed form is still evaluated as written, as the
  paper does for the continuous curves of its Fig. 4: it then charges the whole slow start
  to the interval.
"""

from __future__ import annotations

import math

from ._validate import at_least, probability

__all__ = [
    "X2_CASES",
    "x2_normalized_throughput",
    "x2_slow_start_rounds",
    "x2_throughput_ideal_segments",
    "x2_throughput_timeout_segments",
    "x2_throughput_window_halving_segments",
]

# eq. (1) sums from SSthresh = cwnd_max/2; a window of 4 keeps SSthresh_HO >= 1 segment.
_MIN_CWND_MAX = 4.0


def _cwnd_max(cwnd_max_segments: float) -> float:
    return at_least("cwnd_max_segments", cwnd_max_segments, _MIN_CWND_MAX)


def _cwnd_ho(cwnd_ho_segments: float, cwnd_max: float) -> float:
    cwnd_ho = at_least("cwnd_ho_segments", cwnd_ho_segments, cwnd_max / 2.0)
    if cwnd_ho > cwnd_max:
        raise ValueError(
            f"cwnd_ho_segments: {cwnd_ho_segments!r} is out of range; expected a window in "
            f"[cwnd_max/2, cwnd_max] = [{cwnd_max / 2.0:g}, {cwnd_max:g}]"
        )
    return cwnd_ho


def x2_throughput_ideal_segments(cwnd_max_segments: float, probability_di: float = 1.0) -> float:
    """``D_I``, eq. (1): segments delivered in one sawtooth when the handover is transparent,
    ``3/2 * W/2 * (W/2 + 1) * f_DI`` with ``W = cwnd_max_segments`` (>= 4).

    Example: W = 64 gives ``1.5 * 32 * 33 = 1584`` segments.
    """
    cwnd_max = _cwnd_max(cwnd_max_segments)
    weight = probability("probability_di", probability_di)
    half = cwnd_max / 2.0
    return 1.5 * half * (half + 1.0) * weight


def x2_throughput_window_halving_segments(
    cwnd_max_segments: float, cwnd_ho_segments: float, probability_dwh: float = 1.0
) -> float:
    """``D_WH``, eq. (2): segments delivered when the handover halves the window at
    ``cwnd_ho_segments`` (in ``[W/2, W]``): ``(D_I - cwnd_ho/2 (W - cwnd_ho + 1)) * f_DWH``.

    Example: W = 64, cwnd_ho = 48 gives ``1584 - 24 * 17 = 1176`` segments.
    """
    cwnd_max = _cwnd_max(cwnd_max_segments)
    cwnd_ho = _cwnd_ho(cwnd_ho_segments, cwnd_max)
    weight = probability("probability_dwh", probability_dwh)
    rounds = cwnd_max - cwnd_ho + 1.0
    unsent = cwnd_ho / 2.0 * rounds
    return (x2_throughput_ideal_segments(cwnd_max) - unsent) * weight


def x2_slow_start_rounds(cwnd_ho_segments: float) -> int:
    """``k``, eq. (5): slow-start rounds after a timeout at window ``cwnd_ho_segments`` (>= 2),
    ``ceil(log2(cwnd_ho/2)) + 1`` (the paper's ``log2(SSthresh_HO) + 1`` for powers of two)."""
    ssthresh = at_least("cwnd_ho_segments", cwnd_ho_segments, 2.0) / 2.0
    return math.ceil(math.log2(ssthresh)) + 1


def x2_throughput_timeout_segments(
    cwnd_max_segments: float, cwnd_ho_segments: float, probability_dss: float = 1.0
) -> float:
    """``D_SS``, eq. (3): segments delivered when the handover causes a spurious timeout at
    window ``cwnd_ho_segments`` (in ``[W/2, W]``)::

        (D_WH - k (W - cwnd_ho + 1) - sum_{i<k} (cwnd_ho/2 - k + i - min(2^i, cwnd_ho/2))) f_DSS

    with ``k`` from :func:`x2_slow_start_rounds`. Example: W = 64, cwnd_ho = 48: k = 6,
    ``1176 - 6 * 17 - (6 * 18 + 15 - 55) = 1006`` segments (63.5 % of ``D_I``).
    """
    cwnd_max = _cwnd_max(cwnd_max_segments)
    cwnd_ho = _cwnd_ho(cwnd_ho_segments, cwnd_max)
    weight = probability("probability_dss", probability_dss)
    ssthresh_ho = cwnd_ho / 2.0
    k = x2_slow_start_rounds(cwnd_ho)
    rounds = cwnd_max - cwnd_ho + 1.0
    slow_start_deficit = math.fsum(ssthresh_ho - k + i - min(2.0**i, ssthresh_ho) for i in range(k))
    d_wh = x2_throughput_window_halving_segments(cwnd_max, cwnd_ho)
    return (d_wh - k * rounds - slow_start_deficit) * weight


#: The cases of Fig. 4's curves: window halving (eq. 2) and timeout (eq. 3).
X2_CASES = ("halving", "timeout")


def x2_normalized_throughput(cwnd_max_segments: float, cwnd_ho_segments: float, case: str) -> float:
    """Fig. 4's ordinate (as a fraction, not %): ``D_WH / D_I`` for ``case = "halving"``,
    ``D_SS / D_I`` for ``"timeout"``, each case weighted 1 (the paper sets ``f_DI = f_DWH =
    f_DSS`` for the figure). Fig. 4's continuous lines take ``cwnd_ho = cwnd_max`` (the
    handover at the window's peak), its marked lines ``cwnd_ho = 3/4 cwnd_max`` (the middle of
    ``[SSthresh, cwnd_max]``).

    Examples: W = 44 (the seed's Table II), cwnd_ho = 44: halving ``737 / 759 = 0.971``,
    timeout ``673 / 759 = 0.887``; W = 64, cwnd_ho = 48: ``1176 / 1584 = 0.742`` and
    ``1006 / 1584 = 0.635``.
    """
    if case not in X2_CASES:
        raise ValueError(f"case: {case!r} is not one of {', '.join(X2_CASES)}")
    ideal = x2_throughput_ideal_segments(cwnd_max_segments)
    if case == "halving":
        return x2_throughput_window_halving_segments(cwnd_max_segments, cwnd_ho_segments) / ideal
    return x2_throughput_timeout_segments(cwnd_max_segments, cwnd_ho_segments) / ideal
