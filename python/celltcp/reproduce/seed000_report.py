"""The declaration of seed `000_…`'s reproduction (:mod:`celltcp.reproduce.seed000`) on
:mod:`celltcp.study`: the seed's claims with their tests (Fig. 4's reconstructed model beside
the runs, the outcome classes of Figs. 8 and 11, Table IV's drop rates, Fig. 12's delivered
data), the tables, the figures and the report's layout. Every verdict comes from a test of
:mod:`celltcp.reproduce.verdict` on the runs, never written in advance; docs/seed-000.md
discusses the agreements and the differences.

The claims read the derived frames of :mod:`celltcp.reproduce.seed000` as sets of runs
(:class:`celltcp.study.Runs` over a frame): the reference handovers by UE count, policy and AQM,
Fig. 4's Drop Tail runs by outcome class, Table IV by variant and link, the RTTs before and at
their peak.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from celltcp.models.x2 import x2_normalized_throughput
from celltcp.reproduce.document import fmt_ci, mean_ci
from celltcp.reproduce.seed000 import (
    AQM_REPLICATIONS,
    AQM_VARIANTS,
    CWND_MAX_SEGMENTS,
    DELIVERY_GROUPS,
    DERIVED,
    DROP_RATES,
    FIG4,
    HANDOVERS,
    LINKS,
    MASTER_SEED,
    NAME,
    OUTCOMES,
    POLICIES,
    POLICY_LABEL,
    REPLICATIONS,
    RTT,
    STARTUP_TEXT,
    SWEEPS,
    TABLE_IV,
    UE_COUNTS,
)
from celltcp.reproduce.verdict import Estimate, Proportion, Sample, Verdict, shortfall
from celltcp.study import (
    AtEvery,
    Block,
    Claim,
    Claims,
    Equal,
    Evaluation,
    Figure,
    Fisher,
    Items,
    RatioOfRatios,
    Runs,
    Section,
    ShareAbove,
    ShareAgainst,
    Study,
    Table,
    Test,
    Text,
    Untestable,
    Welch,
)

if TYPE_CHECKING:
    from celltcp.study import Results

__all__ = ["ALWAYS_AVOIDED", "CLAIMS", "FIG4_MARGIN", "LAYOUT", "STUDY"]

#: Fig. 4's rows: the simulated normalized throughput equals the model's within this margin
#: (a fraction of D_I: 10 percentage points, about the gap between Fig. 4's two curves at
#: cwndMAX = 44).
FIG4_MARGIN = 0.10
#: Figs. 9(c)/10(c): "always avoids" read as a timeout share of at most this.
ALWAYS_AVOIDED = 0.05
_TRIALS = "trials"
_FIG4_RECONSTRUCTED = (
    "reconstructed formula: the seed's text lost parts of eqs. (1)–(5); "
    "celltcp.models.x2 states the reading"
)


# -- sets of runs and their figures ----------------------------------------------------------


def _at(policy: str, n: int | None = None, aqm: bool = False) -> Runs:
    """The reference handovers of ``policy`` at ``n`` UEs in the target (every count: None)."""
    where: dict[str, Any] = {"policy": policy, "aqm": aqm}
    if n is not None:
        where["ues"] = n
    return Runs(HANDOVERS, where)


def _group(group: str, n: int) -> Runs:
    """Fig. 12's group ``group`` at ``n`` UEs in the target."""
    return Runs(HANDOVERS, {"group": group, "ues": n})


def _rtt(n: int, policy: str, when: str) -> Runs:
    return Runs(RTT, {"ues": n, "policy": policy, "when": when})


def _link(variant: str, link: str) -> Runs:
    return Runs(DROP_RATES, {"variant": variant, "link": link})


def _class(outcome: str) -> Runs:
    return Runs(FIG4, {"outcome": outcome})


def _mean(values: Sequence[float] | pd.Series) -> tuple[float, float]:
    """Mean and 95 % half-width over the values that are defined (NaN: undefined in a run)."""
    clean = [float(v) for v in values if not math.isnan(float(v))]
    return mean_ci(clean) if clean else (math.nan, math.nan)


def _mean_text(values: Sequence[float] | pd.Series, digits: int = 2) -> str:
    return fmt_ci(*_mean(values), digits)


def _share(rows: pd.DataFrame, outcome: str, column: str = "outcome") -> Proportion:
    return Proportion(int((rows[column] == outcome).sum()), len(rows))


def _share_text(p: Proportion) -> str:
    """``0.50 [0.22, 0.78]``: the share with its Wilson 95 % interval."""
    low, high = p.interval()
    return f"{p.value:.2f} [{low:.2f}, {high:.2f}]"


def _pooled(r: Results, policy: str, outcome: str) -> Estimate:
    """A class's share over the runs of every count, with its Wilson interval."""
    return Estimate.of_proportion(_share(r.rows(_at(policy)), outcome))


def _per_count(r: Results, policy: str, outcome: str, against: str = "forward") -> str:
    return "; ".join(
        f"{n}: {_share(r.rows(_at(policy, n)), outcome).value:.2f} vs "
        f"{_share(r.rows(_at(against, n)), outcome).value:.2f}"
        for n in UE_COUNTS
    )


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _then_shortfall(
    text: Callable[[Evaluation, Results], str],
) -> Callable[[Evaluation, Results], str]:
    """A reason whose measured cause comes before the test's shortfall."""
    return lambda e, r: _join(text(e, r), shortfall(e.decision))


def _by_count(test: Callable[[int], Test], counts: Sequence[int] = UE_COUNTS) -> AtEvery:
    """One claim tested at every UE count."""
    return AtEvery({f"{n} UEs": test(n) for n in counts})


