"""The outcome of one run: its summary, per-flow and per-link tables, and time series.

Tables are built on first access from the core's raw output. Series columns arrive as
little-endian byte buffers and are viewed with ``numpy.frombuffer`` (no per-element Python
objects); categorical columns arrive as codes plus names and become ``pandas.Categorical``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from celltcp.output import atomic_output_dir
from celltcp.outputs import LINK_DIRECTIONS, label

if TYPE_CHECKING:
    import pandas as pd

    from celltcp.summary_types import HandoverSummary, StopReason, Summary

__all__ = ["RunResult"]

#: Headline figures first in the tables; any other keys follow in the summary's order.
_FLOW_COLUMNS = (
    "goodput_bps",
    "throughput_bps",
    "delay_mean_s",
    "delay_p50_s",
    "delay_p95_s",
    "jitter_s",
    "loss_ratio",
    "packets_sent",
    "packets_delivered",
    "packets_received",
)
_LINK_COLUMNS = (
    "packets_sent",
    "bytes_sent",
    "ecn_marks",
    "queue_mean_packets",
    "queue_max_packets",
)

#: The stop reasons of a run that went as planned: its duration reached, or no event left.
_ENDED = (label("stop_reason", "duration"), label("stop_reason", "exhausted"))


def _flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flattens nested tables into columns: ``{"drops": {"queue": 3}}`` → ``drops_queue``."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}_"))
        else:
            flat[name] = value
    return flat


def _ordered(frame: pd.DataFrame, first: tuple[str, ...]) -> pd.DataFrame:
    head = [c for c in first if c in frame.columns]
    return frame[head + [c for c in frame.columns if c not in head]]


def _decode_series(columns: Mapping[str, Any]) -> pd.DataFrame:
    """One series from the core's columns, by way of the Arrow table that is also written to
    Parquet (:mod:`celltcp._parquet`): a ``time_ns`` column is followed by ``time_s``."""
    from celltcp._parquet import series_table

    return series_table(columns).to_pandas()


class RunResult:
    """Results of one run.

    Attributes:
        summary: the core's summary (``summary.json`` parsed), typed by
            :class:`celltcp.summary_types.Summary` (generated from the output schema,
            docs/outputs.md); its ``flows`` and ``links`` tables are also offered as DataFrames
            by :attr:`flows` and :attr:`links`.
        events: number of simulation events processed.
    """

    def __init__(self, summary: Mapping[str, Any], events: int, raw_series: Mapping[str, Any]):
        # The core's summary has the schema's form (tests/python/test_output_contract.py).
        self.summary = cast("Summary", summary)
        self.events = int(events)
        self._raw_series = raw_series

    @classmethod
    def _from_core(cls, raw: Mapping[str, Any]) -> RunResult:
        return cls(json.loads(raw["summary"]), raw["events"], raw["series"])

    @property
    def stop_reason(self) -> StopReason:
        """Why the run ended (``summary["stop_reason"]``, one of
        :data:`celltcp.outputs.STOP_REASONS`)."""
        return self.summary["stop_reason"]

    @property
    def simulated_time_s(self) -> float:
        """Simulated time at the end of the run, seconds (``summary["simulated_time_s"]``)."""
        return float(self.summary["simulated_time_s"])

    @property
    def handover_summary(self) -> HandoverSummary | None:
        """The summary's ``handovers`` section (counts by result and TCP outcome, the mean
        interruption, one record per handover), or None when no handover could happen."""
        return self.summary.get("handovers")

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow (index ``flow``); columns are the summary's per-flow figures
        (``goodput_bps``, ``delay_mean_s``, ``loss_ratio``, ...), nested tables flattened."""
        flows = self.summary.get("flows") or {}
        rows = [_flatten(fields) for fields in flows.values()]
        import pandas as pd

        return _ordered(pd.DataFrame(rows, index=pd.Index(list(flows), name="flow")), _FLOW_COLUMNS)

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link direction (index ``link``, ``direction``); ``drops`` by cause
        become ``drops_<cause>`` columns (0 where a cause did not occur)."""
        index: list[tuple[str, str]] = []
        rows: list[dict[str, Any]] = []
        for link, directions in (self.summary.get("links") or {}).items():
            for direction in LINK_DIRECTIONS:
                if isinstance(directions, Mapping) and direction in directions:
                    index.append((link, direction))
                    rows.append(_flatten(directions[direction]))  # type: ignore[literal-required]
        import pandas as pd

        frame = pd.DataFrame(
            rows, index=pd.MultiIndex.from_tuples(index, names=["link", "direction"])
        )
        drop_columns = [c for c in frame.columns if c.startswith("drops_")]
        if drop_columns:
            frame[drop_columns] = frame[drop_columns].fillna(0).astype("int64")
        return _ordered(frame, _LINK_COLUMNS)

    @cached_property
    def series(self) -> dict[str, pd.DataFrame]:
        """Time series by name (as enabled in the scenario's ``[trace]`` table). A ``time_ns``
        column is accompanied by ``time_s`` (float seconds)."""
        return {name: _decode_series(cols) for name, cols in self._raw_series.items()}

    @property
    def handovers(self) -> pd.DataFrame:
        """One row per handover × TCP flow of the handing-over UE (the ``handovers`` series):
        the handover's identity and times (``cause``, ``policy``, ``result``, ``decision_s`` …
        ``interruption_s``), the flow's packet counts (``forwarded``, ``duplicated``,
        ``reordered``; ``dropped`` with its places ``dropped_source``, ``dropped_source_egress``,
        ``dropped_transport``, ``dropped_target``, ``dropped_radio`` and causes
        ``dropped_queue_full`` … ``dropped_handover``, docs/handover.md) and the TCP analytics (``outcome`` = timeout / halving /
        none, ``rto_retransmissions``, ``spurious_rto``, ``rtt_peak_s``, ``recovery_time_s`` …); NaN where
        undefined. Empty when the run had no handover (see docs/scenarios.md)."""
        import pandas as pd

        return self.series.get("handovers", pd.DataFrame())

    @property
    def handover_events(self) -> pd.DataFrame:
        """The handovers' message timeline (the ``handover_events`` series): ``time_s``,
        ``handover`` (id), ``ue``, ``from``, ``to`` (node names) and ``message``, in time order.
        Empty when the run had no handover."""
        import pandas as pd

        return self.series.get("handover_events", pd.DataFrame())

    def handover_line(self) -> str | None:
        """A one-line account of the run's handovers (count, results, TCP outcomes, mean
        interruption), or None when there were none."""
        h = self.handover_summary
        if not isinstance(h, Mapping) or not h.get("count"):
            return None
        results = ", ".join(
            f"{n} {name.replace('_', ' ')}" for name, n in (h.get("by_result") or {}).items() if n
        )
        outcomes = h.get("outcomes") or {}
        text = (
            f"{h['count']} handover{'s' if h['count'] != 1 else ''} ({results}); TCP outcomes: "
            f"{outcomes.get('timeout', 0)} timeout, {outcomes.get('halving', 0)} halving, "
            f"{outcomes.get('none', 0)} none"
        )
        mean = h.get("interruption_mean_s")
        if isinstance(mean, (int, float)):
            text += f"; mean interruption {mean * 1e3:.1f} ms"
        return text

    def write(self, out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Writes ``summary.json`` and ``<series>.parquet`` into ``out_dir`` atomically (see
        :mod:`celltcp.output`).

        An existing directory is replaced only when it is empty or holds nothing but an earlier
        write by celltcp (its ``.celltcp-output`` marker); any other directory raises
        :class:`celltcp.output.OutputDirError`, unless ``overwrite=True``. The current and home
        directories and their parents are always refused."""
        with atomic_output_dir(out_dir, overwrite=overwrite, writer="RunResult.write") as tmp:
            self._write_files(tmp)
        return Path(out_dir)

    def _write_files(self, directory: Path) -> None:
        """Writes the outputs into an existing directory (no atomicity of its own). Series go
        from the core's columns to Parquet directly (:mod:`celltcp._parquet`), without pandas."""
        from celltcp._parquet import write_parquet

        text = json.dumps(self.summary, indent=2, sort_keys=True, allow_nan=True)
        (directory / "summary.json").write_text(text + "\n", encoding="utf-8")
        for name, columns in self._raw_series.items():
            write_parquet(columns, directory / f"{name}.parquet")

    def _repr_html_(self) -> str:
        """Jupyter's view of a result: what ran, then the flow and link tables that
        ``celltcp run`` prints."""
        from html import escape

        from celltcp.report import format_metric, html_table, summary_table_data

        # A hand-made result may lack any key.
        simulated = self.summary.get("simulated_time_s")
        stop_reason = self.summary.get("stop_reason")
        head = [f"<b>RunResult</b>: {self.events:,} events"]
        if isinstance(simulated, (int, float)):
            head.append(f"{format_metric('simulated_time_s', simulated)} simulated")
        if stop_reason is not None and stop_reason not in _ENDED:
            head.append(f"stopped: {escape(str(stop_reason))}")
        handovers = self.handover_line()
        if handovers:
            head.append(escape(handovers))
        tables = "".join(html_table(h, r) for h, r in summary_table_data(self.summary))
        series = escape(", ".join(sorted(self._raw_series)) or "none")
        return f"<div><p>{'; '.join(head)}</p>{tables}<p>series: {series}</p></div>"

    def __repr__(self) -> str:
        parts = [f"events={self.events}"]
        flows = self.summary.get("flows") or {}
        for name, f in list(flows.items())[:4]:
            figures = []
            goodput, delay, loss = f.get("goodput_bps"), f.get("delay_mean_s"), f.get("loss_ratio")
            if isinstance(goodput, (int, float)):
                figures.append(f"goodput {goodput / 1e6:.3f} Mbps")
            if isinstance(delay, (int, float)):
                figures.append(f"delay {delay * 1e3:.2f} ms")
            if isinstance(loss, (int, float)):
                figures.append(f"loss {loss * 100:.2f}%")
            parts.append(f"{name}: {', '.join(figures) or 'no figures'}")
        if len(flows) > 4:
            parts.append(f"... {len(flows) - 4} more flows")
        handovers = self.handover_line()
        if handovers:
            parts.append(handovers)
        parts.append(f"series={sorted(self._raw_series)}")
        return f"<RunResult {'; '.join(parts)}>"
