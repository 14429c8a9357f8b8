"""`celltcp reproduce 004`: the registry entry, the helpers against hand-computed values, the
figures' input checks, and the quick reproduction end to end (about 10 s on 2 cores)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from celltcp.cli import main
from celltcp.plots import PlotError
from celltcp.plots.ack_control import (
    cwnd_over_time,
    loss_estimate_over_time,
    throughput_ratio_vs_p_err,
    throughput_vs_p_err,
)
from celltcp.reproduce import find
from celltcp.reproduce import seed004 as s4
from celltcp.reproduce.seed004_report import seed_analysis


def test_name_and_alias_find_the_seed_004_reproduction(capsys):
    assert find("004") is find("004-ack-control")
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("004-ack-control (also 004): ") for line in out.splitlines())


def test_the_seed_packets_and_path():
    # 100-byte segments in 140-byte packets on 384 kb/s: 274.3 kb/s of payload.
    assert pytest.approx(384e3 * 100 / 140) == s4.PAYLOAD_CAPACITY_BPS
    # An ACK back: 2 × 1 ms + 40 B at 384 kb/s (0.833 ms) + 40 B at 10 Mb/s (0.032 ms).
    assert pytest.approx(0.002 + 320 / 384e3 + 320 / 10e6) == s4.ACK_RETURN_S
    labels = [v.label for v in s4.VARIANTS + s4.SENSITIVITY]
    assert len(set(labels)) == len(labels) == 11
    assert [v.copies for v in s4.FIXED] == [1, 2, 3]


def test_tracking_schedule_gives_one_to_five_to_one_connections():
    overrides = s4.tracking_schedule(30.0)
    assert overrides["simulation.duration"] == "300s"
    spans = [
        (float(overrides[f"flows.{f}.start"][:-1]), float(overrides[f"flows.{f}.stop"][:-1]))
        for f in s4.TRACKING_FLOWS
    ]
    counts = [sum(lo <= t < hi for lo, hi in spans) for t in np.arange(15.0, 300.0, 30.0)]
    assert tuple(counts) == s4.CONNECTIONS == (1, 2, 3, 4, 5, 5, 4, 3, 2, 1)


def test_expected_estimate_of_the_seed_model_and_of_gaps_only():
    # The seed's model (gaps and repeats, both crossings at p_err, no buffer loss):
    # 1 − (1 − p_err)/sqrt(1 − p_buff), p_err less p_buff's share.
    assert s4.expected_estimate(0.1) == pytest.approx(1 - 0.9 / math.sqrt(0.99))
    assert s4.expected_estimate(0.1) == pytest.approx(0.09547, abs=1e-5)
    # Gaps only: 1 − sqrt((1 − 0.1)/(1 − 0.01)) = 0.04653, about half the true 0.1.
    assert s4.gaps_only_estimate(0.1) == pytest.approx(1 - math.sqrt(0.9 / 0.99))
    assert s4.gaps_only_estimate(0.1) == pytest.approx(0.04653, abs=1e-5)
    assert s4.expected_estimate(0.0) == s4.gaps_only_estimate(0.0) == 0.0


def test_seed_analysis_ranks_more_copies_higher_with_one_p_buff():
    model = seed_analysis([0.0, 0.05, 0.2, 0.47])
    assert list(model["p_err"]) == [0.05, 0.2, 0.47]  # p_err = 0 has no PFTK throughput
    assert set(model["best"]) == {3}
    assert (model["ratio2"] > 1).all() and (model["ratio3"] > model["ratio2"]).all()


def _tracking_frame() -> pd.DataFrame:
    rows = []
    # c1 delivers 0–20 s with estimates 0.02 at 5 s and 0.04 at 15 s; c2 delivers 10–20 s.
    for flow, lo, hi in (("c1", 0.5, 19.0), ("c2", 10.5, 19.5)):
        rows += [(lo, flow, "delivered", 1.0), (hi, flow, "delivered", 2.0)]
    rows += [
        (5.0, "c1", "loss_estimate", 0.02),
        (15.0, "c1", "loss_estimate", 0.04),
        (16.0, "c2", "loss_estimate", 0.01),
    ]
    return pd.DataFrame(rows, columns=["time_s", "flow", "var", "value"])


def test_tracking_periods_and_first_updates_from_a_hand_made_trace():
    tcp = _tracking_frame()
    periods = s4.tracking_periods(tcp, 0.05, 10.0)
    assert list(periods["scheduled"]) == list(s4.CONNECTIONS)
    assert list(periods["delivering"][:3]) == [1, 2, 0]
    assert list(periods["updates"][:2]) == [1, 2]
    assert periods["mean"].iloc[1] == pytest.approx(0.025)
    assert periods["min"].iloc[1] == 0.01 and periods["max"].iloc[1] == 0.04
    assert math.isnan(periods["mean"].iloc[2])
    first = s4.first_updates(tcp, 10.0).set_index("flow")
    assert first.loc["c1", "first_update_after_s"] == 5.0
    assert first.loc["c2", "first_update_after_s"] == 6.0  # c2 is scheduled at 10 s
    assert first.loc["c1", "updates"] == 2 and first.loc["c3", "updates"] == 0


def test_longest_gap_without_an_rtt_sample():
    # Samples at 1, 2 and 7 s of a 10 s run: the longest gap is 2 → 7.
    assert s4.longest_gap_s(np.array([2.0, 1.0, 7.0]), 10.0) == 5.0
    # After the last sample, and a run without any.
    assert s4.longest_gap_s(np.array([0.5]), 10.0) == 9.5
    assert s4.longest_gap_s(np.array([]), 60.0) == 60.0


def test_throughput_table_means_and_loss_figures():
    base = {
        "variant": "one ACK",
        "p_err": 0.1,
        "delay_mean_s": 0.01,
        "segments_sent": 100.0,
        "retransmissions": 25.0,
        "fast_recoveries": 4.0,
        "timeouts": 1.0,
        "radio_packets_down": 90.0,
        "queue_drops": 10.0,
        "radio_losses_down": 8.0,
        "sender_queue_drops": 0.0,
        "radio_losses_up": 9.0,
        "max_cwnd_bytes": 1e3,
        "srtt_s": 0.02,
        "ack_copies_sent": 0.0,
    }
    rows = pd.DataFrame([{**base, "goodput_bps": 1000.0}, {**base, "goodput_bps": 3000.0}])
    t = s4.throughput_table(rows).iloc[0]
    assert t["goodput_bps"] == 2000.0 and t["runs"] == 2
    # Student t (1 degree of freedom) 12.706 × s/√n = 12.706 × 1414.2/√2.
    assert t["goodput_half_bps"] == pytest.approx(12.706 * 1000.0, rel=1e-3)
    assert t["p_buff"] == pytest.approx(10 / 100)
    assert t["p_indication"] == pytest.approx(5 / 100)
    assert t["spurious_retx"] == 25 - 8 - 10  # beyond the radio and queue losses
    fewer = s4.throughput_table(rows.assign(retransmissions=5.0)).iloc[0]
    assert fewer["spurious_retx"] == 0.0  # never negative
    assert t["rtt_s"] == pytest.approx(0.01 + s4.ACK_RETURN_S)


def test_the_figures_check_their_input():
    table = pd.DataFrame(
        {
            "variant": ["a", "a", "b", "b"],
            "p_err": [0.1, 0.2, 0.1, 0.2],
            "goodput_bps": [2e3, 1e3, 4e3, 3e3],
        }
    )
    throughput_vs_p_err(table, capacity_bps=5e3)
    throughput_ratio_vs_p_err(
        table, baseline="a", model=pd.DataFrame({"variant": ["b"], "p_err": [0.1], "ratio": [2.0]})
    )
    cwnd_over_time({"one": pd.DataFrame({"time_s": [0.0, 1.0], "value": [100.0, 200.0]})})
    loss_estimate_over_time(_tracking_frame(), true_p_err=0.05, expected=0.02, threshold=0.1)
    with pytest.raises(PlotError, match="missing column"):
        throughput_vs_p_err(table.drop(columns="goodput_bps"))
    with pytest.raises(PlotError, match="baseline 'c'"):
        throughput_ratio_vs_p_err(table, baseline="c")
    with pytest.raises(PlotError, match=r"variants \['z'\]"):
        throughput_vs_p_err(table, variants=["z"])
    with pytest.raises(PlotError, match="loss_estimate"):
        loss_estimate_over_time(_tracking_frame().query("var == 'delivered'"), true_p_err=0.1)
    with pytest.raises(PlotError, match="at least one"):
        cwnd_over_time({})


def test_quick_reproduction_writes_the_report(tmp_path):
    out = tmp_path / "rep"
    assert main(["reproduce", "004", "--quick", "--out", str(out), "--workers", "2"]) == 0
    assert (tmp_path / "rep.runs" / "results.duckdb").is_file()
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    assert "celltcp/examples/004/ack-copies.toml" in md and "(quick mode)" in md
    # One verdict per claim, computed from the runs.
    claims = [
        line
        for line in md.splitlines()
        if re.match(r"\| (simulation|proposed method|analysis|estimation|sensitivity)", line)
    ]
    assert len(claims) == 9
    verdict = re.compile(r"\| \*\*(reproduced|not significant|contradicted)\*\*")
    assert all(verdict.search(c) for c in claims)
    assert all(re.search(r"p (=|<) [0-9.]+|p n/a", c) and "power" in c for c in claims)
    # The window rests on one traced run per p_err: never more than not significant.
    window = next(c for c in claims if c.startswith("| simulation (window figure)"))
    assert "| **not significant**" in window and "one run; the point estimate" in window
    # The estimator is compared with the seed's agreement (estimate / p_err = 1).
    estimation = next(c for c in claims if c.startswith("| estimation"))
    assert "| good agreement (figure): 1 |" in estimation and "magnitude off ×" in estimation
    # The seed's analysis and the formula's requirement on p_buff(n).
    assert "p_buff(2) = 0.100" in md and "p_buff(3) = 0.218" in md
    # Every variant at every p_err of the quick grid.
    goodput = md.split("## Goodput against p_err")[1].split("## ")[0]
    assert len([r for r in goodput.splitlines() if re.match(r"\| 0", r)]) == len(s4.QUICK.p_errs)
    # The estimator settles near the value of the gaps alone, well below the true p_err and
    # the seed's model: on this path cumulative ACKs hide nearly every lost ACK.
    row = next(c for c in claims if c.startswith("| estimation"))
    found = re.findall(
        r"mean estimate ([\d.]+) .*?; the seed's model ([\d.]+), gaps only "
        r"([\d.]+)",
        row,
    )
    estimate, model, limit = (float(x) for x in found[0])
    assert model == pytest.approx(s4.expected_estimate(0.05), abs=1e-4)
    assert limit == pytest.approx(s4.gaps_only_estimate(0.05), abs=1e-4)
    assert 0.5 * limit < estimate < 1.5 * limit < 0.05
    # The adaptive switch is judged with the seed's packets and with timestamps.
    adaptive = [c for c in claims if "copies sent when the estimate exceeds" in c]
    assert len(adaptive) == 2
    # The receivers share the terminal's estimate: a connection opening later traces the
    # terminal's value from its first update on. A private estimate would start from 0, and
    # one update at an observed p ≈ 0.05 gives p = 0.05/8 < p_buff, hence p_err = 0.
    firsts = md.split("| p_err | connection |")[1].split("\n\n")[0]
    later = [r.split(" | ") for r in firsts.splitlines() if re.match(r"\| 0\.05 \| c[2-5] ", r)]
    assert len(later) == 4
    assert all(float(cells[5]) > 0.4 * limit for cells in later), later
    assert "longest without RTT sample s" in md
    names = (
        "throughput-vs-p_err.png",
        "ratio-vs-p_err.png",
        "throughput-vs-p_err-timestamps.png",
        "ratio-vs-p_err-timestamps.png",
        "cwnd.png",
        "estimate-p_err-0.05.png",
    )
    for name in names:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"({name})" in md
    assert page.count('src="data:image/png;base64,') == len(names)


def _adaptive_results(share):
    """Engine results holding runs of the adaptive variant on the full grid, 5 per p_err,
    with ``share(p, run)`` of the receiver's ACKs sent with a copy."""
    from celltcp.reproduce.seed004_report import ADAPTIVE, STUDY
    from celltcp.study import Results

    frame = pd.DataFrame(
        [
            {"point": i, "run": run, "links.radio.loss.p": p, "copied_share": share(p, run)}
            for i, p in enumerate(s4.FULL.p_errs)
            for run in range(5)
        ]
    )
    return Results(STUDY, quick=False, frames={f"004 {ADAPTIVE}": frame})


