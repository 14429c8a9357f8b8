"""``celltcp plot KIND``: every kind drawn from real data (small sweeps and runs made here, or the
models), the values it plots checked against the data asked for, its output file, and its errors.

Figures are inspected through :func:`celltcp.plot_cli.draw_figure` on the parsed command line;
files and exit statuses through :func:`celltcp.cli.main` (in this process) and a few through the
installed command (a subprocess).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import BarContainer

import celltcp
from celltcp.cli import main
from celltcp.models import buffer_overrun_probability, handover_recovery_time_s
from celltcp.plot_cli import add_plot_command, default_output, draw_figure
from celltcp.scenario import Scenario
from celltcp.sweep import Store, t_quantile, wilson_interval

#: A bulk NewReno download over a 10 Mb/s access link (the testbed of seed 002: RTT about
#: 50 ms), random losses on the access link so that replications differ, and one link handover
#: at 3 s that interrupts the downlink for 100 ms. With ``forward`` the queue is kept (outcome
#: none, or halving after a random loss); with ``discard`` it is flushed (a timeout).
HANDOVER_TOML = """\
[simulation]
duration = "6s"
seed = 1

[nodes]
server = { kind = "host" }
bs = { kind = "router" }
ue = { kind = "host" }

[links.wire]
a = "server"
b = "bs"
rate = "1Gbps"
delay = "23.373ms"
queue = { kind = "droptail", limit = "10000p" }

[links.access]
a = "bs"
b = "ue"
rate = "10Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "62500B" }

[links.access.a_to_b]
loss = { kind = "bernoulli", p = 0.001 }

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "newreno"
app = { kind = "bulk" }

[flows.bulk.tcp]
mss = "1448B"
delayed_ack = "40ms"
min_rto = "1s"

[[events]]
at = "3s"
link = "access"
direction = "a_to_b"
handover = { interruption = "100ms", policy = "forward" }
"""

RATES = ("5Mbps", "10Mbps", "20Mbps")
RATES_MBPS = (5.0, 10.0, 20.0)
LOSSES = (0.0005, 0.01)
RATE = "links.access.rate"
LOSS = "links.access.a_to_b.loss.p"
GOODPUT = "flows.bulk.goodput_bps"
OUTCOMES = ("timeout", "halving", "none")


def _discard_toml() -> str:
    return (
        HANDOVER_TOML.replace('policy = "forward"', 'policy = "discard"')
        .replace('duration = "6s"', 'duration = "12s"')
        .replace('at = "3s"', 'at = "5s"')
    )


def _sweep(store: Path, toml: str, grid: dict, runs: int, series: bool) -> pd.DataFrame:
    spec = {
        "scenario": Scenario.from_toml(toml),
        "name": store.name,
        "seed": 1,
        "runs": runs,
        "metrics": [GOODPUT, "handovers.outcomes.*", "stop_reason"],
        "grid": grid,
    }
    if series:
        spec["series"] = ["handovers"]
    return celltcp.sweep(spec, store=store, workers=2)


@pytest.fixture(scope="module")
def forward(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """A store of 3 rates x 2 loss rates x 5 runs of the forward handover, handovers kept."""
    store = tmp_path_factory.mktemp("plotcli") / "forward"
    frame = _sweep(store, HANDOVER_TOML, {RATE: list(RATES), LOSS: list(LOSSES)}, 5, True)
    assert (frame["status"] == "ok").all()
    return store, frame


@pytest.fixture(scope="module")
def counts_only(tmp_path_factory) -> Path:
    """The same sweep, keeping the outcome counts per run but not the handovers series."""
    store = tmp_path_factory.mktemp("plotcli") / "counts"
    _sweep(store, HANDOVER_TOML, {RATE: list(RATES), LOSS: list(LOSSES)}, 5, False)
    return store


@pytest.fixture(scope="module")
def discard(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """Handovers without buffer transfer that time out, at three rates, 3 runs each."""
    store = tmp_path_factory.mktemp("plotcli") / "discard"
    frame = _sweep(store, _discard_toml(), {RATE: list(RATES), LOSS: [0.0002]}, 3, True)
    return store, frame


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """One run of the discard handover with the sender's cwnd and RTT traced."""
    result = celltcp.run(
        Scenario.from_toml(_discard_toml()), set=["trace.tcp=['cwnd','srtt','rtt','retx_rto']"]
    )
    return result.write(tmp_path_factory.mktemp("plotcli") / "run")


