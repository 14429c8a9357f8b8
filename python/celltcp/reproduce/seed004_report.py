"""The report of seed `004_…`'s reproduction (:mod:`celltcp.reproduce.seed004`): the seed's
claims beside celltcp's numbers with a verdict each, the PFTK analysis at the seed's and at the
simulated parameters, the detail tables and the figures. Verdicts are computed from the
measured numbers, never written in advance; docs/seed-004.md explains every disagreement.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from celltcp.models import crossover_p_buff, multi_ack_throughput_bps
from celltcp.plots.ack_control import (
    cwnd_over_time,
    loss_estimate_over_time,
    throughput_ratio_vs_p_err,
    throughput_vs_p_err,
)
from celltcp.reproduce.document import fmt_ci
from celltcp.reproduce.seed004 import (
    _P,
    ASSUMED_P_BUFF,
    DERIVED,
    FIXED,
    MASTER_SEED,
    NAME,
    PAYLOAD_BYTES,
    PAYLOAD_CAPACITY_BPS,
    SEED_P_BUFF,
    SEED_RTT_S,
    SEED_SIM_IMPROVES_ABOVE,
    SEED_T0_S,
    SEED_TWO_BEST,
    SENSITIVITY,
    SWEEPS,
    THRESHOLD,
    TRACKING,
    VARIANTS,
    _copied_share,
    at,
    expected_estimate,
    first_updates,
    gaps_only_estimate,
    plan,
    traced,
)
from celltcp.reproduce.verdict import Decision, Estimate, Sample, Verdict
from celltcp.study import (
    AnyOf,
    AtEvery,
    Blocks,
    Claim,
    Claims,
    Equivalent,
    Evaluation,
    Figure,
    Items,
    MeanAgainst,
    Runs,
    Section,
    Single,
    Study,
    Table,
    Test,
    Text,
    Welch,
)

if TYPE_CHECKING:
    from celltcp.study import Results

__all__ = ["STUDY", "seed_analysis"]

ONE, TWO, THREE = (v.label for v in FIXED)
ADAPTIVE, SNOOP, ELN = (v.label for v in VARIANTS[3:])
ONE_TS, TWO_TS, THREE_TS, ELN_TS, ADAPTIVE_TS = (v.label for v in SENSITIVITY)


def _kbps(bps: float) -> str:
    return "n/a" if math.isnan(bps) else f"{bps / 1e3:.3g}"


def _ci_kbps(mean: float, half: float) -> str:
    digits = 1 if mean >= 1e4 else 2
    return fmt_ci(mean / 1e3, half / 1e3, digits)


def _row(table: pd.DataFrame, variant: str, p: float) -> Any:
    sel = table[(table["variant"] == variant) & np.isclose(table["p_err"], p)]
    return None if sel.empty else sel.iloc[0]


def _list(ps: Sequence[float]) -> str:
    return ", ".join(f"{p:g}" for p in ps) or "none"


def seed_analysis(p_errs: Sequence[float]) -> pd.DataFrame:
    """The seed's analysis at its parameters (RTT 100 ms, T0 400 ms, p_buff 0.01 for every
    number of copies, 100-byte segments): S(n) for n = 1, 2, 3 (bit/s), S(n)/S(1), and the best
    n."""
    rows = []
    for p in p_errs:
        if p <= 0:
            continue
        s = [
            multi_ack_throughput_bps(PAYLOAD_BYTES, SEED_RTT_S, SEED_T0_S, p, SEED_P_BUFF, n, b=1.0)
            for n in (1, 2, 3)
        ]
        rows.append(
            {
                "p_err": p,
                "s1": s[0],
                "s2": s[1],
                "s3": s[2],
                "best": 1 + int(np.argmax(s)),
                "ratio2": s[1] / s[0],
                "ratio3": s[2] / s[0],
            }
        )
    return pd.DataFrame(rows)


# -- the claims -------------------------------------------------------------------------------


def _missing(d: Decision) -> list[float]:
    """The p_err of the points of a combined decision that did not reproduce its claim."""
    return [
        float(name.split()[0]) for name, part in d.parts if part.verdict is not Verdict.REPRODUCED
    ]


def _p_errs(r: Results) -> list[float]:
    """The p_err of the mode's throughput grid."""
    return [float(p) for p in r.axis(f"004 {ONE}", _P)]


def _karn_why(e: Evaluation, r: Results) -> str:
    """Why two ACKs fall behind without timestamps where they do: without an RTT sample the
    RTO doubled at each timeout stays backed off (RFC 6298 §5.5, §5.7), which the timeouts per
    run show beside those of the same variant with timestamps (a sample from every ACK that
    advances, RFC 7323 §4)."""
    table = r.derived("table")
    ps = [p for p in _missing(e.decision) if _row(table, TWO_TS, p) is not None]
    if not ps:
        return ""

    def timeouts(label: str) -> str:
        return ", ".join(f"{_row(table, label, p)['timeouts']:.0f}" for p in ps)

    return (
        "without timestamps an ACK that covers a retransmission gives no RTT sample (Karn's "
        "rule), so with several holes per window the RTO doubled at each timeout stays backed "
        f"off: at p_err {_list(ps)} the sender with two ACKs times out {timeouts(TWO)} times "
        f"per run, against {timeouts(TWO_TS)} with timestamps"
    )


