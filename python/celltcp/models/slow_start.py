"""Window growth per round trip: slow start and congestion avoidance (fluid, per-RTT model).

Derivation
----------
Count time in rounds of one RTT. In a round the sender transmits ``cwnd`` segments and, one RTT
later, receives ``cwnd / b`` ACKs, where ``b`` is the number of full-sized segments covered by
one ACK: ``b = 1`` when every segment is acknowledged, ``b = 2`` with delayed ACKs (RFC 5681
section 4.2: an ACK at least for every second full-sized segment).

Slow start, RFC 5681 section 3.1 eq. (2): each ACK for new data raises cwnd by
``min(N, SMSS)``, N being the bytes it acknowledges. An ACK covering two segments therefore adds
one SMSS, not two, and a round multiplies cwnd by ``1 + 1/b``: 2 without delayed ACKs, 1.5 with
them. Appropriate Byte Counting (RFC 3465 section 2.2) raises cwnd by ``min(N, L*SMSS)`` with a
limit ``L`` of at most 2 SMSS, so a round multiplies cwnd by ``1 + min(b, L)/b``: with delayed
ACKs and ``L = 2`` the factor is 2 again, with ``L = 1`` it stays 1.5. Writing ``g`` for the
factor, a window grows from ``IW`` to ``W`` in ``log(W/IW) / log(g)`` rounds.

Congestion avoidance, RFC 5681 section 3.1 eq. (3): each ACK adds ``SMSS*SMSS/cwnd``, so the
``cwnd/b`` ACKs of a round add ``1/b`` segment: 1 segment per RTT without delayed ACKs, 1/2 with
them. With byte counting in congestion avoidance (RFC 3465 section 2.1) cwnd grows by one SMSS
each time a full cwnd of bytes has been acknowledged: 1 segment per RTT whatever ``b`` is.

The model is a fluid one: windows are real numbers, and the round count is not rounded up.
For a discrete count of whole rounds take ``math.ceil`` of :func:`slow_start_rounds`. It
ignores the delayed-ACK timer (RFC 5681 section 4.2: at most 500 ms) that acknowledges an odd
trailing segment, and it assumes the bottleneck does not limit the sending rate before the
target window is reached.
"""

from __future__ import annotations

from celltcp import _core

from ._validate import at_least, non_negative, positive

__all__ = [
    "ABC_MAX_LIMIT_SEGMENTS",
    "congestion_avoidance_increase_segments",
    "congestion_avoidance_time_s",
    "segments_per_ack",
    "slow_start_bytes_delivered",
    "slow_start_growth_factor",
    "slow_start_rounds",
    "slow_start_time_s",
]

# RFC 3465 section 2.2: an implementation MAY use L = 2*SMSS and MUST NOT use L > 2*SMSS.
ABC_MAX_LIMIT_SEGMENTS = 2.0


def segments_per_ack(delayed_ack: bool) -> float:
    """``b``: full-sized segments acknowledged by one ACK (2 with delayed ACKs, else 1)."""
    if not isinstance(delayed_ack, bool):
        raise ValueError(f"delayed_ack: {delayed_ack!r} is not a bool; expected True or False")
    return 2.0 if delayed_ack else 1.0


def _abc_limit(abc_limit: float | None) -> float | None:
    if abc_limit is None:
        return None
    limit = at_least("abc_limit", abc_limit, 1.0)
    if limit > ABC_MAX_LIMIT_SEGMENTS:
        raise ValueError(
            f"abc_limit: {abc_limit!r} is out of range; expected L in [1, 2] segments "
            "(RFC 3465 section 2.2: L MUST NOT exceed 2*SMSS)"
        )
    return limit


def slow_start_growth_factor(delayed_ack: bool = False, abc_limit: float | None = None) -> float:
    """Factor by which slow start multiplies cwnd per RTT (dimensionless).

    ``1 + 1/b`` without byte counting (``abc_limit=None``), ``1 + min(b, L)/b`` with RFC 3465
    byte counting and a limit of ``L`` segments (1 <= L <= 2). Values: 2 without delayed ACKs;
    1.5 with delayed ACKs; 2 with delayed ACKs and ``L = 2``.
    """
    b = segments_per_ack(delayed_ack)
    limit = _abc_limit(abc_limit)
    increase_per_ack = 1.0 if limit is None else min(b, limit)
    return 1.0 + increase_per_ack / b


