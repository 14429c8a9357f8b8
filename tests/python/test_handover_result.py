"""Handover outputs from Python: ``RunResult.handovers`` and ``RunResult.handover_events`` for a
link handover and for a two-cell radio access network, and their Parquet files."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import celltcp

#: Scenario files shared with the Rust tests (crates/scenario/tests/handover_*.rs).
DATA = Path(__file__).resolve().parents[1] / "data"

#: A bulk NewReno download through an access link whose base station (the link's ``a`` end)
#: stops serving its downlink for 200 ms and discards its buffer: seed 002's emulated handover
#: without buffer transfer.
LINK_TOML = (DATA / "handover-link.toml").read_text(encoding="utf-8")

#: Two cells 500 m apart on a line; the UE is handed over at 0.8 s.
RAN_TOML = (DATA / "handover-ran.toml").read_text(encoding="utf-8")

#: Every field of the analytics, in the order the core writes them.
HANDOVER_COLUMNS = [
    "handover",
    "flow",
    "ue",
    "source",
    "target",
    "cause",
    "policy",
    "result",
    "decision_s",
    "command_s",
    "attach_s",
    "path_switch_s",
    "completion_s",
    "interruption_s",
    "forwarded",
    "dropped",
    "dropped_source",
    "dropped_source_egress",
    "dropped_transport",
    "dropped_target",
    "dropped_radio",
    "dropped_queue_full",
    "dropped_aqm",
    "dropped_link_loss",
    "dropped_outage",
    "dropped_no_route",
    "dropped_handover",
    "duplicated",
    "reordered",
    "start_s",
    "window_end_s",
    "outcome",
    "rto_retransmissions",
    "fast_retransmissions",
    "spurious_rto",
    "first_rto_s",
    "rtt_before_s",
    "rtt_peak_s",
    "goodput_before_bps",
    "recovered_at_s",
    "recovery_time_s",
    "ramp_time_s",
    "episode_end_s",
    "delivered_bytes",
]


def _run(text: str, **overrides: str) -> celltcp.RunResult:
    return celltcp.run(celltcp.Scenario.from_toml(text), set=overrides or None)


def test_link_handover_rows_have_every_column_and_the_timeout() -> None:
    result = _run(LINK_TOML)
    h = result.handovers
    assert list(h.columns) == HANDOVER_COLUMNS
    assert len(h) == 1
    row = h.iloc[0]
    assert (row["flow"], row["ue"], row["source"], row["cause"]) == ("bulk", "ue", "bs", "link")
    assert (row["policy"], row["result"], row["outcome"]) == ("discard", "completed", "timeout")
    assert row["decision_s"] == pytest.approx(2.0)
    assert row["interruption_s"] == pytest.approx(0.2)
    assert math.isnan(row["path_switch_s"])
    assert row["dropped"] > 10
    assert h["spurious_rto"].dtype == bool and not row["spurious_rto"]
    assert isinstance(h["outcome"].dtype, pd.CategoricalDtype)
    assert list(h["outcome"].cat.categories) == ["timeout", "halving", "none"]

    ev = result.handover_events
    assert list(ev.columns) == ["time_ns", "time_s", "handover", "ue", "from", "to", "message"]
    assert list(ev["message"]) == ["interruption_start", "interruption_end"]
    assert list(ev["time_s"]) == pytest.approx([2.0, 2.2])
    assert "handovers" in repr(result)


def test_forwarded_data_held_past_the_rto_make_a_spurious_timeout() -> None:
    # Buffer transfer, but the 200 ms interruption outlasts the sender's RTO (200 ms minimum,
    # armed by the last ACK): it fires although nothing was lost (000 §IV's spurious timeout).
    result = _run(LINK_TOML.replace('policy = "discard"', 'policy = "forward"'))
    row = result.handovers.iloc[0]
    assert (row["outcome"], row["dropped"]) == ("timeout", 0)
    assert bool(row["spurious_rto"])


def test_ran_handover_rows_and_timeline() -> None:
    result = _run(RAN_TOML, **{"ran.handover.policy": "forward"})
    h = result.handovers
    assert len(h) == 1
    row = h.iloc[0]
    assert (row["source"], row["target"], row["cause"], row["policy"]) == (
        "enb1",
        "enb2",
        "manual",
        "forward",
    )
    assert row["forwarded"] > 0
    assert row["interruption_s"] == pytest.approx(0.040)
    ev = result.handover_events
    assert ev["time_s"].is_monotonic_increasing
    messages = list(ev["message"])
    for m in (
        "handover_request",
        "handover_command",
        "handover_confirm",
        "path_switch_request",
        "end_marker",
        "ue_context_release",
    ):
        assert m in messages
    assert set(ev["handover"]) == {0}
    assert set(result.summary["cells"]) == {"a", "b"}
    assert result.summary["handovers"]["count"] == 1


def test_no_handover_gives_empty_tables() -> None:
    text = LINK_TOML.split("[[events]]")[0]
    result = _run(text)
    assert result.handovers.empty and result.handover_events.empty
    assert result.handover_line() is None
    assert "handovers" not in result.summary


def test_parquet_files_are_written(tmp_path: Path) -> None:
    pyarrow = pytest.importorskip("pyarrow.parquet")
    result = _run(LINK_TOML)
    out = result.write(tmp_path / "run")
    table = pyarrow.read_table(out / "handovers.parquet").to_pandas()
    assert list(table.columns) == HANDOVER_COLUMNS
    assert table["outcome"].astype(str).tolist() == ["timeout"]
    assert table["spurious_rto"].tolist() == [False]
    events = pyarrow.read_table(out / "handover_events.parquet").to_pandas()
    assert events["message"].astype(str).tolist() == ["interruption_start", "interruption_end"]
    assert (out / "summary.json").read_text(encoding="utf-8").count('"handovers"') == 1
