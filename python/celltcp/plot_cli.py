"""``celltcp plot KIND``: the figures of :mod:`celltcp.plots` from the command line.

Figures of one run (``--result DIR``, a directory written by ``celltcp run``)::

    celltcp plot cwnd-rtt   --result DIR --flow F [--t0 S] [--t1 S]
    celltcp plot cwnd-rtt   --result DIR --handover N [--flow F] [--before S] [--after S]
    celltcp plot sequence   --result DIR --flow F [--t0 S] [--t1 S]
    celltcp plot queue      --result DIR --link L [--unit packets|bytes] [--t0 S] [--t1 S]
    celltcp plot flow-rates --result DIR [--flow F]... [--t0 S] [--t1 S]
    celltcp plot dch        --result DIR [--dch NAME] [--t0 S] [--t1 S]
    celltcp plot cell       --result DIR [--cell NAME] [--ue U]... [--t0 S] [--t1 S]
    celltcp plot link       --result DIR --link L [--direction a_to_b|b_to_a] [--t0 S] [--t1 S]

Figures of a results store (``--store DIR``, written by ``celltcp sweep``), each also with
``--where PARAM=VALUE`` (repeatable: keep the runs with that parameter value) and
``--confidence C`` (of the intervals, default 0.95)::

    celltcp plot metric     --store DIR --metric M --x PARAM [--by PARAM] [--log-x | --linear-x]
    celltcp plot outcomes   --store DIR [--metric M | --flow F]
    celltcp plot delivered  --store DIR [--x PARAM [--by PARAM]] [--flow F]

Figures of the analytic models (seed ``002_…``)::

    celltcp plot recovery-time [--rtt 10ms,50ms,100ms] [--rates 1Mbps:100Mbps] [--case best|worst]
                               [--mss 1500B] [--ack-every-segment] [--abc L] [--fraction F]
                               [--store DIR [--flow F] [--where PARAM=VALUE]...]
    celltcp plot overrun    [--interruption 20ms,50ms,100ms,200ms] [--extra 0B:250KB]
                            [--rate 10Mbps] [--rtt 200ms] [--buffer 250KB] [--mss 1500B]

Every kind takes ``--out FILE`` (the suffix picks the format; default below) and ``--quiet``.
A missing or invalid option, or data that cannot give the figure, raises the command's user
error (one line on stderr, exit status 2) before anything is written. The parsing lives here;
the ``celltcp`` command only registers it (:func:`add_plot_command`).
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from celltcp._docs import docs_url
from celltcp.outputs import LINK_DIRECTIONS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PLOT_KINDS", "PlotOptionError", "add_plot_command", "default_output", "draw_figure"]

#: Default directory of figures that have no data directory of their own (the model figures).
DEFAULT_OUT_DIR = Path("out")
#: Points of a range ``A:B``: geometric for rates (drawn on a log axis), linear for buffers.
RATE_POINTS = 41
EXTRA_POINTS = 101


class PlotOptionError(ValueError):
    """An option of ``celltcp plot`` missing, invalid or not meaningful with the others."""


# -- option values --------------------------------------------------------------------------------


def _quantity(kind: str) -> Callable[[str], float]:
    """An argparse type: one quantity of ``kind`` written as in scenario files ('50ms')."""

    def parse(text: str) -> float:
        from celltcp.plots._common import PlotError, parse_quantity

        try:
            return parse_quantity(text, kind)
        except PlotError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = kind
    return parse


def _quantities(kind: str) -> Callable[[str], list[float]]:
    """An argparse type: a comma-separated list of quantities of ``kind``."""
    one = _quantity(kind)

    def parse(text: str) -> list[float]:
        parts = [p for p in text.split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {kind}s")
        return [one(p) for p in parts]

    parse.__name__ = f"{kind} list"
    return parse


@dataclass(frozen=True)
class _Span:
    """Values given as a list, or as a range ``A:B`` that the figure fills in."""

    values: tuple[float, ...] = ()
    bounds: tuple[float, float] | None = None

    def expand(self, points: int, geometric: bool) -> list[float]:
        if self.bounds is None:
            return list(self.values)
        low, high = self.bounds
        spaced = (
            [low * (high / low) ** (i / (points - 1)) for i in range(points)]
            if geometric
            else [low + (high - low) * i / (points - 1) for i in range(points)]
        )
        return spaced


def _span(kind: str) -> Callable[[str], _Span]:
    """An argparse type: ``A:B`` (a range, A < B) or a comma-separated list of quantities."""
    many = _quantities(kind)

    def parse(text: str) -> _Span:
        if ":" not in text:
            return _Span(values=tuple(many(text)))
        low_text, _, high_text = text.partition(":")
        low, high = _quantity(kind)(low_text), _quantity(kind)(high_text)
        if not low < high:
            raise argparse.ArgumentTypeError(f"'{text}': the range A:B needs A < B")
        return _Span(bounds=(low, high))

    parse.__name__ = f"{kind} range"
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds")
    return value


def _margin(text: str) -> float:
    value = _seconds(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0 seconds")
    return value


def _handover_id(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a handover id (an integer)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _probability(closed_above: bool) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (0.0 < value < 1.0 or (closed_above and value == 1.0)):
            upper = "<= 1" if closed_above else "< 1"
            raise argparse.ArgumentTypeError(f"{text!r} must be > 0 and {upper}")
        return value

    parse.__name__ = "fraction"
    return parse


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be a number > 0")
    return value


def _assignment(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not PARAM=VALUE")
    return name.strip(), value.strip()


# -- selecting the runs of a store ----------------------------------------------------------------


def _same_value(stored: Any, given: str) -> bool:
    """Whether a parameter's stored value is the one written on the command line: the same
    text, the same number, or the same quantity in any unit ('10Mbps' and '10000kbps')."""
    from celltcp.plots._common import split_quantity

    if str(stored) == given:
        return True
    if not isinstance(stored, (bool, str)):
        try:
            return float(stored) == float(given)
        except (TypeError, ValueError):
            return False
    a, b = split_quantity(stored), split_quantity(given)
    if a is None or b is None or a.kind != b.kind:
        return False
    return math.isclose(a.value, b.value, rel_tol=1e-12)


def _parameters(runs: Any) -> list[str]:
    return list(runs.attrs.get("parameters", []))


def _check_parameter(runs: Any, option: str, name: str | None) -> None:
    if name is not None and name not in _parameters(runs):
        listing = ", ".join(_parameters(runs)) or "none"
        raise PlotOptionError(
            f"{option} {name}: not a parameter of the store (parameters: {listing})"
        )


def _store_runs(args: argparse.Namespace) -> Any:
    """The runs of ``--store``, narrowed by each ``--where PARAM=VALUE``."""
    from celltcp.plots.sweep import load_store

    runs = load_store(args.store)
    attrs = dict(runs.attrs)
    for name, value in args.where:
        _check_parameter(runs, "--where", name)
        keep = [_same_value(v, value) for v in runs[name]]
        if not any(keep):
            have = ", ".join(sorted({str(v) for v in runs[name]}))
            raise PlotOptionError(f"--where {name}={value}: no run has it ({name}: {have})")
        runs = runs[keep]
    runs.attrs.update(attrs)
    return runs


def _metric(runs: Any, option: str, name: str, categorical: bool) -> None:
    from celltcp.sweep.stats import is_categorical

    metrics = list(runs.attrs.get("metrics", []))
    if name not in metrics:
        raise PlotOptionError(
            f"{option} {name}: not a metric of the store (metrics: {', '.join(metrics) or 'none'})"
        )
    if is_categorical(list(runs[name])) != categorical:
        if categorical:
            raise PlotOptionError(
                f"{option} {name}: numbers, not outcomes; draw them with "
                f"'celltcp plot metric --metric {name} --x PARAM'"
            )
        raise PlotOptionError(
            f"{option} {name}: outcomes, not numbers; draw them with "
            f"'celltcp plot outcomes --metric {name}'"
        )


# -- the kinds ------------------------------------------------------------------------------------


def _draw_cwnd_rtt(args: argparse.Namespace) -> Any:
    from celltcp import plots
    from celltcp.plots.tcp import cwnd_rtt_handover

    result = plots.load_run(args.result)
    if args.handover is not None:
        if args.t0 is not None or args.t1 is not None:
            raise PlotOptionError(
                "--t0/--t1 do not apply with --handover N; set the window "
                "around it with --before S and --after S"
            )
        return cwnd_rtt_handover(
            result,
            args.handover,
            args.flow,
            before_s=1.0 if args.before is None else args.before,
            after_s=1.0 if args.after is None else args.after,
        )
    if args.before is not None or args.after is not None:
        raise PlotOptionError("--before/--after need --handover N")
    if args.flow is None:
        raise PlotOptionError("--flow F is required (or --handover N)")
    return plots.cwnd_rtt(result, args.flow, args.t0, args.t1)


def _draw_sequence(args: argparse.Namespace) -> Any:
    from celltcp import plots

    if args.flow is None:
        raise PlotOptionError("--flow F is required")
    return plots.sequence(plots.load_run(args.result), args.flow, args.t0, args.t1)


def _draw_queue(args: argparse.Namespace) -> Any:
    from celltcp import plots

    if args.link is None:
        raise PlotOptionError("--link L is required")
    return plots.queue(plots.load_run(args.result), args.link, args.unit, args.t0, args.t1)


def _draw_flow_rates(args: argparse.Namespace) -> Any:
    from celltcp import plots

    return plots.flow_rates(plots.load_run(args.result), args.flow, args.t0, args.t1)


def _draw_dch(args: argparse.Namespace) -> Any:
    from celltcp import plots

    return plots.dch_timeline(plots.load_run(args.result), args.dch, args.t0, args.t1)


def _draw_cell(args: argparse.Namespace) -> Any:
    from celltcp import plots

    return plots.cell_timeline(plots.load_run(args.result), args.cell, args.ue, args.t0, args.t1)


def _draw_link(args: argparse.Namespace) -> Any:
    from celltcp import plots

    if args.link is None:
        raise PlotOptionError("--link L is required")
    return plots.link_timeline(
        plots.load_run(args.result), args.link, args.direction, args.t0, args.t1
    )


def _draw_metric(args: argparse.Namespace) -> Any:
    from celltcp import plots
    from celltcp.sweep.stats import summarize

    runs = _store_runs(args)
    _metric(runs, "--metric", args.metric, categorical=False)
    _check_parameter(runs, "--x", args.x)
    _check_parameter(runs, "--by", args.by)
    if args.by is not None and args.by == args.x:
        raise PlotOptionError(f"--by {args.by}: the same parameter as --x")
    stats = summarize(runs, metrics=[args.metric], confidence=args.confidence)
    return plots.metric_vs_parameter(stats, args.x, args.metric, hue=args.by, logx=args.log_x)


def _draw_outcomes(args: argparse.Namespace) -> Any:
    from celltcp import plots
    from celltcp.plots import handover
    from celltcp.plots.sweep import kept_series
    from celltcp.sweep.stats import outcomes

    runs = _store_runs(args)
    if args.metric is not None:
        if args.flow is not None:
            raise PlotOptionError(
                "--flow selects the handover rows of a flow; it does not apply with --metric"
            )
        _metric(runs, "--metric", args.metric, categorical=True)
        frame = outcomes(runs, metrics=[args.metric], confidence=args.confidence)
        return plots.outcome_bars(frame, args.metric)
    if args.flow is None and kept_series(args.store, "handovers", runs) == 0:
        # The store kept the counts per run (metrics handovers.outcomes.*), not the rows.
        rows = handover.outcome_count_rows(runs)
    else:
        rows = handover.store_handovers(args.store, runs, args.flow)
    return handover.handover_outcome_bars(rows, confidence=args.confidence)


def _draw_delivered(args: argparse.Namespace) -> Any:
    from celltcp.plots import handover

    runs = _store_runs(args)
    _check_parameter(runs, "--x", args.x)
    _check_parameter(runs, "--by", args.by)
    if args.by is not None and args.x is None:
        raise PlotOptionError("--by needs --x: the bars of each --x value are told apart by --by")
    if args.by is not None and args.by == args.x:
        raise PlotOptionError(f"--by {args.by}: the same parameter as --x")
    rows = handover.store_handovers(args.store, runs, args.flow)
    return handover.delivered_bars(rows, args.x, args.by, confidence=args.confidence)


def _draw_recovery_time(args: argparse.Namespace) -> Any:
    from celltcp import plots
    from celltcp.plots import handover

    simulated = None
    if args.store is not None:
        simulated = handover.recovery_points(args.store, _store_runs(args), args.flow)
    elif args.flow is not None or args.where:
        raise PlotOptionError("--flow and --where select the runs of --store DIR; give the store")
    rates = None if args.rates is None else args.rates.expand(RATE_POINTS, geometric=True)
    return plots.recovery_time_vs_rate(
        args.rtt,
        rates,
        case=args.case,
        mss_bytes=args.mss,
        delayed_ack=not args.ack_every_segment,
        abc_limit=args.abc,
        target_fraction=args.fraction,
        simulated=simulated,
        confidence=args.confidence,
    )


def _draw_overrun(args: argparse.Namespace) -> Any:
    from celltcp import plots

    extras = None if args.extra is None else args.extra.expand(EXTRA_POINTS, geometric=False)
    return plots.overrun_probability_vs_buffer(
        args.interruption,
        extras,
        rate_bps=args.rate,
        rtt_s=args.rtt,
        buffer_bytes=args.buffer,
        mss_bytes=args.mss,
    )


def _file_part(text: str) -> str:
    """A name for a file: dots, letters, digits, '-' and '_' kept, anything else '_'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