# -- Fig. 4 ----------------------------------------------------------------------------------


def _model_mean(r: Results, outcome: str) -> float | None:
    model = r.rows(_class(outcome))["fig4_model"].astype(float)
    return float(model.mean()) if len(model) else None


def _cwnd_max(r: Results) -> float:
    return float(r.derived(FIG4)["fig4_cwnd_max"].median())


def _fig4_seed_text(outcome: str) -> Callable[[Results], str]:
    def text(r: Results) -> str:
        m = _model_mean(r, outcome)
        mean = math.nan if m is None else m
        return f"{100 * mean:.1f} % (model at cwndMAX {_cwnd_max(r):.0f}; {_FIG4_RECONSTRUCTED})"

    return text


def _fig4_why(outcome: str, r: Results) -> str:
    runs = r.derived(FIG4)
    timeouts = runs[runs["outcome"] == "timeout"]
    rounds_to_rto = (
        (timeouts["first_rto_s"] - timeouts["start_s"]) / timeouts["rtt_before_s"]
    ).median()
    if outcome == "halving":
        return (
            f"the flows are limited by their receive window (cwndMAX {_cwnd_max(r):.0f} reached "
            "before the handover), so no loss ends the cycle: after the halving cwnd "
            "grows back one segment per round for cwndHO/2 rounds, the whole cycle, "
            "where eq. (2) charges cwndHO/2 for the N = cwndMAX − cwndHO + 1 rounds "
            "left in it only"
        )
    return (
        f"eq. (3) charges the slow start's rounds but no time for the timer: the "
        f"first RTO comes {rounds_to_rto:.0f} rounds (median) after the handover "
        "starts (RFC 2988's 1 s minimum), with nothing delivered meanwhile, and "
        "after the slow start the window again climbs back to cwndMAX for "
        "cwndHO/2 rounds"
    )


def _fig4_reason(outcome: str) -> Callable[[Evaluation, Results], str]:
    """The model's shortfall explained when the runs deliver less than it, then the test's."""

    def reason(e: Evaluation, r: Results) -> str:
        sim = r.rows(_class(outcome))["fig4_normalized"].astype(float)
        model = _model_mean(r, outcome)
        below = len(sim) > 0 and model is not None and sim.mean() < model
        explain = e.decision.verdict is not Verdict.REPRODUCED and below
        return _join(_fig4_why(outcome, r) if explain else "", shortfall(e.decision))

    return reason


def _fig4_detail(outcome: str) -> Callable[[Evaluation, Results], str]:
    def detail(_e: Evaluation, r: Results) -> str:
        runs = r.derived(FIG4)
        policies = ", ".join(f"`{p}`" for p in sorted(runs["policy"].unique()))
        return f"{len(r.rows(_class(outcome)))} runs of {len(runs)} ({policies})"

    return detail


_FIG4_LABEL = {
    "halving": "window halving: D_WH / D_I (eq. 2) at the run's cwndMAX and cwndHO",
    "timeout": "timeout: D_SS / D_I (eqs. 3–5) at the run's cwndMAX and cwndHO",
}


def _fig4_claim(outcome: str) -> Claim:
    return Claim(
        f"fig4_{outcome}",
        "Fig. 4, §IV",
        f"{_FIG4_LABEL[outcome]}; simulated: bytes in the cycle from the "
        "handover over the mean of the transparent handovers' (class none, same policy "
        f"and UE count), within ±{FIG4_MARGIN:g} of the model (TOST on the per-run "
        "difference)",
        # The per-run difference between the run's normalized throughput and the model at its
        # own cwndMAX and cwndHO.
        Equal("fig4_gap", _class(outcome), 0.0, FIG4_MARGIN),
        source_text=_fig4_seed_text(outcome),
        source_value=lambda r: _model_mean(r, outcome),
        estimate=lambda _e, r: Estimate.of_sample(
            r.rows(_class(outcome))["fig4_normalized"].to_numpy(float)
        ),
        detail=_fig4_detail(outcome),
        reason=_fig4_reason(outcome),
        shortfall=False,
    )


def _order_detail(_e: Evaluation, r: Results) -> str:
    t, h = (r.rows(_class(o))["fig4_normalized"] for o in ("timeout", "halving"))
    return f"timeout {t.mean():.3f} (n = {len(t)}), halving {h.mean():.3f} (n = {len(h)})"


def _order_reason(_e: Evaluation, r: Results) -> str:
    few = len(r.rows(_class("halving"))) < 10
    return (
        "few halvings: without SACK several losses in one window end in a timeout (see Figs. 8/11)"
        if few
        else ""
    )


def _at_peak(r: Results) -> tuple[int, int]:
    """Runs whose handover came at the window's peak (cwndHO = cwndMAX), of Fig. 4's runs."""
    runs = r.derived(FIG4)
    return int((runs["fig4_cwnd_ho"] >= runs["fig4_cwnd_max"] - 0.5).sum()), len(runs)


def _middle_reason(_e: Evaluation, r: Results) -> str:
    at_peak, runs = _at_peak(r)
    return (
        f"the set-up's flows sit at their 64 KB receive window (cwndMAX "
        f"{CWND_MAX_SEGMENTS}) instead of a loss-driven sawtooth: cwndHO = cwndMAX "
        f"in {at_peak} of {runs} runs, so the middle of the cycle is not sampled"
    )


