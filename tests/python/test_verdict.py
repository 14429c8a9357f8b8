"""The verdict module: every test on synthetic data reaches all three outcomes, the one-run rule,
power against published values, the magnitude labels and the claims table."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from celltcp.reproduce.verdict import (
    CLAIM_HEADER,
    ClaimRow,
    Estimate,
    Proportion,
    Sample,
    Verdict,
    any_of,
    binomial_test,
    claim_table,
    combine,
    decide,
    equivalence,
    exact_interval,
    fisher_exact,
    fisher_power,
    fisher_test,
    intervals_test,
    magnitude,
    magnitudes,
    newcombe_interval,
    noncentral_t_cdf,
    noninferiority,
    one_sample_test,
    point_decision,
    rate_below,
    ratio_test,
    ratios_test,
    replications_for_power,
    share_test,
    shortfall,
    t_power,
    unavailable,
    underpowered,
    welch_test,
    within_factor,
)
from celltcp.sweep.stats import t_cdf

R, NS, C = Verdict.REPRODUCED, Verdict.NOT_SIGNIFICANT, Verdict.CONTRADICTED


def _normal(mean: float, sd: float, n: int, seed: int) -> list[float]:
    return list(np.random.default_rng(seed).normal(mean, sd, n))


# -- the tests and their three outcomes ---------------------------------------------------------


def test_welch_reaches_all_three_outcomes():
    high, low = _normal(10.0, 1.0, 8, 1), _normal(5.0, 1.0, 8, 2)
    assert decide(welch_test(high, low), ">").verdict is R
    assert decide(welch_test(high, low), "<").verdict is C
    assert decide(welch_test(high, _normal(10.0, 1.0, 8, 3)), ">").verdict is NS


def test_welch_matches_a_hand_computation():
    # a: mean 3, s² = 2.5, n 5; b: mean 1.5, s² = 1.667, n 4 → t = 1.5/√(0.5 + 0.4167) = 1.567,
    # Welch–Satterthwaite df = 0.9167² / (0.5²/4 + 0.4167²/3) = 6.99.
    a, b = [1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0]
    test = welch_test(a, b)
    t = 1.5 / math.sqrt(2.5 / 5 + (5 / 3) / 4)
    df = (2.5 / 5 + (5 / 3) / 4) ** 2 / ((2.5 / 5) ** 2 / 4 + ((5 / 3) / 4) ** 2 / 3)
    assert test.p_value == pytest.approx(2 * t_cdf(-t, df), rel=1e-12)
    assert df == pytest.approx(6.99, abs=0.01)
    assert test.p_value == pytest.approx(0.161, abs=0.001)
    assert not test.significant and test.n == (5, 4)


def test_welch_from_summaries_equals_from_values():
    a, b = _normal(3.0, 1.0, 6, 4), _normal(2.0, 0.5, 9, 5)
    sa = Sample.of(a)
    back = Sample.from_interval(sa.mean, sa.half(), sa.n)
    assert back.sd == pytest.approx(sa.sd, rel=1e-12)
    assert welch_test(back, b).p_value == pytest.approx(welch_test(a, b).p_value, rel=1e-9)


def test_one_sample_reaches_all_three_outcomes():
    x = _normal(1.2, 0.05, 10, 6)
    assert decide(one_sample_test(x, 1.0), ">").verdict is R
    assert decide(one_sample_test(x, 1.0), "<").verdict is C
    assert decide(one_sample_test(x, 1.2), ">").verdict is NS
    # Hand value: mean 2, s = 1, n 4 against 1 → t = 2, df 3, p = 0.1393.
    test = one_sample_test([1.0, 2.0, 2.0, 3.0], 2.0 - 2 * math.sqrt(2 / 3) / 2)
    assert test.p_value == pytest.approx(2 * t_cdf(-2.0, 3), rel=1e-9)
    assert test.p_value == pytest.approx(0.1393, abs=1e-4)


def test_intervals_rule_is_stricter_than_welch():
    a, b = Sample(1.0, 1.0, 10), Sample(0.0, 1.0, 10)
    # t = 1/√0.2 = 2.24 → Welch significant; half-widths 0.715 each → the intervals overlap.
    assert welch_test(a, b).significant
    rule = intervals_test(a, b)
    assert not rule.significant and decide(rule, ">").verdict is NS
    far = Sample(3.0, 1.0, 10)
    assert decide(intervals_test(far, b), ">").verdict is R
    assert decide(intervals_test(far, b), "<").verdict is C
    assert rule.kind == "95 % intervals apart" and rule.p_value == welch_test(a, b).p_value


def test_ratio_test_reaches_all_three_outcomes():
    num, den = Sample(150.0, 5.0, 8), Sample(100.0, 5.0, 8)
    assert decide(ratio_test(num, den, 1.2), ">").verdict is R
    assert decide(ratio_test(num, den, 1.8), ">").verdict is C
    assert decide(ratio_test(num, den, 1.5), ">").verdict is NS
    assert ratio_test(num, den).effect == pytest.approx(0.5)


def test_ratio_of_ratios_reaches_all_three_outcomes():
    def s(m: float) -> Sample:
        return Sample(m, 0.02 * m, 8)

    # (3.3/3.9)/(2.1/2.2) = 0.886: the gain towards the target is larger.
    test = ratios_test((s(3.3), s(3.9)), (s(2.1), s(2.2)))
    assert test.effect == pytest.approx(3.3 / 3.9 / (2.1 / 2.2) - 1)
    assert decide(test, "<").verdict is R and decide(test, ">").verdict is C
    assert decide(ratios_test((s(2.0), s(1.0)), (s(2.02), s(1.0))), ">").verdict is NS
    assert "one run" in ratios_test((Sample(1, 0, 1), s(1)), (s(1), s(1))).note


def test_fisher_exact_against_known_values():
    # Fisher's tea tasting: 3 of 4 against 1 of 4, two-sided p = 34/70.
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70, rel=1e-12)
    # [[8, 2], [1, 5]]: two-sided 0.03497 (R fisher.test).
    assert fisher_exact(8, 10, 1, 6) == pytest.approx(0.034965, abs=1e-6)
    assert fisher_exact(0, 5, 0, 5) == 1.0


def test_fisher_reaches_all_three_outcomes():
    many, few = Proportion(9, 10), Proportion(1, 10)
    assert decide(fisher_test(many, few), ">").verdict is R
    assert decide(fisher_test(many, few), "<").verdict is C
    assert decide(fisher_test(Proportion(5, 10), Proportion(4, 10)), ">").verdict is NS


def test_binomial_and_share_tests_reach_all_three_outcomes():
    assert decide(binomial_test(Proportion(10, 10), 0.5), ">").verdict is R
    assert decide(binomial_test(Proportion(0, 10), 0.5), ">").verdict is C
    assert decide(binomial_test(Proportion(6, 10), 0.5), ">").verdict is NS
    # R binom.test(9, 10): p = 0.02148.
    assert binomial_test(Proportion(9, 10), 0.5).p_value == pytest.approx(0.021484, abs=1e-6)
    assert decide(share_test(8, 0, 8), ">").verdict is R
    assert decide(share_test(0, 8, 8), ">").verdict is C
    assert decide(share_test(5, 3, 8), ">").verdict is NS


def test_equivalence_reaches_all_three_outcomes():
    assert equivalence(Sample(0.01, 0.05, 100), 0.0, 0.05).verdict is R
    assert equivalence(Sample(0.2, 0.05, 20), 0.0, 0.05).verdict is C
    assert equivalence(Sample(0.03, 0.2, 5), 0.0, 0.05).verdict is NS
    # Hand value: mean 0.02, se 0.01, df 99, margin 0.05 → the larger one-sided p is
    # P(T > (0.05 − 0.02)/0.01 = 3) = 0.0017.
    d = equivalence(Sample(0.02, 0.1, 100), 0.0, 0.05)
    assert d.test.p_value == pytest.approx(1 - t_cdf(3.0, 99), rel=1e-9)
    assert d.test.describe().startswith("equivalence test (TOST) within ±0.05 of 0, p = 0.002")
    assert equivalence([0.3], 0.0, 0.05).verdict is NS


def test_noninferiority_reaches_all_three_outcomes():
    # Equal small shares with many runs: the upper bound is well inside the margin.
    assert noninferiority(Proportion(4, 100), Proportion(4, 100), 0.1).verdict is R
    # Far worse than the margin allows.
    assert noninferiority(Proportion(50, 100), Proportion(5, 100), 0.1).verdict is C
    # Too few runs to tell.
    d = noninferiority(Proportion(4, 20), Proportion(2, 20), 0.1)
    assert d.verdict is NS and d.test.power < 0.8 and d.test.n_for_power > 20
    assert noninferiority(Proportion(0, 1), Proportion(0, 1), 0.1).verdict is NS


def test_newcombe_interval_matches_the_published_example():
    # Newcombe (1998), Table II example (h): 56/70 − 48/80 = 0.2, method 10 gives
    # [0.0524, 0.3339] at 95 %.
    low, high = newcombe_interval(Proportion(56, 70), Proportion(48, 80))
    assert (low, high) == (pytest.approx(0.0524, abs=5e-4), pytest.approx(0.3339, abs=5e-4))


def test_a_claim_not_run_is_not_significant_with_its_reason():
    d = unavailable("one-sample t-test", "not run in quick mode")
    assert d.verdict is NS and d.text() == "**not significant** (not run in quick mode)"


# -- one run ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: welch_test([5.0], [1.0, 1.1, 0.9]),
        lambda: one_sample_test([5.0], 1.0),
        lambda: intervals_test([5.0], [1.0]),
        lambda: ratio_test(Sample(5.0, math.nan, 1), Sample(1.0, 0.1, 5)),
        lambda: fisher_test(Proportion(1, 1), Proportion(0, 9)),
        lambda: binomial_test(Proportion(1, 1), 0.1),
        lambda: share_test(1, 0, 1),
    ],
)
def test_one_run_is_never_reproduced(make):
    test = make()
    for relation in (">", "<"):
        d = decide(test, relation)
        assert d.verdict is NS
        assert "one run" in d.text() and "one run" in test.describe()


def test_a_point_estimate_is_not_significant_with_its_direction():
    d = point_decision(3.0, 1.0, ">")
    assert d.verdict is NS and "(one run; the point estimate agrees)" in d.text()
    assert "disagrees" in point_decision(0.5, 1.0, ">").text()


def test_no_spread_differences_are_certain():
    assert decide(welch_test([2.0, 2.0, 2.0], [0.0, 0.0]), ">").verdict is R
    assert decide(welch_test([0.0, 0.0, 0.0], [0.0, 0.0]), ">").verdict is NS


# -- power -----------------------------------------------------------------------------------


def test_noncentral_t_reduces_to_student_and_matches_simulation():
    for df in (1, 3, 12.5):
        for t in (-2.0, 0.4, 1.7):
            assert noncentral_t_cdf(t, df, 0.0) == pytest.approx(t_cdf(t, df), abs=1e-9)
    rng = np.random.default_rng(7)
    z, v = rng.standard_normal(400_000), rng.chisquare(5, 400_000)
    simulated = np.mean((z + 1.3) / np.sqrt(v / 5) <= 2.0)
    assert noncentral_t_cdf(2.0, 5, 1.3) == pytest.approx(simulated, abs=0.004)


def test_power_of_the_two_sample_t_test_matches_cohens_tables():
    # pwr.t.test(n = 64, d = 0.5): power 0.8015; n for 80 %: 64 (d 0.5), 26 (0.8), 17 (1.0).
    def power(d: float, n: int) -> float:
        return t_power(d, math.sqrt(2 / n), 2 * n - 2)

    assert power(0.5, 64) == pytest.approx(0.80146, abs=1e-4)
    assert power(0.8, 26) == pytest.approx(0.80749, abs=1e-4)
    for d, n in ((0.5, 64), (0.8, 26), (1.0, 17)):
        assert replications_for_power(lambda k, d=d: power(d, k)) == n
    # One-sample, d = 0.5, n = 34: 0.8078 (pwr.t.test(type = "one.sample")).
    assert t_power(0.5, 1 / math.sqrt(34), 33) == pytest.approx(0.8078, abs=1e-3)


def test_welch_reports_power_and_replications_needed():
    # Unit variances, a stated effect of 0.5 → 64 per group; at n = 10 power ≈ 0.185.
    a, b = Sample(0.1, 1.0, 10), Sample(0.0, 1.0, 10)
    test = welch_test(a, b, effect=0.5)
    assert test.n_for_power == 64
    assert test.power == pytest.approx(0.185, abs=0.005)
    assert "power 0.19 for a difference of 0.5; 80 % needs n = 64" in test.describe()
    # Default effect: 20 % of the larger mean.
    assert welch_test(Sample(11.0, 1.0, 8), Sample(10.0, 1.0, 8)).power_for == "20 % of 11"
    assert welch_test(Sample(1.0, 1.0, 8), Sample(10.0, 1.0, 8)).power_for == "20 % of 10"


def test_fisher_power_by_enumeration():
    # Exact power of Fisher's test for 0.9 against 0.1 with 10 runs each: a check by
    # enumerating outcomes directly.
    from math import comb

    expected = sum(
        comb(10, i) * 0.9**i * 0.1 ** (10 - i) * comb(10, j) * 0.1**j * 0.9 ** (10 - j)
        for i in range(11)
        for j in range(11)
        if fisher_exact(i, 10, j, 10) < 0.05
    )
    assert fisher_power(0.9, 0.1, 10, 10) == pytest.approx(expected, rel=1e-12)
    assert 0.9 < expected < 1.0
    assert fisher_power(0.5, 0.5, 10, 10) < 0.05  # the test keeps its level


# -- combining points --------------------------------------------------------------------------


def test_combine_reproduced_only_when_every_point_is():
    yes = decide(welch_test(Sample(10, 1, 8), Sample(5, 1, 8)), ">")
    maybe = decide(welch_test(Sample(5.2, 1, 8), Sample(5, 1, 8)), ">")
    no = decide(welch_test(Sample(1, 1, 8), Sample(5, 1, 8)), ">")
    assert combine({"2 UEs": yes, "3 UEs": yes}).verdict is R
    mixed = combine({"2 UEs": yes, "3 UEs": maybe})
    assert mixed.verdict is NS and "3 UEs not significant" in mixed.text()
    assert combine({"2 UEs": yes, "3 UEs": no}).verdict is C
    assert "at each of 2 points" in mixed.test.describe()


def test_combine_contradicts_only_at_the_corrected_level():
    # p ≈ 0.02 against the claim: contradicted alone, not at α/5 among five points.
    weak = decide(welch_test(Sample(4.0, 1, 8), Sample(5.2, 1, 8)), ">")
    assert weak.verdict is C and 0.01 < weak.test.p_value < 0.05
    ns = decide(welch_test(Sample(5.0, 1, 8), Sample(5.0, 1, 8)), ">")
    assert combine([("a", weak)] + [(str(i), ns) for i in range(4)]).verdict is NS


def test_any_of_reproduced_when_one_point_is_at_the_corrected_level():
    yes = decide(welch_test(Sample(10, 1, 8), Sample(5, 1, 8)), ">")
    ns = decide(welch_test(Sample(5.0, 1, 8), Sample(5.0, 1, 8)), ">")
    no = decide(welch_test(Sample(1, 1, 8), Sample(5, 1, 8)), ">")
    assert any_of({"0": ns, "0.01": yes}).verdict is R
    assert any_of({"0": no, "0.01": no}).verdict is C
    assert any_of({"0": no, "0.01": ns}).verdict is NS
    # p ≈ 0.03 at one of three points: not below 0.05/3.
    weak = decide(welch_test(Sample(6.2, 1, 8), Sample(5.0, 1, 8)), ">")
    assert weak.verdict is R and 0.0167 < weak.test.p_value < 0.05
    d = any_of([("a", weak), ("b", ns), ("c", ns)])
    assert d.verdict is NS and "(one must hold, Bonferroni)" in d.test.describe()


def test_shortfall_names_the_points_and_the_power_missing():
    yes = decide(welch_test(Sample(10, 1, 8), Sample(5, 1, 8)), ">")
    maybe = decide(welch_test(Sample(5.2, 1, 8), Sample(5, 1, 8)), ">")
    assert shortfall(combine({"2": yes, "3": yes})) == ""
    text = shortfall(combine({"2": yes, "3": maybe}), "p_err ")
    assert text.startswith("not reproduced at p_err 3; power 0.")
    assert re.search(r"80 % needs n = \d+$", text)
    # Without the power clause only the points remain (the verdict's text states the power).
    assert shortfall(combine({"2": yes, "3": maybe}), "p_err ", power=False) == (
        "not reproduced at p_err 3"
    )


# -- magnitudes and rows ------------------------------------------------------------------------


def test_magnitude_labels():
    assert magnitude(3.0, 2.1) == "magnitude within ×1.5"
    assert magnitude(2.0, 3.0) == "magnitude within ×1.5"
    assert magnitude(1.0, 3.0) == "magnitude off ×3"
    assert magnitude(1.0, None) == "direction only"
    assert magnitude(-1.0, 1.0) == "magnitude off (opposite sign)"
    assert magnitude(0.0, 1.0) == "magnitude off ×∞"


def test_claim_rows_render_with_test_and_reason():
    a, b = Sample(3.9, 0.2, 8), Sample(2.2, 0.2, 8)
    good = ClaimRow(
        "Table IV",
        "target drops more",
        "3.9 / 2.2",
        1.7,
        Estimate.of_difference(a, b),
        decide(welch_test(a, b), ">"),
        unit="%",
    )
    off = ClaimRow(
        "Table IV",
        "target drops more",
        "3.9 / 2.2",
        5.1,
        Estimate.of_difference(a, b),
        decide(welch_test(a, b), ">"),
    )
    against = ClaimRow(
        "Fig. 8",
        "timeout most frequent",
        "highest bar",
        None,
        None,
        decide(share_test(0, 8, 8), ">"),
        reason="real losses in the target link end in fast recovery",
    )
    cells = good.cells()
    assert len(cells) == len(CLAIM_HEADER)
    assert cells[5] == "**reproduced**" and cells[6] == "magnitude within ×1.5"
    assert cells[4] == "1.00" and cells[8] == ""
    assert re.match(r"1\.700 \[1\.4\d\d, 1\.9\d\d\] % \(n = 8\)", cells[3])
    assert "Welch's t-test, p < 0.001, n = 8/8" in cells[7]
    assert off.cells()[6] == "magnitude off ×3" and off.cells()[8] == "not explained yet"
    # share_test(0, 8, 8) has power < 0.8 for its stated effect: the verdict says so.
    assert against.cells()[5] == ("**contradicted** (underpowered: n = 8, 80 % power needs n = 47)")
    assert against.cells()[6] == "direction only"
    assert against.cells()[8].startswith("real losses")
    table = claim_table([good, off, against])
    assert table.header == CLAIM_HEADER and len(table.rows) == 3


# -- no verdict that cannot fail --------------------------------------------------------------


_TESTS = {
    "welch": (lambda e: welch_test(Sample(5 + e, 1, 8), Sample(5, 1, 8))),
    "one-sample": (lambda e: one_sample_test(Sample(5 + e, 1, 8), 5)),
    "intervals": (lambda e: intervals_test(Sample(5 + e, 1, 8), Sample(5, 1, 8))),
    "ratio": (lambda e: ratio_test(Sample(5 + e, 1, 8), Sample(5, 1, 8))),
    "ratios": (
        lambda e: ratios_test(
            (Sample(5 + e, 1, 8), Sample(5, 1, 8)), (Sample(5, 1, 8), Sample(5, 1, 8))
        )
    ),
    "fisher": (lambda e: fisher_test(Proportion(round(5 + 2.5 * e), 10), Proportion(5, 10))),
    "binomial": (lambda e: binomial_test(Proportion(round(5 + 2.5 * e), 10), 0.5)),
    "share": (lambda e: share_test(round(5 + 2.5 * e), round(5 - 2.5 * e), 10)),
}


@pytest.mark.parametrize("name", sorted(_TESTS))
def test_every_test_can_give_every_verdict(name):
    seen = {decide(_TESTS[name](e), rel).verdict for e in (-2.0, 0.0, 2.0) for rel in "<>"}
    assert seen == {R, NS, C}


_CONVERTED = (
    "seed000.py",
    "seed000_report.py",
    "seed001_report.py",
    "seed002_report.py",
    "seed003.py",
    "seed003_exp5_3.py",
    "seed004_report.py",
)


@pytest.mark.parametrize("module", _CONVERTED)
def test_reports_write_no_verdict_in_advance(module):
    """A verdict word in a report's source is a branch that cannot fail: verdicts come from
    :class:`Verdict` through :func:`decide` only."""
    source = (Path(__file__).parents[2] / "python/celltcp/reproduce" / module).read_text()
    assert not re.search(
        r"\*\*(reproduced|not reproduced|partly|contradicted|not significant)", source
    )


# -- claims of none, of the seed's number, at several points; power in the verdict ------------


def test_exact_interval_is_clopper_pearson():
    # R: binom.test(3, 10)$conf.int and binom.test(0, 10)$conf.int.
    low, high = exact_interval(3, 10)
    assert low == pytest.approx(0.06673951, abs=1e-7) and high == pytest.approx(
        0.65245285, abs=1e-7
    )
    assert exact_interval(0, 10) == (0.0, pytest.approx(0.30849711, abs=1e-7))
    assert exact_interval(10, 10) == (pytest.approx(0.69150289, abs=1e-7), 1.0)


def test_a_claim_of_none_is_a_rate_bound_that_can_fail():
    """ "No spurious retransmission", "no overrun": the rate's exact 95 % upper bound below the
    tolerance reproduces, its lower bound above contradicts (a comparison with a worse
    setting could only ever find fewer)."""
    assert rate_below(Proportion(0, 100)).verdict is R
    assert rate_below(Proportion(20, 100)).verdict is C
    assert rate_below(Proportion(0, 20)).verdict is NS
    assert rate_below(Proportion(3, 100)).verdict is NS
    # 72 runs without the event are the fewest that bound the rate below 0.05.
    assert rate_below(Proportion(0, 71)).verdict is NS
    assert rate_below(Proportion(0, 72)).verdict is R
    few = rate_below(Proportion(0, 20))
    assert few.test.power == 0.0 and few.test.n_for_power == 72
    assert few.text() == "**not significant** (underpowered: n = 20, 80 % power needs n = 72)"
    # Bounds a comparison against a worse setting hides: 20 % of the runs with the event is
    # still far fewer than all of them.
    assert decide(fisher_test(Proportion(20, 100), Proportion(40, 40)), "<").verdict is R


def test_the_seeds_number_is_tested_within_the_magnitude_factor():
    """ "Five resets": equal to 5 within ×1.5 (TOST on [3.33, 7.5]); more resets than that are
    a contradiction, where "more than none" would have reproduced."""
    around = _normal(5.0, 0.5, 20, 3)
    far = _normal(9.0, 0.5, 20, 4)
    wide = _normal(6.5, 3.0, 5, 5)
    assert within_factor(around, 5.0).verdict is R
    assert within_factor(far, 5.0).verdict is C
    assert within_factor(wide, 5.0).verdict is NS
    assert within_factor(_normal(2.0, 0.3, 20, 6), 5.0).verdict is C
    assert decide(one_sample_test(far, 0.0), ">").verdict is R
    d = within_factor(around, 5.0)
    assert "within ×1.5 of 5" in d.test.kind and d.test.power > 0.8
    # The symmetric form is the same test on reference ± margin.
    sym = equivalence(around, 5.0, 1.0)
    assert sym.verdict is R and "within ±1 of 5" in sym.test.kind
    with pytest.raises(ValueError):
        within_factor(around, 0.0)


def test_combined_power_and_replications_are_for_every_point_holding():
    parts = {f"{i}": decide(welch_test(Sample(6.2, 1, 5), Sample(5, 1, 5)), ">") for i in range(3)}
    single = parts["0"].test
    d = combine(parts)
    assert d.test.power == pytest.approx(single.power**3)
    need = d.test.n_for_power
    assert need is not None and need > single.n_for_power
    assert d.test.power_at is not None
    assert d.test.power_at(need) >= 0.8 > d.test.power_at(need - 1)
    assert underpowered(d.test) == f"underpowered: n = 5, 80 % power needs n = {need} at each point"
    assert d.text().endswith(f"(underpowered: n = 5, 80 % power needs n = {need} at each point)")
    # One of several points must hold: the power of at least one.
    one = any_of(parts)
    assert one.test.power == pytest.approx(1 - (1 - single.power) ** 3)
    assert one.test.n_for_power is not None and one.test.n_for_power <= single.n_for_power
    # Enough power: nothing added.
    strong = decide(welch_test(Sample(10, 1, 8), Sample(5, 1, 8)), ">")
    assert underpowered(strong.test) == "" and strong.text() == "**reproduced**"
    # No power without variance to compute it from (one run): nothing added either.
    assert underpowered(welch_test([1.0], [2.0])) == ""


def test_magnitudes_at_several_points_give_the_range_of_ratios():
    assert magnitudes([(1.0, 1.1), (2.0, 1.8)]) == (
        "magnitude within ×1.5 at every point (ours / seed 0.91–1.11, 2 points)"
    )
    delays = [(28.0, 104.8), (30.0, 92.3), (31.0, 33.2)]
    assert magnitudes(delays) == "magnitude off at 2 of 3 points (ours / seed 0.27–0.93)"
    assert magnitudes([]) == "direction only"
    assert magnitudes([(math.nan, 1.0), (1.0, 1.0)]).startswith("magnitude n/a at 1 of 2")
    row = ClaimRow(
        "5.5",
        "delay: NewReno lowest at every rate",
        "N 31.5–33.24 ms, T and P 85–131 ms",
        None,
        None,
        decide(welch_test(Sample(4, 1, 8), Sample(5, 1, 8)), "<"),
        points=tuple(delays),
    )
    cells = row.cells()
    assert cells[4] == "0.27–0.93" and cells[6] == magnitudes(delays)
    assert row.differs and cells[8] == "not explained yet"
    record = row.as_dict()
    assert record["ratio"] is None and record["ratio_text"] == "0.27–0.93"
    assert record["ratios"] == pytest.approx([28 / 104.8, 30 / 92.3, 31 / 33.2])