def _in_result(args: argparse.Namespace) -> Path:
    if args.kind == "cwnd-rtt" and args.handover is not None:
        return Path(args.result) / f"cwnd-rtt-handover-{args.handover}.png"
    return Path(args.result) / f"{args.kind}.png"


def _in_store(args: argparse.Namespace) -> Path:
    if args.kind == "metric":
        name = f"metric-{_file_part(args.metric)}-vs-{_file_part(args.x)}.png"
    elif args.kind == "outcomes" and args.metric is not None:
        name = f"outcomes-{_file_part(args.metric)}.png"
    elif args.kind in ("delivered", "outcomes"):
        # Named after the selection, so that figures of other selections do not overwrite it.
        parts = [args.kind]
        if args.flow is not None:
            parts.append(f"flow-{_file_part(args.flow)}")
        if getattr(args, "x", None) is not None:
            parts.append(f"vs-{_file_part(args.x)}")
        if getattr(args, "by", None) is not None:
            parts.append(f"by-{_file_part(args.by)}")
        parts.extend(f"where-{_file_part(f'{k}={v}')}" for k, v in args.where)
        name = "-".join(parts) + ".png"
    else:
        name = f"{args.kind}.png"
    return Path(args.store) / name


def _in_store_or_out(args: argparse.Namespace) -> Path:
    if getattr(args, "store", None) is not None:
        return _in_store(args)
    return DEFAULT_OUT_DIR / f"{args.kind}.png"