FIG4_CLAIMS = (
    _fig4_claim("timeout"),
    _fig4_claim("halving"),
    Claim(
        "fig4_order",
        "Fig. 4",
        "the timeout delivers less than the window halving (normalized throughput, "
        "timeout − halving)",
        Welch("fig4_normalized", _class("timeout"), _class("halving"), "<", statistic="difference"),
        source_text="the lower curve",
        detail=_order_detail,
        reason=_order_reason,
    ),
    Claim(
        "fig4_middle",
        "Fig. 4",
        "the marked curves: the handover in the middle of [SSthresh, cwndMAX] "
        "(cwndHO = 3/4 cwndMAX)",
        Untestable(
            "not testable",
            lambda r: "cwndHO = cwndMAX in {} of {} runs".format(*_at_peak(r)),
        ),
        source_text="below the continuous curves",
        estimate=lambda _e, _r: None,
        detail=lambda _e, _r: "",
        reason=_middle_reason,
        shortfall=False,
    ),
)


# -- Figs. 8–11 ------------------------------------------------------------------------------


def _most_frequent(policy: str, claimed: str, counts: Sequence[int] = UE_COUNTS) -> AtEvery:
    """Class ``claimed`` the most frequent at every UE count: at each count, the exact binomial
    test of its runs against those of each other class (two classes of the same runs), all of
    which must hold."""
    return _by_count(
        lambda n: AtEvery(
            {
                f"over {o}": ShareAbove(claimed, o, _TRIALS, _at(policy, n), ">")
                for o in OUTCOMES
                if o != claimed
            }
        ),
        counts,
    )


def _versus(
    policy: str, outcome: str, relation: Literal[">", "<"], counts: Sequence[int] = UE_COUNTS
) -> AtEvery:
    """``policy``'s share of ``outcome`` ``relation`` the standard procedure's at every count,
    by Fisher's exact test."""
    return _by_count(
        lambda n: Fisher(outcome, _TRIALS, _at(policy, n), _at("forward", n), relation), counts
    )


def _classes_detail(_e: Evaluation, r: Results) -> str:
    def v(n: int, o: str) -> float:
        return _share(r.rows(_at("forward", n)), o).value

    return "per count T / H / N: " + "; ".join(
        f"{n}: {v(n, 'timeout'):.2f} / {v(n, 'halving'):.2f} / {v(n, 'none'):.2f}"
        for n in UE_COUNTS
    )


_PHASE = "the outcome depends on the phase of the competitors'"


def _halving_reason(_e: Evaluation, r: Results) -> str:
    none_pred, none_std = (_pooled(r, p, "none") for p in ("predicted", "forward"))
    return (
        "Reno without SACK ends several losses in one window in a "
        "timeout more often than in one fast recovery, so prediction "
        f"turns timeouts into none ({none_pred.value:.2f} against "
        f"{none_std.value:.2f} with the standard procedure), not into "
        "halvings"
    )


def _forwarded(r: Results, policy: str) -> pd.Series:
    return r.rows(_at(policy))["forwarded"].astype(float)


def _forwarded_reason(_e: Evaluation, r: Results) -> str:
    pred = _forwarded(r, "predicted")
    return (
        f"{int((pred > 0).sum())} of {len(pred)} prediction runs "
        f"forward packets, at most {pred.max():.0f}"
    )


def _rtt_text(r: Results, a: Runs, b: Runs) -> str:
    return f"{_mean_text(r.rows(a)['rtt_ms'], 0)} vs {_mean_text(r.rows(b)['rtt_ms'], 0)}"


def _pred_timeouts(_e: Evaluation, r: Results) -> str:
    return "timeouts per count: " + "; ".join(
        f"{n}: {_share(r.rows(_at('predicted', n)), 'timeout').value:.2f}" for n in UE_COUNTS
    )


