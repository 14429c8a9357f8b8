"""Verdicts that can fail: every claim of a seed is decided by a stated statistical test on the
replications, with its p-value, its n and its power.

The rules (docs/reproductions.md, "How verdicts are decided"):

* **Tests.** A difference of means: Welch's t-test (two samples with unequal variances, Welch
  1947; degrees of freedom by Welch–Satterthwaite), or the one-sample t-test against a reference
  value; as an alternative, non-overlapping 95 % Student-t intervals (stricter than the test:
  two intervals can overlap while the difference is significant). A difference of proportions:
  Fisher's exact test (two samples; hypergeometric, two-sided p as in R's ``fisher.test``: the
  probability of the tables no more likely than the observed one), the exact binomial test
  against a reference proportion, and for two classes of one set of runs (one run falls in one
  class only, so the counts are not independent) the binomial test of one class's share of the
  runs in either against ½. Proportions carry Wilson score intervals. A ratio of two means is
  tested on the log scale with the delta method. A quantity equal to a value within a margin,
  or to the seed's number within ×1.5: two one-sided t-tests (TOST, :func:`within`). A claim
  that an event never happens: the exact binomial test of its rate against
  :data:`ZERO_TOLERANCE` with the Clopper–Pearson interval (:func:`rate_below`) — never a
  comparison with a setting known to be worse, which any smaller rate would pass.
* **Alpha.** Two-sided tests at :data:`ALPHA` = 0.05.
* **Power.** For a stated effect (the seed's own difference; without one, 20 % of the larger
  mean compared, a 20 % change of a ratio, or 0.2 of probability) and the observed variance:
  the probability that the test is significant at the given replications (t-tests: the
  noncentral t distribution; Fisher and binomial: exact enumeration), and the replications
  per group needed for :data:`POWER_TARGET` = 80 % (the arcsine approximation for
  proportions); for a claim at several points, those at which all (one) of them holding
  reach it. A verdict whose power is below the target says so in its text
  (:func:`underpowered`).
* **Three outcomes** (:class:`Verdict`): *reproduced* (significant, in the direction the seed
  claims), *not significant*, *contradicted* (significant, in the opposite direction). With
  fewer than two replications in a sample there is no variance: the verdict is *not
  significant (one run)*, never reproduced. A claim checked at several points (every UE count,
  every rate) is reproduced when every point is (an intersection–union test, valid at α without
  correction), contradicted when one point is contradicted at α/m (Bonferroni over m points),
  and not significant otherwise.
* **Magnitude.** Where the seed gives a number, a second label compares celltcp's estimate with
  it: "magnitude within ×1.5" when the ratio lies in [1/1.5, 1.5], otherwise "magnitude off ×k"
  (k ≥ 1 the factor between them); "direction only" where the seed gives none. Where the seed
  gives a number at several points, the label judges every point and gives the range of the
  ratios (:func:`magnitudes`).

The standard library and numpy only (SciPy is not a dependency): Student's t from the
regularized incomplete beta function in :mod:`celltcp.sweep.stats`, the noncentral t by
integrating the normal distribution over the chi distribution, the hypergeometric and binomial
distributions from log-gamma.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

from celltcp.sweep.stats import t_cdf, t_quantile, wilson_interval

if TYPE_CHECKING:
    from celltcp.reproduce.document import ClaimTable

__all__ = [
    "ALPHA",
    "CLAIM_HEADER",
    "DEFAULT_RELATIVE_EFFECT",
    "MAGNITUDE_FACTOR",
    "POWER_TARGET",
    "ZERO_TOLERANCE",
    "ClaimRow",
    "ClaimTable",
    "Decision",
    "Estimate",
    "Proportion",
    "Sample",
    "Test",
    "Verdict",
    "any_of",
    "binomial_power",
    "binomial_test",
    "claim_table",
    "combine",
    "decide",
    "equivalence",
    "exact_interval",
    "fisher_exact",
    "fisher_power",
    "fisher_test",
    "intervals_test",
    "magnitude",
    "magnitudes",
    "newcombe_interval",
    "noncentral_t_cdf",
    "noninferiority",
    "one_sample_test",
    "point_decision",
    "point_ratios",
    "rate_below",
    "ratio_range",
    "ratio_test",
    "ratios_test",
    "replications_for_power",
    "share_test",
    "shortfall",
    "t_power",
    "unavailable",
    "underpowered",
    "welch_test",
    "wilson_interval",
    "within",
    "within_factor",
]

#: Significance level of every test (two-sided).
ALPHA = 0.05
#: The power a verdict asks of its test; the replications needed for it are reported.
POWER_TARGET = 0.8
#: celltcp's number is "within" the seed's when their ratio is in [1/1.5, 1.5].
MAGNITUDE_FACTOR = 1.5
#: The effect a test's power is computed for when the seed gives no number: this share of the
#: larger of the two means compared (a 20 % difference).
DEFAULT_RELATIVE_EFFECT = 0.2
#: The effect, in absolute probability, when a claim about proportions has no number.
DEFAULT_PROPORTION_EFFECT = 0.2

_Z = NormalDist()


class Verdict(enum.Enum):
    """The three outcomes of a claim."""

    REPRODUCED = "reproduced"
    NOT_SIGNIFICANT = "not significant"
    CONTRADICTED = "contradicted"


def _sign(relation: str | int) -> int:
    """+1 for a claim that the first quantity is larger (">", "greater", +1), −1 for smaller."""
    if relation in (">", "greater", 1):
        return 1
    if relation in ("<", "less", -1):
        return -1
    raise ValueError(f"relation: {relation!r} is not one of '>', '<'")


# -- samples -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """Replications of one quantity, summarised: mean, sample standard deviation (n − 1), n."""

    mean: float
    sd: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Sample:
        """The summary of the finite values (NaN, None and infinities are left out)."""
        x = np.asarray([v for v in values if v is not None], dtype=float)
        x = x[np.isfinite(x)]
        n = int(x.size)
        if n == 0:
            return cls(math.nan, math.nan, 0)
        return cls(float(x.mean()), float(x.std(ddof=1)) if n > 1 else math.nan, n)

    @classmethod
    def from_interval(cls, mean: float, half: float, n: int, confidence: float = 0.95) -> Sample:
        """The summary behind ``mean ± half``, a Student-t interval over ``n`` replications."""
        if n < 2 or not math.isfinite(half):
            return cls(mean, math.nan, n)
        return cls(mean, half * math.sqrt(n) / t_quantile(0.5 + confidence / 2.0, n - 1), n)

    @property
    def se(self) -> float:
        """Standard error of the mean (NaN with fewer than two replications)."""
        return self.sd / math.sqrt(self.n) if self.n >= 2 else math.nan

    def half(self, confidence: float = 0.95) -> float:
        """Half-width of the Student-t interval of the mean."""
        if self.n < 2:
            return math.nan
        return t_quantile(0.5 + confidence / 2.0, self.n - 1) * self.se

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        h = self.half(confidence)
        return self.mean - h, self.mean + h


@dataclass(frozen=True)
class Proportion:
    """k of n runs with a property, with the Wilson score 95 % interval."""

    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else math.nan

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        return wilson_interval(self.k, self.n, confidence)


def _sample(x: Sample | Sequence[float] | np.ndarray) -> Sample:
    return x if isinstance(x, Sample) else Sample.of(x)


# -- distributions -----------------------------------------------------------------------------


def _phi(x: np.ndarray) -> np.ndarray:
    """The standard normal distribution function, elementwise."""
    erf = np.vectorize(math.erf, otypes=[float])
    return np.asarray(0.5 * (1.0 + erf(x / math.sqrt(2.0))))


def noncentral_t_cdf(t: float, df: float, nc: float) -> float:
    """P(T ≤ t) for the noncentral t with ``df`` degrees of freedom and noncentrality ``nc``.

    T = (Z + nc)/√(V/df) with Z standard normal and V chi-square: P(T ≤ t) = E[Φ(t·S/√df − nc)]
    over S = √V, chi-distributed, integrated by Simpson's rule over S's mass (±12 of its standard
    deviation ≈ 1/√2 around √df, which holds all but ~1e-30 of it)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0 (got {df})")
    if math.isinf(df):
        return _Z.cdf(t - nc)
    centre = math.sqrt(max(df - 0.5, 0.0))
    lo, hi = max(0.0, centre - 12.0), centre + 12.0
    s = np.linspace(lo, hi, 4001)
    with np.errstate(divide="ignore", invalid="ignore"):
        power_term = np.zeros_like(s) if df == 1.0 else (df - 1.0) * np.log(s)
        log_f = power_term - s * s / 2.0 - (df / 2.0 - 1.0) * math.log(2.0) - math.lgamma(df / 2.0)
    f = np.exp(log_f)
    f[~np.isfinite(f)] = 0.0
    g = f * _phi(t * s / math.sqrt(df) - nc)
    h = (hi - lo) / (len(s) - 1)
    simpson = h / 3.0 * (g[0] + g[-1] + 4.0 * g[1:-1:2].sum() + 2.0 * g[2:-1:2].sum())
    return float(min(max(simpson, 0.0), 1.0))


