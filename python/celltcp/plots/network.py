"""Link and flow figures from the sampled series: queue length of a link's directions (the
``queue`` series, ``[trace] queues``) and per-flow received rate (``flow_rate``, ``[trace]
flows``). Both are sampled every ``[trace] interval``.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from celltcp.outputs import LINK_DIRECTIONS

from ._common import (
    BPS_PER_MBPS,
    BYTES_PER_KB,
    HasSeries,
    PlotError,
    get_series,
    new_figure,
    save,
    select,
    time_window,
)

__all__ = ["flow_rates", "queue"]

_UNITS = {"packets": ("packets", 1.0), "bytes": ("bytes", BYTES_PER_KB)}


def _endpoints(result: HasSeries, link: str) -> tuple[str, str] | None:
    """The link's ``a`` and ``b`` nodes from the resolved scenario in the summary, if any."""
    summary = getattr(result, "summary", None) or {}
    scenario = summary.get("scenario") if isinstance(summary, dict) else None
    links = scenario.get("links") if isinstance(scenario, dict) else None
    spec = links.get(link) if isinstance(links, dict) else None
    if isinstance(spec, dict) and isinstance(spec.get("a"), str) and isinstance(spec.get("b"), str):
        return spec["a"], spec["b"]
    return None


def queue(
    result: HasSeries,
    link: str,
    unit: str = "packets",
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """Queue length of ``link`` over time, one step line per direction traced (``a_to_b``,
    ``b_to_a``, labelled with the node names when the summary carries the scenario).
    ``unit`` is ``"packets"`` or ``"bytes"`` (drawn in kB)."""
    if unit not in _UNITS:
        raise PlotError(f"unit: {unit!r} is not a queue unit; expected 'packets' or 'bytes'")
    column, scale = _UNITS[unit]
    hint = f'add queues = ["{link}"] to the scenario\'s [trace] table'
    frame = select(get_series(result, "queue", hint), "link", link, "link", "queue")
    frame = time_window(frame, t0, t1)
    ends = _endpoints(result, link)
    fig, (ax,) = new_figure(1)
    for forward, direction in zip((True, False), LINK_DIRECTIONS):
        rows = frame[frame["direction"].astype(str) == direction]
        if rows.empty:
            continue
        if ends is None:
            label = direction
        else:
            label = f"{ends[0]} → {ends[1]}" if forward else f"{ends[1]} → {ends[0]}"
        ax.step(rows["time_s"], rows[column] / scale, where="post", label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)" if unit == "packets" else "queue (kB)")
    ax.set_title(f"Queue of link {link}")
    ax.legend(loc="upper right", fontsize="small")
    save(fig, out)
    return fig


def flow_rates(
    result: HasSeries,
    flows: list[str] | None = None,
    t0: float | None = None,
    t1: float | None = None,
    *,
    out: str | None = None,
) -> Figure:
    """Received rate (Mbit/s) of each flow over time, one line per flow (all traced flows by
    default, else the ``flows`` named)."""
    hint = "add the flows to the scenario's [trace] flows list"
    frame = time_window(get_series(result, "flow_rate", hint), t0, t1)
    names = [str(f) for f in frame["flow"].astype(str).unique()] if flows is None else flows
    if not names:
        raise PlotError("series 'flow_rate' has no samples (in the time window, if one was given)")
    fig, (ax,) = new_figure(1)
    for name in names:
        rows = select(frame, "flow", name, "flow", "flow_rate")
        ax.plot(rows["time_s"], rows["rate_bps"] / BPS_PER_MBPS, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("received rate (Mbit/s)")
    ax.set_ylim(bottom=0)
    ax.set_title("Flow rates")
    ax.legend(loc="lower right", fontsize="small")
    save(fig, out)
    return fig
