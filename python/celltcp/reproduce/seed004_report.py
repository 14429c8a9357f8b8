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
    tracking_periods,
)

__all__ = ["report", "seed_analysis"]

ONE, TWO, THREE = (v.label for v in FIXED)
ADAPTIVE, SNOOP, ELN = (v.label for v in VARIANTS[3:])
ONE_TS, TWO_TS, THREE_TS, ELN_TS = (v.label for v in SENSITIVITY)


def _kbps(bps: float) -> str:
    return "n/a" if math.isnan(bps) else f"{bps / 1e3:.3g}"


def _ci_kbps(mean: float, half: float) -> str:
    digits = 1 if mean >= 1e4 else 2
    return fmt_ci(mean / 1e3, half / 1e3, digits)


def _row(table: pd.DataFrame, variant: str, p: float) -> Any:
    sel = table[(table["variant"] == variant) & np.isclose(table["p_err"], p)]
    return None if sel.empty else sel.iloc[0]


def _above(a: Any, b: Any) -> tuple[bool, bool]:
    """(a's mean above b's, the two intervals apart)."""
    ha, hb = (0.0 if math.isnan(x["goodput_half_bps"]) else x["goodput_half_bps"] for x in (a, b))
    apart = (a["goodput_bps"] - ha > b["goodput_bps"] + hb) or (
        b["goodput_bps"] - hb > a["goodput_bps"] + ha)
    return a["goodput_bps"] > b["goodput_bps"], apart


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
        s = [multi_ack_throughput_bps(PAYLOAD_BYTES, SEED_RTT_S, SEED_T0_S, p, SEED_P_BUFF, n,
                                      b=1.0) for n in (1, 2, 3)]
        rows.append({"p_err": p, "s1": s[0], "s2": s[1], "s3": s[2], "best": 1 + int(np.argmax(s)),
                     "ratio2": s[1] / s[0], "ratio3": s[2] / s[0]})
    return pd.DataFrame(rows)


# -- the claims -------------------------------------------------------------------------------


def _claim_improvement(table: pd.DataFrame, p_errs: Sequence[float], one_label: str = ONE,
                       two_label: str = TWO) -> tuple[str, str]:
    ahead, behind, overlap = [], [], []
    for p in p_errs:
        if p <= SEED_SIM_IMPROVES_ABOVE:
            continue
        one, two = _row(table, one_label, p), _row(table, two_label, p)
        above, apart = _above(two, one)
        (ahead if above else behind).append(p)
        if not apart:
            overlap.append(p)
    def ratio(p: float) -> float:
        return _row(table, two_label, p)["goodput_bps"] / _row(table, one_label, p)["goodput_bps"]

    ratios = "; ".join(f"{p:g}: ×{ratio(p):.2f}" for p in p_errs
                       if p > SEED_SIM_IMPROVES_ABOVE
                       and _row(table, one_label, p)["goodput_bps"] > 0)
    cell = f"two ACKs / one ACK at p_err {ratios}"
    note = f" (intervals overlap at {_list(overlap)})" if overlap else ""
    if not behind and ahead:
        verdict = f"**reproduced**{note}"
    elif ahead:
        verdict = f"**partly**: ahead at {_list(ahead)}, behind at {_list(behind)}{note}"
    else:
        verdict = f"**not reproduced**: two ACKs behind at every p_err > 0.05{note}"
    return cell, verdict


def _claim_low(table: pd.DataFrame, p_errs: Sequence[float]) -> tuple[str, str]:
    low = [p for p in p_errs if p <= 0.02]
    parts, worse = [], []
    for p in low:
        one, two = _row(table, ONE, p), _row(table, TWO, p)
        spur = _row(table, TWO, p)["spurious_retx"]
        parts.append(f"{p:g}: {_kbps(two['goodput_bps'])} vs {_kbps(one['goodput_bps'])} kb/s, "
                     f"{spur:.0f} spurious retransmissions per run")
        above, apart = _above(one, two)
        if above:
            worse.append((p, apart))
    cell = "two vs one ACK at p_err " + "; ".join(parts)
    if not worse:
        return cell, "**not seen**: two ACKs never behind at low p_err"
    apart = [p for p, a in worse if a]
    sure = f", intervals apart at {_list(apart)}" if apart else ", intervals overlap"
    return cell, f"**reproduced**: behind at {_list([p for p, _ in worse])}{sure}"