def congestion_avoidance_increase_segments(
    delayed_ack: bool = False, abc_limit: float | None = None
) -> float:
    """Congestion avoidance increase of cwnd per RTT, in segments.

    ``1/b`` with the per-ACK rule of RFC 5681 eq. (3) (``abc_limit=None``); 1 with byte
    counting (any ``abc_limit``; RFC 3465 section 2.1 counts a full cwnd of acknowledged bytes,
    the limit ``L`` only matters in slow start).
    """
    b = segments_per_ack(delayed_ack)
    limit = _abc_limit(abc_limit)
    return 1.0 / b if limit is None else 1.0


def slow_start_rounds(
    target_window_segments: float,
    initial_window: float = 1.0,
    delayed_ack: bool = False,
    abc_limit: float | None = None,
) -> float:
    """Number of RTT rounds for slow start to grow cwnd from ``initial_window`` to
    ``target_window_segments`` (both in segments, > 0): ``max(0, log(W/IW) / log(g))`` with
    ``g`` from :func:`slow_start_growth_factor`. Fluid (not rounded); 0 if W <= IW.
    """
    target = positive("target_window_segments", target_window_segments)
    initial = positive("initial_window", initial_window)
    growth = slow_start_growth_factor(delayed_ack, abc_limit)
    return _core.slow_start_rounds(target, initial, growth)


def slow_start_time_s(
    target_window_segments: float,
    rtt_s: float,
    initial_window: float = 1.0,
    delayed_ack: bool = False,
    abc_limit: float | None = None,
) -> float:
    """Seconds for slow start to reach ``target_window_segments``: rounds times ``rtt_s``.

    Example: from 1 to 1024 segments takes 10 rounds without delayed ACKs (1 s at 100 ms RTT)
    and ``log(1024)/log(1.5) = 17.1`` rounds with delayed ACKs and no byte counting.
    """
    rtt = positive("rtt_s", rtt_s)
    return rtt * slow_start_rounds(target_window_segments, initial_window, delayed_ack, abc_limit)


def slow_start_bytes_delivered(
    target_window_segments: float,
    mss_bytes: float,
    initial_window: float = 1.0,
    delayed_ack: bool = False,
    abc_limit: float | None = None,
) -> float:
    """Bytes sent by slow start in the rounds before cwnd reaches the target window.

    The rounds carry ``IW, IW g, IW g^2, ..., IW g^(n-1)`` segments with ``IW g^n = W``; the
    geometric sum is ``IW (g^n - 1)/(g - 1) = (W - IW)/(g - 1)`` segments, times ``mss_bytes``.
    Without delayed ACKs this is ``W - IW`` segments: slow start delivers about one window less
    than the window it reaches. 0 if W <= IW.
    """
    target = positive("target_window_segments", target_window_segments)
    mss = positive("mss_bytes", mss_bytes)
    initial = positive("initial_window", initial_window)
    growth = slow_start_growth_factor(delayed_ack, abc_limit)
    if target <= initial:
        return 0.0
    return mss * (target - initial) / (growth - 1.0)


def congestion_avoidance_time_s(
    from_window_segments: float,
    to_window_segments: float,
    rtt_s: float,
    delayed_ack: bool = False,
    abc_limit: float | None = None,
) -> float:
    """Seconds for congestion avoidance to grow cwnd linearly between two windows (segments):
    ``(to - from) / a * rtt_s`` with ``a`` from :func:`congestion_avoidance_increase_segments`.
    Windows >= 0; 0 if ``to <= from``.
    """
    start = non_negative("from_window_segments", from_window_segments)
    end = non_negative("to_window_segments", to_window_segments)
    rtt = positive("rtt_s", rtt_s)
    increase = congestion_avoidance_increase_segments(delayed_ack, abc_limit)
    if end <= start:
        return 0.0
    return (end - start) / increase * rtt