OUTCOME_CLAIMS = (
    Claim(
        "fig8_timeout_most",
        "Fig. 8",
        "standard procedure: timeout the most frequent class",
        _most_frequent("forward", "timeout"),
        source_text="timeout highest at 2–5 UEs (bars, no values)",
        estimate=lambda _e, r: _pooled(r, "forward", "timeout"),
        detail=_classes_detail,
        digits=2,
    ),
    Claim(
        "fps_fewer_timeouts",
        "Figs. 9, 10",
        "fast path switch: fewer timeouts than standard (avoided partly)",
        _versus("fast_path_switch", "timeout", "<"),
        source_text="partly avoided (one example run)",
        estimate=lambda _e, r: _pooled(r, "fast_path_switch", "timeout"),
        detail=lambda _e, r: (
            "timeouts per count vs standard: " + _per_count(r, "fast_path_switch", "timeout")
        ),
        reason=lambda _e, _r: (
            f"{_PHASE} receive-window-limited sawtooth when the UE joins (docs/seed-000.md)"
        ),
        digits=2,
    ),
    Claim(
        "prediction_fewer_timeouts",
        "Fig. 11",
        "prediction cuts the timeouts",
        _versus("predicted", "timeout", "<"),
        source_text='"substantial reduction of the slow start frequency"',
        estimate=lambda _e, r: _pooled(r, "predicted", "timeout"),
        detail=lambda _e, r: (
            "timeouts per count vs standard: " + _per_count(r, "predicted", "timeout")
        ),
        reason=lambda _e, _r: f"{_PHASE} sawtooth when the UE joins (docs/seed-000.md)",
        digits=2,
    ),
    Claim(
        "prediction_more_halvings",
        "Fig. 11",
        "prediction raises the window halvings",
        _versus("predicted", "halving", ">"),
        source_text='"an increasing of the window halving frequency"',
        estimate=lambda _e, r: _pooled(r, "predicted", "halving"),
        detail=lambda _e, r: (
            "halvings per count vs standard: " + _per_count(r, "predicted", "halving")
        ),
        reason=_then_shortfall(_halving_reason),
        shortfall=False,
        digits=2,
    ),
    Claim(
        "prediction_no_forwarding",
        "§V-A.2",
        "prediction avoids the forwarding (packets forwarded over X2-U)",
        Welch("forwarded", _at("predicted"), _at("forward"), "<"),
        source_text='"avoids completely the packet forwarding": 0',
        source_value=0.0,
        estimate=lambda _e, r: Estimate.of_sample(Sample.of(_forwarded(r, "predicted"))),
        detail=lambda _e, r: (
            f"standard {_forwarded(r, 'forward').mean():.1f}; at most "
            f"{_forwarded(r, 'predicted').max():.0f} with prediction in a run"
        ),
        reason=_forwarded_reason,
        shortfall=False,
        digits=2,
    ),
    Claim(
        "forwarding_rtt_peak",
        "Fig. 10(a)",
        "forwarding raises the RTT across the handover (ms, peak vs before)",
        _by_count(
            lambda n: Welch("rtt_ms", _rtt(n, "forward", "peak"), _rtt(n, "forward", "before"), ">")
        ),
        source_text="a peak at the handover",
        estimate=lambda _e, _r: None,
        detail=lambda _e, r: "; ".join(
            f"{n}: {_rtt_text(r, _rtt(n, 'forward', 'peak'), _rtt(n, 'forward', 'before'))}"
            for n in UE_COUNTS
        ),
    ),
    Claim(
        "prediction_always_avoids",
        "Fig. 9(c)",
        "prediction always avoids the timeout (share of handovers, "
        f"claim read as at most {ALWAYS_AVOIDED:.0%})",
        _by_count(
            lambda n: ShareAgainst("timeout", _TRIALS, _at("predicted", n), ALWAYS_AVOIDED, "<")
        ),
        source_text='"avoids always the spurious timeout": 0',
        source_value=0.0,
        estimate=lambda _e, r: _pooled(r, "predicted", "timeout"),
        detail=_pred_timeouts,
        reason=_then_shortfall(
            lambda _e, _r: (
                "the timeouts follow real losses in the congested router, which "
                "prediction does not remove (docs/seed-000.md)"
            )
        ),
        shortfall=False,
        digits=2,
    ),
    Claim(
        "prediction_no_rtt_peak",
        "Fig. 10(c)",
        "prediction avoids the RTT peak of the standard procedure (ms, "
        "peak with prediction vs standard)",
        _by_count(
            lambda n: Welch("rtt_ms", _rtt(n, "predicted", "peak"), _rtt(n, "forward", "peak"), "<")
        ),
        source_text="no peak (one example run)",
        estimate=lambda _e, _r: None,
        detail=lambda _e, r: "; ".join(
            f"{n}: {_rtt_text(r, _rtt(n, 'predicted', 'peak'), _rtt(n, 'forward', 'peak'))}"
            for n in UE_COUNTS
        ),
        reason=_then_shortfall(
            lambda _e, _r: (
                "the new path's data wait at the target from the path switch "
                "until the attach (128 + 30 ms); their RTT samples make the peak"
            )
        ),
        shortfall=False,
    ),
)


# -- Table IV --------------------------------------------------------------------------------


#: Table IV of the seed: drop rates (%) towards the source and the target eNB.
_SEED_IV = {v.key: v.seed for v in AQM_VARIANTS if v.seed}
_SRC, _TGT = LINKS


def _seed_of(variant: str, link: str) -> float:
    return _SEED_IV[variant][LINKS.index(link)]


def _side(link: str) -> str:
    return link.removeprefix("s1u_")


def _drop(r: Results, variant: str, link: str, what: str = "drop") -> Sample:
    return Sample.of(r.values(f"{what}_pct", _link(variant, link)))


_DT_EFFECT = _seed_of("droptail", _TGT) - _seed_of("droptail", _SRC)


def _droptail_reason(_e: Evaluation, r: Results) -> str:
    sa, sb = (_drop(r, "droptail", link, "steady") for link in (_TGT, _SRC))
    steady = (
        Welch("steady_pct", _link("droptail", _TGT), _link("droptail", _SRC), ">")
        .evaluate(r)
        .decision
    )
    return (
        f"most drops come from the slow starts of the seven downloads that all begin "
        f"at 0 s, and the four flows towards the source overshoot more; after the "
        f"first second target {sa.mean:.2f} % against source {sb.mean:.2f} %: "
        f"{steady.verdict.value} ({steady.test.describe()})"
    )


def _red_label(variant: str) -> str:
    return "RED (dropping)" if variant == "red_drop" else "RED (marking)"


def _red_reason(variant: str, link: str) -> Callable[[Evaluation, Results], str]:
    def reason(_e: Evaluation, r: Results) -> str:
        a, b = _drop(r, variant, link), _drop(r, "droptail", link)
        label = _red_label(variant)
        if variant == "red_drop":
            return (
                f"{label} {a.mean:.2f} % against Drop Tail {b.mean:.2f} %: RED's average queue "
                "stays above its 20-packet threshold and it drops early and steadily, while the "
                "window-limited flows seldom overflow the Drop Tail queue"
            )
        # How much lower celltcp's rates of the two queues compared are, over both links.
        lower = [_seed_of(v, k) / _drop(r, v, k).mean for v in (variant, "droptail") for k in LINKS]
        return (
            f"{label} {a.mean:.2f} % against Drop Tail {b.mean:.2f} %; celltcp's drop rates "
            f"of the two are {min(lower):.0f}–{max(lower):.0f} times lower than the seed's "
            "(64 KB receive windows, drops mostly in the first second's slow starts)"
        )

    return reason