def _best_copies(table: pd.DataFrame, p_errs: Sequence[float],
                 labels: Sequence[str] = (ONE, TWO, THREE)) -> dict[float, int]:
    out = {}
    for p in p_errs:
        if p <= 0:
            continue
        means = [_row(table, label, p)["goodput_bps"] for label in labels]
        out[p] = 1 + int(np.argmax(means))
    return out


def _claim_range(table: pd.DataFrame, p_errs: Sequence[float],
                 labels: Sequence[str] = (ONE, TWO, THREE)) -> tuple[str, str]:
    best = _best_copies(table, p_errs, labels)
    lo, hi = SEED_TWO_BEST
    inside = [p for p in best if lo < p < hi]
    outside = [p for p in best if not lo < p < hi]
    two_in = [p for p in inside if best[p] == 2]
    two_out = [p for p in outside if best[p] == 2]
    cell = "best of 1–3 copies at p_err " + ", ".join(f"{p:g}: {n}" for p, n in best.items())
    if inside and len(two_in) == len(inside) and not two_out:
        verdict = "**reproduced**"
    elif two_in or two_out:
        verdict = (f"**partly**: two best at {_list(sorted(two_in + two_out))}; inside the range "
                   f"{len(two_in)}/{len(inside)}")
    else:
        verdict = "**not reproduced**: two copies are never the best"
    model = seed_analysis([p for p in p_errs if p > 0])
    verdict += (f"; the formula at the seed's parameters with one p_buff gives "
                f"{_list(sorted(set(model['best'])))} copies as best everywhere")
    return cell, verdict


def _claim_window(traces: pd.DataFrame) -> tuple[str, str]:
    pairs = []
    for p in sorted(set(traces["p_err"])):
        if p <= 0:
            continue
        w = {v: traces[(traces["variant"] == v) & (traces["p_err"] == p)]["mean_cwnd_bytes"]
             for v in (ONE, TWO)}
        if all(len(x) for x in w.values()):
            pairs.append((p, float(w[ONE].iloc[0]), float(w[TWO].iloc[0])))
    cell = "mean cwnd one → two ACKs: " + "; ".join(
        f"{p:g}: {a / 1e3:.2f} → {b / 1e3:.2f} kB" for p, a, b in pairs)
    larger = [p for p, a, b in pairs if b > a]
    if pairs and len(larger) == len(pairs):
        return cell, "**reproduced** (one traced run per point)"
    return cell, (f"**partly**: larger at {_list(larger)} of {len(pairs)} points"
                  if larger else "**not reproduced**")


def _claim_estimator(r: Results) -> tuple[str, str]:
    parts, of_limit, of_true, spread = [], [], [], []
    for (_, row), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        if int(row["run"]) != 0:
            continue
        p = float(row["p_err"])
        periods = tracking_periods(tcp, p, r.plan.period_s)
        settled = periods.iloc[1:]["mean"].dropna()
        limit = expected_estimate(p)
        parts.append(f"p_err {p:g}: mean estimate {settled.mean():.4f} (periods 2–10, "
                     f"{settled.min():.4f}–{settled.max():.4f}); the formula's limit {limit:.4f}")
        of_limit.append(settled.mean() / limit)
        of_true.append(settled.mean() / p)
        spread += [settled.min() / limit, settled.max() / limit]
    if not parts:
        return "not run", "not run"
    ratios = ", ".join(f"{x:.2f}" for x in of_limit)
    shares = ", ".join(f"{x:.2f}" for x in of_true)
    if all(0.8 <= x <= 1.25 for x in of_true):
        return "; ".join(parts), "**reproduced**"
    return "; ".join(parts), (
        f"**not reproduced**: the estimates settle near the formula's one-crossing limit "
        f"(mean / limit {ratios}), not at p_err (mean / p_err {shares}); per-period means "
        f"{min(spread):.2f}–{max(spread):.2f} × the limit with 1 to 5 connections")


def _claim_adaptive(table: pd.DataFrame) -> tuple[str, str]:
    rows = table[table["variant"] == ADAPTIVE]
    on = rows[rows["ack_copies_sent"] > 0]
    by_radio = on[on["p_err"] >= _threshold_p_err()]
    cell = "ACK copies sent per run at p_err " + ", ".join(
        f"{r['p_err']:g}: {r['ack_copies_sent']:.0f}" for _, r in rows.iterrows())
    limit = (f"the estimator's limit reaches {THRESHOLD:g} only at p_err ≥ "
             f"{_threshold_p_err():.3f}")
    if len(by_radio):
        return cell, f"**reproduced** at p_err {_list(list(by_radio['p_err']))}; {limit}"
    early = (f"copies only at p_err {_list(list(on['p_err']))}, after the initial slow "
             "start's buffer overflow; " if len(on) else "")
    return cell, f"**not reproduced**: never switched on by radio losses; {early}{limit}"