def _improves(one: str, two: str) -> Callable[[Results], Mapping[str, Test]]:
    """Two ACKs above one at every p_err > 0.05 (Welch's t-test at each)."""
    return lambda r: {
        f"{p:g}": Welch("goodput_bps", at(two, p), at(one, p), ">")
        for p in _p_errs(r)
        if p > SEED_SIM_IMPROVES_ABOVE
    }


def _ratios(e: Evaluation, _r: Results) -> str:
    def ratio(label: str, x: Evaluation) -> str:
        ok = x.estimate is not None and math.isfinite(x.estimate.value)
        return f"{label}: ×{x.estimate.text(2)}" if ok and x.estimate else f"{label}: n/a"

    return "two ACKs / one ACK at p_err " + "; ".join(ratio(k, x) for k, x in e.parts.items())


def _low_detail(e: Evaluation, r: Results) -> str:
    """Two vs one ACK at each p_err ≤ 0.02, with the spurious retransmissions per run."""
    table = r.derived("table")
    parts = []
    for label, x in e.parts.items():
        p = float(label)
        one, two = _row(table, ONE, p), _row(table, TWO, p)
        ratio = x.estimate.text(2) if x.estimate else "n/a"
        parts.append(
            f"{p:g}: {_kbps(two['goodput_bps'])} vs {_kbps(one['goodput_bps'])} kb/s "
            f"(×{ratio}), {two['spurious_retx']:.0f} spurious retransmissions per run"
        )
    return "two vs one ACK at p_err " + "; ".join(parts)


def _best_copies(
    table: pd.DataFrame, p_errs: Sequence[float], labels: Sequence[str]
) -> dict[float, int]:
    out = {}
    for p in p_errs:
        if p <= 0:
            continue
        means = [_row(table, label, p)["goodput_bps"] for label in labels]
        out[p] = 1 + int(np.argmax(means))
    return out


def _inside(r: Results) -> list[float]:
    lo, hi = SEED_TWO_BEST
    return [p for p in _p_errs(r) if p > 0 and lo < p < hi]


def _two_best(labels: Sequence[str]) -> Callable[[Results], Mapping[str, Test]]:
    """Inside the seed's range two copies beat one and three (Welch's t-tests, all must hold)."""
    one, two, three = labels
    return lambda r: {
        f"{p:g} vs {n}": Welch("goodput_bps", at(two, p), at(other, p), ">")
        for p in _inside(r)
        for n, other in (("one", one), ("three", three))
    }


def _best_detail(labels: Sequence[str]) -> Callable[[Evaluation, Results], str]:
    def detail(_e: Evaluation, r: Results) -> str:
        best = _best_copies(r.derived("table"), _p_errs(r), labels)
        return "best of 1–3 copies (means) at p_err " + ", ".join(
            f"{p:g}: {n}" for p, n in best.items()
        )

    return detail


def _formula(r: Results) -> str:
    """What the formula says at the seed's parameters."""
    model = seed_analysis([p for p in _p_errs(r) if p > 0])
    return (
        f"the formula at the seed's parameters with one p_buff gives "
        f"{_list(sorted(set(model['best'])))} copies as best everywhere"
    )


def _window_detail(_e: Evaluation, r: Results) -> str:
    traces = r.derived("traces")
    pairs = []
    for p in sorted(set(traces["p_err"])):
        if p <= 0:
            continue
        w = {v: traces[(traces["variant"] == v) & (traces["p_err"] == p)] for v in (ONE, TWO)}
        pairs.append(
            (p, float(w[ONE]["mean_cwnd_bytes"].iloc[0]), float(w[TWO]["mean_cwnd_bytes"].iloc[0]))
        )
    return "mean cwnd one → two ACKs: " + "; ".join(
        f"{p:g}: {a / 1e3:.2f} → {b / 1e3:.2f} kB" for p, a, b in pairs
    )


#: The estimator's claim: its settled mean within this share of the true p_err.
ESTIMATE_MARGIN = 0.2


def _tracking_p_errs(r: Results) -> list[float]:
    return [float(p) for p in r.axis(TRACKING.name, _P)]


def _estimator_detail(_e: Evaluation, r: Results) -> str:
    parts = []
    for _, x in r.derived("tracking").iterrows():
        if x["run"] != 0:
            continue
        p, settled = float(x["p_err"]), x["periods"].iloc[1:]["mean"].dropna()
        parts.append(
            f"p_err {p:g}: mean estimate {settled.mean():.4f} (periods 2–10, "
            f"{settled.min():.4f}–{settled.max():.4f}); the seed's model "
            f"{expected_estimate(p):.4f}, gaps only {gaps_only_estimate(p):.4f}"
        )
    return "; ".join(parts)


