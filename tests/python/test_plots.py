"""celltcp.plots: each figure on a short real run or sweep, its errors, and ``celltcp plot``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import celltcp
from celltcp import plots
from celltcp.plots import PlotError
from celltcp.scenario import Scenario
from celltcp.sweep.stats import outcomes, summarize

#: A bulk NewReno download over a lossy 10 Mb/s access link, with an outage of the access link
#: from 1.0 s to 1.6 s (long enough for a retransmission timeout) and every TCP variable the
#: figures use traced.
TCP_TOML = """\
[simulation]
duration = "2.5s"
seed = 3

[nodes]
server = { kind = "host" }
router = { kind = "router" }
ue = { kind = "host" }

[links.core]
a = "server"
b = "router"
rate = "100Mbps"
delay = "15ms"

[links.access]
a = "router"
b = "ue"
rate = "10Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "40p" }

[links.access.a_to_b]
loss = { kind = "bernoulli", p = 0.002 }

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "newreno"
app = { kind = "bulk" }

[[events]]
at = "1.0s"
link = "access"
down = true

[[events]]
at = "1.6s"
link = "access"
down = false

[trace]
interval = "50ms"
queues = ["access"]
flows = ["bulk"]
tcp = ["cwnd", "ssthresh", "srtt", "rtt", "rto", "retx_fast", "retx_rto", "seq_sent",
       "ack_received"]