def _red_below(variant: str, link: str) -> Claim:
    """RED below Drop Tail where the seed's numbers are below (RED dropping towards the source
    equals Drop Tail in the seed: no claim there)."""
    seed = _seed_of(variant, link) - _seed_of("droptail", link)
    return Claim(
        f"{variant}_below_droptail_{_side(link)}",
        "Table IV",
        f"{_red_label(variant)} drops less than Drop Tail towards the {_side(link)} "
        "(difference, % points)",
        Welch(
            "drop_pct",
            _link(variant, link),
            _link("droptail", link),
            "<",
            effect=seed,
            statistic="difference",
        ),
        source_text=f"{_seed_of(variant, link):g} − {_seed_of('droptail', link):g} = {seed:+.1f}",
        source_value=seed,
        detail=lambda _e, _r: "",
        reason=_red_reason(variant, link),
        shortfall=False,
    )


def _lowest(link: str) -> Claim:
    """RED (marking) the lowest on a link."""

    def detail(_e: Evaluation, r: Results) -> str:
        return (
            f"Drop Tail {_drop(r, 'droptail', link).mean:.2f}, RED (dropping) "
            f"{_drop(r, 'red_drop', link).mean:.2f}"
        )

    def reason(_e: Evaluation, r: Results) -> str:
        return (
            "every flow is limited by its 64 KB receive window: the queue "
            "overflows mainly in the slow starts of the first second; after it "
            f"RED (marking) drops {_drop(r, 'red_mark', link, 'steady').mean:.3f} %"
        )

    return Claim(
        f"red_mark_lowest_{_side(link)}",
        "Table IV",
        f"RED (marking) has the lowest drop rate towards the {_side(link)} (%)",
        AtEvery(
            {
                f"vs {other}": Welch("drop_pct", _link("red_mark", link), _link(other, link), "<")
                for other in ("droptail", "red_drop")
            }
        ),
        source_text=f"{_seed_of('red_mark', link):g}",
        source_value=_seed_of("red_mark", link),
        estimate=lambda _e, r: Estimate.of_sample(_drop(r, "red_mark", link)),
        detail=detail,
        reason=_then_shortfall(reason),
        shortfall=False,
    )


#: The gain of RED (marking) over Drop Tail is larger towards the target: its ratio to Drop
#: Tail is smaller there.
_SEED_RATIO = (_seed_of("red_mark", _TGT) / _seed_of("droptail", _TGT)) / (
    _seed_of("red_mark", _SRC) / _seed_of("droptail", _SRC)
)


def _gain_detail(_e: Evaluation, r: Results) -> str:
    gain = {
        link: 1.0 - _drop(r, "red_mark", link).mean / _drop(r, "droptail", link).mean
        for link in LINKS
    }
    return f"−{100 * gain[_SRC]:.0f} % source, −{100 * gain[_TGT]:.0f} % target"


TABLE_IV_CLAIMS = (
    Claim(
        "droptail_target_more",
        "Table IV",
        "Drop Tail: the link to the target drops more (target − source, % points)",
        Welch(
            "drop_pct",
            _link("droptail", _TGT),
            _link("droptail", _SRC),
            ">",
            effect=_DT_EFFECT,
            statistic="difference",
        ),
        source_text="3.9 − 2.2 = 1.7",
        source_value=_DT_EFFECT,
        detail=lambda _e, r: (
            f"source {_drop(r, 'droptail', _SRC).mean:.2f} %, target "
            f"{_drop(r, 'droptail', _TGT).mean:.2f} %"
        ),
        reason=_droptail_reason,
        shortfall=False,
    ),
    *(_red_below(v, k) for v, k in (("red_drop", _TGT), ("red_mark", _SRC), ("red_mark", _TGT))),
    *(_lowest(link) for link in LINKS),
    Claim(
        "red_mark_gain_target",
        "Table IV",
        "the gain of RED (marking) is larger towards the target: (marking / Drop "
        "Tail) towards the target over the same towards the source",
        RatioOfRatios(
            "drop_pct",
            (_link("red_mark", _TGT), _link("droptail", _TGT)),
            (_link("red_mark", _SRC), _link("droptail", _SRC)),
            "<",
            effect=_SEED_RATIO - 1,
        ),
        source_text=f"−5 % source, −15 % target: {_SEED_RATIO:.3f}",
        source_value=_SEED_RATIO,
        detail=_gain_detail,
        reason=lambda _e, _r: (
            "with marking RED's losses after the first second vanish (marks "
            "replace them); what remains are the slow starts, which overshoot the source link more"
        ),
        shortfall=False,
    ),
)


# -- Fig. 12 ---------------------------------------------------------------------------------


_GROUPS = tuple(g for g, _, _ in DELIVERY_GROUPS)
_BOTH = "AQM + prediction"


def _kb(r: Results, group: str, n: int, digits: int = 1) -> str:
    return _mean_text(r.rows(_group(group, n))["delivered_kb"], digits)


DELIVERY_CLAIMS = (
    Claim(
        "aqm_prediction_most",
        "Fig. 12",
        "AQM + prediction delivers the most (KB)",
        _by_count(
            lambda n: AtEvery(
                {
                    f"vs {g}": Welch("delivered_kb", _group(_BOTH, n), _group(g, n), ">")
                    for g in _GROUPS
                    if g != _BOTH
                }
            )
        ),
        source_text="the highest bars",
        estimate=lambda _e, _r: None,
        detail=lambda _e, r: "; ".join(
            f"{n}: {_kb(r, _BOTH, n)} (default {_kb(r, 'default', n)})" for n in UE_COUNTS
        ),
    ),
    Claim(
        "prediction_delivers_more",
        "Fig. 12",
        "prediction delivers more than the standard procedure (KB)",
        _by_count(
            lambda n: Welch("delivered_kb", _group("prediction", n), _group("default", n), ">")
        ),
        source_text='"a substantial increase of data delivered"',
        estimate=lambda _e, _r: None,
        detail=lambda _e, r: "; ".join(
            f"{n}: {_kb(r, 'prediction', n)} vs {_kb(r, 'default', n)}" for n in UE_COUNTS
        ),
        reason=lambda _e, r: _prediction_delivery_reason(r),
    ),
)


