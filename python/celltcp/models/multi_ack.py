"""Multiple ACK copies over a lossy radio link (seed study 004: Miyoshi, Sugano, Murata,
"Performance Improvement of TCP in Wireless Cellular Network Based on Acknowledgement Control").

Units: probabilities are per segment; throughput in bits per second; times in seconds.

The model
---------
The receiver (the mobile terminal) sends ``n`` copies of every ACK over the radio uplink. A
segment yields a loss indication at the sender if it is dropped at the congested buffer
(probability ``p_buff``), if it is corrupted on the radio downlink (``p_err``), or if all ``n``
copies of its ACK are corrupted on the radio uplink (``p_err ** n``); the copies are lost
independently. Hence, as the seed writes it,

    p(n) = p_buff(n) + p_err(n) - p_buff(n) p_err(n)
    p_err(n) = 1 - (1 - p_err)(1 - p_err^n)

and the throughput is the approximate PFTK formula (``S_TCP`` of the seed, PFTK eq. (32)) at
``p(n)``. For ``n = 1``, ``1 - p = (1 - p_buff)(1 - p_err)^2``, which is exactly the inverse of
the seed's estimator ``p_err = 1 - sqrt((1 - p)/(1 - p_buff))`` (:func:`p_err_estimate`): the
estimator assumes one radio crossing for the segment and one for its single ACK.

What the formulas can and cannot show
-------------------------------------
``S_TCP`` decreases strictly with ``p``, so ``n`` copies beat ``m`` copies exactly when
``p(n) < p(m)``, whatever the RTT, T0 and ``b``. With one ``p_buff`` for every ``n`` this
always holds for ``n > m`` (``p_err^n < p_err^m``): more copies always win, and the seed's
result -- two copies are best for ``0.1 < p_err < 0.47`` at RTT 100 ms, T0 400 ms,
``p_buff = 0.01`` -- does not follow from the formulas on the slides. The seed writes
``p_buff(n)``, a buffer loss that depends on the number of copies (the extra ACKs are load and
their duplicates inflate the window in fast recovery), without giving it. The functions below
take ``p_buff`` either as one number or as the sequence ``p_buff(1), p_buff(2), ...``;
:func:`crossover_p_buff` computes the ``p_buff(n)`` that a stated crossover implies: the seed's
range requires ``p_buff(2) = 0.100`` and ``p_buff(3) = 0.218`` given ``p_buff(1) = 0.01``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from ._validate import positive, probability, whole_at_least
from .throughput import pftk_approx_throughput_bps

__all__ = [
    "ack_loss_effective_p",
    "all_acks_lost_probability",
    "best_ack_copies",
    "crossover_p_buff",
    "loss_rate_ewma",
    "multi_ack_throughput_bps",
    "p_err_estimate",
    "radio_loss_probability",
    "two_ack_p_err_range",
]

# One buffer loss probability for every number of copies, or p_buff(1), p_buff(2), ...
PBuff = float | Sequence[float]


def all_acks_lost_probability(p_err: float, copies: int) -> float:
    """Probability that all ``copies`` (>= 1) independent ACK copies are lost: ``p_err**copies``.
    ``p_err`` in [0, 1] is the radio loss probability of one packet."""
    loss = probability("p_err", p_err)
    n = whole_at_least("copies", copies, 1)
    return loss**n


def radio_loss_probability(p_err: float, copies: int = 1) -> float:
    """``p_err(n)``: probability that the radio link loses the segment or all ``copies`` of its
    ACK: ``1 - (1 - p_err)(1 - p_err**copies)``."""
    loss = probability("p_err", p_err)
    return 1.0 - (1.0 - loss) * (1.0 - all_acks_lost_probability(loss, copies))


def ack_loss_effective_p(p_err: float, p_buff: float, copies: int = 1) -> float:
    """``p(n) = p_buff + p_err(n) - p_buff p_err(n)``: loss-indication probability per segment
    with ``copies`` ACK copies (seed 004). ``p_err`` and ``p_buff`` (the buffer loss with this
    number of copies) in [0, 1], ``copies`` >= 1."""
    buffer_loss = probability("p_buff", p_buff)
    radio = radio_loss_probability(p_err, copies)
    return buffer_loss + radio - buffer_loss * radio


def p_err_estimate(p: float, p_buff: float) -> float:
    """Seed 004's estimator of the radio loss probability from the observed loss rate ``p``
    (in [0, 1]) and the buffer loss ``p_buff`` (in [0, 1)): ``1 - sqrt((1 - p)/(1 - p_buff))``.

    An observed ``p`` below ``p_buff`` (sampling noise) gives 0 rather than a negative value.
    """
    observed = probability("p", p)
    buffer_loss = probability("p_buff", p_buff, allow_one=False)
    ratio = (1.0 - observed) / (1.0 - buffer_loss)
    return max(0.0, 1.0 - math.sqrt(ratio))


def loss_rate_ewma(
    samples: Iterable[float], gain: float = 0.125, initial: float = 0.0
) -> list[float]:
    """Smoothed loss rates after each sample: ``avg[k] = (1 - gain) avg[k-1] + gain sample[k]``,
    ``avg[-1] = initial``. Returns one value per sample (probabilities).

    The seed smooths the measured ``p`` "following an estimation method of RTT values in TCP";
    its printed recursion is garbled, so this uses the RFC 6298 (2.3) form with the RTT gain
    ``alpha = 1/8`` as default (weight 7/8 on the previous average). ``gain`` in (0, 1],
    ``initial`` and every sample in [0, 1].
    """
    weight = probability("gain", gain, allow_zero=False)
    average = probability("initial", initial)
    result = []
    for index, sample in enumerate(samples):
        value = probability(f"samples[{index}]", sample)
        average = (1.0 - weight) * average + weight * value
        result.append(average)
    return result


def _p_buff_for(p_buff: PBuff, copies: int) -> float:
    if isinstance(p_buff, Sequence) and not isinstance(p_buff, (str, bytes)):
        if copies > len(p_buff):
            raise ValueError(
                f"p_buff: {len(p_buff)} values given; expected p_buff(n) for n = 1..{copies}"
            )
        return probability(f"p_buff[{copies - 1}]", p_buff[copies - 1])
    return probability("p_buff", p_buff)


def multi_ack_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    t0_s: float,
    p_err: float,
    p_buff: PBuff,
    copies: int,
    b: float = 1.0,
) -> float:
    """Throughput in bits per second with ``copies`` ACK copies: PFTK eq. (32) (the seed's
    ``S_TCP``, no window limit) at ``p = ack_loss_effective_p(p_err, p_buff(copies), copies)``.

    ``p_buff`` is one probability, or the sequence ``p_buff(1), p_buff(2), ...``. ``b`` >= 1 is
    the number of segments per ACK in the PFTK formula (1: every segment is acknowledged).
    ``p_err`` in [0, 1]; the effective ``p`` must be > 0 (PFTK needs some loss).
    """
    n = whole_at_least("copies", copies, 1)
    effective = ack_loss_effective_p(p_err, _p_buff_for(p_buff, n), n)
    if effective == 0.0:
        raise ValueError(
            "p_err, p_buff: both 0 give no loss; expected at least one > 0 "
            "(the PFTK model needs a loss probability > 0)"
        )
    return pftk_approx_throughput_bps(mss_bytes, rtt_s, effective, t0_s, b=b)


def best_ack_copies(
    p_err: float,
    p_buff: PBuff,
    rtt_s: float,
    t0_s: float,
    max_copies: int = 3,
    b: float = 1.0,
) -> int:
    """Number of ACK copies in ``1..max_copies`` with the highest throughput (the smallest
    count on a tie). ``p_err`` in (0, 1); other parameters as :func:`multi_ack_throughput_bps`.
    """
    loss = probability("p_err", p_err, allow_zero=False, allow_one=False)
    top = whole_at_least("max_copies", max_copies, 1)
    # The segment size scales every throughput alike; 1 byte keeps the comparison exact.
    rates = [
        multi_ack_throughput_bps(1.0, rtt_s, t0_s, loss, p_buff, n, b) for n in range(1, top + 1)
    ]
    best = max(rates)
    return 1 + rates.index(best)


def two_ack_p_err_range(
    rtt_s: float,
    t0_s: float,
    p_buff: PBuff,
    max_copies: int = 2,
    b: float = 1.0,
    grid: int = 1000,
    tolerance: float = 1e-9,
) -> tuple[float, float] | None:
    """Range ``(low, high)`` of ``p_err`` in which two ACK copies give the highest throughput
    among ``1..max_copies`` copies, or None if there is none.

    With ``max_copies=2`` this is where two ACKs beat one; with 3, where two are best as in the
    seed's claim. ``p_err`` is scanned on ``grid`` points of (0, 1) and each edge refined by
    bisection to ``tolerance``; an edge at the end of the domain is reported as 0.0 or 1.0.
    If two copies are best on several disjoint intervals, the hull is returned.
    """
    top = whole_at_least("max_copies", max_copies, 2)
    points = whole_at_least("grid", grid, 10)
    tol = positive("tolerance", tolerance)

    def two_best(p_err: float) -> bool:
        return best_ack_copies(p_err, p_buff, rtt_s, t0_s, top, b) == 2

    xs = [(i + 0.5) / points for i in range(points)]
    flags = [two_best(x) for x in xs]
    if not any(flags):
        return None
    first = flags.index(True)
    last = len(flags) - 1 - flags[::-1].index(True)
    low = 0.0 if first == 0 else _bisect(two_best, xs[first - 1], xs[first], tol)
    high = 1.0 if last == points - 1 else _bisect(two_best, xs[last + 1], xs[last], tol)
    return low, high


def _bisect(
    predicate: Callable[[float], bool], outside: float, inside: float, tolerance: float
) -> float:
    """Edge between a point where ``predicate`` is False and one where it is True."""
    while abs(inside - outside) > tolerance:
        middle = 0.5 * (inside + outside)
        if predicate(middle):
            inside = middle
        else:
            outside = middle
    return 0.5 * (inside + outside)


def crossover_p_buff(p_err: float, copies_low: int, copies_high: int, p_buff_low: float) -> float:
    """``p_buff(copies_high)`` that makes ``copies_high`` and ``copies_low`` copies equally good
    at ``p_err`` (in (0, 1)), given ``p_buff(copies_low)`` (in [0, 1)).

    Solves ``p(copies_high) = p(copies_low)``, i.e.
    ``1 - p_buff_high = (1 - p_buff_low)(1 - p_err(copies_low)) / (1 - p_err(copies_high))``.
    Example: ``crossover_p_buff(0.1, 1, 2, 0.01) = 1 - 0.99 * 0.81 / 0.891 = 0.1``.
    """
    loss = probability("p_err", p_err, allow_zero=False, allow_one=False)
    low = whole_at_least("copies_low", copies_low, 1)
    high = whole_at_least("copies_high", copies_high, 1)
    if high <= low:
        raise ValueError(
            f"copies_high: {copies_high!r} is out of range; expected more than copies_low = {low}"
        )
    buffer_low = probability("p_buff_low", p_buff_low, allow_one=False)
    survive_low = (1.0 - buffer_low) * (1.0 - radio_loss_probability(loss, low))
    return 1.0 - survive_low / (1.0 - radio_loss_probability(loss, high))
