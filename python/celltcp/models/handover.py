"""TCP around an LTE handover: recovery time after a buffer discard, and buffer overrun with
buffer transfer (seed study 002, a 3GPP contribution on TCP and LTE-LTE handover).

Units: rates in bits per second, times in seconds, sizes in bytes, windows in segments.

Recovery without buffer transfer
--------------------------------
When the source eNB discards its buffer, the sender usually times out (RFC 6298), sets
``ssthresh = FlightSize/2`` (RFC 5681 eq. (4)) and restarts from a loss window of one segment
(RFC 5681 section 3.1). Let ``W = R * RTT / (8 * MSS)`` be the bandwidth-delay product in
segments: the window at which the link is full again.

* Best case -- the window before the handover was at least ``2W``, so ``ssthresh >= W`` and slow
  start alone refills the pipe: ``T = RTT * log(W/IW) / log(g)``.
* Worst case -- the window was just ``W`` (an empty buffer), so ``ssthresh = W/2``: slow start
  to ``W/2``, then congestion avoidance at ``a`` segments per RTT from ``W/2`` to ``W``:
  ``T = RTT * (log(W/(2 IW)) / log(g) + (W/2) / a)``.

``g`` (slow start factor per RTT) and ``a`` (congestion avoidance increase per RTT) depend on
delayed ACKs and byte counting; see :mod:`celltcp.models.slow_start`. With delayed ACKs and
without byte counting (the seed's "most typical implementation"), ``g = 1.5`` and ``a = 1/2``.
The handover interruption and the retransmission timeout itself come on top of these times.

Buffer overrun with buffer transfer
-----------------------------------
With buffer transfer nothing is discarded, but the radio link serves nothing for the
interruption time ``T`` while the sender keeps sending, so the (transferred) buffer can overflow.
The model (:func:`buffer_overrun_probability`) assumes:

1. A single bulk TCP flow in congestion avoidance whose bottleneck is the radio link of rate
   ``R`` with a drop-tail buffer of ``B`` segments; ``rtt_s`` is the base RTT (no queueing), and
   ``D = R * RTT / (8 * MSS)`` the BDP in segments.
2. The window follows the AIMD sawtooth between ``beta * W_max`` and ``W_max``, where by default
   ``W_max = D + B`` (the window at which the drop-tail buffer overflows in steady state), and
   the handover starts at a phase of the sawtooth uniformly distributed in time. The window
   grows by a fixed amount per RTT and the RTT is ``RTT * max(1, W/D)`` (queueing adds
   ``(W - D)/R``), so the time spent near a window ``W`` -- its probability density -- is
   proportional to ``max(1, W/D)``. (With delayed ACKs the growth is slower by the same factor
   at every ``W``, which leaves the density unchanged.)
3. At the start of the interruption the buffer holds ``max(0, W - D)`` segments. During the
   interruption the sender keeps sending at its pre-handover rate ``min(W, D)/RTT`` for as long
   as ACKs for data served before the interruption keep arriving: at most one base RTT. So the
   buffer receives ``min(W, D) * min(T/RTT, 1)`` more segments; the growth of cwnd during the
   interruption (less than one segment per RTT) is neglected.
4. The buffer overflows when that backlog exceeds ``B + E``, ``E`` being extra buffer made
   available for the handover.

Then the overrun probability is the time-fraction of the sawtooth during which the window is
above the threshold ``W*`` at which the backlog equals ``B + E``. With ``W_max = D + B`` the
overrun disappears exactly when ``E >= R/8 * min(T, RTT)`` bytes
(:func:`overrun_free_extra_buffer_bytes`), which is the "appropriate extra buffering" of the
seed's Fig. 6 (10 Mbit/s, 200 ms RTT): 62.5 kB for a 50 ms interruption.
"""

from __future__ import annotations

import math
from collections import deque
from typing import NamedTuple

from ._validate import at_least, non_negative, positive
from .slow_start import (
    _abc_limit,
    congestion_avoidance_time_s,
    segments_per_ack,
    slow_start_time_s,
)
from .throughput import BITS_PER_BYTE, bdp_bytes

__all__ = [
    "RecoveryPhases",
    "buffer_overrun_probability",
    "handover_recovery_phases",
    "handover_recovery_rounds_s",
    "handover_recovery_time_s",
    "overrun_free_extra_buffer_bytes",
]

_CASES = ("best", "worst")


class RecoveryPhases(NamedTuple):
    """Durations of the two phases of a recovery after a handover, in seconds."""

    slow_start_s: float
    congestion_avoidance_s: float

    @property
    def total_s(self) -> float:
        """Whole recovery time in seconds."""
        return self.slow_start_s + self.congestion_avoidance_s