def _prediction_delivery_reason(r: Results) -> str:
    """Why prediction delivers little more within Fig. 12's window, from its runs (the
    mechanism traced in docs/seed-000.md, "Fig. 12's window")."""
    rows = pd.concat([r.rows(_group("prediction", n)) for n in UE_COUNTS])
    lost = rows["dropped"].to_numpy(float)
    window_ms = 1e3 * (rows["interruption_s"] + rows["rtt_before_s"]).median()
    return (
        f"the window ends {window_ms:.0f} ms after the command (the attach plus one smoothed "
        f"RTT); the data sent on the new path from the predicted path switch on queue behind "
        f"the competitors' full router queue to the target, as the standard procedure's do, "
        f"and in {int((lost > 0).sum())} of {len(rows)} runs the procedure loses some of the "
        f"reference flow's packets (median {np.median(lost):.0f}), which holds what follows "
        f"until their repair"
    )


CLAIMS = (*FIG4_CLAIMS, *OUTCOME_CLAIMS, *TABLE_IV_CLAIMS, *DELIVERY_CLAIMS)


# -- tables ----------------------------------------------------------------------------------


def _fig4_text(r: Results) -> str:
    fig4 = r.derived(FIG4)
    ideal = fig4.groupby(["policy", "ues"])["fig4_ideal_bytes"].first()
    return (
        "The seed's §IV counts the data of one congestion-avoidance cycle of cwndMAX/2 + 1 "
        "rounds around the handover: D_I = 3/2 · cwndMAX/2 · (cwndMAX/2 + 1) when it is "
        "transparent (eq. 1), D_WH = D_I − cwndHO/2 · (cwndMAX − cwndHO + 1) when it "
        "halves the window (eq. 2), D_SS = D_WH − k (cwndMAX − cwndHO + 1) − Σ_{i<k} "
        "(cwndHO/2 − k + i − 2^i) after a timeout, with k = log2(SSthresh_HO) + 1 slow-start "
        "rounds (eqs. 3–5). The text lost parts of these formulas: they are "
        "**reconstructions** (celltcp.models.x2, docs/models.md), and so are the model "
        "values below. celltcp's counterpart per Drop Tail run (every policy and UE count): "
        "cwndMAX = the largest window before the handover, cwndHO = the window at its start "
        "(the command, or the path switch when earlier), both capped by the 64 KB receive "
        "window; D = bytes delivered in order in the (cwndMAX/2 + 1)-round cycle (rounds "
        "of the smoothed RTT before the handover) that starts with the handover; D_I = the "
        "mean D of the transparent handovers (class none) of the same policy and number "
        "of UEs in the target (the UE moves from a source link it had alone to a target "
        "link it shares, so the cycle before the handover is no reference; points with "
        "fewer than two transparent handovers have none and are left out); normalized = "
        "D / D_I. D_I (KB): "
        + "; ".join(f"`{p}` {n} UEs {v / 1e3:.0f}" for (p, n), v in ideal.items())
        + "."
    )


def _fig4_rows(r: Results) -> list[tuple[str, ...]]:
    fig4 = r.derived(FIG4)
    rows: list[tuple[str, ...]] = []
    for outcome in OUTCOMES:
        sel = fig4[fig4["outcome"] == outcome]
        rows.append(
            (
                outcome,
                str(len(sel)),
                _mean_text(sel["fig4_cwnd_max"], 1),
                _mean_text(sel["fig4_cwnd_ho"], 1),
                _mean_text(sel["fig4_cycle_s"] * 1e3, 0),
                _mean_text(100 * sel["fig4_model"], 1),
                _mean_text(100 * sel["fig4_normalized"], 1),
            )
        )
    return rows


def _outcome_rows(r: Results) -> list[tuple[str, ...]]:
    rows = []
    for policy in POLICIES:
        for n in UE_COUNTS:
            sel = r.rows(_at(policy, n))
            timeouts = sel[sel["outcome"] == "timeout"]
            after = ((timeouts["first_rto_s"] - timeouts["completion_s"]) * 1e3).dropna()
            rows.append(
                (
                    POLICY_LABEL[policy],
                    str(n),
                    str(len(sel)),
                    *(_share_text(_share(sel, o)) for o in OUTCOMES),
                    f"{int(sel['spurious_rto'].sum())} of {len(timeouts)}",
                    f"{after.median():.0f}" if len(after) else "–",
                    f"{sel['queue_drops'].mean():.1f}",
                    f"{sel['forwarded'].mean():.1f}",
                    _mean_text(sel["rtt_before_s"] * 1e3, 1),
                    _mean_text(sel["rtt_peak_s"] * 1e3, 1),
                )
            )
    return rows


