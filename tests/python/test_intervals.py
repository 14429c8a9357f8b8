"""celltcp.intervals and the figures drawn from it (``celltcp plot cell`` / ``link``): the
per-interval figures of the ``cells`` and ``queue`` series checked against the run's own
summary and against each other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import celltcp
from celltcp import plots
from celltcp.cli import main
from celltcp.intervals import IntervalError, cell_intervals, link_intervals

EXAMPLE = Path(__file__).resolve().parents[2] / "python/celltcp/examples" / "lte-single-cell.toml"

#: A bulk TCP download over RED with ECN on the Internet link, made the bottleneck (5 Mb/s),
#: so that the link marks (ECN-capable flow) and, early in slow start, drops.
RED = (
    '{ kind = "red", limit = "200p", min_th = "5p", max_th = "15p", max_p = 0.1, '
    "w_q = 0.02, ecn = true }"
)


@pytest.fixture(scope="module")
def lte_run() -> celltcp.RunResult:
    sc = celltcp.Scenario.load(EXAMPLE)
    sc.set("simulation.duration", "2s")
    sc.set("trace.cells", ["cell1"])
    sc.set("trace.queues", ["internet"])
    sc.set("trace.interval", "100ms")
    return celltcp.run(sc)


@pytest.fixture(scope="module")
def red_run() -> celltcp.RunResult:
    sc = celltcp.Scenario.load(EXAMPLE)
    sc.set("simulation.duration", "4s")
    sc.set("links.internet.rate", "5Mbps")
    sc.set("links.internet.queue", celltcp.Scenario.from_toml(f"q = {RED}").get("q"))
    sc.set("flows.near.tcp.ecn", True)
    sc.set("flows.far.tcp.ecn", False)
    sc.set("trace.queues", ["internet"])
    sc.set("trace.interval", "250ms")
    return celltcp.run(sc)


def test_cell_intervals_add_up_and_agree_with_the_summary(lte_run):
    rows = cell_intervals(lte_run)
    assert set(rows["ue"]) == {"ue_near", "ue_far"}
    # 20 intervals of 0.1 s per UE, each ending at a sample.
    assert (rows.groupby("ue").size() == 20).all()
    assert np.allclose(rows["interval_s"], 0.1)
    ues = lte_run.summary["cells"]["cell1"]["ues"]
    for ue, mine in rows.groupby("ue"):
        s = ues[ue]
        # The rates integrate to the run's totals: the last sample is at 2 s, after every
        # event of that instant (its TTI included), as the summary is (docs/scenarios.md).
        delivered = (mine["rlc_throughput_bps"] * mine["interval_s"]).sum() / 8
        total = s["rlc_throughput_bps"] * 2.0 / 8
        assert delivered == pytest.approx(total, rel=1e-12), (ue, delivered, total)
        assert mine["sdus_delivered"].sum() == s["sdus_delivered"]
        # Means: the SDU-weighted interval delays give the run's mean delay; SINR is constant
        # for a static UE without fading, so every active interval shows the run's mean.
        weighted = (
            np.nansum(mine["queueing_delay_s"] * mine["sdus_delivered"])
            / mine["sdus_delivered"].sum()
        )
        assert weighted == pytest.approx(s["queueing_delay_mean_s"], rel=0.02)
        active = mine["sinr_db"].dropna()
        assert len(active) >= 18
        assert np.allclose(active, s["sinr_mean_db"], atol=1e-9)
        assert mine["mcs"].dropna().between(0, 28).all()
    # PRB shares of the two UEs add up to 1 wherever the cell used PRBs, and the cell's
    # utilisation is its PRBs over 100 ms × 50 PRBs (10 MHz).
    by_time = rows.groupby("time_s")
    shares = by_time["prb_share"].sum()
    used = by_time["cell_prb_utilization"].first()
    assert np.allclose(shares[used > 0], 1.0)
    assert used.between(0, 1 + 1e-12).all()
    assert used.iloc[-5:].min() > 0.95, "two bulk downloads fill the cell"


def test_link_intervals_count_the_marks_and_drops_of_each_interval(red_run):
    rows = link_intervals(red_run, "internet")
    down = rows[rows["direction"] == "a_to_b"]
    assert len(down) == 16
    link = red_run.summary["links"]["internet"]["a_to_b"]
    marks, drops = down["ecn_marks"].sum(), (down["drops_queue_full"] + down["drops_aqm"]).sum()
    print(f"marks per interval {down['ecn_marks'].tolist()}; drops {drops}")
    assert 0 < marks <= link["ecn_marks"]
    assert marks == link["ecn_marks"]
    assert drops == link["drops"]["aqm"] + link["drops"]["queue_full"]
    assert (down["ecn_marks"] > 0).sum() >= 8, "marks all along the run"
    # The bottleneck runs near its rate once both flows are up.
    assert down["throughput_bps"].iloc[4:].mean() == pytest.approx(5e6, rel=0.05)


def test_unknown_names_and_missing_series_are_errors_that_say_what_to_do(lte_run, red_run):
    with pytest.raises(IntervalError, match=r"cell 'nope' is not in the series \(have: cell1\)"):
        cell_intervals(lte_run, "nope")
    with pytest.raises(IntervalError, match=r"series 'cells' is not in the result.*\[trace\]"):
        cell_intervals(red_run)
    with pytest.raises(IntervalError, match="link 'x' is not in the series"):
        link_intervals(red_run, "x")
    with pytest.raises(IntervalError, match="expected a RunResult"):
        cell_intervals(42)


def test_the_cell_timeline_draws_the_intervals(lte_run):
    rows = cell_intervals(lte_run)
    fig = plots.cell_timeline(lte_run, ues=["ue_far"])
    axes = fig.axes
    (line,) = axes[0].lines
    far = rows[rows["ue"] == "ue_far"]
    assert np.allclose(line.get_xdata(), far["time_s"])
    assert np.allclose(line.get_ydata(), far["rlc_throughput_bps"] / 1e6)
    (sinr,) = axes[3].lines
    assert np.allclose(sinr.get_ydata(), far["sinr_db"], equal_nan=True)
    (prb,) = axes[4].lines
    assert prb.get_ydata().max() <= 1.0 + 1e-12
    with pytest.raises(plots.PlotError, match="UE 'ue_x' is not in cell 'cell1'"):
        plots.cell_timeline(lte_run, ues=["ue_x"])


def test_the_link_timeline_draws_only_the_causes_that_occurred(red_run):
    fig = plots.link_timeline(red_run, "internet")
    labels = [line.get_label() for line in fig.axes[2].lines]
    assert "ECN marks" in labels
    assert "dropped: outage" not in labels and "dropped: handover" not in labels
    rows = link_intervals(red_run, "internet")
    down = rows[rows["direction"] == "a_to_b"]
    marks = fig.axes[2].lines[labels.index("ECN marks")]
    assert np.array_equal(marks.get_ydata(), down["ecn_marks"].to_numpy(dtype=float))
    with pytest.raises(plots.PlotError, match="direction"):
        plots.link_timeline(red_run, "internet", "sideways")


def test_plot_cell_and_link_from_the_command_line(lte_run, tmp_path, capsys):
    out = lte_run.write(tmp_path / "run")
    assert main(["plot", "cell", "--result", str(out), "--quiet"]) == 0
    assert (out / "cell.png").stat().st_size > 0
    assert (
        main(
            [
                "plot",
                "link",
                "--result",
                str(out),
                "--link",
                "internet",
                "--out",
                str(tmp_path / "l.svg"),
                "--quiet",
            ]
        )
        == 0
    )
    assert (tmp_path / "l.svg").read_text().startswith("<?xml")
    assert main(["plot", "link", "--result", str(out)]) == 2
    assert "--link L is required" in capsys.readouterr().err
    assert main(["plot", "cell", "--result", str(out), "--cell", "c9"]) == 2
    assert "cell 'c9' is not in series 'cells' (have: cell1)" in capsys.readouterr().err


def test_receive_errors_at_the_ue_are_counted_per_interval():
    sc = celltcp.Scenario.load(EXAMPLE)
    sc.set("simulation.duration", "2s")
    sc.set("cells.cell1.ues.ue_far.downlink_loss", {"kind": "bernoulli", "p": 0.05})
    sc.set("trace.cells", ["cell1"])
    sc.set("trace.interval", "200ms")
    result = celltcp.run(sc)
    rows = cell_intervals(result)
    far, near = rows[rows["ue"] == "ue_far"], rows[rows["ue"] == "ue_near"]
    total = result.summary["cells"]["cell1"]["ues"]["ue_far"]["downlink_lost"]
    assert 0 < far["downlink_lost"].sum() <= total
    # About 5 % of what the far UE's RLC delivered.
    ratio = far["downlink_lost"].sum() / far["sdus_delivered"].sum()
    assert 0.02 < ratio < 0.08, ratio
    # A UE without a model has no such figure.
    assert near["downlink_lost"].isna().all()