def t_power(effect: float, se: float, df: float, alpha: float = ALPHA) -> float:
    """Power of the two-sided t-test at ``alpha`` when the true difference is ``effect`` and the
    estimate's standard error is ``se`` with ``df`` degrees of freedom."""
    if not (se > 0 and df > 0) or not math.isfinite(effect):
        return math.nan
    crit = t_quantile(1.0 - alpha / 2.0, df)
    nc = abs(effect) / se
    return 1.0 - noncentral_t_cdf(crit, df, nc) + noncentral_t_cdf(-crit, df, nc)


def _welch_df(va: float, na: int, vb: float, nb: int) -> float:
    """Welch–Satterthwaite degrees of freedom of the difference of two means."""
    a, b = va / na, vb / nb
    den = (a * a / (na - 1) if a else 0.0) + (b * b / (nb - 1) if b else 0.0)
    return (a + b) ** 2 / den if den > 0 else float(na + nb - 2)


def replications_for_power(
    power_at: Callable[[int], float], target: float = POWER_TARGET, limit: int = 100_000
) -> int | None:
    """The smallest n ≥ 2 with ``power_at(n) ≥ target`` (power grows with n), by doubling and
    bisection; None when even ``limit`` replications do not reach it."""
    if power_at(2) >= target:
        return 2
    lo, hi = 2, 4
    while not power_at(hi) >= target:
        lo, hi = hi, hi * 2
        if hi > limit:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _binomial_pmf(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1)
    if p <= 0.0:
        return np.asarray(k == 0, dtype=float)
    if p >= 1.0:
        return np.asarray(k == n, dtype=float)
    log = np.array([_log_choose(n, i) for i in range(n + 1)]) + k * math.log(p)
    return np.asarray(np.exp(log + (n - k) * math.log1p(-p)))


