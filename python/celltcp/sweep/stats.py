"""Statistics over replications: means with Student-t intervals, outcome probabilities with
Wilson score intervals.

For each grid point and numeric metric, over the n successful runs:

* mean x̄ and sample standard deviation s (divisor n − 1);
* the two-sided confidence interval x̄ ± t(1 − α/2; n − 1) · s / √n, which assumes the
  replications are independent and their mean roughly normal (Student 1908). With n = 1 there is
  no spread estimate, and std and the interval are NaN.

For each categorical metric (strings and booleans, e.g. ``stop_reason``) and outcome, the share
p̂ = k/n of runs with that outcome and its Wilson score interval (Wilson 1927; Brown, Cai &
DasGupta 2001 recommend it over the normal approximation for small n and p̂ near 0 or 1):

    (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n),  z = Φ⁻¹(1 − α/2).

The Student-t quantile is computed here, without SciPy: the t distribution function is
F(t) = 1 − ½·I_x(ν/2, ½) with x = ν/(ν + t²) for t ≥ 0 (Abramowitz & Stegun 26.7.1 with
26.5.27), where I is the regularized incomplete beta function, evaluated by its continued
fraction (DLMF 8.17.22) with the modified Lentz method; F is then inverted by bisection to full
double precision. The normal quantile Φ⁻¹ is the standard library's
``statistics.NormalDist().inv_cdf``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "incomplete_beta",
    "is_categorical",
    "mean_interval",
    "outcomes",
    "summarize",
    "t_cdf",
    "t_quantile",
    "wilson_interval",
]

_CF_MAX_TERMS = 10_000
_CF_EPS = 1e-16
_TINY = 1e-300


def _beta_continued_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b) (DLMF 8.17.22), by the modified Lentz method:
    1 / (1 + d1 / (1 + d2 / (1 + ...))) with
    d(2m+1) = −(a+m)(a+b+m) x / ((a+2m)(a+2m+1)) and d(2m) = m(b−m) x / ((a+2m−1)(a+2m))."""
    f = 1.0
    c = 1.0
    d = 0.0
    for n in range(1, _CF_MAX_TERMS):
        m = n // 2
        if n % 2:
            coeff = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        else:
            coeff = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1.0 + coeff * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + coeff / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = c * d
        f *= delta
        if abs(delta - 1.0) < _CF_EPS:
            return 1.0 / f
    raise ArithmeticError(f"incomplete beta did not converge for x={x}, a={a}, b={b}")


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for 0 ≤ x ≤ 1 and a, b > 0."""
    if not (a > 0 and b > 0):
        raise ValueError(f"incomplete_beta needs a, b > 0 (got {a}, {b})")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"incomplete_beta needs 0 <= x <= 1 (got {x})")
    if x == 0.0 or x == 1.0:
        return x
    # The fraction converges fast for x < (a+1)/(a+b+2); otherwise use I_x(a,b) = 1 − I_{1−x}(b,a).
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - incomplete_beta(1.0 - x, b, a)
    log_front = (
        a * math.log(x) + b * math.log1p(-x) + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    )
    # DLMF 8.17.22: I_x(a,b) = x^a (1−x)^b / (a B(a,b)) · (1 / (1 + d1/(1 + d2/(1 + ...)))).
    return math.exp(log_front) / a * _beta_continued_fraction(x, a, b)


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0 (got {df})")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t >= 0 else tail


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (the t with P(T ≤ t) = p).

    >>> round(t_quantile(0.975, 4), 6)
    2.776445
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1) (got {p})")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0 (got {df})")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return math.inf
    # Bisection halves the bracket each step; stop when it no longer shrinks (full precision).
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def mean_interval(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[int, float, float, float, float]:
    """(n, mean, std, low, high) of the finite values, with a Student-t interval."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return 0, math.nan, math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n == 1:
        return 1, mean, math.nan, math.nan, math.nan
    std = float(x.std(ddof=1))
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * std / math.sqrt(n)
    return n, mean, std, mean - half, mean + half


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n."""
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n (got k={k}, n={n})")
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p = k / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n))
    # At k = 0 (k = n) the bound is exactly 0 (1); say so rather than leave rounding residue.
    lo = 0.0 if k == 0 else max(centre - half, 0.0)
    hi = 1.0 if k == n else min(centre + half, 1.0)
    return lo, hi


def is_categorical(values: Sequence[Any]) -> bool:
    """True when the non-null values include a string or a boolean (outcomes, not measures)."""
    present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return any(isinstance(v, (str, bool, np.bool_)) for v in present)


def _group_column(frame: pd.DataFrame) -> str | None:
    """What identifies a grid point: ``point`` in a sweep's frame; ``key`` (the resolved
    scenario) in a whole store's frame, where point numbers of different sweeps collide."""
    for column in ("point", "key"):
        if column in frame.columns:
            return column
    return None