def _estimator_why(_e: Evaluation, r: Results) -> str:
    of_gaps, spread = [], []
    for _, x in r.derived("tracking").iterrows():
        if x["run"] != 0:
            continue
        p, settled = float(x["p_err"]), x["periods"].iloc[1:]["mean"].dropna()
        of_gaps.append(settled.mean() / gaps_only_estimate(p))
        spread += [settled.min() / p, settled.max() / p]
    if not spread:
        return ""
    return (
        f"the receiver counts the gaps of lost data and the repeats of segments it had "
        f"acknowledged (lost ACKs, the second crossing of the seed's formula); a lost ACK "
        f"leaves a repeat only when no later cumulative ACK reaches the sender first, so the "
        f"estimates settle near the value of the gaps alone (mean / gaps-only value "
        f"{', '.join(f'{x:.2f}' for x in of_gaps)}; per-period means "
        f"{min(spread):.2f}–{max(spread):.2f} × p_err with 1 to 5 connections)"
    )


#: The adaptive switch "engages" at a p_err when more than this share of the receiver's ACKs
#: go out with a copy (the estimate above the threshold for most of the run), and does not
#: when less do.
ENGAGED_SHARE = 0.5


def _threshold_p_err() -> float:
    """True p_err at which the estimate of the seed's model (both crossings at p_err, no buffer
    loss) reaches the threshold: 1 − (1 − threshold)·sqrt(1 − p_buff)."""
    return 1 - (1 - THRESHOLD) * math.sqrt(1 - ASSUMED_P_BUFF)


def _switches(variant: str) -> Callable[[Results], Mapping[str, Test]]:
    """The seed: the terminal sends multiple ACKs when p_err exceeds the threshold. Tested at
    every p_err of the grid on the share of the receiver's ACKs sent with a copy (per run)
    against :data:`ENGAGED_SHARE` (one-sample t-tests): above it at every p_err from
    :func:`_threshold_p_err` on (the switch engages), below it at every p_err under it, 0
    included (it does not); all must hold."""
    threshold = _threshold_p_err()
    return lambda r: {
        f"{p:g} ({'on' if p >= threshold else 'off'})": MeanAgainst(
            "copied_share",
            at(variant, p),
            ENGAGED_SHARE,
            ">" if p >= threshold else "<",
            effect=ENGAGED_SHARE / 2,
        )
        for p in sorted(_p_errs(r))
    }


def _engaged_share(variant: str) -> Callable[[Evaluation, Results], Estimate | None]:
    """The share over the runs at the p_err where the switch should engage."""

    def estimate(_e: Evaluation, r: Results) -> Estimate | None:
        engage = [
            v
            for p in sorted(_p_errs(r))
            if p >= _threshold_p_err()
            for v in r.values("copied_share", at(variant, p))
        ]
        return Estimate.of_sample(Sample.of(engage)) if engage else None

    return estimate


def _adaptive_detail(variant: str) -> Callable[[Evaluation, Results], str]:
    def detail(_e: Evaluation, r: Results) -> str:
        table = r.derived("table")
        mine = table[table["variant"] == variant]
        return (
            "share of ACKs sent with a copy at p_err "
            + ", ".join(
                f"{p:g}: {np.nanmean(r.values('copied_share', at(variant, p))):.3f}"
                for p in sorted(_p_errs(r))
            )
            + "; copies per run "
            + ", ".join(f"{x['p_err']:g}: {x['ack_copies_sent']:.0f}" for _, x in mine.iterrows())
        )

    return detail


def _adaptive_why(variant: str) -> Callable[[Evaluation, Results], str]:
    """Why the switch does not engage at the p_err where the claim wants it to: the estimate's
    level (the share of ACKs sent with a copy peaks where it crosses the threshold) and, where no
    run sent a copy at all, the segments the sender sent, too few updates for the moving average
    to climb from p[0] = 0."""

    def why(e: Evaluation, r: Results) -> str:
        rows = r.derived("rows")
        return adaptive_why(rows[rows["variant"] == variant], e.decision)

    return why