#: Relative tolerance when comparing table probabilities (as R's fisher.test and binom.test).
_REL_TOL = 1.0 + 1e-7


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test of k1/n1 against k2/n2: the hypergeometric
    probability, with the margins fixed, of the tables no more likely than the observed one."""
    if not (0 <= k1 <= n1 and 0 <= k2 <= n2):
        raise ValueError(f"need 0 <= k <= n (got {k1}/{n1}, {k2}/{n2})")
    total, column = n1 + n2, k1 + k2
    lo, hi = max(0, column - n2), min(column, n1)
    if lo == hi:
        return 1.0

    def log_p(x: int) -> float:
        return _log_choose(n1, x) + _log_choose(n2, column - x) - _log_choose(total, column)

    observed = log_p(k1)
    probs = [math.exp(log_p(x)) for x in range(lo, hi + 1)]
    cut = math.exp(observed) * _REL_TOL
    return float(min(1.0, sum(p for p in probs if p <= cut)))


def _binomial_p(k: int, n: int, p0: float) -> float:
    """Two-sided p-value of the exact binomial test of k of n against p0 (R's binom.test)."""
    pmf = _binomial_pmf(n, p0)
    return float(min(1.0, pmf[pmf <= pmf[k] * _REL_TOL].sum()))


def fisher_power(p1: float, p2: float, n1: int, n2: int, alpha: float = ALPHA) -> float:
    """Power of Fisher's exact test at ``alpha`` for true proportions p1 and p2 with n1 and n2
    runs: the probability of the tables it finds significant, enumerated exactly."""
    a, b = _binomial_pmf(n1, p1), _binomial_pmf(n2, p2)
    power = 0.0
    for k1 in range(n1 + 1):
        if a[k1] < 1e-15:
            continue
        for k2 in range(n2 + 1):
            if b[k2] >= 1e-15 and fisher_exact(k1, n1, k2, n2) < alpha:
                power += a[k1] * b[k2]
    return min(power, 1.0)


def binomial_power(p: float, n: int, p0: float, alpha: float = ALPHA) -> float:
    """Power of the exact two-sided binomial test of p0 at ``alpha`` when the true proportion is
    ``p``, with n runs."""
    pmf = _binomial_pmf(n, p)
    return float(sum(pmf[k] for k in range(n + 1) if _binomial_p(k, n, p0) < alpha))


def _arcsine_n(p1: float, p2: float, one_sample: bool, target: float = POWER_TARGET) -> int | None:
    """Runs (per group) for ``target`` power by the arcsine approximation (Cohen's h)."""
    h = abs(
        2.0 * math.asin(math.sqrt(min(max(p1, 0.0), 1.0)))
        - 2.0 * math.asin(math.sqrt(min(max(p2, 0.0), 1.0)))
    )
    if h == 0:
        return None
    z = _Z.inv_cdf(1.0 - ALPHA / 2.0) + _Z.inv_cdf(target)
    return max(2, math.ceil((z / h) ** 2 * (1.0 if one_sample else 2.0)))


# -- tests -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Test:
    """One test's result.

    Attributes:
        kind: the test's name ("Welch's t-test", "Fisher's exact test", ...).
        effect: the observed effect on the test's scale; its sign is the direction found (first
            quantity minus the second, or minus the reference).
        p_value: two-sided p-value.
        n: replications of each sample.
        significant: whether the test's rule rejects "no difference" at :data:`ALPHA`.
        power: the probability of a significant result for the stated effect at these n.
        n_for_power: replications per sample for :data:`POWER_TARGET` (None: not reachable or
            undefined).
        power_for: the stated effect the power refers to, in words.
        note: why the test cannot decide (one run, no variance), or an empty string.
    """

    kind: str
    effect: float
    p_value: float
    n: tuple[int, ...]
    significant: bool
    power: float
    n_for_power: int | None
    power_for: str = ""
    note: str = ""
    #: A combination of tests at several points: "all" (:func:`combine`), "any"
    #: (:func:`any_of`), or "" for a single test.
    combined: str = ""
    #: How a combined test's p-value was formed ("the largest", "Bonferroni"), shown after it.
    p_is: str = ""
    #: The power for the stated effect at n replications per sample (the observed variances
    #: kept): what :func:`combine` and :func:`any_of` need to find the replications at which a
    #: claim checked at several points reaches :data:`POWER_TARGET`. None where undefined.
    power_at: Callable[[int], float] | None = field(default=None, compare=False, repr=False)

    @property
    def family(self) -> str:
        """The test's name without its numbers ("exact binomial test", "one-sample t-test")."""
        name = re.sub(r" of \d+ against \d+ of \d+ runs$", " of two classes", self.kind)
        return re.sub(r" against [-+0-9.e]+", "", name)

    def effect_sign(self) -> int:
        """+1, −1, or 0 for no (or an undefined) effect."""
        if not math.isfinite(self.effect) or self.effect == 0:
            return 0
        return 1 if self.effect > 0 else -1

    def describe(self) -> str:
        """``Welch's t-test, p = 0.012, n = 8/8, power 0.74 for +20 % (80 % needs n = 11)``."""
        n = (
            f"{self.n[0]}"
            if self.combined and len(set(self.n)) == 1
            else "/".join(str(x) for x in self.n)
        )
        parts = [
            self.kind,
            _p_text(self.p_value) + (f" ({self.p_is})" if self.p_is and self.significant else ""),
            f"n = {n}" + (" at each" if self.combined and len(set(self.n)) == 1 else ""),
        ]
        target = f"{100 * POWER_TARGET:.0f} %"
        if math.isnan(self.power):
            parts.append("power n/a")
        elif self.combined:
            held = "all holding" if self.combined == "all" else "one holding"
            needs = (
                ""
                if self.n_for_power is None
                else f"; {target} of {held} needs n = {self.n_for_power} at each point"
            )
            parts.append(f"power {self.power:.2f} of {held}" + needs)
        else:
            needs = "" if self.n_for_power is None else f"; {target} needs n = {self.n_for_power}"
            parts.append(
                f"power {self.power:.2f}"
                + (f" for {self.power_for}" if self.power_for else "")
                + needs
            )
        if self.note:
            parts.append(self.note)
        return ", ".join(parts)


def underpowered(test: Test) -> str:
    """``underpowered: n = 5, 80 % power needs n = 20`` when the test's power for its stated
    effect is below :data:`POWER_TARGET` at the replications it had (the smallest sample's n),
    else an empty string. Every verdict's text carries it (:meth:`Decision.text`)."""
    if not (math.isfinite(test.power) and test.power < POWER_TARGET):
        return ""
    target = f"{100 * POWER_TARGET:.0f} % power"
    need = (
        f"{target} needs n = {test.n_for_power}"
        if test.n_for_power is not None
        else f"{target} out of reach"
    )
    return f"underpowered: n = {min(test.n)}, {need}" + (" at each point" if test.combined else "")


def _p_text(p: float) -> str:
    if math.isnan(p):
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _certain(n: int) -> float:
    """The power of a test whose samples have no spread: any true difference is found."""
    return 1.0


def _too_few(kind: str, effect: float, n: tuple[int, ...]) -> Test:
    """A test that cannot be made: fewer than two replications in a sample."""
    note = "one run" if min(n) == 1 else ("no runs" if min(n) == 0 else "too few runs")
    return Test(kind, effect, math.nan, n, False, math.nan, None, "", note)


def _stated_effect(effect: float | None, baseline: float, relative: float) -> tuple[float, str]:
    if effect is not None:
        return abs(effect), f"a difference of {abs(effect):.3g}"
    return abs(relative * baseline), f"{100 * relative:.0f} % of {abs(baseline):.3g}"


def welch_test(
    a: Sample | Sequence[float],
    b: Sample | Sequence[float],
    effect: float | None = None,
    relative: float = DEFAULT_RELATIVE_EFFECT,
) -> Test:
    """Welch's t-test of mean(a) − mean(b). Power for the absolute difference ``effect`` (the
    seed's, say), or else ``relative`` × the larger |mean|, at the observed variances."""
    a, b = _sample(a), _sample(b)
    kind = "Welch's t-test"
    diff = a.mean - b.mean
    if min(a.n, b.n) < 2:
        return _too_few(kind, diff, (a.n, b.n))
    va, vb = a.sd**2, b.sd**2
    se = math.sqrt(va / a.n + vb / b.n)
    stated, words = _stated_effect(effect, max(abs(a.mean), abs(b.mean)), relative)
    if se == 0.0:
        # No spread in either sample: any difference is certain, none is none.
        p = 0.0 if diff != 0 else 1.0
        return Test(
            kind,
            diff,
            p,
            (a.n, b.n),
            diff != 0,
            1.0 if stated > 0 else math.nan,
            2 if stated > 0 else None,
            words,
            "no spread in either sample",
            power_at=_certain if stated > 0 else None,
        )
    df = _welch_df(va, a.n, vb, b.n)
    t = diff / se
    p = 2.0 * t_cdf(-abs(t), df)

    def power_at(n: int) -> float:
        return t_power(stated, math.sqrt(va / n + vb / n), _welch_df(va, n, vb, n))

    power = t_power(stated, se, df)
    need = replications_for_power(power_at) if stated > 0 else None
    return Test(
        kind,
        diff,
        p,
        (a.n, b.n),
        p < ALPHA,
        power,
        need,
        words,
        power_at=power_at if stated > 0 else None,
    )


def one_sample_test(
    a: Sample | Sequence[float],
    reference: float,
    effect: float | None = None,
    relative: float = DEFAULT_RELATIVE_EFFECT,
) -> Test:
    """The one-sample t-test of mean(a) − ``reference``. Power for the absolute difference
    ``effect``, or else ``relative`` × the larger of |reference| and |mean(a)|."""
    a = _sample(a)
    kind = f"one-sample t-test against {reference:.4g}"
    diff = a.mean - reference
    if a.n < 2:
        return _too_few(kind, diff, (a.n,))
    stated, words = _stated_effect(effect, max(abs(reference), abs(a.mean)), relative)
    if a.sd == 0.0:
        p = 0.0 if diff != 0 else 1.0
        return Test(
            kind,
            diff,
            p,
            (a.n,),
            diff != 0,
            1.0 if stated > 0 else math.nan,
            2 if stated > 0 else None,
            words,
            "no spread in the sample",
            power_at=_certain if stated > 0 else None,
        )
    t = diff / a.se
    p = 2.0 * t_cdf(-abs(t), a.n - 1)
    power = t_power(stated, a.se, a.n - 1)
    sd = a.sd

    def power_at(n: int) -> float:
        return t_power(stated, sd / math.sqrt(n), n - 1)

    need = replications_for_power(power_at) if stated > 0 else None
    return Test(
        kind,
        diff,
        p,
        (a.n,),
        p < ALPHA,
        power,
        need,
        words,
        power_at=power_at if stated > 0 else None,
    )


def intervals_test(
    a: Sample | Sequence[float],
    b: Sample | Sequence[float],
    effect: float | None = None,
    relative: float = DEFAULT_RELATIVE_EFFECT,
) -> Test:
    """Non-overlapping 95 % Student-t intervals of mean(a) and mean(b): significant when they
    are apart. The p-value shown is Welch's; the power is that of the interval rule (a normal
    approximation: the difference must exceed the sum of the half-widths)."""
    a, b = _sample(a), _sample(b)
    welch = welch_test(a, b, effect, relative)
    kind = "95 % intervals apart"
    if min(a.n, b.n) < 2:
        return _too_few(kind, welch.effect, (a.n, b.n))
    (la, ha), (lb, hb) = a.interval(), b.interval()
    apart = ha < lb or hb < la
    stated, words = _stated_effect(effect, max(abs(a.mean), abs(b.mean)), relative)
    va, vb = a.sd**2, b.sd**2

    def power_at(n: int) -> float:
        se = math.sqrt(va / n + vb / n)
        if se == 0:
            return 1.0 if stated > 0 else 0.0
        gap = t_quantile(0.975, n - 1) * (a.sd + b.sd) / math.sqrt(n)
        return _Z.cdf((stated - gap) / se) + _Z.cdf((-stated - gap) / se)

    se = math.sqrt(va / a.n + vb / b.n)
    if se == 0:
        power = 1.0 if stated > 0 else math.nan
    else:
        gap = a.half() + b.half()
        power = _Z.cdf((stated - gap) / se) + _Z.cdf((-stated - gap) / se)
    need = replications_for_power(power_at) if stated > 0 else None
    return Test(
        kind,
        welch.effect,
        welch.p_value,
        (a.n, b.n),
        apart,
        power,
        need,
        words,
        welch.note,
        power_at=power_at if stated > 0 else None,
    )


def ratio_test(
    num: Sample,
    den: Sample,
    reference: float = 1.0,
    effect: float | None = None,
    relative: float = DEFAULT_RELATIVE_EFFECT,
) -> Test:
    """Test of the ratio of two independent means against ``reference``, on the log scale:
    log(mean(num)/mean(den)) − log(reference) with the delta-method standard error
    √(s²/(n·m²) summed over both) and Welch–Satterthwaite degrees of freedom. The effect is
    reported as the ratio over the reference minus one (its sign is the direction). Power for a
    relative change ``effect`` of the ratio (or ``relative``)."""
    kind = f"t-test of the ratio against {reference:.3g} (log scale)"
    if min(num.n, den.n) < 2:
        value = num.mean / den.mean / reference - 1 if den.mean else math.nan
        return _too_few(kind, value, (num.n, den.n))
    if not (num.mean > 0 and den.mean > 0 and reference > 0):
        return Test(
            kind,
            math.nan,
            math.nan,
            (num.n, den.n),
            False,
            math.nan,
            None,
            "",
            "a mean is not positive",
        )
    log_r = math.log(num.mean / den.mean) - math.log(reference)
    va = (num.sd / num.mean) ** 2
    vb = (den.sd / den.mean) ** 2
    se = math.sqrt(va / num.n + vb / den.n)
    stated = abs(math.log1p(effect if effect is not None else relative))
    words = f"a change of {100 * abs(math.expm1(stated)):.0f} %"
    if se == 0:
        p = 0.0 if log_r != 0 else 1.0
        return Test(
            kind,
            math.expm1(log_r),
            p,
            (num.n, den.n),
            log_r != 0,
            1.0,
            2,
            words,
            "no spread in either sample",
            power_at=_certain,
        )
    df = _welch_df(va, num.n, vb, den.n)
    p = 2.0 * t_cdf(-abs(log_r / se), df)
    power = t_power(stated, se, df)

    def power_at(n: int) -> float:
        return t_power(stated, math.sqrt(va / n + vb / n), _welch_df(va, n, vb, n))

    need = replications_for_power(power_at)
    return Test(
        kind,
        math.expm1(log_r),
        p,
        (num.n, den.n),
        p < ALPHA,
        power,
        need,
        words,
        power_at=power_at,
    )


def ratios_test(
    a: tuple[Sample, Sample],
    b: tuple[Sample, Sample],
    effect: float | None = None,
    relative: float = DEFAULT_RELATIVE_EFFECT,
) -> Test:
    """Test of one ratio of means against another, (a₀/a₁)/(b₀/b₁) against 1, on the log scale
    (four independent samples; delta-method standard error, Welch–Satterthwaite degrees of
    freedom over the four). The effect is the ratio of the ratios minus one. Power for a
    relative change ``effect`` (or ``relative``)."""
    kind = "t-test of a ratio of ratios (log scale)"
    samples = (*a, *b)
    n = tuple(s.n for s in samples)
    means = [s.mean for s in samples]
    value = (means[0] / means[1]) / (means[2] / means[3]) - 1 if all(means) else math.nan
    if min(n) < 2:
        return _too_few(kind, value, n)
    if not all(m > 0 for m in means):
        return Test(
            kind, math.nan, math.nan, n, False, math.nan, None, "", "a mean is not positive"
        )
    cv2 = [(s.sd / s.mean) ** 2 for s in samples]
    terms = [v / s.n for v, s in zip(cv2, samples, strict=True)]
    se = math.sqrt(sum(terms))
    stated = abs(math.log1p(effect if effect is not None else relative))
    words = f"a change of {100 * abs(math.expm1(stated)):.0f} %"
    log_r = math.log1p(value)
    if se == 0:
        p = 0.0 if log_r != 0 else 1.0
        return Test(
            kind,
            value,
            p,
            n,
            log_r != 0,
            1.0,
            2,
            words,
            "no spread in the samples",
            power_at=_certain,
        )

    def df_of(ns: Sequence[int]) -> float:
        t = [v / k for v, k in zip(cv2, ns, strict=True)]
        den = sum(x * x / (k - 1) for x, k in zip(t, ns, strict=True) if x)
        return sum(t) ** 2 / den if den > 0 else float(sum(ns) - len(ns))

    df = df_of(n)
    p = 2.0 * t_cdf(-abs(log_r / se), df)
    power = t_power(stated, se, df)

    def power_at(k: int) -> float:
        return t_power(stated, math.sqrt(sum(cv2) / k), df_of([k] * 4))

    need = replications_for_power(power_at)
    return Test(kind, value, p, n, p < ALPHA, power, need, words, power_at=power_at)


def fisher_test(
    a: Proportion, b: Proportion, effect: float | None = None, relative: float | None = None
) -> Test:
    """Fisher's exact test of a.k/a.n against b.k/b.n (two independent sets of runs). Power for
    a true difference ``effect`` in absolute probability (or ``relative`` × b's share, or
    :data:`DEFAULT_PROPORTION_EFFECT`) away from b's share, enumerated exactly for up to 200
    runs per set (the arcsine approximation beyond)."""
    kind = "Fisher's exact test"
    diff = a.value - b.value
    if min(a.n, b.n) < 2:
        return _too_few(kind, diff, (a.n, b.n))
    p = fisher_exact(a.k, a.n, b.k, b.n)
    base = b.value
    if effect is None:
        effect = relative * base if relative is not None else DEFAULT_PROPORTION_EFFECT
    stated = abs(effect)
    # The alternative in the direction observed (up if a is not below b), kept inside [0, 1].
    target = base + stated if diff >= 0 else base - stated
    if not 0.0 <= target <= 1.0:
        target = base - stated if diff >= 0 else base + stated
    target = min(max(target, 0.0), 1.0)
    words = f"a true {target:.2f} against {base:.2f}"
    if max(a.n, b.n) <= 200:
        power = fisher_power(target, base, a.n, b.n)
    else:
        power = _arcsine_power(target, base, a.n, b.n)
    need = _arcsine_n(target, base, one_sample=False)

    def power_at(n: int) -> float:
        return _arcsine_power(target, base, n, n)

    return Test(kind, diff, p, (a.n, b.n), p < ALPHA, power, need, words, power_at=power_at)


def _arcsine_power(p1: float, p2: float, n1: int, n2: float | None) -> float:
    h = abs(2.0 * math.asin(math.sqrt(p1)) - 2.0 * math.asin(math.sqrt(p2)))
    scale = math.sqrt(1.0 / n1 + (1.0 / n2 if n2 else 0.0))
    z = _Z.inv_cdf(1.0 - ALPHA / 2.0)
    return _Z.cdf(h / scale - z) + _Z.cdf(-h / scale - z)


def binomial_test(a: Proportion, p0: float, effect: float | None = None) -> Test:
    """The exact binomial test of a.k of a.n against the proportion ``p0``. Power for a true
    proportion ``effect`` away from p0 (default :data:`DEFAULT_PROPORTION_EFFECT`), in the
    direction observed."""
    kind = f"exact binomial test against {p0:.3g}"
    diff = a.value - p0
    if a.n < 2:
        return _too_few(kind, diff, (a.n,))
    p = _binomial_p(a.k, a.n, p0)
    stated = abs(effect) if effect is not None else DEFAULT_PROPORTION_EFFECT
    target = p0 + stated if diff >= 0 else p0 - stated
    if not 0.0 <= target <= 1.0:
        target = p0 - stated if diff >= 0 else p0 + stated
    target = min(max(target, 0.0), 1.0)
    power = (
        binomial_power(target, a.n, p0) if a.n <= 2000 else _arcsine_power(target, p0, a.n, None)
    )
    need = _arcsine_n(target, p0, one_sample=True)

    def power_at(n: int) -> float:
        return _arcsine_power(target, p0, n, None)

    return Test(
        kind, diff, p, (a.n,), p < ALPHA, power, need, f"a true {target:.2f}", power_at=power_at
    )


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X binomial with n trials of probability p."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return float(min(1.0, _binomial_pmf(n, p)[: k + 1].sum()))


def exact_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a proportion k/n: the p at which the binomial
    tails beyond k hold (1 − confidence)/2 each, found by bisection; 0 (1) at k = 0 (k = n)."""
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n (got k={k}, n={n})")
    tail = (1.0 - confidence) / 2.0

    def solve(tail_at: Callable[[float], float], rising: bool) -> float:
        # The p in [0, 1] at which the monotone tail_at(p) equals ``tail``.
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2.0
            if (tail_at(mid) < tail) == rising:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2.0

    # The lower end: P(X ≥ k) = tail (rising with p); the upper: P(X ≤ k) = tail (falling).
    low = 0.0 if k == 0 else solve(lambda p: 1.0 - _binomial_cdf(k - 1, n, p), rising=True)
    high = 1.0 if k == n else solve(lambda p: _binomial_cdf(k, n, p), rising=False)
    return low, high


#: A claim that an event never happens ("no spurious retransmission", "no overrun") is tested
#: as the event's rate below this share of the runs (:func:`rate_below`).
ZERO_TOLERANCE = 0.05


def rate_below(a: Proportion, tolerance: float = ZERO_TOLERANCE) -> Decision:
    """A claim that an event does not happen (the seed saw none): its rate, a.k events in a.n
    runs, below ``tolerance``, by the exact binomial test against it with equal tails (the
    two-sided p-value is twice the smaller tail, so that it is below α exactly when the
    tolerance lies outside the exact Clopper–Pearson 95 % interval, :func:`exact_interval`).

    Reproduced when the interval's upper end is below the tolerance, contradicted when its
    lower end is above it (the event is significantly more frequent than tolerated), not
    significant otherwise. The power is for the seed's none, a true rate of 0: the share of
    such sets of runs (all of them, or none) that reproduce the claim; with no event in n runs
    that needs 2·(1 − tolerance)ⁿ < α, n ≥ 72 at a tolerance of 0.05."""
    if not 0.0 < tolerance < 1.0:
        raise ValueError(f"rate_below: the tolerance must be in (0, 1) (got {tolerance})")
    kind = f"exact binomial test of the rate against {tolerance:g} (Clopper–Pearson)"
    diff = a.value - tolerance
    if a.n < 2:
        return Decision(Verdict.NOT_SIGNIFICANT, _too_few(kind, diff, (a.n,)), -1)
    below = _binomial_cdf(a.k, a.n, tolerance)
    above = 1.0 - _binomial_cdf(a.k - 1, a.n, tolerance)
    p = min(1.0, 2.0 * min(below, above))

    def power_at(n: int) -> float:
        return 1.0 if 2.0 * (1.0 - tolerance) ** n < ALPHA else 0.0

    need = math.ceil(math.log(ALPHA / 2.0) / math.log1p(-tolerance))
    while power_at(need) < 1.0:
        need += 1
    test = Test(
        kind,
        diff,
        p,
        (a.n,),
        p < ALPHA,
        power_at(a.n),
        need,
        "a true rate of 0",
        power_at=power_at,
    )
    return decide(test, "<")


def share_test(k_a: int, k_b: int, n: int, effect: float | None = None) -> Test:
    """Two classes of one set of n runs: whether class a is more (or less) frequent than class b.

    One run falls in one class, so the counts are not independent and Fisher's test does not
    apply; conditional on the k_a + k_b runs in either class, k_a is binomial with share ½
    when both are equally likely (the exact conditional test of two multinomial cells). The
    effect is reported as the difference of the shares of all n runs."""
    both = k_a + k_b
    diff = (k_a - k_b) / n if n else math.nan
    kind = f"exact binomial test of {k_a} against {k_b} of {n} runs"
    if n < 2 or both == 0:
        test = _too_few(kind, diff, (n,))
        return (
            test
            if n < 2
            else Test(kind, 0.0, 1.0, (n,), False, math.nan, None, "", "neither class occurred")
        )
    inner = binomial_test(
        Proportion(k_a, both), 0.5, effect if effect is not None else DEFAULT_PROPORTION_EFFECT
    )
    return Test(
        kind,
        diff,
        inner.p_value,
        (n,),
        inner.significant,
        inner.power,
        inner.n_for_power,
        inner.power_for + " of the runs in either class",
        power_at=_scaled(inner.power_at, both / n),
    )


def _scaled(power_at: Callable[[int], float] | None, share: float) -> Callable[[int], float] | None:
    """``power_at`` of a test on the ``share`` of the runs that fall in its classes, as a
    function of all runs."""
    if power_at is None:
        return None
    inner = power_at
    return lambda n: inner(max(2, round(n * share)))


# -- decisions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """A test read against the direction the seed claims."""

    verdict: Verdict
    test: Test
    #: +1: the seed claims the first quantity larger (or above the reference); −1: smaller;
    #: 0: equal within a margin (:func:`equivalence`).
    claimed: int
    #: Points behind a combined decision (label → its decision); empty for a single test.
    parts: tuple[tuple[str, Decision], ...] = ()

    @property
    def effect_agrees(self) -> bool:
        """The effect found points the way the seed claims (whether significant or not)."""
        return self.test.effect_sign() == self.claimed != 0

    def text(self) -> str:
        """``**reproduced**``, ``**not significant** (one run)``, ``**contradicted**``."""
        if len(self.parts) == 1 and self.parts[0][1].verdict is self.verdict:
            return self.parts[0][1].text()
        out = f"**{self.verdict.value}**"
        if self.verdict is Verdict.NOT_SIGNIFICANT and self.test.note and not self.parts:
            out += f" ({self.test.note})"
        if self.parts and self.verdict is not Verdict.REPRODUCED:
            out += ": " + "; ".join(f"{label} {d.verdict.value}" for label, d in self.parts)
        weak = underpowered(self.test)
        return f"{out} ({weak})" if weak else out


def decide(test: Test, relation: str | int) -> Decision:
    """The verdict of ``test`` on a claim that the effect is positive (``">"``) or negative
    (``"<"``): reproduced when significant in that direction, contradicted when significant in
    the other, not significant otherwise (and always with fewer than two runs in a sample)."""
    claimed = _sign(relation)
    found = test.effect_sign()
    if not test.significant or found == 0 or min(test.n) < 2:
        verdict = Verdict.NOT_SIGNIFICANT
    elif found == claimed:
        verdict = Verdict.REPRODUCED
    else:
        verdict = Verdict.CONTRADICTED
    return Decision(verdict, test, claimed)


def point_decision(
    value: float, reference: float, relation: str | int, kind: str = "a single value"
) -> Decision:
    """A claim judged on one number (one run, or a point estimate without replications): never
    reproduced. Its direction is stated in the test's note."""
    diff = value - reference
    holds = (diff > 0) == (_sign(relation) > 0) and diff != 0
    note = f"one run; the point estimate {'agrees' if holds else 'disagrees'}"
    test = Test(kind, diff, math.nan, (1,), False, math.nan, None, "", note)
    return Decision(Verdict.NOT_SIGNIFICANT, test, _sign(relation))


def _leaves(d: Decision) -> list[Decision]:
    return [leaf for _, part in d.parts for leaf in _leaves(part)] if d.parts else [d]


def equivalence(a: Sample | Sequence[float], reference: float, margin: float) -> Decision:
    """A claim that a quantity equals ``reference`` (a model's value, say) within ``margin``:
    two one-sided t-tests (TOST, Schuirmann 1987) on reference ± margin (:func:`within`)."""
    return within(
        a,
        reference - margin,
        reference + margin,
        f"equivalence test (TOST) within ±{margin:.3g} of {reference:.4g}",
        reference,
    )


def within_factor(
    a: Sample | Sequence[float], reference: float, factor: float = MAGNITUDE_FACTOR
) -> Decision:
    """A claim that a quantity is the seed's number ``reference`` (> 0): equal within a factor
    ``factor`` (the magnitude rule's ×1.5), the TOST of :func:`within` on
    [reference/factor, reference·factor]. Reproduced when the mean is significantly inside,
    contradicted when significantly outside, not significant otherwise."""
    if not reference > 0:
        raise ValueError(f"within_factor: the reference must be > 0 (got {reference})")
    return within(
        a,
        reference / factor,
        reference * factor,
        f"equivalence test (TOST) within ×{factor:g} of {reference:.4g}",
        reference,
    )


def within(
    a: Sample | Sequence[float],
    low: float,
    high: float,
    kind: str = "",
    reference: float | None = None,
) -> Decision:
    """A claim that a quantity lies in [low, high]: two one-sided t-tests (TOST, Schuirmann
    1987).

    Reproduced when the mean is significantly inside (both one-sided tests reject at α; the
    p-value is the larger), contradicted when it is significantly outside (the one-sided test
    beyond the nearer bound rejects at α), not significant otherwise. The power is that of
    TOST when the true mean is ``reference`` (default: the middle of the interval). The effect
    is the mean minus ``reference``."""
    if not low < high:
        raise ValueError(f"within: need low < high (got {low}, {high})")
    a = _sample(a)
    ref = (low + high) / 2.0 if reference is None else reference
    kind = kind or f"equivalence test (TOST) within [{low:.4g}, {high:.4g}]"
    diff = a.mean - ref
    if a.n < 2:
        return Decision(Verdict.NOT_SIGNIFICANT, _too_few(kind, diff, (a.n,)), 0)
    df = a.n - 1
    power_at: Callable[[int], float]
    if a.se == 0:
        inside = low < a.mean < high
        outside = a.mean < low or a.mean > high
        p_in, p_out = (0.0, 1.0) if inside else (1.0, 0.0 if outside else 1.0)
        power, note = 1.0, "no spread in the sample"
        need: int | None = 2
        power_at = _certain
    else:
        p_in = max(1.0 - t_cdf((a.mean - low) / a.se, df), t_cdf((a.mean - high) / a.se, df))
        p_out = (
            t_cdf((a.mean - low) / a.se, df)
            if a.mean < (low + high) / 2.0
            else 1.0 - t_cdf((a.mean - high) / a.se, df)
        )
        sd = a.sd

        def power_at(n: int) -> float:
            # A central t at the true mean ``ref``: both one-sided tests reject.
            se, crit = sd / math.sqrt(n), t_quantile(1.0 - ALPHA, n - 1)
            upper = t_cdf((high - ref) / se - crit, n - 1)
            lower = t_cdf(crit - (ref - low) / se, n - 1)
            return max(0.0, upper - lower)

        power, need, note = power_at(a.n), replications_for_power(power_at), ""
    if p_in < ALPHA:
        verdict, p = Verdict.REPRODUCED, p_in
    elif p_out < ALPHA:
        verdict, p = Verdict.CONTRADICTED, p_out
    else:
        verdict, p = Verdict.NOT_SIGNIFICANT, p_in
    test = Test(
        kind,
        diff,
        p,
        (a.n,),
        verdict is not Verdict.NOT_SIGNIFICANT,
        power,
        need,
        "a true value at the reference",
        note,
        power_at=power_at,
    )
    return Decision(verdict, test, 0)


def newcombe_interval(
    a: Proportion, b: Proportion, confidence: float = 0.95
) -> tuple[float, float]:
    """The interval of a's share minus b's from the two Wilson score intervals (Newcombe 1998,
    method 10, the hybrid score interval): good coverage down to shares of 0 and 1, where the
    Wald interval collapses."""
    (la, ua), (lb, ub) = a.interval(confidence), b.interval(confidence)
    d = a.value - b.value
    return (d - math.hypot(a.value - la, ub - b.value), d + math.hypot(ua - a.value, b.value - lb))


def noninferiority(a: Proportion, b: Proportion, margin: float) -> Decision:
    """A claim that a's share is no larger than b's (fewer timeouts, say) — up to ``margin`` of
    probability: the non-inferiority test on the difference a − b (one-sided at α, by the
    Newcombe interval at 1 − 2α).

    Reproduced when the upper bound is below ``margin``; contradicted when the lower bound is
    above it (a is worse by more than the margin); not significant otherwise. The power is the
    probability of reproducing when the true shares are equal (at b's observed share), by the
    normal approximation."""
    kind = f"non-inferiority test within +{margin:.3g} (Newcombe)"
    diff = a.value - b.value
    if min(a.n, b.n) < 2:
        return Decision(Verdict.NOT_SIGNIFICANT, _too_few(kind, diff, (a.n, b.n)), -1)
    low, high = newcombe_interval(a, b, 1.0 - 2.0 * ALPHA)
    if high < margin:
        verdict = Verdict.REPRODUCED
    elif low > margin:
        verdict = Verdict.CONTRADICTED
    else:
        verdict = Verdict.NOT_SIGNIFICANT
    # One-sided p-value of "a − b ≥ margin" by the normal approximation at the observed shares.
    se = math.sqrt(a.value * (1 - a.value) / a.n + b.value * (1 - b.value) / b.n)
    p = _Z.cdf((diff - margin) / se) if se > 0 else (0.0 if diff < margin else 1.0)
    z = _Z.inv_cdf(1.0 - ALPHA)

    def power_at(n: int) -> float:
        # Equal true shares: the upper bound d + z·se falls below the margin.
        s0 = math.sqrt(2.0 * b.value * (1.0 - b.value) / n)
        return _Z.cdf(margin / s0 - z) if s0 > 0 else 1.0

    power = power_at(min(a.n, b.n))
    need = replications_for_power(power_at)
    test = Test(
        kind,
        diff,
        p,
        (a.n, b.n),
        verdict is not Verdict.NOT_SIGNIFICANT,
        power,
        need,
        "equal true shares",
        power_at=power_at,
    )
    return Decision(verdict, test, -1)


def unavailable(kind: str, note: str) -> Decision:
    """A claim this run could not test (a point run in full mode only, say): not significant,
    with the reason."""
    return Decision(
        Verdict.NOT_SIGNIFICANT,
        Test(kind, math.nan, math.nan, (0,), False, math.nan, None, "", note),
        0,
    )


def combine(parts: Mapping[str, Decision] | Sequence[tuple[str, Decision]]) -> Decision:
    """One decision for a claim checked at several points (every UE count, every rate); the
    parts may be combined decisions themselves, whose single tests all count as points.

    Reproduced when every point is reproduced: the intersection–union test, valid at α
    without correction; its p-value is the largest of the points' (a point found in the
    wrong direction counts as p = 1), its power the product of theirs (independent points).
    Contradicted when some point is contradicted at α/m, Bonferroni over the m points. Not
    significant otherwise. The replications for :data:`POWER_TARGET` are those at which the
    product of the points' powers reaches it, with the same replications at every point."""
    items = tuple(parts.items()) if isinstance(parts, Mapping) else tuple(parts)
    if not items:
        raise ValueError("combine: no decisions")
    leaves = [leaf for _, d in items for leaf in _leaves(d)]
    m = len(leaves)
    claimed = leaves[0].claimed
    n = tuple(min(d.test.n) for d in leaves)
    powers = [d.test.power for d in leaves]
    power = math.prod(powers) if all(math.isfinite(x) for x in powers) else math.nan
    joint = _joint_power(leaves, lambda ps: math.prod(ps))
    needs = [d.test.n_for_power for d in leaves]
    if joint is not None:
        need = replications_for_power(joint)
    else:
        need = max(x for x in needs if x is not None) if all(x is not None for x in needs) else None
    against = [
        d for d in leaves if d.verdict is Verdict.CONTRADICTED and d.test.p_value < ALPHA / m
    ]
    p_is = "the largest"
    if all(d.verdict is Verdict.REPRODUCED for d in leaves):
        verdict, p = Verdict.REPRODUCED, max(d.test.p_value for d in leaves)
    elif against:
        verdict, p = Verdict.CONTRADICTED, min(1.0, m * min(d.test.p_value for d in against))
        p_is = f"the smallest against the claim × {m}"
    else:
        verdict = Verdict.NOT_SIGNIFICANT
        # A point found in the wrong direction counts as p = 1; one without a test as NaN.
        ps = [
            d.test.p_value if d.verdict is Verdict.REPRODUCED or math.isnan(d.test.p_value) else 1.0
            for d in leaves
        ]
        p = max(ps) if all(math.isfinite(x) for x in ps) else math.nan
    families = " / ".join(sorted({d.test.family for d in leaves}))
    notes = sorted({d.test.note for d in leaves if d.test.note})
    if m == 1:
        test = leaves[0].test
    else:
        test = Test(
            f"{families} at each of {m} points (all must hold)",
            math.nan,
            p,
            n,
            verdict is not Verdict.NOT_SIGNIFICANT,
            power,
            need,
            "",
            "; ".join(notes),
            combined="all",
            p_is=p_is,
            power_at=joint,
        )
    return Decision(verdict, test, claimed, items)


def _joint_power(
    leaves: Sequence[Decision], rule: Callable[[list[float]], float]
) -> Callable[[int], float] | None:
    """The power of a claim at several points as a function of the replications at each: the
    points' powers at n combined by ``rule``; None when a point has no power function."""
    fns = [d.test.power_at for d in leaves]
    if any(f is None for f in fns):
        return None
    known = [f for f in fns if f is not None]
    return lambda n: rule([f(n) for f in known])


def any_of(parts: Mapping[str, Decision] | Sequence[tuple[str, Decision]]) -> Decision:
    """One decision for a claim that holds at some point ("at a low error rate two ACKs may do
    worse"): reproduced when some point is reproduced at α/m (Bonferroni over the m points),
    contradicted when every point is contradicted (intersection–union), not significant
    otherwise."""
    items = tuple(parts.items()) if isinstance(parts, Mapping) else tuple(parts)
    if not items:
        raise ValueError("any_of: no decisions")
    leaves = [leaf for _, d in items for leaf in _leaves(d)]
    m = len(leaves)
    found = [d for d in leaves if d.verdict is Verdict.REPRODUCED and d.test.p_value < ALPHA / m]
    p_is = f"the smallest × {m}"
    if found:
        verdict, p = Verdict.REPRODUCED, min(1.0, m * min(d.test.p_value for d in found))
    elif all(d.verdict is Verdict.CONTRADICTED for d in leaves):
        verdict, p = Verdict.CONTRADICTED, max(d.test.p_value for d in leaves)
        p_is = "the largest"
    else:
        verdict = Verdict.NOT_SIGNIFICANT
        ps = [d.test.p_value for d in leaves if d.effect_agrees]
        p = min(1.0, m * min(ps)) if ps and all(math.isfinite(x) for x in ps) else 1.0
    powers = [d.test.power for d in leaves]
    power = (
        1.0 - math.prod(1.0 - x for x in powers)
        if all(math.isfinite(x) for x in powers)
        else math.nan
    )
    joint = _joint_power(leaves, lambda ps: 1.0 - math.prod(1.0 - x for x in ps))
    needs = [d.test.n_for_power for d in leaves if d.test.n_for_power is not None]
    need = replications_for_power(joint) if joint is not None else min(needs) if needs else None
    families = " / ".join(sorted({d.test.family for d in leaves}))
    notes = sorted({d.test.note for d in leaves if d.test.note})
    if m == 1:
        test = leaves[0].test
    else:
        test = Test(
            f"{families} at {m} points (one must hold, Bonferroni)",
            math.nan,
            p,
            tuple(min(d.test.n) for d in leaves),
            verdict is not Verdict.NOT_SIGNIFICANT,
            power,
            need,
            "",
            "; ".join(notes),
            combined="any",
            p_is=p_is,
            power_at=joint,
        )
    return Decision(verdict, test, leaves[0].claimed, items)


def shortfall(d: Decision, label: str = "", *, power: bool = True) -> str:
    """What the tests themselves say when a claim is not reproduced: the points that did not
    hold (``label`` before each, e.g. "p_err ") and, where a point was not significant with
    less than :data:`POWER_TARGET` power, that power and the replications that would reach it
    at that point (``power=False`` leaves these out, for a report whose verdict column, which
    states the replications every point needs at once, is to be the only word on power).
    An empty string for a reproduced claim."""
    if d.verdict is Verdict.REPRODUCED:
        return ""
    text = []
    if len(d.parts) > 1 and d.test.combined != "any":
        missing = [name for name, p in d.parts if p.verdict is not Verdict.REPRODUCED]
        text.append("not reproduced at " + ", ".join(label + name for name in missing))
    weak = [
        leaf.test
        for leaf in _leaves(d)
        if power
        and leaf.verdict is Verdict.NOT_SIGNIFICANT
        and math.isfinite(leaf.test.power)
        and leaf.test.power < POWER_TARGET
    ]
    if weak:
        low, high = min(t.power for t in weak), max(t.power for t in weak)
        need = max((t.n_for_power or 0) for t in weak)
        span = f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"
        text.append(
            f"power {span} at n = {min(min(t.n) for t in weak)}"
            + (f", {100 * POWER_TARGET:.0f} % needs n = {need}" if need else "")
        )
    return "; ".join(text)


# -- estimates and rows ------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """celltcp's number for a claim: a value, its 95 % interval (NaN when undefined) and the
    replications behind it."""

    value: float
    low: float
    high: float
    n: int

    @classmethod
    def of_sample(cls, a: Sample | Sequence[float]) -> Estimate:
        a = _sample(a)
        low, high = a.interval()
        return cls(a.mean, low, high, a.n)

    @classmethod
    def of_proportion(cls, a: Proportion) -> Estimate:
        low, high = a.interval()
        return cls(a.value, low, high, a.n)

    @classmethod
    def of_difference(cls, a: Sample | Sequence[float], b: Sample | Sequence[float]) -> Estimate:
        """mean(a) − mean(b) with Welch's interval."""
        a, b = _sample(a), _sample(b)
        diff = a.mean - b.mean
        if min(a.n, b.n) < 2:
            return cls(diff, math.nan, math.nan, min(a.n, b.n))
        va, vb = a.sd**2, b.sd**2
        se = math.sqrt(va / a.n + vb / b.n)
        half = 0.0 if se == 0 else t_quantile(0.975, _welch_df(va, a.n, vb, b.n)) * se
        return cls(diff, diff - half, diff + half, min(a.n, b.n))

    @classmethod
    def of_ratio(cls, num: Sample, den: Sample) -> Estimate:
        """mean(num)/mean(den) with the delta-method interval on the log scale."""
        if not (den.mean and num.mean) or min(num.n, den.n) < 1:
            return cls(math.nan, math.nan, math.nan, min(num.n, den.n))
        r = num.mean / den.mean
        if min(num.n, den.n) < 2 or r <= 0:
            return cls(r, math.nan, math.nan, min(num.n, den.n))
        va, vb = (num.sd / num.mean) ** 2, (den.sd / den.mean) ** 2
        se = math.sqrt(va / num.n + vb / den.n)
        half = 0.0 if se == 0 else t_quantile(0.975, _welch_df(va, num.n, vb, den.n)) * se
        return cls(r, r * math.exp(-half), r * math.exp(half), min(num.n, den.n))

    @classmethod
    def of_ratios(cls, a: tuple[Sample, Sample], b: tuple[Sample, Sample]) -> Estimate:
        """(mean(a₀)/mean(a₁))/(mean(b₀)/mean(b₁)) with the delta-method interval (log scale)."""
        samples = (*a, *b)
        n = min(s.n for s in samples)
        if not all(s.mean > 0 for s in samples):
            return cls(math.nan, math.nan, math.nan, n)
        r = (a[0].mean / a[1].mean) / (b[0].mean / b[1].mean)
        if n < 2:
            return cls(r, math.nan, math.nan, n)
        terms = [(s.sd / s.mean) ** 2 / s.n for s in samples]
        se = math.sqrt(sum(terms))
        if se == 0:
            return cls(r, r, r, n)
        # Welch–Satterthwaite over the four terms, as in ratios_test.
        den = sum(x * x / (s.n - 1) for x, s in zip(terms, samples, strict=True) if x)
        df = sum(terms) ** 2 / den if den > 0 else float(sum(s.n for s in samples) - 4)
        half = t_quantile(0.975, df) * se
        return cls(r, r * math.exp(-half), r * math.exp(half), n)

    @classmethod
    def point(cls, value: float) -> Estimate:
        return cls(value, math.nan, math.nan, 1)

    def text(self, digits: int = 3, unit: str = "") -> str:
        """``1.23 [1.10, 1.36] (n = 8)``."""
        if math.isnan(self.value):
            return "n/a"
        u = f" {unit}" if unit else ""
        if math.isnan(self.low):
            return f"{self.value:.{digits}f}{u} (n = {self.n})"
        return (
            f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]{u} "
            f"(n = {self.n})"
        )