def _threshold_p_err() -> float:
    """True p_err at which the formula's one-crossing limit reaches the threshold:
    1 − (1 − p_buff)(1 − threshold)²."""
    return 1 - (1 - ASSUMED_P_BUFF) * (1 - THRESHOLD) ** 2


def _claims(r: Results) -> tuple[tuple[str, ...], ...]:
    p_errs = r.plan.p_errs
    rows = []
    cell, verdict = _claim_improvement(r.table, p_errs)
    rows.append(("simulation (throughput figure)",
                 "two ACKs improve the throughput for p_err > 0.05", "yes", cell, verdict))
    cell, verdict = _claim_low(r.table, p_errs)
    rows.append(("proposed method", "at a low error rate two ACKs may do worse",
                 "expected, no figure", cell, verdict))
    cell, verdict = _claim_range(r.table, p_errs)
    lo, hi = SEED_TWO_BEST
    rows.append(("analysis", (f"two ACKs best for {lo:g} < p_err < {hi:g} (RTT 100 ms, "
                              "T0 400 ms, p_buff 0.01)"), "analysis result", cell, verdict))
    cell, verdict = _claim_window(r.traces)
    rows.append(("simulation (window figure)", "larger window with two ACKs", "yes", cell,
                 verdict))
    cell, verdict = _claim_adaptive(r.table)
    rows.append(("proposed method", (f"copies sent when the estimate exceeds a threshold "
                                     f"(here {THRESHOLD:g})"), "method", cell, verdict))
    cell, verdict = _claim_estimator(r)
    rows.append(("estimation", "the moving average agrees with p_err as connections come and go",
                 "good agreement (figure)", cell, verdict))
    cell, verdict = _claim_improvement(r.table, p_errs, ONE_TS, TWO_TS)
    rows.append(("sensitivity: timestamps", "two ACKs improve the throughput for p_err > 0.05",
                 "yes", cell, verdict))
    cell, verdict = _claim_range(r.table, p_errs, (ONE_TS, TWO_TS, THREE_TS))
    rows.append(("sensitivity: timestamps", f"two ACKs best for {lo:g} < p_err < {hi:g}",
                 "analysis result", cell, verdict))
    return tuple(rows)


# -- tables -----------------------------------------------------------------------------------


def _throughput_rows(table: pd.DataFrame, p_errs: Sequence[float],
                     variants: Sequence[Any] = VARIANTS) -> tuple[tuple[str, ...], ...]:
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
            rows.append((f"{p:g}", v.label, f"{x['p_buff']:.4f}", f"{x['p_indication']:.4f}",
                         f"{x['fast_recoveries']:.0f}", f"{x['timeouts']:.0f}",
                         f"{x['retransmissions']:.0f}", f"{x['spurious_retx']:.0f}",
                         f"{x['rtt_s'] * 1e3:.1f}", f"{x['srtt_s'] * 1e3:.0f}"))
    return tuple(rows)