def _table_iv_rows(r: Results) -> list[tuple[str, ...]]:
    t4 = r.derived(TABLE_IV)
    rows = []
    for v in AQM_VARIANTS:
        sel = t4[t4["variant"] == v.key]
        rows.append(
            (
                v.label,
                v.ecn_decap,
                "yes" if v.tcp_ecn else "no",
                f"{v.seed[0]:g} / {v.seed[1]:g}" if v.seed else "–",
                *(_mean_text(sel[f"{link}_drop_pct"], 3) for link in LINKS),
                *(_mean_text(sel[f"{link}_steady_pct"], 3) for link in LINKS),
                " / ".join(f"{sel[f'{link}_marks'].mean():.0f}" for link in LINKS),
                f"{sel['decap_drops'].mean():.1f}",
                _mean_text(sel["goodput_mbps"], 2),
                " ".join(
                    f"{o[0].upper()} {_share(sel, o, 'ref_outcome').value:.2f}" for o in OUTCOMES
                ),
            )
        )
    return rows


def _delivered_rows(r: Results) -> list[tuple[str, ...]]:
    return [(str(n), *(_kb(r, g, n) for g in _GROUPS)) for n in UE_COUNTS]


# -- figures ---------------------------------------------------------------------------------


def _draw_outcomes(r: Results) -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(POLICIES), figsize=(14, 3.8), sharey=True)
    x = np.arange(len(UE_COUNTS))
    for ax, policy in zip(axes, POLICIES, strict=True):
        for i, outcome in enumerate(OUTCOMES):
            values = [_share(r.rows(_at(policy, n)), outcome) for n in UE_COUNTS]
            p = np.array([v.value for v in values])
            low, high = (np.array([v.interval()[j] for v in values]) for j in (0, 1))
            err = np.vstack([p - low, high - p])
            ax.bar(x + (i - 1) * 0.27, 100 * p, 0.27, label=outcome, yerr=100 * err, capsize=2)
        ax.set_xticks(x, [f"{n} UEs" for n in UE_COUNTS])
        ax.set_title(POLICY_LABEL[policy])
        ax.set_ylim(0, 105)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("probability (%), Wilson 95 % CI")
    fig.tight_layout()
    # Below the panels: inside one it would hide bars that reach 100 %.
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False
    )
    return fig