def magnitude(ours: float, seed: float | None, factor: float = MAGNITUDE_FACTOR) -> str:
    """``magnitude within ×1.5``, ``magnitude off ×k`` or ``direction only`` (no seed number)."""
    if seed is None:
        return "direction only"
    if not (math.isfinite(ours) and math.isfinite(seed)):
        return "magnitude n/a"
    if ours == seed:
        return f"magnitude within ×{factor:g}"
    if ours == 0 or seed == 0:
        return "magnitude off ×∞"
    if (ours > 0) != (seed > 0):
        return "magnitude off (opposite sign)"
    k = max(ours / seed, seed / ours)
    return f"magnitude within ×{factor:g}" if k <= factor else f"magnitude off ×{k:.2g}"


def _within(label: str) -> bool:
    return label.startswith("magnitude within")


def point_ratios(points: Sequence[tuple[float, float]]) -> list[float]:
    """celltcp's value over the seed's at each point (ours, seed) where both are finite and
    the seed's is not 0."""
    return [o / s for o, s in points if math.isfinite(o) and math.isfinite(s) and s != 0]


def ratio_range(points: Sequence[tuple[float, float]]) -> str:
    """``0.22–0.36``: the smallest and largest of :func:`point_ratios` ("–" without any)."""
    ratios = point_ratios(points)
    if not ratios:
        return "–"
    low, high = f"{min(ratios):.2f}", f"{max(ratios):.2f}"
    return low if low == high else f"{low}–{high}"