"""


@pytest.fixture(scope="module")
def result() -> celltcp.RunResult:
    return celltcp.run(Scenario.from_toml(TCP_TOML))


def _times(result: celltcp.RunResult, var: str) -> np.ndarray:
    tcp = result.series["tcp"]
    return tcp[tcp["var"].astype(str) == var]["time_s"].to_numpy()


def test_cwnd_rtt_draws_window_and_rtt_with_timeouts(result):
    rto_times = np.unique(_times(result, "retx_rto"))
    fast = _times(result, "retx_fast")
    assert rto_times.size >= 1, "the outage should cause a retransmission timeout"
    fig = plots.cwnd_rtt(result, "bulk")
    top, bottom = fig.axes
    assert top.get_ylabel() == "window (kB)"
    assert bottom.get_ylabel() == "RTT (ms)"
    assert bottom.get_xlabel() == "time (s)"
    # cwnd, ssthresh, one dotted line per timeout, and the fast-retransmit ticks if any.
    assert len(top.get_lines()) == 2 + rto_times.size + (1 if fast.size else 0)
    # RTT samples, SRTT, RTO, one dotted line per timeout.
    assert len(bottom.get_lines()) == 3 + rto_times.size
    cwnd = result.series["tcp"].query("var == 'cwnd'")["value"].to_numpy()
    drawn = top.get_lines()[0].get_ydata()
    np.testing.assert_allclose(drawn, cwnd / 1e3)


def test_cwnd_rtt_window_keeps_only_the_samples_inside(result):
    fig = plots.cwnd_rtt(result, "bulk", t0=0.8, t1=2.0)
    x = fig.axes[0].get_lines()[0].get_xdata()
    assert x.min() >= 0.8 and x.max() <= 2.0
    assert fig.axes[1].get_xlim() == (0.8, 2.0)
    with pytest.raises(PlotError, match="t1"):
        plots.cwnd_rtt(result, "bulk", t0=2.0, t1=1.0)


def test_sequence_draws_sent_acked_and_retransmissions(result):
    fig = plots.sequence(result, "bulk")
    (ax,) = fig.axes
    assert ax.get_ylabel() == "relative sequence number (MB)"
    labels = [line.get_label() for line in ax.get_lines()]
    expected = ["segment sent", "ACK received"]
    if _times(result, "retx_fast").size:
        expected.append("fast retransmission")
    expected.append("timeout retransmission")
    assert labels == expected
    ack = ax.get_lines()[1].get_ydata()
    assert np.all(np.diff(ack) >= 0), "the cumulative ACK never goes back"


def test_queue_one_line_per_direction_named_by_nodes(result):
    fig = plots.queue(result, "access")
    (ax,) = fig.axes
    assert ax.get_ylabel() == "queue (packets)"
    assert [line.get_label() for line in ax.get_lines()] == ["router → ue", "ue → router"]
    peak = result.series["queue"].query("direction == 'a_to_b'")["packets"].max()
    assert max(ax.get_lines()[0].get_ydata()) == peak
    assert plots.queue(result, "access", unit="bytes").axes[0].get_ylabel() == "queue (kB)"


def test_flow_rates_one_line_per_flow_in_mbps(result):
    fig = plots.flow_rates(result)
    (ax,) = fig.axes
    assert ax.get_ylabel() == "received rate (Mbit/s)"
    assert [line.get_label() for line in ax.get_lines()] == ["bulk"]
    assert 0 < max(ax.get_lines()[0].get_ydata()) <= 10.0 * 1.05


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda r: plots.cwnd_rtt(r, "nope"),
            "flow 'nope' is not in series 'tcp' \\(have: bulk\\)",
        ),
        (lambda r: plots.sequence(r, "video"), "flow 'video'"),
        (lambda r: plots.queue(r, "core"), "link 'core' is not in series 'queue'"),
        (lambda r: plots.queue(r, "access", unit="kg"), "unit"),
        (lambda r: plots.flow_rates(r, ["x"]), "flow 'x'"),
    ],
)
def test_unknown_names_are_plot_errors(result, call, message):
    with pytest.raises(PlotError, match=message):
        call(result)


def test_missing_series_or_variable_says_how_to_trace_it(result):
    no_tcp = plots.RunOutput(result.summary, {"queue": result.series["queue"]})
    with pytest.raises(PlotError, match=r"series 'tcp' is not in the result.*\[trace\]"):
        plots.cwnd_rtt(no_tcp, "bulk")
    tcp = result.series["tcp"]
    only_cwnd = plots.RunOutput(result.summary, {"tcp": tcp[tcp["var"].astype(str) == "cwnd"]})
    with pytest.raises(PlotError, match="no 'rtt or srtt' samples"):
        plots.cwnd_rtt(only_cwnd, "bulk")
    with pytest.raises(PlotError, match="no 'seq_sent or ack_received'") as raised:
        plots.sequence(only_cwnd, "bulk")
    # The message says what to trace.
    assert 'add tcp = ["seq_sent", "ack_received", "retx_fast", "retx_rto"]' in str(raised.value)


def test_load_run_reads_what_write_wrote(result, tmp_path):
    result.write(tmp_path / "run")
    loaded = plots.load_run(tmp_path / "run")
    assert set(loaded.series) == set(result.series)
    a = plots.cwnd_rtt(loaded, "bulk").axes[0].get_lines()[0].get_ydata()
    b = plots.cwnd_rtt(result, "bulk").axes[0].get_lines()[0].get_ydata()
    np.testing.assert_array_equal(a, b)
    with pytest.raises(PlotError, match="no summary.json"):
        plots.load_run(tmp_path)


# -- sweeps ---------------------------------------------------------------------------------------

_LOSS_RATES = (1e-4, 1e-3, 1e-2)
_QUEUES = ("20p", "80p")


@pytest.fixture(scope="module")
def sweep_frame() -> pd.DataFrame:
    """Three replications at each loss rate and queue limit of a 2 s run: a real sweep frame."""
    base = Scenario.from_toml(TCP_TOML.replace('duration = "2.5s"', 'duration = "2s"'))
    rows = []
    for p in _LOSS_RATES:
        for limit in _QUEUES:
            for run in range(3):
                r = celltcp.run(
                    base,
                    run=run,
                    set={"links.access.a_to_b.loss.p": p, "links.access.queue.limit": limit},
                )
                rows.append(
                    {
                        "loss": p,
                        "queue": limit,
                        "status": "ok",
                        "goodput_bps": r.flows.loc["bulk", "goodput_bps"],
                        "stop_reason": r.summary["stop_reason"],
                        "slow": bool(r.flows.loc["bulk", "goodput_bps"] < 3e6),
                    }
                )
    frame = pd.DataFrame(rows)
    frame.attrs["parameters"] = ["loss", "queue"]
    frame.attrs["metrics"] = ["goodput_bps", "stop_reason", "slow"]
    return frame


def test_metric_vs_parameter_errorbars_per_hue(sweep_frame):
    stats = summarize(sweep_frame)
    fig = plots.metric_vs_parameter(stats, "loss", "goodput_bps", hue="queue")
    (ax,) = fig.axes
    assert ax.get_xlabel() == "loss"
    assert ax.get_ylabel() == "goodput (Mbit/s)"
    assert ax.get_xscale() == "log"
    # One error-bar container (data line, caps, bars) per queue limit.
    assert len(ax.containers) == len(_QUEUES)
    line = ax.containers[0].lines[0]
    assert ax.containers[0].get_label() == "queue = 20p"
    np.testing.assert_allclose(line.get_xdata(), _LOSS_RATES)
    expected = stats[(stats["queue"] == "20p")].sort_values("loss")["mean"] / 1e6
    np.testing.assert_allclose(line.get_ydata(), expected)
    # Goodput falls as the loss rate grows a hundredfold.
    assert line.get_ydata()[0] > line.get_ydata()[-1]
    # A raw sweep frame is summarized first and gives the same figure.
    again = plots.metric_vs_parameter(sweep_frame, "loss", "goodput_bps", hue="queue")
    np.testing.assert_allclose(again.axes[0].containers[0].lines[0].get_ydata(), line.get_ydata())
    # Without hue the two queue limits would share x values: an error that names the parameter.
    with pytest.raises(PlotError, match="differ in queue.*hue"):
        plots.metric_vs_parameter(stats, "loss", "goodput_bps")
    one_queue = stats[stats["queue"] == "80p"]
    assert len(plots.metric_vs_parameter(one_queue, "loss", "goodput_bps").axes[0].containers) == 1


def test_metric_vs_parameter_bad_names(sweep_frame):
    stats = summarize(sweep_frame)
    with pytest.raises(PlotError, match="x 'speed' is not a column"):
        plots.metric_vs_parameter(stats, "speed", "goodput_bps")
    with pytest.raises(PlotError, match="metric 'delay_s' is not in the frame"):
        plots.metric_vs_parameter(stats, "loss", "delay_s")
    with pytest.raises(PlotError, match="expected the frame of celltcp.sweep.summarize"):
        plots.metric_vs_parameter(pd.DataFrame({"a": [1]}), "a", "b")


def test_outcome_bars_probabilities_with_wilson_intervals(sweep_frame):
    frame = outcomes(sweep_frame)
    fig = plots.outcome_bars(frame, "slow")
    (ax,) = fig.axes
    assert ax.get_ylabel() == "probability"
    assert ax.get_xlabel() == "slow"
    names = sorted({str(o) for o in frame.query("metric == 'slow'")["outcome"]})
    assert [t.get_text() for t in ax.get_xticklabels()] == names
    points = len(_LOSS_RATES) * len(_QUEUES)
    assert len(ax.patches) == points * len(names)
    heights = sorted(p.get_height() for p in ax.patches)
    assert all(0.0 <= h <= 1.0 for h in heights)
    # Each point's bars sum to one.
    per_point = np.array([p.get_height() for p in ax.patches]).reshape(points, len(names))
    np.testing.assert_allclose(per_point.sum(axis=1), 1.0)
    with pytest.raises(PlotError, match="several categorical metrics"):
        plots.outcome_bars(frame)


# -- models of seed 002 ---------------------------------------------------------------------------


def test_recovery_time_vs_rate_matches_the_model():
    fig = plots.recovery_time_vs_rate(case="worst", rates_bps=[10e6, 100e6])
    (ax,) = fig.axes
    assert ax.get_xlabel() == "rate (Mbit/s)"
    assert ax.get_ylabel() == "recovery time (s)"
    assert [line.get_label() for line in ax.get_lines()] == ["RTT 10 ms", "RTT 50 ms", "RTT 100 ms"]
    # The seed's worst case: 100 Mbit/s, 100 ms RTT, delayed ACK, no ABC: about 84 s.
    assert 84.0 <= ax.get_lines()[2].get_ydata()[1] <= 85.0
    with pytest.raises(PlotError, match="rtts_s"):
        plots.recovery_time_vs_rate(rtts_s=[0.1, -1.0])
    with pytest.raises(PlotError, match="case"):
        plots.recovery_time_vs_rate(case="typical")


def test_overrun_probability_vs_buffer_matches_the_model():
    fig = plots.overrun_probability_vs_buffer(
        interruptions_s=[0.05], extra_buffer_bytes=[0, 62.5e3]
    )
    (ax,) = fig.axes
    assert ax.get_xlabel() == "extra buffer (kB)"
    assert ax.get_ylabel() == "overrun probability"
    y = ax.get_lines()[0].get_ydata()
    # docs/models.md: 0.3125 without extra buffer, 0 from R/8 · T = 62.5 kB on.
    assert math.isclose(y[0], 0.3125) and y[1] == 0.0
    assert len(plots.overrun_probability_vs_buffer().axes[0].get_lines()) == 4
    with pytest.raises(PlotError, match="extra_buffer_bytes"):
        plots.overrun_probability_vs_buffer(extra_buffer_bytes=[-1.0])


# -- command line ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(result, tmp_path_factory):
    return result.write(tmp_path_factory.mktemp("plots") / "run")


def test_cli_plot_writes_a_png(cli, run_dir, tmp_path):
    out = tmp_path / "cwnd.png"
    done = cli("plot", "cwnd-rtt", "--result", run_dir, "--flow", "bulk", "--out", out)
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    done = cli("plot", "queue", "--result", run_dir, "--link", "access", "--quiet")
    assert done.returncode == 0, done.stderr
    assert (run_dir / "queue.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cwnd-rtt", "--flow", "nope"], "flow 'nope' is not in series 'tcp'"),
        (["sequence"], "--flow F is required"),
        (["queue", "--link", "core"], "link 'core'"),
        (["colour", "--flow", "bulk"], "invalid choice"),
    ],
)
def test_cli_plot_bad_input_is_one_line_exit_2(cli, run_dir, tmp_path, args, message):
    done = cli("plot", *args, "--result", run_dir, "--out", tmp_path / "x.png")
    assert done.returncode == 2
    assert len(done.stderr_lines) == 1
    assert done.stderr_lines[0].startswith("celltcp: error: ")
    assert message in done.stderr
    assert not (tmp_path / "x.png").exists()


def test_cli_plot_missing_series_and_directory(cli, tmp_path, result):
    bare = plots.RunOutput(result.summary, {})
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "summary.json").write_text("{}", encoding="utf-8")
    done = cli("plot", "flow-rates", "--result", tmp_path / "bare")
    assert done.returncode == 2 and "series 'flow_rate' is not in the result" in done.stderr
    assert bare.series == {}
    done = cli("plot", "flow-rates", "--result", tmp_path / "absent")
    assert done.returncode == 2 and len(done.stderr_lines) == 1