def adaptive_why(runs: pd.DataFrame, d: Decision) -> str:
    """:func:`_adaptive_why` on the runs of one variant and the claim's decision."""
    on = [p for p in _missing(d) if p >= _threshold_p_err()]
    off = [p for p in _missing(d) if p < _threshold_p_err()]
    if not on and not off:
        return ""
    by_p = {
        p: runs[np.isclose(runs["p_err"], p)] for p in sorted({float(x) for x in runs["p_err"]})
    }
    # Where the switch should engage and sent any copy: the share peaks where the estimate
    # crosses the threshold.
    engaged = {
        p: share
        for p, g in by_p.items()
        if p >= _threshold_p_err() and (share := float(np.nanmean(_copied_share(g)))) > 0
    }
    text = []
    if on:
        level = (
            "a lost ACK shows at the receiver only when no later cumulative ACK reaches the "
            "sender first, so the estimate stays near the value of the gaps alone (about half of "
            "p_err)"
        )
        if engaged:
            peak = max(engaged, key=lambda p: engaged[p])
            level += (
                f" and crosses {THRESHOLD:g} only around the p_err where the share of ACKs sent "
                f"with a copy peaks, {peak:g} ({engaged[peak]:.2f})"
            )
        else:
            level += f" and does not reach {THRESHOLD:g} in these runs"
        text.append(level)
    silent = [p for p in on if by_p[p]["ack_copies_sent"].sum() == 0]
    if silent:
        segments = [float(by_p[p]["segments_sent"].mean()) for p in silent]
        text.append(
            f"at p_err {_list(silent)} no run sends a copy: the sender sends "
            f"{min(segments):.0f}–{max(segments):.0f} segments per run (means), too few update "
            f"windows for the moving average (gain 1/8 from p[0] = 0) to climb to {THRESHOLD:g}"
        )
    if off:
        text.append(
            "below the threshold, the copies come from single updates after a burst of losses"
        )
    return "; ".join(text)


def _no_estimate(_e: Evaluation, _r: Results) -> Estimate | None:
    return None


_LO, _HI = SEED_TWO_BEST
_RANGE_NOTE = f"no p_err inside {_LO:g}–{_HI:g} in this grid"


def _adaptive_claim(key: str, where: str, variant: str) -> Claim:
    return Claim(
        key,
        where,
        (
            f"copies sent when the estimate exceeds a threshold (here {THRESHOLD:g}): at each "
            f"p_err, the share of ACKs sent with a copy above {ENGAGED_SHARE:g} from p_err "
            f"{_threshold_p_err():.3f} on, below it under that"
        ),
        AtEvery(_switches(variant), "not run"),
        source_text="method",
        detail=_adaptive_detail(variant),
        estimate=_engaged_share(variant),
        reason=_adaptive_why(variant),
        point="p_err ",
        digits=2,
    )


CLAIMS = (
    Claim(
        "improves",
        "simulation (throughput figure)",
        "two ACKs improve the throughput for p_err > 0.05",
        AtEvery(_improves(ONE, TWO)),
        source_text="yes",
        detail=_ratios,
        estimate=_no_estimate,
        reason=_karn_why,
        point="p_err ",
    ),
    Claim(
        "worse_when_low",
        "proposed method",
        "at a low error rate two ACKs may do worse",
        AnyOf(
            lambda r: {
                f"{p:g}": Welch("goodput_bps", at(TWO, p), at(ONE, p), "<")
                for p in _p_errs(r)
                if p <= 0.02
            }
        ),
        source_text="expected, no figure",
        detail=_low_detail,
        estimate=_no_estimate,
        reason=lambda _e, _r: (
            "at p_err = 0 a duplicate segment returns two duplicate ACKs which, with the copy "
            "of the ACK before, reach the threshold of three: spurious fast retransmits"
        ),
        point="p_err ",
    ),
    Claim(
        "two_best",
        "analysis",
        (
            f"two ACKs best for {_LO:g} < p_err < {_HI:g} (RTT 100 ms, T0 400 ms, p_buff 0.01): "
            "above one and three copies"
        ),
        AtEvery(_two_best((ONE, TWO, THREE)), _RANGE_NOTE),
        source_text=f"analysis result: {_LO:g} < p_err < {_HI:g}",
        detail=_best_detail((ONE, TWO, THREE)),
        estimate=_no_estimate,
        reason=lambda _e, r: (
            _formula(r) + "; the range needs a buffer loss growing with the copies (below)"
        ),
        point="p_err ",
    ),
    Claim(
        "larger_window",
        "simulation (window figure)",
        "larger window with two ACKs",
        AtEvery(
            lambda r: {
                f"{p:g}": Single(
                    "mean_cwnd_bytes",
                    traced(TWO, p),
                    traced(ONE, p),
                    ">",
                    "one traced run per p_err",
                )
                for p in _p_errs(r)
                if p > 0
            },
            "not run",
        ),
        source_text="yes",
        detail=_window_detail,
        reason=lambda _e, _r: "one traced run per p_err: a point estimate, no test",
        shortfall=False,
    ),
    _adaptive_claim("switch", "proposed method", ADAPTIVE),
    _adaptive_claim("switch_timestamps", "sensitivity: timestamps", ADAPTIVE_TS),
    Claim(
        "estimator",
        "estimation",
        (
            "the moving average agrees with p_err as connections come and go (estimate / p_err, "
            f"equal to 1 within ±{ESTIMATE_MARGIN:g})"
        ),
        AtEvery(
            lambda r: {
                f"{p:g}": Equivalent(
                    "settled_over_p", Runs(TRACKING.name, {_P: p}), 1.0, ESTIMATE_MARGIN
                )
                for p in _tracking_p_errs(r)
            },
            "not run",
        ),
        source_text="good agreement (figure): 1",
        source_value=1.0,
        detail=_estimator_detail,
        estimate=lambda _e, r: Estimate.of_sample(
            Sample.of(r.values("settled_over_p", Runs(TRACKING.name)))
        ),
        reason=_estimator_why,
        point="p_err ",
        digits=2,
    ),
    Claim(
        "improves_timestamps",
        "sensitivity: timestamps",
        "two ACKs improve the throughput for p_err > 0.05",
        AtEvery(_improves(ONE_TS, TWO_TS)),
        source_text="yes",
        detail=_ratios,
        estimate=_no_estimate,
        point="p_err ",
    ),
    Claim(
        "two_best_timestamps",
        "sensitivity: timestamps",
        f"two ACKs best for {_LO:g} < p_err < {_HI:g}",
        AtEvery(_two_best((ONE_TS, TWO_TS, THREE_TS)), _RANGE_NOTE),
        source_text="analysis result",
        detail=_best_detail((ONE_TS, TWO_TS, THREE_TS)),
        estimate=_no_estimate,
        reason=lambda _e, r: _formula(r),
        point="p_err ",
    ),
)