def handover_recovery_phases(
    rate_bps: float,
    rtt_s: float,
    mss_bytes: float,
    *,
    case: str,
    delayed_ack: bool = True,
    abc_limit: float | None = None,
    initial_window: float = 1.0,
    target_fraction: float = 1.0,
) -> RecoveryPhases:
    """Slow start and congestion avoidance durations (seconds) of a recovery from a timeout
    after a handover without buffer transfer, until cwnd again equals the BDP (or
    ``target_fraction`` of it: goodput is ``cwnd/RTT`` below the BDP, so 0.9 gives the time until
    goodput is back to 90 % of the link rate, the definition the per-handover analytics use).

    ``case="best"``: the whole recovery in slow start, from ``initial_window`` to the BDP.
    ``case="worst"``: slow start to half the BDP, then congestion avoidance to the BDP.
    ``rate_bps`` > 0 (bits per second), ``rtt_s`` > 0 (seconds), ``mss_bytes`` > 0;
    ``delayed_ack`` and ``abc_limit`` (None, or L in [1, 2] segments, RFC 3465) select the growth
    rules; ``initial_window`` (segments, > 0) is the loss window, 1 per RFC 5681 section 3.1.
    """
    if case not in _CASES:
        raise ValueError(f"case: {case!r} is not a recovery case; expected 'best' or 'worst'")
    mss = positive("mss_bytes", mss_bytes)
    fraction = positive("target_fraction", target_fraction)
    if fraction > 1.0:
        raise ValueError(f"target_fraction: {target_fraction!r} is above 1; expected 0 < f <= 1")
    bdp = bdp_bytes(rate_bps, rtt_s) / mss
    target = fraction * bdp
    if case == "best":
        ss = slow_start_time_s(target, rtt_s, initial_window, delayed_ack, abc_limit)
        return RecoveryPhases(ss, 0.0)
    half = bdp / 2.0
    if target <= half:
        return RecoveryPhases(
            slow_start_time_s(target, rtt_s, initial_window, delayed_ack, abc_limit), 0.0
        )
    ss = slow_start_time_s(half, rtt_s, initial_window, delayed_ack, abc_limit)
    # If the loss window already exceeds W/2, congestion avoidance starts from it.
    start = max(half, positive("initial_window", initial_window))
    ca = congestion_avoidance_time_s(start, target, rtt_s, delayed_ack, abc_limit)
    return RecoveryPhases(ss, ca)


def handover_recovery_time_s(
    rate_bps: float,
    rtt_s: float,
    mss_bytes: float,
    *,
    case: str,
    delayed_ack: bool = True,
    abc_limit: float | None = None,
    initial_window: float = 1.0,
    target_fraction: float = 1.0,
) -> float:
    """Recovery time in seconds after a handover without buffer transfer (see
    :func:`handover_recovery_phases` for the parameters and the module doc for the derivation).

    Example (seed 002): 100 Mbit/s, 100 ms RTT, 1500-byte segments (W = 833.3): best case with
    delayed ACKs and ``abc_limit=2`` is ``0.1 * log2(833.3) = 0.97 s`` ("below 1 second");
    worst case with delayed ACKs and no byte counting is
    ``0.1 * (log(416.7)/log(1.5) + 416.7/0.5) = 1.49 + 83.33 = 84.8 s`` ("84 seconds").
    """
    return handover_recovery_phases(
        rate_bps,
        rtt_s,
        mss_bytes,
        case=case,
        delayed_ack=delayed_ack,
        abc_limit=abc_limit,
        initial_window=initial_window,
        target_fraction=target_fraction,
    ).total_s


