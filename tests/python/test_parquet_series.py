"""Series go from the core's columns to Arrow and Parquet directly: every column type, the same
frames as read back, and files with no pandas metadata (so no pandas version in them)."""

from __future__ import annotations

import struct

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import celltcp
from celltcp._parquet import parquet_bytes, series_table
from conftest import CHAIN_TOML

COLUMNS = {
    "time_ns": ("u64", struct.pack("<3Q", 0, 500_000_000, 1_000_000_001)),
    "flow": ("cat", (struct.pack("<3I", 1, 0, 1), ["a", "b"])),
    "value": ("f64", struct.pack("<3d", 1.5, float("nan"), -2.0)),
    "count": ("u32", struct.pack("<3I", 7, 0, 4_000_000_000)),
    "flag": ("bool", bytes([1, 0, 1])),
}


def test_every_core_column_type():
    table = series_table(COLUMNS)
    assert table.column_names == ["time_ns", "time_s", "flow", "value", "count", "flag"]
    assert table.schema.field("time_ns").type == pa.uint64()
    assert table.schema.field("flow").type == pa.dictionary(pa.int32(), pa.string())
    assert table.schema.field("count").type == pa.uint32()
    assert table.schema.field("flag").type == pa.bool_()
    assert table.column("time_s").to_pylist() == [0.0, 0.5, 1.000000001]
    assert table.column("flow").to_pylist() == ["b", "a", "b"]
    assert table.column("count").to_pylist() == [7, 0, 4_000_000_000]
    assert table.column("flag").to_pylist() == [True, False, True]
    assert table.schema.metadata is None


def test_files_carry_no_pandas_metadata_and_are_the_same_every_time(tmp_path):
    data = parquet_bytes(COLUMNS)
    assert data == parquet_bytes(COLUMNS)
    assert b"pandas" not in data
    path = tmp_path / "s.parquet"
    path.write_bytes(data)
    back, made = pq.read_table(path), series_table(COLUMNS)
    assert [f.type for f in back.schema] == [f.type for f in made.schema]
    for name in ("time_ns", "time_s", "flow", "count", "flag"):
        assert back.column(name).to_pylist() == made.column(name).to_pylist(), name


def test_a_runs_series_read_back_are_its_frames(tmp_path):
    result = celltcp.run(CHAIN_TOML)
    out = result.write(tmp_path / "run")
    assert result.series
    for name, frame in result.series.items():
        back = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(back, frame)
