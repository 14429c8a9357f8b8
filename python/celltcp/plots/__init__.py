"""Figures for celltcp results: each function returns a :class:`matplotlib.figure.Figure`
(and writes it when given ``out=``). No window is ever opened; see :mod:`._common`.

* :mod:`~celltcp.plots.tcp` -- :func:`cwnd_rtt`, :func:`sequence` (the ``tcp`` series).
* :mod:`~celltcp.plots.network` -- :func:`queue`, :func:`flow_rates` (``queue``, ``flow_rate``).
* :mod:`~celltcp.plots.sweep` -- :func:`metric_vs_parameter`, :func:`outcome_bars`
  (frames of :func:`celltcp.sweep.summarize` and :func:`celltcp.sweep.outcomes`).
* :mod:`~celltcp.plots.handover` -- :func:`recovery_time_vs_rate`,
  :func:`overrun_probability_vs_buffer` (the models of seed study ``002_…``),
  :func:`handover_outcome_bars`, :func:`delivered_bars` (``000_…`` Figs. 8/11 and 12).
* :mod:`~celltcp.plots.wcdma` -- :func:`dch_timeline`, :func:`rlc_throughput_vs_parameter`
  (the ``dch`` series; seed study ``001_…``).
* :mod:`~celltcp.plots.lte` -- :func:`cell_timeline`, :func:`link_timeline` (the ``cells``
  and ``queue`` series per interval, through :mod:`celltcp.intervals`).
* :mod:`~celltcp.plots.ack_control` -- :func:`throughput_vs_p_err`,
  :func:`throughput_ratio_vs_p_err`, :func:`cwnd_over_time`, :func:`loss_estimate_over_time`
  (seed study ``004_…``).

A run written by ``celltcp run`` is read back with :func:`load_run`. Bad input raises
:class:`PlotError` (a :class:`ValueError`). See docs/plots.md.
"""

from ._common import PlotError, RunOutput, load_run, load_store, save, store_series
from .ack_control import (
    cwnd_over_time,
    loss_estimate_over_time,
    throughput_ratio_vs_p_err,
    throughput_vs_p_err,
)
from .handover import (
    delivered_bars,
    handover_outcome_bars,
    handover_outcomes,
    overrun_probability_vs_buffer,
    recovery_points,
    recovery_time_vs_rate,
    store_handovers,
)
from .lte import cell_timeline, link_timeline
from .network import flow_rates, queue
from .sweep import metric_vs_parameter, outcome_bars
from .tcp import cwnd_rtt, cwnd_rtt_handover, sequence
from .wcdma import dch_timeline, rlc_throughput_vs_parameter

__all__ = [
    "PlotError",
    "RunOutput",
    "cell_timeline",
    "cwnd_over_time",
    "cwnd_rtt",
    "cwnd_rtt_handover",
    "dch_timeline",
    "delivered_bars",
    "flow_rates",
    "handover_outcome_bars",
    "handover_outcomes",
    "link_timeline",
    "load_run",
    "load_store",
    "loss_estimate_over_time",
    "metric_vs_parameter",
    "outcome_bars",
    "overrun_probability_vs_buffer",
    "queue",
    "recovery_points",
    "recovery_time_vs_rate",
    "rlc_throughput_vs_parameter",
    "save",
    "sequence",
    "store_handovers",
    "store_series",
    "throughput_ratio_vs_p_err",
    "throughput_vs_p_err",
]