def _pftk_table_rows(pftk: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    rows = []
    for _, x in pftk.sort_values(["p_err", "copies"]).iterrows():
        rows.append((f"{x['p_err']:g}", str(int(x["copies"])), f"{x['p_buff']:.4f}",
                     f"{x['p_model']:.4f}", f"{x['p_indication']:.4f}",
                     f"{x['rtt_s'] * 1e3:.1f}", f"{x['t0_s']:.3f}",
                     _kbps(x["model_bps"]), _kbps(x["model_measured_p_bps"]),
                     _kbps(x["seed_params_bps"]),
                     _ci_kbps(x["goodput_bps"], x["goodput_half_bps"])))
    return tuple(rows)


def _seed_rows(model: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    return tuple((f"{x['p_err']:g}", _kbps(x["s1"]), _kbps(x["s2"]), _kbps(x["s3"]),
                  f"{x['ratio2']:.2f}", f"{x['ratio3']:.2f}", str(int(x["best"])))
                 for _, x in model.iterrows())


def _window_rows(traces: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    rows = []
    order = {v.label: i for i, v in enumerate(FIXED)}
    traces = traces.assign(order=traces["variant"].map(order))
    for _, x in traces.sort_values(["p_err", "order"]).iterrows():
        rows.append((f"{x['p_err']:g}", x["variant"], f"{x['mean_cwnd_bytes'] / 1e3:.2f}",
                     f"{x['mean_rtt_sample_s'] * 1e3:.0f}", f"{x['t0_s']:.3f}",
                     f"{x['rtt_gap_s']:.1f}"))
    return tuple(rows)


def _tracking_rows(r: Results) -> tuple[tuple[str, ...], ...]:
    rows = []
    for (_, run), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        p = float(run["p_err"])
        for _, x in tracking_periods(tcp, p, r.plan.period_s).iterrows():
            spread = ("n/a" if math.isnan(x["mean"]) else
                      f"{x['mean']:.4f} [{x['min']:.4f}, {x['max']:.4f}]")
            rows.append((f"{p:g}", str(int(run["run"])), str(int(x["period"])),
                         str(int(x["scheduled"])), str(int(x["delivering"])),
                         str(int(x["updates"])), spread, f"{x['expected']:.4f}"))
    return tuple(rows)


def _first_update_rows(r: Results) -> tuple[tuple[str, ...], ...]:
    rows = []
    for (_, run), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        if int(run["run"]) != 0:
            continue
        for _, x in first_updates(tcp, r.plan.period_s).iterrows():
            rows.append((f"{run['p_err']:g}", x["flow"], f"{x['start_s']:g}",
                         f"{x['first_update_after_s']:.2f}", str(int(x["updates"])),
                         f"{x['first']:.4f}", f"{x['second_half_mean']:.4f}"))
    return tuple(rows)


def _middlebox_rows(rows: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    out = []
    for p, g in rows.groupby("p_err"):
        s = g[g["variant"] == SNOOP]
        e = g[g["variant"] == ELN]
        out.append((f"{p:g}", f"{s['local_retransmissions'].mean():.0f}",
                    f"{s['dupacks_suppressed'].mean():.0f}", f"{s['queue_drops'].mean():.0f}",
                    f"{e['acks_marked'].mean():.0f}", f"{e['eln_recoveries'].mean():.0f}",
                    f"{e['eln_timeouts'].mean():.0f}"))
    return tuple(out)


# -- figures ----------------------------------------------------------------------------------


def _ratio_curves(model: pd.DataFrame, two: str, three: str) -> pd.DataFrame:
    return pd.concat([
        pd.DataFrame({"variant": two, "p_err": model["p_err"], "ratio": model["ratio2"]}),
        pd.DataFrame({"variant": three, "p_err": model["p_err"], "ratio": model["ratio3"]}),
    ])


def _figures(r: Results) -> tuple[list[Figure], list[Figure], list[Figure]]:
    """Goodput and ratios (seed's packets, then timestamps); the cwnd figure (none without
    its traces); the estimates, one figure per p_err."""
    main = r.table[r.table["variant"].isin([v.label for v in VARIANTS])]
    ts = r.table[r.table["variant"].isin([v.label for v in SENSITIVITY])]
    figs = [Figure(
        "throughput-vs-p_err.png",
        png_of(throughput_vs_p_err(
            main, capacity_bps=PAYLOAD_CAPACITY_BPS,
            title="Goodput against p_err: ACK copies, Snoop, ELN (mean, 95 % CI)")),
        "Goodput against the radio loss probability (both directions), mean and 95 % "
        "confidence interval over the replications; the seed's packets (40-byte ACKs).")]
    model = seed_analysis(r.plan.p_errs)
    figs.append(Figure(
        "ratio-vs-p_err.png",
        png_of(throughput_ratio_vs_p_err(
            r.table, baseline=ONE, variants=[ONE, TWO, THREE],
            model=_ratio_curves(model, TWO, THREE),
            title="Two and three ACKs relative to one: simulation and the seed's analysis")),
        "Goodput with two and three ACK copies relative to one copy: simulated (solid) and the "
        "seed's PFTK analysis at RTT 100 ms, T0 400 ms, p_buff 0.01 (dashed)."))
    figs.append(Figure(
        "throughput-vs-p_err-timestamps.png",
        png_of(throughput_vs_p_err(
            ts, capacity_bps=PAYLOAD_CAPACITY_BPS,
            title="Goodput against p_err with timestamps (mean, 95 % CI)")),
        "The same with the timestamps option: an RTT sample from every ACK."))
    figs.append(Figure(
        "ratio-vs-p_err-timestamps.png",
        png_of(throughput_ratio_vs_p_err(
            r.table, baseline=ONE_TS, variants=[ONE_TS, TWO_TS, THREE_TS],
            model=_ratio_curves(model, TWO_TS, THREE_TS),
            title="Two and three ACKs relative to one, timestamps: simulation and analysis")),
        "Relative goodput with timestamps (solid) and the seed's analysis (dashed)."))
    p = r.plan.window_p_err
    window, estimates = [], []
    cw = {v: r.cwnds[(v, p)] for v in (ONE, TWO) if (v, p) in r.cwnds}
    if cw:
        window.append(Figure(
            "cwnd.png",
            png_of(cwnd_over_time(cw, title=f"Congestion window at p_err = {p:g}")),
            f"The sender's congestion window with one and two ACK copies, p_err = {p:g} "
            "(run 0)."))
    for (_, run), tcp in zip(r.tracking.iterrows(), r.tracking_series, strict=True):
        if int(run["run"]) != 0:
            continue
        q = float(run["p_err"])
        estimates.append(Figure(
            f"estimate-p_err-{q:g}.png",
            png_of(loss_estimate_over_time(
                tcp, true_p_err=q, expected=expected_estimate(q), threshold=THRESHOLD,
                title=f"p_err estimates as connections come and go, true p_err = {q:g}")),
            f"The terminal's p_err estimate, one colour per connection that updated it, "
            f"against the true p_err = {q:g} and the formula's limit for a receiver that sees "
            "the downlink losses only; below, the connections delivering data (run 0)."))
    return figs, window, estimates


def _what_was_run(r: Results, options: Options) -> Bullets:
    from celltcp import _core

    plan = r.plan
    mode = "quick" if options.quick else "full"
    command = f"celltcp reproduce {NAME}{' --quick' if options.quick else ''}"
    phases = ", ".join(f"{k} {v:.1f} s" for k, v in r.phases_s.items())
    return Bullets((
        f"celltcp {_core.__version__}, `{command}` ({mode} mode)",
        ("scenario files `examples/004/ack-copies.toml` (wired terminal —10 Mb/s— base station "
         "—384 kb/s radio, p_err both ways— wireless terminal; 1 ms links; 100-byte segments, "
         "40-byte ACKs, 50 KB buffers; Reno without SACK, every segment acknowledged) and "
         "`examples/004/tracking.toml` (the same path, 1–5–1 connections); docs/seed-004.md "
         "gives the choices the seed leaves open"),
        (f"master seed {MASTER_SEED}; throughput: {len(plan.p_errs)} p_err values × "
         f"{len(VARIANTS) + len(SENSITIVITY)} variants ({len(SENSITIVITY)} of them with "
         f"timestamps) × {plan.runs} runs of {plan.duration_s:g} s"),
        (f"traces (cwnd, RTT samples, RTO): run 0 of one, two and three ACKs at every p_err, "
         f"{plan.trace_duration_s:g} s"),
        (f"estimator: p_err {_list(plan.tracking_p_errs)} × {plan.tracking_runs} runs, periods "
         f"of {plan.period_s:g} s"),
        f"results store: `{options.store}`" if options.store else "results store: temporary",
        f"wall time of the runs: {r.wall_s:.1f} s ({phases})",
    ))


def report(results: Results, options: Options) -> Document:
    """The report of one reproduction's results."""
    r = results
    p_errs = r.plan.p_errs
    seed_model = seed_analysis(p_errs)
    need2 = crossover_p_buff(SEED_TWO_BEST[0], 1, 2, SEED_P_BUFF)
    need3 = crossover_p_buff(SEED_TWO_BEST[1], 2, 3, need2)
    doc = Document(f"Reproduction {NAME}: multiple ACKs on a lossy radio link (seed `004_…`)")
    figs, window, estimates = _figures(r)
    doc.add(
        Heading("What was run"),
        _what_was_run(r, options),
        Heading("The seed beside celltcp"),
        Table(("where", "claim", "seed", "celltcp", "verdict"), _claims(r)),
        Heading("Goodput against p_err"),
        Paragraph(
            "Goodput in kb/s (payload), mean ± 95 % CI over the runs. Two and three ACKs send "
            "every ACK that many times; the adaptive variant sends two while the receiver's "
            f"estimate is at or above {THRESHOLD:g}; Snoop and ELN run at the base station with "
            f"one ACK. The link carries {PAYLOAD_CAPACITY_BPS / 1e3:.1f} kb/s of payload at most."),
        Table(("p_err", *(v.label for v in VARIANTS)), _throughput_rows(r.table, p_errs)),
        figs[0],
        Heading("Loss indications, spurious retransmissions, RTT"),
        Paragraph(
            "Per run (means): p_buff, the base station queue's drop ratio; indications, fast "
            "recoveries plus timeouts per segment sent (the p of PFTK as the sender saw it); "
            "spurious, the sender's retransmissions beyond the data packets lost; RTT, the "
            "mean one-way delay of the data plus an ACK's way back; final SRTT, the sender's "
            "smoothed RTT at the end of the run."),
        Table(("p_err", "variant", "p_buff", "indications", "fast rec.", "timeouts", "retx",
               "spurious", "RTT ms", "final SRTT ms"), _loss_rows(r.table, p_errs)),
        Heading("The PFTK analysis"),
        Paragraph(
            f"The seed's S_TCP (PFTK eq. 32, every segment acknowledged, 100-byte segments) at its "
            f"parameters RTT {SEED_RTT_S * 1e3:g} ms, T0 {SEED_T0_S * 1e3:g} ms, p_buff "
            f"{SEED_P_BUFF:g} for every n. With one p_buff, p(n) falls with n and the formula "
            "ranks more copies higher at every p_err; the seed's range needs a buffer loss that "
            f"grows with the copies: p_buff(2) = {need2:.3f} for two to overtake one at "
            f"p_err = {SEED_TWO_BEST[0]:g}, p_buff(3) = {need3:.3f} for three to overtake two at "
            f"{SEED_TWO_BEST[1]:g}."),
        Table(("p_err", "S(1) kb/s", "S(2) kb/s", "S(3) kb/s", "S(2)/S(1)", "S(3)/S(1)",
               "best n"), _seed_rows(seed_model)),
        figs[1],
        Paragraph(
            "The same formula at the simulated path: p(n) from p_err and the measured p_buff(n), "
            "the RTT as above, T0 the sender's mean RTO at its RTT samples (traced run); beside "
            "it the formula at the indication rate the sender really saw, at the seed's "
            "parameters, and the simulated goodput (kb/s)."),
        Table(("p_err", "n", "p_buff(n)", "p(n)", "p seen", "RTT ms", "T0 s", "S at p(n)",
               "S at p seen", "S, seed's RTT/T0", "simulated"), _pftk_table_rows(r.pftk)),
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
            "152-byte data packets), goodput in kb/s:"),
        Table(("p_err", *(v.label for v in SENSITIVITY)),
              _throughput_rows(r.table, p_errs, SENSITIVITY)),
        figs[2],
        figs[3],
        Heading("Window size"),
        Table(("p_err", "variant", "mean cwnd kB", "mean RTT sample ms", "T0 s",
               "longest without RTT sample s"), _window_rows(r.traces)),
        *window,
        Heading("Snoop and ELN at the base station"),
        Table(("p_err", "Snoop local retx", "Snoop dupacks suppressed", "queue drops (Snoop)",
               "ELN ACKs marked", "ELN recoveries", "ELN timeouts"), _middlebox_rows(r.rows)),
        Heading("The p_err estimator as connections come and go"),
        Paragraph(
            "The wireless terminal keeps one estimate for all its connections, as the seed "
            "monitors p at the terminal: every receiver counts the gaps in its own connection "
            "and feeds the terminal's update windows (32 segments over all connections, gain "
            "1/8, p_buff 0.01), and each update is traced by the connection whose segment "
            "closed the window. Per period: the connections scheduled and those that delivered "
            "data, the updates and their mean [min, max], and the formula's limit "
            "1 − sqrt((1 − p_err)/(1 − p_buff)) for a receiver that sees the downlink losses "
            "only. Below, per connection: when it first closed a window, how many it closed, "
            "the estimate it first traced (the terminal's, one update on) and its mean over "
            "its second half."),
        Table(("p_err", "run", "period", "scheduled", "delivering", "updates",
               "estimate mean [min, max]", "limit"), _tracking_rows(r)),
        Table(("p_err", "connection", "start s", "first estimate after s", "updates",
               "first estimate", "mean, second half"), _first_update_rows(r)),
        *estimates,
    )
    return doc