def _draw_delivered(r: Results) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    x = np.arange(len(_GROUPS))
    for i, n in enumerate(UE_COUNTS):
        stats = [_mean(r.rows(_group(g, n))["delivered_kb"]) for g in _GROUPS]
        ax.bar(
            x + (i - 1.5) * 0.2,
            [mean for mean, _ in stats],
            0.2,
            yerr=[0.0 if math.isnan(half) else half for _, half in stats],
            capsize=2,
            label=f"{n} UEs",
        )
    ax.set_xticks(x, _GROUPS)
    ax.set_ylabel("delivered data (KB), mean ± 95 % CI")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def _draw_fig4(r: Results) -> Any:
    """The model's curves (eqs. 1–5, reconstructed) beside celltcp's runs per class."""
    import matplotlib.pyplot as plt

    runs = r.derived(FIG4)
    fig, ax = plt.subplots(figsize=(7, 4))
    w = np.arange(40, 121, 2)
    for case, colour in (("halving", "tab:blue"), ("timeout", "tab:red")):
        ax.plot(
            w,
            [100 * x2_normalized_throughput(x, x, case) for x in w.tolist()],
            color=colour,
            label=f"{case}, cwndHO = cwndMAX (model)",
        )
        ax.plot(
            w,
            [100 * x2_normalized_throughput(x, 0.75 * x, case) for x in w.tolist()],
            color=colour,
            ls="--",
            marker="o" if case == "timeout" else "x",
            markevery=5,
            label=f"{case}, cwndHO = 3/4 cwndMAX (model)",
        )
    for outcome, colour in (("halving", "tab:blue"), ("timeout", "tab:red")):
        sel = runs[runs["outcome"] == outcome]
        if len(sel) == 0:
            continue
        mean, half = _mean(100 * sel["fig4_normalized"].astype(float))
        ax.errorbar(
            [sel["fig4_cwnd_max"].mean()],
            [mean],
            yerr=[0 if math.isnan(half) else half],
            fmt="s",
            color=colour,
            capsize=3,
            label=f"celltcp, {outcome} (n = {len(sel)})",
        )
    ax.set_xlabel("cwndMAX (segments)")
    ax.set_ylabel("normalized throughput (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


# -- the layout ------------------------------------------------------------------------------


def _what_was_run(r: Results) -> list[str]:
    from celltcp import _core

    options = r.options
    store = options.store if options is not None else None
    runs, runs_aqm = REPLICATIONS.of(r.quick), AQM_REPLICATIONS.of(r.quick)
    mode = "quick" if r.quick else "full"
    return [
        f"celltcp {_core.__version__}, `celltcp reproduce {NAME}"
        f"{' --quick' if r.quick else ''}` ({mode} mode)",
        "Figs. 8, 11, 12: `celltcp/examples/000/forwarding.toml` (Tables I and II: 5 s, the "
        "reference UE hands over at 2.3 s; 5 UEs in the target cell) and the same with "
        "its first 2, 3 or 4 target-cell UEs (`seed000.target_cell_scenario`); policies "
        + ", ".join(f"`{p}`" for p in POLICIES)
        + "; `forward` and `predicted` also with RED marking and ECN on both router links",
        "Table IV: `celltcp/examples/000/aqm.toml` (Tables I and III: 10 s, 4 UEs at the "
        f"source, 3 at the target) with {len(AQM_VARIANTS)} queue/tunnel variants, each run "
        f"also for {STARTUP_TEXT} alone",
        f"master seed {MASTER_SEED}; replications: run numbers 0–{runs - 1} per "
        f"point of Figs. 8/11/12, 0–{runs_aqm - 1} per row of Table IV (the seed: 50)",
        "runs: " + ", ".join(f"{k}: {v}" for k, v in r.runs.items()),
        f"results store: `{store}`" if store else "temporary results store",
        f"wall time of the runs: {r.wall_s:.1f} s",
    ]


def _classes(r: Results) -> str:
    return (
        "Outcome classes are those of the seed's §VI-B, computed by celltcp's handover "
        "analytics for the reference UE's flow: `timeout` (an RTO fired between the "
        "handover command and the end of the loss episode it started — the seed's "
        '"slow start"), `halving` (fast retransmit / fast recovery), `none`. '
        "Probabilities carry Wilson 95 % intervals; other figures are means ± the "
        "half-width of the Student-t 95 % interval."
        + (
            " **Quick mode**: 8 replications instead of 50, so the intervals are wide."
            if r.quick
            else ""
        )
    )


LAYOUT: tuple[Block, ...] = (
    Section("What was run"),
    Items(_what_was_run),
    Text(_classes),
    Section("The seed beside celltcp"),
    Text(
        "One row per claim of the seed. Figs. 8, 11 and 12 are bar charts without printed "
        "values, so their claims are compared, not their bars; Table IV is numeric. "
        "Counts are UEs in the target cell; T / H / N are the probabilities of timeout, "
        "halving and none. Each verdict is a stated test on the replications at α = 0.05 "
        "(reproduced, not significant, contradicted), with its p-value, n and power; the "
        "magnitude compares celltcp's number with the seed's where it gives one "
        '(docs/reproductions.md, "How verdicts are decided").'
    ),
    Claims(),
    Table(
        "Fig. 4 and eqs. (1)–(5): normalized throughput",
        (
            "class",
            "runs",
            "cwndMAX (seg)",
            "cwndHO (seg)",
            "cycle (ms)",
            "model (%)",
            "celltcp (%)",
        ),
        _fig4_rows,
        _fig4_text,
    ),
    Figure(
        "fig-4-normalized.png",
        "Fig. 4 style: the model's normalized throughput (eqs. 1–5, reconstructed) against "
        "cwndMAX for the handover at the window's peak and in the middle of the cycle, and "
        "celltcp's per outcome class (mean ± 95 % CI over the Drop Tail runs).",
        _draw_fig4,
    ),
    Table(
        "Figs. 8 and 11: outcome classes",
        (
            "policy",
            "UEs",
            "runs",
            "timeout",
            "halving",
            "none",
            "flagged spurious",
            "RTO after completion (ms)",
            "queue drops",
            "forwarded",
            "RTT before",
            "RTT peak",
        ),
        _outcome_rows,
        "Per policy and number of UEs in the target cell: the probability of each class "
        "with its Wilson 95 % interval; the timeouts the analytics flag as spurious (the "
        "sender undid the reduction, or nothing of the flow was lost: not at the handover "
        "and not in the network before the first RTO); the median time from the "
        "completion of the procedure to the first RTO; the flow's packets dropped by full "
        "router queues in the run (all after the handover: alone on the source link it "
        "never fills the queue); packets forwarded over X2-U; the smoothed RTT before the "
        "command and the peak RTT sample in the window, which includes the samples of the "
        "loss recovery (ms).",
    ),
    Figure(
        "fig-8-11-outcomes.png",
        "Figs. 8 and 11 style: the reference UE's outcome class (timeout = the seed's slow "
        "start, halving, none) against the number of UEs in the target cell, per policy.",
        _draw_outcomes,
    ),
    Table(
        "Table IV: drop rates on the router's links",
        (
            "queue",
            "tunnel ECN",
            "ECN TCP",
            "seed % (source / target)",
            "source %",
            "target %",
            "source % after 1 s",
            "target % after 1 s",
            "CE marks (source / target)",
            "decap. drops",
            "total goodput Mb/s",
            "reference UE",
        ),
        _table_iv_rows,
        "Drop rate = packets the router's queue towards the eNB dropped (overflow and RED) "
        "over the packets offered to it, in %: over the whole 10 s run as in the seed, and "
        f"after {STARTUP_TEXT} (the 10 s run less the same run stopped after "
        f"{STARTUP_TEXT}), "
        "which leaves out the slow starts of the seven downloads that all begin at 0 s. "
        "Marks are CE marks set by RED; decapsulation drops are marked Not-ECT packets the "
        "eNB discards (the seed's Fig. 7(b)). The last columns are the total goodput of "
        "the seven downloads and the reference UE's outcome class.",
    ),
    Table(
        "Fig. 12: data delivered across the handover (KB)",
        ("UEs", *_GROUPS),
        _delivered_rows,
        "Bytes delivered in order to the reference UE from the handover command until one "
        "smoothed RTT (measured before the handover) after it attaches to the target; KB = "
        "1000 bytes. AQM is RED marking on both router links with ECN through the tunnel "
        "(RFC 6040) and ECN-capable TCP.",
    ),
    Figure(
        "fig-12-delivered.png",
        "Fig. 12 style: data delivered to the reference UE from the handover command until one "
        "RTT after it attaches to the target, per improvement and number of UEs in the target.",
        _draw_delivered,
    ),
    Text(
        "Why celltcp differs where it does (celltcp's timeouts follow real losses in the "
        "congested target link, the seed calls its own spurious; the start-up transient in "
        "Table IV; the length of Fig. 12's window) is discussed in docs/seed-000.md."
    ),
)

STUDY = Study(
    name=NAME,
    title=f"Reproduction {NAME}: TCP across the X2 handover (seed `000_…`)",
    question=(
        "How often does TCP Reno time out across an X2 handover whose forwarded data queue a "
        "second time in a congested core router, and what do the fast path switch, the "
        "handover prediction and RED gain?"
    ),
    sweeps=SWEEPS,
    claims=CLAIMS,
    derived=DERIVED,
    report=LAYOUT,
)
