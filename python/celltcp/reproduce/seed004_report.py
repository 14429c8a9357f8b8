"""The report of seed `004_…`'s reproduction (:mod:`celltcp.reproduce.seed004`): the seed's
claims beside celltcp's numbers with a verdict each, the PFTK analysis at the seed's and at the
simulated parameters, the detail tables and the figures. Verdicts are computed from the
measured numbers, never written in advance; docs/seed-004.md explains every disagreement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from celltcp.models import crossover_p_buff, multi_ack_throughput_bps
from celltcp.plots.ack_control import (
    cwnd_over_time,
    loss_estimate_over_time,
    throughput_ratio_vs_p_err,
    throughput_vs_p_err,
)
from celltcp.reproduce.document import (
    Bullets,
    Document,
    Figure,
    Heading,
    Paragraph,
    Table,
    fmt_ci,
    png_of,
)
from celltcp.reproduce.registry import Options
from celltcp.reproduce.seed004 import (
    ASSUMED_P_BUFF,
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
    THRESHOLD,
    VARIANTS,
    Results,
    expected_estimate,
    first_updates,
    gaps_only_estimate,
    tracking_periods,
)
from celltcp.reproduce.verdict import (
    ClaimRow,
    Decision,
    Estimate,
    Sample,
    Verdict,
    any_of,
    claim_table,
    combine,
    decide,
    equivalence,
    one_sample_test,
    point_decision,
    shortfall,
    unavailable,
    welch_test,
)

__all__ = ["report", "seed_analysis"]

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


def _goodput(table: pd.DataFrame, variant: str, p: float) -> Sample:
    """The goodput runs of one point, from its mean, 95 % half-width and number of runs."""
    x = _row(table, variant, p)
    return Sample.from_interval(
        float(x["goodput_bps"]), float(x["goodput_half_bps"]), int(x["runs"])
    )


def _why(d: Decision, *more: str) -> str:
    """The points that did not reproduce a claim and the power the runs had, then ``more``."""
    return "; ".join(m for m in (shortfall(d, "p_err "), *more) if m)


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


def _karn_why(table: pd.DataFrame, d: Decision) -> str:
    """Why two ACKs fall behind without timestamps where they do: without an RTT sample the
    RTO doubled at each timeout stays backed off (RFC 6298 §5.5, §5.7), which the timeouts per
    run show beside those of the same variant with timestamps (a sample from every ACK that
    advances, RFC 7323 §4)."""
    ps = [p for p in _missing(d) if _row(table, TWO_TS, p) is not None]
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


def _claim_improvement(
    table: pd.DataFrame, p_errs: Sequence[float], one_label: str = ONE, two_label: str = TWO
) -> tuple[str, Decision]:
    """Two ACKs above one at every p_err > 0.05 (Welch's t-test at each)."""
    above = [p for p in p_errs if p > SEED_SIM_IMPROVES_ABOVE]
    d = combine(
        {
            f"{p:g}": decide(
                welch_test(_goodput(table, two_label, p), _goodput(table, one_label, p)), ">"
            )
            for p in above
        }
    )

    def ratio(p: float) -> str:
        e = Estimate.of_ratio(_goodput(table, two_label, p), _goodput(table, one_label, p))
        return f"{p:g}: ×{e.text(2)}" if math.isfinite(e.value) else f"{p:g}: n/a"

    return "two ACKs / one ACK at p_err " + "; ".join(ratio(p) for p in above), d


def _claim_low(table: pd.DataFrame, p_errs: Sequence[float]) -> tuple[str, Decision]:
    """Two ACKs below one at some p_err ≤ 0.02 ("may do worse": one point suffices)."""
    low = [p for p in p_errs if p <= 0.02]
    parts = []
    for p in low:
        one, two = _row(table, ONE, p), _row(table, TWO, p)
        ratio = Estimate.of_ratio(_goodput(table, TWO, p), _goodput(table, ONE, p))
        parts.append(
            f"{p:g}: {_kbps(two['goodput_bps'])} vs {_kbps(one['goodput_bps'])} kb/s "
            f"(×{ratio.text(2)}), {two['spurious_retx']:.0f} spurious retransmissions "
            "per run"
        )
    d = any_of(
        {
            f"{p:g}": decide(welch_test(_goodput(table, TWO, p), _goodput(table, ONE, p)), "<")
            for p in low
        }
    )
    return "two vs one ACK at p_err " + "; ".join(parts), d


def _best_copies(
    table: pd.DataFrame, p_errs: Sequence[float], labels: Sequence[str] = (ONE, TWO, THREE)
) -> dict[float, int]:
    out = {}
    for p in p_errs:
        if p <= 0:
            continue
        means = [_row(table, label, p)["goodput_bps"] for label in labels]
        out[p] = 1 + int(np.argmax(means))
    return out


def _claim_range(
    table: pd.DataFrame, p_errs: Sequence[float], labels: Sequence[str] = (ONE, TWO, THREE)
) -> tuple[str, Decision, str]:
    """Inside the seed's range two copies beat one and three (Welch's t-tests, all must hold).
    Returns the cell, the decision and what the formula says at the seed's parameters."""
    best = _best_copies(table, p_errs, labels)
    lo, hi = SEED_TWO_BEST
    inside = [p for p in best if lo < p < hi]
    one, two, three = labels
    if inside:
        d = combine(
            {
                f"{p:g} vs {n}": decide(
                    welch_test(_goodput(table, two, p), _goodput(table, other, p)), ">"
                )
                for p in inside
                for n, other in (("one", one), ("three", three))
            }
        )
    else:
        d = unavailable("Welch's t-test", f"no p_err inside {lo:g}–{hi:g} in this grid")
    cell = "best of 1–3 copies (means) at p_err " + ", ".join(
        f"{p:g}: {n}" for p, n in best.items()
    )
    model = seed_analysis([p for p in p_errs if p > 0])
    formula = (
        f"the formula at the seed's parameters with one p_buff gives "
        f"{_list(sorted(set(model['best'])))} copies as best everywhere"
    )
    return cell, d, formula


def _claim_window(traces: pd.DataFrame) -> tuple[str, Decision]:
    """A larger mean window with two ACKs: one traced run per p_err, so never more than a point
    estimate (not significant, one run)."""
    pairs = []
    for p in sorted(set(traces["p_err"])):
        if p <= 0:
            continue
        w = {
            v: traces[(traces["variant"] == v) & (traces["p_err"] == p)]["mean_cwnd_bytes"]
            for v in (ONE, TWO)
        }
        if all(len(x) for x in w.values()):
            pairs.append((p, float(w[ONE].iloc[0]), float(w[TWO].iloc[0])))
    cell = "mean cwnd one → two ACKs: " + "; ".join(
        f"{p:g}: {a / 1e3:.2f} → {b / 1e3:.2f} kB" for p, a, b in pairs
    )
    if not pairs:
        return cell, unavailable("a single traced run", "not run")
    d = combine(
        {f"{p:g}": point_decision(b, a, ">", "one traced run per p_err") for p, a, b in pairs}
    )
    return cell, d


def _estimates(r: Results) -> dict[float, list[tuple[int, pd.Series]]]:
    """The settled estimates (periods 2 on) of every tracking run, by p_err."""
    out: dict[float, list[tuple[int, pd.Series]]] = {}
    for (_, row), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        p = float(row["p_err"])
        periods = tracking_periods(tcp, p, r.plan.period_s)
        out.setdefault(p, []).append((int(row["run"]), periods.iloc[1:]["mean"].dropna()))
    return out


#: The estimator's claim: its settled mean within this share of the true p_err.
ESTIMATE_MARGIN = 0.2


def _claim_estimator(r: Results) -> tuple[str, Decision, Estimate | None, str]:
    """The settled estimate over p_err equal to 1 within ±20 % (TOST over the runs, at every
    p_err). Returns the cell (run 0), the decision, the estimate pooled over p_err and why."""
    by_p = _estimates(r)
    if not by_p:
        return "not run", unavailable("equivalence test (TOST)", "not run"), None, ""
    parts, of_gaps, of_true, spread = [], [], [], []
    for p, runs in by_p.items():
        model, gaps = expected_estimate(p), gaps_only_estimate(p)
        for run, settled in runs:
            if run != 0:
                continue
            parts.append(
                f"p_err {p:g}: mean estimate {settled.mean():.4f} (periods 2–10, "
                f"{settled.min():.4f}–{settled.max():.4f}); the seed's model "
                f"{model:.4f}, gaps only {gaps:.4f}"
            )
            of_gaps.append(settled.mean() / gaps)
            spread += [settled.min() / p, settled.max() / p]
        of_true += [settled.mean() / p for _, settled in runs]
    d = combine(
        {
            f"{p:g}": equivalence(Sample.of([s.mean() / p for _, s in runs]), 1.0, ESTIMATE_MARGIN)
            for p, runs in by_p.items()
        }
    )
    why = (
        (
            f"the receiver counts the gaps of lost data and the repeats of segments it had "
            f"acknowledged (lost ACKs, the second crossing of the seed's formula); a lost ACK "
            f"leaves a repeat only when no later cumulative ACK reaches the sender first, so the "
            f"estimates settle near the value of the gaps alone (mean / gaps-only value "
            f"{', '.join(f'{x:.2f}' for x in of_gaps)}; per-period means "
            f"{min(spread):.2f}–{max(spread):.2f} × p_err with 1 to 5 connections)"
        )
        if spread
        else ""
    )
    return "; ".join(parts), d, Estimate.of_sample(Sample.of(of_true)), why


#: The adaptive switch "engages" at a p_err when more than this share of the receiver's ACKs
#: go out with a copy (the estimate above the threshold for most of the run), and does not
#: when less do.
ENGAGED_SHARE = 0.5


def _copied_share(runs: pd.DataFrame) -> np.ndarray:
    """Per run: the share of the receiver's ACKs sent with a copy (copies over the ACKs
    without them; NaN for a run without an ACK)."""
    copies = runs["ack_copies_sent"].astype(float).to_numpy()
    plain = runs["receiver_acks_sent"].astype(float).to_numpy() - copies
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(plain > 0, copies / plain, np.nan)


def _claim_adaptive(
    table: pd.DataFrame, rows: pd.DataFrame, variant: str = ADAPTIVE
) -> tuple[str, Decision, Estimate | None]:
    """The seed: the terminal sends multiple ACKs when p_err exceeds the threshold. Tested at
    every p_err of the grid on the share of the receiver's ACKs sent with a copy (per run)
    against :data:`ENGAGED_SHARE` (one-sample t-tests): above it at every p_err from
    :func:`_threshold_p_err` on (the switch engages), below it at every p_err under it, 0
    included (it does not); all must hold. A p_err where the switch does not engage although
    it should (or engages where it should not) counts against the claim. Returns the cell, the
    decision and the share over the runs at the p_err where it should engage."""
    runs = rows[rows["variant"] == variant]
    threshold = _threshold_p_err()
    points = sorted({float(p) for p in runs["p_err"]})
    shares = {p: _copied_share(runs[np.isclose(runs["p_err"], p)]) for p in points}
    mine = table[table["variant"] == variant]
    cell = (
        "share of ACKs sent with a copy at p_err "
        + ", ".join(f"{p:g}: {np.nanmean(x):.3f}" for p, x in shares.items())
        + "; copies per run "
        + ", ".join(f"{x['p_err']:g}: {x['ack_copies_sent']:.0f}" for _, x in mine.iterrows())
    )
    if not points:
        return cell, unavailable("one-sample t-test", "not run"), None
    d = combine(
        {
            f"{p:g} ({'on' if p >= threshold else 'off'})": decide(
                one_sample_test(Sample.of(x), ENGAGED_SHARE, effect=ENGAGED_SHARE / 2),
                ">" if p >= threshold else "<",
            )
            for p, x in shares.items()
        }
    )
    engage = [v for p, x in shares.items() if p >= threshold for v in x]
    return cell, d, Estimate.of_sample(Sample.of(engage)) if engage else None


def _threshold_p_err() -> float:
    """True p_err at which the estimate of the seed's model (both crossings at p_err, no buffer
    loss) reaches the threshold: 1 − (1 − threshold)·sqrt(1 − p_buff)."""
    return 1 - (1 - THRESHOLD) * math.sqrt(1 - ASSUMED_P_BUFF)


def _adaptive_why(rows: pd.DataFrame, d: Decision, variant: str) -> str:
    """Why the switch does not engage at the p_err where the claim wants it to: the estimate's
    level (the share of ACKs sent with a copy peaks where it crosses the threshold) and, where no
    run sent a copy at all, the segments the sender sent, too few updates for the moving average
    to climb from p[0] = 0."""
    runs = rows[rows["variant"] == variant]
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


def _claims(r: Results) -> list[ClaimRow]:
    p_errs = r.plan.p_errs
    lo, hi = SEED_TWO_BEST
    rows = []
    cell, d = _claim_improvement(r.table, p_errs)
    rows.append(
        ClaimRow(
            "simulation (throughput figure)",
            "two ACKs improve the throughput for p_err > 0.05",
            "yes",
            None,
            None,
            d,
            detail=cell,
            reason=_why(d, _karn_why(r.table, d)),
        )
    )
    cell, d = _claim_low(r.table, p_errs)
    rows.append(
        ClaimRow(
            "proposed method",
            "at a low error rate two ACKs may do worse",
            "expected, no figure",
            None,
            None,
            d,
            detail=cell,
            reason=_why(
                d,
                "at p_err = 0 a duplicate segment returns two "
                "duplicate ACKs which, with the copy of the ACK before, "
                "reach the threshold of three: spurious fast "
                "retransmits",
            ),
        )
    )
    cell, d, formula = _claim_range(r.table, p_errs)
    rows.append(
        ClaimRow(
            "analysis",
            (
                f"two ACKs best for {lo:g} < p_err < {hi:g} (RTT 100 ms, "
                "T0 400 ms, p_buff 0.01): above one and three copies"
            ),
            f"analysis result: {lo:g} < p_err < {hi:g}",
            None,
            None,
            d,
            detail=cell,
            reason=_why(
                d, formula + "; the range needs a buffer loss growing with the copies (below)"
            ),
        )
    )
    cell, d = _claim_window(r.traces)
    rows.append(
        ClaimRow(
            "simulation (window figure)",
            "larger window with two ACKs",
            "yes",
            None,
            None,
            d,
            detail=cell,
            reason="one traced run per p_err: a point estimate, no test",
        )
    )
    for where, variant in (("proposed method", ADAPTIVE), ("sensitivity: timestamps", ADAPTIVE_TS)):
        cell, d, copies = _claim_adaptive(r.table, r.rows, variant)
        rows.append(
            ClaimRow(
                where,
                (
                    f"copies sent when the estimate exceeds a threshold (here "
                    f"{THRESHOLD:g}): at each p_err, the share of ACKs sent with a copy "
                    f"above {ENGAGED_SHARE:g} from p_err {_threshold_p_err():.3f} on, below "
                    "it under that"
                ),
                "method",
                None,
                copies,
                d,
                detail=cell,
                digits=2,
                reason=_why(d, _adaptive_why(r.rows, d, variant)),
            )
        )
    cell, d, ours, why = _claim_estimator(r)
    rows.append(
        ClaimRow(
            "estimation",
            "the moving average agrees with p_err as connections "
            f"come and go (estimate / p_err, equal to 1 within "
            f"±{ESTIMATE_MARGIN:g})",
            "good agreement (figure): 1",
            1.0,
            ours,
            d,
            detail=cell,
            reason=_why(d, why),
            digits=2,
        )
    )
    cell, d = _claim_improvement(r.table, p_errs, ONE_TS, TWO_TS)
    rows.append(
        ClaimRow(
            "sensitivity: timestamps",
            "two ACKs improve the throughput for p_err > 0.05",
            "yes",
            None,
            None,
            d,
            detail=cell,
            reason=_why(d),
        )
    )
    cell, d, formula = _claim_range(r.table, p_errs, (ONE_TS, TWO_TS, THREE_TS))
    rows.append(
        ClaimRow(
            "sensitivity: timestamps",
            f"two ACKs best for {lo:g} < p_err < {hi:g}",
            "analysis result",
            None,
            None,
            d,
            detail=cell,
            reason=_why(d, formula),
        )
    )
    return rows


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
    for (_, run), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        p = float(run["p_err"])
        for _, x in tracking_periods(tcp, p, r.plan.period_s).iterrows():
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
    for (_, run), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        if int(run["run"]) != 0:
            continue
        for _, x in first_updates(tcp, r.plan.period_s).iterrows():
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


def _figures(r: Results) -> tuple[list[Figure], list[Figure], list[Figure]]:
    """Goodput and ratios (seed's packets, then timestamps); the cwnd figure (none without
    its traces); the estimates, one figure per p_err."""
    main = r.table[r.table["variant"].isin([v.label for v in VARIANTS])]
    ts = r.table[r.table["variant"].isin([v.label for v in SENSITIVITY])]
    figs = [
        Figure(
            "throughput-vs-p_err.png",
            png_of(
                throughput_vs_p_err(
                    main,
                    capacity_bps=PAYLOAD_CAPACITY_BPS,
                    title="Goodput against p_err: ACK copies, Snoop, ELN (mean, 95 % CI)",
                )
            ),
            "Goodput against the radio loss probability (both directions), mean and 95 % "
            "confidence interval over the replications; the seed's packets (40-byte ACKs).",
        )
    ]
    model = seed_analysis(r.plan.p_errs)
    figs.append(
        Figure(
            "ratio-vs-p_err.png",
            png_of(
                throughput_ratio_vs_p_err(
                    r.table,
                    baseline=ONE,
                    variants=[ONE, TWO, THREE],
                    model=_ratio_curves(model, TWO, THREE),
                    title="Two and three ACKs relative to one: simulation and the seed's analysis",
                )
            ),
            "Goodput with two and three ACK copies relative to one copy: simulated (solid) and the "
            "seed's PFTK analysis at RTT 100 ms, T0 400 ms, p_buff 0.01 (dashed).",
        )
    )
    figs.append(
        Figure(
            "throughput-vs-p_err-timestamps.png",
            png_of(
                throughput_vs_p_err(
                    ts,
                    capacity_bps=PAYLOAD_CAPACITY_BPS,
                    title="Goodput against p_err with timestamps (mean, 95 % CI)",
                )
            ),
            "The same with the timestamps option: an RTT sample from every ACK.",
        )
    )
    figs.append(
        Figure(
            "ratio-vs-p_err-timestamps.png",
            png_of(
                throughput_ratio_vs_p_err(
                    r.table,
                    baseline=ONE_TS,
                    variants=[ONE_TS, TWO_TS, THREE_TS],
                    model=_ratio_curves(model, TWO_TS, THREE_TS),
                    title="Two and three ACKs relative to one, timestamps: simulation and analysis",
                )
            ),
            "Relative goodput with timestamps (solid) and the seed's analysis (dashed).",
        )
    )
    p = r.plan.window_p_err
    window, estimates = [], []
    cw = {v: r.cwnds[(v, p)] for v in (ONE, TWO) if (v, p) in r.cwnds}
    if cw:
        window.append(
            Figure(
                "cwnd.png",
                png_of(cwnd_over_time(cw, title=f"Congestion window at p_err = {p:g}")),
                f"The sender's congestion window with one and two ACK copies, p_err = {p:g} "
                "(run 0).",
            )
        )
    for (_, run), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        if int(run["run"]) != 0:
            continue
        q = float(run["p_err"])
        estimates.append(
            Figure(
                f"estimate-p_err-{q:g}.png",
                png_of(
                    loss_estimate_over_time(
                        tcp,
                        true_p_err=q,
                        expected=gaps_only_estimate(q),
                        threshold=THRESHOLD,
                        title=f"p_err estimates as connections come and go, true p_err = {q:g}",
                    )
                ),
                f"The terminal's p_err estimate, one colour per connection that updated it, "
                f"against the true p_err = {q:g} and the value the formula gives a receiver that "
                "sees the downlink losses only (dashed); below, the connections delivering data "
                "(run 0).",
            )
        )
    return figs, window, estimates


def _what_was_run(r: Results, options: Options) -> Bullets:
    from celltcp import _core

    plan = r.plan
    mode = "quick" if options.quick else "full"
    command = f"celltcp reproduce {NAME}{' --quick' if options.quick else ''}"
    phases = ", ".join(f"{k} {v:.1f} s" for k, v in r.phases_s.items())
    return Bullets(
        (
            f"celltcp {_core.__version__}, `{command}` ({mode} mode)",
            (
                "scenario files `celltcp/examples/004/ack-copies.toml` (wired terminal —10 Mb/s— base "
                "station —384 kb/s radio, p_err both ways— wireless terminal; 1 ms links; 100-byte "
                "segments, 40-byte ACKs, 50 KB buffers; Reno without SACK, every segment acknowledged) and "
                "`celltcp/examples/004/tracking.toml` (the same path, 1–5–1 connections); "
                "docs/seed-004.md gives the choices the seed leaves open"
            ),
            (
                f"master seed {MASTER_SEED}; throughput: {len(plan.p_errs)} p_err values × "
                f"{len(VARIANTS) + len(SENSITIVITY)} variants ({len(SENSITIVITY)} of them with "
                f"timestamps) × {plan.runs} runs of {plan.duration_s:g} s"
            ),
            (
                f"traces (cwnd, RTT samples, RTO): run 0 of one, two and three ACKs at every p_err, "
                f"{plan.trace_duration_s:g} s"
            ),
            (
                f"estimator: p_err {_list(plan.tracking_p_errs)} × {plan.tracking_runs} runs, periods "
                f"of {plan.period_s:g} s"
            ),
            f"results store: `{options.store}`" if options.store else "results store: temporary",
            f"wall time of the runs: {r.wall_s:.1f} s ({phases})",
        )
    )


def report(results: Results, options: Options) -> Document:
    """The report of one reproduction's results."""
    r = results
    p_errs = r.plan.p_errs
    seed_model = seed_analysis(p_errs)
    need2 = crossover_p_buff(SEED_TWO_BEST[0], 1, 2, SEED_P_BUFF)
    need3 = crossover_p_buff(SEED_TWO_BEST[1], 2, 3, need2)
    doc = Document(
        f"Reproduction {NAME}: multiple ACKs on a lossy radio link (seed `004_…`)", runs=r.runs
    )
    figs, window, estimates = _figures(r)
    doc.add(
        Heading("What was run"),
        _what_was_run(r, options),
        Heading("The seed beside celltcp"),
        Paragraph(
            "Each verdict is a stated test on the runs at α = 0.05 (Welch's t-test on the "
            "goodput of the replications, and so on), with its p-value, n and power: "
            "reproduced, not significant or contradicted; a claim resting on one traced run "
            'per point is never more than not significant (docs/reproductions.md, "How '
            'verdicts are decided").'
        ),
        claim_table(_claims(r)),
        Heading("Goodput against p_err"),
        Paragraph(
            "Goodput in kb/s (payload), mean ± 95 % CI over the runs. Two and three ACKs send "
            "every ACK that many times; the adaptive variant sends two while the receiver's "
            f"estimate is at or above {THRESHOLD:g}; Snoop and ELN run at the base station with "
            f"one ACK. The link carries {PAYLOAD_CAPACITY_BPS / 1e3:.1f} kb/s of payload at most."
        ),
        Table(("p_err", *(v.label for v in VARIANTS)), _throughput_rows(r.table, p_errs)),
        figs[0],
        Heading("Loss indications, spurious retransmissions, RTT"),
        Paragraph(
            "Per run (means): p_buff, the base station queue's drop ratio; indications, fast "
            "recoveries plus timeouts per segment sent (the p of PFTK as the sender saw it); "
            "spurious, the sender's retransmissions beyond the data packets lost; RTT, the "
            "mean one-way delay of the data plus an ACK's way back; final SRTT, the sender's "
            "smoothed RTT at the end of the run."
        ),
        Table(
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
            _loss_rows(r.table, p_errs),
        ),
        Heading("The PFTK analysis"),
        Paragraph(
            f"The seed's S_TCP (PFTK eq. 32, every segment acknowledged, 100-byte segments) at its "
            f"parameters RTT {SEED_RTT_S * 1e3:g} ms, T0 {SEED_T0_S * 1e3:g} ms, p_buff "
            f"{SEED_P_BUFF:g} for every n. With one p_buff, p(n) falls with n and the formula "
            "ranks more copies higher at every p_err; the seed's range needs a buffer loss that "
            f"grows with the copies: p_buff(2) = {need2:.3f} for two to overtake one at "
            f"p_err = {SEED_TWO_BEST[0]:g}, p_buff(3) = {need3:.3f} for three to overtake two at "
            f"{SEED_TWO_BEST[1]:g}."
        ),
        Table(
            ("p_err", "S(1) kb/s", "S(2) kb/s", "S(3) kb/s", "S(2)/S(1)", "S(3)/S(1)", "best n"),
            _seed_rows(seed_model),
        ),
        figs[1],
        Paragraph(
            "The same formula at the simulated path: p(n) from p_err and the measured p_buff(n), "
            "the RTT as above, T0 the sender's mean RTO at its RTT samples (traced run); beside "
            "it the formula at the indication rate the sender really saw, at the seed's "
            "parameters, and the simulated goodput (kb/s)."
        ),
        Table(
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
            _pftk_table_rows(r.pftk),
        ),
        Heading("Sensitivity: RTT samples from timestamps"),
        Paragraph(
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
        Table(
            ("p_err", *(v.label for v in SENSITIVITY)),
            _throughput_rows(r.table, p_errs, SENSITIVITY),
        ),
        figs[2],
        figs[3],
        Heading("Window size"),
        Table(
            (
                "p_err",
                "variant",
                "mean cwnd kB",
                "mean RTT sample ms",
                "T0 s",
                "longest without RTT sample s",
            ),
            _window_rows(r.traces),
        ),
        *window,
        Heading("Snoop and ELN at the base station"),
        Table(
            (
                "p_err",
                "Snoop local retx",
                "Snoop dupacks suppressed",
                "queue drops (Snoop)",
                "ELN ACKs marked",
                "ELN recoveries",
                "ELN timeouts",
            ),
            _middlebox_rows(r.rows),
        ),
        Heading("The p_err estimator as connections come and go"),
        Paragraph(
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
        Table(
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
            _tracking_rows(r),
        ),
        Table(
            (
                "p_err",
                "connection",
                "start s",
                "first estimate after s",
                "updates",
                "first estimate",
                "mean, second half",
            ),
            _first_update_rows(r),
        ),
        *estimates,
    )
    return doc