def magnitudes(points: Sequence[tuple[float, float]], factor: float = MAGNITUDE_FACTOR) -> str:
    """The magnitude of a claim whose seed gives a number at several points, (ours, seed) at
    each: :func:`magnitude` at every point, summarised with the range of the ratios ours /
    seed. ``magnitude within ×1.5 at every point (ours / seed 0.91–1.20, 4 points)``, or
    ``magnitude off at 3 of 4 points (ours / seed 0.22–1.10)``; ``direction only`` without
    points."""
    if not points:
        return "direction only"
    labels = [magnitude(o, s, factor) for o, s in points]
    m = len(labels)
    off = sum("off" in x for x in labels)
    missing = sum(not _within(x) and "off" not in x for x in labels)
    span = f"ours / seed {ratio_range(points)}"
    if off:
        return f"magnitude off at {off} of {m} points ({span})"
    if missing:
        return f"magnitude n/a at {missing} of {m} points ({span})"
    return f"magnitude within ×{factor:g} at every point ({span}, {m} points)"


def _finite(x: float | None) -> float | None:
    """``x`` as a JSON number: None for None, NaN and infinities (JSON has none of them)."""
    if x is None or not math.isfinite(x):
        return None
    return float(x)


#: The columns of a claims table.
CLAIM_HEADER = (
    "where",
    "claim",
    "seed",
    "celltcp: mean [95 % CI] (n)",
    "ours / seed",
    "verdict",
    "magnitude",
    "test",
    "why they differ",
)