@dataclass(frozen=True)
class _Kind:
    """One ``celltcp plot`` kind: its options, how it draws, where its figure goes."""

    name: str
    help: str
    options: Callable[[argparse.ArgumentParser], None]
    draw: Callable[[argparse.Namespace], Any]
    default_out: Callable[[argparse.Namespace], Path]
    default_text: str


def _result_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--result", required=True, metavar="DIR", help="directory of 'celltcp run'")


def _window_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--t0", type=_seconds, metavar="S", help="start of the time window (s)")
    p.add_argument("--t1", type=_seconds, metavar="S", help="end of the time window (s)")


def _store_options(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument(
        "--store", required=required, metavar="DIR", help="results store of 'celltcp sweep'"
    )
    p.add_argument(
        "--where",
        type=_assignment,
        action="append",
        default=[],
        metavar="PARAM=VALUE",
        help="keep only the runs with this parameter value (repeatable)",
    )
    p.add_argument(
        "--confidence",
        type=_probability(False),
        default=0.95,
        metavar="C",
        help="confidence level of the intervals (default 0.95)",
    )


def _cwnd_rtt_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument("--flow", metavar="F", help="TCP flow (optional with --handover if only one)")
    _window_options(p)
    p.add_argument(
        "--handover",
        type=_handover_id,
        metavar="N",
        help="draw the window around handover N (its id in handovers.parquet)",
    )
    p.add_argument(
        "--before",
        type=_margin,
        metavar="S",
        help="with --handover: seconds before the command (default 1)",
    )
    p.add_argument(
        "--after",
        type=_margin,
        metavar="S",
        help="with --handover: seconds after the recovery (default 1)",
    )


def _sequence_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument("--flow", metavar="F", help="TCP flow (required)")
    _window_options(p)


def _queue_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument("--link", metavar="L", help="link whose queue is traced (required)")
    p.add_argument(
        "--unit",
        choices=("packets", "bytes"),
        default="packets",
        help="queue length in packets (default) or bytes (drawn in kB)",
    )
    _window_options(p)


def _flow_rates_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument(
        "--flow",
        action="append",
        metavar="F",
        help="draw only this flow (repeatable; default: every traced flow)",
    )
    _window_options(p)


def _dch_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument(
        "--dch", metavar="NAME", help="channel of the dch series (required when it holds several)"
    )
    _window_options(p)


def _cell_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument(
        "--cell", metavar="NAME", help="cell of the cells series (required when it holds several)"
    )
    p.add_argument(
        "--ue",
        action="append",
        metavar="U",
        help="draw only this UE (repeatable; default: every UE of the cell)",
    )
    _window_options(p)


def _link_options(p: argparse.ArgumentParser) -> None:
    _result_option(p)
    p.add_argument("--link", metavar="L", help="link whose queue is traced (required)")
    p.add_argument(
        "--direction",
        choices=LINK_DIRECTIONS,
        default=LINK_DIRECTIONS[0],
        help=f"direction of the link (default {LINK_DIRECTIONS[0]})",
    )
    _window_options(p)


def _metric_options(p: argparse.ArgumentParser) -> None:
    _store_options(p)
    p.add_argument(
        "--metric",
        required=True,
        metavar="M",
        help="numeric metric, as 'celltcp stats' names it (flows.bulk.goodput_bps)",
    )
    p.add_argument("--x", required=True, metavar="PARAM", help="parameter on the x axis")
    p.add_argument("--by", metavar="PARAM", help="one line per value of this parameter")
    scale = p.add_mutually_exclusive_group()
    scale.add_argument(
        "--log-x",
        dest="log_x",
        action="store_const",
        const=True,
        help="logarithmic x axis (default: when x spans two decades or more)",
    )
    scale.add_argument(
        "--linear-x", dest="log_x", action="store_const", const=False, help="linear x axis"
    )


def _outcomes_options(p: argparse.ArgumentParser) -> None:
    _store_options(p)
    p.add_argument(
        "--metric", metavar="M", help="a categorical metric (default: the handover outcome classes)"
    )
    p.add_argument("--flow", metavar="F", help="handover rows of this flow only")


def _delivered_options(p: argparse.ArgumentParser) -> None:
    _store_options(p)
    p.add_argument(
        "--x", metavar="PARAM", help="one group of bars per value (default: one bar per grid point)"
    )
    p.add_argument("--by", metavar="PARAM", help="with --x: one bar per value in each group")
    p.add_argument("--flow", metavar="F", help="handover rows of this flow only")


def _recovery_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rtt",
        type=_quantities("time"),
        default=[0.010, 0.050, 0.100],
        metavar="LIST",
        help="one curve per RTT (default 10ms,50ms,100ms)",
    )
    p.add_argument(
        "--rates",
        type=_span("rate"),
        metavar="A:B|LIST",
        help="rates on the x axis (default 1Mbps:100Mbps)",
    )
    p.add_argument(
        "--case",
        choices=("best", "worst"),
        default="best",
        help="best: slow start only (Fig. 3); worst: then congestion avoidance (Fig. 4)",
    )
    p.add_argument(
        "--mss",
        type=_quantity("size"),
        default=1500.0,
        metavar="SIZE",
        help="segment size (default 1500B)",
    )
    p.add_argument(
        "--ack-every-segment", action="store_true", help="no delayed ACKs (default: delayed ACKs)"
    )
    p.add_argument(
        "--abc",
        type=_positive_number,
        metavar="L",
        help="appropriate byte counting limit L in segments, RFC 3465 (default none)",
    )
    p.add_argument(
        "--fraction",
        type=_probability(True),
        default=1.0,
        metavar="F",
        help="recovered when cwnd reaches F·BDP (default 1; the analytics use 0.9)",
    )
    _store_options(p, required=False)
    p.add_argument("--flow", metavar="F", help="with --store: handover rows of this flow only")