def _label_columns(frame: pd.DataFrame, parameters: Sequence[str]) -> list[str]:
    by = _group_column(frame)
    return ([by] if by else []) + [p for p in parameters if p != by]


def _groups(
    frame: pd.DataFrame, parameters: Sequence[str]
) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    by = _group_column(frame)
    keys = [by] if by else list(parameters)
    if not keys:
        return [({}, frame)]
    labels = _label_columns(frame, parameters)
    out = []
    # Groups in order of first appearance: the frame is already in point order.
    for _, group in frame.groupby(keys, sort=False, dropna=False):
        first = group.iloc[0]
        out.append(({k: first[k] for k in labels}, group))
    return out


def _ok(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["status"] == "ok"] if "status" in frame.columns else frame


def _attr_list(frame: pd.DataFrame, name: str, given: Sequence[str] | None) -> list[str]:
    if given is not None:
        return list(given)
    return list(frame.attrs.get(name, []))


def summarize(
    frame: pd.DataFrame,
    *,
    parameters: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per point and numeric metric: n, mean, std, and the Student-t confidence interval.

    ``frame`` is what :func:`celltcp.sweep` returns (its ``attrs`` name the parameter and
    metric columns; pass them explicitly for other frames). Failed runs are left out and counted
    in ``failed``. Columns: the point's parameters, ``metric``, ``n``, ``failed``, ``mean``,
    ``std``, ``ci_low``, ``ci_high``.
    """
    parameters = _attr_list(frame, "parameters", parameters)
    metrics = _attr_list(frame, "metrics", metrics)
    rows = []
    for label, group in _groups(frame, parameters):
        ok = _ok(group)
        failed = len(group) - len(ok)
        for m in metrics:
            if m not in group.columns or is_categorical(list(group[m])):
                continue
            n, mean, std, lo, hi = mean_interval(list(ok[m]), confidence)
            rows.append(
                {
                    **label,
                    "metric": m,
                    "n": n,
                    "failed": failed,
                    "mean": mean,
                    "std": std,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    columns = _label_columns(frame, parameters) + [
        "metric",
        "n",
        "failed",
        "mean",
        "std",
        "ci_low",
        "ci_high",
    ]
    out = pd.DataFrame(rows, columns=columns)
    out.attrs["confidence"] = confidence
    return out


def outcomes(
    frame: pd.DataFrame,
    *,
    parameters: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per point, categorical metric and outcome: count k of n runs, p = k/n and its Wilson
    score interval. Columns: the parameters, ``metric``, ``outcome``, ``k``, ``n``, ``p``,
    ``ci_low``, ``ci_high``."""
    parameters = _attr_list(frame, "parameters", parameters)
    metrics = _attr_list(frame, "metrics", metrics)
    rows = []
    for label, group in _groups(frame, parameters):
        ok = _ok(group)
        for m in metrics:
            if m not in group.columns or not is_categorical(list(group[m])):
                continue
            values = [
                v for v in ok[m] if v is not None and not (isinstance(v, float) and math.isnan(v))
            ]
            n = len(values)
            counts: dict[Any, int] = {}
            for v in values:
                counts[v] = counts.get(v, 0) + 1
            for outcome in sorted(counts, key=lambda v: (type(v).__name__, str(v))):
                k = counts[outcome]
                lo, hi = wilson_interval(k, n, confidence)
                rows.append(
                    {
                        **label,
                        "metric": m,
                        "outcome": outcome,
                        "k": k,
                        "n": n,
                        "p": k / n,
                        "ci_low": lo,
                        "ci_high": hi,
                    }
                )
    columns = _label_columns(frame, parameters) + [
        "metric",
        "outcome",
        "k",
        "n",
        "p",
        "ci_low",
        "ci_high",
    ]
    out = pd.DataFrame(rows, columns=columns)
    out.attrs["confidence"] = confidence
    return out
