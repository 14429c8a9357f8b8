"""RunResult built from hand-made core output: column decoding and parquet writing.

These pin the Python side of the core's output contract (dtype tags, little-endian payloads,
categorical codes) independently of any simulation.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from celltcp import RunResult

SUMMARY = {
    "flows": {
        "a": {"goodput_bps": 1.5e6, "delay_mean_s": 0.02, "loss_ratio": 0.0, "extra": {"x": 1}},
        "b": {"goodput_bps": 2.5e6, "delay_mean_s": 0.03, "loss_ratio": 0.1, "extra": {"x": 2}},
    },
    "links": {
        "l": {
            "a_to_b": {"packets_sent": 10, "drops": {"queue": 2}},
            "b_to_a": {"packets_sent": 3, "drops": {"loss": 1}},
        }
    },
}


def raw_series() -> dict:
    time_ns = np.array([0, 10_000_000, 20_000_000], dtype="<u8")
    return {
        "queues": {
            "time_ns": ("u64", time_ns.tobytes()),
            "link": ("cat", (np.array([1, 0, 1], dtype="<u4").tobytes(), ["core", "access"])),
            "packets": ("u32", np.array([1, 2, 3], dtype="<u4").tobytes()),
            "bytes": ("f64", np.array([0.5, 1.5, 2.5], dtype="<f8").tobytes()),
        },
        "empty": {"value": ("f64", b"")},
    }


@pytest.fixture
def result() -> RunResult:
    return RunResult(SUMMARY, 42, raw_series())


def test_columns_decode_by_dtype(result: RunResult) -> None:
    q = result.series["queues"]
    assert list(q.columns) == ["time_ns", "time_s", "link", "packets", "bytes"]
    assert q["time_ns"].dtype == np.uint64 and q["packets"].dtype == np.uint32
    assert q["time_s"].tolist() == [0.0, 0.01, 0.02]
    assert isinstance(q["link"].dtype, pd.CategoricalDtype)
    assert q["link"].tolist() == ["access", "core", "access"]
    assert list(q["link"].cat.categories) == ["core", "access"]
    assert q["bytes"].tolist() == [0.5, 1.5, 2.5]
    assert len(result.series["empty"]) == 0


def test_unknown_dtype_is_reported() -> None:
    bad = RunResult({}, 0, {"s": {"c": ("i8", b"")}})
    with pytest.raises(ValueError, match="'c'.*'i8'"):
        _ = bad.series


def test_flows_and_links_tables(result: RunResult) -> None:
    assert list(result.flows.index) == ["a", "b"]
    assert list(result.flows.columns[:3]) == ["goodput_bps", "delay_mean_s", "loss_ratio"]
    assert result.flows.loc["b", "extra_x"] == 2
    links = result.links
    assert list(links.index) == [("l", "a_to_b"), ("l", "b_to_a")]
    assert links["drops_queue"].tolist() == [2, 0]
    assert links["drops_loss"].tolist() == [0, 1]


def test_empty_summary_gives_empty_tables() -> None:
    r = RunResult({}, 0, {})
    assert r.flows.empty and r.links.empty and r.series == {}
    assert "events=0" in repr(r)


def test_write_is_byte_identical_and_round_trips(result: RunResult, tmp_path: Path) -> None:
    result.write(tmp_path / "one")
    RunResult(SUMMARY, 42, raw_series()).write(tmp_path / "two")
    for name in ("summary.json", "queues.parquet", "empty.parquet"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert json.loads((tmp_path / "one" / "summary.json").read_text()) == SUMMARY
    back = pd.read_parquet(tmp_path / "one" / "queues.parquet")
    pd.testing.assert_frame_equal(back, result.series["queues"])


def test_write_replaces_an_existing_directory(result: RunResult, tmp_path: Path) -> None:
    out = tmp_path / "out"
    RunResult(SUMMARY, 42, {"stale": raw_series()["queues"]}).write(out)
    assert (out / "stale.parquet").exists()
    result.write(out)
    assert not (out / "stale.parquet").exists()
    assert (out / "summary.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
