"""Plain-text tables of a run's summary for the terminal.

Reads only the keys it shows and prints ``-`` for any that a summary lacks, so it keeps working
as the core adds figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from celltcp.outputs import LINK_DIRECTIONS

__all__ = [
    "format_bytes",
    "format_metric",
    "format_rate",
    "format_seconds",
    "format_table",
    "html_table",
    "summary_table_data",
    "summary_tables",
]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _with_prefix(x: float, unit: str) -> str | None:
    """``x`` with a decimal SI prefix on ``unit`` (three decimals), or None below 1000."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3f} {prefix}{unit}"
    return None


def format_rate(bps: Any) -> str:
    """Bits per second with a decimal SI prefix: ``9.870 Mbps``."""
    x = _number(bps)
    if x is None:
        return "-"
    return _with_prefix(x, "bps") or f"{x:.0f} bps"


def format_seconds(seconds: Any) -> str:
    """A duration in ms (or us below 0.1 ms): ``21.30 ms``."""
    x = _number(seconds)
    if x is None:
        return "-"
    if abs(x) < 1e-4 and x != 0:
        return f"{x * 1e6:.1f} us"
    return f"{x * 1e3:.2f} ms"


def format_bytes(size: Any) -> str:
    """Bytes with a decimal SI prefix: ``1.250 MB``."""
    x = _number(size)
    if x is None:
        return "-"
    return _with_prefix(x, "B") or (f"{x:.0f} B" if x == int(x) else f"{x:.1f} B")


def format_metric(name: str, value: Any) -> str:
    """A summary figure with the unit its name ends in (the summary's naming rule: ``_bps``
    bit/s, ``_s`` seconds, ``_bytes`` bytes): ``4.757 Mbps``, ``1.250 s``, ``21.30 ms``,
    ``1.250 MB``; other figures as numbers of six significant digits."""
    x = _number(value)
    if x is None or x != x:
        return "-"
    if name.endswith("_bps"):
        return format_rate(x)
    if name.endswith("_s"):
        return f"{x:.3f} s" if abs(x) >= 1 else format_seconds(x)
    if name.endswith("_bytes"):
        return format_bytes(x)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{x:.6g}"


def _ratio(value: Any) -> str:
    x = _number(value)
    return "-" if x is None else f"{x * 100:.2f} %"


def _count(value: Any) -> str:
    x = _number(value)
    return "-" if x is None else f"{int(x):,}"


def _mean(value: Any) -> str:
    x = _number(value)
    return "-" if x is None else f"{x:.2f}"


def _drops(value: Any) -> str:
    if not isinstance(value, Mapping):
        return _count(value)
    nonzero = {cause: n for cause, n in sorted(value.items()) if _number(n)}
    return " ".join(f"{cause}={_count(n)}" for cause, n in nonzero.items()) or "0"


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the first column left-aligned, the rest right."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        out = [str(cells[0]).ljust(widths[0])]
        out += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(out).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


def summary_table_data(summary: Mapping[str, Any]) -> list[tuple[list[str], list[list[str]]]]:
    """The flow table and the link table of a run summary as (header, rows) of formatted cells;
    a table is left out when the summary has none of its rows."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    flows = summary.get("flows") or {}
    if flows:
        header = ["flow", "goodput", "throughput", "delay mean", "p50", "p95", "jitter", "loss"]
        rows = [
            [
                name,
                format_rate(f.get("goodput_bps")),
                format_rate(f.get("throughput_bps")),
                format_seconds(f.get("delay_mean_s")),
                format_seconds(f.get("delay_p50_s")),
                format_seconds(f.get("delay_p95_s")),
                format_seconds(f.get("jitter_s")),
                _ratio(f.get("loss_ratio")),
            ]
            for name, f in flows.items()
        ]
        tables.append((header, rows))
    links = summary.get("links") or {}
    if links:
        header = ["link", "direction", "packets", "drops", "ECN marks", "queue mean", "queue max"]
        rows = []
        for name, directions in links.items():
            for direction in LINK_DIRECTIONS:
                d = directions.get(direction) if isinstance(directions, Mapping) else None
                if not isinstance(d, Mapping):
                    continue
                rows.append(
                    [
                        name,
                        direction,
                        _count(d.get("packets_sent")),
                        _drops(d.get("drops")),
                        _count(d.get("ecn_marks")),
                        _mean(d.get("queue_mean_packets")),
                        _count(d.get("queue_max_packets")),
                    ]
                )
        tables.append((header, rows))
    return tables


def summary_tables(summary: Mapping[str, Any]) -> str:
    """The flow table and the link table of a run summary, as text."""
    blocks = [format_table(header, rows) for header, rows in summary_table_data(summary)]
    return "\n\n".join(blocks) if blocks else "(the summary has no flows and no links)"


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of formatted cells as HTML (escaped), first column left, the others right."""
    from html import escape

    def row(cells: Sequence[str], tag: str) -> str:
        return (
            "<tr>"
            + "".join(
                f'<{tag} style="text-align:{"left" if i == 0 else "right"}">{escape(c)}</{tag}>'
                for i, c in enumerate(cells)
            )
            + "</tr>"
        )

    body = "".join(row(r, "td") for r in rows)
    return f"<table><thead>{row(header, 'th')}</thead><tbody>{body}</tbody></table>"