def _overrun_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--interruption",
        type=_quantities("time"),
        default=[0.020, 0.050, 0.100, 0.200],
        metavar="LIST",
        help="one curve per interruption time (default 20ms,50ms,100ms,200ms)",
    )
    p.add_argument(
        "--extra",
        type=_span("size"),
        metavar="A:B|LIST",
        help="extra buffer on the x axis (default 0B to one BDP)",
    )
    p.add_argument(
        "--rate",
        type=_quantity("rate"),
        default=10e6,
        metavar="RATE",
        help="bottleneck rate (default 10Mbps)",
    )
    p.add_argument(
        "--rtt",
        type=_quantity("time"),
        default=0.200,
        metavar="TIME",
        help="round-trip time (default 200ms)",
    )
    p.add_argument(
        "--buffer",
        type=_quantity("size"),
        default=250e3,
        metavar="SIZE",
        help="buffer in normal operation (default 250KB)",
    )
    p.add_argument(
        "--mss",
        type=_quantity("size"),
        default=1500.0,
        metavar="SIZE",
        help="segment size (default 1500B)",
    )


PLOT_KINDS: tuple[_Kind, ...] = (
    _Kind(
        "cwnd-rtt",
        "cwnd and RTT of a flow over time, or around a handover (000 Figs. 9-10)",
        _cwnd_rtt_options,
        _draw_cwnd_rtt,
        _in_result,
        "DIR/cwnd-rtt.png, DIR/cwnd-rtt-handover-N.png",
    ),
    _Kind(
        "sequence",
        "time-sequence plot of a flow",
        _sequence_options,
        _draw_sequence,
        _in_result,
        "DIR/sequence.png",
    ),
    _Kind(
        "queue", "queue length of a link", _queue_options, _draw_queue, _in_result, "DIR/queue.png"
    ),
    _Kind(
        "flow-rates",
        "received rate of each flow",
        _flow_rates_options,
        _draw_flow_rates,
        _in_result,
        "DIR/flow-rates.png",
    ),
    _Kind(
        "dch",
        "a DCH's RLC throughput, RLC buffer, retransmissions and MaxDAT discards over time (001)",
        _dch_options,
        _draw_dch,
        _in_result,
        "DIR/dch.png",
    ),
    _Kind(
        "cell",
        "an LTE cell per interval: each UE's RLC throughput, eNB buffer, queueing "
        "delay and SINR, and the cell's PRB utilisation",
        _cell_options,
        _draw_cell,
        _in_result,
        "DIR/cell.png",
    ),
    _Kind(
        "link",
        "a link direction per interval: throughput, queue, drops by cause and ECN marks",
        _link_options,
        _draw_link,
        _in_result,
        "DIR/link.png",
    ),
    _Kind(
        "metric",
        "a metric's mean with its CI versus a parameter (003 Figs. 5.9, 5.12)",
        _metric_options,
        _draw_metric,
        _in_store,
        "STORE/metric-M-vs-PARAM.png",
    ),
    _Kind(
        "outcomes",
        "outcome probabilities with Wilson intervals per grid point (000 Figs. 8, 11)",
        _outcomes_options,
        _draw_outcomes,
        _in_store,
        "STORE/outcomes.png, STORE/outcomes-flow-F.png",
    ),
    _Kind(
        "delivered",
        "data delivered across the handover, mean with its CI (000 Fig. 12)",
        _delivered_options,
        _draw_delivered,
        _in_store,
        "STORE/delivered[-flow-F][-vs-X][-by-B][-where-P_V].png",
    ),
    _Kind(
        "recovery-time",
        "model: recovery time after a handover versus rate (002 Figs. 3-4)",
        _recovery_options,
        _draw_recovery_time,
        _in_store_or_out,
        "out/recovery-time.png, or STORE/recovery-time.png",
    ),
    _Kind(
        "overrun",
        "model: buffer overrun probability versus extra buffer (002 Fig. 6)",
        _overrun_options,
        _draw_overrun,
        _in_store_or_out,
        "out/overrun.png",
    ),
)