def _args(*argv: str | Path) -> argparse.Namespace:
    """``celltcp plot ...`` parsed as the command parses it."""
    parser = argparse.ArgumentParser(prog="celltcp")
    add_plot_command(parser.add_subparsers(dest="command", required=True), ValueError)
    return parser.parse_args(["plot", *map(str, argv)])


def _draw(*argv: str | Path):
    return draw_figure(_args(*argv))


def _handover_rows(store: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """Every run's handovers series, read back here independently of celltcp.plots."""
    parts = []
    with Store.open(store, read_only=True) as db:
        for _, run in frame.iterrows():
            table = db.read_series(run["key"], int(run["run"]), "handovers")
            parts.append(table.assign(rate=run[RATE], loss=run[LOSS]))
    return pd.concat(parts, ignore_index=True)


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95 % Student-t interval, computed here."""
    n = len(values)
    mean = float(np.mean(values))
    half = t_quantile(0.975, n - 1) * float(np.std(values, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def _bar_extents(container) -> list[tuple[float, float]]:
    """(low, high) of each error bar of a bar or errorbar container."""
    errorbar = container.errorbar if isinstance(container, BarContainer) else container
    return [(float(s[0][1]), float(s[1][1])) for s in errorbar.lines[2][0].get_segments()]


def _bars(ax) -> list[BarContainer]:
    return [c for c in ax.containers if isinstance(c, BarContainer)]


# -- metric ---------------------------------------------------------------------------------------


def test_metric_draws_store_means_and_t_intervals_per_rate(forward):
    store, frame = forward
    fig = _draw("metric", "--store", store, "--metric", GOODPUT, "--x", RATE, "--by", LOSS)
    (ax,) = fig.axes
    # Rates written with a unit are drawn at their number, in order, not as text.
    assert ax.get_xlabel() == f"{RATE} (Mbps)"
    assert ax.get_ylabel() == "flows.bulk.goodput (Mbit/s)"
    assert [c.get_label() for c in ax.containers] == [f"{LOSS} = {p}" for p in LOSSES]
    for container, loss in zip(ax.containers, LOSSES, strict=True):
        line = container.lines[0]
        np.testing.assert_allclose(line.get_xdata(), RATES_MBPS)
        for rate, y, (low, high) in zip(
            RATES, line.get_ydata(), _bar_extents(container), strict=True
        ):
            runs = frame[(frame[RATE] == rate) & (frame[LOSS] == loss)][GOODPUT].to_numpy()
            assert len(runs) == 5
            mean, lo, hi = _interval(runs / 1e6)
            assert y == pytest.approx(mean) and (low, high) == pytest.approx((lo, hi))
    # More random loss, less goodput, at every rate.
    assert all(
        a > b
        for a, b in zip(
            ax.containers[0].lines[0].get_ydata(),
            ax.containers[1].lines[0].get_ydata(),
            strict=True,
        )
    )


def test_metric_where_selects_and_axis_scale_options(forward):
    store, frame = forward
    fig = _draw(
        "metric",
        "--store",
        store,
        "--metric",
        GOODPUT,
        "--x",
        RATE,
        "--where",
        f"{LOSS}=0.01",
        "--log-x",
    )
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and len(ax.containers) == 1
    expected = frame[frame[LOSS] == 0.01].groupby(RATE, sort=False)[GOODPUT].mean()
    np.testing.assert_allclose(
        ax.containers[0].lines[0].get_ydata(), [expected[r] / 1e6 for r in RATES]
    )
    # A quantity in another unit selects the same runs.
    again = _draw(
        "metric",
        "--store",
        store,
        "--metric",
        GOODPUT,
        "--x",
        LOSS,
        "--where",
        f"{RATE}=10000kbps",
        "--linear-x",
    )
    ax = again.axes[0]
    assert ax.get_xscale() == "linear"
    np.testing.assert_allclose(ax.containers[0].lines[0].get_xdata(), LOSSES)


# -- outcomes -------------------------------------------------------------------------------------


def _outcome_bars(fig) -> dict[str, list[tuple[float, float, float]]]:
    """Legend label → (p, low, high) per outcome class, as drawn."""
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == list(OUTCOMES)
    out = {}
    for container in _bars(ax):
        heights = [p.get_height() for p in container.patches]
        extents = _bar_extents(container)
        out[container.get_label()] = [
            (h, lo, hi) for h, (lo, hi) in zip(heights, extents, strict=True)
        ]
    return out


def test_outcomes_are_the_handover_classes_with_wilson_intervals(forward):
    store, frame = forward
    rows = _handover_rows(store, frame)
    drawn = _outcome_bars(_draw("outcomes", "--store", store))
    assert len(drawn) == len(RATES) * len(LOSSES)
    for rate in RATES:
        for loss in LOSSES:
            point = rows[(rows["rate"] == rate) & (rows["loss"] == loss)]
            bars = drawn[f"{RATE} = {rate}, {LOSS} = {loss}"]
            for outcome, (p, low, high) in zip(OUTCOMES, bars, strict=True):
                k, n = int((point["outcome"] == outcome).sum()), len(point)
                assert n == 5
                assert p == pytest.approx(k / n)
                assert (low, high) == pytest.approx(wilson_interval(k, n))
    # The forward policy keeps the queue: no handover times out, and both other classes occur.
    assert all(bars[0][0] == 0.0 for bars in drawn.values())
    assert any(bars[1][0] > 0 for bars in drawn.values())
    assert any(bars[2][0] > 0 for bars in drawn.values())


def test_outcomes_from_the_counts_equal_those_from_the_series(forward, counts_only):
    store, _ = forward
    assert _outcome_bars(_draw("outcomes", "--store", counts_only)) == _outcome_bars(
        _draw("outcomes", "--store", store)
    )


def test_outcomes_of_a_categorical_metric_and_of_one_flow(forward):
    store, _ = forward
    (ax,) = _draw("outcomes", "--store", store, "--metric", "stop_reason").axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["duration"]
    assert [p.get_height() for p in ax.patches] == [1.0] * 6
    flow = _outcome_bars(
        _draw("outcomes", "--store", store, "--flow", "bulk", "--where", f"{RATE}=5Mbps")
    )
    assert len(flow) == len(LOSSES)


# -- delivered ------------------------------------------------------------------------------------


def test_delivered_bars_are_the_mean_delivered_kilobytes(forward):
    store, frame = forward
    rows = _handover_rows(store, frame)
    fig = _draw("delivered", "--store", store, "--x", RATE, "--by", LOSS)
    (ax,) = fig.axes
    assert ax.get_xlabel() == RATE
    assert [t.get_text() for t in ax.get_xticklabels()] == list(RATES)
    assert [c.get_label() for c in _bars(ax)] == [f"{LOSS} = {p}" for p in LOSSES]
    for container, loss in zip(_bars(ax), LOSSES, strict=True):
        for patch, rate, (low, high) in zip(
            container.patches, RATES, _bar_extents(container), strict=True
        ):
            values = rows[(rows["rate"] == rate) & (rows["loss"] == loss)]["delivered_bytes"]
            mean, lo, hi = _interval(values.to_numpy(dtype=float) / 1e3)
            assert patch.get_height() == pytest.approx(mean) and mean > 0
            assert (low, high) == pytest.approx((lo, hi))
    # Without --x: one bar per grid point, labelled by the values of both parameters.
    (ax,) = _draw("delivered", "--store", store).axes
    assert len(ax.patches) == len(RATES) * len(LOSSES)
    assert ax.get_xlabel() == f"{RATE} / {LOSS}"
    assert ax.get_xticklabels()[0].get_text() == "5Mbps\n0.0005"


# -- models ---------------------------------------------------------------------------------------


def test_recovery_time_draws_the_model_for_the_options_given():
    fig = _draw(
        "recovery-time",
        "--rtt",
        "10ms,50ms",
        "--rates",
        "1Mbps,10Mbps,100Mbps",
        "--case",
        "worst",
        "--fraction",
        "0.9",
        "--abc",
        "2",
        "--ack-every-segment",
    )
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["RTT 10 ms", "RTT 50 ms"]
    for line, rtt in zip(lines, (0.010, 0.050), strict=True):
        np.testing.assert_allclose(line.get_xdata(), [1.0, 10.0, 100.0])
        expected = [
            handover_recovery_time_s(
                r, rtt, 1500.0, case="worst", delayed_ack=False, abc_limit=2.0, target_fraction=0.9
            )
            for r in (1e6, 1e7, 1e8)
        ]
        np.testing.assert_allclose(line.get_ydata(), expected)
    (ax,) = _draw("recovery-time", "--rates", "2Mbps:50Mbps").axes
    x = ax.get_lines()[0].get_xdata()
    assert len(ax.get_lines()) == 3 and len(x) == 41
    assert (x[0], x[-1]) == pytest.approx((2.0, 50.0))


def test_recovery_time_overlays_the_simulated_ramp_times(discard):
    store, frame = discard
    rows = _handover_rows(store, frame)
    assert (rows["outcome"] == "timeout").all()
    fig = _draw("recovery-time", "--store", store, "--rtt", "20ms,50ms", "--fraction", "0.9")
    (ax,) = fig.axes
    (points,) = ax.containers  # the simulated runs have a 49 ms RTT: only the 50 ms curve
    assert points.get_label() == "simulated, RTT 50 ms"
    assert points.lines[0].get_color() == ax.get_lines()[1].get_color()
    np.testing.assert_allclose(points.lines[0].get_xdata(), RATES_MBPS)
    expected = [rows[rows["rate"] == r]["ramp_time_s"].mean() for r in RATES]
    np.testing.assert_allclose(points.lines[0].get_ydata(), expected)


def test_overrun_draws_the_model_for_the_options_given():
    (ax,) = _draw("overrun", "--interruption", "50ms", "--extra", "0B,62.5KB").axes
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [0.0, 62.5])
    # docs/models.md: 0.3125 without extra buffer, 0 from R/8 · T = 62.5 kB on.
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [0.3125, 0.0])
    (ax,) = _draw(
        "overrun",
        "--interruption",
        "40ms,100ms",
        "--rate",
        "20Mbps",
        "--rtt",
        "100ms",
        "--buffer",
        "100KB",
        "--extra",
        "0B:50KB",
    ).axes
    assert [line.get_label() for line in ax.get_lines()] == [
        "interruption 40 ms",
        "interruption 100 ms",
    ]
    line = ax.get_lines()[1]
    assert len(line.get_xdata()) == 101 and line.get_xdata()[-1] == pytest.approx(50.0)
    expected = [
        buffer_overrun_probability(
            100e3, 20e6, 0.1, 0.1, mss_bytes=1500.0, extra_buffer_bytes=e * 1e3
        )
        for e in line.get_xdata()
    ]
    np.testing.assert_allclose(line.get_ydata(), expected)


# -- cwnd-rtt around a handover -------------------------------------------------------------------


def test_cwnd_rtt_around_a_handover_of_the_run(run_dir):
    handovers = pd.read_parquet(run_dir / "handovers.parquet")
    row = handovers.iloc[0]
    fig = _draw(
        "cwnd-rtt", "--result", run_dir, "--handover", "0", "--before", "0.5", "--after", "0.25"
    )
    top, bottom = fig.axes
    ends = [
        row[c]
        for c in ("attach_s", "completion_s", "window_end_s", "episode_end_s", "recovered_at_s")
        if np.isfinite(row[c])
    ]
    assert bottom.get_xlim() == pytest.approx((row["command_s"] - 0.5, max(ends) + 0.25))
    tcp = pd.read_parquet(run_dir / "tcp.parquet")
    cwnd = tcp[
        (tcp["var"] == "cwnd")
        & (tcp["time_s"] >= row["command_s"] - 0.5)
        & (tcp["time_s"] <= max(ends) + 0.25)
    ]
    np.testing.assert_allclose(top.get_lines()[0].get_ydata(), cwnd["value"] / 1e3)
    # The interruption, command to attach, is shaded.
    (span,) = [p for p in top.patches if p.get_label() == "interruption"]
    # A Rectangle since matplotlib 3.9, a Polygon before.
    xs = (
        [span.get_x(), span.get_x() + span.get_width()]
        if hasattr(span, "get_width")
        else np.asarray(span.get_xy())[:, 0]
    )
    assert (min(xs), max(xs)) == pytest.approx((row["command_s"], row["attach_s"]))
    # The discard handover ends in a timeout: its RTO is drawn in the window.
    assert row["outcome"] == "timeout"
    assert "RTO" in [line.get_label() for line in top.get_lines()]


# -- files ----------------------------------------------------------------------------------------


def _is_png(path: Path) -> bool:
    data = path.read_bytes()
    return data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


def test_every_kind_writes_a_png_at_its_default_place(
    forward, discard, run_dir, tmp_path, monkeypatch, capsys
):
    store, _ = forward
    monkeypatch.chdir(tmp_path)
    commands = {
        run_dir / "cwnd-rtt.png": ["cwnd-rtt", "--result", run_dir, "--flow", "bulk"],
        run_dir / "cwnd-rtt-handover-0.png": ["cwnd-rtt", "--result", run_dir, "--handover", "0"],
        run_dir / "sequence.png": None,
        store / f"metric-{GOODPUT}-vs-{RATE}.png": [
            "metric",
            "--store",
            store,
            "--metric",
            GOODPUT,
            "--x",
            RATE,
            "--by",
            LOSS,
        ],
        store / "outcomes.png": ["outcomes", "--store", store],
        store / "outcomes-stop_reason.png": [
            "outcomes",
            "--store",
            store,
            "--metric",
            "stop_reason",
        ],
        store / "delivered.png": ["delivered", "--store", store],
        # Named after the selection: other selections do not overwrite it.
        store / f"delivered-flow-bulk-vs-{RATE}-where-{LOSS}_0.01.png": [
            "delivered",
            "--store",
            store,
            "--flow",
            "bulk",
            "--x",
            RATE,
            "--where",
            f"{LOSS}=0.01",
        ],
        store / "outcomes-flow-bulk.png": ["outcomes", "--store", store, "--flow", "bulk"],
        Path("out/recovery-time.png"): ["recovery-time"],
        discard[0] / "recovery-time.png": ["recovery-time", "--store", discard[0], "--rtt", "50ms"],
        Path("out/overrun.png"): ["overrun"],
    }
    for path, argv in commands.items():
        if argv is None:
            continue
        assert default_output(_args(*argv)) == path
        assert main(["plot", *map(str, argv)]) == 0, capsys.readouterr().err
        assert _is_png(path), path
        assert f"figure written to {path}" in capsys.readouterr().err
    out = tmp_path / "figure.svg"
    assert main(["plot", "overrun", "--out", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert capsys.readouterr().err == ""


def test_the_installed_command_draws_a_store_figure(cli, forward, tmp_path):
    store, _ = forward
    out = tmp_path / "delivered.png"
    done = cli(
        "plot", "delivered", "--store", store, "--x", RATE, "--out", out, "--where", f"{LOSS}=0.01"
    )
    assert done.returncode == 0, done.stderr
    assert _is_png(out)
    done = cli("plot", "delivered", "--store", store, "--x", RATE, "--out", tmp_path / "x.png")
    assert done.returncode == 2 and len(done.stderr_lines) == 1
    assert f"several grid points have {RATE} = 5Mbps (they differ in {LOSS}" in done.stderr
    assert not (tmp_path / "x.png").exists()


# -- errors ---------------------------------------------------------------------------------------

#: (command line after ``plot``, text the one-line error must contain). ``STORE``, ``COUNTS``,
#: ``DISCARD`` and ``RUN`` stand for the fixtures' directories.
ERRORS = [
    (["metric", "--store", "STORE", "--x", RATE], "the following arguments are required: --metric"),
    (
        ["metric", "--store", "STORE", "--metric", "nope", "--x", RATE],
        "--metric nope: not a metric of the store (metrics: flows.bulk.goodput_bps",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", "speed"],
        "--x speed: not a parameter of the store (parameters: links.access.rate, ",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE, "--by", "cc"],
        "--by cc: not a parameter",
    ),
    (
        ["metric", "--store", "STORE", "--metric", "stop_reason", "--x", RATE],
        "--metric stop_reason: outcomes, not numbers; draw them with 'celltcp plot outcomes",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE],
        f"several points share each {RATE} value (they differ in {LOSS}",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE, "--where", "cc=cubic"],
        "--where cc: not a parameter of the store",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE, "--where", f"{LOSS}=0.5"],
        f"--where {LOSS}=0.5: no run has it ({LOSS}: 0.0005, 0.01)",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE, "--where", "oops"],
        "argument --where: 'oops' is not PARAM=VALUE",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE, "--confidence", "95"],
        "argument --confidence: '95' must be > 0 and < 1",
    ),
    (
        ["metric", "--store", "STORE", "--metric", GOODPUT, "--x", RATE, "--log-x", "--linear-x"],
        "argument --linear-x: not allowed with argument --log-x",
    ),
    (
        ["metric", "--store", "RUN", "--metric", GOODPUT, "--x", RATE],
        "no sweep store here (no results.duckdb)",
    ),
    (
        ["outcomes", "--store", "STORE", "--metric", GOODPUT],
        f"--metric {GOODPUT}: numbers, not outcomes",
    ),
    (
        ["outcomes", "--store", "STORE", "--flow", "video"],
        "flow 'video' is not in series 'handovers' (have: bulk)",
    ),
    (
        ["outcomes", "--store", "STORE", "--metric", "stop_reason", "--flow", "bulk"],
        "--flow selects the handover rows of a flow; it does not apply with --metric",
    ),
    (
        ["outcomes", "--store", "COUNTS", "--flow", "bulk"],
        "no run of the 30 selected kept the series 'handovers'; keep the series with series = ",
    ),
    (["delivered", "--store", "COUNTS"], "kept the series 'handovers'"),
    (["delivered", "--store", "STORE", "--by", LOSS], "--by needs --x"),
    (
        ["delivered", "--store", "STORE", "--x", RATE, "--by", RATE],
        f"--by {RATE}: the same parameter as --x",
    ),
    (["recovery-time", "--rtt", "50"], "argument --rtt: 50 has no unit; a time needs one of"),
    (["recovery-time", "--rates", "10Mbit"], "argument --rates: '10Mbit' is not a rate"),
    (["recovery-time", "--case", "typical"], "argument --case: invalid choice: 'typical'"),
    (["recovery-time", "--fraction", "1.5"], "argument --fraction: '1.5' must be > 0 and <= 1"),
    (["recovery-time", "--flow", "bulk"], "--flow and --where select the runs of --store DIR"),
    (
        ["recovery-time", "--store", "DISCARD", "--rtt", "10ms,100ms"],
        "simulated runs with an RTT of 48.8, 49.0 ms have no model curve within 20%",
    ),
    (["recovery-time", "--store", "STORE"], "no handover of the selected runs timed out"),
    (["overrun", "--extra", "5KB:1KB"], "argument --extra: '5KB:1KB': the range A:B needs A < B"),
    (["overrun", "--rate", "0Mbps"], "rate_bps"),
    (["overrun", "--store", "STORE"], "unrecognized arguments: --store"),
    (["cwnd-rtt", "--result", "RUN"], "--flow F is required (or --handover N)"),
    (
        ["cwnd-rtt", "--result", "RUN", "--handover", "7"],
        "handover 7 is not in series 'handovers' (have: 0)",
    ),
    (
        ["cwnd-rtt", "--result", "RUN", "--handover", "0", "--flow", "video"],
        "flow 'video' has no row for handover 0",
    ),
    (
        ["cwnd-rtt", "--result", "RUN", "--handover", "0", "--t0", "1"],
        "--t0/--t1 do not apply with --handover N",
    ),
    (
        ["cwnd-rtt", "--result", "RUN", "--flow", "bulk", "--after", "1"],
        "--before/--after need --handover N",
    ),
    (["cwnd-rtt", "--result", "RUN", "--handover", "x"], "argument --handover: 'x' is not"),
    (["cwnd-rtt", "--result", "STORE", "--flow", "bulk"], "no summary.json"),
    (["queue", "--result", "RUN"], "plot queue: --link L is required"),
    (["overrun", "--out", "figure.txt"], "--out figure.txt: '.txt' is not an image format"),
    (["histogram"], "argument KIND: invalid choice: 'histogram'"),
]


@pytest.mark.parametrize(("argv", "message"), ERRORS, ids=[" ".join(a) for a, _ in ERRORS])
def test_bad_options_and_data_are_one_line_exit_2_and_no_file(
    argv, message, forward, counts_only, discard, run_dir, tmp_path, monkeypatch, capsys
):
    where = {"STORE": forward[0], "COUNTS": counts_only, "DISCARD": discard[0], "RUN": run_dir}
    monkeypatch.chdir(tmp_path)
    before = {p: sorted(p.rglob("*.png")) for p in where.values()}
    argv = [str(where.get(a, a)) for a in argv]
    assert main(["plot", *argv]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("celltcp: error: "), err
    assert message in lines[0]
    assert not list(tmp_path.rglob("*.png")) and not list(tmp_path.rglob("*.txt"))
    assert before == {p: sorted(p.rglob("*.png")) for p in where.values()}


def test_dch_kind_draws_the_traced_channel_and_refuses_a_run_without_it(tmp_path, run_dir):
    ftp = Path(__file__).parents[2] / "python/celltcp/examples" / "001" / "ftp-dch.toml"
    result = celltcp.run(
        ftp, set={"simulation.duration": "60s", "trace.dch": '["radio"]', "trace.interval": "1s"}
    )
    directory = result.write(tmp_path / "dch-run")
    fig = _draw("dch", "--result", directory, "--dch", "radio")
    rows = result.series["dch"]
    # The first panel is the RLC throughput of each interval, in kbit/s.
    drawn = fig.axes[0].lines[0].get_ydata()
    assert np.allclose(drawn, rows["rlc_throughput_bps"].to_numpy() / 1e3)
    assert main(["plot", "dch", "--result", str(directory), "--quiet"]) == 0
    assert (directory / "dch.png").stat().st_size > 10_000
    # A run that traced no channel: a one-line error naming what to add.
    assert main(["plot", "dch", "--result", str(run_dir), "--quiet"]) == 2
    assert not (run_dir / "dch.png").exists()