def handover_recovery_rounds_s(
    rate_bps: float,
    rtt_s: float,
    mss_bytes: float,
    *,
    case: str,
    delayed_ack: bool = True,
    abc_limit: float | None = None,
    initial_window: float = 1.0,
    target_fraction: float = 1.0,
    delack_timeout_s: float = 0.04,
    flight_segments: float | None = None,
) -> float:
    """Recovery time in seconds after a timeout, with TCP's window stepped ACK by ACK in whole
    rounds (docs/models.md, "Recovery in whole rounds"), rather than the fluid growth of
    :func:`handover_recovery_time_s`. Time 0 is the timeout (the retransmission of the loss
    window ``initial_window``); the result is the arrival time of the ACK that lifts cwnd to
    ``target_fraction`` of the BDP ``W = rate_bps * rtt_s / (8 * mss_bytes)`` segments.

    The path is a bottleneck serving one segment per ``tau = rtt_s / W`` seconds, FIFO, and a
    fixed remainder such that a lone segment is acknowledged ``rtt_s`` after it is sent.
    The sender (RFC 5681 section 3.1) starts with ``cwnd = initial_window`` and
    ``ssthresh = W`` (``case="best"``) or ``W/2`` (``"worst"``) -- or, when the flight at the
    timeout is known in whole segments (``flight_segments``), ``max(flight_segments / 2, 2)``
    as RFC 5681 eq. (4) computes it (a window of 4 segments over a BDP of 4.2 gives 2, not
    2.1, and the difference is a whole round of congestion avoidance) -- and sends whenever a whole segment
    fits under cwnd, and grows on each ACK of ``n`` new segments: in slow start
    (``cwnd < ssthresh``) by 1 segment, or ``min(n, abc_limit)`` with byte counting (RFC 3465
    section 2.2), at most up to ssthresh, the rest of the ACK counting in congestion avoidance;
    in congestion avoidance by one segment each time the credit reaches cwnd, the credit being
    1 per ACK (RFC 5681 eq. (3)) or ``n`` with byte counting (RFC 3465 section 2.1). With
    ``delayed_ack`` the receiver acknowledges every second segment at once and a segment left
    alone when ``delack_timeout_s`` after its arrival expires (RFC 5681 section 4.2); a round
    opened by such an ACK lasts ``rtt_s + delack_timeout_s``.

    ``rate_bps``, ``rtt_s``, ``mss_bytes`` > 0; ``initial_window`` >= 1 segment;
    ``0 < target_fraction <= 1``; ``delack_timeout_s`` >= 0; ``abc_limit`` None or in [1, 2].
    Returns 0 if the loss window already reaches the target.

    Example: W = 10, every segment acknowledged, best case, target 1: rounds end at cwnd 2, 4,
    8 (times RTT, 2 RTT + tau, 3 RTT + 3 tau), and the second ACK of the fourth round, at
    ``4 RTT + tau = 4.1 RTT``, lifts cwnd from 9 to 10 (fluid model: ``log2(10) = 3.32 RTT``).
    """
    if case not in _CASES:
        raise ValueError(f"case: {case!r} is not a recovery case; expected 'best' or 'worst'")
    segments_per_ack(delayed_ack)  # validates the flag (ValueError, as everywhere here)
    rtt = positive("rtt_s", rtt_s)
    mss = positive("mss_bytes", mss_bytes)
    fraction = positive("target_fraction", target_fraction)
    if fraction > 1.0:
        raise ValueError(f"target_fraction: {target_fraction!r} is above 1; expected 0 < f <= 1")
    limit = _abc_limit(abc_limit)
    cwnd = at_least("initial_window", initial_window, 1.0)
    timer = non_negative("delack_timeout_s", delack_timeout_s)
    bdp = bdp_bytes(rate_bps, rtt) / mss
    target = fraction * bdp
    if cwnd >= target:
        return 0.0
    if flight_segments is None:
        ssthresh = bdp if case == "best" else bdp / 2.0
    else:
        ssthresh = max(positive("flight_segments", flight_segments) / 2.0, 2.0)
    tau = rtt / bdp  # bottleneck service time of one segment
    credit = 0.0  # congestion avoidance credit, segments (RFC 3465 bytes_acked / SMSS)
    # Times at which a prompt ACK for each segment in flight would reach the sender ("echo"
    # times: the bottleneck departure plus the rest of the round trip), in sending order.
    echoes: deque[float] = deque()
    last_departure = -math.inf
    in_flight = 0

    def send(now: float) -> None:
        nonlocal last_departure, in_flight
        while in_flight + 1 <= cwnd + 1e-9:
            last_departure = max(now, last_departure) + tau
            echoes.append(last_departure + rtt - tau)
            in_flight += 1

    send(0.0)
    held: float | None = None  # echo time of a segment the receiver holds an ACK for
    while True:
        # Next ACK: a prompt one (every segment, or the second of a pair) or the timer's.
        if held is not None and (not echoes or held + timer < echoes[0]):
            now, acked, held = held + timer, 1, None
        else:
            arrival = echoes.popleft()
            if delayed_ack and held is None:
                held = arrival
                continue
            now, acked, held = arrival, (2 if held is not None else 1), None
        in_flight -= acked
        if cwnd < ssthresh:
            increase = 1.0 if limit is None else min(float(acked), limit)
            room = ssthresh - cwnd
            if increase <= room:
                cwnd += increase
                rest = 0.0
            else:
                cwnd = ssthresh
                rest = max(0.0, acked - room)
            if rest > 0.0:
                credit += 1.0 if limit is None else rest
        else:
            credit += 1.0 if limit is None else float(acked)
        if credit >= cwnd:
            credit -= cwnd
            cwnd += 1.0
            credit = min(credit, cwnd)
        if cwnd >= target - 1e-9:
            return now
        send(now)


