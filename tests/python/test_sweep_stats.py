"""Statistics of sweeps against values computed by hand or in closed form."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from celltcp.sweep.stats import (
    incomplete_beta,
    mean_interval,
    outcomes,
    summarize,
    t_cdf,
    t_quantile,
    wilson_interval,
)

Z95 = 1.959963984540054  # Φ⁻¹(0.975)


@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995, 0.9995])
def test_t_quantile_matches_the_closed_forms_for_one_and_two_degrees(p):
    # ν = 1 is the Cauchy distribution: t = tan(π(p − ½)).
    assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-12)
    # ν = 2: F(t) = ½ + t / (2√(2 + t²)), so t = (2p − 1) / √(2p(1 − p)).
    assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-12)


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [
        # Two-sided 95 % and 99 % critical values as printed in standard t tables.
        (0.975, 3, 3.182446),
        (0.975, 4, 2.776445),
        (0.975, 9, 2.262157),
        (0.975, 10, 2.228139),
        (0.975, 30, 2.042272),
        (0.995, 5, 4.032143),
        (0.995, 20, 2.845340),
    ],
)
def test_t_quantile_matches_printed_tables(p, df, table):
    assert t_quantile(p, df) == pytest.approx(table, abs=5e-7)


def test_t_quantile_is_odd_and_tends_to_the_normal_quantile():
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.025, 7) == -t_quantile(0.975, 7)
    assert t_quantile(0.975, 1e7) == pytest.approx(Z95, abs=1e-6)
    assert t_cdf(t_quantile(0.9, 3.5), 3.5) == pytest.approx(0.9, abs=1e-14)


@pytest.mark.parametrize(("x", "a", "b"), [(0.3, 2, 3), (0.8, 5, 2), (0.05, 1, 7), (0.5, 4, 4)])
def test_incomplete_beta_equals_the_binomial_tail_for_integer_parameters(x, a, b):
    # I_x(a, b) = P(Binomial(a + b − 1, x) ≥ a) for integers a, b.
    n = a + b - 1
    tail = sum(math.comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1))
    assert incomplete_beta(x, a, b) == pytest.approx(tail, rel=1e-12)


def test_mean_interval_of_one_to_five():
    # mean 3; s² = (4 + 1 + 0 + 1 + 4) / 4 = 2.5; half width t(0.975; 4) · √2.5 / √5
    # = 2.7764451 · √0.5 = 1.9632432.
    n, mean, std, lo, hi = mean_interval([1, 2, 3, 4, 5])
    assert (n, mean) == (5, 3.0)
    assert std == pytest.approx(math.sqrt(2.5), rel=1e-15)
    assert lo == pytest.approx(3 - 1.9632432, abs=1e-7)
    assert hi == pytest.approx(3 + 1.9632432, abs=1e-7)


def test_mean_interval_at_99_percent_and_degenerate_samples():
    # Two values 10 and 14: mean 12, s = 2√2, half width t(0.995; 1) · 2√2 / √2 = 2 · 63.656741.
    _, mean, _, _lo, hi = mean_interval([10.0, 14.0], confidence=0.99)
    assert mean == 12.0
    assert hi - mean == pytest.approx(2 * 63.656741, rel=1e-7)
    assert mean_interval([7.0])[1] == 7.0 and math.isnan(mean_interval([7.0])[2])
    assert mean_interval([])[0] == 0
    assert mean_interval([1.0, None, float("nan"), 3.0])[:2] == (2, 2.0)


def _wilson_by_quadratic(k: int, n: int, z: float) -> tuple[float, float]:
    # The Wilson interval is the set of p with |p̂ − p| ≤ z √(p(1 − p)/n): the roots of
    # (1 + z²/n) p² − (2p̂ + z²/n) p + p̂² = 0.
    ph = k / n
    a, b, c = 1 + z * z / n, -(2 * ph + z * z / n), ph * ph
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize(("k", "n"), [(8, 10), (1, 20), (50, 100), (3, 3), (0, 10)])
def test_wilson_interval_solves_its_defining_quadratic(k, n):
    lo, hi = wilson_interval(k, n)
    exp_lo, exp_hi = _wilson_by_quadratic(k, n, Z95)
    assert lo == pytest.approx(max(exp_lo, 0.0), abs=1e-12)
    assert hi == pytest.approx(min(exp_hi, 1.0), abs=1e-12)


def test_wilson_interval_known_values():
    # 8 of 10 at 95 %: (0.4902, 0.9433), the textbook example; 0 of 10: upper z²/(n + z²).
    lo, hi = wilson_interval(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(Z95**2 / (10 + Z95**2), rel=1e-12))
    assert wilson_interval(10, 10)[1] == 1.0


def _frame() -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "point": [0, 0, 0, 1, 1, 1],
            "rate": ["5Mbps"] * 3 + ["10Mbps"] * 3,
            "run": [0, 1, 2, 0, 1, 2],
            "status": ["ok", "ok", "ok", "ok", "ok", "error"],
            "goodput": [1.0, 2.0, 3.0, 10.0, 14.0, float("nan")],
            "stop": ["duration", "duration", "eventbudget", "duration", "duration", None],
        }
    )
    frame.attrs["parameters"] = ["rate"]
    frame.attrs["metrics"] = ["goodput", "stop"]
    return frame


def test_summarize_per_point_leaves_out_failed_runs():
    table = summarize(_frame())
    assert list(table.columns) == [
        "point",
        "rate",
        "metric",
        "n",
        "failed",
        "mean",
        "std",
        "ci_low",
        "ci_high",
    ]
    first, second = table.iloc[0], table.iloc[1]
    assert (first["rate"], first["n"], first["failed"], first["mean"]) == ("5Mbps", 3, 0, 2.0)
    # 1, 2, 3: s = 1, half width t(0.975; 2) / √3 = 4.3026527 / 1.7320508 = 2.4841377.
    assert first["ci_high"] - 2.0 == pytest.approx(2.4841377, abs=1e-7)
    assert (second["n"], second["failed"], second["mean"]) == (2, 1, 12.0)


def test_outcomes_give_probabilities_with_wilson_intervals():
    table = outcomes(_frame())
    rows = {(r.point, r.outcome): r for r in table.itertuples()}
    duration = rows[(0, "duration")]
    assert (duration.k, duration.n, duration.p) == (2, 3, pytest.approx(2 / 3))
    assert (duration.ci_low, duration.ci_high) == wilson_interval(2, 3)
    assert rows[(1, "duration")].n == 2  # the failed run has no outcome
    assert (0, "eventbudget") in rows and (1, "eventbudget") not in rows