def test_the_adaptive_switch_is_judged_at_every_p_err():
    """From the p_err at which the seed's model reaches the threshold (0.105) the switch must
    be on for most ACKs, below it off; a p_err where it fails counts against the claim."""
    from celltcp.reproduce.seed004_report import STUDY, _threshold_p_err
    from celltcp.reproduce.verdict import Verdict

    claim = next(c for c in STUDY.claims if c.key == "switch")

    threshold = _threshold_p_err()
    assert threshold == pytest.approx(0.1045, abs=1e-4)

    def judged(share):
        return claim.test.evaluate(_adaptive_results(share)).decision

    def ideal(p, run):
        return (0.9 if p >= threshold else 0.0) + 0.01 * run

    d = judged(ideal)
    assert d.verdict is Verdict.REPRODUCED and len(d.parts) == len(s4.FULL.p_errs)
    # The switch does not engage at the largest p_err: contradicted there, and the claim.
    d = judged(lambda p, run: 0.0 if p >= 0.4 else ideal(p, run))
    assert d.verdict is Verdict.CONTRADICTED
    assert "0.4 (on) contradicted" in d.text() and "0.5 (on) contradicted" in d.text()
    # It engages at p_err = 0, below the threshold: contradicted too.
    d = judged(lambda p, run: 0.8 + 0.01 * run if p == 0 else ideal(p, run))
    assert d.verdict is Verdict.CONTRADICTED and "0 (off) contradicted" in d.text()
    # On for about half of the ACKs at one p_err: not significant.
    d = judged(lambda p, run: 0.5 + 0.02 * (run - 2) if p == 0.15 else ideal(p, run))
    assert d.verdict is Verdict.NOT_SIGNIFICANT