def _rtt_weight_integral(window: float, bdp: float) -> float:
    """Antiderivative of ``max(1, w/bdp)`` from 0 to ``window`` (segments)."""
    if window <= bdp:
        return window
    return (window * window + bdp * bdp) / (2.0 * bdp)


def buffer_overrun_probability(
    buffer_bytes: float,
    rate_bps: float,
    rtt_s: float,
    interruption_s: float,
    mss_bytes: float = 1500.0,
    extra_buffer_bytes: float = 0.0,
    w_max_segments: float | None = None,
    beta: float = 0.5,
) -> float:
    """Probability that the (transferred) eNB buffer overflows during a handover interruption.

    Assumptions are listed in the module doc. Parameters:

    * ``buffer_bytes`` >= 0: drop-tail buffer of the bottleneck in normal operation (bytes).
    * ``rate_bps`` > 0: radio bottleneck rate (bits per second).
    * ``rtt_s`` > 0: base round-trip time without queueing (seconds).
    * ``interruption_s`` >= 0: time during which the radio link serves nothing (seconds).
    * ``mss_bytes`` > 0: segment size (bytes).
    * ``extra_buffer_bytes`` >= 0: buffer added for the handover (bytes).
    * ``w_max_segments``: peak of the sawtooth in segments (>= 1); default ``BDP + buffer``.
    * ``beta`` in (0, 1): multiplicative decrease (0.5 for Reno, RFC 5681 eq. (4)).

    Worked example: 10 Mbit/s, 200 ms, 250 kB buffer, 1500 B segments, 50 ms interruption:
    ``D = B = 166.7``, sawtooth ``[D, 2D]``, threshold ``W* = B + D (1 - 0.25) = 1.75 D``,
    density proportional to ``W`` on ``[D, 2D]``: ``P = (4 - 1.75^2)/(4 - 1) = 0.3125``.
    """
    buffer = non_negative("buffer_bytes", buffer_bytes)
    rtt = positive("rtt_s", rtt_s)
    bdp_b = bdp_bytes(rate_bps, rtt)
    interruption = non_negative("interruption_s", interruption_s)
    mss = positive("mss_bytes", mss_bytes)
    extra = non_negative("extra_buffer_bytes", extra_buffer_bytes)
    bdp, buffer_segments, extra_segments = bdp_b / mss, buffer / mss, extra / mss
    if w_max_segments is None:
        w_max = bdp + buffer_segments
    else:
        w_max = at_least("w_max_segments", w_max_segments, 1.0)
    decrease = positive("beta", beta)
    if decrease >= 1.0:
        raise ValueError(f"beta: {beta!r} is out of range; expected a number in (0, 1)")
    w_min = decrease * w_max

    # Fraction of one base RTT during which ACKs of data served before the outage keep coming.
    fraction = min(interruption / rtt, 1.0)
    capacity = buffer_segments + extra_segments
    # Backlog(W) = max(0, W - D) + min(W, D) * fraction is continuous and non-decreasing in W;
    # solve Backlog(W*) = capacity on the branch where the solution lies.
    if fraction > 0.0 and capacity < bdp * fraction:
        threshold = capacity / fraction
    else:
        threshold = bdp + capacity - bdp * fraction
    low = min(max(threshold, w_min), w_max)
    top = _rtt_weight_integral(w_max, bdp)
    mass = top - _rtt_weight_integral(w_min, bdp)
    return (top - _rtt_weight_integral(low, bdp)) / mass


def overrun_free_extra_buffer_bytes(rate_bps: float, rtt_s: float, interruption_s: float) -> float:
    """Extra buffer in bytes that absorbs everything sent during an interruption:
    ``rate_bps/8 * min(interruption_s, rtt_s)``. With the default sawtooth peak
    (``W_max = BDP + buffer``) :func:`buffer_overrun_probability` is 0 from this value on.
    """
    rate = positive("rate_bps", rate_bps)
    rtt = positive("rtt_s", rtt_s)
    interruption = non_negative("interruption_s", interruption_s)
    return rate / BITS_PER_BYTE * min(interruption, rtt)