# -- tables -----------------------------------------------------------------------------------


def _throughput_rows(
    table: pd.DataFrame, p_errs: Sequence[float], variants: Sequence[Any] = VARIANTS
) -> tuple[tuple[str, ...], ...]:
    rows = []
    for p in p_errs:
        cells = [f"{p:g}"]
        for v in variants:
            x = _row(table, v.label, p)
            cells.append(_ci_kbps(x["goodput_bps"], x["goodput_half_bps"]))
        rows.append(tuple(cells))
    return tuple(rows)


def _loss_rows(table: pd.DataFrame, p_errs: Sequence[float]) -> tuple[tuple[str, ...], ...]:
    rows = []
    for p in p_errs:
        for v in (*FIXED, VARIANTS[4], VARIANTS[5], *SENSITIVITY):
            x = _row(table, v.label, p)
            rows.append(
                (
                    f"{p:g}",
                    v.label,
                    f"{x['p_buff']:.4f}",
                    f"{x['p_indication']:.4f}",
                    f"{x['fast_recoveries']:.0f}",
                    f"{x['timeouts']:.0f}",
                    f"{x['retransmissions']:.0f}",
                    f"{x['spurious_retx']:.0f}",
                    f"{x['rtt_s'] * 1e3:.1f}",
                    f"{x['srtt_s'] * 1e3:.0f}",
                )
            )
    return tuple(rows)