# -- running --------------------------------------------------------------------------------------


def _check_format(out: Path) -> None:
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = out.suffix[1:].lower()
    if suffix not in formats:
        listing = ", ".join("." + f for f in sorted(formats))
        raise PlotOptionError(
            f"--out {out}: '{out.suffix or 'no suffix'}' is not an image "
            f"format; use one of {listing}"
        )


def _kind(args: argparse.Namespace) -> _Kind:
    return next(k for k in PLOT_KINDS if k.name == args.kind)


def default_output(args: argparse.Namespace) -> Path:
    """Where the figure of parsed ``celltcp plot`` arguments goes without ``--out``."""
    return _kind(args).default_out(args)


def draw_figure(args: argparse.Namespace) -> Figure:
    """The figure that parsed ``celltcp plot`` arguments ask for (nothing is written).

    Raises :class:`PlotOptionError` for options that do not fit together and
    :class:`celltcp.plots.PlotError` for data the figure cannot be drawn from."""
    figure: Figure = _kind(args).draw(args)
    return figure


def _run(kind: _Kind, user_error: type[Exception], args: argparse.Namespace) -> int:
    from celltcp import plots

    out = Path(args.out) if args.out else kind.default_out(args)
    try:
        _check_format(out)
        fig = kind.draw(args)
    except (PlotOptionError, plots.PlotError) as e:
        raise user_error(f"plot {kind.name}: {e}") from None
    try:
        if not args.out:
            out.parent.mkdir(parents=True, exist_ok=True)
        plots.save(fig, out)
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or e
        raise user_error(f"--out {out}: cannot write figure: {reason}") from None
    if not args.quiet:
        print(f"celltcp: figure written to {out}", file=sys.stderr)
    return 0


def add_plot_command(subcommands: Any, user_error: type[Exception]) -> None:
    """Adds ``plot`` to the ``celltcp`` command's subparsers (``subcommands``, from
    ``add_subparsers``). Each kind is a subcommand of its own with only its options; a mistake
    in them, or input the figure cannot be drawn from, raises ``user_error(message)``."""
    plot = subcommands.add_parser(
        "plot",
        help="draw a figure of a run, a sweep's results store or a model",
        description="Draw a figure of celltcp.plots: of a run (--result DIR), of a sweep's "
        "results store (--store DIR), or of an analytic model. 'celltcp plot KIND "
        "--help' lists the options of a kind; examples are on "
        f"{docs_url('cli')}.",
    )
    kinds = plot.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind in PLOT_KINDS:
        p = kinds.add_parser(kind.name, help=kind.help, description=kind.help)
        kind.options(p)
        p.add_argument(
            "--out",
            metavar="FILE",
            help=f"image file, format from its suffix (default {kind.default_text})",
        )
        p.add_argument("--quiet", action="store_true", help="print nothing on success")
        p.set_defaults(handler=functools.partial(_run, kind, user_error))