@dataclass(frozen=True)
class ClaimRow:
    """One claim of a seed beside celltcp's number and its verdict.

    Attributes:
        where: the seed's figure, table or section.
        claim: the claim in words.
        seed_text: how the seed states it (its number with its unit, or its words).
        seed: the seed's number on the scale of ``ours`` (None: the seed gives none).
        ours: celltcp's estimate (mean, 95 % interval, n); None when the claim has no number.
        decision: the test's verdict.
        detail: celltcp's figures behind the estimate (per point), shown with it.
        reason: what was measured to explain a difference from the seed (a verdict other than
            reproduced, or a magnitude off).
        digits: decimals of the estimate.
        unit: the estimate's unit.
        points: where the seed gives a number at several points (a table's rows), celltcp's
            value and the seed's at each, (ours, seed); the magnitude is then judged at every
            point (:func:`magnitudes`) and the ratio column gives their range.
    """

    where: str
    claim: str
    seed_text: str
    seed: float | None
    ours: Estimate | None
    decision: Decision
    detail: str = ""
    reason: str = ""
    digits: int = 3
    unit: str = ""
    points: tuple[tuple[float, float], ...] = ()

    @property
    def verdict(self) -> Verdict:
        return self.decision.verdict

    @property
    def ratio(self) -> float:
        """celltcp's value over the seed's (NaN without both, and for a row of points)."""
        if self.points or self.seed is None or self.ours is None or self.seed == 0:
            return math.nan
        return self.ours.value / self.seed

    @property
    def ratio_text(self) -> str:
        """The ratio column: the ratio, the range of the points' ratios, or "–"."""
        if self.points:
            return ratio_range(self.points)
        return "–" if math.isnan(self.ratio) else f"{self.ratio:.2f}"

    @property
    def magnitude(self) -> str:
        if self.points:
            return magnitudes(self.points)
        if self.ours is None:
            return "direction only" if self.seed is None else "magnitude n/a"
        return magnitude(self.ours.value, self.seed)

    @property
    def differs(self) -> bool:
        """The verdict is not reproduced, or the magnitude is off."""
        return self.verdict is not Verdict.REPRODUCED or "off" in self.magnitude

    def as_dict(self) -> dict[str, object]:
        """The row for ``claims.json``: the same fields as :meth:`cells`, numbers as numbers
        (None where undefined: no seed number, no interval, no test)."""
        test = self.decision.test
        ours = None
        if self.ours is not None:
            ours = {
                "value": _finite(self.ours.value),
                "low": _finite(self.ours.low),
                "high": _finite(self.ours.high),
                "n": self.ours.n,
                "unit": self.unit,
            }
        cells = self.cells()
        return {
            "where": self.where,
            "claim": self.claim,
            "seed_text": self.seed_text,
            "seed": _finite(self.seed),
            "ours": ours,
            "ours_text": cells[3],
            "ratio": _finite(self.ratio),
            "ratios": [_finite(x) for x in point_ratios(self.points)] if self.points else None,
            "ratio_text": cells[4],
            "verdict": self.verdict.value,
            "verdict_text": cells[5],
            "magnitude": self.magnitude,
            "test": test.kind,
            "test_text": cells[7],
            "p": _finite(test.p_value),
            "n": list(test.n),
            "power": _finite(test.power),
            "n_for_power": test.n_for_power,
            "reason": cells[8],
        }

    def cells(self) -> tuple[str, ...]:
        ours = "–" if self.ours is None else self.ours.text(self.digits, self.unit)
        if self.detail:
            ours = f"{ours}; {self.detail}" if self.ours is not None else self.detail
        ratio = self.ratio_text
        reason = self.reason if self.differs else ""
        if self.differs and not reason:
            reason = "not explained yet"
        return (
            self.where,
            self.claim,
            self.seed_text,
            ours,
            ratio,
            self.decision.text(),
            self.magnitude,
            self.decision.test.describe(),
            reason,
        )


def claim_table(rows: Sequence[ClaimRow]) -> ClaimTable:
    """The claims as a report table (:class:`celltcp.reproduce.document.ClaimTable`): rendered
    like any table, and kept as rows for the report's ``claims.json``."""
    from celltcp.reproduce.document import ClaimTable

    return ClaimTable(CLAIM_HEADER, tuple(r.cells() for r in rows), tuple(rows))