def _pftk_table_rows(pftk: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    rows = []
    for _, x in pftk.sort_values(["p_err", "copies"]).iterrows():
        rows.append(
            (
                f"{x['p_err']:g}",
                str(int(x["copies"])),
                f"{x['p_buff']:.4f}",
                f"{x['p_model']:.4f}",
                f"{x['p_indication']:.4f}",
                f"{x['rtt_s'] * 1e3:.1f}",
                f"{x['t0_s']:.3f}",
                _kbps(x["model_bps"]),
                _kbps(x["model_measured_p_bps"]),
                _kbps(x["seed_params_bps"]),
                _ci_kbps(x["goodput_bps"], x["goodput_half_bps"]),
            )
        )
    return tuple(rows)


def _seed_rows(model: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    return tuple(
        (
            f"{x['p_err']:g}",
            _kbps(x["s1"]),
            _kbps(x["s2"]),
            _kbps(x["s3"]),
            f"{x['ratio2']:.2f}",
            f"{x['ratio3']:.2f}",
            str(int(x["best"])),
        )
        for _, x in model.iterrows()
    )


def _window_rows(traces: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    rows = []
    order = {v.label: i for i, v in enumerate(FIXED)}
    traces = traces.assign(order=traces["variant"].map(order))
    for _, x in traces.sort_values(["p_err", "order"]).iterrows():
        rows.append(
            (
                f"{x['p_err']:g}",
                x["variant"],
                f"{x['mean_cwnd_bytes'] / 1e3:.2f}",
                f"{x['mean_rtt_sample_s'] * 1e3:.0f}",
                f"{x['t0_s']:.3f}",
                f"{x['rtt_gap_s']:.1f}",
            )
        )
    return tuple(rows)


def _tracking_rows(r: Results) -> tuple[tuple[str, ...], ...]:
    rows = []
    for _, run in r.derived("tracking").iterrows():
        p = float(run["p_err"])
        for _, x in run["periods"].iterrows():
            spread = (
                "n/a"
                if math.isnan(x["mean"])
                else f"{x['mean']:.4f} [{x['min']:.4f}, {x['max']:.4f}]"
            )
            rows.append(
                (
                    f"{p:g}",
                    str(int(run["run"])),
                    str(int(x["period"])),
                    str(int(x["scheduled"])),
                    str(int(x["delivering"])),
                    str(int(x["updates"])),
                    spread,
                    f"{x['expected']:.4f}",
                    f"{x['gaps_only']:.4f}",
                )
            )
    return tuple(rows)


def _first_update_rows(r: Results) -> tuple[tuple[str, ...], ...]:
    rows = []
    for _, run in r.derived("tracking").iterrows():
        if int(run["run"]) != 0:
            continue
        for _, x in first_updates(run["tcp"], plan(r.quick).period_s).iterrows():
            rows.append(
                (
                    f"{run['p_err']:g}",
                    x["flow"],
                    f"{x['start_s']:g}",
                    f"{x['first_update_after_s']:.2f}",
                    str(int(x["updates"])),
                    f"{x['first']:.4f}",
                    f"{x['second_half_mean']:.4f}",
                )
            )
    return tuple(rows)


def _middlebox_rows(rows: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    out = []
    for p, g in rows.groupby("p_err"):
        s = g[g["variant"] == SNOOP]
        e = g[g["variant"] == ELN]
        out.append(
            (
                f"{p:g}",
                f"{s['local_retransmissions'].mean():.0f}",
                f"{s['dupacks_suppressed'].mean():.0f}",
                f"{s['queue_drops'].mean():.0f}",
                f"{e['acks_marked'].mean():.0f}",
                f"{e['eln_recoveries'].mean():.0f}",
                f"{e['eln_timeouts'].mean():.0f}",
            )
        )
    return tuple(out)


# -- figures ----------------------------------------------------------------------------------


def _ratio_curves(model: pd.DataFrame, two: str, three: str) -> pd.DataFrame:
    return pd.concat(
        [
            pd.DataFrame({"variant": two, "p_err": model["p_err"], "ratio": model["ratio2"]}),
            pd.DataFrame({"variant": three, "p_err": model["p_err"], "ratio": model["ratio3"]}),
        ]
    )


def _goodput_figure(variants: Sequence[Any], title: str) -> Callable[[Results], Any]:
    def draw(r: Results) -> Any:
        table = r.derived("table")
        return throughput_vs_p_err(
            table[table["variant"].isin([v.label for v in variants])],
            capacity_bps=PAYLOAD_CAPACITY_BPS,
            title=title,
        )

    return draw


def _ratio_figure(labels: Sequence[str], title: str) -> Callable[[Results], Any]:
    one, two, three = labels

    def draw(r: Results) -> Any:
        return throughput_ratio_vs_p_err(
            r.derived("table"),
            baseline=one,
            variants=list(labels),
            model=_ratio_curves(seed_analysis(_p_errs(r)), two, three),
            title=title,
        )

    return draw


def _window_figure(r: Results) -> list[Figure]:
    """The cwnd of one and two ACKs at the window's p_err (run 0); none without its traces."""
    p = plan(r.quick).window_p_err
    if p not in _p_errs(r):
        return []
    cw = {}
    for v in (ONE, TWO):
        tcp = r.series(traced(v, p), "tcp")[0]
        cwnd = tcp[tcp["var"] == "cwnd"]
        cw[v] = cwnd[["time_s", "value"]].reset_index(drop=True)
    return [
        Figure(
            "cwnd.png",
            f"The sender's congestion window with one and two ACK copies, p_err = {p:g} (run 0).",
            lambda _r: cwnd_over_time(cw, title=f"Congestion window at p_err = {p:g}"),
        )
    ]


def _estimate_figure(q: float, tcp: pd.DataFrame) -> Callable[[Results], Any]:
    return lambda _r: loss_estimate_over_time(
        tcp,
        true_p_err=q,
        expected=gaps_only_estimate(q),
        threshold=THRESHOLD,
        title=f"p_err estimates as connections come and go, true p_err = {q:g}",
    )


def _estimate_figures(r: Results) -> list[Figure]:
    """The estimates over time, one figure per p_err (run 0)."""
    out = []
    for _, run in r.derived("tracking").iterrows():
        if int(run["run"]) != 0:
            continue
        q, tcp = float(run["p_err"]), run["tcp"]
        out.append(
            Figure(
                f"estimate-p_err-{q:g}.png",
                f"The terminal's p_err estimate, one colour per connection that updated it, "
                f"against the true p_err = {q:g} and the value the formula gives a receiver that "
                "sees the downlink losses only (dashed); below, the connections delivering data "
                "(run 0).",
                _estimate_figure(q, tcp),
            )
        )
    return out


def _what_was_run(r: Results) -> list[str]:
    from celltcp import _core

    quick = r.quick
    p = plan(quick)
    command = f"celltcp reproduce {NAME}{' --quick' if quick else ''}"
    traces = [s.name for s in SWEEPS if s.name.startswith("004 traces, ")]
    throughput = sum(w for k, w in r.walls.items() if k not in traces and k != TRACKING.name)
    phases = {
        "throughput": throughput,
        "traces": sum(r.walls.get(k, 0.0) for k in traces),
        "tracking": r.walls.get(TRACKING.name, 0.0),
    }
    store = r.options.store if r.options else None
    return [
        f"celltcp {_core.__version__}, `{command}` ({'quick' if quick else 'full'} mode)",
        (
            "scenario files `celltcp/examples/004/ack-copies.toml` (wired terminal —10 Mb/s— base "
            "station —384 kb/s radio, p_err both ways— wireless terminal; 1 ms links; 100-byte "
            "segments, 40-byte ACKs, 50 KB buffers; Reno without SACK, every segment acknowledged) and "
            "`celltcp/examples/004/tracking.toml` (the same path, 1–5–1 connections); "
            "docs/seed-004.md gives the choices the seed leaves open"
        ),
        (
            f"master seed {MASTER_SEED}; throughput: {len(p.p_errs)} p_err values × "
            f"{len(VARIANTS) + len(SENSITIVITY)} variants ({len(SENSITIVITY)} of them with "
            f"timestamps) × {p.runs} runs of {p.duration_s:g} s"
        ),
        (
            f"traces (cwnd, RTT samples, RTO): run 0 of one, two and three ACKs at every p_err, "
            f"{p.trace_duration_s:g} s"
        ),
        (
            f"estimator: p_err {_list(p.tracking_p_errs)} × {p.tracking_runs} runs, periods "
            f"of {p.period_s:g} s"
        ),
        f"results store: `{store}`" if store else "results store: temporary",
        "wall time of the runs: "
        f"{r.wall_s:.1f} s ({', '.join(f'{k} {v:.1f} s' for k, v in phases.items())})",
    ]


# -- the study --------------------------------------------------------------------------------

_NEED2 = crossover_p_buff(SEED_TWO_BEST[0], 1, 2, SEED_P_BUFF)
_NEED3 = crossover_p_buff(SEED_TWO_BEST[1], 2, 3, _NEED2)

LAYOUT = (
    Section("What was run"),
    Items(_what_was_run),
    Section("The seed beside celltcp"),
    Text(
        "Each verdict is a stated test on the runs at α = 0.05 (Welch's t-test on the "
        "goodput of the replications, and so on), with its p-value, n and power: "
        "reproduced, not significant or contradicted; a claim resting on one traced run "
        'per point is never more than not significant (docs/reproductions.md, "How '
        'verdicts are decided").'
    ),
    Claims(),
    Table(
        "Goodput against p_err",
        ("p_err", *(v.label for v in VARIANTS)),
        lambda r: _throughput_rows(r.derived("table"), _p_errs(r)),
        text=(
            "Goodput in kb/s (payload), mean ± 95 % CI over the runs. Two and three ACKs send "
            "every ACK that many times; the adaptive variant sends two while the receiver's "
            f"estimate is at or above {THRESHOLD:g}; Snoop and ELN run at the base station with "
            f"one ACK. The link carries {PAYLOAD_CAPACITY_BPS / 1e3:.1f} kb/s of payload at most."
        ),
    ),
    Figure(
        "throughput-vs-p_err.png",
        "Goodput against the radio loss probability (both directions), mean and 95 % "
        "confidence interval over the replications; the seed's packets (40-byte ACKs).",
        _goodput_figure(VARIANTS, "Goodput against p_err: ACK copies, Snoop, ELN (mean, 95 % CI)"),
    ),
    Table(
        "Loss indications, spurious retransmissions, RTT",
        (
            "p_err",
            "variant",
            "p_buff",
            "indications",
            "fast rec.",
            "timeouts",
            "retx",
            "spurious",
            "RTT ms",
            "final SRTT ms",
        ),
        lambda r: _loss_rows(r.derived("table"), _p_errs(r)),
        text=(
            "Per run (means): p_buff, the base station queue's drop ratio; indications, fast "
            "recoveries plus timeouts per segment sent (the p of PFTK as the sender saw it); "
            "spurious, the sender's retransmissions beyond the data packets lost; RTT, the "
            "mean one-way delay of the data plus an ACK's way back; final SRTT, the sender's "
            "smoothed RTT at the end of the run."
        ),
    ),
    Table(
        "The PFTK analysis",
        ("p_err", "S(1) kb/s", "S(2) kb/s", "S(3) kb/s", "S(2)/S(1)", "S(3)/S(1)", "best n"),
        lambda r: _seed_rows(seed_analysis(_p_errs(r))),
        text=(
            f"The seed's S_TCP (PFTK eq. 32, every segment acknowledged, 100-byte segments) at its "
            f"parameters RTT {SEED_RTT_S * 1e3:g} ms, T0 {SEED_T0_S * 1e3:g} ms, p_buff "
            f"{SEED_P_BUFF:g} for every n. With one p_buff, p(n) falls with n and the formula "
            "ranks more copies higher at every p_err; the seed's range needs a buffer loss that "
            f"grows with the copies: p_buff(2) = {_NEED2:.3f} for two to overtake one at "
            f"p_err = {SEED_TWO_BEST[0]:g}, p_buff(3) = {_NEED3:.3f} for three to overtake two at "
            f"{SEED_TWO_BEST[1]:g}."
        ),
    ),
    Figure(
        "ratio-vs-p_err.png",
        "Goodput with two and three ACK copies relative to one copy: simulated (solid) and the "
        "seed's PFTK analysis at RTT 100 ms, T0 400 ms, p_buff 0.01 (dashed).",
        _ratio_figure(
            (ONE, TWO, THREE),
            "Two and three ACKs relative to one: simulation and the seed's analysis",
        ),
    ),
    Table(
        "",
        (
            "p_err",
            "n",
            "p_buff(n)",
            "p(n)",
            "p seen",
            "RTT ms",
            "T0 s",
            "S at p(n)",
            "S at p seen",
            "S, seed's RTT/T0",
            "simulated",
        ),
        lambda r: _pftk_table_rows(r.derived("pftk")),
        text=(
            "The same formula at the simulated path: p(n) from p_err and the measured p_buff(n), "
            "the RTT as above, T0 the sender's mean RTO at its RTT samples (traced run); beside "
            "it the formula at the indication rate the sender really saw, at the seed's "
            "parameters, and the simulated goodput (kb/s)."
        ),
    ),
    Table(
        "Sensitivity: RTT samples from timestamps",
        ("p_err", *(v.label for v in SENSITIVITY)),
        lambda r: _throughput_rows(r.derived("table"), _p_errs(r), SENSITIVITY),
        text=(
            "Without the timestamps option the sender times segments sent once and takes no "
            "sample from an ACK that also covers a retransmission (Karn's rule, RFC 6298 §3, as "
            "Linux applies it): that ACK was held back by the repair. With several holes per "
            "window nearly every ACK that advances covers a retransmission, so the sender can "
            "go a long time without a sample, and the RTO doubled at each timeout stays backed "
            "off until the next one (RFC 6298 §5.5, §5.7): later timeouts wait seconds to a "
            "minute (the window table gives the longest time without a sample). With "
            "timestamps (RFC 7323 §4) every ACK that advances gives a sample, and the first one "
            "after a timeout ends the backoff. The same runs with timestamps (52-byte ACKs, "
            "152-byte data packets), goodput in kb/s:"
        ),
    ),
    Figure(
        "throughput-vs-p_err-timestamps.png",
        "The same with the timestamps option: an RTT sample from every ACK.",
        _goodput_figure(SENSITIVITY, "Goodput against p_err with timestamps (mean, 95 % CI)"),
    ),
    Figure(
        "ratio-vs-p_err-timestamps.png",
        "Relative goodput with timestamps (solid) and the seed's analysis (dashed).",
        _ratio_figure(
            (ONE_TS, TWO_TS, THREE_TS),
            "Two and three ACKs relative to one, timestamps: simulation and analysis",
        ),
    ),
    Table(
        "Window size",
        (
            "p_err",
            "variant",
            "mean cwnd kB",
            "mean RTT sample ms",
            "T0 s",
            "longest without RTT sample s",
        ),
        lambda r: _window_rows(r.derived("traces")),
    ),
    Blocks(_window_figure),
    Table(
        "Snoop and ELN at the base station",
        (
            "p_err",
            "Snoop local retx",
            "Snoop dupacks suppressed",
            "queue drops (Snoop)",
            "ELN ACKs marked",
            "ELN recoveries",
            "ELN timeouts",
        ),
        lambda r: _middlebox_rows(r.derived("rows")),
    ),
    Table(
        "The p_err estimator as connections come and go",
        (
            "p_err",
            "run",
            "period",
            "scheduled",
            "delivering",
            "updates",
            "estimate mean [min, max]",
            "seed's model",
            "gaps only",
        ),
        _tracking_rows,
        text=(
            "The wireless terminal keeps one estimate for all its connections, as the seed "
            "monitors p at the terminal: every receiver counts the gaps in its own connection "
            "(lost data) and the repeats of segments it had acknowledged (lost ACKs) and feeds "
            "the terminal's update windows (32 segments over all connections, gain 1/8, p_buff "
            "0.01), and each update is traced by the connection whose segment closed the "
            "window. Per period: the connections scheduled and those that delivered data, the "
            "updates and their mean [min, max], the value of the seed's model (one ACK per "
            "segment, every lost ACK seen as a repeat: p_err less p_buff's share) and the value "
            "1 − sqrt((1 − p_err)/(1 − p_buff)) of a receiver that sees the downlink losses "
            "only. Below, per connection: when it first closed a window, how many it closed, "
            "the estimate it first traced (the terminal's, one update on) and its mean over "
            "its second half."
        ),
    ),
    Table(
        "",
        (
            "p_err",
            "connection",
            "start s",
            "first estimate after s",
            "updates",
            "first estimate",
            "mean, second half",
        ),
        _first_update_rows,
    ),
    Blocks(_estimate_figures),
)

STUDY = Study(
    name=NAME,
    title=f"Reproduction {NAME}: multiple ACKs on a lossy radio link (seed `004_…`)",
    question=(
        "Does sending every ACK several times from the wireless terminal spare the sender the "
        "timeouts of lost ACKs, as Miyoshi, Sugano & Murata find, and where does it pay?"
    ),
    sweeps=SWEEPS,
    claims=CLAIMS,
    derived=DERIVED,
    report=LAYOUT,
)
